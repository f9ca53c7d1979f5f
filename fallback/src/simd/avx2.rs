//! AVX2 registers: 8 u32 or 4 u64 keys. AVX2 has no compress, so the partition packs with a lane
//! permutation looked up by the comparison mask (256 entries for 8 lanes, 16 for 4). It has no
//! unsigned compare and no 64-bit min or max either, so the keys are sorted as signed words (the
//! ordered bits with the top bit flipped, `map::Bits::FLIPPED`; the flip is folded into the maps
//! that the first and last pass apply anyway): every compare is one instruction, and a 64-bit min
//! or max a compare and a blend. (As unsigned words, each 64-bit comparator of the network took
//! two more instructions to flip both sides.)

use std::arch::x86_64::*;

use super::float::Double;
use super::map::KeyMap;
use super::vector::Lane;
use super::vector::Vector;

/// Eight 32-bit keys as signed words (the ordered bits with the top bit flipped).
#[derive(Clone, Copy)]
pub(crate) struct I32x8(__m256i);

/// Four 64-bit keys as signed words (the ordered bits with the top bit flipped).
#[derive(Clone, Copy)]
pub(crate) struct I64x4(__m256i);

/// Four f64 keys compared as doubles (`float.rs`).
#[derive(Clone, Copy)]
pub(crate) struct D64x4(__m256i);

/// For each 8-bit mask, the u32 lanes whose bit is set, in order, then zeros: the
/// `permutevar8x32` indices that pack those lanes to the bottom.
static PACK8: [[u32; 8]; 256] = {
    let mut t = [[0u32; 8]; 256];
    let mut m = 0;
    while m < 256 {
        let (mut lane, mut k) = (0, 0);
        while lane < 8 {
            if m & (1 << lane) != 0 {
                t[m][k] = lane as u32;
                k += 1;
            }
            lane += 1;
        }
        m += 1;
    }
    t
};

/// For each 8-bit mask, the u32 lanes whose bit is clear, in order, then those whose bit is set.
static SPLIT8: [[u32; 8]; 256] = {
    let mut t = [[0u32; 8]; 256];
    let mut m = 0;
    while m < 256 {
        let mut k = 0;
        let mut set = 0;
        while set < 2 {
            let mut lane = 0;
            while lane < 8 {
                if (m >> lane) & 1 == set {
                    t[m][k] = lane as u32;
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

/// As [`SPLIT8`] for 4 u64 lanes, as pairs of u32 indices.
static SPLIT4: [[u32; 8]; 16] = {
    let mut t = [[0u32; 8]; 16];
    let mut m = 0;
    while m < 16 {
        let mut k = 0;
        let mut set = 0;
        while set < 2 {
            let mut lane = 0;
            while lane < 4 {
                if (m >> lane) & 1 == set {
                    t[m][2 * k] = 2 * lane as u32;
                    t[m][2 * k + 1] = 2 * lane as u32 + 1;
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

/// As [`PACK8`] for 4 u64 lanes, as pairs of u32 indices.
static PACK4: [[u32; 8]; 16] = {
    let mut t = [[0u32; 8]; 16];
    let mut m = 0;
    while m < 16 {
        let (mut lane, mut k) = (0, 0);
        while lane < 4 {
            if m & (1 << lane) != 0 {
                t[m][2 * k] = 2 * lane as u32;
                t[m][2 * k + 1] = 2 * lane as u32 + 1;
                k += 1;
            }
            lane += 1;
        }
        m += 1;
    }
    t
};

// Every intrinsic call below is `unsafe` only because it needs AVX2, which the entries at the
// end enable and which the dispatcher checked (`Isa::available`) before calling them.

#[inline(always)]
fn iota32() -> __m256i {
    // SAFETY: AVX2 is present (see above).
    unsafe { _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7) }
}

#[inline(always)]
fn iota64() -> __m256i {
    // SAFETY: as above.
    unsafe { _mm256_setr_epi64x(0, 1, 2, 3) }
}

// SAFETY: only reached from the `#[target_feature(enable = "avx2")]` entries below, which the
// dispatcher calls only after detecting AVX2.
unsafe impl Vector for I32x8 {
    type Elem = i32;
    const LANES: usize = 8;
    #[inline(always)]
    unsafe fn load(p: *const i32) -> Self {
        I32x8(_mm256_loadu_si256(p as *const __m256i))
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut i32) {
        _mm256_storeu_si256(p as *mut __m256i, self.0)
    }
    #[inline(always)]
    unsafe fn load_part(p: *const i32, n: usize, fill: Self) -> Self {
        let m = _mm256_cmpgt_epi32(_mm256_set1_epi32(n as i32), iota32());
        I32x8(_mm256_blendv_epi8(fill.0, _mm256_maskload_epi32(p, m), m))
    }
    #[inline(always)]
    unsafe fn store_part(self, p: *mut i32, n: usize) {
        let m = _mm256_cmpgt_epi32(_mm256_set1_epi32(n as i32), iota32());
        _mm256_maskstore_epi32(p, m, self.0)
    }
    #[inline(always)]
    fn splat(x: i32) -> Self {
        // SAFETY: as above.
        I32x8(unsafe { _mm256_set1_epi32(x) })
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        // SAFETY: as above.
        I32x8(unsafe { _mm256_min_epi32(self.0, o.0) })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        // SAFETY: as above.
        I32x8(unsafe { _mm256_max_epi32(self.0, o.0) })
    }
    #[inline(always)]
    fn gt_mask(self, pivot: Self) -> u32 {
        // SAFETY: as above.
        unsafe {
            let gt = _mm256_cmpgt_epi32(self.0, pivot.0);
            _mm256_movemask_ps(_mm256_castsi256_ps(gt)) as u32
        }
    }
    #[inline(always)]
    fn compress(self, mask: u32) -> Self {
        // SAFETY: as above; `mask` has 8 bits, so the row exists.
        unsafe {
            let idx = _mm256_loadu_si256(PACK8.get_unchecked(mask as usize & 0xff).as_ptr() as *const __m256i);
            I32x8(_mm256_permutevar8x32_epi32(self.0, idx))
        }
    }
    const SPLIT_IS_CHEAP: bool = true;
    #[inline(always)]
    fn split(self, gt: u32) -> Self {
        // SAFETY: as above; `gt` has 8 bits, so the row exists.
        unsafe {
            let idx = _mm256_loadu_si256(SPLIT8.get_unchecked(gt as usize & 0xff).as_ptr() as *const __m256i);
            I32x8(_mm256_permutevar8x32_epi32(self.0, idx))
        }
    }
    #[inline(always)]
    fn xor_lanes(self, x: usize) -> Self {
        // SAFETY: as above.
        unsafe {
            let idx = _mm256_xor_si256(iota32(), _mm256_set1_epi32(x as i32));
            I32x8(_mm256_permutevar8x32_epi32(self.0, idx))
        }
    }
    #[inline(always)]
    fn select_bit(lo: Self, hi: Self, bit: usize) -> Self {
        // SAFETY: as above.
        unsafe {
            let b = _mm256_set1_epi32(bit as i32);
            let m = _mm256_cmpeq_epi32(_mm256_and_si256(iota32(), b), b);
            I32x8(_mm256_blendv_epi8(lo.0, hi.0, m))
        }
    }
    #[inline(always)]
    fn zip_low(self, other: Self) -> Self {
        // SAFETY: as above.
        unsafe {
            let idx = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
            let a = _mm256_permutevar8x32_epi32(self.0, idx);
            let b = _mm256_permutevar8x32_epi32(other.0, idx);
            I32x8(_mm256_blend_epi32::<0b1010_1010>(a, b))
        }
    }
    #[inline(always)]
    fn zip_high(self, other: Self) -> Self {
        // SAFETY: as above.
        unsafe {
            let idx = _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7);
            let a = _mm256_permutevar8x32_epi32(self.0, idx);
            let b = _mm256_permutevar8x32_epi32(other.0, idx);
            I32x8(_mm256_blend_epi32::<0b1010_1010>(a, b))
        }
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: as above.
        I32x8(unsafe { _mm256_xor_si256(self.0, o.0) })
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        // SAFETY: as above.
        I32x8(unsafe { _mm256_or_si256(self.0, o.0) })
    }
    #[inline(always)]
    fn sign_fill(self) -> Self {
        // SAFETY: as above.
        I32x8(unsafe { _mm256_srai_epi32::<31>(self.0) })
    }
    #[inline(always)]
    fn reduce_min(self) -> i32 {
        lanes32(self.0).into_iter().min().unwrap_or(i32::MAX)
    }
    #[inline(always)]
    fn reduce_max(self) -> i32 {
        lanes32(self.0).into_iter().max().unwrap_or(i32::MIN)
    }
}

#[inline(always)]
fn lanes32(v: __m256i) -> [i32; 8] {
    let mut out = [0i32; 8];
    // SAFETY: as above; `out` has room for one register.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr() as *mut __m256i, v) };
    out
}

#[inline(always)]
fn lanes64(v: __m256i) -> [i64; 4] {
    let mut out = [0i64; 4];
    // SAFETY: as above; `out` has room for one register.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr() as *mut __m256i, v) };
    out
}

/// The 64-bit registers: the same lanes and shuffles, compared as signed integers ([`I64x4`]) or
/// as doubles ([`D64x4`]).
macro_rules! r64x4 {
    ($name:ident, $elem:ty, $to_i64:expr, $from_i64:expr, $gt:ident, $min:ident, $max:ident) => {
        // SAFETY: as for `I32x8`.
        unsafe impl Vector for $name {
            type Elem = $elem;
            const LANES: usize = 4;
            #[inline(always)]
            unsafe fn load(p: *const $elem) -> Self {
                $name(_mm256_loadu_si256(p as *const __m256i))
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut $elem) {
                _mm256_storeu_si256(p as *mut __m256i, self.0)
            }
            #[inline(always)]
            unsafe fn load_part(p: *const $elem, n: usize, fill: Self) -> Self {
                let m = _mm256_cmpgt_epi64(_mm256_set1_epi64x(n as i64), iota64());
                $name(_mm256_blendv_epi8(fill.0, _mm256_maskload_epi64(p.cast(), m), m))
            }
            #[inline(always)]
            unsafe fn store_part(self, p: *mut $elem, n: usize) {
                let m = _mm256_cmpgt_epi64(_mm256_set1_epi64x(n as i64), iota64());
                _mm256_maskstore_epi64(p.cast(), m, self.0)
            }
            #[inline(always)]
            fn splat(x: $elem) -> Self {
                // SAFETY: as above.
                $name(unsafe { _mm256_set1_epi64x($to_i64(x)) })
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
                unsafe { _mm256_movemask_pd(_mm256_castsi256_pd($gt(self.0, pivot.0))) as u32 }
            }
            #[inline(always)]
            fn compress(self, mask: u32) -> Self {
                // SAFETY: as above; `mask` has 4 bits, so the row exists.
                unsafe {
                    let idx = _mm256_loadu_si256(PACK4.get_unchecked(mask as usize & 0xf).as_ptr() as *const __m256i);
                    $name(_mm256_permutevar8x32_epi32(self.0, idx))
                }
            }
            const SPLIT_IS_CHEAP: bool = true;
            #[inline(always)]
            fn split(self, gt: u32) -> Self {
                // SAFETY: as above; `gt` has 4 bits, so the row exists.
                unsafe {
                    let idx = _mm256_loadu_si256(SPLIT4.get_unchecked(gt as usize & 0xf).as_ptr() as *const __m256i);
                    $name(_mm256_permutevar8x32_epi32(self.0, idx))
                }
            }
            #[inline(always)]
            fn xor_lanes(self, x: usize) -> Self {
                // SAFETY: as above.
                unsafe {
                    // u32 index 2 * (lane ^ x) + half, for each u32 half of each u64 lane.
                    let t = iota32();
                    let lane = _mm256_xor_si256(_mm256_srli_epi32::<1>(t), _mm256_set1_epi32(x as i32));
                    let idx = _mm256_or_si256(_mm256_slli_epi32::<1>(lane), _mm256_and_si256(t, _mm256_set1_epi32(1)));
                    $name(_mm256_permutevar8x32_epi32(self.0, idx))
                }
            }
            #[inline(always)]
            fn select_bit(lo: Self, hi: Self, bit: usize) -> Self {
                // SAFETY: as above.
                unsafe {
                    let b = _mm256_set1_epi64x(bit as i64);
                    let m = _mm256_cmpeq_epi64(_mm256_and_si256(iota64(), b), b);
                    $name(_mm256_blendv_epi8(lo.0, hi.0, m))
                }
            }
            #[inline(always)]
            fn zip_low(self, other: Self) -> Self {
                // SAFETY: as above.
                unsafe {
                    let a = _mm256_permute4x64_epi64::<0b01_01_00_00>(self.0);
                    let b = _mm256_permute4x64_epi64::<0b01_01_00_00>(other.0);
                    $name(_mm256_blend_epi32::<0b1100_1100>(a, b))
                }
            }
            #[inline(always)]
            fn zip_high(self, other: Self) -> Self {
                // SAFETY: as above.
                unsafe {
                    let a = _mm256_permute4x64_epi64::<0b11_11_10_10>(self.0);
                    let b = _mm256_permute4x64_epi64::<0b11_11_10_10>(other.0);
                    $name(_mm256_blend_epi32::<0b1100_1100>(a, b))
                }
            }
            #[inline(always)]
            fn xor(self, o: Self) -> Self {
                // SAFETY: as above.
                $name(unsafe { _mm256_xor_si256(self.0, o.0) })
            }
            #[inline(always)]
            fn or(self, o: Self) -> Self {
                // SAFETY: as above.
                $name(unsafe { _mm256_or_si256(self.0, o.0) })
            }
            #[inline(always)]
            fn sign_fill(self) -> Self {
                // SAFETY: as above.
                $name(unsafe { _mm256_cmpgt_epi64(_mm256_setzero_si256(), self.0) })
            }
            #[inline(always)]
            fn reduce_min(self) -> $elem {
                lanes64(self.0).into_iter().map($from_i64).min().unwrap_or(<$elem as Lane>::MAX)
            }
            #[inline(always)]
            fn reduce_max(self) -> $elem {
                lanes64(self.0).into_iter().map($from_i64).max().unwrap_or(<$elem as Lane>::MIN)
            }
        }
    };
}

/// All-ones in the 64-bit lanes where `a > b`, signed.
#[inline(always)]
unsafe fn gt_i64(a: __m256i, b: __m256i) -> __m256i {
    _mm256_cmpgt_epi64(a, b)
}

#[inline(always)]
unsafe fn min_i64(a: __m256i, b: __m256i) -> __m256i {
    _mm256_blendv_epi8(a, b, gt_i64(a, b))
}

#[inline(always)]
unsafe fn max_i64(a: __m256i, b: __m256i) -> __m256i {
    _mm256_blendv_epi8(b, a, gt_i64(a, b))
}

/// All-ones in the lanes where `a > b` as doubles (neither is NaN: `float::exact`).
#[inline(always)]
unsafe fn gt_f64(a: __m256i, b: __m256i) -> __m256i {
    _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_GT_OQ>(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b)))
}

// Of two equal keys (the two zeros), `vminpd` and `vmaxpd` both return their second operand:
// the min returns `b` and the max `a`, so that a comparator keeps both keys (`float.rs`).
#[inline(always)]
unsafe fn min_f64(a: __m256i, b: __m256i) -> __m256i {
    _mm256_castpd_si256(_mm256_min_pd(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b)))
}

#[inline(always)]
unsafe fn max_f64(a: __m256i, b: __m256i) -> __m256i {
    _mm256_castpd_si256(_mm256_max_pd(_mm256_castsi256_pd(b), _mm256_castsi256_pd(a)))
}

r64x4!(I64x4, i64, |x: i64| x, |x: i64| x, gt_i64, min_i64, max_i64);
r64x4!(D64x4, Double, |x: Double| x.0 as i64, |x: i64| Double(x as u64), gt_f64, min_f64, max_f64);

// Every key is sorted as signed words: AVX2 compares no other way.
super::quick::kernel_entries!("avx2,popcnt", sort_u32, split_u32, back_u32, u32, i32, I32x8);
super::quick::kernel_entries!("avx2,popcnt", sort_u64, split_u64, back_u64, u64, i64, I64x4);

super::float::float_entries!("avx2,popcnt", sort_f64, scan_f64, u64, D64x4, nan_by_flag);
