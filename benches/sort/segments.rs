//! The segmented sorts, host to host: 64M (u32 key, u32 value) pairs cut into the
//! issue's three layouts (1M segments of 64, 64K of 1K, 256 of 256K), beside the plain pair sort
//! of the same pairs (`host/cuda-pairs`, one segment) in the same run; and the same sorts of the
//! data already on the device (`cuda-device-segments-*`), the rows to set beside CUB's segmented
//! sorts (`benches/cub/segmented.sh`, device to device too).
//!
//! Group `segments`, pattern `random`: sorts `cuda-segments-<segment length>`,
//! `cpu-segments-<segment length>`, the same with u64 keys (`cuda-segments-u64-<length>`,
//! `cpu-segments-u64-<length>`, `cuda-device-segments-u64-[keys-]<length>`),
//! `cuda-device-segments-<length>` and
//! `cuda-device-segments-keys-<length>`; `bytes` (keys and values). Size: `GPUSORT_BENCH_SEGMENTS_N`
//! (default 64M, 0 for none); segment lengths: `GPUSORT_BENCH_SEGMENTS_LENGTHS` (default
//! 64,1024,262144); the CPU rows up to `GPUSORT_BENCH_HOST_CPU_MAX`.

use gpusort::{SortError, Sorter};
use rayon::prelude::*;
use serde_json::Value;

use crate::host::{measure, Case};
use crate::inputs::{env_count, env_sizes, par_copy, splitmix, Pattern};

const MIB: usize = 1 << 20;

struct SegmentsCase<K> {
    keys: Vec<K>,
    values: Vec<u32>,
    work_keys: Vec<K>,
    work_values: Vec<u32>,
    offsets: Vec<usize>,
}

impl<K: Copy> SegmentsCase<K> {
    fn new(keys: &[K], values: &[u32], offsets: Vec<usize>) -> Self {
        SegmentsCase {
            keys: keys.to_vec(),
            values: values.to_vec(),
            work_keys: keys.to_vec(),
            work_values: values.to_vec(),
            offsets,
        }
    }
}

impl<K: gpusort::Key + Ord> Case for SegmentsCase<K> {
    fn len(&self) -> usize {
        self.keys.len()
    }
    fn bytes(&self) -> usize {
        self.keys.len() * (size_of::<K>() + 4)
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

/// `Sorter::sort_segments_device` (pairs, then keys alone) on the same data already on the
/// device, CUDA events around the call, median after warm-ups: the rows CUB's
/// `DeviceSegmentedSort` (`benches/cub/segmented.sh`) compares with. The results must equal the host
/// sort's (`want_keys`, `want_values`).
#[cfg(feature = "cuda")]
fn device_rows<K>(gpu: &Sorter, case: &SegmentsCase<K>, len: usize, key_name: &str)
where
    K: gpusort::Key + gpusort::cudarc::driver::DeviceRepr + PartialEq,
{
    use crate::record::emit_times;
    use gpusort::cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT;
    let Some(ctx) = gpu.cuda_context() else { return };
    let n = case.keys.len();
    for with_values in [true, false] {
        let name = format!("cuda-device-segments-{key_name}{}{len}", if with_values { "" } else { "keys-" });
        let result = (|| -> Result<Vec<f64>, String> {
            let e = |e: gpusort::cudarc::driver::DriverError| e.to_string();
            let stream = ctx.new_stream().map_err(e)?;
            let offsets: Vec<u64> = case.offsets.iter().map(|&o| o as u64).collect();
            let d_offsets = stream.clone_htod(&offsets).map_err(e)?;
            let (pk, pv) = (stream.clone_htod(&case.keys).map_err(e)?, stream.clone_htod(&case.values).map_err(e)?);
            let (mut wk, mut wv) =
                (stream.clone_htod(&case.keys).map_err(e)?, stream.clone_htod(&case.values).map_err(e)?);
            let mut times = Vec::new();
            for it in 0..18 {
                stream.memcpy_dtod(&pk, &mut wk).map_err(e)?;
                stream.memcpy_dtod(&pv, &mut wv).map_err(e)?;
                let a = ctx.new_event(Some(CU_EVENT_DEFAULT)).map_err(e)?;
                let b = ctx.new_event(Some(CU_EVENT_DEFAULT)).map_err(e)?;
                a.record(&stream).map_err(e)?;
                let r = match with_values {
                    true => gpu.sort_segments_device(&mut wk, &mut wv, &d_offsets, &stream),
                    false => gpu.sort_segments_keys_device(&mut wk, &d_offsets, &stream),
                };
                r.map_err(|x| x.to_string())?;
                b.record(&stream).map_err(e)?;
                b.synchronize().map_err(e)?;
                if it >= 3 {
                    times.push(a.elapsed_ms(&b).map_err(e)? as f64);
                }
            }
            let (k, v) = (stream.clone_dtoh(&wk).map_err(e)?, stream.clone_dtoh(&wv).map_err(e)?);
            if k != case.work_keys || (with_values && v != case.work_values) {
                return Err("the device result differs from the host sort's".into());
            }
            Ok(times)
        })();
        let bytes = n * (size_of::<K>() + if with_values { 4 } else { 0 });
        let b = [("bytes", Value::from(bytes)), ("segment", Value::from(len))];
        match result {
            Ok(times) => {
                let med = emit_times(("segments", &name, "random", n), &times, None, &b);
                eprintln!("segments/{name}/random/{n}: {med:.3} ms (device-resident), median of {}", times.len());
            }
            Err(err) => {
                eprintln!("failed: segments/{name}/random/{n}: {err}");
                emit_times(("segments", &name, "random", n), &[], Some(&err), &b);
            }
        }
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
    let wide_keys: Vec<u64> = (0..n as u64).into_par_iter().map(|i| splitmix(3, i)).collect();
    for len in env_sizes("GPUSORT_BENCH_SEGMENTS_LENGTHS", &[64, 1024, 256 * 1024]) {
        assert!(len > 0, "GPUSORT_BENCH_SEGMENTS_LENGTHS: a segment length of 0");
        let offsets: Vec<usize> = (0..n.div_ceil(len)).map(|s| s * len).chain([n]).collect();
        let mut case = SegmentsCase::new(&keys, &values, offsets);
        let b = [("bytes", Value::from(case.bytes())), ("segment", Value::from(len))];
        measure("segments", &format!("cuda-segments-{len}"), &mut case, gpu, false, &b);
        #[cfg(feature = "cuda")]
        device_rows(gpu, &case, len, "");
        if n <= cpu_max {
            measure("segments", &format!("cpu-segments-{len}"), &mut case, &cpu, true, &b);
        }
        // The same layout with u64 keys (`cuda/segments/wide.rs`).
        let mut wide = SegmentsCase::new(&wide_keys, &values, std::mem::take(&mut case.offsets));
        let b = [("bytes", Value::from(wide.bytes())), ("segment", Value::from(len))];
        measure("segments", &format!("cuda-segments-u64-{len}"), &mut wide, gpu, false, &b);
        #[cfg(feature = "cuda")]
        device_rows(gpu, &wide, len, "u64-");
        if n <= cpu_max {
            measure("segments", &format!("cpu-segments-u64-{len}"), &mut wide, &cpu, true, &b);
        }
    }
}
