//! AVX2 registers: 8 u32 or 4 u64 keys. AVX2 has no compress, so the partition packs with a lane
//! permutation looked up by the comparison mask (256 entries for 8 lanes, 16 for 4). It has no
//! unsigned compare and no 64-bit min or max either: keys compare as signed after flipping the
//! sign bit, and u64 min and max are a compare and a blend.

use std::arch::x86_64::*;

use super::map::KeyMap;
use super::quick;
use super::vector::Vector;

#[derive(Clone, Copy)]
pub(crate) struct U32x8(__m256i);

#[derive(Clone, Copy)]
pub(crate) struct U64x4(__m256i);

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

#[inline(always)]
fn flip32(v: __m256i) -> __m256i {
    // SAFETY: as above.
    unsafe { _mm256_xor_si256(v, _mm256_set1_epi32(i32::MIN)) }
}

#[inline(always)]
fn flip64(v: __m256i) -> __m256i {
    // SAFETY: as above.
    unsafe { _mm256_xor_si256(v, _mm256_set1_epi64x(i64::MIN)) }
}

/// All-ones in the u64 lanes where `a > b`, unsigned.
#[inline(always)]
fn gt64(a: __m256i, b: __m256i) -> __m256i {
    // SAFETY: as above.
    unsafe { _mm256_cmpgt_epi64(flip64(a), flip64(b)) }
}

// SAFETY: only reached from the `#[target_feature(enable = "avx2")]` entries below, which the
// dispatcher calls only after detecting AVX2.
unsafe impl Vector for U32x8 {
    type Elem = u32;
    const LANES: usize = 8;
    #[inline(always)]
    unsafe fn load(p: *const u32) -> Self {
        U32x8(_mm256_loadu_si256(p as *const __m256i))
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u32) {
        _mm256_storeu_si256(p as *mut __m256i, self.0)
    }
    #[inline(always)]
    unsafe fn load_part(p: *const u32, n: usize, fill: Self) -> Self {
        let m = _mm256_cmpgt_epi32(_mm256_set1_epi32(n as i32), iota32());
        U32x8(_mm256_blendv_epi8(fill.0, _mm256_maskload_epi32(p as *const i32, m), m))
    }
    #[inline(always)]
    unsafe fn store_part(self, p: *mut u32, n: usize) {
        let m = _mm256_cmpgt_epi32(_mm256_set1_epi32(n as i32), iota32());
        _mm256_maskstore_epi32(p as *mut i32, m, self.0)
    }
    #[inline(always)]
    fn splat(x: u32) -> Self {
        // SAFETY: as above.
        U32x8(unsafe { _mm256_set1_epi32(x as i32) })
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        // SAFETY: as above.
        U32x8(unsafe { _mm256_min_epu32(self.0, o.0) })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        // SAFETY: as above.
        U32x8(unsafe { _mm256_max_epu32(self.0, o.0) })
    }
    #[inline(always)]
    fn gt_mask(self, pivot: Self) -> u32 {
        // SAFETY: as above.
        unsafe {
            let gt = _mm256_cmpgt_epi32(flip32(self.0), flip32(pivot.0));
            _mm256_movemask_ps(_mm256_castsi256_ps(gt)) as u32
        }
    }
    #[inline(always)]
    fn compress(self, mask: u32) -> Self {
        // SAFETY: as above; `mask` has 8 bits, so the row exists.
        unsafe {
            let idx = _mm256_loadu_si256(PACK8.get_unchecked(mask as usize & 0xff).as_ptr() as *const __m256i);
            U32x8(_mm256_permutevar8x32_epi32(self.0, idx))
        }
    }
    const SPLIT_IS_CHEAP: bool = true;
    #[inline(always)]
    fn split(self, gt: u32) -> Self {
        // SAFETY: as above; `gt` has 8 bits, so the row exists.
        unsafe {
            let idx = _mm256_loadu_si256(SPLIT8.get_unchecked(gt as usize & 0xff).as_ptr() as *const __m256i);
            U32x8(_mm256_permutevar8x32_epi32(self.0, idx))
        }
    }
    #[inline(always)]
    fn xor_lanes(self, x: usize) -> Self {
        // SAFETY: as above.
        unsafe {
            let idx = _mm256_xor_si256(iota32(), _mm256_set1_epi32(x as i32));
            U32x8(_mm256_permutevar8x32_epi32(self.0, idx))
        }
    }
    #[inline(always)]
    fn select_bit(lo: Self, hi: Self, bit: usize) -> Self {
        // SAFETY: as above.
        unsafe {
            let b = _mm256_set1_epi32(bit as i32);
            let m = _mm256_cmpeq_epi32(_mm256_and_si256(iota32(), b), b);
            U32x8(_mm256_blendv_epi8(lo.0, hi.0, m))
        }
    }
    #[inline(always)]
    fn zip_low(self, other: Self) -> Self {
        // SAFETY: as above.
        unsafe {
            let idx = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
            let a = _mm256_permutevar8x32_epi32(self.0, idx);
            let b = _mm256_permutevar8x32_epi32(other.0, idx);
            U32x8(_mm256_blend_epi32::<0b1010_1010>(a, b))
        }
    }
    #[inline(always)]
    fn zip_high(self, other: Self) -> Self {
        // SAFETY: as above.
        unsafe {
            let idx = _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7);
            let a = _mm256_permutevar8x32_epi32(self.0, idx);
            let b = _mm256_permutevar8x32_epi32(other.0, idx);
            U32x8(_mm256_blend_epi32::<0b1010_1010>(a, b))
        }
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: as above.
        U32x8(unsafe { _mm256_xor_si256(self.0, o.0) })
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        // SAFETY: as above.
        U32x8(unsafe { _mm256_or_si256(self.0, o.0) })
    }
    #[inline(always)]
    fn sign_fill(self) -> Self {
        // SAFETY: as above.
        U32x8(unsafe { _mm256_srai_epi32::<31>(self.0) })
    }
    #[inline(always)]
    fn reduce_min(self) -> u32 {
        lanes32(self.0).into_iter().min().unwrap_or(u32::MAX)
    }
    #[inline(always)]
    fn reduce_max(self) -> u32 {
        lanes32(self.0).into_iter().max().unwrap_or(0)
    }
}

#[inline(always)]
fn lanes32(v: __m256i) -> [u32; 8] {
    let mut out = [0u32; 8];
    // SAFETY: as above; `out` has room for one register.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr() as *mut __m256i, v) };
    out
}

#[inline(always)]
fn lanes64(v: __m256i) -> [u64; 4] {
    let mut out = [0u64; 4];
    // SAFETY: as above; `out` has room for one register.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr() as *mut __m256i, v) };
    out
}

// SAFETY: as for `U32x8`.
unsafe impl Vector for U64x4 {
    type Elem = u64;
    const LANES: usize = 4;
    #[inline(always)]
    unsafe fn load(p: *const u64) -> Self {
        U64x4(_mm256_loadu_si256(p as *const __m256i))
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u64) {
        _mm256_storeu_si256(p as *mut __m256i, self.0)
    }
    #[inline(always)]
    unsafe fn load_part(p: *const u64, n: usize, fill: Self) -> Self {
        let m = _mm256_cmpgt_epi64(_mm256_set1_epi64x(n as i64), iota64());
        U64x4(_mm256_blendv_epi8(fill.0, _mm256_maskload_epi64(p as *const i64, m), m))
    }
    #[inline(always)]
    unsafe fn store_part(self, p: *mut u64, n: usize) {
        let m = _mm256_cmpgt_epi64(_mm256_set1_epi64x(n as i64), iota64());
        _mm256_maskstore_epi64(p as *mut i64, m, self.0)
    }
    #[inline(always)]
    fn splat(x: u64) -> Self {
        // SAFETY: as above.
        U64x4(unsafe { _mm256_set1_epi64x(x as i64) })
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        // SAFETY: as above.
        U64x4(unsafe { _mm256_blendv_epi8(self.0, o.0, gt64(self.0, o.0)) })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        // SAFETY: as above.
        U64x4(unsafe { _mm256_blendv_epi8(o.0, self.0, gt64(self.0, o.0)) })
    }
    #[inline(always)]
    fn gt_mask(self, pivot: Self) -> u32 {
        // SAFETY: as above.
        unsafe { _mm256_movemask_pd(_mm256_castsi256_pd(gt64(self.0, pivot.0))) as u32 }
    }
    #[inline(always)]
    fn compress(self, mask: u32) -> Self {
        // SAFETY: as above; `mask` has 4 bits, so the row exists.
        unsafe {
            let idx = _mm256_loadu_si256(PACK4.get_unchecked(mask as usize & 0xf).as_ptr() as *const __m256i);
            U64x4(_mm256_permutevar8x32_epi32(self.0, idx))
        }
    }
    const SPLIT_IS_CHEAP: bool = true;
    #[inline(always)]
    fn split(self, gt: u32) -> Self {
        // SAFETY: as above; `gt` has 4 bits, so the row exists.
        unsafe {
            let idx = _mm256_loadu_si256(SPLIT4.get_unchecked(gt as usize & 0xf).as_ptr() as *const __m256i);
            U64x4(_mm256_permutevar8x32_epi32(self.0, idx))
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
            U64x4(_mm256_permutevar8x32_epi32(self.0, idx))
        }
    }
    #[inline(always)]
    fn select_bit(lo: Self, hi: Self, bit: usize) -> Self {
        // SAFETY: as above.
        unsafe {
            let b = _mm256_set1_epi64x(bit as i64);
            let m = _mm256_cmpeq_epi64(_mm256_and_si256(iota64(), b), b);
            U64x4(_mm256_blendv_epi8(lo.0, hi.0, m))
        }
    }
    #[inline(always)]
    fn zip_low(self, other: Self) -> Self {
        // SAFETY: as above.
        unsafe {
            let a = _mm256_permute4x64_epi64::<0b01_01_00_00>(self.0);
            let b = _mm256_permute4x64_epi64::<0b01_01_00_00>(other.0);
            U64x4(_mm256_blend_epi32::<0b1100_1100>(a, b))
        }
    }
    #[inline(always)]
    fn zip_high(self, other: Self) -> Self {
        // SAFETY: as above.
        unsafe {
            let a = _mm256_permute4x64_epi64::<0b11_11_10_10>(self.0);
            let b = _mm256_permute4x64_epi64::<0b11_11_10_10>(other.0);
            U64x4(_mm256_blend_epi32::<0b1100_1100>(a, b))
        }
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: as above.
        U64x4(unsafe { _mm256_xor_si256(self.0, o.0) })
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        // SAFETY: as above.
        U64x4(unsafe { _mm256_or_si256(self.0, o.0) })
    }
    #[inline(always)]
    fn sign_fill(self) -> Self {
        // SAFETY: as above.
        U64x4(unsafe { _mm256_cmpgt_epi64(_mm256_setzero_si256(), self.0) })
    }
    #[inline(always)]
    fn reduce_min(self) -> u64 {
        lanes64(self.0).into_iter().min().unwrap_or(u64::MAX)
    }
    #[inline(always)]
    fn reduce_max(self) -> u64 {
        lanes64(self.0).into_iter().max().unwrap_or(0)
    }
}

/// Sorts `v` on this thread.
///
/// # Safety
/// AVX2 is present.
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn sort_u32(v: &mut [u32], map: KeyMap, mapped: bool) {
    quick::sort::<U32x8>(v, map, mapped)
}

/// One partition step of a parallel sort (see `quick::split`).
///
/// # Safety
/// AVX2 is present.
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn split_u32(v: &mut [u32], map: KeyMap, map_in: bool) -> quick::Split {
    quick::split::<U32x8>(v, map, map_in)
}

/// As [`sort_u32`], for u64 keys.
///
/// # Safety
/// AVX2 is present.
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn sort_u64(v: &mut [u64], map: KeyMap, mapped: bool) {
    quick::sort::<U64x4>(v, map, mapped)
}

/// As [`split_u32`], for u64 keys.
///
/// # Safety
/// AVX2 is present.
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn split_u64(v: &mut [u64], map: KeyMap, map_in: bool) -> quick::Split {
    quick::split::<U64x4>(v, map, map_in)
}
