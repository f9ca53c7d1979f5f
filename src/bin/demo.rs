//! The main job: sort random data (16M pairs unless told otherwise) with `Sorter::auto()`, check
//! the result against the CPU backend's, and report the backend, the time and the throughput.
//!
//! `cargo run --release [-- [OPTIONS] [N]...]`; `--help` lists the options.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};
use gpusort::{Algorithm, BackendKind, Key, Kvp, Order, Sorter};
use gpusort_cpu::{check, rng::splitmix64};

/// Sort random data with gpusort, check the result against the CPU backend, report the time.
#[derive(Parser, Debug)]
#[command(name = "gpusort-demo", version)]
struct Args {
    /// How many items to sort, each size in turn: a number, optionally with K, M or G (powers of 2).
    #[arg(value_name = "N", value_parser = parse_count, default_value = "16M")]
    sizes: Vec<usize>,
    /// What to sort: pairs of u32 key and u32 value (kvp), keys alone, or split key and value arrays.
    #[arg(long, value_enum, default_value_t = Data::Kvp)]
    data: Data,
    /// The sorting algorithm (bitonic and odd-even-merge are GPU sorting networks).
    #[arg(long, value_enum, default_value_t = Alg::Auto)]
    algorithm: Alg,
    /// The backend: auto picks the GPU when one is usable (GPUSORT_BACKEND overrides it).
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    backend: Backend,
    /// Sort largest first.
    #[arg(long)]
    descending: bool,
    /// Give the memory kept for the next sort back after every sort.
    #[arg(long)]
    no_keep_memory: bool,
    /// Seed of the random keys.
    #[arg(long, default_value_t = 0x5eed)]
    seed: u64,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Data {
    Kvp,
    KeysU32,
    KeysI32,
    KeysF32,
    KeysU64,
    PairsU32,
    PairsI32,
    PairsF32,
    PairsU64,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Alg {
    Auto,
    Radix,
    Bitonic,
    OddEvenMerge,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Backend {
    Auto,
    Cpu,
    Cuda,
}

fn parse_count(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let (digits, shift) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&t[..t.len() - 1], 10),
        Some('M') => (&t[..t.len() - 1], 20),
        Some('G') => (&t[..t.len() - 1], 30),
        _ => (t, 0),
    };
    let n: usize = digits.parse().map_err(|_| format!("`{s}` is not a count (such as 1000, 64K, 16M or 1G)"))?;
    n.checked_mul(1 << shift).ok_or_else(|| format!("`{s}` is too large"))
}

/// A key type the demo draws, with how it reads its random bits.
trait DemoKey: Key + Copy {
    fn draw(bits: u64) -> Self;
}
impl DemoKey for u32 {
    fn draw(b: u64) -> u32 {
        b as u32
    }
}
impl DemoKey for i32 {
    fn draw(b: u64) -> i32 {
        b as u32 as i32
    }
}
impl DemoKey for f32 {
    fn draw(b: u64) -> f32 {
        // Finite, spread over many magnitudes and both signs.
        ((b as u32 as i32) as f32) * f32::powi(2.0, (b >> 40) as i32 % 64 - 32)
    }
}
impl DemoKey for u64 {
    fn draw(b: u64) -> u64 {
        b
    }
}

/// One sort of the demo: the input, the copy the sorter under test sorts (reset before each timed
/// call) and the copy the CPU backend sorts, for reference.
trait Job {
    fn what(&self) -> String;
    fn sort(&mut self, s: &Sorter) -> Result<(), gpusort::SortError>;
    fn sort_reference(&mut self, cpu: &Sorter) -> Result<(), gpusort::SortError>;
    fn reset(&mut self);
    /// `Err` unless the result is in order, a permutation of the input with every value still on
    /// its key, and (for stable sorts) the CPU backend's result.
    fn check(&self, order: Order, stable: bool) -> Result<(), String>;
}

struct KvpJob {
    input: Vec<Kvp>,
    out: Vec<Kvp>,
    reference: Vec<Kvp>,
}

impl Job for KvpJob {
    fn what(&self) -> String {
        "(u32 key, u32 value) pairs".into()
    }
    fn sort(&mut self, s: &Sorter) -> Result<(), gpusort::SortError> {
        s.sort_kvp(&mut self.out)
    }
    fn sort_reference(&mut self, cpu: &Sorter) -> Result<(), gpusort::SortError> {
        cpu.sort_kvp(&mut self.reference)
    }
    fn reset(&mut self) {
        self.out.copy_from_slice(&self.input);
    }
    fn check(&self, order: Order, stable: bool) -> Result<(), String> {
        check::validate(&self.input, &self.out, order, stable)?;
        same(stable && self.out != self.reference)
    }
}

struct KeysJob<K> {
    input: Vec<K>,
    out: Vec<K>,
    reference: Vec<K>,
}

impl<K: DemoKey> Job for KeysJob<K> {
    fn what(&self) -> String {
        format!("{} keys", std::any::type_name::<K>())
    }
    fn sort(&mut self, s: &Sorter) -> Result<(), gpusort::SortError> {
        s.sort_keys(&mut self.out)
    }
    fn sort_reference(&mut self, cpu: &Sorter) -> Result<(), gpusort::SortError> {
        cpu.sort_keys(&mut self.reference)
    }
    fn reset(&mut self) {
        self.out.copy_from_slice(&self.input);
    }
    fn check(&self, order: Order, _: bool) -> Result<(), String> {
        check::validate_keys(&self.input, &self.out, order)?;
        let bits = |v: &[K]| v.iter().map(|k| k.to_ordered_bits()).collect::<Vec<_>>();
        same(bits(&self.out) != bits(&self.reference))
    }
}

/// Split pairs; the values are the input positions, the witnesses of where each key came from.
struct PairsJob<K> {
    keys: Vec<K>,
    out_keys: Vec<K>,
    out_values: Vec<u32>,
    reference: (Vec<K>, Vec<u32>),
}

impl<K: DemoKey> Job for PairsJob<K> {
    fn what(&self) -> String {
        format!("split pairs ({} keys, u32 values)", std::any::type_name::<K>())
    }
    fn sort(&mut self, s: &Sorter) -> Result<(), gpusort::SortError> {
        s.sort_pairs(&mut self.out_keys, &mut self.out_values)
    }
    fn sort_reference(&mut self, cpu: &Sorter) -> Result<(), gpusort::SortError> {
        cpu.sort_pairs(&mut self.reference.0, &mut self.reference.1)
    }
    fn reset(&mut self) {
        self.out_keys.copy_from_slice(&self.keys);
        self.out_values.iter_mut().enumerate().for_each(|(i, v)| *v = i as u32);
    }
    fn check(&self, order: Order, stable: bool) -> Result<(), String> {
        check::validate_keys(&self.keys, &self.out_keys, order)?;
        let mut seen = vec![false; self.keys.len()];
        for (k, &v) in self.out_keys.iter().zip(&self.out_values) {
            let from = self.keys.get(v as usize).filter(|_| !std::mem::replace(&mut seen[v as usize], true));
            if from.map(|f| f.to_ordered_bits()) != Some(k.to_ordered_bits()) {
                return Err(format!("value {v} is not on its key, or is there twice"));
            }
        }
        same(stable && self.out_values != self.reference.1)
    }
}

fn same(differs: bool) -> Result<(), String> {
    if differs {
        Err("differs from the CPU backend's result".into())
    } else {
        Ok(())
    }
}

fn make(data: Data, n: usize, seed: u64) -> Box<dyn Job> {
    fn keys<K: DemoKey>(n: usize, seed: u64) -> Vec<K> {
        (0..n as u64).map(|i| K::draw(splitmix64(seed, i))).collect()
    }
    fn keys_job<K: DemoKey>(n: usize, seed: u64) -> Box<dyn Job> {
        let input = keys::<K>(n, seed);
        Box::new(KeysJob { out: input.clone(), reference: input.clone(), input })
    }
    fn pairs_job<K: DemoKey>(n: usize, seed: u64) -> Box<dyn Job> {
        let keys = keys::<K>(n, seed);
        let values: Vec<u32> = (0..n as u32).collect();
        Box::new(PairsJob {
            out_keys: keys.clone(),
            out_values: values.clone(),
            reference: (keys.clone(), values),
            keys,
        })
    }
    match data {
        Data::Kvp => {
            let input: Vec<Kvp> = keys::<u32>(n, seed).into_iter().zip(0..).map(|(k, i)| Kvp::new(k, i)).collect();
            Box::new(KvpJob { out: input.clone(), reference: input.clone(), input })
        }
        Data::KeysU32 => keys_job::<u32>(n, seed),
        Data::KeysI32 => keys_job::<i32>(n, seed),
        Data::KeysF32 => keys_job::<f32>(n, seed),
        Data::KeysU64 => keys_job::<u64>(n, seed),
        Data::PairsU32 => pairs_job::<u32>(n, seed),
        Data::PairsI32 => pairs_job::<i32>(n, seed),
        Data::PairsF32 => pairs_job::<f32>(n, seed),
        Data::PairsU64 => pairs_job::<u64>(n, seed),
    }
}

fn shape(data: Data) -> gpusort::JobShape {
    use gpusort::JobShape;
    match data {
        Data::Kvp => JobShape::Kvp,
        Data::KeysU32 | Data::KeysI32 | Data::KeysF32 => JobShape::Keys32,
        Data::KeysU64 => JobShape::Keys64,
        Data::PairsU32 | Data::PairsI32 | Data::PairsF32 => JobShape::Pairs32,
        Data::PairsU64 => JobShape::Pairs64,
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn timed(f: impl FnOnce() -> Result<(), gpusort::SortError>) -> Result<Duration, gpusort::SortError> {
    let t = Instant::now();
    f().map(|()| t.elapsed())
}

fn main() -> ExitCode {
    let args = Args::parse();
    let algorithm = match args.algorithm {
        Alg::Auto => Algorithm::Auto,
        Alg::Radix => Algorithm::Radix,
        Alg::Bitonic => Algorithm::Bitonic,
        Alg::OddEvenMerge => Algorithm::OddEvenMerge,
    };
    let order = if args.descending { Order::Descending } else { Order::Ascending };

    let t = Instant::now();
    let sorter = match args.backend {
        Backend::Auto => Ok(Sorter::auto()),
        Backend::Cpu => Ok(Sorter::cpu()),
        Backend::Cuda => Sorter::cuda(),
    };
    let setup = t.elapsed();
    let sorter = match sorter {
        Ok(s) => s.with_algorithm(algorithm).with_order(order).with_keep_memory(!args.no_keep_memory),
        Err(e) => {
            eprintln!("gpusort-demo: --backend cuda: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("backend:  {sorter}");
    let made = match args.backend {
        Backend::Cpu => "making the sorter",
        Backend::Auto | Backend::Cuda => "choosing the backend: driver probe, context",
    };
    println!("setup:    {:>9.3} ms ({made})", ms(setup));
    for &n in &args.sizes {
        if let Err(e) = run(&sorter, &args, n) {
            eprintln!("gpusort-demo: {e}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

fn run(sorter: &Sorter, args: &Args, n: usize) -> Result<(), String> {
    let mut job = make(args.data, n, args.seed);
    let on = sorter.backend_for_shape(shape(args.data), n);
    let gpu = on == BackendKind::Cuda;
    println!("\n{n} random {}, {:?}, {:?}, on the {on} backend", job.what(), sorter.order(), sorter.algorithm());

    // On the GPU the first call also loads the kernel module; on the CPU it starts the thread pool.
    let first = timed(|| job.sort(sorter)).map_err(|e| format!("sort failed: {e}"))?;
    job.reset();
    let steady = timed(|| job.sort(sorter)).map_err(|e| format!("sort failed: {e}"))?;
    // Read now: the reference sort below keeps memory of its own (the kept memory is process-wide).
    let kept = sorter.kept_host_bytes();

    let cpu = Sorter::cpu().with_order(sorter.order());
    let cpu_time = timed(|| job.sort_reference(&cpu)).map_err(|e| format!("the CPU backend's sort failed: {e}"))?;
    let stable = sorter.algorithm().is_stable();
    job.check(sorter.order(), stable).map_err(|e| format!("INVALID: {e}"))?;

    let rate = |d: Duration| n as f64 / d.as_secs_f64() / 1e6;
    let first_note =
        if gpu { "the first size also loads the kernels" } else { "the first size also starts the thread pool" };
    println!("first:    {:>9.3} ms (first call; {first_note})", ms(first));
    let copies = if gpu { " (host to host, copies to and from the GPU included)" } else { "" };
    println!("sort:     {:>9.3} ms  {:>8.1} M items/s{copies}", ms(steady), rate(steady));
    if gpu {
        let threads = gpusort_cpu::threads();
        println!(
            "cpu:      {:>9.3} ms  {:>8.1} M items/s (the CPU backend, {threads} threads)",
            ms(cpu_time),
            rate(cpu_time)
        );
    }
    let how = match (args.data, stable) {
        (Data::KeysU32 | Data::KeysI32 | Data::KeysF32 | Data::KeysU64, _) => {
            "sorted, the input's keys, same as the CPU backend"
        }
        (_, true) => "sorted, stable, every value with its key, same as the CPU backend",
        (_, false) => "sorted, every value with its key (the sorting networks are not stable)",
    };
    println!("valid:    {how}");
    let release = if sorter.keeps_memory() { "Sorter::release_memory() frees it" } else { "--no-keep-memory" };
    println!("kept:     {:>9.1} MiB of host memory for the next sort ({release})", kept as f64 / (1 << 20) as f64);
    Ok(())
}
