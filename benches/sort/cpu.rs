//! The `cpu` group: gpusort's CPU backend against std, rayon, voracious and rdst.

use std::cmp::Ordering as CmpOrdering;
use std::time::Instant;

use criterion::Criterion;
use gpusort::{Kvp, Sorter};
use rayon::prelude::*;

use crate::inputs::{check_pairs, env_sizes, par_copy, Pattern, PATTERNS};
use crate::record::{bench_one, configure, emit_meta};

fn cpu_sizes(p: Pattern) -> Vec<usize> {
    match p {
        Pattern::Random => env_sizes("GPUSORT_BENCH_CPU_SIZES", &[1 << 14, 1 << 20, 1 << 24]),
        _ => env_sizes("GPUSORT_BENCH_CPU_PATTERN_SIZES", &[1 << 20]),
    }
}
/// A `Kvp` twin with the traits voracious and rdst need (a bench cannot implement them for
/// `Kvp`), all on the key only.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct Pair {
    key: u32,
    value: u32,
}

impl PartialEq for Pair {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl PartialOrd for Pair {
    fn partial_cmp(&self, other: &Self) -> Option<CmpOrdering> {
        self.key.partial_cmp(&other.key)
    }
}

impl voracious_radix_sort::Radixable<u32> for Pair {
    type Key = u32;
    fn key(&self) -> u32 {
        self.key
    }
}

impl rdst::RadixKey for Pair {
    const LEVELS: usize = 4;
    fn get_level(&self, level: usize) -> u8 {
        (self.key >> (8 * level)) as u8
    }
}

#[derive(Clone, Copy)]
enum CpuSort {
    Ours,
    StdStable,
    StdUnstable,
    RayonStable,
    RayonUnstable,
    Voracious,
    Rdst,
}

const CPU_SORTS: &[(CpuSort, &str, bool)] = &[
    (CpuSort::Ours, "gpusort", true),
    (CpuSort::StdStable, "std-stable", true),
    (CpuSort::StdUnstable, "std-unstable", false),
    (CpuSort::RayonStable, "rayon-stable", true),
    (CpuSort::RayonUnstable, "rayon-unstable", false),
    (CpuSort::Voracious, "voracious-mt", false),
    (CpuSort::Rdst, "rdst", false),
];

impl CpuSort {
    fn run(self, v: &mut [Kvp], pairs: &mut [Pair]) {
        use rdst::RadixSort;
        use voracious_radix_sort::RadixSort as _;
        match self {
            CpuSort::Ours => Sorter::cpu().sort_kvp(v).expect("cpu sort"),
            CpuSort::StdStable => v.sort_by_key(|p| p.key),
            CpuSort::StdUnstable => v.sort_unstable_by_key(|p| p.key),
            CpuSort::RayonStable => v.par_sort_by_key(|p| p.key),
            CpuSort::RayonUnstable => v.par_sort_unstable_by_key(|p| p.key),
            CpuSort::Voracious => pairs.voracious_mt_sort(rayon::current_num_threads()),
            CpuSort::Rdst => pairs.radix_sort_unstable(),
        }
    }

    fn on_pairs(self) -> bool {
        matches!(self, CpuSort::Voracious | CpuSort::Rdst)
    }
}

/// The input in both layouts; each sort restores and sorts the one it takes.
struct CpuInputs {
    input: Vec<Kvp>,
    work: Vec<Kvp>,
    pairs_in: Vec<Pair>,
    pairs: Vec<Pair>,
}

impl CpuInputs {
    fn new(p: Pattern, n: usize) -> Result<Self, String> {
        let input = p.kvps(n, 0);
        let pairs_in: Vec<Pair> = input.par_iter().map(|x| Pair { key: x.key, value: x.value }).collect();
        Ok(CpuInputs { work: input.clone(), pairs: pairs_in.clone(), input, pairs_in })
    }

    fn restore(&mut self, sort: CpuSort) {
        if sort.on_pairs() {
            par_copy(&mut self.pairs, &self.pairs_in);
        } else {
            par_copy(&mut self.work, &self.input);
        }
    }

    fn check(&mut self, sort: CpuSort, stable: bool) -> Result<(), String> {
        self.restore(sort);
        sort.run(&mut self.work, &mut self.pairs);
        if sort.on_pairs() {
            let out: Vec<Kvp> = self.pairs.par_iter().map(|x| Kvp::new(x.key, x.value)).collect();
            return check_pairs(&self.input, &out, stable);
        }
        check_pairs(&self.input, &self.work, stable)
    }

    fn time(&mut self, iters: u64, times: &mut Vec<f64>, sort: CpuSort) {
        for _ in 0..iters {
            self.restore(sort);
            let t = Instant::now();
            sort.run(&mut self.work, &mut self.pairs);
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
}

pub fn cpu(c: &mut Criterion) {
    emit_meta("cpu", &Sorter::cpu().describe());
    let only = std::env::var("GPUSORT_BENCH_CPU_SORTS").ok();
    let sorts: Vec<_> =
        CPU_SORTS.iter().filter(|s| only.as_deref().is_none_or(|o| o.split(',').any(|t| t.trim() == s.1))).collect();
    let mut g = c.benchmark_group("cpu");
    configure(&mut g, 500, 3000);
    for p in PATTERNS {
        for n in cpu_sizes(p) {
            let mut inputs: Option<Result<CpuInputs, String>> = None;
            for &&(sort, name, stable) in &sorts {
                bench_one(
                    &mut g,
                    ("cpu", name, p, n),
                    &mut inputs,
                    || CpuInputs::new(p, n),
                    |s| s.check(sort, stable),
                    |s, iters, t| s.time(iters, t, sort),
                );
            }
        }
    }
    g.finish();
}
