//! f64 keys compared as doubles. A float min or max is one instruction where a 64-bit integer one
//! is two or three (AVX2: compare and blend) or runs on one port only (AVX-512 on Intel), and a
//! key needs no map: the raw bits are sorted as they are. IEEE order is `total_cmp` order, and
//! a min or max returns one of its operands bit for bit, on keys without NaN that do not hold
//! both zeros (-0.0 and +0.0 compare equal); [`exact`] checks that first (a pass over the keys), and other inputs take
//! the ordered-bits path. A descending sort negates the keys as it loads them (`map::Map::Signed`
//! flips the sign bit) and back as it stores them.

use super::map::{Bits, KeyMap, Map};
use super::vector::Lane;

/// The raw bits of an f64 key, ordered as the double (`total_cmp`, which on the keys [`exact`]
/// admits is IEEE order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub(crate) struct Double(pub u64);

const SIGN: u64 = 1 << 63;

impl Ord for Double {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        f64::from_bits(self.0).total_cmp(&f64::from_bits(other.0))
    }
}

impl PartialOrd for Double {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Bits for Double {
    const FLIPPED: bool = false;
    #[inline(always)]
    fn sign_set(self) -> bool {
        self.0 & SIGN != 0
    }
    #[inline(always)]
    fn flip_sign(self) -> Self {
        Double(self.0 ^ SIGN)
    }
    #[inline(always)]
    fn not(self) -> Self {
        Double(!self.0)
    }
}

impl Lane for Double {
    const MIN: Double = Double(0xfff0_0000_0000_0000); // -inf
    const MAX: Double = Double(0x7ff0_0000_0000_0000); // +inf
    const SIGN: Double = Double(SIGN);
    const ALL: Double = Double(u64::MAX);
    /// The next double below, the two zeros being one value (as they compare).
    #[inline(always)]
    fn pred(self) -> Double {
        match self.0 {
            0 | SIGN => Double(SIGN | 1),
            b if b & SIGN == 0 => Double(b - 1),
            b => Double(b + 1),
        }
    }
    /// The next double above, the two zeros being one value.
    #[inline(always)]
    fn succ(self) -> Double {
        match self.0 {
            0 | SIGN => Double(1),
            b if b == SIGN | 1 => Double(0),
            b if b & SIGN == 0 => Double(b + 1),
            b => Double(b - 1),
        }
    }
}

/// What [`scan`] saw: a NaN, +0.0, -0.0.
pub(crate) type Seen = (bool, bool, bool);

/// The double sort compiled for an instruction set (`sort_f64_entries!`'s `sort_f64`).
pub(crate) type Sort = unsafe fn(&mut [u64], KeyMap);

/// [`scan`] compiled for an instruction set (`sort_f64_entries!`'s `scan_f64`).
pub(crate) type Scan = unsafe fn(&[u64]) -> Seen;

/// Scans raw f64 bits for NaN and the two zeros. Inlined into each instruction set's entry
/// (`avx2::scan_f64`), where it vectorizes: compiled for plain x86-64 (no 64-bit compares) it took
/// a tenth of a 64K-key sort.
#[inline(always)]
pub(crate) fn scan(c: &[u64]) -> Seen {
    // Words ORed without branches, so that the loop vectorizes.
    let (mut nan, mut pos, mut neg) = (0u64, 0u64, 0u64);
    for &b in c {
        nan |= (b & !SIGN > 0x7ff0_0000_0000_0000) as u64;
        pos |= (b == 0) as u64;
        neg |= (b == SIGN) as u64;
    }
    (nan != 0, pos != 0, neg != 0)
}

/// Whether the f64 keys (raw bits) sort exactly as doubles: no NaN, and not both -0.0 and +0.0.
/// On the calling thread: the double sort runs only where one thread sorts (`simd::sort`).
///
/// # Safety
/// `scan_on` is an entry for an instruction set that is present.
pub(crate) unsafe fn exact(v: &[u64], scan_on: Scan) -> bool {
    // SAFETY: as the caller promises.
    let (nan, pos, neg) = unsafe { scan_on(v) };
    !(nan || pos && neg)
}

/// The entry points of the double sort on one instruction set (`$feature`, for `target_feature`),
/// whose register type is `$reg`.
macro_rules! sort_f64_entries {
    ($feature:literal, $reg:ty) => {
        /// Sorts f64 keys that sort exactly as doubles (`double::exact`) on this thread; `map` is
        /// `double::key_map`'s.
        ///
        /// # Safety
        /// The instruction set is present.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn sort_f64(v: &mut [u64], map: KeyMap) {
            super::quick::sort::<$reg>(super::map::retype(v), map, false)
        }

        /// `double::scan` with this instruction set.
        ///
        /// # Safety
        /// The instruction set is present.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn scan_f64(c: &[u64]) -> super::double::Seen {
            super::double::scan(c)
        }
    };
}
pub(crate) use sort_f64_entries;

/// The map of a double sort: none ascending, the sign flipped (negation) descending.
pub(crate) fn key_map(descending: bool) -> KeyMap {
    KeyMap { map: if descending { Map::Signed } else { Map::Plain }, descending: false }
}
