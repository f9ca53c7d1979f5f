//! Top-k, host to host: the k smallest of 64M random u32 keys (`Sorter::top_k`, keys
//! and positions returned), k = 16, 1K and 1M, beside the full sort of the same keys on the same
//! sorter (`sort-all`, what top-k saves) in the same run. torch.topk, the anchor, is measured by
//! `ci/topk_torch.py` on the same keys.
//!
//! Group `topk`, pattern `random`: sorts `cuda-topk-<k>` (the GPU selects), `cpu-topk-<k>` (the
//! host selects), `auto-topk-<k>` (`Sorter::auto()` picks), `cuda-device-topk-<k>` (keys already
//! on the device, CUDA events), `cuda-sort-all`.
//! Size: `GPUSORT_BENCH_TOPK_N` (default 64M, 0 for none).

use gpusort::{SortError, Sorter, TopK};
use rayon::prelude::*;
use serde_json::Value;

use crate::host::{measure, Case};
use crate::inputs::{env_count, par_copy, Pattern};
use crate::record::emit_times;

const MIB: usize = 1 << 20;

struct TopkCase {
    keys: Vec<u32>,
    k: usize,
    top: TopK<u32>,
}

impl Case for TopkCase {
    fn len(&self) -> usize {
        self.keys.len()
    }
    fn bytes(&self) -> usize {
        self.keys.len() * 4
    }
    fn restore(&mut self) {}
    fn sort(&mut self, s: &Sorter) -> Result<(), SortError> {
        self.top = s.top_k(&self.keys, self.k)?;
        Ok(())
    }
    /// Each result key is the input's key at its index, the keys ascend, no index repeats, and
    /// the k-th key splits the input: fewer than k keys below it, at least k at or below it.
    fn check(&self) -> Result<(), String> {
        let (top, k) = (&self.top, self.k);
        if top.keys.len() != k || top.indices.len() != k {
            return Err(format!("{} keys and {} indices for k = {k}", top.keys.len(), top.indices.len()));
        }
        if let Some(i) = (0..k).find(|&i| self.keys[top.indices[i] as usize] != top.keys[i]) {
            return Err(format!("key {i} is not the input's key at index {}", top.indices[i]));
        }
        if let Some(i) = (1..k).find(|&i| (top.keys[i - 1], top.indices[i - 1]) >= (top.keys[i], top.indices[i])) {
            return Err(format!("keys {} and {i} are out of order", i - 1));
        }
        let last = top.keys[k - 1];
        let below = self.keys.par_iter().filter(|&&x| x < last).count();
        let upto = self.keys.par_iter().filter(|&&x| x <= last).count();
        if below >= k || upto < k {
            return Err(format!("{below} keys below and {upto} at or below the k-th key {last}"));
        }
        Ok(())
    }
}

/// The full sort of a copy of the keys, timed the same way.
struct SortAllCase {
    keys: Vec<u32>,
    work: Vec<u32>,
}

impl Case for SortAllCase {
    fn len(&self) -> usize {
        self.keys.len()
    }
    fn bytes(&self) -> usize {
        self.keys.len() * 4
    }
    fn restore(&mut self) {
        par_copy(&mut self.work, &self.keys);
    }
    fn sort(&mut self, s: &Sorter) -> Result<(), SortError> {
        s.sort_keys(&mut self.work)
    }
    fn check(&self) -> Result<(), String> {
        match self.work.par_windows(2).position_any(|w| w[0] > w[1]) {
            Some(i) => Err(format!("keys {i} and {} are out of order", i + 1)),
            None => Ok(()),
        }
    }
}

/// `Sorter::top_k_device` on the same keys already on the device: CUDA events around the call,
/// median after warm-ups (the anchor is torch.topk on a device tensor). The result must equal
/// the host top-k's (`want`).
#[cfg(feature = "cuda")]
fn device_rows(gpu: &Sorter, keys: &[u32], k: usize, want: &TopK<u32>) {
    use gpusort::cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT;
    let Some(ctx) = gpu.cuda_context() else { return };
    let n = keys.len();
    let name = format!("cuda-device-topk-{k}");
    let result = (|| -> Result<Vec<f64>, String> {
        let stream = ctx.new_stream().map_err(|e| e.to_string())?;
        let dev = stream.clone_htod(keys).map_err(|e| e.to_string())?;
        let mut times = Vec::new();
        for it in 0..18 {
            let a = ctx.new_event(Some(CU_EVENT_DEFAULT)).map_err(|e| e.to_string())?;
            let b = ctx.new_event(Some(CU_EVENT_DEFAULT)).map_err(|e| e.to_string())?;
            a.record(&stream).map_err(|e| e.to_string())?;
            let top = gpu.top_k_device(&dev, k, &stream).map_err(|e| e.to_string())?;
            b.record(&stream).map_err(|e| e.to_string())?;
            b.synchronize().map_err(|e| e.to_string())?;
            if it >= 3 {
                times.push(a.elapsed_ms(&b).map_err(|e| e.to_string())? as f64);
            }
            if it == 17 {
                let got = stream.clone_dtoh(&top.keys).map_err(|e| e.to_string())?;
                let at = stream.clone_dtoh(&top.indices).map_err(|e| e.to_string())?;
                stream.synchronize().map_err(|e| e.to_string())?;
                if got != want.keys || at != want.indices {
                    return Err("the device top-k differs from the host top-k".into());
                }
            }
        }
        Ok(times)
    })();
    let b = [("bytes", Value::from(n * 4)), ("k", Value::from(k))];
    match result {
        Ok(times) => {
            let med = emit_times(("topk", &name, "random", n), &times, None, &b);
            eprintln!("topk/{name}/random/{n}: {med:.3} ms (device-resident), median of {}", times.len());
        }
        Err(e) => {
            eprintln!("failed: topk/{name}/random/{n}: {e}");
            emit_times(("topk", &name, "random", n), &[], Some(&e), &b);
        }
    }
}

pub fn run(gpu: &Sorter) {
    let n = env_count("GPUSORT_BENCH_TOPK_N", 64 * MIB);
    if n == 0 {
        return;
    }
    let mut keys = Pattern::Random.keys(n, 0);
    let cpu = Sorter::cpu();
    for k in [16, 1024, MIB] {
        let mut case = TopkCase { keys, k: k.min(n), top: TopK::default() };
        let b = [("bytes", Value::from(case.bytes())), ("k", Value::from(k))];
        measure("topk", &format!("cuda-topk-{k}"), &mut case, gpu, false, &b);
        measure("topk", &format!("cpu-topk-{k}"), &mut case, &cpu, true, &b);
        measure("topk", &format!("auto-topk-{k}"), &mut case, &Sorter::auto(), false, &b);
        #[cfg(feature = "cuda")]
        device_rows(gpu, &case.keys, k.min(n), &case.top);
        keys = case.keys;
    }
    let mut all = SortAllCase { work: keys.clone(), keys };
    let b = [("bytes", Value::from(all.bytes()))];
    measure("topk", "cuda-sort-all", &mut all, gpu, false, &b);
}
