//! Float keys compared as floats. A float min or max is one instruction where an integer one
//! is two or three (AVX2's 64-bit compare and blend) or runs on one port only (AVX-512 on Intel,
//! where `vminps`/`vminpd` run on two), and a key needs no map: the raw bits are sorted as they
//! are. IEEE order is `total_cmp` order on keys without NaN, but for the two zeros, which compare
//! equal: [`exact`] checks for NaN first (a pass over the keys; inputs with one take the
//! ordered-bits path), and [`order_zeros`] puts the zeros in order afterwards. The sort only
//! permutes them: a min and a max of two equal keys return the two operands between them (the
//! float registers' `min` returns the second, their `max` the first), so no -0.0 becomes +0.0,
//! and the zeros end as one run of the sorted keys. A descending sort negates the keys as it
//! loads them (`map::Map::Signed` flips the sign bit) and back as it stores them.

use super::map::{Bits, KeyMap, Map};
use super::vector::Lane;

/// A raw key word of a float type: the bits a scan tests.
pub(crate) trait Word:
    Copy
    + Ord
    + From<bool>
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitXor<Output = Self>
    + std::ops::Not<Output = Self>
{
    /// The sign bit.
    const SIGN: Self;
    /// +0.0 and +inf.
    const ZERO: Self;
    const INF: Self;
}

impl Word for u32 {
    const SIGN: u32 = 1 << 31;
    const ZERO: u32 = 0;
    const INF: u32 = f32::INFINITY.to_bits();
}

impl Word for u64 {
    const SIGN: u64 = 1 << 63;
    const ZERO: u64 = 0;
    const INF: u64 = f64::INFINITY.to_bits();
}

/// The raw bits of a float key (`$name`), ordered as the float (`total_cmp`, which on the keys
/// [`exact`] admits is IEEE order but for the two zeros).
macro_rules! float_word {
    ($name:ident, $bits:ty, $float:ty) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(transparent)]
        pub(crate) struct $name(pub $bits);

        impl Ord for $name {
            fn cmp(&self, other: &Self) -> std::cmp::Ordering {
                <$float>::from_bits(self.0).total_cmp(&<$float>::from_bits(other.0))
            }
        }

        impl PartialOrd for $name {
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }

        impl Bits for $name {
            const FLIPPED: bool = false;
            #[inline(always)]
            fn sign_set(self) -> bool {
                self.0 & <$bits as Word>::SIGN != 0
            }
            #[inline(always)]
            fn flip_sign(self) -> Self {
                $name(self.0 ^ <$bits as Word>::SIGN)
            }
            #[inline(always)]
            fn not(self) -> Self {
                $name(!self.0)
            }
        }

        impl Lane for $name {
            const MIN: $name = $name(<$float>::NEG_INFINITY.to_bits());
            const MAX: $name = $name(<$float>::INFINITY.to_bits());
            const SIGN: $name = $name(<$bits as Word>::SIGN);
            const ALL: $name = $name(<$bits>::MAX);
            /// The next float below, the two zeros being one value (as they compare).
            #[inline(always)]
            fn pred(self) -> $name {
                const SIGN: $bits = <$bits as Word>::SIGN;
                match self.0 {
                    0 | SIGN => $name(SIGN | 1),
                    b if b & SIGN == 0 => $name(b - 1),
                    b => $name(b + 1),
                }
            }
            /// The next float above, the two zeros being one value.
            #[inline(always)]
            fn succ(self) -> $name {
                const SIGN: $bits = <$bits as Word>::SIGN;
                match self.0 {
                    0 | SIGN => $name(1),
                    b if b == SIGN | 1 => $name(0),
                    b if b & SIGN == 0 => $name(b + 1),
                    b => $name(b - 1),
                }
            }
        }
    };
}
float_word!(Double, u64, f64);
float_word!(Single, u32, f32);

/// The float sort compiled for an instruction set (`float_entries!`'s `sort`).
pub(crate) type Sort<W> = unsafe fn(&mut [W], KeyMap);

/// A NaN scan compiled for an instruction set (`float_entries!`'s `scan`): whether the raw float
/// bits hold a NaN.
pub(crate) type Scan<W> = unsafe fn(&[W]) -> bool;

/// Whether the raw float bits hold a NaN, by flags ORed without branches: for AVX2, which has
/// no 64-bit max. Inlined into each instruction set's entry (`float_entries!`), where it
/// vectorizes: compiled for plain x86-64 (no 64-bit compares) a scan took a tenth of a 64K-key sort.
#[inline(always)]
pub(crate) fn nan_by_flag<W: Word>(c: &[W]) -> bool {
    // Words of the keys' width, so that the loop vectorizes.
    let mut nan = W::ZERO;
    for &b in c {
        nan = nan | W::from(b & !W::SIGN > W::INF);
    }
    nan != W::ZERO
}

/// As [`nan_by_flag`], by the greatest magnitude bits (a NaN's are above infinity's): an AND
/// and a max per register where the max is one instruction (AVX-512). Looking for NaN alone
/// (the zeros need no running min: `order_zeros` puts them in order after the sort): Intel
/// dev machine, one thread, least of 300 sorts, f64 1M 6.97 ms against 7.02, 64K alike.
#[inline(always)]
pub(crate) fn nan_by_max<W: Word>(c: &[W]) -> bool {
    let mut mag = W::ZERO;
    for &b in c {
        mag = mag.max(b & !W::SIGN);
    }
    mag > W::INF
}

/// Whether the float keys (raw bits) sort as floats: no NaN. On the calling thread: the float
/// sort runs only where one thread sorts (`simd::sort`).
///
/// # Safety
/// `scan_on` is an entry for an instruction set that is present.
pub(crate) unsafe fn exact<W>(v: &[W], scan_on: Scan<W>) -> bool {
    // SAFETY: as the caller promises.
    !unsafe { scan_on(v) }
}

/// Puts the zeros of float keys sorted as floats (raw bits, ascending or `descending`) in
/// `total_cmp` order: -0.0 before +0.0 ascending, after it descending. The float sort leaves
/// them one run in any order; two binary searches find it.
pub(crate) fn order_zeros<W: Word>(v: &mut [W], descending: bool) {
    let zero = |b: W| b & !W::SIGN == W::ZERO;
    let negative = |b: W| b & W::SIGN != W::ZERO;
    // The keys before the zeros: below them ascending, above them descending.
    let start = v.partition_point(|&b| !zero(b) && negative(b) != descending);
    let run = &mut v[start..];
    let len = run.partition_point(|&b| zero(b));
    let run = &mut run[..len];
    let minus = run.iter().filter(|&&b| negative(b)).count();
    let (first, second, split) = if descending { (W::ZERO, W::SIGN, len - minus) } else { (W::SIGN, W::ZERO, minus) };
    let (a, b) = run.split_at_mut(split);
    a.fill(first);
    b.fill(second);
}

/// The entry points of a float sort on one instruction set (`$feature`, for `target_feature`):
/// `$sort` and `$scan` for raw words `$bits`, whose register type is `$reg`; `$scan_with` is
/// the NaN scan that suits the instruction set.
macro_rules! float_entries {
    ($feature:literal, $sort:ident, $scan:ident, $bits:ty, $reg:ty, $scan_with:ident) => {
        /// Sorts float keys without NaN (`float::exact`) as floats on this thread, the zeros
        /// in any order (`float::order_zeros` orders them); `map` is `float::key_map`'s.
        ///
        /// # Safety
        /// The instruction set is present.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn $sort(v: &mut [$bits], map: KeyMap) {
            super::quick::sort::<$reg>(super::map::retype(v), map, false)
        }

        /// The NaN scan (`float::nan_by_flag` or `float::nan_by_max`) with this instruction set.
        ///
        /// # Safety
        /// The instruction set is present.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn $scan(c: &[$bits]) -> bool {
            super::float::$scan_with(c)
        }
    };
}
pub(crate) use float_entries;

/// The map of a float sort: none ascending, the sign flipped (negation) descending.
pub(crate) fn key_map(descending: bool) -> KeyMap {
    KeyMap { map: if descending { Map::Signed } else { Map::Plain }, descending: false }
}
