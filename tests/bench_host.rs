//! Host-to-host timings on the GPU machine (ignored here; `ci/gpu.sh run` with
//! GPUSORT_TIMINGS=1 runs every test named `bench_*`, one at a time, in name order):
//! - `bench_host_0_first_call`: context creation and the first sort of a process;
//! - `bench_host_crossover`: where the GPU, transfers included, beats the CPU backend on all
//!   cores, per algorithm and key type (the table for `tuning.rs`);
//! - `bench_host_pool_kept`: what keeping device memory in the allocator's pool saves.
//!
//! The host-to-host and out-of-core tables against the PCIe floor are the bench's
//! (`benches/sort/host.rs`, `GPUSORT_BENCH_HOST=only ci/gpu.sh report`).
//!
//! Times are wall clock around the whole call, medians after warm-up; each repetition sorts a
//! fresh copy of the same random input (the copy is not timed).

mod common;

use std::time::Instant;

use common::*;
use gpusort::cudarc::driver::{result, sys};
use gpusort::{check, Algorithm, Kvp, Order, Sorter};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Median milliseconds of `f` over `reps` runs (after `warm`) on fresh copies of `input`.
fn time_sort<T: Copy>(input: &[T], work: &mut [T], warm: usize, reps: usize, mut f: impl FnMut(&mut [T])) -> f64 {
    let mut times = Vec::with_capacity(reps);
    for r in 0..warm + reps {
        work.copy_from_slice(input);
        let t = Instant::now();
        f(work);
        if r >= warm {
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    median(times)
}

/// The oracle's permutation check hashes every item: seconds at 256M. Past 16M the bench checks
/// the order only (the test suites check the rest).
fn check_kvp(input: &[Kvp], out: &[Kvp], stable: bool) {
    if input.len() <= 16 << 20 {
        check::validate(input, out, Order::Ascending, stable).unwrap();
    } else {
        assert!(check::is_sorted(out, Order::Ascending), "result not sorted");
    }
}

fn gpu() -> Option<Sorter> {
    cuda_or_skip("host timings")
}

fn bench_host_0_first_call() {
    let Some(s) = gpu() else { return };
    let open = harness::first_open().as_secs_f64() * 1e3;
    let input = kvp_input(1 << 20, Pattern::Random, 41);
    let mut v = input.clone();
    let t = Instant::now();
    s.sort_kvp(&mut v).unwrap();
    let first = t.elapsed().as_secs_f64() * 1e3;
    check::validate(&input, &v, Order::Ascending, true).unwrap();
    let mut work = input.clone();
    let warm = time_sort(&input, &mut work, 3, 21, |v| s.sort_kvp(v).unwrap());
    println!("first call: open {open:.1} ms (driver, context), first 1M Kvp sort {first:.1} ms (modules, pinned and device allocations); warm 1M sort {warm:.3} ms; target: open + first < 300 ms");
}

/// What a crossover row sorts: the item shapes `auto()` tells apart (src/tuning.rs).
#[derive(Clone, Copy)]
enum Shape {
    Kvp,
    KeysU32,
    KeysU64,
    PairsU32,
    PairsU64,
}

/// Host-to-host medians (ms) of the GPU and of the CPU backend at `n`, for one configuration.
fn race(shape: Shape, n: usize, gpu: &Sorter) -> (f64, f64) {
    let reps = ((1usize << 23) / n.max(1)).clamp(5, 101);
    let cpu = Sorter::cpu();
    let pairs = kvp_input(n, Pattern::Random, 42);
    match shape {
        Shape::Kvp => {
            let mut work = pairs.clone();
            let g = time_sort(&pairs, &mut work, 2, reps, |v| gpu.sort_kvp(v).unwrap());
            check_kvp(&pairs, &work, gpu.algorithm().is_stable());
            let c = time_sort(&pairs, &mut work, 2, reps, |v| cpu.sort_kvp(v).unwrap());
            (g, c)
        }
        Shape::KeysU32 => race_keys(pairs.iter().map(|p| p.key).collect(), reps, gpu, &cpu),
        Shape::KeysU64 => race_keys(u64_keys(&pairs), reps, gpu, &cpu),
        Shape::PairsU64 => {
            let keys: Vec<u64> =
                pairs.iter().map(|p| ((p.key as u64) << 32) | (p.value as u64 ^ 0x9e37_79b9)).collect();
            race_split(&keys, &pairs, reps, gpu, &cpu)
        }
        Shape::PairsU32 => {
            let keys: Vec<u32> = pairs.iter().map(|p| p.key).collect();
            race_split(&keys, &pairs, reps, gpu, &cpu)
        }
    }
}

/// Random 64-bit keys: each pair's key in the high half, a scrambled value in the low one.
fn u64_keys(pairs: &[Kvp]) -> Vec<u64> {
    pairs.iter().map(|p| ((p.key as u64) << 32) | (p.value as u64 ^ 0x9e37_79b9)).collect()
}

/// `race` for keys alone.
fn race_keys<K: gpusort::Key>(input: Vec<K>, reps: usize, gpu: &Sorter, cpu: &Sorter) -> (f64, f64) {
    let mut work = input.clone();
    let g = time_sort(&input, &mut work, 2, reps, |v| gpu.sort_keys(v).unwrap());
    check::validate_keys(&input, &work, Order::Ascending).unwrap();
    let c = time_sort(&input, &mut work, 2, reps, |v| cpu.sort_keys(v).unwrap());
    (g, c)
}

/// `race` for split pairs: `keys` with the values of `pairs`.
fn race_split<K: gpusort::Key + Ord>(keys: &[K], pairs: &[Kvp], reps: usize, gpu: &Sorter, cpu: &Sorter) -> (f64, f64) {
    let values: Vec<u32> = pairs.iter().map(|p| p.value).collect();
    let (mut k, mut v) = (keys.to_vec(), values.clone());
    let time = |s: &Sorter, k: &mut [K], v: &mut [u32]| {
        let mut times = Vec::with_capacity(reps);
        for r in 0..2 + reps {
            k.copy_from_slice(keys);
            v.copy_from_slice(&values);
            let t = Instant::now();
            s.sort_pairs(k, v).unwrap();
            if r >= 2 {
                times.push(t.elapsed().as_secs_f64() * 1e3);
            }
        }
        median(times)
    };
    let g = time(gpu, &mut k, &mut v);
    // Sorted by key, and every value still with its key (values are unique: 0..n).
    assert!(k.windows(2).all(|w| w[0] <= w[1]), "split pairs not sorted");
    let mut seen = vec![false; keys.len()];
    for (key, &value) in k.iter().zip(&v) {
        assert!(keys[value as usize] == *key && !seen[value as usize], "value {value} lost its key");
        seen[value as usize] = true;
    }
    let c = time(cpu, &mut k, &mut v);
    (g, c)
}

fn bench_host_crossover() {
    let Some(s) = gpu() else { return };
    println!("crossover, host to host, random input, median ms; CPU = the CPU backend on {} threads", rayon_threads());
    let configs = [
        ("Kvp radix", Shape::Kvp, Algorithm::Radix),
        ("u32 keys radix", Shape::KeysU32, Algorithm::Radix),
        ("u32 pairs radix", Shape::PairsU32, Algorithm::Radix),
        ("u64 keys radix", Shape::KeysU64, Algorithm::Radix),
        ("u64 pairs radix", Shape::PairsU64, Algorithm::Radix),
        ("Kvp bitonic", Shape::Kvp, Algorithm::Bitonic),
        ("Kvp odd-even", Shape::Kvp, Algorithm::OddEvenMerge),
    ];
    let sizes: Vec<usize> = (10..=24).map(|e| 1usize << e).collect();
    let mut table = Vec::new();
    for (name, shape, alg) in configs {
        let g = s.clone().with_algorithm(alg);
        let rows: Vec<(usize, f64, f64)> = sizes
            .iter()
            .map(|&n| {
                let (gt, ct) = race(shape, n, &g);
                (n, gt, ct)
            })
            .collect();
        println!("{name}:");
        for &(n, gt, ct) in &rows {
            println!("  n={n:>9}  gpu {gt:>9.3}  cpu {ct:>9.3}  {}", if gt < ct { "gpu" } else { "cpu" });
        }
        // The smallest size from which the GPU wins at every larger size measured.
        let from = (0..rows.len()).rev().take_while(|&i| rows[i].1 < rows[i].2).last();
        table.push((name, from.map(|i| rows[i])));
    }
    println!("crossover table (for src/tuning.rs): smallest power of two from which the GPU wins at every larger one up to 2^24");
    for (name, row) in table {
        match row {
            Some((n, gt, ct)) => println!("  {name:<15} {n:>9} items  (gpu {gt:.3} ms vs cpu {ct:.3} ms there)"),
            None => println!("  {name:<15}      none (the CPU wins at 2^24)"),
        }
    }
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// Milliseconds to allocate and free `bytes` on a stream with the default pool's release
/// threshold at `keep` (0: the driver default, memory goes back at every synchronisation).
fn pool_round(s: &Sorter, bytes: usize, keep: u64) -> f64 {
    let ctx = s.cuda_context().expect("a cuda sorter");
    let stream = ctx.new_stream().unwrap();
    let mut keep = keep;
    // SAFETY: the device is the context's; the attribute takes a u64.
    unsafe {
        let pool = result::device::get_default_mem_pool(ctx.cu_device()).unwrap();
        result::mem_pool::set_attribute(
            pool,
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            &mut keep as *mut u64 as *mut std::ffi::c_void,
        )
        .unwrap();
    }
    let mut times = Vec::new();
    for r in 0..7 {
        let t = Instant::now();
        // SAFETY: never read.
        let buf = unsafe { stream.alloc::<u8>(bytes) }.unwrap();
        stream.memset_zeros(&mut { buf }).unwrap();
        stream.synchronize().unwrap();
        if r >= 2 {
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    median(times)
}

fn bench_host_pool_kept() {
    let Some(s) = gpu() else { return };
    let gib = 1usize << 30;
    let cold = pool_round(&s, gib, 0);
    let kept = pool_round(&s, gib, 4 << 30);
    println!("device alloc + memset + free of 1 GiB on a stream: {cold:.3} ms with the pool's default release threshold (0), {kept:.3} ms with 4 GiB kept");
}

fn main() -> std::process::ExitCode {
    harness::run(vec![
        harness::gpu("bench_host_0_first_call", bench_host_0_first_call).with_ignored_flag(true),
        harness::gpu("bench_host_crossover", bench_host_crossover).with_ignored_flag(true),
        harness::gpu("bench_host_pool_kept", bench_host_pool_kept).with_ignored_flag(true),
    ])
}
