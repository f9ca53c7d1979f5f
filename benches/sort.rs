//! `cargo bench`: gpusort on the GPU with the data already on the device (CUDA events around the
//! sort alone) and host to host, and its CPU backend against std, rayon, voracious and rdst.
//!
//! Benchmark ids are `<group>/<sort>/<pattern>/<n>`; filter with `cargo bench -- <regex>`, e.g.
//! `cuda-device/radix`, `cuda-host/`, `cpu/rdst`, `/zipf/`. Groups: `cuda-device` (radix,
//! radix-keys, bitonic, odd-even), `cuda-host` (same sorts through `Sorter::sort_kvp`), `cpu`.
//! Without a GPU the cuda groups print `skipped: no CUDA device` and measure nothing.
//!
//! Inputs are (u32 key, u32 value = index) pairs in six patterns (`Pattern`), generated with the
//! same splitmix64 formula as `ci/cub/cub_bench.cu` and `ci/report.py`, so CUB and torch sort the
//! same data. Uniform random runs at every size of the seed's GTX 680 table (16K..64M, plus 256M
//! for radix); the other patterns at fewer sizes. Every configuration's first result is checked
//! before it is timed.
//!
//! Environment (all optional): `GPUSORT_BENCH_JSON=<file>` appends one JSON line per measurement
//! (what `ci/report.py` reads); `GPUSORT_BENCH_FAST=1` shortens warm-up and measurement (the
//! report run); size lists, comma-separated, empty for none: `GPUSORT_BENCH_SIZES` (random, GPU),
//! `GPUSORT_BENCH_PATTERN_SIZES` (other patterns, GPU), `GPUSORT_BENCH_RADIX_EXTRA` (random, radix
//! only), `GPUSORT_BENCH_CPU_SIZES`, `GPUSORT_BENCH_CPU_PATTERN_SIZES`; `GPUSORT_BENCH_CPU_SORTS`
//! (names of the CPU sorts to run, default all).

use std::cmp::Ordering as CmpOrdering;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, Throughput};
use gpusort::cudarc::driver::sys::CUevent_flags;
use gpusort::cudarc::driver::{CudaEvent, CudaSlice, CudaStream, DeviceRepr};
use gpusort::{check, Algorithm, Kvp, Order, SortError, Sorter};
use rayon::prelude::*;

// ---------------------------------------------------------------------------------------------
// Inputs

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Pattern {
    Random,
    Sorted,
    Reverse,
    Distinct16,
    AllEqual,
    Zipf,
}

const PATTERNS: [Pattern; 6] =
    [Pattern::Random, Pattern::Sorted, Pattern::Reverse, Pattern::Distinct16, Pattern::AllEqual, Pattern::Zipf];

/// The i-th output of a splitmix64 stream seeded with `seed`; computed per index so inputs of
/// hundreds of millions of pairs are generated on every core.
fn splitmix(seed: u64, i: u64) -> u64 {
    let mut z = seed.wrapping_add((i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Pattern {
    fn name(self) -> &'static str {
        match self {
            Pattern::Random => "random",
            Pattern::Sorted => "sorted",
            Pattern::Reverse => "reverse",
            Pattern::Distinct16 => "distinct16",
            Pattern::AllEqual => "equal",
            Pattern::Zipf => "zipf",
        }
    }

    /// Key of item `i` of `n`. Not all-zero anywhere: zeros would flatter memory compression.
    fn key(self, n: usize, seed: u64, i: usize) -> u32 {
        let z = splitmix(seed, i as u64);
        match self {
            Pattern::Random => z as u32,
            Pattern::Sorted => i as u32,
            Pattern::Reverse => (n - 1 - i) as u32,
            Pattern::Distinct16 => splitmix(16, z & 15) as u32,
            Pattern::AllEqual => 0x9E37_79B9,
            // Log-uniform ranks (an octave picked uniformly, then a rank inside it): rank r has
            // probability about 1/(32 r), Zipf's law with exponent 1. Integer-only so C++ and
            // Python make the same keys; the odd multiplier scatters frequent keys over the digits.
            Pattern::Zipf => {
                let e = (z >> 59) as u32;
                let rank = (1u32 << e) | (z as u32 & ((1u32 << e) - 1));
                rank.wrapping_mul(0x9E37_79B1)
            }
        }
    }

    /// Copy `copy` of this pattern: copy 0 uses seed `n`, as `cub_bench` and `report.py torch` do.
    fn kvps(self, n: usize, copy: u64) -> Vec<Kvp> {
        let seed = n as u64 + copy;
        (0..n).into_par_iter().map(|i| Kvp::new(self.key(n, seed, i), i as u32)).collect()
    }
}

fn env_sizes(var: &str, default: &[usize]) -> Vec<usize> {
    match std::env::var(var) {
        Ok(s) => s.split(',').filter(|t| !t.trim().is_empty()).map(|t| t.trim().parse().expect(var)).collect(),
        Err(_) => default.to_vec(),
    }
}

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

fn cpu_sizes(p: Pattern) -> Vec<usize> {
    match p {
        Pattern::Random => env_sizes("GPUSORT_BENCH_CPU_SIZES", &[1 << 14, 1 << 20, 1 << 24]),
        _ => env_sizes("GPUSORT_BENCH_CPU_PATTERN_SIZES", &[1 << 20]),
    }
}

/// Checks a pair sort of one of our inputs (value = input index) in O(n): sorted by the oracle,
/// every value present once and still with its key, and equal keys in input order when `stable`.
/// The oracle's own permutation check hashes every pair, which takes seconds at 64M.
fn check_pairs(input: &[Kvp], out: &[Kvp], stable: bool) -> Result<(), String> {
    if input.len() != out.len() {
        return Err(format!("length changed: {} in, {} out", input.len(), out.len()));
    }
    if let Some(i) = check::first_unsorted(out, Order::Ascending) {
        return Err(format!("not sorted at {i}: {:?} then {:?}", out[i - 1], out[i]));
    }
    let seen: Vec<AtomicU64> = (0..input.len().div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
    let bad = out.par_iter().enumerate().find_any(|&(j, p)| {
        let v = p.value as usize;
        let fresh = v < input.len() && seen[v / 64].fetch_or(1 << (v % 64), Ordering::Relaxed) & (1 << (v % 64)) == 0;
        let in_order = !stable || j == 0 || out[j - 1].key != p.key || out[j - 1].value < p.value;
        !fresh || input[v].key != p.key || !in_order
    });
    match bad {
        Some((j, p)) => Err(format!("pair {p:?} at {j} lost its key, is duplicated or broke stability")),
        None => Ok(()),
    }
}

fn check_keys(input: &[u32], out: &[u32]) -> Result<(), String> {
    if input.len() != out.len() {
        return Err(format!("length changed: {} in, {} out", input.len(), out.len()));
    }
    let mut expect = input.to_vec();
    expect.par_sort_unstable();
    match expect.iter().zip(out).position(|(a, b)| a != b) {
        Some(i) => Err(format!("keys differ from the reference at {i}")),
        None => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// The report's data: one JSON line per measurement

fn json_sink() -> &'static Mutex<Option<File>> {
    static SINK: OnceLock<Mutex<Option<File>>> = OnceLock::new();
    SINK.get_or_init(|| {
        let file = std::env::var_os("GPUSORT_BENCH_JSON")
            .map(|p| OpenOptions::new().create(true).append(true).open(p).expect("GPUSORT_BENCH_JSON"));
        Mutex::new(file)
    })
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o + "\""
}

fn emit(line: String) {
    if let Some(f) = json_sink().lock().unwrap().as_mut() {
        writeln!(f, "{line}").expect("GPUSORT_BENCH_JSON write");
    }
}

fn emit_meta(what: &str, text: &str) {
    emit(format!("{{\"src\":\"bench\",\"kind\":{},\"text\":{}}}", json_str(what), json_str(text)));
}

/// Writes one measurement: per-sort times in ms, the first few (warm-up) dropped.
fn emit_times(group: &str, sort: &str, p: Pattern, n: usize, times: &[f64], error: Option<&str>) {
    let skip = if times.len() > 10 { 3 } else { 0 };
    let mut t = times[skip..].to_vec();
    t.sort_by(|a, b| a.partial_cmp(b).unwrap_or(CmpOrdering::Equal));
    let (median, min, mean) = match t.len() {
        0 => (f64::NAN, f64::NAN, f64::NAN),
        k => (t[k / 2], t[0], t.iter().sum::<f64>() / k as f64),
    };
    let num = |x: f64| if x.is_finite() { format!("{x:.6}") } else { "null".into() };
    let err = error.map_or("null".into(), json_str);
    emit(format!(
        "{{\"src\":\"bench\",\"group\":\"{group}\",\"sort\":\"{sort}\",\"pattern\":\"{}\",\"n\":{n},\"median_ms\":{},\
         \"min_ms\":{},\"mean_ms\":{},\"runs\":{},\"error\":{err}}}",
        p.name(),
        num(median),
        num(min),
        num(mean),
        t.len()
    ));
}

fn fast() -> bool {
    std::env::var("GPUSORT_BENCH_FAST").as_deref() == Ok("1")
}

fn configure(g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>, warm_ms: u64, measure_ms: u64) {
    let k = if fast() { 3 } else { 1 };
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(warm_ms / k))
        .measurement_time(Duration::from_millis(measure_ms / k));
}

/// Runs one timed configuration. `setup` makes the state the first time criterion calls the
/// routine (so inputs are built only for benchmarks the filter selects), or reuses `state` from
/// an earlier configuration; `check` sorts once and checks the result before anything is timed;
/// `run` times `iters` sorts, pushing each one's milliseconds.
fn bench_one<S>(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    (group, sort, p, n): (&str, &str, Pattern, usize),
    state: &mut Option<Result<S, String>>,
    setup: impl Fn() -> Result<S, String>,
    check: impl Fn(&mut S) -> Result<(), String>,
    mut run: impl FnMut(&mut S, u64, &mut Vec<f64>),
) {
    let mut times = Vec::new();
    let mut verdict: Option<Result<(), String>> = None;
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function(BenchmarkId::new(format!("{sort}/{}", p.name()), n), |b| {
        b.iter_custom(|iters| {
            let s = state.get_or_insert_with(&setup);
            let ok = verdict.get_or_insert_with(|| match s {
                Ok(s) => check(s),
                Err(e) => Err(e.clone()),
            });
            match (s, ok) {
                (Ok(s), Ok(())) => {
                    let before = times.len();
                    run(s, iters, &mut times);
                    Duration::from_secs_f64(times[before..].iter().sum::<f64>() / 1e3)
                }
                // Criterion needs a duration; a failed configuration is reported, not timed.
                _ => Duration::from_millis(iters),
            }
        })
    });
    if let Some(v) = verdict {
        if let Err(e) = &v {
            eprintln!("skipped: {group}/{sort}/{}/{n}: {e}", p.name());
        }
        emit_times(group, sort, p, n, &times, v.err().as_deref());
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

fn cuda_sorter(group: &str) -> Option<Sorter> {
    match Sorter::cuda() {
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
                let sort = |d: &mut CudaSlice<Kvp>, st: &Arc<CudaStream>| s.sort_kvp_device(d, st, Order::Ascending);
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
                let sort = |d: &mut CudaSlice<u32>, st: &Arc<CudaStream>| s.sort_keys_device(d, st, Order::Ascending);
                let keys = |k| p.kvps(n, k).into_iter().map(|x| x.key).collect::<Vec<u32>>();
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

/// Copies on every core: restoring a 512 MB input must not dominate the bench's wall time.
fn par_copy<T: Copy + Send + Sync>(dst: &mut [T], src: &[T]) {
    dst.par_chunks_mut(1 << 16).zip(src.par_chunks(1 << 16)).for_each(|(d, s)| d.copy_from_slice(s));
}

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

// ---------------------------------------------------------------------------------------------
// CPU

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

fn cpu(c: &mut Criterion) {
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

fn config() -> Criterion {
    // Bootstrap resampling costs more CPU than a short GPU benchmark takes; 10k is plenty for 10 samples.
    let c = Criterion::default().without_plots();
    if fast() {
        c.nresamples(10_000)
    } else {
        c
    }
}

criterion_group! { name = benches; config = config(); targets = cuda_device, cuda_host, cpu }
criterion_main!(benches);
