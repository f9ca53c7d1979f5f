//! The small-keys table, part of the host tables: 8- and 16-bit keys and half-precision floats.
//!
//! Host (group `small-keys-host`, pattern `random`): sorts `cuda-<t>` and `cpu-<t>` of `u8`,
//! `u16` and `f16` keys host to host (`sort_keys`), `bytes` the keys one way, `floor_ms` the keys
//! up and back at their own width at this run's pinned rates. Sizes
//! `GPUSORT_BENCH_SMALL_HOST_SIZES` (default 256M).
//!
//! Device (group `small-keys-device`): sorts `keys-<t>` (`sort_keys_device`) and `argsort-<t>`
//! (`argsort_device`, u64 indices as torch returns them) for `u8`, `u16`, `f16`, `bf16` and, as
//! the anchor, `u32`; CUDA events around the call, 3 warm-ups, median of 15, the first result checked
//! against the CPU backend. Sizes `GPUSORT_BENCH_SMALL_DEVICE_SIZES` (default 64M).
//!
//! Keys are the low bits of the splitmix64 stream seeded with n: every 16-bit pattern, NaNs of
//! both signs included.

use std::sync::Arc;

use gpusort::cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT;
use gpusort::cudarc::driver::{CudaSlice, CudaStream, DeviceRepr, DriverError, ValidAsZeroBits};
use gpusort::{bf16, f16, Key, SortError, Sorter};
use rayon::prelude::*;
use serde_json::Value;

use crate::host::{measure, Case, Floor};
use crate::inputs::{env_sizes, par_copy, splitmix};
use crate::record::{emit_times, json_num};

const MIB: usize = 1 << 20;
const WARMUPS: usize = 3;
const RUNS: usize = 15;

/// `n` keys of `K` from the low bits of the stream.
fn keys<K: Key + Send>(n: usize, of: impl Fn(u64) -> K + Sync + Send) -> Vec<K> {
    (0..n as u64).into_par_iter().map(|i| of(splitmix(n as u64, i))).collect()
}

/// A host keys sort: the input, the caller's buffer, the CPU backend's result.
struct HostCase<K> {
    input: Vec<K>,
    work: Vec<K>,
    want: Vec<K>,
}

impl<K: Key + Send + Sync> HostCase<K> {
    fn new(input: Vec<K>) -> HostCase<K> {
        let mut want = input.clone();
        Sorter::cpu().sort_keys(&mut want).expect("CPU sort");
        HostCase { work: input.clone(), input, want }
    }
}

impl<K: Key + Send + Sync> Case for HostCase<K> {
    fn len(&self) -> usize {
        self.input.len()
    }
    fn bytes(&self) -> usize {
        size_of_val(&self.input[..])
    }
    fn restore(&mut self) {
        par_copy(&mut self.work, &self.input);
    }
    fn sort(&mut self, s: &Sorter) -> Result<(), SortError> {
        s.sort_keys(&mut self.work)
    }
    fn check(&self) -> Result<(), String> {
        let same = self.work.par_iter().zip(&self.want).all(|(a, b)| a.to_ordered_bits() == b.to_ordered_bits());
        same.then_some(()).ok_or_else(|| "not the CPU backend's result".into())
    }
}

fn host<K: Key + Send + Sync>(gpu: &Sorter, floor: &Floor, name: &str, input: Vec<K>) {
    let mut case = HostCase::new(input);
    let bytes = case.bytes();
    let extra = [("bytes", Value::from(bytes)), ("floor_ms", json_num(floor.ms_each(bytes, bytes)))];
    measure("small-keys-host", &format!("cuda-{name}"), &mut case, gpu, false, &extra);
    measure("small-keys-host", &format!("cpu-{name}"), &mut case, &Sorter::cpu(), true, &extra[..1]);
}

pub fn run(gpu: &Sorter, floor: &Floor) {
    for n in env_sizes("GPUSORT_BENCH_SMALL_HOST_SIZES", &[256 * MIB]) {
        host(gpu, floor, "u8", keys(n, |z| z as u8));
        host(gpu, floor, "u16", keys(n, |z| z as u16));
        host(gpu, floor, "f16", keys(n, |z| f16::from_bits(z as u16)));
    }
    for n in env_sizes("GPUSORT_BENCH_SMALL_DEVICE_SIZES", &[64 * MIB]) {
        device(gpu, "u8", &keys(n, |z| z as u8));
        device(gpu, "u16", &keys(n, |z| z as u16));
        device(gpu, "f16", &keys(n, |z| f16::from_bits(z as u16)));
        device(gpu, "bf16", &keys(n, |z| bf16::from_bits(z as u16)));
        device(gpu, "u32", &keys(n, |z| z as u32));
    }
}

fn device<K: Key + DeviceRepr + ValidAsZeroBits>(gpu: &Sorter, name: &str, keys: &[K]) {
    let n = keys.len();
    for (sort, argsort) in [(format!("keys-{name}"), false), (format!("argsort-{name}"), true)] {
        let id = ("small-keys-device", sort.as_str(), "random", n);
        match time_device(gpu, keys, argsort) {
            Ok(times) => emit_times(id, &times, None, &[]),
            Err(e) => {
                eprintln!("skipped: small-keys-device/{sort}/random/{n}: {e}");
                emit_times(id, &[], Some(&e), &[])
            }
        };
    }
}

/// The call's milliseconds, warm-ups dropped; the first result checked against the CPU. A keys
/// sort restores its input with a device copy before each call (not timed).
fn time_device<K: Key + DeviceRepr + ValidAsZeroBits>(
    s: &Sorter,
    keys: &[K],
    argsort: bool,
) -> Result<Vec<f64>, String> {
    let e = |e: DriverError| e.to_string();
    let ctx = s.cuda_context().ok_or("not a cuda sorter")?;
    let stream: Arc<CudaStream> = ctx.new_stream().map_err(e)?;
    let cpu = Sorter::cpu();
    let want_perm: Vec<u64> = match argsort {
        true => cpu.argsort(keys).map_err(|e| e.to_string())?.into_iter().map(u64::from).collect(),
        false => Vec::new(),
    };
    let mut want_keys = keys.to_vec();
    if !argsort {
        cpu.sort_keys(&mut want_keys).map_err(|e| e.to_string())?;
    }
    let input = stream.clone_htod(keys).map_err(e)?;
    let mut work: CudaSlice<K> = stream.clone_htod(keys).map_err(e)?;
    let mut out: CudaSlice<u64> = stream.alloc_zeros(keys.len()).map_err(e)?;
    let (start, end) =
        (ctx.new_event(Some(CU_EVENT_DEFAULT)).map_err(e)?, ctx.new_event(Some(CU_EVENT_DEFAULT)).map_err(e)?);
    let mut times = Vec::with_capacity(RUNS);
    for run in 0..1 + WARMUPS + RUNS {
        if !argsort {
            stream.memcpy_dtod(&input, &mut work).map_err(e)?;
        }
        start.record(&stream).map_err(e)?;
        match argsort {
            true => s.argsort_device(&input, &mut out, &stream),
            false => s.sort_keys_device(&mut work, &stream),
        }
        .map_err(|e| e.to_string())?;
        end.record(&stream).map_err(e)?;
        end.synchronize().map_err(e)?;
        if run == 0 {
            let same = match argsort {
                true => stream.clone_dtoh(&out).map_err(e)? == want_perm,
                false => {
                    let got = stream.clone_dtoh(&work).map_err(e)?;
                    got.iter().zip(&want_keys).all(|(a, b)| a.to_ordered_bits() == b.to_ordered_bits())
                }
            };
            if !same {
                return Err("the result differs from the CPU backend's".into());
            }
        } else if run > WARMUPS {
            times.push(start.elapsed_ms(&end).map_err(e)? as f64);
        }
    }
    Ok(times)
}
