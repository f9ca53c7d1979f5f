//! The pipelined host round trip through the shared suite's inputs, with the test hooks forcing
//! the paths large inputs take onto small ones: many chunks, and a pinned upload buffer smaller
//! than the data (upload ring, download through host scratch); and data in page-locked memory,
//! which the copy engine reads and writes in place.

mod common;

use common::*;
use gpusort::hooks;
use gpusort::{check, Algorithm, Order, Sorter};

/// One GPU test at a time: the tests share the device's pinned staging and the per-thread test
/// hooks' sizes, so they would wait for each other, and the transfer shapes under test would mix.
fn alone() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];
const ALGORITHMS: [Algorithm; 4] = [Algorithm::Auto, Algorithm::Radix, Algorithm::Bitonic, Algorithm::OddEvenMerge];

/// (label, chunk bytes, pinned cap bytes); 0 keeps the tuned value.
const SHAPES: [(&str, usize, usize); 3] = [("tuned", 0, 0), ("many chunks", 4096, 0), ("ring", 4096, 3 * 4096)];

fn sweep_kvp(s: &Sorter, lengths: &[usize], patterns: &[Pattern]) {
    for (label, chunk, cap) in SHAPES {
        hooks::set_chunk_bytes(chunk);
        hooks::set_pinned_cap(cap);
        for alg in ALGORITHMS {
            let s = s.clone().with_algorithm(alg);
            for order in ORDERS {
                for &n in lengths {
                    for &p in patterns {
                        let input = kvp_input(n, p, 11);
                        let mut out = input.clone();
                        s.clone()
                            .with_order(order)
                            .sort_kvp(&mut out)
                            .unwrap_or_else(|e| panic!("{label} {alg:?} n={n} {p:?}: {e}"));
                        check::validate(&input, &out, order, alg.is_stable())
                            .unwrap_or_else(|e| panic!("{label} {alg:?} Kvp n={n} {p:?} {order:?}: {e}"));
                    }
                }
            }
        }
    }
    hooks::set_chunk_bytes(0);
    hooks::set_pinned_cap(0);
}

fn kvp_edge_cases_every_transfer_shape() {
    let Some(s) = cuda_or_skip("host path Kvp") else { return };
    let _alone = alone();
    sweep_kvp(&s, SMALL_LENGTHS, PATTERNS);
}

fn kvp_large_every_transfer_shape() {
    let Some(s) = cuda_or_skip("host path Kvp large") else { return };
    let _alone = alone();
    sweep_kvp(&s, &[65537, 1_000_003], &[Pattern::Random, Pattern::FewDistinct]);
}

fn keys_every_transfer_shape() {
    let Some(s) = cuda_or_skip("host path keys") else { return };
    let _alone = alone();
    for (label, chunk, cap) in SHAPES {
        hooks::set_chunk_bytes(chunk);
        hooks::set_pinned_cap(cap);
        for alg in ALGORITHMS {
            let s = s.clone().with_algorithm(alg);
            for order in ORDERS {
                for &n in SMALL_LENGTHS.iter().chain(&[65537, 262147]) {
                    for &p in PATTERNS {
                        let input: Vec<u32> = bits(n, p, 12).into_iter().map(u32::from_bits).collect();
                        let mut out = input.clone();
                        s.clone()
                            .with_order(order)
                            .sort_keys(&mut out)
                            .unwrap_or_else(|e| panic!("{label} {alg:?} n={n} {p:?}: {e}"));
                        check::validate_keys(&input, &out, order)
                            .unwrap_or_else(|e| panic!("{label} {alg:?} u32 n={n} {p:?} {order:?}: {e}"));
                        let fl: Vec<f32> = input.iter().map(|&b| f32::from_bits(b)).collect();
                        let mut fo = fl.clone();
                        s.clone()
                            .with_order(order)
                            .sort_keys(&mut fo)
                            .unwrap_or_else(|e| panic!("{label} {alg:?} f32 n={n}: {e}"));
                        check::validate_keys(&fl, &fo, order)
                            .unwrap_or_else(|e| panic!("{label} {alg:?} f32 n={n} {p:?} {order:?}: {e}"));
                    }
                }
            }
        }
    }
    hooks::set_chunk_bytes(0);
    hooks::set_pinned_cap(0);
}

/// Sorts a page-locked copy of `input` with `sort`, checks that it took the in-place path exactly
/// when `in_place` says (and the held buffer, capped at `cap` bytes when that is not 0, takes
/// the input: it holds the backup), and returns the result.
fn sorted_page_locked<T: gpusort::cudarc::driver::DeviceRepr + gpusort::cudarc::driver::ValidAsZeroBits + Copy>(
    s: &Sorter,
    input: &[T],
    in_place: bool,
    cap: usize,
    sort: impl FnOnce(&mut [T]) -> Result<(), gpusort::SortError>,
) -> Vec<T> {
    let mut locked = page_locked(s, input);
    let before = hooks::in_place_sorts();
    let data = &mut locked.as_mut_slice().unwrap()[..input.len()];
    sort(data).unwrap_or_else(|e| panic!("page-locked n={}: {e}", input.len()));
    let took = hooks::in_place_sorts() - before;
    // Fewer than two items are never sorted.
    let held = cap == 0 || std::mem::size_of_val(input) <= cap;
    assert_eq!(took, usize::from(in_place && held && input.len() >= 2), "n={}: in-place sorts {took}", input.len());
    data.to_vec()
}

fn page_locked_data_sorts_in_place() {
    // Data in page-locked memory goes up and comes back with no host copy; every item type
    // staged as it is (Kvp, keys of the radix sort) takes that path while it fits the held
    // buffer (its backup), and the ring otherwise.
    let Some(s) = cuda_or_skip("host path, page-locked data") else { return };
    let _alone = alone();
    // Below `tuning::IN_PLACE_FROM_BYTES` (64 MiB) page-locked data is staged like any other.
    let input = kvp_input(65537, Pattern::Random, 13);
    let out = sorted_page_locked(&s, &input, false, 0, |d| s.sort_kvp(d));
    check::validate(&input, &out, Order::Ascending, true).unwrap();
    hooks::set_in_place_from(1);
    for (label, chunk, cap) in SHAPES {
        hooks::set_chunk_bytes(chunk);
        hooks::set_pinned_cap(cap);
        for &n in SMALL_LENGTHS.iter().chain(&[65537, 1_000_003]) {
            for &p in PATTERNS {
                for alg in ALGORITHMS {
                    for order in ORDERS {
                        let s = s.clone().with_algorithm(alg).with_order(order);
                        let input = kvp_input(n, p, 13);
                        let out = sorted_page_locked(&s, &input, true, cap, |d| s.sort_kvp(d));
                        check::validate(&input, &out, order, alg.is_stable())
                            .unwrap_or_else(|e| panic!("{label} {alg:?} Kvp n={n} {p:?} {order:?}: {e}"));
                    }
                }
                let s = s.clone().with_algorithm(Algorithm::Radix).with_order(Order::Descending);
                let keys: Vec<u64> = bits(n, p, 14);
                let out = sorted_page_locked(&s, &keys, true, cap, |d| s.sort_keys(d));
                check::validate_keys(&keys, &out, Order::Descending)
                    .unwrap_or_else(|e| panic!("{label} u64 n={n} {p:?}: {e}"));
                let floats: Vec<f32> = keys.iter().map(|&b| f32::from_bits(b as u32)).collect();
                let out = sorted_page_locked(&s, &floats, true, cap, |d| s.sort_keys(d));
                check::validate_keys(&floats, &out, Order::Descending)
                    .unwrap_or_else(|e| panic!("{label} f32 n={n} {p:?}: {e}"));
            }
        }
    }
    hooks::set_chunk_bytes(0);
    hooks::set_pinned_cap(0);
    hooks::set_in_place_from(0);
}

fn page_locked_split_pairs_sort_in_place() {
    // Split pairs whose keys and values both lie in page-locked memory go in place as two arrays:
    // u32, f32 and u64 keys, both orders, stable.
    let Some(s) = cuda_or_skip("host path, page-locked split pairs") else { return };
    let _alone = alone();
    hooks::set_in_place_from(1);
    hooks::set_split_pairs_from(1);
    for (label, chunk, _) in &SHAPES[..2] {
        hooks::set_chunk_bytes(*chunk);
        for &n in SMALL_LENGTHS.iter().chain(&[65537, 1_000_003]).filter(|&&n| n >= 2) {
            for &p in PATTERNS {
                let raw = bits(n, p, 15);
                for order in ORDERS {
                    let s = s.clone().with_order(order);
                    let before = hooks::in_place_sorts();
                    let what = format!("{label} n={n} {p:?} {order:?}");
                    let keys: Vec<u32> = raw.iter().map(|&b| b as u32).collect();
                    pairs_page_locked(&s, &keys, &format!("u32 {what}"));
                    let floats: Vec<f32> = keys.iter().map(|&b| f32::from_bits(b)).collect();
                    pairs_page_locked(&s, &floats, &format!("f32 {what}"));
                    pairs_page_locked(&s, &raw, &format!("u64 {what}"));
                    assert_eq!(hooks::in_place_sorts() - before, 3, "{what}: not every sort went in place");
                }
            }
        }
    }
    hooks::set_chunk_bytes(0);
    hooks::set_in_place_from(0);
    hooks::set_split_pairs_from(0);
}

/// Sorts page-locked copies of `keys` and of their positions as split pairs with `s`, and checks
/// the result against the stable sort of the pairs.
fn pairs_page_locked<K>(s: &Sorter, keys: &[K], what: &str)
where
    K: TestKey + gpusort::cudarc::driver::DeviceRepr + gpusort::cudarc::driver::ValidAsZeroBits,
{
    let n = keys.len();
    let values: Vec<u32> = (0..n as u32).collect();
    let (mut k, mut v) = (page_locked(s, keys), page_locked(s, &values));
    let (ks, vs) = (&mut k.as_mut_slice().unwrap()[..n], &mut v.as_mut_slice().unwrap()[..n]);
    s.sort_pairs(ks, vs).unwrap_or_else(|e| panic!("page-locked pairs {what}: {e}"));
    let pair = |(&key, &value): (&K, &u32)| Pair { key, value };
    let input: Vec<Pair<K>> = keys.iter().zip(&values).map(pair).collect();
    let out: Vec<Pair<K>> = ks.iter().zip(vs.iter()).map(pair).collect();
    check::validate(&input, &out, s.order(), true).unwrap_or_else(|e| panic!("page-locked pairs {what}: {e}"));
}

fn threads_sharing_the_staging_all_sort_right() {
    // Only one sort holds the kept pinned staging at a time; the others take a ring of their own.
    let Some(s) = cuda_or_skip("host path threads") else { return };
    let _alone = alone();
    let handles: Vec<_> = (0..6u64)
        .map(|t| {
            let s = s.clone();
            std::thread::spawn(move || {
                for round in 0..4 {
                    let input = kvp_input(300_007 + t as usize * 1000, Pattern::Random, t * 10 + round);
                    let mut out = input.clone();
                    s.sort_kvp(&mut out).unwrap();
                    check::validate(&input, &out, Order::Ascending, true).unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

fn sorts_called_from_rayon_workers_never_block_each_other() {
    // A sort holding the staging waits for its parallel host copies on rayon's pool; a worker
    // waiting there may run another of these tasks, which sorts too. Nothing may wait for the
    // staging then (it would wait for itself): each of these must finish and be right.
    use rayon::prelude::*;
    let Some(s) = cuda_or_skip("host path from rayon workers") else { return };
    let _alone = alone();
    (0..32u64).into_par_iter().for_each(|t| {
        let input = kvp_input(1 << 20 | t as usize, Pattern::Random, 100 + t);
        let mut out = input.clone();
        s.sort_kvp(&mut out).unwrap();
        check::validate(&input, &out, Order::Ascending, true).unwrap();
    });
}

fn main() -> std::process::ExitCode {
    harness::run(vec![
        harness::gpu("kvp_edge_cases_every_transfer_shape", kvp_edge_cases_every_transfer_shape),
        harness::gpu("kvp_large_every_transfer_shape", kvp_large_every_transfer_shape),
        harness::gpu("keys_every_transfer_shape", keys_every_transfer_shape),
        harness::gpu("page_locked_data_sorts_in_place", page_locked_data_sorts_in_place),
        harness::gpu("page_locked_split_pairs_sort_in_place", page_locked_split_pairs_sort_in_place),
        harness::gpu("threads_sharing_the_staging_all_sort_right", threads_sharing_the_staging_all_sort_right),
        harness::gpu(
            "sorts_called_from_rayon_workers_never_block_each_other",
            sorts_called_from_rayon_workers_never_block_each_other,
        ),
    ])
}
