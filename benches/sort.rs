//! `cargo bench`: gpusort against the CPU crates, and on the GPU with the data already on the
//! device (timed with CUDA events around the sort alone) and host to host.
//!
//! Groups (filter with `cargo bench -- <group>`): `cpu/`, `cuda-device/`, `cuda-host/`.
//! Without a GPU the cuda groups print `skipped: no CUDA device` and measure nothing.

use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use gpusort::cudarc::driver::sys::CUevent_flags;
use gpusort::cudarc::driver::{CudaSlice, CudaStream};
use gpusort::{Algorithm, Kvp, Order, Sorter};

fn random_kvps(n: usize, seed: u64) -> Vec<Kvp> {
    let mut s = seed;
    (0..n as u32)
        .map(|i| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            Kvp::new((z ^ (z >> 31)) as u32, i)
        })
        .collect()
}

/// Sizes from the seed's GTX 680 table that the CPU backend can sort in bench time here.
const CPU_SIZES: &[usize] = &[1 << 14, 1 << 20, 1 << 24];
/// The seed's sizes, 16K to 64M, every power of four.
const GPU_SIZES: &[usize] = &[1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26];

fn cpu(c: &mut Criterion) {
    let mut g = c.benchmark_group("cpu");
    g.sample_size(10).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    for &n in CPU_SIZES {
        let input = random_kvps(n, 7);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("gpusort-stable", n), &input, |b, input| {
            b.iter_batched_ref(|| input.clone(), |v| Sorter::cpu().sort_kvp(v).unwrap(), BatchSize::LargeInput)
        });
        g.bench_with_input(BenchmarkId::new("rayon-unstable", n), &input, |b, input| {
            use rayon::slice::ParallelSliceMut;
            b.iter_batched_ref(|| input.clone(), |v| v.par_sort_unstable_by_key(|p| p.key), BatchSize::LargeInput)
        });
    }
    g.finish();
}

/// Inputs on the device, rotated so no run finds the previous one's data in L2 (60 MB on H200).
struct DeviceInputs {
    stream: Arc<CudaStream>,
    inputs: Vec<CudaSlice<Kvp>>,
    work: CudaSlice<Kvp>,
}

impl DeviceInputs {
    fn new(s: &Sorter, n: usize) -> DeviceInputs {
        let ctx = s.cuda_context().expect("cuda sorter");
        let stream = ctx.new_stream().unwrap();
        let copies = if n * 8 >= 64 << 20 { 2 } else { 4 };
        let inputs = (0..copies).map(|k| stream.clone_htod(&random_kvps(n, 11 + k as u64)).unwrap()).collect();
        let work = stream.clone_htod(&random_kvps(n, 3)).unwrap();
        DeviceInputs { stream, inputs, work }
    }

    /// Total GPU time of `iters` sorts, each timed with events around the sort alone.
    fn time(&mut self, s: &Sorter, iters: u64) -> Duration {
        let mut total = 0.0f64;
        for i in 0..iters as usize {
            let src = &self.inputs[i % self.inputs.len()];
            self.stream.memcpy_dtod(src, &mut self.work).unwrap();
            // Events made without flags time; `record_event(None)` ones may not.
            let ctx = self.stream.context();
            let start = ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).unwrap();
            let end = ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).unwrap();
            start.record(&self.stream).unwrap();
            s.sort_kvp_device(&mut self.work, &self.stream, Order::Ascending).unwrap();
            end.record(&self.stream).unwrap();
            end.synchronize().unwrap();
            total += start.elapsed_ms(&end).unwrap() as f64;
        }
        Duration::from_secs_f64(total / 1e3)
    }
}

const GPU_ALGORITHMS: &[(Algorithm, &str)] =
    &[(Algorithm::Radix, "radix"), (Algorithm::Bitonic, "bitonic"), (Algorithm::OddEvenMerge, "odd-even")];

fn cuda_device(c: &mut Criterion) {
    let Ok(gpu) = Sorter::cuda() else {
        eprintln!("skipped: no CUDA device; cuda-device benches not run");
        return;
    };
    let mut g = c.benchmark_group("cuda-device");
    g.sample_size(20).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(300));
    for &(alg, name) in GPU_ALGORITHMS {
        let s = gpu.clone().with_algorithm(alg);
        for &n in GPU_SIZES {
            let mut d = DeviceInputs::new(&s, n);
            if let Err(e) = s.sort_kvp_device(&mut d.work, &d.stream, Order::Ascending) {
                eprintln!("skipped: cuda-device/{name}/{n}: {e}");
                continue;
            }
            g.throughput(Throughput::Elements(n as u64));
            g.bench_function(BenchmarkId::new(name, n), |b| b.iter_custom(|iters| d.time(&s, iters)));
        }
    }
    g.finish();
}

fn cuda_host(c: &mut Criterion) {
    let Ok(gpu) = Sorter::cuda() else {
        eprintln!("skipped: no CUDA device; cuda-host benches not run");
        return;
    };
    let mut g = c.benchmark_group("cuda-host");
    g.sample_size(10).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_millis(500));
    for &n in &[1 << 20, 1 << 24, 1 << 26] {
        let input = random_kvps(n, 5);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("radix", n), &input, |b, input| {
            b.iter_batched_ref(|| input.clone(), |v| gpu.sort_kvp(v).unwrap(), BatchSize::LargeInput)
        });
    }
    g.finish();
}

criterion_group!(benches, cpu, cuda_device, cuda_host);
criterion_main!(benches);
