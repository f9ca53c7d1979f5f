//! CPU sorts at 16M items: ours against rayon, voracious and rdst; and keys-only sorts (the vector
//! sort) at 64K and 1M against the radix path, sort_unstable, rdst and voracious.
//!
//! Every iteration sorts a fresh copy of the input (iter_batched, LargeInput), so an input that is
//! sorted stays sorted only for the first run of each sort, never across runs.

use std::cmp::Ordering;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use gpusort_cpu::{sort_keys, sort_stable, Keyed, Order};
use rayon::slice::ParallelSliceMut;
use rdst::{RadixKey, RadixSort};
use voracious_radix_sort::{RadixSort as VoraciousSort, Radixable};

const N: usize = 1 << 24;

/// A Kvp twin with the comparison traits each competitor needs, all on the key only.
#[derive(Clone, Copy, Debug)]
struct Pair {
    key: u32,
    #[allow(dead_code)] // rides along with its key; only the sort reads it
    value: u32,
}

impl Keyed for Pair {
    type Key = u32;
    fn sort_key(&self) -> u32 {
        self.key
    }
}

impl PartialEq for Pair {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl PartialOrd for Pair {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.key.partial_cmp(&other.key)
    }
}

impl Radixable<u32> for Pair {
    type Key = u32;
    fn key(&self) -> u32 {
        self.key
    }
}

impl RadixKey for Pair {
    const LEVELS: usize = 4;
    fn get_level(&self, level: usize) -> u8 {
        (self.key >> (8 * level)) as u8
    }
}

/// splitmix64: seeded, fast, good enough for benchmark inputs.
fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut r = gpusort_cpu::rng::SplitMix64(seed);
    move || r.next()
}

fn pairs(keys: impl Iterator<Item = u32>) -> Vec<Pair> {
    keys.enumerate().map(|(i, key)| Pair { key, value: i as u32 }).collect()
}

fn random_keys(seed: u64) -> Vec<u32> {
    let mut r = rng(seed);
    (0..N).map(|_| r() as u32).collect()
}

fn bench(c: &mut Criterion) {
    let threads = rayon::current_num_threads();
    let mut g = c.benchmark_group("cpu16m");
    g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Elements(N as u64));

    let random = pairs(random_keys(1).into_iter());
    let mut r = rng(2);
    let distinct: Vec<u32> = (0..16).map(|_| r() as u32).collect();
    let patterns: Vec<(&str, Vec<Pair>)> = vec![
        ("random", random.clone()),
        ("sorted", pairs(0..N as u32)),
        ("reverse", pairs((0..N as u32).rev())),
        ("all-equal", pairs(std::iter::repeat_n(0x1234_5678, N))),
        ("16-distinct", pairs((0..N).map(|_| distinct[(r() % 16) as usize]))),
    ];
    for (name, input) in &patterns {
        g.bench_with_input(BenchmarkId::new("kvp-ours-stable", name), input, |b, v| {
            b.iter_batched(|| v.clone(), |mut v| sort_stable(&mut v, Order::Ascending).unwrap(), BatchSize::LargeInput)
        });
        g.bench_with_input(BenchmarkId::new("kvp-rayon-unstable", name), input, |b, v| {
            b.iter_batched(|| v.clone(), |mut v| v.par_sort_unstable_by_key(|p| p.key), BatchSize::LargeInput)
        });
        g.bench_with_input(BenchmarkId::new("kvp-voracious-mt", name), input, |b, v| {
            b.iter_batched(|| v.clone(), |mut v| v.voracious_mt_sort(threads), BatchSize::LargeInput)
        });
        if *name == "random" {
            g.bench_with_input(BenchmarkId::new("kvp-rdst", name), input, |b, v| {
                b.iter_batched(|| v.clone(), |mut v| v.radix_sort_unstable(), BatchSize::LargeInput)
            });
        }
    }

    let keys = random_keys(3);
    g.bench_function(BenchmarkId::new("u32-ours", "random"), |b| {
        b.iter_batched(|| keys.clone(), |mut v| sort_keys(&mut v, Order::Ascending).unwrap(), BatchSize::LargeInput)
    });
    g.bench_function(BenchmarkId::new("u32-voracious-mt", "random"), |b| {
        b.iter_batched(|| keys.clone(), |mut v| v.voracious_mt_sort(threads), BatchSize::LargeInput)
    });
    g.bench_function(BenchmarkId::new("u32-rdst", "random"), |b| {
        b.iter_batched(|| keys.clone(), |mut v| v.radix_sort_unstable(), BatchSize::LargeInput)
    });
    g.finish();

    // Small inputs take the sequential path: no presort scan in parallel, no MSD pass.
    let mut g = c.benchmark_group("cpu16k");
    g.sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1));
    g.throughput(Throughput::Elements(1 << 14));
    let small = pairs(random_keys(4).into_iter().take(1 << 14));
    g.bench_function("kvp-ours-stable", |b| {
        b.iter_batched(|| small.clone(), |mut v| sort_stable(&mut v, Order::Ascending).unwrap(), BatchSize::SmallInput)
    });
    g.bench_function("kvp-rayon-unstable", |b| {
        b.iter_batched(|| small.clone(), |mut v| v.par_sort_unstable_by_key(|p| p.key), BatchSize::SmallInput)
    });
    g.finish();
}

/// One key type's keys-only sorts: ours (the vector sort where the machine has one), ours on the
/// radix path, sort_unstable (one thread), rdst and voracious (all cores).
fn keys_group<K>(c: &mut Criterion, name: &str, keys: Vec<K>)
where
    K: gpusort_cpu::SortKey + PartialOrd + RadixKey + Radixable<K> + voracious_radix_sort::RadixKey,
{
    let threads = rayon::current_num_threads();
    let mut g = c.benchmark_group(format!("cpu-keys-{}", keys.len()));
    g.sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1));
    g.throughput(Throughput::Elements(keys.len() as u64));
    let batch = if keys.len() <= 1 << 16 { BatchSize::SmallInput } else { BatchSize::LargeInput };
    g.bench_function(BenchmarkId::new(format!("{name}-ours"), "random"), |b| {
        b.iter_batched(|| keys.clone(), |mut v| sort_keys(&mut v, Order::Ascending).unwrap(), batch)
    });
    g.bench_function(BenchmarkId::new(format!("{name}-ours-radix"), "random"), |b| {
        b.iter_batched(
            || keys.clone(),
            |mut v| gpusort_cpu::sort_keys_on(&mut v, Order::Ascending, gpusort_cpu::simd::Isa::Portable).unwrap(),
            batch,
        )
    });
    g.bench_function(BenchmarkId::new(format!("{name}-sort-unstable"), "random"), |b| {
        b.iter_batched(
            || keys.clone(),
            |mut v| v.sort_unstable_by(|a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal)),
            batch,
        )
    });
    g.bench_function(BenchmarkId::new(format!("{name}-rdst"), "random"), |b| {
        b.iter_batched(|| keys.clone(), |mut v| v.radix_sort_unstable(), batch)
    });
    g.bench_function(BenchmarkId::new(format!("{name}-voracious-mt"), "random"), |b| {
        b.iter_batched(|| keys.clone(), |mut v| v.voracious_mt_sort(threads), batch)
    });
    g.finish();
}

fn bench_keys(c: &mut Criterion) {
    for n in [1usize << 16, 1 << 20] {
        let mut r = rng(5);
        keys_group(c, "u32", (0..n).map(|_| r() as u32).collect::<Vec<u32>>());
        keys_group(c, "f32", (0..n).map(|_| (r() as u32 as f32) / 3.0 - 7e8).collect::<Vec<f32>>());
        keys_group(c, "u64", (0..n).map(|_| r()).collect::<Vec<u64>>());
    }
}

criterion_group!(benches, bench, bench_keys);
criterion_main!(benches);
