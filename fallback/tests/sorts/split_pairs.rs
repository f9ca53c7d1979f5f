//! `sort_pairs` on split key and value slices: values must move with their keys, stably.

use crate::common::{keys_u32, small_lengths, Item, Rng, ORDERS, PATTERNS};
use gpusort_cpu::{check, sort_pairs, SortKey};
use std::fmt::Debug;
use std::hash::Hash;

fn check_split<K: SortKey + Eq + Hash>(keys: &[K], what: &str)
where
    Item<K>: Debug,
{
    let input: Vec<Item<K>> = keys.iter().enumerate().map(|(i, &key)| Item { key, index: i as u32 }).collect();
    for order in ORDERS {
        let mut k = keys.to_vec();
        let mut v: Vec<u32> = (0..keys.len() as u32).collect();
        sort_pairs(&mut k, &mut v, order).unwrap();
        let out: Vec<Item<K>> = k.iter().zip(&v).map(|(&key, &index)| Item { key, index }).collect();
        if let Err(e) = check::validate(&input, &out, order, true) {
            panic!("{what}, n = {}, {order:?}: {e}", keys.len());
        }
    }
}

#[test]
fn u32_keys_u32_values() {
    for n in small_lengths().into_iter().chain([262145, 1 << 20]) {
        for pattern in PATTERNS {
            check_split(&keys_u32(pattern, n, 21), pattern);
        }
    }
}

#[test]
fn u64_keys() {
    let mut r = Rng::new(22);
    for n in [0, 1, 2, 1000, 65537, 300_007] {
        let keys: Vec<u64> = (0..n).map(|_| r.next() >> (r.next() % 64)).collect();
        check_split(&keys, "u64");
    }
}

/// Values wider than keys, carried whole.
#[test]
fn wide_values() {
    let mut r = Rng::new(23);
    let n = 200_003;
    let keys: Vec<u32> = (0..n).map(|_| (r.next() % 1000) as u32).collect();
    for order in ORDERS {
        let mut k = keys.clone();
        let mut v: Vec<[u64; 2]> = (0..n as u64).map(|i| [i, !i]).collect();
        sort_pairs(&mut k, &mut v, order).unwrap();
        assert!(check::is_sorted(&k, order));
        for (key, val) in k.iter().zip(&v) {
            assert_eq!(keys[val[0] as usize], *key, "value detached from its key");
            assert_eq!(val[1], !val[0]);
        }
        let stable = k.windows(2).zip(v.windows(2)).all(|(kw, vw)| kw[0] != kw[1] || vw[0][0] < vw[1][0]);
        assert!(stable, "{order:?}: equal keys out of input order");
    }
}
