//! AVX-512 registers: 16 32-bit or 8 64-bit keys, with compress (the partition's packing) and
//! masked loads and stores (the ragged ends) in hardware. Only AVX-512F is used. Each width
//! comes as unsigned words (unsigned and mapped keys), signed words (signed keys, unmapped) and
//! floats (`float.rs`).
//!
//! Partition packs 32-bit registers with register `vpcompressd` and plain or masked stores,
//! never `vpcompressd` to memory, which is microcoded and slow on Zen 4 and was slower on the
//! Intel dev machine too (`docs/cpu-simd.md`); 64-bit registers by one permutation from a table.

use std::arch::x86_64::*;

use super::float::Single;
use super::map::{KeyMap, Map};
use super::vector::Vector;

mod lanes64;
pub(crate) use lanes64::{D64x8, I64x8, U64x8};

#[derive(Clone, Copy)]
pub(crate) struct U32x16(__m512i);

/// Sixteen i32 keys compared as signed words: the ordered bits of i32 keys with the top bit
/// flipped, which are their raw bits (`map::Bits::FLIPPED`), so signed keys need no map.
#[derive(Clone, Copy)]
pub(crate) struct I32x16(__m512i);

/// Sixteen f32 keys compared as floats (`float.rs`).
#[derive(Clone, Copy)]
pub(crate) struct F32x16(__m512i);

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

/// `!k` in a mask register (`knotw`, a port-0 instruction). Written as `!k`, LLVM compares a
/// second time with the opposite predicate, which takes port 5, the port the compresses need.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn knot16(k: __mmask16) -> __mmask16 {
    let not: __mmask16;
    std::arch::asm!("knotw {0}, {1}", out(kreg) not, in(kreg) k, options(pure, nomem, nostack));
    not
}

/// The 32-bit registers: the same lanes and shuffles, compared as unsigned integers ([`U32x16`]),
/// signed integers ([`I32x16`]) or floats ([`F32x16`]).
macro_rules! r32x16 {
    ($name:ident, $elem:ty, $to_i32:expr, $gt:ident, $min:ident, $max:ident, $rmin:ident, $rmax:ident $(, $sorted:ident)?) => {
        // SAFETY: only reached from the `#[target_feature(enable = "avx512f")]` entries below, which the
        // dispatcher calls only after detecting AVX-512F.
        unsafe impl Vector for $name {
            type Elem = $elem;
            const LANES: usize = 16;
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
                $name(_mm512_mask_loadu_epi32(fill.0, low16(n), p as *const i32))
            }
            #[inline(always)]
            unsafe fn store_part(self, p: *mut $elem, n: usize) {
                _mm512_mask_storeu_epi32(p as *mut i32, low16(n), self.0)
            }
            /// One gather, with 32-bit offsets up to `i32::MAX` keys. Against 16 loads into an array
            /// read as a register: see `tune::SAMPLE`.
            #[inline(always)]
            unsafe fn load_spread(p: *const $elem, n: usize) -> Self {
                if n > i32::MAX as usize {
                    return super::vector::spread_in_array(p, n);
                }
                let step = (n / 16) as i32;
                let at = _mm512_add_epi32(
                    _mm512_mullo_epi32(iota32(), _mm512_set1_epi32(step)),
                    _mm512_set1_epi32(step / 2),
                );
                $name(_mm512_i32gather_epi32::<4>(at, p as *const _))
            }
            $(
                #[inline(always)]
                fn sorted(self) -> Self {
                    $sorted(self)
                }
            )?
            #[inline(always)]
            fn splat(x: $elem) -> Self {
                // SAFETY: AVX-512F is present (see the impl's comment).
                $name(unsafe { _mm512_set1_epi32($to_i32(x)) })
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
                $name(unsafe { _mm512_maskz_compress_epi32(mask as __mmask16, self.0) })
            }
            #[inline(always)]
            fn compress_not(self, mask: u32) -> Self {
                // SAFETY: as above.
                $name(unsafe { _mm512_maskz_compress_epi32(knot16(mask as __mmask16), self.0) })
            }
            /// Two compresses and an expand, then two full stores, was slower than two compresses and a
            /// masked store: 64K random u32 keys 0.182 against 0.173 ms, 1M 3.75 against 3.55.
            const SPLIT_IS_CHEAP: bool = false;
            #[inline(always)]
            fn split(self, gt: u32) -> Self {
                let low = self.compress(!gt & 0xffff);
                // SAFETY: as above.
                $name(unsafe {
                    _mm512_mask_expand_epi32(low.0, !low16((!gt & 0xffff).count_ones() as usize), self.compress(gt).0)
                })
            }
            #[inline(always)]
            fn xor_lanes(self, x: usize) -> Self {
                // SAFETY: as above.
                unsafe {
                    let idx = _mm512_xor_si512(iota32(), _mm512_set1_epi32(x as i32));
                    $name(_mm512_permutexvar_epi32(idx, self.0))
                }
            }
            #[inline(always)]
            fn select_bit(lo: Self, hi: Self, bit: usize) -> Self {
                // SAFETY: as above.
                unsafe {
                    let m = _mm512_test_epi32_mask(iota32(), _mm512_set1_epi32(bit as i32));
                    $name(_mm512_mask_blend_epi32(m, lo.0, hi.0))
                }
            }
            #[inline(always)]
            fn zip_low(self, other: Self) -> Self {
                // SAFETY: as above.
                unsafe { $name(_mm512_permutex2var_epi32(self.0, zip_index32(0), other.0)) }
            }
            #[inline(always)]
            fn zip_high(self, other: Self) -> Self {
                // SAFETY: as above.
                unsafe { $name(_mm512_permutex2var_epi32(self.0, zip_index32(8), other.0)) }
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
                $name(unsafe { _mm512_srai_epi32::<31>(self.0) })
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
r32x16!(
    U32x16,
    u32,
    |x: u32| x as i32,
    _mm512_cmpgt_epu32_mask,
    _mm512_min_epu32,
    _mm512_max_epu32,
    _mm512_reduce_min_epu32,
    _mm512_reduce_max_epu32
);
r32x16!(
    I32x16,
    i32,
    |x: i32| x,
    _mm512_cmpgt_epi32_mask,
    _mm512_min_epi32,
    _mm512_max_epi32,
    _mm512_reduce_min_epi32,
    _mm512_reduce_max_epi32
);
r32x16!(
    F32x16,
    Single,
    |x: Single| x.0 as i32,
    gt_f32,
    min_f32,
    max_f32,
    reduce_min_f32,
    reduce_max_f32,
    sorted_as_ints
);

/// A sample of float keys (no NaN) sorted as signed words, whose min and max take one cycle
/// where `vminps` takes four: the float keys' map to ordered bits, as signed words, and back.
/// The sample's network is a chain of dependent stages.
#[inline(always)]
fn sorted_as_ints(v: F32x16) -> F32x16 {
    const FLOAT: KeyMap = KeyMap { map: Map::Float, descending: false };
    F32x16(FLOAT.back(FLOAT.fwd(I32x16(v.0)).sorted()).0)
}

#[inline(always)]
unsafe fn as_ps(a: __m512i) -> __m512 {
    _mm512_castsi512_ps(a)
}

/// Lanes where `a > b` as floats (neither is NaN: `float::exact`).
#[inline(always)]
unsafe fn gt_f32(a: __m512i, b: __m512i) -> __mmask16 {
    _mm512_cmp_ps_mask::<_CMP_GT_OQ>(as_ps(a), as_ps(b))
}

// Of two equal keys (the two zeros), `vminps` and `vmaxps` both return their second operand:
// the min returns `b` and the max `a`, so that a comparator keeps both keys (`float.rs`).
#[inline(always)]
unsafe fn min_f32(a: __m512i, b: __m512i) -> __m512i {
    _mm512_castps_si512(_mm512_min_ps(as_ps(a), as_ps(b)))
}

#[inline(always)]
unsafe fn max_f32(a: __m512i, b: __m512i) -> __m512i {
    _mm512_castps_si512(_mm512_max_ps(as_ps(b), as_ps(a)))
}

#[inline(always)]
unsafe fn reduce_min_f32(a: __m512i) -> Single {
    Single(_mm512_reduce_min_ps(as_ps(a)).to_bits())
}

#[inline(always)]
unsafe fn reduce_max_f32(a: __m512i) -> Single {
    Single(_mm512_reduce_max_ps(as_ps(a)).to_bits())
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

// Unsigned words for unsigned and mapped keys; signed words for signed keys, whose raw bits
// those are, so that they need no map.
super::quick::kernel_entries!("avx512f,popcnt", sort_u32, split_u32, back_u32, u32, u32, U32x16);
super::quick::kernel_entries!("avx512f,popcnt", sort_u64, split_u64, back_u64, u64, u64, U64x8);
super::quick::kernel_entries!("avx512f,popcnt", sort_i32, split_i32, back_i32, u32, i32, I32x16);
super::quick::kernel_entries!("avx512f,popcnt", sort_i64, split_i64, back_i64, u64, i64, I64x8);

super::float::float_entries!("avx512f,popcnt", sort_f32, scan_f32, u32, F32x16, nan_by_max);
super::float::float_entries!("avx512f,popcnt", sort_f64, scan_f64, u64, D64x8, nan_by_max);
