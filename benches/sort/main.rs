//! `cargo bench`: gpusort on the GPU with the data already on the device (CUDA events around the
//! sort alone) and host to host, and its CPU backend against std, rayon, voracious and rdst.
//!
//! Benchmark ids are `<group>/<sort>/<pattern>/<n>`; filter with `cargo bench -- <regex>`, e.g.
//! `cuda-device/radix`, `cuda-host/`, `cpu/rdst`, `/zipf/`. Groups: `cuda-device` (radix,
//! radix-keys, bitonic, odd-even; before them the radix sort's other key types and orders,
//! `shapes.rs`), `cuda-host` (same sorts through `Sorter::sort_kvp`), `cpu`;
//! before them, the host tables (`host.rs`: groups `host-bw`, `host`, `records`, `argsort-host`,
//! `argsort-device`, `lexsort-host`, `lexsort-device`, `byte-keys-host`, `byte-keys-device`, `out-of-core`, a plain timing loop, a few minutes on the H200), which run when no filter is given or the filter
//! starts with `host` or `out-of-core`. Without a GPU the cuda groups and the host tables print
//! `skipped: no CUDA device` and measure nothing.
//!
//! The tuning tables (`first-call`, `crossover`, `pool-kept`, `radix-device`, `networks`) run only
//! when `GPUSORT_BENCH_TABLES` names them, e.g. `GPUSORT_BENCH_HOST=only
//! GPUSORT_BENCH_TABLES=radix-device` (the sweeps of benches/cub/ and benches/net/).
//!
//! Inputs are (u32 key, u32 value = index) pairs in six patterns (`Pattern`), generated with the
//! same splitmix64 formula as `benches/cub/cub_bench.cu` and `ci/report.py`, so CUB and torch sort the
//! same data. Uniform random runs at every size of the seed's GTX 680 table (16K..64M, plus 256M
//! for radix); the other patterns at fewer sizes. Every configuration's first result is checked
//! before it is timed.
//!
//! Environment (all optional): `GPUSORT_BENCH_JSON=<file>` appends one JSON line per measurement
//! (what `ci/report.py` reads); `GPUSORT_BENCH_FAST=1` shortens warm-up and measurement (the
//! report run); size lists, comma-separated, empty for none: `GPUSORT_BENCH_SIZES` (random, GPU),
//! `GPUSORT_BENCH_PATTERN_SIZES` (other patterns, GPU), `GPUSORT_BENCH_RADIX_EXTRA` (random, radix
//! only), `GPUSORT_BENCH_CPU_SIZES`, `GPUSORT_BENCH_CPU_PATTERN_SIZES`; `GPUSORT_BENCH_CPU_SORTS`
//! (names of the CPU sorts to run, default all); `GPUSORT_BENCH_SHAPE_SIZES` (the other radix
//! shapes, `shapes.rs`).
//!
//! The host tables: `GPUSORT_BENCH_HOST` = `0` (never), `1` (always), `only` (the host tables and
//! nothing else); `GPUSORT_BENCH_HOST_SIZES` (Kvp, default 1M,16M,64M,256M,512M,1G),
//! `GPUSORT_BENCH_HOST_SPLIT_SIZES` (split u32 pairs and u32 keys, default 64M,256M),
//! `GPUSORT_BENCH_HOST_LOCKED_SIZES` (Kvp in page-locked memory, default 1M,16M,64M,256M,512M;
//! split u32 pairs in page-locked memory run at the split sizes),
//! `GPUSORT_BENCH_HOST_CPU_MAX` (the CPU backend beside them up to this n, default 256M),
//! `GPUSORT_BENCH_OOC_N` (out-of-core pairs, default 512M, 0 for none),
//! `GPUSORT_BENCH_OOC_BUDGETS` (device budgets in MiB, `none` for no limit, default
//! 256,512,2048,none), `GPUSORT_BENCH_HOST_REPS` (timed runs of every row, after one warm-up;
//! default 11 down to 3 with n), `GPUSORT_BENCH_BW_MIB` (the pinned copies that set the floor,
//! default 512), `GPUSORT_BENCH_SEGMENTS_N` and `GPUSORT_BENCH_SEGMENTS_LENGTHS` (the segmented
//! sorts, `segments.rs`), `GPUSORT_BENCH_TOPK_N` (`topk.rs`), `GPUSORT_BENCH_ARGSORT_SIZES` and
//! `GPUSORT_BENCH_ARGSORT_DEVICE_SIZES` (the argsort table, `argsort.rs`), `GPUSORT_BENCH_LEXSORT_SIZES`,
//! `GPUSORT_BENCH_LEXSORT_DEVICE_SIZES` (the lexsort table, `lexsort.rs`), `GPUSORT_BENCH_BYTES_HOST_SIZES`,
//! `GPUSORT_BENCH_BYTES_DEVICE_SIZES` (the byte-keys table, `byte_keys.rs`), `GPUSORT_BENCH_EMBED_SIZES`
//! (`embed.rs`), `GPUSORT_BENCH_LOWMEM_GIB`, `GPUSORT_BENCH_LOWMEM_FILLS`, `GPUSORT_BENCH_LOWMEM_FULL`
//! (`lowmem.rs`). Sizes are item counts (1M = 1048576).

mod argsort;
mod byte_keys;
mod cpu;
mod embed;
mod host;
mod host_calls;
mod inputs;
mod lexsort;
mod lowmem;
mod multi;
mod networks;
mod radix_device;
mod record;
mod records;
mod segments;
mod shapes;
mod small_keys;
mod topk;

use std::sync::Arc;
use std::time::Instant;

use criterion::{criterion_group, Criterion};
use gpusort::cudarc::driver::sys::CUevent_flags;
use gpusort::cudarc::driver::{CudaEvent, CudaSlice, CudaStream, DeviceRepr};
use gpusort::{Algorithm, Kvp, SortError, Sorter};

use inputs::{check_keys, check_pairs, env_sizes, par_copy, Pattern, PATTERNS};
use record::{bench_one, configure, emit_meta, fast};

/// The seed's GTX 680 table: 16K to 64M pairs, every power of two.
fn seed_sizes() -> Vec<usize> {
    (14..=26).map(|b| 1usize << b).collect()
}

/// Sizes per pattern for the GPU groups: random at every seed size, the others at three.
fn gpu_sizes(p: Pattern) -> Vec<usize> {
    match p {
        Pattern::Random => env_sizes("GPUSORT_BENCH_SIZES", &seed_sizes()),
        _ => env_sizes("GPUSORT_BENCH_PATTERN_SIZES", &[1 << 20, 1 << 24, 1 << 26]),
    }
}

fn radix_extra(p: Pattern) -> Vec<usize> {
    if p == Pattern::Random {
        env_sizes("GPUSORT_BENCH_RADIX_EXTRA", &[1 << 28])
    } else {
        Vec::new()
    }
}

// ---------------------------------------------------------------------------------------------
// GPU, device-resident

/// Inputs on the device, rotated so no run finds the previous one's data in L2 (60 MB on H200).
struct DeviceInputs<T: DeviceRepr> {
    stream: Arc<CudaStream>,
    inputs: Vec<CudaSlice<T>>,
    next: usize,
    work: CudaSlice<T>,
    start: CudaEvent,
    end: CudaEvent,
}

impl<T: DeviceRepr + Copy> DeviceInputs<T> {
    fn new(s: &Sorter, n: usize, make: impl Fn(u64) -> Vec<T>) -> Result<Self, String> {
        let e = |e: gpusort::cudarc::driver::DriverError| e.to_string();
        let ctx = s.cuda_context().ok_or("not a cuda sorter")?;
        let stream = ctx.new_stream().map_err(e)?;
        let copies = if n * std::mem::size_of::<T>() >= 64 << 20 { 2 } else { 4 };
        let mut inputs = Vec::new();
        for k in 0..copies {
            inputs.push(stream.clone_htod(&make(k)).map_err(e)?);
        }
        let work = stream.clone_htod(&make(0)).map_err(e)?;
        // Events made without flags time; `record_event(None)` ones may not.
        let start = ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(e)?;
        let end = ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(e)?;
        Ok(DeviceInputs { stream, inputs, next: 0, work, start, end })
    }

    /// Sorts input 0 once and returns the result, for checking.
    fn sort_once(
        &mut self,
        sort: &impl Fn(&mut CudaSlice<T>, &Arc<CudaStream>) -> Result<(), SortError>,
    ) -> Result<Vec<T>, String> {
        let e = |e: gpusort::cudarc::driver::DriverError| e.to_string();
        self.stream.memcpy_dtod(&self.inputs[0], &mut self.work).map_err(e)?;
        sort(&mut self.work, &self.stream).map_err(|e| e.to_string())?;
        let out = self.stream.clone_dtoh(&self.work).map_err(e)?;
        self.stream.synchronize().map_err(e)?;
        Ok(out)
    }

    /// Times `iters` sorts, each with events around the sort alone, after restoring its input.
    fn time(
        &mut self,
        iters: u64,
        times: &mut Vec<f64>,
        sort: &impl Fn(&mut CudaSlice<T>, &Arc<CudaStream>) -> Result<(), SortError>,
    ) {
        for _ in 0..iters {
            self.next = (self.next + 1) % self.inputs.len();
            let src = &self.inputs[self.next];
            self.stream.memcpy_dtod(src, &mut self.work).unwrap();
            self.start.record(&self.stream).unwrap();
            sort(&mut self.work, &self.stream).expect("a sort that passed its check failed");
            self.end.record(&self.stream).unwrap();
            self.end.synchronize().unwrap();
            times.push(self.start.elapsed_ms(&self.end).unwrap() as f64);
        }
    }
}

const GPU_ALGORITHMS: &[(Algorithm, &str)] =
    &[(Algorithm::Radix, "radix"), (Algorithm::Bitonic, "bitonic"), (Algorithm::OddEvenMerge, "odd-even")];

/// How long the process's first `Sorter::cuda()` took (driver, context): the `first-call` table.
static FIRST_OPEN: std::sync::OnceLock<std::time::Duration> = std::sync::OnceLock::new();

fn cuda_sorter(group: &str) -> Option<Sorter> {
    let t = Instant::now();
    let gpu = Sorter::cuda();
    FIRST_OPEN.get_or_init(|| t.elapsed());
    match gpu {
        Ok(s) => {
            emit_meta("gpu", &s.describe());
            Some(s)
        }
        Err(e) => {
            eprintln!("skipped: no CUDA device ({e}); {group} benches not run");
            None
        }
    }
}

fn cuda_device(c: &mut Criterion) {
    let Some(gpu) = cuda_sorter("cuda-device") else { return };
    if shapes::selected() {
        shapes::run(&gpu);
    }
    let mut g = c.benchmark_group("cuda-device");
    configure(&mut g, 300, 1000);
    for p in PATTERNS {
        let all = gpu_sizes(p);
        for n in all.iter().copied().chain(radix_extra(p)) {
            // One set of device inputs per pattern and size, shared by the algorithms.
            let mut pairs: Option<Result<DeviceInputs<Kvp>, String>> = None;
            for &(alg, name) in GPU_ALGORITHMS {
                if alg != Algorithm::Radix && !all.contains(&n) {
                    continue;
                }
                let s = gpu.clone().with_algorithm(alg);
                let sort = |d: &mut CudaSlice<Kvp>, st: &Arc<CudaStream>| s.sort_kvp_device(d, st);
                bench_one(
                    &mut g,
                    ("cuda-device", name, p, n),
                    &mut pairs,
                    || DeviceInputs::new(&s, n, |k| p.kvps(n, k)),
                    |d| check_pairs(&p.kvps(n, 0), &d.sort_once(&sort)?, alg.is_stable()),
                    |d, iters, t| d.time(iters, t, &sort),
                );
            }
            drop(pairs);
            if p == Pattern::Random {
                let s = gpu.clone().with_algorithm(Algorithm::Radix);
                let sort = |d: &mut CudaSlice<u32>, st: &Arc<CudaStream>| s.sort_keys_device(d, st);
                let keys = |k| p.keys(n, k);
                bench_one(
                    &mut g,
                    ("cuda-device", "radix-keys", p, n),
                    &mut None,
                    || DeviceInputs::new(&s, n, keys),
                    |d| check_keys(&keys(0), &d.sort_once(&sort)?),
                    |d, iters, t| d.time(iters, t, &sort),
                );
            }
        }
    }
    g.finish();
}

// ---------------------------------------------------------------------------------------------
// GPU, host to host

/// A caller's `Vec` in ordinary (pageable, already touched) memory, restored before each sort.
struct HostInputs {
    input: Vec<Kvp>,
    work: Vec<Kvp>,
}

impl HostInputs {
    fn new(p: Pattern, n: usize) -> Result<Self, String> {
        let input = p.kvps(n, 0);
        Ok(HostInputs { work: input.clone(), input })
    }

    fn check(&mut self, sort: impl Fn(&mut [Kvp]) -> Result<(), SortError>, stable: bool) -> Result<(), String> {
        par_copy(&mut self.work, &self.input);
        sort(&mut self.work).map_err(|e| e.to_string())?;
        check_pairs(&self.input, &self.work, stable)
    }

    fn time(&mut self, iters: u64, times: &mut Vec<f64>, sort: impl Fn(&mut [Kvp]) -> Result<(), SortError>) {
        for _ in 0..iters {
            par_copy(&mut self.work, &self.input);
            let t = Instant::now();
            sort(&mut self.work).expect("a sort that passed its check failed");
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
}

fn cuda_host(c: &mut Criterion) {
    let Some(gpu) = cuda_sorter("cuda-host") else { return };
    let mut g = c.benchmark_group("cuda-host");
    configure(&mut g, 500, 2000);
    // The networks' host rows only at the other patterns' sizes: their device rows tell the rest.
    let network_sizes = env_sizes("GPUSORT_BENCH_PATTERN_SIZES", &[1 << 20, 1 << 24, 1 << 26]);
    for p in PATTERNS {
        for n in gpu_sizes(p).into_iter().chain(radix_extra(p)) {
            let mut host: Option<Result<HostInputs, String>> = None;
            for &(alg, name) in GPU_ALGORITHMS {
                if alg != Algorithm::Radix && (p != Pattern::Random || !network_sizes.contains(&n)) {
                    continue;
                }
                let s = gpu.clone().with_algorithm(alg);
                let sort = |v: &mut [Kvp]| s.sort_kvp(v);
                bench_one(
                    &mut g,
                    ("cuda-host", name, p, n),
                    &mut host,
                    || HostInputs::new(p, n),
                    |h| h.check(sort, alg.is_stable()),
                    |h, iters, t| h.time(iters, t, sort),
                );
            }
        }
    }
    g.finish();
}

fn config() -> Criterion {
    // Bootstrap resampling costs more CPU than a short GPU benchmark takes; 10k is plenty for 10 samples.
    let c = Criterion::default().without_plots();
    if fast() {
        c.nresamples(10_000)
    } else {
        c
    }
}

criterion_group! { name = benches; config = config(); targets = cuda_device, cuda_host, cpu::cpu }

/// `criterion_main!` with the host tables first: a report run cut short by its time limit keeps them.
fn main() {
    let plan = host::plan();
    if plan != host::Plan::Off {
        host::run();
    }
    if plan != host::Plan::Only {
        benches();
        Criterion::default().configure_from_args().final_summary();
    }
}
