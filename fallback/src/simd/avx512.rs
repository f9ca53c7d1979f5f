//! AVX-512 registers: 16 u32 or 8 u64 keys, with compress (the partition's packing) and masked
//! loads and stores (the ragged ends) in hardware. Only AVX-512F is used.
//!
//! Partition packs with register `vpcompress` and plain or masked stores, never `vpcompress` to
//! memory, which is microcoded and slow on Zen 4.

use std::arch::x86_64::*;

use super::double::Double;
use super::map::KeyMap;
use super::quick;
use super::vector::Vector;

#[derive(Clone, Copy)]
pub(crate) struct U32x16(__m512i);

#[derive(Clone, Copy)]
pub(crate) struct U64x8(__m512i);

/// Eight f64 keys compared as doubles (`double.rs`).
#[derive(Clone, Copy)]
pub(crate) struct D64x8(__m512i);

/// Lane masks: the low `n` bits set. From a table: the partition stores a count-long prefix of
/// a register per step, and a load is cheaper there than the shift, not and move it replaces.
#[inline(always)]
fn low16(n: usize) -> __mmask16 {
    const LOW: [u16; 17] = {
        let mut t = [0u16; 17];
        let mut i = 1;
        while i <= 16 {
            t[i] = ((1u32 << i) - 1) as u16;
            i += 1;
        }
        t
    };
    LOW[n]
}

#[inline(always)]
fn low8(n: usize) -> __mmask8 {
    ((1u32 << n) - 1) as __mmask8
}

// SAFETY: only reached from the `#[target_feature(enable = "avx512f")]` entries below, which the
// dispatcher calls only after detecting AVX-512F.
unsafe impl Vector for U32x16 {
    type Elem = u32;
    const LANES: usize = 16;
    #[inline(always)]
    unsafe fn load(p: *const u32) -> Self {
        U32x16(_mm512_loadu_si512(p as *const _))
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u32) {
        _mm512_storeu_si512(p as *mut _, self.0)
    }
    #[inline(always)]
    unsafe fn load_part(p: *const u32, n: usize, fill: Self) -> Self {
        U32x16(_mm512_mask_loadu_epi32(fill.0, low16(n), p as *const i32))
    }
    #[inline(always)]
    unsafe fn store_part(self, p: *mut u32, n: usize) {
        _mm512_mask_storeu_epi32(p as *mut i32, low16(n), self.0)
    }
    #[inline(always)]
    fn splat(x: u32) -> Self {
        // SAFETY: AVX-512F is present (see the impl's comment).
        U32x16(unsafe { _mm512_set1_epi32(x as i32) })
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        // SAFETY: as above.
        U32x16(unsafe { _mm512_min_epu32(self.0, o.0) })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        // SAFETY: as above.
        U32x16(unsafe { _mm512_max_epu32(self.0, o.0) })
    }
    #[inline(always)]
    fn gt_mask(self, pivot: Self) -> u32 {
        // SAFETY: as above.
        unsafe { _mm512_cmpgt_epu32_mask(self.0, pivot.0) as u32 }
    }
    #[inline(always)]
    fn compress(self, mask: u32) -> Self {
        // SAFETY: as above.
        U32x16(unsafe { _mm512_maskz_compress_epi32(mask as __mmask16, self.0) })
    }
    /// Two compresses and an expand, then two full stores, was slower than two compresses and a
    /// masked store: 64K random u32 keys 0.182 against 0.173 ms, 1M 3.75 against 3.55.
    const SPLIT_IS_CHEAP: bool = false;
    #[inline(always)]
    fn split(self, gt: u32) -> Self {
        let low = self.compress(!gt & 0xffff);
        // SAFETY: as above.
        U32x16(unsafe {
            _mm512_mask_expand_epi32(low.0, !low16((!gt & 0xffff).count_ones() as usize), self.compress(gt).0)
        })
    }
    #[inline(always)]
    fn xor_lanes(self, x: usize) -> Self {
        // SAFETY: as above.
        unsafe {
            let idx = _mm512_xor_si512(iota32(), _mm512_set1_epi32(x as i32));
            U32x16(_mm512_permutexvar_epi32(idx, self.0))
        }
    }
    #[inline(always)]
    fn select_bit(lo: Self, hi: Self, bit: usize) -> Self {
        // SAFETY: as above.
        unsafe {
            let m = _mm512_test_epi32_mask(iota32(), _mm512_set1_epi32(bit as i32));
            U32x16(_mm512_mask_blend_epi32(m, lo.0, hi.0))
        }
    }
    #[inline(always)]
    fn zip_low(self, other: Self) -> Self {
        // SAFETY: as above.
        unsafe { U32x16(_mm512_permutex2var_epi32(self.0, zip_index32(0), other.0)) }
    }
    #[inline(always)]
    fn zip_high(self, other: Self) -> Self {
        // SAFETY: as above.
        unsafe { U32x16(_mm512_permutex2var_epi32(self.0, zip_index32(8), other.0)) }
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: as above.
        U32x16(unsafe { _mm512_xor_si512(self.0, o.0) })
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        // SAFETY: as above.
        U32x16(unsafe { _mm512_or_si512(self.0, o.0) })
    }
    #[inline(always)]
    fn sign_fill(self) -> Self {
        // SAFETY: as above.
        U32x16(unsafe { _mm512_srai_epi32::<31>(self.0) })
    }
    #[inline(always)]
    fn reduce_min(self) -> u32 {
        // SAFETY: as above.
        unsafe { _mm512_reduce_min_epu32(self.0) }
    }
    #[inline(always)]
    fn reduce_max(self) -> u32 {
        // SAFETY: as above.
        unsafe { _mm512_reduce_max_epu32(self.0) }
    }
}

#[inline(always)]
fn iota32() -> __m512i {
    // SAFETY: as above.
    unsafe { _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) }
}

/// Indices for `permutex2var` that zip lanes `from..` of two registers: even lanes from the first
/// (index t / 2 + from), odd ones from the second (16 more).
#[inline(always)]
fn zip_index32(from: i32) -> __m512i {
    // SAFETY: as above.
    unsafe {
        let t = iota32();
        let half = _mm512_add_epi32(_mm512_srli_epi32::<1>(t), _mm512_set1_epi32(from));
        let odd = _mm512_slli_epi32::<4>(_mm512_and_si512(t, _mm512_set1_epi32(1)));
        _mm512_or_si512(half, odd)
    }
}

/// As [`zip_index32`], for 8 lanes of 64 bits (the second register's lanes are 8 on).
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

#[inline(always)]
fn iota64() -> __m512i {
    // SAFETY: as above.
    unsafe { _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7) }
}

/// The 64-bit registers: the same lanes and shuffles, compared as unsigned integers ([`U64x8`])
/// or as doubles ([`D64x8`]).
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
            /// As for `U32x16` (u64 64K 0.400 against 0.377 ms).
            const SPLIT_IS_CHEAP: bool = false;
            #[inline(always)]
            fn split(self, gt: u32) -> Self {
                let low = self.compress(!gt & 0xff);
                // SAFETY: as above.
                $name(unsafe {
                    _mm512_mask_expand_epi64(low.0, !low8((!gt & 0xff).count_ones() as usize), self.compress(gt).0)
                })
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

/// Lanes where `a > b` as doubles (neither is NaN: `double::exact`).
#[inline(always)]
unsafe fn gt_f64(a: __m512i, b: __m512i) -> __mmask8 {
    _mm512_cmp_pd_mask::<_CMP_GT_OQ>(as_pd(a), as_pd(b))
}

#[inline(always)]
unsafe fn min_f64(a: __m512i, b: __m512i) -> __m512i {
    _mm512_castpd_si512(_mm512_min_pd(as_pd(a), as_pd(b)))
}

#[inline(always)]
unsafe fn max_f64(a: __m512i, b: __m512i) -> __m512i {
    _mm512_castpd_si512(_mm512_max_pd(as_pd(a), as_pd(b)))
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
r64x8!(D64x8, Double, |x: Double| x.0 as i64, gt_f64, min_f64, max_f64, reduce_min_f64, reduce_max_f64);

/// Sorts `v` on this thread.
///
/// # Safety
/// AVX-512F is present.
#[target_feature(enable = "avx512f,popcnt")]
pub(crate) unsafe fn sort_u32(v: &mut [u32], map: KeyMap, mapped: bool) {
    quick::sort::<U32x16>(v, map, mapped)
}

/// One partition step of a parallel sort (see `quick::split`).
///
/// # Safety
/// AVX-512F is present.
#[target_feature(enable = "avx512f,popcnt")]
pub(crate) unsafe fn split_u32(v: &mut [u32], map: KeyMap, map_in: bool) -> quick::Split {
    quick::split::<U32x16>(v, map, map_in)
}

/// As [`sort_u32`], for u64 keys.
///
/// # Safety
/// AVX-512F is present.
#[target_feature(enable = "avx512f,popcnt")]
pub(crate) unsafe fn sort_u64(v: &mut [u64], map: KeyMap, mapped: bool) {
    quick::sort::<U64x8>(v, map, mapped)
}

/// As [`split_u32`], for u64 keys.
///
/// # Safety
/// AVX-512F is present.
#[target_feature(enable = "avx512f,popcnt")]
pub(crate) unsafe fn split_u64(v: &mut [u64], map: KeyMap, map_in: bool) -> quick::Split {
    quick::split::<U64x8>(v, map, map_in)
}

super::double::sort_f64_entries!("avx512f,popcnt", D64x8);
