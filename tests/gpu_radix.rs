//! The GPU radix sort at its kernel boundaries: lengths around the one-block limit and the sweep
//! tiles, every input pattern that changes which digit passes run (and so which buffer holds the
//! result), both orders, Kvp and u32 keys, then every key type alone and with values,
//! device-resident through the public API. Each result is checked by the oracle: sorted, a
//! permutation with every value on its key, stable.
//!
//! `bench_device_radix` (ignored) times the device-resident sorts with CUDA events for the CUB
//! comparison in ci/cub/.

mod common;
use common::harness;
use common::{bits, skip_loudly, Pair, Rng, TestKey};
use std::sync::Arc;

use gpusort::cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT;
use gpusort::cudarc::driver::{CudaContext, CudaStream, DeviceRepr};
use gpusort::{bf16, check, f16, Algorithm, Kvp, Order, SortError, Sorter};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

fn sorter() -> Option<(Sorter, Arc<CudaContext>)> {
    match Sorter::cuda() {
        Ok(s) => {
            let ctx = s.cuda_context().expect("a CUDA sorter has a context");
            Some((s, ctx))
        }
        Err(e) if std::env::var("GPUSORT_REQUIRE_GPU").as_deref() != Ok("1") => {
            skip_loudly(&format!("skipped: no CUDA device ({e})"));
            None
        }
        Err(e) => panic!("GPUSORT_REQUIRE_GPU=1 but no CUDA device: {e}"),
    }
}

#[derive(Clone, Copy, Debug)]
enum Pattern {
    Random,
    AllEqual,
    Extremes,
    Sorted,
    Reverse,
    /// 16 distinct keys spread over all four bytes: every pass runs, many ties.
    FewDistinct,
    /// Only the low byte varies: one pass runs (odd count, result copied back).
    LowByte,
    /// Bytes 0 and 2 vary: two passes run, two skipped.
    TwoBytes,
    /// Bytes 0, 1 and 3 vary: three passes run.
    ThreeBytes,
}

const PATTERNS: [Pattern; 9] = [
    Pattern::Random,
    Pattern::AllEqual,
    Pattern::Extremes,
    Pattern::Sorted,
    Pattern::Reverse,
    Pattern::FewDistinct,
    Pattern::LowByte,
    Pattern::TwoBytes,
    Pattern::ThreeBytes,
];

fn keys(n: usize, p: Pattern, seed: u64) -> Vec<u32> {
    let mut r = Rng(seed ^ (n as u64).rotate_left(21));
    let mut v: Vec<u32> = (0..n).map(|_| r.next_u32()).collect();
    match p {
        Pattern::Random => {}
        Pattern::AllEqual => v.iter_mut().for_each(|x| *x = 0xDEAD_BEEF),
        Pattern::Extremes => v.iter_mut().for_each(|x| *x = if *x & 1 == 0 { 0 } else { u32::MAX }),
        Pattern::Sorted => v.sort_unstable(),
        Pattern::Reverse => v.sort_unstable_by(|a, b| b.cmp(a)),
        Pattern::FewDistinct => v.iter_mut().for_each(|x| *x = (*x % 16).wrapping_mul(0x1111_1111)),
        Pattern::LowByte => v.iter_mut().for_each(|x| *x = 0x7000_0000 | (*x & 0xff)),
        Pattern::TwoBytes => v.iter_mut().for_each(|x| *x = 0x1200_3400 | (*x & 0x00ff_00ff)),
        Pattern::ThreeBytes => v.iter_mut().for_each(|x| *x = 0x0055_0000 | (*x & 0xff00_ffff)),
    }
    v
}

fn sort_kvp_on_device(s: &Sorter, stream: &Arc<CudaStream>, input: &[Kvp], order: Order) -> Vec<Kvp> {
    let mut d = stream.clone_htod(input).unwrap();
    s.clone()
        .with_order(order)
        .sort_kvp_device(&mut d, stream)
        .unwrap_or_else(|e| panic!("kvp n={} {order:?}: {e}", input.len()));
    let out = stream.clone_dtoh(&d).unwrap();
    stream.synchronize().unwrap();
    out
}

fn sort_keys_on_device(s: &Sorter, stream: &Arc<CudaStream>, input: &[u32], order: Order) -> Vec<u32> {
    let mut d = stream.clone_htod(input).unwrap();
    s.clone()
        .with_order(order)
        .sort_keys_device(&mut d, stream)
        .unwrap_or_else(|e| panic!("keys n={} {order:?}: {e}", input.len()));
    let out = stream.clone_dtoh(&d).unwrap();
    stream.synchronize().unwrap();
    out
}

fn check_one(s: &Sorter, stream: &Arc<CudaStream>, n: usize, p: Pattern, seed: u64) {
    let k = keys(n, p, seed);
    check_kvp(s, stream, &k, p);
    for order in ORDERS {
        let out = sort_keys_on_device(s, stream, &k, order);
        check::validate_keys(&k, &out, order).unwrap_or_else(|e| panic!("u32 n={n} {p:?} {order:?}: {e}"));
    }
}

/// `Kvp`s with the keys `k` (of pattern `p`) sorted on the device, both orders.
fn check_kvp(s: &Sorter, stream: &Arc<CudaStream>, k: &[u32], p: Pattern) {
    let n = k.len();
    // Values are input positions: unique witnesses for the permutation and stability checks.
    let input: Vec<Kvp> = k.iter().enumerate().map(|(i, &k)| Kvp::new(k, i as u32)).collect();
    for order in ORDERS {
        let out = sort_kvp_on_device(s, stream, &input, order);
        check::validate(&input, &out, order, true).unwrap_or_else(|e| panic!("Kvp n={n} {p:?} {order:?}: {e}"));
    }
}

/// Every edge length with every pattern: below, at and above the one-block limit (4K or 16K keys
/// depending on the GPU) and one to three sweep tiles past it (kernels-cuda/cuda/tuning.cuh; below
/// 8M on sm_90: `Kvp` and u32 keys 8192, split pairs 6144; 5120 and 6144 on other GPUs), primes.
fn edge_lengths_every_pattern() {
    let Some((s, ctx)) = sorter() else { return };
    let stream = ctx.new_stream().unwrap();
    let mut lengths = vec![0usize, 1, 2, 3, 5, 7, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 10007];
    for limit in [4096usize, 16384] {
        lengths.extend([limit - 1, limit, limit + 1]);
        for tile in [3072usize, 4096, 5120, 6144, 8192] {
            for tiles in [1, 2, 3] {
                let m = limit + tiles * tile;
                lengths.extend([m - 1, m, m + 1]);
            }
        }
    }
    lengths.extend([65535, 65536, 65537, 100_003, 131_071]);
    lengths.sort_unstable();
    lengths.dedup();
    for &n in &lengths {
        for p in PATTERNS {
            check_one(&s, &stream, n, p, 11);
        }
    }
}

/// Larger seeded inputs: many tiles, long look-back chains.
fn large_inputs() {
    let Some((s, ctx)) = sorter() else { return };
    let stream = ctx.new_stream().unwrap();
    for (i, &n) in [1usize << 20, (1 << 20) + 1, 1_000_003, (1 << 22) - 1, 5_000_011].iter().enumerate() {
        for p in [Pattern::Random, Pattern::FewDistinct, Pattern::LowByte, Pattern::TwoBytes] {
            check_one(&s, &stream, n, p, 100 + i as u64);
        }
    }
    // One big run per type: 2^24 + 3 random pairs.
    let n = (1 << 24) + 3;
    check_one(&s, &stream, n, Pattern::Random, 5);
    // Kvp and keys change kernel sets at RADIX_MID_KEYS_BELOW, u32 keys on sm_90 and sm_100 at
    // RADIX_MID_U32_KEYS_BELOW_STAGED: both sides of each, sorted keys (those stage every lane of
    // a warp one digit run apart) and random ones.
    let mid = gpusort::tuning::RADIX_MID_KEYS_BELOW;
    let staged = gpusort::tuning::RADIX_MID_U32_KEYS_BELOW_STAGED;
    for n in [staged - 1, staged + 3, mid - 1, mid + 3] {
        for p in [Pattern::Random, Pattern::Sorted, Pattern::Reverse] {
            check_one(&s, &stream, n, p, 7);
        }
    }
}

/// `Kvp`, 32-bit keys alone and split u32 / i32 pairs from `RADIX_HUGE_FROM` take kernel sets of
/// their own: both sides of it, with a partial last tile above, random keys, sorted ones (the
/// pattern those sets are for) and one pass; `Kvp` in both orders, keys and split pairs in both
/// for random keys (each set's other orders and key types are in the unit test
/// `every_set_at_sanitizer_sizes`, src/cuda/radix.rs, at sizes compute-sanitizer covers).
fn huge_sets() {
    let Some((s, ctx)) = sorter() else { return };
    let stream = ctx.new_stream().unwrap();
    let huge = gpusort::tuning::RADIX_HUGE_FROM;
    for (n, p, orders) in [
        (huge - 1, Pattern::Sorted, &ORDERS[..1]),
        (huge + 3, Pattern::Random, &ORDERS[..]),
        (huge + 3, Pattern::Sorted, &ORDERS[..1]),
        (huge + 3, Pattern::LowByte, &ORDERS[..1]),
    ] {
        let k = keys(n, p, 11);
        check_kvp(&s, &stream, &k, p);
        let values: Vec<u32> = (0..n as u32).collect();
        for &order in orders {
            let out = sort_keys_on_device(&s, &stream, &k, order);
            check::validate_keys(&k, &out, order).unwrap_or_else(|e| panic!("u32 keys n={n} {p:?} {order:?}: {e}"));
            check_pairs(
                &s.clone().with_order(order),
                &stream,
                &k,
                &values,
                &format!("u32 pairs n={n} {p:?} {order:?}"),
            );
        }
    }
}

/// The same random input sorted twice gives the same bits (no race between tiles).
fn repeatable() {
    let Some((s, ctx)) = sorter() else { return };
    let stream = ctx.new_stream().unwrap();
    let k = keys(3_000_017, Pattern::FewDistinct, 9);
    let input: Vec<Kvp> = k.iter().enumerate().map(|(i, &k)| Kvp::new(k, i as u32)).collect();
    let a = sort_kvp_on_device(&s, &stream, &input, Order::Descending);
    let b = sort_kvp_on_device(&s, &stream, &input, Order::Descending);
    assert!(a == b, "two runs differ");
    check::validate(&input, &a, Order::Descending, true).unwrap();
}

/// Keys of one type and, beside them, their positions as values, sorted on the device in both
/// orders: keys against the oracle's order and multiset, pairs against a stable sort.
fn check_key_type<K: TestKey + DeviceRepr>(s: &Sorter, stream: &Arc<CudaStream>, n: usize, p: common::Pattern) {
    let keys: Vec<K> = bits(n, p, 23).into_iter().map(K::from_bits).collect();
    let values: Vec<u32> = (0..n as u32).collect();
    let what = std::any::type_name::<K>();
    for order in ORDERS {
        let s = s.clone().with_order(order);
        let mut d = stream.clone_htod(&keys).unwrap();
        s.sort_keys_device(&mut d, stream).unwrap_or_else(|e| panic!("{what} keys n={n} {p:?} {order:?}: {e}"));
        let out = stream.clone_dtoh(&d).unwrap();
        stream.synchronize().unwrap();
        check::validate_keys(&keys, &out, order).unwrap_or_else(|e| panic!("{what} keys n={n} {p:?} {order:?}: {e}"));
        check_pairs(&s, stream, &keys, &values, &format!("{what} pairs n={n} {p:?} {order:?}"));
    }
}

/// Split arrays sorted on the device by `s` (its order), checked against a stable sort.
fn check_pairs<K: TestKey + DeviceRepr>(s: &Sorter, stream: &Arc<CudaStream>, keys: &[K], values: &[u32], what: &str) {
    let (mut dk, mut dv) = (stream.clone_htod(keys).unwrap(), stream.clone_htod(values).unwrap());
    s.sort_pairs_device(&mut dk, &mut dv, stream).unwrap_or_else(|e| panic!("{what}: {e}"));
    let (ok, ov) = (stream.clone_dtoh(&dk).unwrap(), stream.clone_dtoh(&dv).unwrap());
    stream.synchronize().unwrap();
    let input: Vec<Pair<K>> = keys.iter().zip(values).map(|(&key, &value)| Pair { key, value }).collect();
    let out: Vec<Pair<K>> = ok.iter().zip(&ov).map(|(&key, &value)| Pair { key, value }).collect();
    check::validate(&input, &out, s.order(), true).unwrap_or_else(|e| panic!("{what}: {e}"));
}

/// Every key type the device sorts take, keys alone and with values, at the edge lengths (the
/// one-block sort, a tile and a few, primes) and every pattern of the suite.
fn every_key_type() {
    let Some((s, ctx)) = sorter() else { return };
    let stream = ctx.new_stream().unwrap();
    let lengths = [0usize, 1, 2, 3, 31, 257, 4095, 4096, 4097, 16383, 16385, 20481, 65537, 1_000_003];
    // Keys alone and split pairs change kernel sets at RADIX_MID_KEYS_BELOW, u32 and i32 keys on
    // sm_90 and sm_100 at RADIX_MID_U32_KEYS_BELOW_STAGED: both sides of each, two patterns.
    let mid = gpusort::tuning::RADIX_MID_KEYS_BELOW;
    let staged = gpusort::tuning::RADIX_MID_U32_KEYS_BELOW_STAGED;
    let across: &[common::Pattern] = &[common::Pattern::Random, common::Pattern::FewDistinct];
    let sides = [staged - 1, staged + 3, mid - 1, mid + 3].map(|n| (n, across));
    let cases = lengths.iter().map(|&n| (n, common::PATTERNS)).chain(sides);
    for (n, patterns) in cases {
        for &p in patterns {
            check_key_type::<u32>(&s, &stream, n, p);
            check_key_type::<i32>(&s, &stream, n, p);
            check_key_type::<f32>(&s, &stream, n, p);
            check_key_type::<u64>(&s, &stream, n, p);
            check_key_type::<i64>(&s, &stream, n, p);
            check_key_type::<f64>(&s, &stream, n, p);
            // Small keys sort as u32 bits (checked above at every size): their own mapping at
            // the edge sizes, and once large.
            if n <= 65537 || matches!(p, common::Pattern::Random) {
                check_key_type::<u16>(&s, &stream, n, p);
                check_key_type::<i16>(&s, &stream, n, p);
                check_key_type::<u8>(&s, &stream, n, p);
                check_key_type::<i8>(&s, &stream, n, p);
                check_key_type::<f16>(&s, &stream, n, p);
                check_key_type::<bf16>(&s, &stream, n, p);
            }
        }
    }
}

/// Split u32 pairs from `RADIX_MID_KEYS_BELOW` with digits held constant, so that 1, 2 or 3 of
/// the four passes run (the rest are skipped on the device): where the scratch buffer holds
/// (key, value) items, a pass's format follows the buffer it reads, and an odd number of passes
/// ends with the result split back from the scratch buffer.
fn split_pairs_skipped_passes() {
    let Some((s, ctx)) = sorter() else { return };
    let stream = ctx.new_stream().unwrap();
    let n = gpusort::tuning::RADIX_MID_KEYS_BELOW + 3;
    let mut r = Rng(41);
    let random: Vec<u32> = (0..n).map(|_| r.next_u32()).collect();
    let values: Vec<u32> = (0..n as u32).collect();
    for mask in [0x00FF_FFFFu32, 0xFFFF_FF00, 0x0000_FFFF, 0xFF00_00FF, 0x0000_FF00] {
        let keys: Vec<u32> = random.iter().map(|&k| (k & mask) | (0x5A5A_5A5A & !mask)).collect();
        for order in ORDERS {
            let what = format!("pairs n={n} mask {mask:#x} {order:?}");
            check_pairs(&s.clone().with_order(order), &stream, &keys, &values, &what);
        }
    }
}

/// What the device sorts refuse is refused before any work, the data untouched: a network with
/// 32-bit keys other than `u32`, split arrays of different lengths.
fn refused_device_keys_untouched() {
    let Some((s, ctx)) = sorter() else { return };
    let stream = ctx.new_stream().unwrap();
    let floats: Vec<f32> = (0..5000).map(|i| (i as f32 * 0.37).sin()).collect();
    let mut d = stream.clone_htod(&floats).unwrap();
    let e = s.clone().with_algorithm(Algorithm::Bitonic).sort_keys_device(&mut d, &stream).unwrap_err();
    assert!(matches!(e, SortError::Unsupported { .. }), "f32 keys through bitonic on the device: {e}");
    let back: Vec<u32> = stream.clone_dtoh(&d).unwrap().iter().map(|x: &f32| x.to_bits()).collect();
    assert_eq!(back, floats.iter().map(|x| x.to_bits()).collect::<Vec<_>>());

    let keys: Vec<u64> = (0..100u64).rev().collect();
    let (mut dk, mut dv) = (stream.clone_htod(&keys).unwrap(), stream.clone_htod(&[1u32; 99]).unwrap());
    let e = s.sort_pairs_device(&mut dk, &mut dv, &stream).unwrap_err();
    assert!(matches!(e, SortError::InvalidArgument(_)), "99 values for 100 keys: {e}");
    assert_eq!(stream.clone_dtoh(&dk).unwrap(), keys);
}

fn median(mut v: Vec<f32>) -> f32 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// What `time_sort` asks of the sort it times.
#[derive(Clone, Copy)]
enum Step {
    /// Put the pristine input back (not timed).
    Restore,
    /// Sort the input in place (timed).
    Sort,
}

/// CUDA-event times of 15 sorts, each from a restored input, after 3 warm-ups.
fn time_sort(ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>, mut step: impl FnMut(Step)) -> Vec<f32> {
    let mut times = Vec::new();
    for it in 0..18 {
        step(Step::Restore);
        let a = ctx.new_event(Some(CU_EVENT_DEFAULT)).unwrap();
        let b = ctx.new_event(Some(CU_EVENT_DEFAULT)).unwrap();
        a.record(stream).unwrap();
        step(Step::Sort);
        b.record(stream).unwrap();
        b.synchronize().unwrap();
        if it >= 3 {
            times.push(a.elapsed_ms(&b).unwrap());
        }
    }
    times
}

/// Keys of the benchmark patterns, with the formulas of `benches/sort/inputs.rs` (`Pattern::key`) and
/// ci/cub/cub_bench.cu for distinct16 and zipf, so the tuning runs compare with the report; random
/// is the stream CUB's sweep harness draws (`Rng(n)`).
fn bench_keys(n: usize, pattern: &str) -> Vec<u32> {
    use gpusort_cpu::rng::splitmix64 as splitmix;
    let z = |i: usize| splitmix(n as u64, i as u64);
    match pattern {
        "random" => {
            let mut r = Rng(n as u64);
            (0..n).map(|_| r.next_u32()).collect()
        }
        "distinct16" => (0..n).map(|i| splitmix(16, z(i) & 15) as u32).collect(),
        "zipf" => (0..n)
            .map(|i| {
                let z = z(i);
                let e = (z >> 59) as u32;
                ((1u32 << e) | (z as u32 & ((1u32 << e) - 1))).wrapping_mul(0x9E37_79B1)
            })
            .collect(),
        "sorted" => (0..n as u32).collect(),
        "equal" => vec![0x9E37_79B9; n],
        // Worst cases for the ranking: one key holds half (`half`) or 15/16 (`bucket`) of the
        // input, the rest random, so every digit of every pass has one heavy bucket; `onedigit`:
        // keys that differ only in their second byte (three passes skipped, one random).
        "half" => (0..n).map(|i| if z(i) >> 63 == 0 { 0x9E37_79B9 } else { z(i) as u32 }).collect(),
        "bucket" => (0..n).map(|i| if z(i) >> 60 != 0 { 0x9E37_79B9 } else { z(i) as u32 }).collect(),
        "onedigit" => (0..n).map(|i| 0x9E37_0089 | (z(i) as u32 & 0xff00)).collect(),
        other => panic!("GPUSORT_BENCH_PATTERN: unknown pattern {other}"),
    }
}

/// Times device-resident sorts (values 0..n): a pristine copy is restored before each run (not
/// timed), CUDA events around the sort alone, 3 warm-ups, median of 15. Sizes from
/// GPUSORT_BENCH_SIZES (comma-separated), by default 16K, 1M, 16M, 64M, 256M; key patterns from
/// GPUSORT_BENCH_PATTERNS (random, distinct16, zipf, sorted, equal, half, bucket, onedigit; default
/// random); sorts from GPUSORT_BENCH_TYPES (kvp, keys, pairs, keys64: u64 keys alone, and pairs64:
/// u64 keys with u32 values; default the first three).
fn bench_device_radix() {
    let Some((s, ctx)) = sorter() else { return };
    let stream = ctx.new_stream().unwrap();
    let list = |var: &str, default: &str| -> Vec<String> {
        std::env::var(var).unwrap_or_else(|_| default.into()).split(',').map(|x| x.trim().to_string()).collect()
    };
    let sizes: Vec<usize> = list("GPUSORT_BENCH_SIZES", "16384,1048576,16777216,67108864,268435456")
        .iter()
        .map(|x| x.parse().unwrap())
        .collect();
    let patterns = list("GPUSORT_BENCH_PATTERNS", "random");
    let types = list("GPUSORT_BENCH_TYPES", "kvp,keys,pairs");
    println!("{:>10} {:>6} {:>10} {:>10} {:>10}", "n", "type", "ours_ms", "min_ms", "pattern");
    for n in sizes {
        for pattern in &patterns {
            let k = bench_keys(n, pattern);
            let pairs: Vec<Kvp> = k.iter().enumerate().map(|(i, &k)| Kvp::new(k, i as u32)).collect();
            let values: Vec<u32> = (0..n as u32).collect();
            for ty in types.iter().map(String::as_str) {
                // The 64-bit sorts take random keys of their own and report the median alone.
                let median64 = match ty {
                    "keys64" => Some(bench_keys64(&s, &ctx, &stream, n)),
                    "pairs64" => Some(bench_pairs64(&s, &ctx, &stream, n, &values)),
                    _ => None,
                };
                if let Some(median) = median64 {
                    println!("{n:>10} {ty:>6} {median:>10.4} {:>10} {pattern:>10}", "-");
                    continue;
                }
                let pristine_p = stream.clone_htod(&pairs).unwrap();
                let pristine_k = stream.clone_htod(&k).unwrap();
                let pristine_v = stream.clone_htod(&values).unwrap();
                let mut work_p = stream.clone_htod(&pairs).unwrap();
                let mut work_k = stream.clone_htod(&k).unwrap();
                let mut work_v = stream.clone_htod(&values).unwrap();
                let times = time_sort(&ctx, &stream, |step| match (step, ty) {
                    (Step::Restore, "kvp") => stream.memcpy_dtod(&pristine_p, &mut work_p).unwrap(),
                    (Step::Restore, "keys") => stream.memcpy_dtod(&pristine_k, &mut work_k).unwrap(),
                    (Step::Restore, _) => {
                        stream.memcpy_dtod(&pristine_k, &mut work_k).unwrap();
                        stream.memcpy_dtod(&pristine_v, &mut work_v).unwrap();
                    }
                    (Step::Sort, "kvp") => s.sort_kvp_device(&mut work_p, &stream).unwrap(),
                    (Step::Sort, "keys") => s.sort_keys_device(&mut work_k, &stream).unwrap(),
                    (Step::Sort, _) => s.sort_pairs_device(&mut work_k, &mut work_v, &stream).unwrap(),
                });
                // The timed result must be right too.
                match ty {
                    "kvp" => {
                        let out = stream.clone_dtoh(&work_p).unwrap();
                        stream.synchronize().unwrap();
                        check::validate(&pairs, &out, Order::Ascending, true).unwrap();
                    }
                    "keys" => {
                        let out = stream.clone_dtoh(&work_k).unwrap();
                        stream.synchronize().unwrap();
                        check::validate_keys(&k, &out, Order::Ascending).unwrap();
                    }
                    _ => {
                        let (ok, ov) = (stream.clone_dtoh(&work_k).unwrap(), stream.clone_dtoh(&work_v).unwrap());
                        stream.synchronize().unwrap();
                        let out: Vec<Kvp> = ok.iter().zip(&ov).map(|(&k, &v)| Kvp::new(k, v)).collect();
                        check::validate(&pairs, &out, Order::Ascending, true).unwrap();
                    }
                }
                let min = times.iter().cloned().fold(f32::MAX, f32::min);
                println!("{n:>10} {ty:>6} {:>10.4} {min:>10.4} {pattern:>10}", median(times));
            }
        }
    }
}

/// `bench_device_radix` for u64 keys alone (random, whatever the pattern), timed and checked as
/// the 32-bit sorts are; returns the median ms.
fn bench_keys64(s: &Sorter, ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>, n: usize) -> f32 {
    let keys = random_keys64(n);
    let pristine = stream.clone_htod(&keys).unwrap();
    let mut work = stream.clone_htod(&keys).unwrap();
    let times = time_sort(ctx, stream, |step| match step {
        Step::Restore => stream.memcpy_dtod(&pristine, &mut work).unwrap(),
        Step::Sort => s.sort_keys_device(&mut work, stream).unwrap(),
    });
    let out = stream.clone_dtoh(&work).unwrap();
    stream.synchronize().unwrap();
    check::validate_keys(&keys, &out, Order::Ascending).unwrap();
    median(times)
}

fn random_keys64(n: usize) -> Vec<u64> {
    (0..n as u64).map(|i| gpusort_cpu::rng::splitmix64(!(n as u64), i)).collect()
}

/// `bench_device_radix` for u64 keys (random, whatever the pattern) with u32 values 0..n, timed
/// and checked as the 32-bit sorts are; returns the median ms.
fn bench_pairs64(s: &Sorter, ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>, n: usize, values: &[u32]) -> f32 {
    let keys = random_keys64(n);
    let (pristine_k, pristine_v) = (stream.clone_htod(&keys).unwrap(), stream.clone_htod(values).unwrap());
    let (mut work_k, mut work_v) = (stream.clone_htod(&keys).unwrap(), stream.clone_htod(values).unwrap());
    let times = time_sort(ctx, stream, |step| match step {
        Step::Restore => {
            stream.memcpy_dtod(&pristine_k, &mut work_k).unwrap();
            stream.memcpy_dtod(&pristine_v, &mut work_v).unwrap();
        }
        Step::Sort => s.sort_pairs_device(&mut work_k, &mut work_v, stream).unwrap(),
    });
    let (ok, ov) = (stream.clone_dtoh(&work_k).unwrap(), stream.clone_dtoh(&work_v).unwrap());
    stream.synchronize().unwrap();
    let input: Vec<Pair<u64>> = keys.iter().zip(values).map(|(&key, &value)| Pair { key, value }).collect();
    let out: Vec<Pair<u64>> = ok.iter().zip(&ov).map(|(&key, &value)| Pair { key, value }).collect();
    check::validate(&input, &out, Order::Ascending, true).unwrap();
    median(times)
}

/// Small and medium sizes for the compute-sanitizer runs (memcheck, racecheck): the one-block path,
/// one sweep tile short of and past a boundary, a few tiles, every pass-skip parity.
fn sanitizer_sizes() {
    let Some((s, ctx)) = sorter() else { return };
    let stream = ctx.new_stream().unwrap();
    for n in [2usize, 1000, 16385, 20481, 50_001] {
        for p in [Pattern::Random, Pattern::LowByte, Pattern::TwoBytes, Pattern::AllEqual] {
            check_one(&s, &stream, n, p, 3);
        }
        // The float kernels (f32 on their own, 64-bit flipping at run time), alone and with values.
        check_key_type::<f32>(&s, &stream, n, common::Pattern::Random);
        check_key_type::<f64>(&s, &stream, n, common::Pattern::Random);
    }
}

/// The kernel sets with the larger tiles, which start at RADIX_MID_KEYS_BELOW (u32 keys alone,
/// split u32 pairs and `Kvp`), for compute-sanitizer memcheck and racecheck, each with a partial
/// last tile.
fn sanitizer_large_sets() {
    let Some((s, ctx)) = sorter() else { return };
    let stream = ctx.new_stream().unwrap();
    let n = gpusort::tuning::RADIX_MID_KEYS_BELOW + 3;
    check_key_type::<u32>(&s, &stream, n, common::Pattern::Random);
    check_kvp(&s, &stream, &keys(n, Pattern::Random, 3), Pattern::Random);
}

fn main() -> std::process::ExitCode {
    harness::run(vec![
        harness::gpu("edge_lengths_every_pattern", edge_lengths_every_pattern),
        harness::gpu("large_inputs", large_inputs),
        harness::gpu("huge_sets", huge_sets),
        harness::gpu("repeatable", repeatable),
        harness::gpu("every_key_type", every_key_type),
        harness::gpu("split_pairs_skipped_passes", split_pairs_skipped_passes),
        harness::gpu("refused_device_keys_untouched", refused_device_keys_untouched),
        harness::gpu("bench_device_radix", bench_device_radix).with_ignored_flag(true),
        harness::gpu("sanitizer_sizes", sanitizer_sizes),
        harness::gpu("sanitizer_large_sets", sanitizer_large_sets),
    ])
}
