//! The argsort table, part of the host tables: `Sorter::argsort_into` host to host beside its
//! floor, and `Sorter::argsort_device` beside the split-pairs sort of the same keys on the device.
//!
//! Host (group `argsort-host`, pattern `random`): sorts `cuda-<key>-<index>` and
//! `cuda-<key>-<index>-desc` for u32, f32 and u64 keys with u32 and u64 indices, and
//! `cpu-u32-u32`, and `cuda-u32-u32-ooc` / `cuda-u64-u64-ooc` under a device budget of an eighth of
//! the in-core argsort's need (out of core: the `Kvp` runs, or the 64-bit keys' split runs merged
//! on the host); `bytes_up` (the keys), `bytes_down` (the indices) and `floor_ms` (the keys up,
//! then the indices down, at this run's pinned rates: no argsort of pageable data beats it).
//! Sizes `GPUSORT_BENCH_ARGSORT_SIZES` (default 64M, 256M).
//!
//! Device (group `argsort-device`, pattern `random`): sorts `argsort-<key>` (u64 indices, as
//! torch and CuPy return them; the keys only read) and `pairs-<key>` (the keys with u32 values by
//! `sort_pairs_device`, the input restored before each run, not timed), for i32, f32, i64 and f64
//! keys from the splitmix64 stream seeded with n (32-bit keys its low half, NaNs included). CUDA
//! events around the call alone, 3 warm-ups, median of 15; the first result is checked against the
//! CPU backend. Sizes `GPUSORT_BENCH_ARGSORT_DEVICE_SIZES` (default 1M, 16M, 64M).

use std::sync::Arc;

use gpusort::cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT;
use gpusort::cudarc::driver::{CudaSlice, CudaStream, DeviceRepr, DriverError, ValidAsZeroBits};
use gpusort::{ArgIndex, Key, Order, SortError, Sorter};
use rayon::prelude::*;
use serde_json::Value;

use crate::host::{measure, Case, Floor};
use crate::inputs::{env_sizes, splitmix};
use crate::record::{emit_times, json_num};

const MIB: usize = 1 << 20;
const WARMUPS: usize = 3;
const RUNS: usize = 15;

/// A host argsort: the keys (never written) and the indices.
pub struct HostCase<K, I> {
    keys: Vec<K>,
    out: Vec<I>,
    order: Order,
}

impl<K: Key, I: ArgIndex + Default> HostCase<K, I> {
    fn new(n: usize, order: Order, key: impl Fn(u64) -> K + Sync + Send) -> Self {
        HostCase::of((0..n as u64).into_par_iter().map(key).collect(), order)
    }

    /// The argsort of `keys` in `order`.
    pub fn of(keys: Vec<K>, order: Order) -> Self {
        let out = (0..keys.len()).into_par_iter().map(|_| I::default()).collect();
        HostCase { keys, out, order }
    }
}

impl<K: Key, I: ArgIndex> Case for HostCase<K, I> {
    fn len(&self) -> usize {
        self.keys.len()
    }
    fn bytes(&self) -> usize {
        std::mem::size_of_val(&self.keys[..])
    }
    fn restore(&mut self) {}
    fn sort(&mut self, s: &Sorter) -> Result<(), SortError> {
        s.argsort_into(&self.keys, &mut self.out)
    }
    fn check(&self) -> Result<(), String> {
        check_permutation(&self.keys, &self.out, self.order)
    }
}

/// Whether `p` is the stable permutation that sorts `keys` in `order`: in order by (key,
/// position), every position below n (so, rising strictly within equal keys, each one once).
fn check_permutation<K: Key, I: ArgIndex>(keys: &[K], p: &[I], order: Order) -> Result<(), String> {
    let n = keys.len() as u64;
    let rank = |i: I| order.directed(keys[i.position() as usize].to_ordered_bits());
    let bad = p.par_windows(2).position_any(|w| {
        let (a, b) = (w[0].position(), w[1].position());
        a >= n || b >= n || !(rank(w[0]) < rank(w[1]) || (rank(w[0]) == rank(w[1]) && a < b))
    });
    match bad {
        Some(i) => {
            Err(format!("argsort: positions {} then {} at {i} are out of order", p[i].position(), p[i + 1].position()))
        }
        None if p.len() == keys.len() => Ok(()),
        None => Err("argsort: wrong length".into()),
    }
}

pub fn run(gpu: &Sorter, floor: &Floor) {
    for n in env_sizes("GPUSORT_BENCH_ARGSORT_SIZES", &[64 * MIB, 256 * MIB]) {
        for order in [Order::Ascending, Order::Descending] {
            let z = move |i: u64| splitmix(n as u64, i);
            host_row::<u32, u32>(gpu, floor, ("u32", n, order), |i| z(i) as u32);
            host_row::<u32, u64>(gpu, floor, ("u32", n, order), |i| z(i) as u32);
            host_row::<f32, u64>(gpu, floor, ("f32", n, order), |i| f32::from_bits(z(i) as u32));
            host_row::<u64, u32>(gpu, floor, ("u64", n, order), z);
            host_row::<u64, u64>(gpu, floor, ("u64", n, order), z);
        }
        // Out of core: a device budget that holds an eighth of the keys' in-core argsort.
        let z = move |i: u64| splitmix(n as u64, i);
        let limited = gpu.clone().with_device_memory_limit((n * 26 / 8).max(64 * MIB));
        host_row::<u32, u32>(&limited, floor, ("u32", n, Order::Ascending), |i| z(i) as u32);
        host_row::<u64, u64>(&limited, floor, ("u64", n, Order::Ascending), z);
        let mut cpu = HostCase::<u32, u32>::new(n, Order::Ascending, |i| splitmix(n as u64, i) as u32);
        let b = [("bytes", Value::from(cpu.bytes()))];
        measure("argsort-host", "cpu-u32-u32", &mut cpu, &Sorter::cpu(), true, &b);
    }
    device(gpu);
}

fn host_row<K: Key, I: ArgIndex + Default>(
    gpu: &Sorter,
    floor: &Floor,
    (key, n, order): (&str, usize, Order),
    make: impl Fn(u64) -> K + Sync + Send,
) {
    let mut case = HostCase::<K, I>::new(n, order, make);
    let (up, down) = (n * size_of::<K>(), n * size_of::<I>());
    let index = if size_of::<I>() == 4 { "u32" } else { "u64" };
    let desc = if order == Order::Descending { "-desc" } else { "" };
    let ooc = if gpu.device_memory_limit().is_some() { "-ooc" } else { "" };
    let extra = [
        ("bytes_up", Value::from(up)),
        ("bytes_down", Value::from(down)),
        ("floor_ms", json_num(floor.ms_each(up, down))),
    ];
    let sort = format!("cuda-{key}-{index}{desc}{ooc}");
    measure("argsort-host", &sort, &mut case, &gpu.clone().with_order(order), false, &extra);
}

fn device(gpu: &Sorter) {
    for n in env_sizes("GPUSORT_BENCH_ARGSORT_DEVICE_SIZES", &[MIB, 16 * MIB, 64 * MIB]) {
        let z = move |i: u64| splitmix(n as u64, i);
        device_rows(gpu, "i32", n, |i| z(i) as u32 as i32);
        device_rows(gpu, "f32", n, |i| f32::from_bits(z(i) as u32));
        device_rows(gpu, "i64", n, |i| z(i) as i64);
        device_rows(gpu, "f64", n, |i| f64::from_bits(z(i)));
    }
}

/// `argsort-<key>` and `pairs-<key>` at `n` (see the module docs).
fn device_rows<K: Key + DeviceRepr + ValidAsZeroBits>(
    gpu: &Sorter,
    key: &str,
    n: usize,
    make: impl Fn(u64) -> K + Sync + Send,
) {
    let keys: Vec<K> = (0..n as u64).into_par_iter().map(make).collect();
    for (sort, pairs) in [(format!("argsort-{key}"), false), (format!("pairs-{key}"), true)] {
        let id = ("argsort-device", sort.as_str(), "random", n);
        match time_device(gpu, &keys, pairs) {
            Ok(times) => emit_times(id, &times, None, &[]),
            Err(e) => {
                eprintln!("skipped: argsort-device/{sort}/random/{n}: {e}");
                emit_times(id, &[], Some(&e), &[])
            }
        };
    }
}

/// The call's milliseconds, warm-ups dropped: the argsort of `keys` into u64 indices, or their
/// split-pairs sort with positions as values; the first result checked against the CPU.
fn time_device<K: Key + DeviceRepr + ValidAsZeroBits>(s: &Sorter, keys: &[K], pairs: bool) -> Result<Vec<f64>, String> {
    let e = |e: DriverError| e.to_string();
    let ctx = s.cuda_context().ok_or("not a cuda sorter")?;
    let stream: Arc<CudaStream> = ctx.new_stream().map_err(e)?;
    let n = keys.len();
    let pristine = stream.clone_htod(keys).map_err(e)?;
    let positions: Vec<u32> = (0..n as u32).into_par_iter().collect();
    let pristine_values = stream.clone_htod(&positions).map_err(e)?;
    let mut work_keys: CudaSlice<K> = stream.clone_htod(keys).map_err(e)?;
    let mut work_values: CudaSlice<u32> = stream.clone_htod(&positions).map_err(e)?;
    let mut out: CudaSlice<u64> = stream.alloc_zeros(n).map_err(e)?;
    let (start, end) =
        (ctx.new_event(Some(CU_EVENT_DEFAULT)).map_err(e)?, ctx.new_event(Some(CU_EVENT_DEFAULT)).map_err(e)?);
    let want = Sorter::cpu().argsort(keys).map_err(|e| e.to_string())?;
    let mut times = Vec::with_capacity(RUNS);
    for run in 0..1 + WARMUPS + RUNS {
        if pairs {
            stream.memcpy_dtod(&pristine, &mut work_keys).map_err(e)?;
            stream.memcpy_dtod(&pristine_values, &mut work_values).map_err(e)?;
        }
        start.record(&stream).map_err(e)?;
        let r = match pairs {
            true => s.sort_pairs_device(&mut work_keys, &mut work_values, &stream),
            false => s.argsort_device(&pristine, &mut out, &stream),
        };
        r.map_err(|e| e.to_string())?;
        end.record(&stream).map_err(e)?;
        end.synchronize().map_err(e)?;
        if run == 0 {
            let got: Vec<u64> = match pairs {
                true => stream.clone_dtoh(&work_values).map_err(e)?.into_iter().map(u64::from).collect(),
                false => stream.clone_dtoh(&out).map_err(e)?,
            };
            if !got.iter().copied().eq(want.iter().map(|&p| p as u64)) {
                return Err("the result differs from the CPU backend's argsort".into());
            }
        } else if run > WARMUPS {
            times.push(start.elapsed_ms(&end).map_err(e)? as f64);
        }
    }
    Ok(times)
}
