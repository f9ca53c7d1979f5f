//! The AVX-512 registers of eight 64-bit lanes: unsigned ([`U64x8`]), signed ([`I64x8`]) and
//! double ([`D64x8`]) words, built as the 32-bit ones in `avx512.rs` are.

use std::arch::x86_64::*;

use super::super::float::Double;
use super::super::vector::Vector;

#[derive(Clone, Copy)]
pub(crate) struct U64x8(__m512i);

/// Eight i64 keys compared as signed words (see [`I32x16`](super::I32x16)).
#[derive(Clone, Copy)]
pub(crate) struct I64x8(__m512i);

/// Eight f64 keys compared as doubles (`float.rs`).
#[derive(Clone, Copy)]
pub(crate) struct D64x8(__m512i);

#[inline(always)]
fn low8(n: usize) -> __mmask8 {
    ((1u32 << n) - 1) as __mmask8
}

/// As [`zip_index32`](super::zip_index32), for 8 lanes of 64 bits (the second register's lanes are 8 on).
#[inline(always)]
fn zip_index64(from: i64) -> __m512i {
    // SAFETY: as above.
    unsafe {
        let t = iota64();
        let half = _mm512_add_epi64(_mm512_srli_epi64::<1>(t), _mm512_set1_epi64(from));
        let odd = _mm512_slli_epi64::<3>(_mm512_and_si512(t, _mm512_set1_epi64(1)));
        _mm512_or_si512(half, odd)
    }
}

/// For each 8-bit mask of keys above the pivot, the lane indices that put the other keys first
/// and those after them (each in lane order), one byte per lane: `split` of the 64-bit
/// registers is then one `vpermq`, and both ends of the partition take full stores. Intel dev
/// machine (Emerald Rapids), one thread, least of 3000 (64K) or 200 (1M) sorts, against two
/// compresses and a masked store: u64 64K 0.354 against 0.405 ms, 1M 7.87 against 8.45; f64
/// 0.333 against 0.365, 7.22 against 7.8. Whole 64-byte index vectors (16 KB) instead of bytes
/// widened by `vpmovzxbq`: within 1%.
static SPLIT8_BYTES: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let mut k = 0;
        let mut set = 0;
        while set < 2 {
            let mut lane = 0;
            while lane < 8 {
                if (m >> lane) & 1 == set {
                    t[m] |= (lane as u64) << (8 * k);
                    k += 1;
                }
                lane += 1;
            }
            set += 1;
        }
        m += 1;
    }
    t
};

#[inline(always)]
fn iota64() -> __m512i {
    // SAFETY: as above.
    unsafe { _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7) }
}

/// The 64-bit registers: the same lanes and shuffles, compared as unsigned integers ([`U64x8`]),
/// signed integers ([`I64x8`]) or doubles ([`D64x8`]).
macro_rules! r64x8 {
    ($name:ident, $elem:ty, $to_i64:expr, $gt:ident, $min:ident, $max:ident, $rmin:ident, $rmax:ident) => {
        // SAFETY: as for `U32x16`.
        unsafe impl Vector for $name {
            type Elem = $elem;
            const LANES: usize = 8;
            #[inline(always)]
            unsafe fn load(p: *const $elem) -> Self {
                $name(_mm512_loadu_si512(p as *const _))
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut $elem) {
                _mm512_storeu_si512(p as *mut _, self.0)
            }
            #[inline(always)]
            unsafe fn load_part(p: *const $elem, n: usize, fill: Self) -> Self {
                $name(_mm512_mask_loadu_epi64(fill.0, low8(n), p.cast()))
            }
            #[inline(always)]
            unsafe fn store_part(self, p: *mut $elem, n: usize) {
                _mm512_mask_storeu_epi64(p.cast(), low8(n), self.0)
            }
            #[inline(always)]
            fn splat(x: $elem) -> Self {
                // SAFETY: as for `U32x16`.
                $name(unsafe { _mm512_set1_epi64($to_i64(x)) })
            }
            #[inline(always)]
            fn min(self, o: Self) -> Self {
                // SAFETY: as above.
                $name(unsafe { $min(self.0, o.0) })
            }
            #[inline(always)]
            fn max(self, o: Self) -> Self {
                // SAFETY: as above.
                $name(unsafe { $max(self.0, o.0) })
            }
            #[inline(always)]
            fn gt_mask(self, pivot: Self) -> u32 {
                // SAFETY: as above.
                unsafe { $gt(self.0, pivot.0) as u32 }
            }
            #[inline(always)]
            fn compress(self, mask: u32) -> Self {
                // SAFETY: as above.
                $name(unsafe { _mm512_maskz_compress_epi64(mask as __mmask8, self.0) })
            }
            const SPLIT_IS_CHEAP: bool = true;
            #[inline(always)]
            fn split(self, gt: u32) -> Self {
                // SAFETY: as above; the table has an entry for every 8-bit mask.
                unsafe {
                    let idx = _mm512_cvtepu8_epi64(_mm_loadl_epi64(
                        SPLIT8_BYTES.get_unchecked(gt as usize & 0xff) as *const u64 as *const __m128i
                    ));
                    $name(_mm512_permutexvar_epi64(idx, self.0))
                }
            }
            #[inline(always)]
            fn xor_lanes(self, x: usize) -> Self {
                // SAFETY: as above.
                unsafe {
                    let idx = _mm512_xor_si512(iota64(), _mm512_set1_epi64(x as i64));
                    $name(_mm512_permutexvar_epi64(idx, self.0))
                }
            }
            #[inline(always)]
            fn select_bit(lo: Self, hi: Self, bit: usize) -> Self {
                // SAFETY: as above.
                unsafe {
                    let m = _mm512_test_epi64_mask(iota64(), _mm512_set1_epi64(bit as i64));
                    $name(_mm512_mask_blend_epi64(m, lo.0, hi.0))
                }
            }
            #[inline(always)]
            fn zip_low(self, other: Self) -> Self {
                // SAFETY: as above.
                unsafe { $name(_mm512_permutex2var_epi64(self.0, zip_index64(0), other.0)) }
            }
            #[inline(always)]
            fn zip_high(self, other: Self) -> Self {
                // SAFETY: as above.
                unsafe { $name(_mm512_permutex2var_epi64(self.0, zip_index64(4), other.0)) }
            }
            #[inline(always)]
            fn xor(self, o: Self) -> Self {
                // SAFETY: as above.
                $name(unsafe { _mm512_xor_si512(self.0, o.0) })
            }
            #[inline(always)]
            fn or(self, o: Self) -> Self {
                // SAFETY: as above.
                $name(unsafe { _mm512_or_si512(self.0, o.0) })
            }
            #[inline(always)]
            fn sign_fill(self) -> Self {
                // SAFETY: as above.
                $name(unsafe { _mm512_srai_epi64::<63>(self.0) })
            }
            #[inline(always)]
            fn reduce_min(self) -> $elem {
                // SAFETY: as above.
                unsafe { $rmin(self.0) }
            }
            #[inline(always)]
            fn reduce_max(self) -> $elem {
                // SAFETY: as above.
                unsafe { $rmax(self.0) }
            }
        }
    };
}

#[inline(always)]
unsafe fn as_pd(a: __m512i) -> __m512d {
    _mm512_castsi512_pd(a)
}

/// Lanes where `a > b` as doubles (neither is NaN: `float::exact`).
#[inline(always)]
unsafe fn gt_f64(a: __m512i, b: __m512i) -> __mmask8 {
    _mm512_cmp_pd_mask::<_CMP_GT_OQ>(as_pd(a), as_pd(b))
}

// Of two equal keys, the min returns `b` and the max `a` (as `min_f32` and `max_f32`).
#[inline(always)]
unsafe fn min_f64(a: __m512i, b: __m512i) -> __m512i {
    _mm512_castpd_si512(_mm512_min_pd(as_pd(a), as_pd(b)))
}

#[inline(always)]
unsafe fn max_f64(a: __m512i, b: __m512i) -> __m512i {
    _mm512_castpd_si512(_mm512_max_pd(as_pd(b), as_pd(a)))
}

#[inline(always)]
unsafe fn reduce_min_f64(a: __m512i) -> Double {
    Double(_mm512_reduce_min_pd(as_pd(a)).to_bits())
}

#[inline(always)]
unsafe fn reduce_max_f64(a: __m512i) -> Double {
    Double(_mm512_reduce_max_pd(as_pd(a)).to_bits())
}

r64x8!(
    U64x8,
    u64,
    |x: u64| x as i64,
    _mm512_cmpgt_epu64_mask,
    _mm512_min_epu64,
    _mm512_max_epu64,
    _mm512_reduce_min_epu64,
    _mm512_reduce_max_epu64
);
r64x8!(
    I64x8,
    i64,
    |x: i64| x,
    _mm512_cmpgt_epi64_mask,
    _mm512_min_epi64,
    _mm512_max_epi64,
    _mm512_reduce_min_epi64,
    _mm512_reduce_max_epi64
);
r64x8!(D64x8, Double, |x: Double| x.0 as i64, gt_f64, min_f64, max_f64, reduce_min_f64, reduce_max_f64);
