//! The out-of-core hybrid sort: a device memory limit forced small so that inputs are cut into
//! many uneven runs, sorted on the GPU and merged on the CPU; every result checked by the oracle,
//! stability included for the stable algorithms.

mod common;

use common::*;
use gpusort::hooks;
use gpusort::{check, Algorithm, Kvp, Order, SortError, Sorter};

/// One GPU test at a time: the tests sharing the device's pinned staging would send each other
/// down the pageable path, and the transfer shapes under test would not run.
fn alone() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];
const ALGORITHMS: [Algorithm; 4] = [Algorithm::Auto, Algorithm::Radix, Algorithm::Bitonic, Algorithm::OddEvenMerge];

/// A limit that makes a Kvp sort of `n` items run in about `runs` pieces whatever the algorithm
/// (radix needs the most per item, so the others get longer runs, still several).
fn limit(n: usize, runs: usize) -> usize {
    radix_limit_for_runs::<Kvp>(n.div_ceil(runs).max(1))
}

#[test]
fn kvp_edge_cases_in_many_runs() {
    let Some(s) = cuda_or_skip("out-of-core Kvp") else { return };
    let _alone = alone();
    for alg in ALGORITHMS {
        for order in ORDERS {
            for &n in SMALL_LENGTHS {
                for &p in PATTERNS {
                    // 7 runs (uneven: n is rarely a multiple of 7), and for short inputs the
                    // minimum of one item per run.
                    let counts: &[usize] = if n <= 257 { &[7, n.max(1)] } else { &[7] };
                    for &runs in counts {
                        let s = s.clone().with_algorithm(alg).with_device_memory_limit(limit(n, runs));
                        let input = kvp_input(n, p, 21);
                        let mut out = input.clone();
                        s.sort_kvp_by(&mut out, order).unwrap_or_else(|e| panic!("{alg:?} n={n} runs={runs}: {e}"));
                        check::validate(&input, &out, order, alg.is_stable())
                            .unwrap_or_else(|e| panic!("{alg:?} Kvp n={n} runs={runs} {p:?} {order:?}: {e}"));
                    }
                }
            }
        }
    }
}

#[test]
fn kvp_large_in_uneven_runs_with_small_chunks() {
    let Some(s) = cuda_or_skip("out-of-core Kvp large") else { return };
    let _alone = alone();
    for (chunk, cap) in [(0, 0), (64 << 10, 256 << 10)] {
        hooks::set_chunk_bytes(chunk);
        hooks::set_pinned_cap(cap);
        for alg in ALGORITHMS {
            for order in ORDERS {
                for &n in &[65537usize, 1_000_003, (1 << 21) + 5] {
                    for p in [Pattern::Random, Pattern::FewDistinct, Pattern::Reverse, Pattern::AllEqual] {
                        let s = s.clone().with_algorithm(alg).with_device_memory_limit(limit(n, 5));
                        let input = kvp_input(n, p, 22);
                        let mut out = input.clone();
                        s.sort_kvp_by(&mut out, order).unwrap_or_else(|e| panic!("{alg:?} n={n}: {e}"));
                        check::validate(&input, &out, order, alg.is_stable())
                            .unwrap_or_else(|e| panic!("{alg:?} Kvp n={n} chunk={chunk} {p:?} {order:?}: {e}"));
                    }
                }
            }
        }
    }
    hooks::set_chunk_bytes(0);
    hooks::set_pinned_cap(0);
}

#[test]
fn keys_and_split_pairs_in_runs() {
    let Some(s) = cuda_or_skip("out-of-core keys and pairs") else { return };
    let _alone = alone();
    for order in ORDERS {
        for &n in &[2usize, 31, 257, 4097, 65537, 300_007] {
            for &p in PATTERNS {
                let s = s.clone().with_device_memory_limit(radix_limit_for_runs::<u32>(n.div_ceil(6).max(1)));
                let keys: Vec<u32> = bits(n, p, 23).into_iter().map(u32::from_bits).collect();
                let mut out = keys.clone();
                s.sort_keys_by(&mut out, order).unwrap();
                check::validate_keys(&keys, &out, order).unwrap_or_else(|e| panic!("u32 n={n} {p:?} {order:?}: {e}"));

                let ints: Vec<i32> = keys.iter().map(|&k| k as i32).collect();
                let mut out = ints.clone();
                s.sort_keys_by(&mut out, order).unwrap();
                check::validate_keys(&ints, &out, order).unwrap_or_else(|e| panic!("i32 n={n} {p:?} {order:?}: {e}"));

                // Split pairs go out of core as Kvp: the Kvp limit decides their runs.
                let s = s.with_device_memory_limit(limit(n, 6));
                let values: Vec<u32> = (0..n as u32).collect();
                let (mut k, mut v) = (keys.clone(), values.clone());
                s.sort_pairs_by(&mut k, &mut v, order).unwrap();
                let pack =
                    |k: &[u32], v: &[u32]| -> Vec<Kvp> { k.iter().zip(v).map(|(&a, &b)| Kvp::new(a, b)).collect() };
                check::validate(&pack(&keys, &values), &pack(&k, &v), order, true)
                    .unwrap_or_else(|e| panic!("split pairs n={n} {p:?} {order:?}: {e}"));
            }
        }
    }
}

#[test]
fn out_of_core_matches_one_run_exactly() {
    // Stable sorts have one right answer: runs and merge must give the same as one GPU run and
    // as the CPU backend.
    let Some(s) = cuda_or_skip("out-of-core vs one run") else { return };
    let _alone = alone();
    for n in [100_000usize, 1 << 20] {
        let input = kvp_input(n, Pattern::FewDistinct, 24);
        let (mut a, mut b, mut c) = (input.clone(), input.clone(), input.clone());
        s.clone().with_device_memory_limit(limit(n, 9)).sort_kvp(&mut a).unwrap();
        s.sort_kvp(&mut b).unwrap();
        Sorter::cpu().sort_kvp(&mut c).unwrap();
        assert!(a == b && b == c, "n={n}: out-of-core, one run and cpu differ");
        let auto = Sorter::auto().with_crossover(0).with_device_memory_limit(limit(n, 4));
        let mut d = input.clone();
        auto.sort_kvp(&mut d).unwrap();
        assert!(d == c, "n={n}: auto with a limit differs from cpu");
    }
}

#[test]
fn limit_below_one_item_is_invalid_and_touches_nothing() {
    let Some(s) = cuda_or_skip("out-of-core tiny limit") else { return };
    let _alone = alone();
    let s = s.with_device_memory_limit(100);
    assert_eq!(s.device_memory_limit(), Some(100));
    let input = kvp_input(1000, Pattern::Random, 25);
    let mut v = input.clone();
    let e = s.sort_kvp(&mut v).expect_err("100 bytes hold no run");
    assert!(matches!(e, SortError::InvalidArgument(_)), "{e:?}");
    assert_eq!(v, input);
}

#[test]
fn limit_on_a_cpu_sorter_is_ignored() {
    // Runs everywhere: the builder must not change what a CPU sorter does.
    let s = Sorter::cpu().with_device_memory_limit(1);
    assert_eq!(s.device_memory_limit(), None);
    let input = kvp_input(5000, Pattern::Random, 26);
    let mut v = input.clone();
    s.sort_kvp(&mut v).unwrap();
    check::validate(&input, &v, Order::Ascending, true).unwrap();
    s.release_memory();
}
