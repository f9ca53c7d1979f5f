//! The records table, part of the host tables: `Sorter::argsort` of u32 keys and
//! `Sorter::sort_by_key` of 32-byte records, host to host, with the yardsticks the issue names
//! beside them in the same run: the split-pairs sort of the same keys (`host/cuda-pairs` at the
//! same n when that row runs) and two parallel copies of the records over memory.
//!
//! Records (group `records`, pattern `random`): sorts `cuda-argsort`, `cpu-argsort`,
//! `cuda-sort-by-key`, `cpu-sort-by-key`, `copy-twice` (two `par_copy`s of the records, the
//! memory floor of a permutation done out of place and copied back); `bytes` (the records' or
//! the keys' size). Sizes: `GPUSORT_BENCH_RECORDS_SIZES` (default 64M); the CPU rows up to
//! `GPUSORT_BENCH_HOST_CPU_MAX`. `GPUSORT_BENCH_RECORDS_ON_DEVICE_FROM=<bytes>` moves the
//! threshold from which `sort_by_key` puts the records in order on the GPU (the tuning's
//! `RECORDS_ON_DEVICE_FROM_BYTES`), to time both paths at one size.

use gpusort::{Order, SortError, Sorter};
use rayon::prelude::*;
use serde_json::Value;

use crate::argsort::HostCase;
use crate::host::{measure, Case};
use crate::inputs::{env_count, env_sizes, par_copy, splitmix, Pattern};

const MIB: usize = 1 << 20;

/// A 32-byte record: its key, its input position, and fields that must stay with it.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Row {
    key: u32,
    at: u32,
    payload: [u64; 3],
}

fn payload(at: u32) -> [u64; 3] {
    [splitmix(1, at as u64), splitmix(2, at as u64), at as u64]
}

struct RecordsCase {
    input: Vec<Row>,
    work: Vec<Row>,
    /// `copy-twice`: the records out of place and back, no sort.
    copy_only: bool,
    scratch: Vec<Row>,
}

impl RecordsCase {
    fn new(n: usize, copy_only: bool) -> RecordsCase {
        let keys = Pattern::Random.keys(n, 0);
        let input: Vec<Row> = keys
            .par_iter()
            .enumerate()
            .map(|(i, &key)| Row { key, at: i as u32, payload: payload(i as u32) })
            .collect();
        let scratch = if copy_only { input.par_iter().copied().collect() } else { Vec::new() };
        RecordsCase { work: input.par_iter().copied().collect(), input, copy_only, scratch }
    }
}

impl Case for RecordsCase {
    fn len(&self) -> usize {
        self.input.len()
    }
    fn bytes(&self) -> usize {
        std::mem::size_of_val(&self.input[..])
    }
    fn restore(&mut self) {
        par_copy(&mut self.work, &self.input);
    }
    fn sort(&mut self, s: &Sorter) -> Result<(), SortError> {
        if self.copy_only {
            par_copy(&mut self.scratch, &self.work);
            par_copy(&mut self.work, &self.scratch);
            return Ok(());
        }
        s.sort_by_key(&mut self.work, |r| r.key)
    }
    /// Ordered by (key, input position), every record whole: a stable permutation.
    fn check(&self) -> Result<(), String> {
        if self.copy_only {
            return if self.work == self.input { Ok(()) } else { Err("copy-twice changed the records".into()) };
        }
        let n = self.input.len() as u32;
        let bad = |r: &Row| r.at >= n || r.payload != payload(r.at) || self.input[r.at as usize].key != r.key;
        if let Some(i) = self.work.par_iter().position_any(bad) {
            return Err(format!("sort_by_key: record {i} is not whole: {:?}", self.work[i]));
        }
        match self.work.par_windows(2).position_any(|w| (w[0].key, w[0].at) >= (w[1].key, w[1].at)) {
            Some(i) => Err(format!("sort_by_key: records {i} and {} are out of order", i + 1)),
            None => Ok(()),
        }
    }
}

pub fn run(gpu: &Sorter) {
    let cpu_max = env_count("GPUSORT_BENCH_HOST_CPU_MAX", 256 * MIB);
    if let Ok(from) = std::env::var("GPUSORT_BENCH_RECORDS_ON_DEVICE_FROM") {
        // Per thread: the bench sorts on this one.
        gpusort::hooks::set_records_on_device_from(from.trim().parse().expect("GPUSORT_BENCH_RECORDS_ON_DEVICE_FROM"));
    }
    let cpu = Sorter::cpu();
    for n in env_sizes("GPUSORT_BENCH_RECORDS_SIZES", &[64 * MIB]) {
        let mut argsort = HostCase::<u32, u32>::of(Pattern::Random.keys(n, 0), Order::Ascending);
        let b = [("bytes", Value::from(argsort.bytes()))];
        measure("records", "cuda-argsort", &mut argsort, gpu, false, &b);
        if n <= cpu_max {
            measure("records", "cpu-argsort", &mut argsort, &cpu, true, &b);
        }
        drop(argsort);
        let mut copy = RecordsCase::new(n, true);
        let b = [("bytes", Value::from(copy.bytes()))];
        measure("records", "copy-twice", &mut copy, gpu, false, &b);
        drop(copy);
        let mut rows = RecordsCase::new(n, false);
        measure("records", "cuda-sort-by-key", &mut rows, gpu, false, &b);
        if n <= cpu_max {
            measure("records", "cpu-sort-by-key", &mut rows, &cpu, true, &b);
        }
    }
}
