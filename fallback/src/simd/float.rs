//! Float keys compared as floats. A float min or max is one instruction where an integer one
//! is two or three (AVX2's 64-bit compare and blend) or runs on one port only (AVX-512 on Intel,
//! where `vminps`/`vminpd` run on two), and a key needs no map: the raw bits are sorted as they
//! are. IEEE order is `total_cmp` order, and a min or max returns one of its operands bit for
//! bit, on keys without NaN that do not hold both zeros (-0.0 and +0.0 compare equal); [`exact`]
//! checks that first (a pass over the keys), and other inputs take the ordered-bits path. A
//! descending sort negates the keys as it loads them (`map::Map::Signed` flips the sign bit) and
//! back as it stores them.

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
/// [`exact`] admits is IEEE order).
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

/// What a scan saw: a NaN, +0.0, -0.0.
pub(crate) type Seen = (bool, bool, bool);

/// The float sort compiled for an instruction set (`float_entries!`'s `sort`).
pub(crate) type Sort<W> = unsafe fn(&mut [W], KeyMap);

/// A scan compiled for an instruction set (`float_entries!`'s `scan`).
pub(crate) type Scan<W> = unsafe fn(&[W]) -> Seen;

/// Scans raw float bits for NaN and the two zeros, with flags ORed without branches. Inlined
/// into each instruction set's entry (`float_entries!`), where it vectorizes: compiled for plain
/// x86-64 (no 64-bit compares) it took a tenth of a 64K-key sort. AVX2, which has no 64-bit min
/// or max, takes this one.
#[inline(always)]
pub(crate) fn scan_flags<W: Word>(c: &[W]) -> Seen {
    // Words of the keys' width, so that the loop vectorizes.
    let (mut nan, mut pos, mut neg) = (W::ZERO, W::ZERO, W::ZERO);
    for &b in c {
        nan = nan | W::from(b & !W::SIGN > W::INF);
        pos = pos | W::from(b == W::ZERO);
        neg = neg | W::from(b == W::SIGN);
    }
    (nan != W::ZERO, pos != W::ZERO, neg != W::ZERO)
}

/// As [`scan_flags`], by three running extremes: a NaN has the greatest magnitude bits of all,
/// +0.0 is the least word, -0.0 the least with the sign flipped. A min or max per register each
/// where they are one instruction (AVX-512), against a compare, a mask made a word and an OR
/// per flag: Intel dev machine, one thread, 64K f64 keys, least of 3000 sorts in three rounds,
/// 0.304-0.306 ms against 0.310-0.317; with AVX2 2% slower than the flags (0.632 against 0.617).
#[inline(always)]
pub(crate) fn scan_extremes<W: Word>(c: &[W]) -> Seen {
    let (mut mag, mut least, mut least_flipped) = (W::ZERO, !W::ZERO, !W::ZERO);
    for &b in c {
        mag = mag.max(b & !W::SIGN);
        least = least.min(b);
        least_flipped = least_flipped.min(b ^ W::SIGN);
    }
    (mag > W::INF, least == W::ZERO, least_flipped == W::ZERO)
}

/// Whether the float keys (raw bits) sort exactly as floats: no NaN, and not both -0.0 and +0.0.
/// On the calling thread: the float sort runs only where one thread sorts (`simd::sort`).
///
/// # Safety
/// `scan_on` is an entry for an instruction set that is present.
pub(crate) unsafe fn exact<W>(v: &[W], scan_on: Scan<W>) -> bool {
    // SAFETY: as the caller promises.
    let (nan, pos, neg) = unsafe { scan_on(v) };
    !(nan || pos && neg)
}

/// The entry points of a float sort on one instruction set (`$feature`, for `target_feature`):
/// `$sort` and `$scan` for raw words `$bits`, whose register type is `$reg`; `$scan_with` is
/// the scan that suits the instruction set.
macro_rules! float_entries {
    ($feature:literal, $sort:ident, $scan:ident, $bits:ty, $reg:ty, $scan_with:ident) => {
        /// Sorts float keys that sort exactly as floats (`float::exact`) on this thread; `map`
        /// is `float::key_map`'s.
        ///
        /// # Safety
        /// The instruction set is present.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn $sort(v: &mut [$bits], map: KeyMap) {
            super::quick::sort::<$reg>(super::map::retype(v), map, false)
        }

        /// The scan (`float::scan_flags` or `float::scan_extremes`) with this instruction set.
        ///
        /// # Safety
        /// The instruction set is present.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn $scan(c: &[$bits]) -> super::float::Seen {
            super::float::$scan_with(c)
        }
    };
}
pub(crate) use float_entries;

/// The map of a float sort: none ascending, the sign flipped (negation) descending.
pub(crate) fn key_map(descending: bool) -> KeyMap {
    KeyMap { map: if descending { Map::Signed } else { Map::Plain }, descending: false }
}
