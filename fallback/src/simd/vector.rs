//! What the vectorized quicksort and its sorting networks need from a register of keys. Each
//! instruction set implements it once per key width; the algorithms above are written once.
//!
//! Every method is `#[inline(always)]` and calls intrinsics: the generic code is inlined into one
//! `#[target_feature]` entry function per instruction set (see `avx512.rs`), and only there do the
//! intrinsics inline. Constant lane arguments (`x`, `bit`) fold into fixed shuffles there.

/// A key word: the ordered bits of a key (unsigned), or those bits with the top bit flipped
/// (signed: `Bits::FLIPPED`), for registers that compare their lanes as signed words.
pub(crate) trait Lane: super::map::Bits + Ord {
    /// The least and the greatest word.
    const MIN: Self;
    const MAX: Self;
    /// Only the top bit set.
    const SIGN: Self;
    /// Every bit set.
    const ALL: Self;
    /// `self - 1`; only called on values above `MIN`.
    fn pred(self) -> Self;
    /// `self + 1`; only called on values below `MAX`.
    fn succ(self) -> Self;
}

// The top bit is the sign bit of the signed words, `MIN` of i32 and i64.
macro_rules! lane {
    ($($t:ty),*) => {$(
        impl Lane for $t {
            const MIN: $t = <$t>::MIN;
            const MAX: $t = <$t>::MAX;
            const SIGN: $t = 1 << (<$t>::BITS - 1);
            const ALL: $t = !0;
            #[inline(always)]
            fn pred(self) -> $t {
                self.wrapping_sub(1)
            }
            #[inline(always)]
            fn succ(self) -> $t {
                self.wrapping_add(1)
            }
        }
    )*};
}
lane!(u32, u64, i32, i64);

/// A register of `LANES` key words, compared as their type compares (`Lane`).
///
/// # Safety
/// Implementations may only be used where their instruction set is present: callers reach them
/// through an entry function that checked it (`simd::Isa::available`).
pub(crate) unsafe trait Vector: Copy {
    type Elem: Lane;
    const LANES: usize;
    /// Reads `LANES` keys from `p` (any alignment).
    unsafe fn load(p: *const Self::Elem) -> Self;
    /// Writes all lanes to `p` (any alignment).
    unsafe fn store(self, p: *mut Self::Elem);
    /// Reads the first `n <= LANES` keys from `p`; the other lanes are `fill`'s. Reads nothing
    /// past `p + n`.
    unsafe fn load_part(p: *const Self::Elem, n: usize, fill: Self) -> Self;
    /// Writes the first `n <= LANES` lanes to `p`, nothing past `p + n`.
    unsafe fn store_part(self, p: *mut Self::Elem, n: usize);
    /// An evenly spread sample of the `n >= LANES` keys at `p`: lane i is the key at
    /// `i * (n / LANES) + n / LANES / 2`. Through an array here; one gather where the instruction
    /// set has it (the array's lanes, written one by one and read as a register, stall the read).
    #[inline(always)]
    unsafe fn load_spread(p: *const Self::Elem, n: usize) -> Self {
        spread_in_array(p, n)
    }
    /// The lanes in order (a pivot's sample): the network in one register.
    #[inline(always)]
    fn sorted(self) -> Self {
        let mut r = [self];
        super::network::sort_regs(&mut r);
        r[0]
    }
    fn splat(x: Self::Elem) -> Self;
    /// The lesser key of each lane; of two equal keys (the two float zeros) `other`'s.
    fn min(self, other: Self) -> Self;
    /// The greater key of each lane; of two equal keys `self`'s, so that `a.min(b)` and
    /// `a.max(b)` hold both keys.
    fn max(self, other: Self) -> Self;
    /// Bit i set when lane i is greater than the same lane of `pivot`.
    fn gt_mask(self, pivot: Self) -> u32;
    /// The lanes whose bit is set in `mask`, in order, in the low lanes; the others undefined.
    fn compress(self, mask: u32) -> Self;
    /// The lanes whose bit is clear in `mask`, in order, in the low lanes; the others undefined.
    #[inline(always)]
    fn compress_not(self, mask: u32) -> Self {
        self.compress(!mask & (u32::MAX >> (32 - Self::LANES)))
    }
    /// Whether [`Vector::split`] is one shuffle and so cheaper than two compresses and a masked
    /// store (AVX2, where masked stores are slow on AMD cores and there is no compress; the
    /// 8-lane AVX-512 registers, whose shuffle comes from a 256-entry table).
    const SPLIT_IS_CHEAP: bool;
    /// The lanes whose bit is clear in `gt`, in order, then those whose bit is set.
    fn split(self, gt: u32) -> Self;
    /// Lane i takes lane `i ^ x` (`x < LANES`).
    fn xor_lanes(self, x: usize) -> Self;
    /// Lane i from `hi` where `i & bit != 0`, else from `lo`.
    fn select_bit(lo: Self, hi: Self, bit: usize) -> Self;
    /// Lanes 0, 1, 2, .. are `self[0], other[0], self[1], other[1], ..` (the low halves zipped).
    fn zip_low(self, other: Self) -> Self;
    /// As [`Vector::zip_low`], for the high halves.
    fn zip_high(self, other: Self) -> Self;
    /// Lane-wise `self ^ other`.
    fn xor(self, other: Self) -> Self;
    /// Lane-wise `self | other`.
    fn or(self, other: Self) -> Self;
    /// All ones in the lanes whose top bit is set, zero in the others.
    fn sign_fill(self) -> Self;
    /// The least and the greatest lane.
    fn reduce_min(self) -> Self::Elem;
    fn reduce_max(self) -> Self::Elem;
}

/// [`Vector::load_spread`] through an array.
///
/// # Safety
/// As for [`Vector::load_spread`].
#[inline(always)]
pub(crate) unsafe fn spread_in_array<V: Vector>(p: *const V::Elem, n: usize) -> V {
    let step = n / V::LANES;
    let mut sample = [V::Elem::MIN; super::tune::SAMPLE];
    for (i, x) in sample[..V::LANES].iter_mut().enumerate() {
        *x = *p.add(i * step + step / 2);
    }
    V::load(sample.as_ptr())
}
