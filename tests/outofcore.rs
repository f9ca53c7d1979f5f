//! The out-of-core hybrid sort: a device memory limit forced small so that inputs are cut into
//! many uneven runs, sorted on the GPU and merged on the CPU; every result checked by the oracle,
//! stability included for the stable algorithms.

mod common;

use common::*;
use gpusort::hooks;
use gpusort::{check, f16, Algorithm, Kvp, Order, SortError, Sorter};

/// One GPU test at a time: the tests share the device's pinned staging and the per-thread test
/// hooks' sizes, so they would wait for each other, and the transfer shapes under test would mix.
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
                        s.clone()
                            .with_order(order)
                            .sort_kvp(&mut out)
                            .unwrap_or_else(|e| panic!("{alg:?} n={n} runs={runs}: {e}"));
                        check::validate(&input, &out, order, alg.is_stable())
                            .unwrap_or_else(|e| panic!("{alg:?} Kvp n={n} runs={runs} {p:?} {order:?}: {e}"));
                    }
                }
            }
        }
    }
}

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
                        s.clone().with_order(order).sort_kvp(&mut out).unwrap_or_else(|e| panic!("{alg:?} n={n}: {e}"));
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

fn keys_and_split_pairs_in_runs() {
    let Some(s) = cuda_or_skip("out-of-core keys and pairs") else { return };
    let _alone = alone();
    for order in ORDERS {
        for &n in &[2usize, 31, 257, 4097, 65537, 300_007] {
            for &p in PATTERNS {
                let s = s.clone().with_device_memory_limit(radix_limit_for_runs::<u32>(n.div_ceil(6).max(1)));
                let keys: Vec<u32> = bits(n, p, 23).into_iter().map(u32::from_bits).collect();
                let mut out = keys.clone();
                s.clone().with_order(order).sort_keys(&mut out).unwrap();
                check::validate_keys(&keys, &out, order).unwrap_or_else(|e| panic!("u32 n={n} {p:?} {order:?}: {e}"));

                let ints: Vec<i32> = keys.iter().map(|&k| k as i32).collect();
                let mut out = ints.clone();
                s.clone().with_order(order).sort_keys(&mut out).unwrap();
                check::validate_keys(&ints, &out, order).unwrap_or_else(|e| panic!("i32 n={n} {p:?} {order:?}: {e}"));

                // Split pairs go out of core as Kvp: the Kvp limit decides their runs.
                let s = s.with_device_memory_limit(limit(n, 6));
                let values: Vec<u32> = (0..n as u32).collect();
                let (mut k, mut v) = (keys.clone(), values.clone());
                s.clone().with_order(order).sort_pairs(&mut k, &mut v).unwrap();
                let pack =
                    |k: &[u32], v: &[u32]| -> Vec<Kvp> { k.iter().zip(v).map(|(&a, &b)| Kvp::new(a, b)).collect() };
                check::validate(&pack(&keys, &values), &pack(&k, &v), order, true)
                    .unwrap_or_else(|e| panic!("split pairs n={n} {p:?} {order:?}: {e}"));
            }
        }
    }
}

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

fn every_key_type_out_of_core_in_both_orders() {
    // f32 and f64 (NaN, -0.0 included by the bit patterns), u64 keys, and split pairs of every key type,
    // each cut into several runs and also forced past the held buffer (the CPU-merge path).
    let Some(s) = cuda_or_skip("out-of-core every key type") else { return };
    let _alone = alone();
    for cap in [0, 64 << 10] {
        hooks::set_pinned_cap(cap);
        for order in ORDERS {
            for &n in &[3usize, 4097, 65537, 300_007] {
                for &p in PATTERNS {
                    let raw = bits(n, p, 27);
                    let s32 = s.clone().with_device_memory_limit(radix_limit_for_runs::<u32>(n.div_ceil(5).max(1)));
                    let floats: Vec<f32> = raw.iter().map(|&b| f32::from_bits(b as u32)).collect();
                    let mut out = floats.clone();
                    s32.clone().with_order(order).sort_keys(&mut out).unwrap();
                    check::validate_keys(&floats, &out, order)
                        .unwrap_or_else(|e| panic!("f32 n={n} {p:?} {order:?} cap={cap}: {e}"));

                    let s64 = s.clone().with_device_memory_limit(radix_limit_for_runs::<u64>(n.div_ceil(5).max(1)));
                    let wide: Vec<u64> = raw.iter().map(|&b| b.rotate_left(17)).collect();
                    let mut out = wide.clone();
                    s64.clone().with_order(order).sort_keys(&mut out).unwrap();
                    check::validate_keys(&wide, &out, order)
                        .unwrap_or_else(|e| panic!("u64 n={n} {p:?} {order:?} cap={cap}: {e}"));
                    let doubles: Vec<f64> = wide.iter().map(|&b| f64::from_bits(b)).collect();
                    let mut out = doubles.clone();
                    s64.clone().with_order(order).sort_keys(&mut out).unwrap();
                    check::validate_keys(&doubles, &out, order)
                        .unwrap_or_else(|e| panic!("f64 n={n} {p:?} {order:?} cap={cap}: {e}"));

                    // Small keys go up at their own width and sort as ordered bits in each run.
                    let s16 = s.clone().with_device_memory_limit(radix_limit_for_runs::<u16>(n.div_ceil(5).max(1)));
                    let halves: Vec<f16> = raw.iter().map(|&b| f16::from_bits(b as u16)).collect();
                    let mut out = halves.clone();
                    s16.clone().with_order(order).sort_keys(&mut out).unwrap();
                    check::validate_keys(&halves, &out, order)
                        .unwrap_or_else(|e| panic!("f16 n={n} {p:?} {order:?} cap={cap}: {e}"));
                    let bytes: Vec<i8> = raw.iter().map(|&b| b as i8).collect();
                    let mut out = bytes.clone();
                    s16.clone().with_order(order).sort_keys(&mut out).unwrap();
                    check::validate_keys(&bytes, &out, order)
                        .unwrap_or_else(|e| panic!("i8 n={n} {p:?} {order:?} cap={cap}: {e}"));

                    let values: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
                    let sp = s.clone().with_device_memory_limit(limit(n, 5));
                    split_pairs_case(&sp, &floats, &values, order, &format!("f32 pairs n={n} {p:?} cap={cap}"));
                    let ints: Vec<i32> = raw.iter().map(|&b| b as i32).collect();
                    split_pairs_case(&sp, &ints, &values, order, &format!("i32 pairs n={n} {p:?} cap={cap}"));
                    // u64 keys with u32 values: runs sorted as split arrays, merged on the CPU.
                    let run = n.div_ceil(5).max(1);
                    let s64p = s.clone().with_device_memory_limit(
                        radix_limit_for_runs::<u64>(run) + radix_limit_for_runs::<u32>(run) - (64 << 10),
                    );
                    split_pairs_case(&s64p, &wide, &values, order, &format!("u64 pairs n={n} {p:?} cap={cap}"));
                    split_pairs_case(&s64p, &doubles, &values, order, &format!("f64 pairs n={n} {p:?} cap={cap}"));
                    let longs: Vec<i64> = wide.iter().map(|&b| b as i64).collect();
                    split_pairs_case(&s64p, &longs, &values, order, &format!("i64 pairs n={n} {p:?} cap={cap}"));
                }
            }
        }
    }
    hooks::set_pinned_cap(0);
}

/// Split pairs sorted on `s` must equal the CPU backend's stable result exactly.
fn split_pairs_case<K: gpusort::Key + PartialEq + std::fmt::Debug>(
    s: &Sorter,
    keys: &[K],
    values: &[u32],
    order: Order,
    what: &str,
) {
    let (mut k, mut v) = (keys.to_vec(), values.to_vec());
    s.clone().with_order(order).sort_pairs(&mut k, &mut v).unwrap_or_else(|e| panic!("{what}: {e}"));
    let (mut ek, mut ev) = (keys.to_vec(), values.to_vec());
    Sorter::cpu().with_order(order).sort_pairs(&mut ek, &mut ev).unwrap();
    // Bitwise: NaN keys compare unequal to themselves.
    let same = k.iter().zip(&ek).all(|(a, b)| format!("{a:?}") == format!("{b:?}"));
    assert!(same && v == ev, "{what} {order:?}: differs from the CPU's stable result");
}

fn shared_device_runs_out_of_core_or_fails_untouched() {
    // Another user of the device holds all of its memory but a little: a sort that would fit an
    // empty device must read the free memory, and run out of core (or fail with OutOfMemory and
    // the data as it was), never fail in the middle of an in-core attempt.
    let Some(s) = cuda_or_skip("shared device") else { return };
    let _alone = alone();
    let ctx = s.cuda_context().expect("a CUDA sorter has a context");
    ctx.bind_to_thread().unwrap();
    s.release_memory();
    let (free, _) = ctx.mem_get_info().unwrap();
    let leave = 96usize << 20;
    let stream = ctx.default_stream();
    let hog = stream.alloc_zeros::<u8>(free.saturating_sub(leave)).expect("hold the device's memory");
    stream.synchronize().unwrap();
    let n = 16usize << 20; // 128 MiB of pairs: a radix sort in one run needs 272 MiB
    let input = kvp_input(n, Pattern::Random, 28);
    let mut v = input.clone();
    match s.sort_kvp(&mut v) {
        Ok(()) => check::validate(&input, &v, Order::Ascending, true).expect("out of core on a shared device"),
        Err(e) => {
            assert!(matches!(e, SortError::OutOfMemory { .. }), "{e:?}");
            assert!(v == input, "a failed sort changed the data");
        }
    }
    let (keys, values): (Vec<u64>, Vec<u32>) = input.iter().map(|p| ((p.key as u64) << 7, p.value)).unzip();
    let (mut k, mut vals) = (keys.clone(), values.clone());
    match s.sort_pairs(&mut k, &mut vals) {
        Ok(()) => {
            let (mut ek, mut ev) = (keys.clone(), values.clone());
            Sorter::cpu().sort_pairs(&mut ek, &mut ev).unwrap();
            assert!(k == ek && vals == ev, "u64 pairs out of core on a shared device differ from the CPU's");
        }
        Err(e) => {
            assert!(matches!(e, SortError::OutOfMemory { .. }), "{e:?}");
            assert!(k == keys && vals == values, "a failed sort changed the data");
        }
    }
    // auto() takes the CPU for what the GPU cannot hold.
    let mut a = keys.clone();
    let mut av = values.clone();
    Sorter::auto().with_crossover(0).sort_pairs(&mut a, &mut av).unwrap();
    assert!(a.windows(2).all(|w| w[0] <= w[1]), "auto() on the CPU did not sort");
    drop(hog);
    s.release_memory();
}

fn auto_leaves_many_small_runs_to_the_cpu() {
    // Past `tuning::AUTO_OUT_OF_CORE_MAX_RUNS` runs the CPU is faster: auto() sorts there (no GPU
    // step runs, so an injected failure never fires), while a cuda() sorter still goes out of core.
    let Some(s) = cuda_or_skip("auto and many runs") else { return };
    let _alone = alone();
    let n = 200_000;
    let many = limit(n, 2 * gpusort::tuning::AUTO_OUT_OF_CORE_MAX_RUNS);
    let input = kvp_input(n, Pattern::Random, 29);
    let auto = Sorter::auto().with_crossover(0).with_device_memory_limit(many);
    let mut v = input.clone();
    hooks::inject(hooks::Step::Sort, 0);
    auto.sort_kvp(&mut v).unwrap();
    assert!(!hooks::clear(), "auto() ran {n} pairs in many runs on the GPU");
    check::validate(&input, &v, Order::Ascending, true).unwrap();
    let mut w = input.clone();
    s.with_device_memory_limit(many).sort_kvp(&mut w).unwrap();
    assert!(v == w, "cuda() out of core and auto() on the CPU differ");
}

fn main() -> std::process::ExitCode {
    harness::run(vec![
        harness::gpu("kvp_edge_cases_in_many_runs", kvp_edge_cases_in_many_runs),
        harness::gpu("kvp_large_in_uneven_runs_with_small_chunks", kvp_large_in_uneven_runs_with_small_chunks),
        harness::gpu("keys_and_split_pairs_in_runs", keys_and_split_pairs_in_runs),
        harness::gpu("out_of_core_matches_one_run_exactly", out_of_core_matches_one_run_exactly),
        harness::gpu(
            "limit_below_one_item_is_invalid_and_touches_nothing",
            limit_below_one_item_is_invalid_and_touches_nothing,
        ),
        harness::cpu("limit_on_a_cpu_sorter_is_ignored", limit_on_a_cpu_sorter_is_ignored),
        harness::gpu("every_key_type_out_of_core_in_both_orders", every_key_type_out_of_core_in_both_orders),
        harness::gpu(
            "shared_device_runs_out_of_core_or_fails_untouched",
            shared_device_runs_out_of_core_or_fails_untouched,
        ),
        harness::gpu("auto_leaves_many_small_runs_to_the_cpu", auto_leaves_many_small_runs_to_the_cpu),
    ])
}
