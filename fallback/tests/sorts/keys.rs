//! Keys-only sorts and stable sorts of items with u64, i32, f32, i64 and f64 keys.

use crate::common::{check_stable, items, keys_u32, small_lengths, F32Item, Rng, ORDERS, PATTERNS};
use gpusort_cpu::{check, sort_keys, SortKey};

fn check_keys<K: SortKey>(input: &[K], what: &str) {
    for order in ORDERS {
        let mut v = input.to_vec();
        sort_keys(&mut v, order).unwrap();
        if let Err(e) = check::validate_keys(input, &v, order) {
            panic!("{what}, n = {}, {order:?}: {e}", input.len());
        }
    }
}

#[test]
fn u32_keys() {
    for n in small_lengths().into_iter().chain([262143, 262145, 1 << 20]) {
        for pattern in PATTERNS {
            check_keys(&keys_u32(pattern, n, 11), pattern);
        }
    }
}

#[test]
fn i32_keys() {
    for n in small_lengths().into_iter().chain([300_007]) {
        for pattern in PATTERNS {
            let keys: Vec<i32> = keys_u32(pattern, n, 12).into_iter().map(|k| k as i32).collect();
            check_keys(&keys, pattern);
            check_stable(&items(&keys), pattern);
        }
    }
    check_keys(&[i32::MIN, -1, 0, 1, i32::MAX, i32::MIN, 0], "extremes");
}

fn u64_keys(pattern: &str, n: usize, seed: u64) -> Vec<u64> {
    let mut r = Rng::new(seed);
    match pattern {
        "random" => (0..n).map(|_| r.next()).collect(),
        // Only the low half varies: the high bytes must be skipped, not sorted.
        "low-32-bits" => (0..n).map(|_| r.next() & 0xffff_ffff).collect(),
        "high-32-bits" => (0..n).map(|_| r.next() << 32).collect(),
        "few-distinct" => (0..n).map(|_| [0, u64::MAX, 1 << 63, 5][(r.next() % 4) as usize]).collect(),
        _ => keys_u32(pattern, n, seed).into_iter().map(|k| (k as u64) << 20 | 3).collect(),
    }
}

#[test]
fn u64_keys_and_items() {
    let patterns = ["random", "low-32-bits", "high-32-bits", "few-distinct", "sorted", "reverse-runs", "all-equal"];
    // Items with u64 keys are 16 bytes: their L2 switch is at 2^16 items.
    for n in small_lengths().into_iter().chain([32767, 32768, 32769, 65535, 65536, 65537, 300_007]) {
        for pattern in patterns {
            let keys = u64_keys(pattern, n, 13);
            check_keys(&keys, pattern);
            check_stable(&items(&keys), pattern);
        }
    }
    for pattern in ["random", "low-32-bits"] {
        check_stable(&items(&u64_keys(pattern, 1 << 20, 14)), pattern);
    }
}

const SPECIAL: [f32; 12] = [
    f32::NAN,
    -f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    0.0,
    -0.0,
    1.0,
    -1.0,
    f32::MIN_POSITIVE,
    f32::MAX,
    f32::MIN,
    1e-45,
];

fn f32_keys(n: usize, seed: u64) -> Vec<f32> {
    let mut r = Rng::new(seed);
    (0..n)
        .map(|_| match r.next() % 4 {
            0 => SPECIAL[(r.next() % SPECIAL.len() as u64) as usize],
            1 => f32::from_bits(r.next() as u32), // any bit pattern, NaN payloads included
            _ => (r.next() % 2000) as f32 / 7.0 - 140.0,
        })
        .collect()
}

#[test]
fn f32_keys_follow_total_cmp() {
    for n in small_lengths().into_iter().chain([262145, 600_011]) {
        let keys = f32_keys(n, 15);
        check_keys(&keys, "f32");
        let input: Vec<F32Item> = keys.iter().enumerate().map(|(i, &key)| F32Item { key, index: i as u32 }).collect();
        check_stable(&input, "f32 items");
        // Independent of the ordered-bits map: compare with the standard library's total order.
        let mut ours = keys.clone();
        sort_keys(&mut ours, gpusort_cpu::Order::Ascending).unwrap();
        let mut reference = keys.clone();
        reference.sort_by(f32::total_cmp);
        assert!(
            ours.iter().zip(&reference).all(|(a, b)| a.to_bits() == b.to_bits()),
            "f32 n = {n}: differs from total_cmp"
        );
        let mut ours = keys.clone();
        sort_keys(&mut ours, gpusort_cpu::Order::Descending).unwrap();
        reference.reverse();
        assert!(
            ours.iter().zip(&reference).all(|(a, b)| a.to_bits() == b.to_bits()),
            "f32 n = {n}: descending differs"
        );
    }
}

/// Above 4M items, u64 keys go to voracious' multithreaded sort (descending: reversed after);
/// 32-bit keys of that size stay with the radix sort.
#[test]
fn integer_keys_on_the_voracious_path() {
    let n = (1 << 22) + 3;
    let mut r = Rng::new(16);
    let u: Vec<u32> = (0..n).map(|_| r.next() as u32).collect();
    check_keys(&u, "u32 4M");
    let i: Vec<i32> = (0..n).map(|_| r.next() as i32).collect();
    check_keys(&i, "i32 4M");
    let w: Vec<u64> = (0..n).map(|_| r.next() >> (r.next() % 40)).collect();
    check_keys(&w, "u64 4M");
    check_keys(&keys_u32("few-distinct", n, 17), "u32 few distinct 4M");
    // Long sorted runs: voracious merges them in a buffer of its own (see keys.rs).
    let half = n as u64 / 2;
    let runs: Vec<u64> = (0..n as u64).map(|i| if i < half { 2 * i } else { 2 * (i - half) + 1 }).collect();
    check_keys(&runs, "u64 two sorted halves 4M");
}

#[test]
fn i64_keys_and_items() {
    for n in small_lengths().into_iter().chain([65537, 300_007]) {
        for pattern in ["random", "low-32-bits", "few-distinct", "sorted", "reverse-runs", "all-equal"] {
            let keys: Vec<i64> = u64_keys(pattern, n, 18).into_iter().map(|k| k as i64).collect();
            check_keys(&keys, pattern);
            check_stable(&items(&keys), pattern);
        }
    }
    check_keys(&[i64::MIN, -1, 0, 1, i64::MAX, i64::MIN, 0, -(1 << 40)], "extremes");
}

/// f64 keys compared by bits, as `F32Item` does for f32.
#[derive(Clone, Copy, Debug)]
struct F64Item {
    key: f64,
    index: u32,
}

impl PartialEq for F64Item {
    fn eq(&self, other: &Self) -> bool {
        self.key.to_bits() == other.key.to_bits() && self.index == other.index
    }
}
impl Eq for F64Item {}
impl std::hash::Hash for F64Item {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.key.to_bits().hash(h);
        self.index.hash(h);
    }
}
impl gpusort_cpu::Keyed for F64Item {
    type Key = f64;
    fn sort_key(&self) -> f64 {
        self.key
    }
}

fn f64_keys(n: usize, seed: u64) -> Vec<f64> {
    let special = [
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
        5e-324,
    ];
    let mut r = Rng::new(seed);
    (0..n)
        .map(|_| match r.next() % 4 {
            0 => special[(r.next() % special.len() as u64) as usize],
            1 => f64::from_bits(r.next()), // any bit pattern, NaN payloads included
            _ => (r.next() % 2000) as f64 / 7.0 - 140.0,
        })
        .collect()
}

#[test]
fn f64_keys_follow_total_cmp() {
    for n in small_lengths().into_iter().chain([65537, 600_011]) {
        let keys = f64_keys(n, 19);
        check_keys(&keys, "f64");
        let input: Vec<F64Item> = keys.iter().enumerate().map(|(i, &key)| F64Item { key, index: i as u32 }).collect();
        check_stable(&input, "f64 items");
        for order in ORDERS {
            let mut ours = keys.clone();
            sort_keys(&mut ours, order).unwrap();
            let mut reference = keys.clone();
            reference.sort_by(f64::total_cmp);
            if order == gpusort_cpu::Order::Descending {
                reference.reverse();
            }
            assert!(
                ours.iter().zip(&reference).all(|(a, b)| a.to_bits() == b.to_bits()),
                "f64 n = {n}, {order:?}: differs from total_cmp"
            );
        }
    }
}
