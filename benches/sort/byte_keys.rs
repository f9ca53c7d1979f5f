//! The byte-keys table, part of the host tables: 16-byte keys ordered as `memcmp`, as one byte
//! column of a lexsort.
//!
//! Device (group `byte-keys-device`): sorts `lexsort-bytes16` (`lexsort_device` of
//! `DeviceColumn::bytes`, u32 indices) on three key sets, `random` (the first 8 bytes of two keys
//! almost never tie: the probe of the top two words finds no ties), `prefix8` (the first 8 bytes
//! the same in every key) and `ties8` (the first 8 bytes from 4096 values: ties everywhere, the
//! probe's worst case), beside the anchor `pairs-u64-u32` (`sort_pairs_device` of random u64 keys
//! with u32 values, the input restored before each run, not timed); CUDA events around the call,
//! 3 warm-ups, median of 15, the first result checked against the CPU backend. Sizes
//! `GPUSORT_BENCH_BYTES_DEVICE_SIZES` (default 64M).
//!
//! Host (group `byte-keys-host`, key set `random`): `cuda-bytes16` (`lexsort_into` of a host byte
//! column, u32 indices) beside `floor_ms` (16 bytes a key up, 4 down at this run's pinned rates)
//! and `cpu-bytes16`. Sizes `GPUSORT_BENCH_BYTES_HOST_SIZES` (default 64M).

use std::sync::Arc;

use gpusort::cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT;
use gpusort::cudarc::driver::{CudaSlice, CudaStream, DriverError};
use gpusort::{Column, DeviceColumn, SortError, Sorter};
use rayon::prelude::*;

use crate::host::{measure, Case, Floor};
use crate::inputs::{env_sizes, splitmix};
use crate::record::{emit_times, json_num};

const MIB: usize = 1 << 20;
const WARMUPS: usize = 3;
const RUNS: usize = 15;
const WIDTH: usize = 16;

/// `n` 16-byte keys: two words of the splitmix64 stream seeded with n, the first replaced as the
/// key set says.
fn keys(n: usize, set: &str) -> Vec<u8> {
    let mut rows = vec![0u8; n * WIDTH];
    rows.par_chunks_mut(WIDTH).enumerate().for_each(|(i, row)| {
        let (a, b) = (splitmix(n as u64, 2 * i as u64), splitmix(n as u64, 2 * i as u64 + 1));
        let top = match set {
            "prefix8" => 0x6770_7573_6f72_7421,
            "ties8" => a % 4096,
            _ => a,
        };
        row[..8].copy_from_slice(&top.to_be_bytes());
        row[8..].copy_from_slice(&b.to_be_bytes());
    });
    rows
}

struct HostCase {
    rows: Vec<u8>,
    out: Vec<u32>,
    want: Vec<u32>,
}

impl Case for HostCase {
    fn len(&self) -> usize {
        self.out.len()
    }
    fn bytes(&self) -> usize {
        self.rows.len()
    }
    fn restore(&mut self) {}
    fn sort(&mut self, s: &Sorter) -> Result<(), SortError> {
        s.lexsort_into(&[Column::byte_rows(&self.rows, WIDTH)], &mut self.out)
    }
    fn check(&self) -> Result<(), String> {
        (self.out == self.want).then_some(()).ok_or_else(|| "lexsort: not the CPU backend's permutation".into())
    }
}

pub fn run(gpu: &Sorter, floor: &Floor) {
    for n in env_sizes("GPUSORT_BENCH_BYTES_HOST_SIZES", &[64 * MIB]) {
        let rows = keys(n, "random");
        let want = Sorter::cpu().lexsort(&[Column::byte_rows(&rows, WIDTH)]).expect("CPU lexsort");
        let mut case = HostCase { rows, out: vec![0; n], want };
        let extra = [("floor_ms", json_num(floor.ms_each(n * WIDTH, n * 4)))];
        measure("byte-keys-host", "cuda-bytes16", &mut case, gpu, false, &extra);
        measure("byte-keys-host", "cpu-bytes16", &mut case, &Sorter::cpu(), true, &[]);
    }
    for n in env_sizes("GPUSORT_BENCH_BYTES_DEVICE_SIZES", &[64 * MIB]) {
        for set in ["random", "prefix8", "ties8"] {
            let id = ("byte-keys-device", "lexsort-bytes16", set, n);
            report(id, time_lexsort(gpu, &keys(n, set)));
        }
        report(("byte-keys-device", "pairs-u64-u32", "random", n), time_pairs(gpu, n));
    }
}

fn report(id: (&str, &str, &str, usize), times: Result<Vec<f64>, String>) {
    match times {
        Ok(times) => emit_times(id, &times, None, &[]),
        Err(e) => {
            eprintln!("skipped: {}/{}/{}/{}: {e}", id.0, id.1, id.2, id.3);
            emit_times(id, &[], Some(&e), &[])
        }
    };
}

/// Events on a new stream of the sorter's context: `prepare` (not timed) then `call` (timed), once
/// checked and then 3 warm-ups and 15 timed runs.
fn time_calls(
    s: &Sorter,
    mut prepare: impl FnMut(&Arc<CudaStream>) -> Result<(), String>,
    mut call: impl FnMut(&Arc<CudaStream>) -> Result<(), SortError>,
    mut check: impl FnMut(&Arc<CudaStream>) -> Result<(), String>,
) -> Result<Vec<f64>, String> {
    let e = |e: DriverError| e.to_string();
    let ctx = s.cuda_context().ok_or("not a cuda sorter")?;
    let stream = ctx.new_stream().map_err(e)?;
    let (start, end) =
        (ctx.new_event(Some(CU_EVENT_DEFAULT)).map_err(e)?, ctx.new_event(Some(CU_EVENT_DEFAULT)).map_err(e)?);
    let mut times = Vec::with_capacity(RUNS);
    for run in 0..1 + WARMUPS + RUNS {
        prepare(&stream)?;
        start.record(&stream).map_err(e)?;
        call(&stream).map_err(|e| e.to_string())?;
        end.record(&stream).map_err(e)?;
        end.synchronize().map_err(e)?;
        if run == 0 {
            check(&stream)?;
        } else if run > WARMUPS {
            times.push(start.elapsed_ms(&end).map_err(e)? as f64);
        }
    }
    Ok(times)
}

fn time_lexsort(s: &Sorter, rows: &[u8]) -> Result<Vec<f64>, String> {
    let e = |e: DriverError| e.to_string();
    let want = Sorter::cpu().lexsort(&[Column::byte_rows(rows, WIDTH)]).map_err(|e| e.to_string())?;
    let stream = s.cuda_context().ok_or("not a cuda sorter")?.default_stream();
    let dev = stream.clone_htod(rows).map_err(e)?;
    let out: std::cell::RefCell<CudaSlice<u32>> = stream.alloc_zeros(want.len()).map_err(e)?.into();
    stream.synchronize().map_err(e)?;
    time_calls(
        s,
        |_| Ok(()),
        |st| s.lexsort_device(&[DeviceColumn::bytes(&dev, WIDTH)], &mut out.borrow_mut(), st),
        |st| match st.clone_dtoh(&*out.borrow()).map_err(e)? == want {
            true => Ok(()),
            false => Err("the result differs from the CPU backend's lexsort".into()),
        },
    )
}

fn time_pairs(s: &Sorter, n: usize) -> Result<Vec<f64>, String> {
    let e = |e: DriverError| e.to_string();
    let keys: Vec<u64> = (0..n as u64).into_par_iter().map(|i| splitmix(n as u64, i)).collect();
    let values: Vec<u32> = (0..n as u32).collect();
    let mut want = keys.clone();
    Sorter::cpu().sort_keys(&mut want).map_err(|e| e.to_string())?;
    let stream = s.cuda_context().ok_or("not a cuda sorter")?.default_stream();
    let (pristine_k, pristine_v) = (stream.clone_htod(&keys).map_err(e)?, stream.clone_htod(&values).map_err(e)?);
    let work = std::cell::RefCell::new((stream.clone_htod(&keys).map_err(e)?, stream.clone_htod(&values).map_err(e)?));
    stream.synchronize().map_err(e)?;
    time_calls(
        s,
        |st| {
            let (k, v) = &mut *work.borrow_mut();
            st.memcpy_dtod(&pristine_k, k).map_err(e)?;
            st.memcpy_dtod(&pristine_v, v).map_err(e)
        },
        |st| {
            let (k, v) = &mut *work.borrow_mut();
            s.sort_pairs_device(k, v, st)
        },
        |st| match st.clone_dtoh(&work.borrow().0).map_err(e)? == want {
            true => Ok(()),
            false => Err("the keys differ from the CPU backend's sort".into()),
        },
    )
}
