//! Keys as their 32-bit ordered bits (an order-preserving bijection, see `gpusort_cpu::SortKey`),
//! and back: how split pairs and the sorting networks carry signed and float keys
//! (`hostdata::SplitAsKvp`, `hostdata::KeysAsBits`).

use gpusort_cpu::SortKey;

/// A key whose ordered bits are 32 bits wide (`SortKey::from_ordered_bits` maps them back).
pub(crate) trait Bits32: SortKey<Bits = u32> {}

impl<K: SortKey<Bits = u32>> Bits32 for K {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_bits_round_trip_in_total_order() {
        let xs = [f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 0.0, 1.5, -1.5, f32::MIN_POSITIVE];
        for &x in &xs {
            let back = f32::from_ordered_bits(x.to_ordered_bits());
            assert_eq!(back.to_bits(), x.to_bits(), "{x}");
        }
        let mut sorted = xs;
        sorted.sort_by(|a, b| a.total_cmp(b));
        let bits: Vec<u32> = sorted.iter().map(|x| x.to_ordered_bits()).collect();
        assert!(bits.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn int_bits_round_trip_in_order() {
        let xs = [i32::MIN, -1, 0, 1, i32::MAX];
        let bits: Vec<u32> = xs.iter().map(|x| x.to_ordered_bits()).collect();
        assert!(bits.windows(2).all(|w| w[0] < w[1]));
        for &x in &xs {
            assert_eq!(i32::from_ordered_bits(x.to_ordered_bits()), x);
        }
    }
}
