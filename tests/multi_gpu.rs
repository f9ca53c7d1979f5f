//! Host sorts spread over several devices (`Sorter::cuda_devices`, `Sorter::cuda_all`): every key
//! type and both orders against the CPU oracle, stability, the edge sizes around the share
//! boundaries, failures at every step, and the fallback to one device. On a host with one GPU the
//! shares are partitions of it (`cuda_devices(&[0, 0])`), each with its own stream and buffers,
//! so the whole algorithm runs; with several GPUs the same checks run across all of them too.

mod common;

use common::*;
use gpusort::hooks::{self, Step, STEPS};
use std::sync::Arc;

use gpusort::cudarc::driver::{CudaContext, CudaStream};
use gpusort::{check, DeviceShare, Kvp, Order, SortError, Sorter};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// One GPU test at a time: they share the devices' pinned staging and the hooks' sizes.
fn alone() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// The sorters under test, each spreading every host sort of at least 2 items per share: two and
/// three shares of the first GPU, and every GPU of the host when there are several.
fn spread_sorters(what: &str) -> Vec<(String, Sorter)> {
    if cuda_or_skip(what).is_none() {
        return Vec::new();
    }
    let mut all = Vec::new();
    for ordinals in [&[0, 0][..], &[0, 0, 0][..]] {
        let s = Sorter::cuda_devices(ordinals).unwrap_or_else(|e| panic!("{ordinals:?}: {e}"));
        all.push((format!("{ordinals:?}"), s.with_multi_gpu_from(1)));
    }
    match Sorter::cuda_all() {
        Ok(s) if s.multi_gpu_from().is_some() => all.push(("every GPU".into(), s.with_multi_gpu_from(1))),
        _ => skip_loudly(&format!("{what}: one GPU here; shares of it stand in for several")),
    }
    all
}

/// Lengths from the smallest spread sort up, around the share boundaries and the chunk sizes.
fn lengths() -> Vec<usize> {
    let mut v: Vec<usize> = SMALL_LENGTHS.iter().copied().filter(|&n| n >= 3).collect();
    v.extend([65537, 262147, (1 << 20) + 1, 3_000_017]);
    v
}

fn kvp_in_every_pattern_and_order_stable() {
    let _alone = alone();
    for (name, s) in spread_sorters("spread Kvp") {
        for order in ORDERS {
            for n in lengths() {
                for &p in PATTERNS {
                    if n > 70_000 && !matches!(p, Pattern::Random | Pattern::FewDistinct | Pattern::AllEqual) {
                        continue;
                    }
                    let input = kvp_input(n, p, 71);
                    let mut out = input.clone();
                    s.clone().with_order(order).sort_kvp(&mut out).unwrap_or_else(|e| panic!("{name} n={n}: {e}"));
                    check::validate(&input, &out, order, true)
                        .unwrap_or_else(|e| panic!("{name} Kvp n={n} {p:?} {order:?}: {e}"));
                }
            }
        }
    }
}

/// Keys sorted by the spread sorter and by the CPU backend, bit for bit (keys alone have one
/// sorted order: equal keys are identical, floats by their total order).
fn keys_match_the_cpu<K: TestKey>(what: &str) {
    let _alone = alone();
    for (name, s) in spread_sorters(what) {
        for order in ORDERS {
            for n in [3, 257, 4097, 65537, (1 << 20) + 3] {
                for &p in PATTERNS {
                    let input: Vec<K> = bits(n, p, 5).into_iter().map(K::from_bits).collect();
                    let (mut got, mut want) = (input.clone(), input.clone());
                    s.clone().with_order(order).sort_keys(&mut got).unwrap_or_else(|e| panic!("{name} {what}: {e}"));
                    Sorter::cpu().with_order(order).sort_keys(&mut want).unwrap();
                    let same = got.iter().zip(&want).all(|(a, b)| a.id() == b.id());
                    assert!(same, "{name} {what} n={n} {p:?} {order:?}: differs from the CPU");
                }
            }
        }
    }
}

fn keys_of_every_type() {
    keys_match_the_cpu::<u32>("u32 keys");
    keys_match_the_cpu::<i32>("i32 keys");
    keys_match_the_cpu::<f32>("f32 keys");
    keys_match_the_cpu::<u64>("u64 keys");
    keys_match_the_cpu::<i64>("i64 keys");
    keys_match_the_cpu::<f64>("f64 keys");
}

/// Split pairs of 32-bit keys and argsorts: stable, so the CPU's result is the only right one.
fn split_pairs_and_argsort_match_the_cpu() {
    let _alone = alone();
    for (name, s) in spread_sorters("spread split pairs") {
        for order in ORDERS {
            for n in [5, 4099, (1 << 20) + 7] {
                for p in [Pattern::Random, Pattern::FewDistinct, Pattern::AllEqual, Pattern::Reverse] {
                    let keys: Vec<f32> = bits(n, p, 9).into_iter().map(<f32 as TestKey>::from_bits).collect();
                    let values: Vec<u32> = (0..n as u32).collect();
                    let s = s.clone().with_order(order);
                    let (mut gk, mut gv) = (keys.clone(), values.clone());
                    let (mut wk, mut wv) = (keys.clone(), values.clone());
                    s.sort_pairs(&mut gk, &mut gv).unwrap_or_else(|e| panic!("{name}: {e}"));
                    Sorter::cpu().with_order(order).sort_pairs(&mut wk, &mut wv).unwrap();
                    assert!(gv == wv && gk.iter().zip(&wk).all(|(a, b)| a.id() == b.id()), "{name} pairs n={n} {p:?}");
                    let got = s.argsort(&keys).unwrap_or_else(|e| panic!("{name}: {e}"));
                    let want = Sorter::cpu().with_order(order).argsort(&keys).unwrap();
                    assert!(got == want, "{name} argsort n={n} {p:?} {order:?}");
                }
            }
        }
    }
}

/// Small chunks and a held buffer too small for the shares: many chunks per device in turn, and
/// the shares that come back through host scratch.
fn many_chunks_and_no_held_copy() {
    let _alone = alone();
    for (name, s) in spread_sorters("spread sorts in many chunks") {
        for (chunk, cap) in [(64 << 10, 0), (64 << 10, 256 << 10)] {
            hooks::set_chunk_bytes(chunk);
            hooks::set_pinned_cap(cap);
            for n in [100_003, 1_000_003] {
                let input = kvp_input(n, Pattern::FewDistinct, 13);
                let mut out = input.clone();
                s.sort_kvp(&mut out).unwrap_or_else(|e| panic!("{name} chunk={chunk} cap={cap}: {e}"));
                check::validate(&input, &out, Order::Ascending, true)
                    .unwrap_or_else(|e| panic!("{name} chunk={chunk} cap={cap} n={n}: {e}"));
            }
        }
        hooks::set_chunk_bytes(0);
        hooks::set_pinned_cap(0);
    }
}

/// A failure at any step of a spread sort leaves the input untouched or completely sorted, and
/// the next sort works; the exchange steps must occur.
fn every_step_fails_cleanly() {
    let _alone = alone();
    for (name, s) in spread_sorters("spread sort failure injection") {
        for cap in [0, 256 << 10] {
            hooks::set_chunk_bytes(256 << 10);
            hooks::set_pinned_cap(cap);
            let input = kvp_input(300_007, Pattern::Random, 17);
            for step in STEPS {
                let mut nth = 0;
                loop {
                    hooks::inject(step, nth);
                    let mut v = input.clone();
                    let r = s.sort_kvp(&mut v);
                    let fired = hooks::clear();
                    match (fired, r) {
                        (true, Err(_)) => {
                            let sorted = check::validate(&input, &v, Order::Ascending, true).is_ok();
                            assert!(v == input || sorted, "{name} cap={cap}: {step:?} #{nth} left a mix");
                        }
                        (false, Ok(())) => {
                            check::validate(&input, &v, Order::Ascending, true).unwrap();
                            break;
                        }
                        (true, Ok(())) => panic!("{name}: {step:?} #{nth} fired but the sort succeeded"),
                        (false, Err(e)) => panic!("{name}: {step:?} #{nth} did not fire, yet: {e}"),
                    }
                    nth += 1;
                    assert!(nth < 10_000, "{name}: {step:?} keeps firing");
                }
                let happens = !matches!(step, Step::Merge);
                assert!(!happens || nth > 0, "{name} cap={cap}: {step:?} never happened");
            }
        }
        hooks::set_chunk_bytes(0);
        hooks::set_pinned_cap(0);
    }
}

/// Shares that do not fit the devices' budget: the first device sorts alone, out of core.
fn too_large_for_the_shares_sorts_on_the_first_device() {
    let _alone = alone();
    for (name, s) in spread_sorters("spread sort past the budget") {
        let n = 1_000_003;
        let s = s.with_device_memory_limit(radix_limit_for_runs::<Kvp>(n / 5));
        let input = kvp_input(n, Pattern::Random, 19);
        let mut out = input.clone();
        s.sort_kvp(&mut out).unwrap_or_else(|e| panic!("{name}: {e}"));
        check::validate(&input, &out, Order::Ascending, true).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// The streams device-resident shares go on: two and three on the first GPU, and one per GPU of
/// the host when there are several.
fn share_streams(what: &str) -> Vec<(String, Vec<Arc<CudaStream>>)> {
    let Some(s) = cuda_or_skip(what) else { return Vec::new() };
    let ctx = s.cuda_context().expect("a cuda sorter has a context");
    let mut all = Vec::new();
    for count in [2, 3] {
        let streams = (0..count).map(|_| ctx.new_stream().expect("stream")).collect();
        all.push((format!("{count} shares of GPU 0"), streams));
    }
    let gpus = CudaContext::device_count().unwrap_or(1) as usize;
    if gpus > 1 {
        let streams = (0..gpus).map(|o| CudaContext::new(o).expect("context").new_stream().expect("stream")).collect();
        all.push((format!("one share per GPU ({gpus})"), streams));
    }
    all
}

/// Device-resident shares of uneven lengths (some empty) sorted as one sequence: the shares read
/// back in order are the stable sort of their concatenation.
fn device_shares_sort_as_one_sequence() {
    let _alone = alone();
    for (name, streams) in share_streams("device shares") {
        let sorter = Sorter::cuda().expect("checked");
        for order in ORDERS {
            for total in [2, 9, 4097, 300_007, 2_000_003] {
                for &p in &[Pattern::Random, Pattern::FewDistinct, Pattern::AllEqual, Pattern::Reverse] {
                    let input = kvp_input(total, p, 23);
                    // Uneven cuts: the first share short, one share empty when there are three.
                    let k = streams.len();
                    let mut cuts: Vec<usize> = (0..=k).map(|i| total * i / k).collect();
                    cuts[1] = total / 7;
                    if k == 3 {
                        cuts[2] = cuts[1];
                    }
                    let mut bufs: Vec<_> = streams
                        .iter()
                        .enumerate()
                        .map(|(i, st)| st.clone_htod(&input[cuts[i]..cuts[i + 1]]).expect("upload"))
                        .collect();
                    let mut shares: Vec<DeviceShare<'_, Kvp>> =
                        bufs.iter_mut().zip(&streams).map(|(b, st)| DeviceShare::new(b, st)).collect();
                    sorter
                        .clone()
                        .with_order(order)
                        .sort_kvp_across(&mut shares)
                        .unwrap_or_else(|e| panic!("{name}: {e}"));
                    let mut out = Vec::with_capacity(total);
                    for (b, st) in bufs.iter().zip(&streams) {
                        out.extend(st.clone_dtoh(b).expect("download"));
                    }
                    check::validate(&input, &out, order, true)
                        .unwrap_or_else(|e| panic!("{name} n={total} {p:?} {order:?}: {e}"));
                }
            }
            // Keys: f32 and u64 against the CPU, bit for bit.
            device_keys_match::<f32>(&name, &streams, order);
            device_keys_match::<u64>(&name, &streams, order);
        }
    }
}

fn device_keys_match<K: TestKey + gpusort::cudarc::driver::DeviceRepr>(
    name: &str,
    streams: &[Arc<CudaStream>],
    order: Order,
) {
    let total = 1_000_003;
    let input: Vec<K> = bits(total, Pattern::Random, 29).into_iter().map(K::from_bits).collect();
    let k = streams.len();
    let mut bufs: Vec<_> = streams
        .iter()
        .enumerate()
        .map(|(i, st)| st.clone_htod(&input[total * i / k..total * (i + 1) / k]).expect("upload"))
        .collect();
    let mut shares: Vec<DeviceShare<'_, K>> =
        bufs.iter_mut().zip(streams).map(|(b, st)| DeviceShare::new(b, st)).collect();
    Sorter::cuda().unwrap().with_order(order).sort_keys_across(&mut shares).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut got = Vec::with_capacity(total);
    for (b, st) in bufs.iter().zip(streams) {
        got.extend(st.clone_dtoh(b).expect("download"));
    }
    let mut want = input.clone();
    Sorter::cpu().with_order(order).sort_keys(&mut want).unwrap();
    assert!(got.iter().zip(&want).all(|(a, b)| a.id() == b.id()), "{name} {order:?}: keys differ from the CPU");
}

fn device_lists_are_checked() {
    // Runs everywhere: an empty list is refused before any device is opened.
    assert!(matches!(Sorter::cuda_devices(&[]), Err(SortError::InvalidArgument(_))));
    assert_eq!(Sorter::cpu().multi_gpu_from(), None);
    match Sorter::cuda_devices(&[0, 0]) {
        Ok(s) => {
            assert!(s.multi_gpu_from().is_some(), "{s}");
            assert_eq!(s.clone().with_multi_gpu_from(77).multi_gpu_from(), Some(77));
            assert!(s.describe().contains("in 2 shares"), "{s}");
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
    if let Ok(one) = Sorter::cuda() {
        assert_eq!(one.multi_gpu_from(), None, "one device spreads nothing");
    }
}

fn main() -> std::process::ExitCode {
    harness::run(vec![
        harness::gpu("kvp_in_every_pattern_and_order_stable", kvp_in_every_pattern_and_order_stable),
        harness::gpu("keys_of_every_type", keys_of_every_type),
        harness::gpu("split_pairs_and_argsort_match_the_cpu", split_pairs_and_argsort_match_the_cpu),
        harness::gpu("many_chunks_and_no_held_copy", many_chunks_and_no_held_copy),
        harness::gpu("every_step_fails_cleanly", every_step_fails_cleanly),
        harness::gpu(
            "too_large_for_the_shares_sorts_on_the_first_device",
            too_large_for_the_shares_sorts_on_the_first_device,
        ),
        harness::gpu("device_shares_sort_as_one_sequence", device_shares_sort_as_one_sequence),
        harness::cpu("device_lists_are_checked", device_lists_are_checked),
    ])
}
