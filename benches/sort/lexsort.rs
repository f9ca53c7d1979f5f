//! The lexsort table, part of the host tables: `Sorter::lexsort_into` host to host beside its
//! floor and beside the argsort of one `u64` key per row (what the packed two-column sort is held
//! to), and `Sorter::lexsort_device` beside `argsort_device` of `u64` keys.
//!
//! Host (group `lexsort-host`, pattern `random`): sorts `cuda-u32-u32` (two u32 columns: one
//! packed 64-bit key), `cuda-f32-i64` (two words), `cuda-u64` (the argsort of one u64 column, the
//! anchor), and `cpu-u32-f64` at 16M; u64 indices, as NumPy and torch return them; `floor_ms` the
//! columns up then the indices down at this run's pinned rates. Sizes
//! `GPUSORT_BENCH_LEXSORT_SIZES` (default 64M).
//!
//! Device (group `lexsort-device`): sorts `lexsort-u32-u32`, `lexsort-f32-i64`, `argsort-u64` and
//! `lexsort-u64` (the one u64 column as a lexsort: two 32-bit words), u64 indices, CUDA events around the call, 3 warm-ups, median of 15, the first result checked
//! against the CPU backend. Sizes `GPUSORT_BENCH_LEXSORT_DEVICE_SIZES` (default 16M, 64M).
//!
//! Columns come from the splitmix64 stream seeded with n: the first column its low 32 bits (as
//! u32, or as f32 bits with NaNs), the second its high 32 bits (u32, f64 of the whole word shifted,
//! or i64 of the whole word rotated), so ties in the first column are rare but present.

use std::sync::Arc;

use gpusort::cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT;
use gpusort::cudarc::driver::{CudaSlice, CudaStream, DriverError};
use gpusort::{Column, DeviceColumn, Sorter};
use rayon::prelude::*;
use serde_json::Value;

use crate::host::{measure, Case, Floor};
use crate::inputs::{env_sizes, splitmix};
use crate::record::{emit_times, json_num};

const MIB: usize = 1 << 20;
const WARMUPS: usize = 3;
const RUNS: usize = 15;

/// Two columns of one table, typed.
enum Table {
    U32U32(Vec<u32>, Vec<u32>),
    F32I64(Vec<f32>, Vec<i64>),
    U32F64(Vec<u32>, Vec<f64>),
    U64(Vec<u64>),
}

impl Table {
    fn new(kind: &str, n: usize) -> Table {
        let z = |i: u64| splitmix(n as u64, i);
        let col = |f: &(dyn Fn(u64) -> u64 + Sync)| -> Vec<u64> { (0..n as u64).into_par_iter().map(f).collect() };
        match kind {
            "u32-u32" => Table::U32U32(
                col(&|i| z(i) & 0xffff_ffff).into_iter().map(|x| x as u32).collect(),
                col(&|i| z(i) >> 32).into_iter().map(|x| x as u32).collect(),
            ),
            "f32-i64" => Table::F32I64(
                col(&|i| z(i) & 0xffff_ffff).into_iter().map(|x| f32::from_bits(x as u32)).collect(),
                col(&|i| z(i).rotate_left(7)).into_iter().map(|x| x as i64).collect(),
            ),
            "u32-f64" => Table::U32F64(
                col(&|i| z(i) & 0xffff).into_iter().map(|x| x as u32).collect(),
                col(&|i| z(i)).into_iter().map(|x| (x >> 11) as f64).collect(),
            ),
            _ => Table::U64(col(&z)),
        }
    }

    fn columns(&self) -> Vec<Column<'_>> {
        match self {
            Table::U32U32(a, b) => vec![Column::new(a), Column::new(b)],
            Table::F32I64(a, b) => vec![Column::new(a), Column::new(b)],
            Table::U32F64(a, b) => vec![Column::new(a), Column::new(b)],
            Table::U64(a) => vec![Column::new(a)],
        }
    }

    fn bytes(&self) -> usize {
        match self {
            Table::U32U32(a, b) => size_of_val(&a[..]) + size_of_val(&b[..]),
            Table::F32I64(a, b) => size_of_val(&a[..]) + size_of_val(&b[..]),
            Table::U32F64(a, b) => size_of_val(&a[..]) + size_of_val(&b[..]),
            Table::U64(a) => size_of_val(&a[..]),
        }
    }
}

struct HostCase {
    table: Table,
    out: Vec<u64>,
    want: Vec<u32>,
}

impl Case for HostCase {
    fn len(&self) -> usize {
        self.out.len()
    }
    fn bytes(&self) -> usize {
        self.table.bytes()
    }
    fn restore(&mut self) {}
    fn sort(&mut self, s: &Sorter) -> Result<(), gpusort::SortError> {
        s.lexsort_into(&self.table.columns(), &mut self.out)
    }
    fn check(&self) -> Result<(), String> {
        match self.out.iter().map(|&p| p as u32).eq(self.want.iter().copied()) {
            true => Ok(()),
            false => Err("lexsort: not the CPU backend's permutation".into()),
        }
    }
}

fn host_case(kind: &str, n: usize) -> HostCase {
    let table = Table::new(kind, n);
    let want = Sorter::cpu().lexsort(&table.columns()).expect("CPU lexsort");
    HostCase { table, out: vec![0; n], want }
}

pub fn run(gpu: &Sorter, floor: &Floor) {
    for n in env_sizes("GPUSORT_BENCH_LEXSORT_SIZES", &[64 * MIB]) {
        for kind in ["u32-u32", "f32-i64", "u64"] {
            let mut case = host_case(kind, n);
            let (up, down) = (case.table.bytes(), n * 8);
            let extra = [
                ("bytes_up", Value::from(up)),
                ("bytes_down", Value::from(down)),
                ("floor_ms", json_num(floor.ms_each(up, down))),
            ];
            measure("lexsort-host", &format!("cuda-{kind}"), &mut case, gpu, false, &extra);
        }
    }
    let n = 16 * MIB;
    let mut cpu = host_case("u32-f64", n);
    measure("lexsort-host", "cpu-u32-f64", &mut cpu, &Sorter::cpu(), true, &[]);
    device(gpu);
}

fn device(gpu: &Sorter) {
    for n in env_sizes("GPUSORT_BENCH_LEXSORT_DEVICE_SIZES", &[16 * MIB, 64 * MIB]) {
        for (kind, sort) in [
            ("u32-u32", "lexsort-u32-u32"),
            ("f32-i64", "lexsort-f32-i64"),
            ("u64", "argsort-u64"),
            ("u64", "lexsort-u64"),
        ] {
            let id = ("lexsort-device", sort, "random", n);
            match time_device(gpu, &Table::new(kind, n), sort.starts_with("lexsort")) {
                Ok(times) => emit_times(id, &times, None, &[]),
                Err(e) => {
                    eprintln!("skipped: lexsort-device/{sort}/random/{n}: {e}");
                    emit_times(id, &[], Some(&e), &[])
                }
            };
        }
    }
}

/// The call's milliseconds, warm-ups dropped; the first result checked against the CPU. One column
/// is sorted by `argsort_device` unless `lexsort`.
fn time_device(s: &Sorter, table: &Table, lexsort: bool) -> Result<Vec<f64>, String> {
    let e = |e: DriverError| e.to_string();
    let ctx = s.cuda_context().ok_or("not a cuda sorter")?;
    let stream: Arc<CudaStream> = ctx.new_stream().map_err(e)?;
    let want = Sorter::cpu().lexsort(&table.columns()).map_err(|e| e.to_string())?;
    let n = want.len();
    let mut out: CudaSlice<u64> = stream.alloc_zeros(n).map_err(e)?;
    let (start, end) =
        (ctx.new_event(Some(CU_EVENT_DEFAULT)).map_err(e)?, ctx.new_event(Some(CU_EVENT_DEFAULT)).map_err(e)?);
    let mut times = Vec::with_capacity(RUNS);
    let mut run_once = |call: &dyn Fn(&mut CudaSlice<u64>) -> Result<(), gpusort::SortError>| -> Result<(), String> {
        for run in 0..1 + WARMUPS + RUNS {
            start.record(&stream).map_err(e)?;
            call(&mut out).map_err(|e| e.to_string())?;
            end.record(&stream).map_err(e)?;
            end.synchronize().map_err(e)?;
            if run == 0 {
                let got = stream.clone_dtoh(&out).map_err(e)?;
                if !got.iter().map(|&p| p as u32).eq(want.iter().copied()) {
                    return Err("the result differs from the CPU backend's lexsort".into());
                }
            } else if run > WARMUPS {
                times.push(start.elapsed_ms(&end).map_err(e)? as f64);
            }
        }
        Ok(())
    };
    match table {
        Table::U32U32(a, b) => {
            let (a, b) = (stream.clone_htod(a).map_err(e)?, stream.clone_htod(b).map_err(e)?);
            run_once(&|o| s.lexsort_device(&[DeviceColumn::new(&a), DeviceColumn::new(&b)], o, &stream))?;
        }
        Table::F32I64(a, b) => {
            let (a, b) = (stream.clone_htod(a).map_err(e)?, stream.clone_htod(b).map_err(e)?);
            run_once(&|o| s.lexsort_device(&[DeviceColumn::new(&a), DeviceColumn::new(&b)], o, &stream))?;
        }
        Table::U32F64(a, b) => {
            let (a, b) = (stream.clone_htod(a).map_err(e)?, stream.clone_htod(b).map_err(e)?);
            run_once(&|o| s.lexsort_device(&[DeviceColumn::new(&a), DeviceColumn::new(&b)], o, &stream))?;
        }
        Table::U64(a) => {
            let a = stream.clone_htod(a).map_err(e)?;
            match lexsort {
                true => run_once(&|o| s.lexsort_device(&[DeviceColumn::new(&a)], o, &stream))?,
                false => run_once(&|o| s.argsort_device(&a, o, &stream))?,
            }
        }
    }
    Ok(times)
}
