//! The segmented sorts of issue 20, host to host: 64M (u32 key, u32 value) pairs cut into the
//! issue's three layouts (1M segments of 64, 64K of 1K, 256 of 256K), beside the plain pair sort
//! of the same pairs (`host/cuda-pairs`, one segment) in the same run. CUB's segmented sorts are
//! device to device (`ci/cub`), so they are no yardstick for these rows.
//!
//! Group `segments`, pattern `random`: sorts `cuda-segments-<segment length>` and
//! `cpu-segments-<segment length>`; `bytes` (keys and values). Size: `GPUSORT_BENCH_SEGMENTS_N`
//! (default 64M, 0 for none); the CPU rows up to `GPUSORT_BENCH_HOST_CPU_MAX`.

use gpusort::{SortError, Sorter};
use rayon::prelude::*;
use serde_json::Value;

use crate::host::{measure, Case};
use crate::inputs::{env_count, par_copy, Pattern};

const MIB: usize = 1 << 20;

struct SegmentsCase {
    keys: Vec<u32>,
    values: Vec<u32>,
    work_keys: Vec<u32>,
    work_values: Vec<u32>,
    offsets: Vec<usize>,
}

impl Case for SegmentsCase {
    fn len(&self) -> usize {
        self.keys.len()
    }
    fn bytes(&self) -> usize {
        self.keys.len() * 8
    }
    fn restore(&mut self) {
        par_copy(&mut self.work_keys, &self.keys);
        par_copy(&mut self.work_values, &self.values);
    }
    fn sort(&mut self, s: &Sorter) -> Result<(), SortError> {
        s.sort_segments(&mut self.work_keys, &mut self.work_values, &self.offsets)
    }
    /// Each segment ordered by (key, value), values being input positions: stable, and every
    /// value still with its key and inside its segment.
    fn check(&self) -> Result<(), String> {
        let (k, v) = (&self.work_keys, &self.work_values);
        self.offsets.par_windows(2).enumerate().try_for_each(|(s, w)| {
            for i in w[0]..w[1] {
                let at = v[i] as usize;
                if at < w[0] || at >= w[1] || self.keys[at] != k[i] {
                    return Err(format!("segment {s}: item {i} holds value {at}, not from its segment with its key"));
                }
                if i + 1 < w[1] && (k[i], v[i]) >= (k[i + 1], v[i + 1]) {
                    return Err(format!("segment {s}: items {i} and {} are out of order", i + 1));
                }
            }
            Ok(())
        })
    }
}

pub fn run(gpu: &Sorter) {
    let n = env_count("GPUSORT_BENCH_SEGMENTS_N", 64 * MIB);
    if n == 0 {
        return;
    }
    let cpu_max = env_count("GPUSORT_BENCH_HOST_CPU_MAX", 256 * MIB);
    let cpu = Sorter::cpu();
    let keys = Pattern::Random.keys(n, 0);
    let values: Vec<u32> = (0..n as u32).collect();
    for len in [64, 1024, 256 * 1024] {
        let offsets: Vec<usize> = (0..n.div_ceil(len)).map(|s| s * len).chain([n]).collect();
        let mut case = SegmentsCase {
            work_keys: keys.clone(),
            work_values: values.clone(),
            keys: keys.clone(),
            values: values.clone(),
            offsets,
        };
        let b = [("bytes", Value::from(case.bytes())), ("segment", Value::from(len))];
        measure("segments", &format!("cuda-segments-{len}"), &mut case, gpu, false, &b);
        if n <= cpu_max {
            measure("segments", &format!("cpu-segments-{len}"), &mut case, &cpu, true, &b);
        }
    }
}
