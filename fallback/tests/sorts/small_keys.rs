//! Keys-only, stable and split-pair sorts of u16, i16, u8 and i8 keys, checked against the
//! standard library's sort (independent of the ordered-bits map) as well as the oracle.

use crate::common::{check_stable, items, keys_u32, Rng, ORDERS, PATTERNS};
use gpusort_cpu::{check, sort_keys, sort_pairs, Order, SortKey};

/// Lengths around the digit and L2 thresholds the small keys cross (the radix sort's insertion
/// cut, one u16 digit, 2^16 and the sequential limit, a prime).
const LENGTHS: [usize; 17] =
    [0, 1, 2, 3, 24, 25, 255, 256, 257, 65535, 65536, 65537, 131071, 131072, 131073, 300_007, 1 << 20];

/// Keys of every small type from the shared u32 patterns, plus both ends of the type's range
/// (`0` and `MAX`, `MIN` and `MAX`): the cast keeps each pattern's low bits, so "low-16-bits"
/// stays random and "high-byte-only" becomes all-equal.
fn keys<K: SortKey>(pattern: &str, n: usize, seed: u64, cast: impl Fn(u32) -> K, ends: [K; 2]) -> Vec<K> {
    if pattern == "ends" {
        let mut r = Rng::new(seed);
        return (0..n).map(|_| ends[(r.next() % 2) as usize]).collect();
    }
    keys_u32(pattern, n, seed).into_iter().map(cast).collect()
}

/// Sorts `input` both ways as keys, as stable items and as split pairs (positions as values).
fn check_all<K: SortKey + Ord + std::hash::Hash + Eq>(input: &[K], what: &str) {
    for order in ORDERS {
        let mut v = input.to_vec();
        sort_keys(&mut v, order).unwrap();
        if let Err(e) = check::validate_keys(input, &v, order) {
            panic!("{what}, n = {}, {order:?}: {e}", input.len());
        }
        let mut reference = input.to_vec();
        reference.sort();
        if order == Order::Descending {
            reference.reverse();
        }
        assert_eq!(v, reference, "{what}, n = {}, {order:?}: differs from slice::sort", input.len());
        // Split pairs: values are the input positions, so the result must be the stable argsort.
        let mut keys = input.to_vec();
        let mut values: Vec<u32> = (0..input.len() as u32).collect();
        sort_pairs(&mut keys, &mut values, order).unwrap();
        let mut expect: Vec<u32> = (0..input.len() as u32).collect();
        match order {
            Order::Ascending => expect.sort_by_key(|&i| input[i as usize]),
            Order::Descending => expect.sort_by(|&a, &b| input[b as usize].cmp(&input[a as usize])),
        }
        assert_eq!(values, expect, "{what}, n = {}, {order:?}: pairs are not the stable argsort", input.len());
        assert_eq!(keys, reference, "{what}, n = {}, {order:?}: pair keys", input.len());
    }
    check_stable(&items(input), what);
}

fn run<K: SortKey + Ord + std::hash::Hash + Eq>(name: &str, cast: impl Fn(u32) -> K + Copy, ends: [K; 2]) {
    for (s, n) in LENGTHS.into_iter().enumerate() {
        for pattern in PATTERNS.iter().copied().chain(["ends"]) {
            let input = keys(pattern, n, 40 + s as u64, cast, ends);
            check_all(&input, &format!("{name} {pattern}"));
        }
    }
}

#[test]
fn u16_keys() {
    run("u16", |x| x as u16, [0, u16::MAX]);
}

#[test]
fn i16_keys() {
    run("i16", |x| x as i16, [i16::MIN, i16::MAX]);
}

#[test]
fn u8_keys() {
    run("u8", |x| x as u8, [0, u8::MAX]);
}

#[test]
fn i8_keys() {
    run("i8", |x| x as i8, [i8::MIN, i8::MAX]);
}

#[test]
fn ordered_bits_round_trip_and_keep_the_order() {
    fn each<K: SortKey + Ord>(all: impl Iterator<Item = K>) {
        let all: Vec<K> = all.collect();
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        let bits: Vec<u32> = all.iter().map(|k| k.to_ordered_bits().into() as u32).collect();
        assert!(bits.windows(2).all(|w| w[0] < w[1]), "ordered bits follow the key order");
        // Only the low KEY_BYTES bytes are ever set.
        assert!(bits.iter().all(|&b| u64::from(b) >> (8 * K::KEY_BYTES) == 0));
        assert!(all.iter().all(|&k| K::from_ordered_bits(k.to_ordered_bits()) == k));
    }
    each(u16::MIN..=u16::MAX);
    each(i16::MIN..=i16::MAX);
    each(u8::MIN..=u8::MAX);
    each(i8::MIN..=i8::MAX);
}

/// Top-k (`select_first`): the positions of the first `k` of a stable sort, on the paths for few
/// keys, many keys and large `k`, where one select digit covers a whole small key.
#[test]
fn select_first_takes_the_head_of_the_stable_sort() {
    fn each<K: SortKey + Ord>(keys: &[K]) {
        for order in ORDERS {
            let mut perm: Vec<u64> = (0..keys.len() as u64).collect();
            match order {
                Order::Ascending => perm.sort_by_key(|&i| keys[i as usize]),
                Order::Descending => perm.sort_by(|&a, &b| keys[b as usize].cmp(&keys[a as usize])),
            }
            for k in [0, 1, 7, 4097, keys.len() / 3, keys.len()] {
                let mut want = perm[..k].to_vec();
                want.sort_unstable();
                let got = gpusort_cpu::select_first(keys, k, order).unwrap();
                assert_eq!(got, want, "{} n={} k={k} {order:?}", std::any::type_name::<K>(), keys.len());
            }
        }
    }
    for n in [5000, 300_007] {
        let r = keys_u32("random", n, 50);
        each(&r.iter().map(|&x| x as u16).collect::<Vec<_>>());
        each(&r.iter().map(|&x| x as i16).collect::<Vec<_>>());
        each(&r.iter().map(|&x| x as u8).collect::<Vec<_>>());
        each(&r.iter().map(|&x| x as i8).collect::<Vec<_>>());
        each(&r.iter().map(|&x| (x % 3) as i8 - 1).collect::<Vec<_>>());
    }
}
