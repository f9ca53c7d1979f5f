//! The `networks` table: the sorting networks (bitonic, odd-even merge) on device-resident Kvp,
//! for the network sweep of benches/net/ (`GPUSORT_KERNELS_DIR` loads a candidate).
//!
//! Random keys, two inputs rotated, CUDA events around the sort alone, 2 warm-ups, median of 11;
//! the last result is checked. Sizes from `GPUSORT_NET_SIZES` (comma-separated, default 1M,
//! 1000000, 16M, 10000001, 64M). Output: a markdown table on stdout (`| n | algorithm | ms |`,
//! what benches/net/sweep.sh greps) and one record per row, group `networks`, sort `bitonic` or
//! `odd-even`, pattern `random`.

use std::sync::Arc;

use gpusort::cudarc::driver::{sys::CUevent_flags, CudaSlice, CudaStream};
use gpusort::{check, Algorithm, Kvp, Order, Sorter};

use crate::inputs::env_sizes;
use crate::record::emit_times;

/// The network tests' xorshift stream: the sweep's inputs stay those of earlier sweeps.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
}

fn random_pairs(n: usize, seed: u64) -> Vec<Kvp> {
    let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    (0..n).map(|i| Kvp::new(r.next(), i as u32)).collect()
}

/// Device times (ms) of `runs` sorts, CUDA events around the sort only, two inputs rotated.
fn time_pairs(s: &Sorter, stream: &Arc<CudaStream>, n: usize, runs: usize) -> Vec<f64> {
    let inputs: Vec<CudaSlice<Kvp>> = (0..2).map(|i| stream.clone_htod(&random_pairs(n, 1000 + i)).unwrap()).collect();
    let mut work = stream.alloc_zeros::<Kvp>(n).unwrap();
    let mut times = Vec::new();
    for r in 0..runs + 2 {
        stream.memcpy_dtod(&inputs[r % 2], &mut work).unwrap();
        let start = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).unwrap();
        s.sort_kvp_device(&mut work, stream).unwrap();
        let end = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).unwrap();
        end.synchronize().unwrap();
        if r >= 2 {
            times.push(start.elapsed_ms(&end).unwrap() as f64);
        }
    }
    // The last run's result must be right, or the time means nothing.
    let out = stream.clone_dtoh(&work).unwrap();
    let input = stream.clone_dtoh(&inputs[(runs + 1) % 2]).unwrap();
    stream.synchronize().unwrap();
    check::validate(&input, &out, Order::Ascending, false).unwrap();
    times
}

pub fn run(gpu: &Sorter) {
    let stream = gpu.cuda_context().expect("a cuda sorter").new_stream().unwrap();
    let sizes = env_sizes("GPUSORT_NET_SIZES", &[1 << 20, 1_000_000, 1 << 24, 10_000_001, 1 << 26]);
    println!("| n | algorithm | ms (median of 11) |");
    for &n in &sizes {
        for (alg, name) in [(Algorithm::Bitonic, "bitonic"), (Algorithm::OddEvenMerge, "odd-even")] {
            let s = gpu.clone().with_algorithm(alg);
            let times = time_pairs(&s, &stream, n, 11);
            let ms = emit_times(("networks", name, "random", n), &times, None, &[]);
            println!("| {n} | {alg:?} | {ms:.3} |");
        }
    }
}
