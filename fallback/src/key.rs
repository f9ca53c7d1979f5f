//! Keys and items the CPU sorts understand.
//!
//! Every key maps to unsigned "ordered bits": `a < b` in the key's total order exactly when
//! `a.to_ordered_bits() < b.to_ordered_bits()`. Radix passes and the GPU kernels both work on
//! those bits, so the two backends agree on the order by construction.

use std::fmt::Debug;

/// Unsigned words a radix sort can take digits from.
///
/// ```
/// use gpusort_cpu::RadixBits;
/// assert_eq!(0x1234_5678u32.byte(1), 0x56);
/// assert_eq!(0u64.invert(), u64::MAX);
/// ```
pub trait RadixBits: Copy + Ord + Send + Sync + Debug + Into<u64> + 'static {
    /// Width in bytes (4 or 8).
    const BYTES: usize;
    /// The 8-bit digit at byte `index` (0 = least significant).
    fn byte(self, index: usize) -> usize;
    /// Bitwise NOT: flips ascending into descending order while keeping ties tied.
    fn invert(self) -> Self;
}

impl RadixBits for u32 {
    const BYTES: usize = 4;
    #[inline(always)]
    fn byte(self, index: usize) -> usize {
        ((self >> (8 * index)) & 0xff) as usize
    }
    #[inline(always)]
    fn invert(self) -> Self {
        !self
    }
}

impl RadixBits for u64 {
    const BYTES: usize = 8;
    #[inline(always)]
    fn byte(self, index: usize) -> usize {
        ((self >> (8 * index)) & 0xff) as usize
    }
    #[inline(always)]
    fn invert(self) -> Self {
        !self
    }
}

/// A key type gpusort can sort by.
///
/// ```
/// use gpusort_cpu::SortKey;
/// // Ordered bits compare as the keys do: -1 < 0 as i32, -0.0 < 0.0 as `f32::total_cmp` says.
/// assert!((-1i32).to_ordered_bits() < 0i32.to_ordered_bits());
/// assert!((-0.0f32).to_ordered_bits() < 0.0f32.to_ordered_bits());
/// ```
pub trait SortKey: Copy + Send + Sync + Debug + 'static {
    /// The unsigned word the key maps to: `u32` for 32-bit keys, `u64` for 64-bit keys.
    type Bits: RadixBits;
    /// Order-preserving map to unsigned bits (see the module docs).
    fn to_ordered_bits(self) -> Self::Bits;
    /// The inverse map: `K::from_ordered_bits(k.to_ordered_bits())` is `k`, bit for bit (NaN
    /// payloads included), so a key can travel as its ordered bits and come back.
    ///
    /// ```
    /// use gpusort_cpu::SortKey;
    /// let x = -2.5f64;
    /// assert_eq!(f64::from_ordered_bits(x.to_ordered_bits()).to_bits(), x.to_bits());
    /// ```
    fn from_ordered_bits(bits: Self::Bits) -> Self;
    /// How many low bytes of the ordered bits can differ between two keys; the bytes above them
    /// are zero in every key. Radix sorts take digits from these bytes only: `u16` and `i16` keys
    /// travel as `u32` bits (what the GPU kernels and the `Kvp` layout carry) but sort in two
    /// digit passes, `u8` and `i8` keys in one.
    ///
    /// ```
    /// use gpusort_cpu::SortKey;
    /// assert_eq!(<i16 as SortKey>::KEY_BYTES, 2);
    /// assert_eq!(<u64 as SortKey>::KEY_BYTES, 8);
    /// ```
    const KEY_BYTES: usize = <Self::Bits as RadixBits>::BYTES;
}

impl SortKey for u32 {
    type Bits = u32;
    #[inline(always)]
    fn to_ordered_bits(self) -> u32 {
        self
    }
    #[inline(always)]
    fn from_ordered_bits(bits: u32) -> u32 {
        bits
    }
}

impl SortKey for u64 {
    type Bits = u64;
    #[inline(always)]
    fn to_ordered_bits(self) -> u64 {
        self
    }
    #[inline(always)]
    fn from_ordered_bits(bits: u64) -> u64 {
        bits
    }
}

impl SortKey for i32 {
    type Bits = u32;
    /// Flipping the sign bit moves negatives below positives in unsigned order.
    #[inline(always)]
    fn to_ordered_bits(self) -> u32 {
        (self as u32) ^ 0x8000_0000
    }
    #[inline(always)]
    fn from_ordered_bits(bits: u32) -> i32 {
        (bits ^ 0x8000_0000) as i32
    }
}

impl SortKey for f32 {
    type Bits = u32;
    /// The order of `f32::total_cmp`: -NaN < -inf < .. < -0.0 < +0.0 < .. < +inf < +NaN.
    /// Negative floats have all bits flipped (larger magnitude sorts lower), positive ones only
    /// the sign bit.
    #[inline(always)]
    fn to_ordered_bits(self) -> u32 {
        let b = self.to_bits();
        if b & 0x8000_0000 != 0 {
            !b
        } else {
            b ^ 0x8000_0000
        }
    }
    /// A set top bit marks a key that was non-negative (only its sign bit was flipped).
    #[inline(always)]
    fn from_ordered_bits(bits: u32) -> f32 {
        f32::from_bits(if bits & 0x8000_0000 != 0 { bits ^ 0x8000_0000 } else { !bits })
    }
}

impl SortKey for i64 {
    type Bits = u64;
    /// Flipping the sign bit moves negatives below positives in unsigned order.
    #[inline(always)]
    fn to_ordered_bits(self) -> u64 {
        (self as u64) ^ (1 << 63)
    }
    #[inline(always)]
    fn from_ordered_bits(bits: u64) -> i64 {
        (bits ^ (1 << 63)) as i64
    }
}

impl SortKey for f64 {
    type Bits = u64;
    /// The order of `f64::total_cmp`, mapped as for `f32`.
    #[inline(always)]
    fn to_ordered_bits(self) -> u64 {
        let b = self.to_bits();
        if b & (1 << 63) != 0 {
            !b
        } else {
            b ^ (1 << 63)
        }
    }
    /// A set top bit marks a key that was non-negative (only its sign bit was flipped).
    #[inline(always)]
    fn from_ordered_bits(bits: u64) -> f64 {
        f64::from_bits(if bits & (1 << 63) != 0 { bits ^ (1 << 63) } else { !bits })
    }
}

/// Small keys: their ordered bits zero-extended to `u32` (see [`SortKey::KEY_BYTES`]); signed
/// ones have their sign bit flipped first, which moves negatives below positives.
macro_rules! small_key {
    ($($t:ty: $bytes:literal, $flip:literal, $unsigned:ty);*) => {$(
        impl SortKey for $t {
            type Bits = u32;
            const KEY_BYTES: usize = $bytes;
            #[inline(always)]
            fn to_ordered_bits(self) -> u32 {
                u32::from((self as $unsigned) ^ $flip)
            }
            /// Only the low bytes matter: bits that did not come from a key are ignored.
            #[inline(always)]
            fn from_ordered_bits(bits: u32) -> $t {
                ((bits as $unsigned) ^ $flip) as $t
            }
        }
    )*};
}
small_key!(u16: 2, 0, u16; i16: 2, 0x8000, u16; u8: 1, 0, u8; i8: 1, 0x80, u8);

/// Half-precision floats: their ordered bits as for `f32` (the order of IEEE total order, NaNs by
/// sign and payload), on 16 bits, zero-extended to `u32`.
macro_rules! half_key {
    ($($t:ty),*) => {$(
        impl SortKey for $t {
            type Bits = u32;
            const KEY_BYTES: usize = 2;
            #[inline(always)]
            fn to_ordered_bits(self) -> u32 {
                let b = self.to_bits();
                u32::from(if b & 0x8000 != 0 { !b } else { b ^ 0x8000 })
            }
            #[inline(always)]
            fn from_ordered_bits(bits: u32) -> $t {
                let b = bits as u16;
                <$t>::from_bits(if b & 0x8000 != 0 { b ^ 0x8000 } else { !b })
            }
        }
    )*};
}
half_key!(half::f16, half::bf16);

/// An item sorted by one key that it carries (a key/value pair, say). See [`crate::sort_stable`]
/// for an example.
pub trait Keyed: Copy + Send + Sync + 'static {
    /// The key type the item is sorted by.
    type Key: SortKey;
    /// The item's key; called many times per sort, so it should be a field read.
    fn sort_key(&self) -> Self::Key;
}

/// A bare key is its own item: keys-only sorts and checks reuse the pair code paths.
impl<K: SortKey> Keyed for K {
    type Key = K;
    #[inline(always)]
    fn sort_key(&self) -> K {
        *self
    }
}

#[cfg(test)]
mod tests {
    use super::SortKey;
    use half::{bf16, f16};

    /// Every 16-bit pattern: the ordered bits round-trip, and order the keys as `f32::total_cmp`
    /// orders their exact `f32` values (NaNs by sign and payload, as total order does).
    #[test]
    fn half_keys_order_as_total_order() {
        fn check<H: SortKey<Bits = u32>>(from: fn(u16) -> H, bits: fn(H) -> u16, wide: fn(H) -> f32) {
            let mut all: Vec<H> = (0..=u16::MAX).map(from).collect();
            for &h in &all {
                assert_eq!(bits(H::from_ordered_bits(h.to_ordered_bits())), bits(h));
                assert!(h.to_ordered_bits() <= 0xffff);
            }
            all.sort_by_key(|h| h.to_ordered_bits());
            // Negative NaNs first, positive ones last, numbers between in f32 total order (the
            // conversion may quiet a NaN, so NaNs are checked by sign only).
            let nans = all.iter().filter(|&&h| wide(h).is_nan()).count() / 2;
            let (neg, rest) = all.split_at(nans);
            let (numbers, pos) = rest.split_at(rest.len() - nans);
            assert!(neg.iter().all(|&h| wide(h).is_nan() && wide(h).is_sign_negative()));
            assert!(pos.iter().all(|&h| wide(h).is_nan() && wide(h).is_sign_positive()));
            for w in numbers.windows(2) {
                let (a, b) = (wide(w[0]), wide(w[1]));
                assert!(a.total_cmp(&b).is_lt(), "{:#06x} then {:#06x}", bits(w[0]), bits(w[1]));
            }
        }
        check(f16::from_bits, f16::to_bits, f16::to_f32);
        check(bf16::from_bits, bf16::to_bits, bf16::to_f32);
    }
}
