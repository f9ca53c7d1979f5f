//! The `radix-device` table: device-resident radix sorts timed with CUDA events, for the CUB
//! comparison and the tuning sweeps of benches/cub/ (`GPUSORT_KERNELS_DIR` loads a candidate).
//!
//! Values are 0..n. A pristine copy is restored before each run (not timed), CUDA events around
//! the sort alone, 3 warm-ups, median of 15; the last timed result is checked. Sizes from
//! `GPUSORT_BENCH_SIZES` (comma-separated, default 16K, 1M, 16M, 64M, 256M); key patterns from
//! `GPUSORT_BENCH_PATTERNS` (random, distinct16, zipf, sorted, equal, half, bucket, onedigit;
//! default random); sorts from `GPUSORT_BENCH_TYPES` (kvp, keys, pairs, keys64: u64 keys alone,
//! pairs64: u64 keys with u32 values; default the first three).
//!
//! Output: a text table on stdout (`n type ours_ms min_ms pattern`, what the sweep scripts grep)
//! and one record per row, group `radix-device`, sort = the type (`record::emit_times`).

use std::sync::Arc;

use gpusort::cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT;
use gpusort::cudarc::driver::{CudaContext, CudaStream};
use gpusort::{check, Kvp, Order, Sorter};
use gpusort_cpu::rng::{splitmix64 as splitmix, SplitMix64};

use crate::inputs::env_sizes;
use crate::record::emit_times;

/// What `time_sort` asks of the sort it times.
#[derive(Clone, Copy)]
enum Step {
    /// Put the pristine input back (not timed).
    Restore,
    /// Sort the input in place (timed).
    Sort,
}

/// CUDA-event times (ms) of 15 sorts, each from a restored input, after 3 warm-ups.
fn time_sort(ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>, mut step: impl FnMut(Step)) -> Vec<f64> {
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
            times.push(a.elapsed_ms(&b).unwrap() as f64);
        }
    }
    times
}

/// Keys of the patterns, with the formulas of `inputs.rs` (`Pattern::key`) and
/// benches/cub/cub_bench.cu for distinct16 and zipf; random is the stream CUB's sweep harness draws.
fn bench_keys(n: usize, pattern: &str) -> Vec<u32> {
    let z = |i: usize| splitmix(n as u64, i as u64);
    match pattern {
        "random" => {
            let mut r = SplitMix64(n as u64);
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
        other => panic!("GPUSORT_BENCH_PATTERNS: unknown pattern {other}"),
    }
}

fn list(var: &str, default: &str) -> Vec<String> {
    std::env::var(var).unwrap_or_else(|_| default.into()).split(',').map(|x| x.trim().to_string()).collect()
}

/// Sorted by key, every value once and on its key, equal keys in value order (values are 0..n).
fn check_split<K: Ord + Copy + std::fmt::Debug>(keys: &[K], out_k: &[K], out_v: &[u32]) {
    assert_eq!(out_k.len(), keys.len(), "length changed");
    let mut seen = vec![false; keys.len()];
    for (j, (key, &value)) in out_k.iter().zip(out_v).enumerate() {
        let v = value as usize;
        assert!(v < keys.len() && !seen[v] && keys[v] == *key, "value {value} at {j} lost its key or is duplicated");
        seen[v] = true;
        if j > 0 {
            let (pk, pv) = (out_k[j - 1], out_v[j - 1]);
            assert!(pk < *key || (pk == *key && pv < value), "not sorted or not stable at {j}");
        }
    }
}

pub fn run(s: &Sorter) {
    let ctx = s.cuda_context().expect("a cuda sorter");
    let stream = ctx.new_stream().unwrap();
    let sizes = env_sizes("GPUSORT_BENCH_SIZES", &[1 << 14, 1 << 20, 1 << 24, 1 << 26, 1 << 28]);
    let patterns = list("GPUSORT_BENCH_PATTERNS", "random");
    let types = list("GPUSORT_BENCH_TYPES", "kvp,keys,pairs");
    println!("{:>10} {:>6} {:>10} {:>10} {:>10}", "n", "type", "ours_ms", "min_ms", "pattern");
    for n in sizes {
        for pattern in &patterns {
            let k = bench_keys(n, pattern);
            let pairs: Vec<Kvp> = k.iter().enumerate().map(|(i, &k)| Kvp::new(k, i as u32)).collect();
            let values: Vec<u32> = (0..n as u32).collect();
            for ty in types.iter().map(String::as_str) {
                // The 64-bit sorts take random keys of their own, whatever the pattern.
                let times = match ty {
                    "keys64" => keys64(s, &ctx, &stream, n),
                    "pairs64" => pairs64(s, &ctx, &stream, n, &values),
                    _ => sort32(s, &ctx, &stream, ty, &k, &pairs, &values),
                };
                let pat = if ty.ends_with("64") { "random" } else { pattern.as_str() };
                let min = times.iter().copied().fold(f64::INFINITY, f64::min);
                let median = emit_times(("radix-device", ty, pat, n), &times, None, &[]);
                println!("{n:>10} {ty:>6} {median:>10.4} {min:>10.4} {pattern:>10}");
            }
        }
    }
}

/// The 32-bit sorts: `kvp` (Kvp items), `keys` (u32 alone), `pairs` (split u32 keys and values).
fn sort32(
    s: &Sorter,
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    ty: &str,
    k: &[u32],
    pairs: &[Kvp],
    values: &[u32],
) -> Vec<f64> {
    assert!(matches!(ty, "kvp" | "keys" | "pairs"), "GPUSORT_BENCH_TYPES: unknown type {ty}");
    let pristine_p = stream.clone_htod(pairs).unwrap();
    let pristine_k = stream.clone_htod(k).unwrap();
    let pristine_v = stream.clone_htod(values).unwrap();
    let mut work_p = stream.clone_htod(pairs).unwrap();
    let mut work_k = stream.clone_htod(k).unwrap();
    let mut work_v = stream.clone_htod(values).unwrap();
    let times = time_sort(ctx, stream, |step| match (step, ty) {
        (Step::Restore, "kvp") => stream.memcpy_dtod(&pristine_p, &mut work_p).unwrap(),
        (Step::Restore, "keys") => stream.memcpy_dtod(&pristine_k, &mut work_k).unwrap(),
        (Step::Restore, _) => {
            stream.memcpy_dtod(&pristine_k, &mut work_k).unwrap();
            stream.memcpy_dtod(&pristine_v, &mut work_v).unwrap();
        }
        (Step::Sort, "kvp") => s.sort_kvp_device(&mut work_p, stream).unwrap(),
        (Step::Sort, "keys") => s.sort_keys_device(&mut work_k, stream).unwrap(),
        (Step::Sort, _) => s.sort_pairs_device(&mut work_k, &mut work_v, stream).unwrap(),
    });
    // The timed result must be right too.
    match ty {
        "kvp" => {
            let out = stream.clone_dtoh(&work_p).unwrap();
            stream.synchronize().unwrap();
            check::validate(pairs, &out, Order::Ascending, true).unwrap();
        }
        "keys" => {
            let out = stream.clone_dtoh(&work_k).unwrap();
            stream.synchronize().unwrap();
            check::validate_keys(k, &out, Order::Ascending).unwrap();
        }
        _ => {
            let (ok, ov) = (stream.clone_dtoh(&work_k).unwrap(), stream.clone_dtoh(&work_v).unwrap());
            stream.synchronize().unwrap();
            check_split(k, &ok, &ov);
        }
    }
    times
}

fn random_keys64(n: usize) -> Vec<u64> {
    (0..n as u64).map(|i| splitmix(!(n as u64), i)).collect()
}

/// u64 keys alone (random), timed and checked as the 32-bit sorts are.
fn keys64(s: &Sorter, ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>, n: usize) -> Vec<f64> {
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
    times
}

/// u64 keys (random) with u32 values 0..n, timed and checked as the 32-bit sorts are.
fn pairs64(s: &Sorter, ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>, n: usize, values: &[u32]) -> Vec<f64> {
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
    check_split(&keys, &ok, &ov);
    times
}
