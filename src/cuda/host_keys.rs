//! Host-side bridges for key types and layouts the GPU kernels do not take directly yet: keys
//! become their 32-bit ordered bits (an order-preserving bijection, see `gpusort_cpu::SortKey`),
//! split key/value arrays become `Kvp`s, and back after the sort.

use gpusort_cpu::SortKey;

use crate::Kvp;

/// A key whose ordered bits are 32 bits wide, with the inverse map.
pub(crate) trait Bits32: SortKey<Bits = u32> {
    fn from_ordered_bits(bits: u32) -> Self;
}

impl Bits32 for u32 {
    fn from_ordered_bits(bits: u32) -> u32 {
        bits
    }
}

impl Bits32 for i32 {
    fn from_ordered_bits(bits: u32) -> i32 {
        (bits ^ 0x8000_0000) as i32
    }
}

impl Bits32 for f32 {
    fn from_ordered_bits(bits: u32) -> f32 {
        // A set top bit marks a key that was non-negative (only its sign bit was flipped).
        f32::from_bits(if bits & 0x8000_0000 != 0 { bits ^ 0x8000_0000 } else { !bits })
    }
}

pub(crate) fn to_bits<K: Bits32>(keys: &[K]) -> Vec<u32> {
    keys.iter().map(|k| k.to_ordered_bits()).collect()
}

pub(crate) fn from_bits<K: Bits32>(bits: &[u32], keys: &mut [K]) {
    for (k, &b) in keys.iter_mut().zip(bits) {
        *k = K::from_ordered_bits(b);
    }
}

pub(crate) fn to_pairs<K: Bits32>(keys: &[K], values: &[u32]) -> Vec<Kvp> {
    keys.iter().zip(values).map(|(k, &v)| Kvp::new(k.to_ordered_bits(), v)).collect()
}

pub(crate) fn from_pairs<K: Bits32>(pairs: &[Kvp], keys: &mut [K], values: &mut [u32]) {
    for ((k, v), p) in keys.iter_mut().zip(values.iter_mut()).zip(pairs) {
        *k = K::from_ordered_bits(p.key);
        *v = p.value;
    }
}

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
