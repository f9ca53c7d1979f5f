//! Inputs and witnesses shared by the CPU sort tests.

#![allow(dead_code)]

use std::fmt::Debug;
use std::hash::{Hash, Hasher};

use gpusort_cpu::{check, sort_stable, Keyed, Order, SortKey};

pub const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// A key with its input position as value: any reordering of equal keys shows in the witness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Item<K> {
    pub key: K,
    pub index: u32,
}

impl<K: SortKey> Keyed for Item<K> {
    type Key = K;
    fn sort_key(&self) -> K {
        self.key
    }
}

/// f32 keys compared by bits, so NaNs and the two zeros stay distinguishable in the checks.
#[derive(Clone, Copy, Debug)]
pub struct F32Item {
    pub key: f32,
    pub index: u32,
}

impl PartialEq for F32Item {
    fn eq(&self, other: &Self) -> bool {
        self.key.to_bits() == other.key.to_bits() && self.index == other.index
    }
}
impl Eq for F32Item {}
impl Hash for F32Item {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.key.to_bits().hash(h);
        self.index.hash(h);
    }
}
impl Keyed for F32Item {
    type Key = f32;
    fn sort_key(&self) -> f32 {
        self.key
    }
}

pub fn items<K: Copy>(keys: &[K]) -> Vec<Item<K>> {
    keys.iter().enumerate().map(|(i, &key)| Item { key, index: i as u32 }).collect()
}

/// splitmix64, so every failure can be reproduced from its seed.
pub use gpusort_cpu::rng::SplitMix64 as Rng;

pub const PATTERNS: [&str; 12] = [
    "random",
    "all-equal",
    "sorted",
    "reverse",
    "few-distinct",
    "extremes",
    "sorted-runs",
    "reverse-runs",
    "low-16-bits",
    "high-byte-only",
    "one-out-of-place",
    "two-keys",
];

/// u32 keys of a named shape.
pub fn keys_u32(pattern: &str, n: usize, seed: u64) -> Vec<u32> {
    let mut r = Rng::new(seed);
    let n32 = n as u32;
    match pattern {
        "random" => (0..n).map(|_| r.next() as u32).collect(),
        "all-equal" => vec![0x1234_5678; n],
        "sorted" => (0..n32).map(|i| i.wrapping_mul(3)).collect(),
        "reverse" => (0..n32).rev().map(|i| i.wrapping_mul(3)).collect(),
        "few-distinct" => (0..n).map(|_| [7u32, 0x8000_0000, 0xdead_beef, 3][(r.next() % 4) as usize]).collect(),
        "extremes" => (0..n).map(|_| if r.next().is_multiple_of(2) { 0 } else { u32::MAX }).collect(),
        // Non-decreasing with ties: the already-sorted shortcut must keep ties in place.
        "sorted-runs" => (0..n32).map(|i| i / 5).collect(),
        // Non-increasing with ties: reversed in one go, runs must come back in input order.
        "reverse-runs" => (0..n32).rev().map(|i| i / 7).collect(),
        // Top bytes constant: the MSD pass has to skip to the first byte that varies.
        "low-16-bits" => (0..n).map(|_| r.next() as u32 & 0xffff).collect(),
        // Only the top byte varies: buckets finish with no LSD pass.
        "high-byte-only" => (0..n).map(|_| (r.next() as u32) & 0xff00_0000 | 0x42).collect(),
        "one-out-of-place" => {
            let mut v: Vec<u32> = (0..n32).collect();
            if n > 1 {
                v.swap(n / 3, n - 1);
            }
            v
        }
        "two-keys" => (0..n).map(|_| (r.next() % 2) as u32 * 0x0100_0000).collect(),
        _ => unreachable!("unknown pattern {pattern}"),
    }
}

/// Sorts items both ways and checks sorted, permutation and stability.
pub fn check_stable<T: Keyed + Eq + Hash + Debug>(input: &[T], what: &str) {
    for order in ORDERS {
        let mut v = input.to_vec();
        sort_stable(&mut v, order).unwrap();
        if let Err(e) = check::validate(input, &v, order, true) {
            panic!("{what}, n = {}, {order:?}: {e}", input.len());
        }
    }
}

/// Lengths around every power of two up to 2^17, small primes and odd sizes.
pub fn small_lengths() -> Vec<usize> {
    let mut n = vec![0, 1, 2, 3, 5, 7, 13, 23, 24, 25, 31, 97, 251, 1009, 4099, 65537, 131071];
    for k in 1..=17 {
        n.extend([(1usize << k) - 1, 1 << k, (1 << k) + 1]);
    }
    n.sort_unstable();
    n.dedup();
    n
}
