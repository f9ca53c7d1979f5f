//! The backend's own thread pool: sorts and the parallel iterators inside `install` run on it,
//! not on rayon's global pool (which a forked child does not have).

mod common;

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;

use common::{items, keys_u32, Item};
use gpusort_cpu::{check, install, sort_keys, sort_pairs, sort_stable, threads, Order};
use rayon::prelude::*;

fn thread_name() -> String {
    std::thread::current().name().unwrap_or("").to_string()
}

#[test]
fn parallel_iterators_inside_install_run_on_the_backends_pool() {
    let names = Mutex::new(HashSet::new());
    let (sum, pool_threads) = install(|| {
        let sum: u64 = (0..4_000_000u32)
            .into_par_iter()
            .map(u64::from)
            .with_max_len(1 << 12)
            .inspect(|_| {
                names.lock().unwrap().insert(thread_name());
            })
            .sum();
        (sum, rayon::current_num_threads())
    });
    assert_eq!(sum, 4_000_000 * 3_999_999 / 2);
    assert_eq!(pool_threads, threads());
    let names = names.into_inner().unwrap();
    assert!(names.iter().all(|n| n.starts_with("gpusort-cpu-")), "ran outside the pool: {names:?}");
    assert!(!names.is_empty() && names.len() <= threads());
}

#[test]
fn install_from_inside_the_pool_runs_at_once() {
    let (outer, inner) = install(|| (thread_name(), install(thread_name)));
    assert!(outer.starts_with("gpusort-cpu-"), "{outer}");
    assert_eq!(outer, inner, "a nested install must not hop threads");
}

#[test]
fn sorts_never_wait_on_rayons_global_pool() {
    let keys = keys_u32("random", 1 << 20, 5);
    let input = items(&keys);
    let (k, i, n) = (keys.clone(), input.clone(), keys.len());
    let outcome = check::with_global_pool_held(Duration::from_secs(120), move || {
        let (mut k, mut v, mut pk, mut pv) = (k.clone(), i, k, (0..n as u32).collect::<Vec<_>>());
        sort_keys(&mut k, Order::Ascending).unwrap();
        sort_stable(&mut v, Order::Descending).unwrap();
        sort_pairs(&mut pk, &mut pv, Order::Ascending).unwrap();
        (k, v, pk, pv)
    });
    let (k, v, pk, pv) = outcome.expect("a sort waited on rayon's global pool");
    check::validate_keys(&keys, &k, Order::Ascending).unwrap();
    check::validate(&input, &v, Order::Descending, true).unwrap();
    let pairs: Vec<_> = pk.iter().zip(&pv).map(|(&key, &index)| Item { key, index }).collect();
    check::validate(&input, &pairs, Order::Ascending, true).unwrap();
}
