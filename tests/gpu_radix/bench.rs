//! `bench_device_radix` (ignored): the device-resident radix sorts timed with CUDA events after
//! warm-up, median of many runs, for the CUB comparison in ci/cub/.

use super::*;

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
pub fn bench_device_radix() {
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
