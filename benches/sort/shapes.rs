//! The radix sort's other shapes on the device: split `u32` pairs, `i32`, `f32`, `u64`
//! and `f64` keys, `u64` keys with `u32` values, and descending `Kvp` pairs and `u32` keys, each
//! beside CUB's sort of the same keys (`benches/cub/cub_bench.cu --shapes`, same run in the report).
//!
//! Group `cuda-device`, pattern `random`, sorts `radix-pairs`, `radix-keys-i32`,
//! `radix-keys-f32`, `radix-keys-u64`, `radix-keys-f64`, `radix-pairs-u64`, `radix-desc`,
//! `radix-keys-desc` (and, when named, `radix-keys` and `radix`). Keys come from the splitmix64
//! stream seeded with n that CUB draws too: output i is `z`; 32-bit keys are its low half
//! (`z as u32`, as `i32` or as `f32` bits, NaNs included: both sides order floats by their total
//! order), 64-bit keys all of it (as `u64` or `f64` bits); values are positions. A pristine copy
//! is restored before each sort (not timed), CUDA events around the sort alone, 3 warm-ups, median
//! of 15. The first result is compared with the CPU backend's stable sort of the same input, bit
//! for bit.
//!
//! Sizes: `GPUSORT_BENCH_SHAPE_SIZES` (default 16K, 1M, 16M, 64M, 256M; empty for none); shapes:
//! `GPUSORT_BENCH_SHAPES` (names, comma-separated; default all but `radix-keys` and `radix`, the
//! criterion group's ascending u32 keys and `Kvp` rows, which a shapes-only report run names).
//! They run inside the `cuda-device` group when the bench has no filter or one that
//! `cuda-device/radix-` starts with (or contains `shapes`).

use std::sync::Arc;

use gpusort::cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT;
use gpusort::cudarc::driver::{CudaContext, CudaSlice, CudaStream, DeviceRepr, DriverError};
use gpusort::{Key, Kvp, Order, SortError, Sorter};
use rayon::prelude::*;

use crate::inputs::{env_sizes, splitmix};
use crate::record::emit_times;

const WARMUPS: usize = 3;
const RUNS: usize = 15;

/// Whether the bench's filter (its first argument that is not a flag) selects these rows.
pub fn selected() -> bool {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    filter.is_none_or(|f| "cuda-device/radix-".starts_with(f.as_str()) || f.contains("shapes"))
}

/// The shapes, in the report's order; `radix-keys` and `radix` (ascending `u32` keys and `Kvp`,
/// the criterion group's rows) only when `GPUSORT_BENCH_SHAPES` names them.
const SHAPES: [&str; 10] = [
    "radix-pairs",
    "radix-keys-i32",
    "radix-keys-f32",
    "radix-keys-u64",
    "radix-keys-f64",
    "radix-pairs-u64",
    "radix-desc",
    "radix-keys-desc",
    "radix-keys",
    "radix",
];

pub fn run(gpu: &Sorter) {
    let Some(ctx) = gpu.cuda_context() else { return };
    let names: Vec<String> = match std::env::var("GPUSORT_BENCH_SHAPES") {
        Ok(list) => list.split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect(),
        Err(_) => SHAPES[..8].iter().map(|x| x.to_string()).collect(),
    };
    if let Some(bad) = names.iter().find(|x| !SHAPES.contains(&x.as_str())) {
        panic!("GPUSORT_BENCH_SHAPES: unknown shape {bad}; known: {}", SHAPES.join(", "));
    }
    let up = gpu.clone().with_order(Order::Ascending);
    let down = gpu.clone().with_order(Order::Descending);
    for n in env_sizes("GPUSORT_BENCH_SHAPE_SIZES", &[1 << 14, 1 << 20, 1 << 24, 1 << 26, 1 << 28]) {
        let z = |i: usize| splitmix(n as u64, i as u64);
        for name in SHAPES.iter().filter(|s| names.iter().any(|x| x == *s)) {
            match *name {
                "radix-pairs" => split_row(&ctx, &up, (name, n, true), |i| z(i) as u32),
                "radix-keys-i32" => split_row(&ctx, &up, (name, n, false), |i| z(i) as u32 as i32),
                "radix-keys-f32" => split_row(&ctx, &up, (name, n, false), |i| f32::from_bits(z(i) as u32)),
                "radix-keys-u64" => split_row(&ctx, &up, (name, n, false), z),
                "radix-keys-f64" => split_row(&ctx, &up, (name, n, false), |i| f64::from_bits(z(i))),
                "radix-pairs-u64" => split_row(&ctx, &up, (name, n, true), z),
                "radix-desc" => kvp_row(&ctx, &down, name, n, |i| z(i) as u32),
                "radix" => kvp_row(&ctx, &up, name, n, |i| z(i) as u32),
                "radix-keys-desc" => split_row(&ctx, &down, (name, n, false), |i| z(i) as u32),
                _ => split_row(&ctx, &up, (name, n, false), |i| z(i) as u32),
            }
        }
    }
}

/// A shape's device buffers: the pristine input and the one sorted, keys and maybe values.
struct Buffers<K: DeviceRepr> {
    stream: Arc<CudaStream>,
    keys: (CudaSlice<K>, CudaSlice<K>),
    values: Option<(CudaSlice<u32>, CudaSlice<u32>)>,
}

impl<K: DeviceRepr + Copy> Buffers<K> {
    fn new(ctx: &Arc<CudaContext>, keys: &[K], values: Option<&[u32]>) -> Result<Self, DriverError> {
        let stream = ctx.new_stream()?;
        let keys = (stream.clone_htod(keys)?, stream.clone_htod(keys)?);
        let values = match values {
            Some(v) => Some((stream.clone_htod(v)?, stream.clone_htod(v)?)),
            None => None,
        };
        Ok(Buffers { stream, keys, values })
    }

    /// Restores the input, then runs `sort` between two events: the sort's milliseconds.
    fn time_one(
        &mut self,
        sort: &impl Fn(&mut CudaSlice<K>, Option<&mut CudaSlice<u32>>, &Arc<CudaStream>) -> Result<(), SortError>,
    ) -> Result<f64, String> {
        let e = |e: DriverError| e.to_string();
        let ctx = self.stream.context();
        let (start, end) =
            (ctx.new_event(Some(CU_EVENT_DEFAULT)).map_err(e)?, ctx.new_event(Some(CU_EVENT_DEFAULT)).map_err(e)?);
        self.stream.memcpy_dtod(&self.keys.0, &mut self.keys.1).map_err(e)?;
        if let Some((pristine, work)) = self.values.as_mut() {
            self.stream.memcpy_dtod(pristine, work).map_err(e)?;
        }
        start.record(&self.stream).map_err(e)?;
        sort(&mut self.keys.1, self.values.as_mut().map(|v| &mut v.1), &self.stream).map_err(|e| e.to_string())?;
        end.record(&self.stream).map_err(e)?;
        end.synchronize().map_err(e)?;
        Ok(start.elapsed_ms(&end).map_err(e)? as f64)
    }

    fn result(&self) -> Result<(Vec<K>, Option<Vec<u32>>), String> {
        let e = |e: DriverError| e.to_string();
        let keys = self.stream.clone_dtoh(&self.keys.1).map_err(e)?;
        let values = match &self.values {
            Some((_, work)) => Some(self.stream.clone_dtoh(work).map_err(e)?),
            None => None,
        };
        self.stream.synchronize().map_err(e)?;
        Ok((keys, values))
    }
}

/// Times `sort` on the buffers and writes the row: the first result must equal `expect` (items
/// compared by `same`).
fn time_row<K: DeviceRepr + Copy + Send + Sync>(
    ctx: &Arc<CudaContext>,
    name: &str,
    (keys, values): (Vec<K>, Option<Vec<u32>>),
    expect: (Vec<K>, Option<Vec<u32>>),
    same: impl Fn(&K, &K) -> bool + Sync,
    sort: impl Fn(&mut CudaSlice<K>, Option<&mut CudaSlice<u32>>, &Arc<CudaStream>) -> Result<(), SortError>,
) {
    let n = keys.len();
    let measured = (|| -> Result<Vec<f64>, String> {
        let mut b = Buffers::new(ctx, &keys, values.as_deref()).map_err(|e| e.to_string())?;
        b.time_one(&sort)?;
        let (got_keys, got_values) = b.result()?;
        let same_keys = got_keys.len() == expect.0.len() && got_keys.par_iter().zip(&expect.0).all(|(a, b)| same(a, b));
        if !same_keys || got_values != expect.1 {
            return Err("the result differs from the CPU backend's stable sort".into());
        }
        let mut times = Vec::with_capacity(RUNS);
        for run in 0..WARMUPS + RUNS {
            let t = b.time_one(&sort)?;
            if run >= WARMUPS {
                times.push(t);
            }
        }
        Ok(times)
    })();
    match measured {
        Ok(times) => emit_times(("cuda-device", name, "random", n), &times, None, &[]),
        Err(e) => {
            eprintln!("skipped: cuda-device/{name}/random/{n}: {e}");
            emit_times(("cuda-device", name, "random", n), &[], Some(&e), &[])
        }
    };
}

/// Keys compared as their ordered bits: floats bit for bit, NaN payloads included.
fn same_key<K: Key>(a: &K, b: &K) -> bool {
    a.to_ordered_bits() == b.to_ordered_bits()
}

/// Keys of type `K` through `sort_keys_device`, or with their positions as values through
/// `sort_pairs_device` when `with_values`.
fn split_row<K: Key + DeviceRepr>(
    ctx: &Arc<CudaContext>,
    s: &Sorter,
    (name, n, with_values): (&str, usize, bool),
    key: impl Fn(usize) -> K + Sync + Send,
) {
    let keys: Vec<K> = (0..n).into_par_iter().map(key).collect();
    let values: Option<Vec<u32>> = with_values.then(|| (0..n as u32).into_par_iter().collect());
    let (mut ek, mut ev) = (keys.clone(), values.clone());
    let cpu = Sorter::cpu().with_order(s.order());
    let reference = match ev.as_mut() {
        Some(v) => cpu.sort_pairs(&mut ek, v),
        None => cpu.sort_keys(&mut ek),
    };
    if let Err(e) = reference {
        eprintln!("skipped: cuda-device/{name}/random/{n}: the CPU reference failed: {e}");
        return;
    }
    time_row(ctx, name, (keys, values), (ek, ev), same_key, |k, v, st| match v {
        Some(v) => s.sort_pairs_device(k, v, st),
        None => s.sort_keys_device(k, st),
    });
}

/// `Kvp` pairs through `sort_kvp_device`, timed as split keys would be (the buffers hold `Kvp`s).
fn kvp_row(ctx: &Arc<CudaContext>, s: &Sorter, name: &str, n: usize, key: impl Fn(usize) -> u32 + Sync + Send) {
    let pairs: Vec<Kvp> = (0..n).into_par_iter().map(|i| Kvp::new(key(i), i as u32)).collect();
    let mut expect = pairs.clone();
    if let Err(e) = Sorter::cpu().with_order(s.order()).sort_kvp(&mut expect) {
        eprintln!("skipped: cuda-device/{name}/random/{n}: the CPU reference failed: {e}");
        return;
    }
    time_row(ctx, name, (pairs, None), (expect, None), |a, b| a == b, |d, _, st| s.sort_kvp_device(d, st));
}
