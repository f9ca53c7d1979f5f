//! Host-to-host timings of single calls, wall clock around the whole call:
//! - `first-call`: context creation and the first sort of the process (run it first: another
//!   table before it loads the modules and fills the pools);
//! - `crossover`: where the GPU, transfers included, beats the CPU backend on all cores, per
//!   algorithm and item shape, 1K to 16M random items (the table for `src/tuning.rs`);
//! - `pool-kept`: what keeping device memory in the allocator's pool saves.
//!
//! Medians after warm-up; each repetition sorts a fresh copy of the same input (the copy is not
//! timed). Records (`record::emit_times`): `first-call` sorts `open` (n 0), `first-sort` and
//! `warm-sort` (1M Kvp); `crossover` sorts `cuda` and `cpu` with `config`
//! (`<shape>-<algorithm>`) and `winner`; `pool-kept` sorts `release-0` and `keep-4GiB` (n = bytes).

use std::time::{Duration, Instant};

use gpusort::cudarc::driver::{result, sys};
use gpusort::{check, Algorithm, Kvp, Order, Sorter};
use gpusort_cpu::rng::SplitMix64;
use serde_json::json;

use crate::record::{emit_times, median};

/// Wall-clock times (ms) of `f` over `reps` runs (after `warm`) on fresh copies of `input`.
fn time_sort<T: Copy>(input: &[T], work: &mut [T], warm: usize, reps: usize, mut f: impl FnMut(&mut [T])) -> Vec<f64> {
    let mut times = Vec::with_capacity(reps);
    for r in 0..warm + reps {
        work.copy_from_slice(input);
        let t = Instant::now();
        f(work);
        if r >= warm {
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    times
}

/// Random pairs, values their positions: the test suites' generator (`tests/common`, `kvp_input`).
fn kvp_input(n: usize, seed: u64) -> Vec<Kvp> {
    let mut r = SplitMix64(seed ^ (n as u64).rotate_left(17));
    (0..n).map(|i| Kvp::new((r.next() >> 32) as u32, i as u32)).collect()
}

/// The oracle's permutation check hashes every item: seconds at 256M. Past 16M only the order
/// is checked (the test suites check the rest).
fn check_kvp(input: &[Kvp], out: &[Kvp], stable: bool) {
    if input.len() <= 16 << 20 {
        check::validate(input, out, Order::Ascending, stable).unwrap();
    } else {
        assert!(check::is_sorted(out, Order::Ascending), "result not sorted");
    }
}

/// `open`: how long the process's first `Sorter::cuda()` took (driver, context).
pub fn first_call(s: &Sorter, open: Duration) {
    let open = open.as_secs_f64() * 1e3;
    let n = 1 << 20;
    let input = kvp_input(n, 41);
    let mut v = input.clone();
    let t = Instant::now();
    s.sort_kvp(&mut v).unwrap();
    let first = t.elapsed().as_secs_f64() * 1e3;
    check::validate(&input, &v, Order::Ascending, true).unwrap();
    let mut work = input.clone();
    let times = time_sort(&input, &mut work, 3, 21, |v| s.sort_kvp(v).unwrap());
    emit_times(("first-call", "open", "none", 0), &[open], None, &[]);
    emit_times(("first-call", "first-sort", "random", n), &[first], None, &[]);
    let warm = emit_times(("first-call", "warm-sort", "random", n), &times, None, &[]);
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

/// Host-to-host times (ms) of the GPU and of the CPU backend at `n`, for one configuration.
fn race(shape: Shape, n: usize, gpu: &Sorter) -> (Vec<f64>, Vec<f64>) {
    let reps = ((1usize << 23) / n.max(1)).clamp(5, 101);
    let cpu = Sorter::cpu();
    let pairs = kvp_input(n, 42);
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
        Shape::PairsU64 => race_split(&u64_keys(&pairs), &pairs, reps, gpu, &cpu),
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
fn race_keys<K: gpusort::Key>(input: Vec<K>, reps: usize, gpu: &Sorter, cpu: &Sorter) -> (Vec<f64>, Vec<f64>) {
    let mut work = input.clone();
    let g = time_sort(&input, &mut work, 2, reps, |v| gpu.sort_keys(v).unwrap());
    check::validate_keys(&input, &work, Order::Ascending).unwrap();
    let c = time_sort(&input, &mut work, 2, reps, |v| cpu.sort_keys(v).unwrap());
    (g, c)
}

/// `race` for split pairs: `keys` with the values of `pairs`.
fn race_split<K: gpusort::Key + Ord>(
    keys: &[K],
    pairs: &[Kvp],
    reps: usize,
    gpu: &Sorter,
    cpu: &Sorter,
) -> (Vec<f64>, Vec<f64>) {
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
        times
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

pub fn crossover(s: &Sorter) {
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    println!("crossover, host to host, random input, median ms; CPU = the CPU backend on {threads} threads");
    let configs = [
        ("Kvp radix", "kvp-radix", Shape::Kvp, Algorithm::Radix),
        ("u32 keys radix", "keys-u32-radix", Shape::KeysU32, Algorithm::Radix),
        ("u32 pairs radix", "pairs-u32-radix", Shape::PairsU32, Algorithm::Radix),
        ("u64 keys radix", "keys-u64-radix", Shape::KeysU64, Algorithm::Radix),
        ("u64 pairs radix", "pairs-u64-radix", Shape::PairsU64, Algorithm::Radix),
        ("Kvp bitonic", "kvp-bitonic", Shape::Kvp, Algorithm::Bitonic),
        ("Kvp odd-even", "kvp-odd-even", Shape::Kvp, Algorithm::OddEvenMerge),
    ];
    let sizes: Vec<usize> = (10..=24).map(|e| 1usize << e).collect();
    let mut table = Vec::new();
    for (name, id, shape, alg) in configs {
        let g = s.clone().with_algorithm(alg);
        let rows: Vec<(usize, f64, f64)> = sizes
            .iter()
            .map(|&n| {
                let (gt, ct) = race(shape, n, &g);
                let (gm, cm) = (median(&gt), median(&ct));
                let extra = [("config", json!(id)), ("winner", json!(if gm < cm { "gpu" } else { "cpu" }))];
                emit_times(("crossover", "cuda", "random", n), &gt, None, &extra);
                emit_times(("crossover", "cpu", "random", n), &ct, None, &extra);
                (n, gm, cm)
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

/// Times (ms) to allocate and free `bytes` on a stream with the default pool's release
/// threshold at `keep` (0: the driver default, memory goes back at every synchronisation).
fn pool_round(s: &Sorter, bytes: usize, keep: u64) -> Vec<f64> {
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
    times
}

pub fn pool_kept(s: &Sorter) {
    let gib = 1usize << 30;
    let cold = emit_times(("pool-kept", "release-0", "none", gib), &pool_round(s, gib, 0), None, &[]);
    let kept = emit_times(("pool-kept", "keep-4GiB", "none", gib), &pool_round(s, gib, 4 << 30), None, &[]);
    println!("device alloc + memset + free of 1 GiB on a stream: {cold:.3} ms with the pool's default release threshold (0), {kept:.3} ms with 4 GiB kept");
}
