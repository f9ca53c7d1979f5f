//! Sorts spread over every GPU of the host beside the same sorts on the first GPU alone,
//! same data, same run. Runs only on a host with several usable GPUs.
//! - Host to host, `Kvp`s and u32 keys: wall time (the `host` group's loop, `host::measure`).
//! - Device-resident `Kvp`s: on one GPU, `sort_kvp_device` of all n; across the GPUs,
//!   `sort_kvp_across` of n / GPUs on each. Wall time from the call to the end of every stream
//!   (the work spans devices, which CUDA events cannot), median after two warm-ups; the inputs
//!   are restored on the devices before each run, untimed. The result across the GPUs must equal
//!   the one-GPU result item for item (both are the stable sort), which must be sorted.
//!
//! Group `multi-gpu`, pattern `random`: sorts `cuda-1-kvp`, `cuda-all-kvp`, `cuda-1-keys`,
//! `cuda-all-keys`, `cuda-1-device-kvp`, `cuda-all-device-kvp`; `gpus` on every row.
//! Sizes: `GPUSORT_BENCH_MULTI_SIZES` (Kvp host, default 4M,16M,64M,256M,1G),
//! `GPUSORT_BENCH_MULTI_KEY_SIZES` (u32 keys host, default 256M),
//! `GPUSORT_BENCH_MULTI_DEVICE_SIZES` (Kvp on the devices, default 64M,256M,1G).

use gpusort::Sorter;
use serde_json::Value;

use crate::host::{measure, Case, KvpCase, SplitCase};
use crate::inputs::env_sizes;
#[cfg(feature = "cuda")]
use crate::record::emit_times;

const MIB: usize = 1 << 20;

pub fn run(one: &Sorter) {
    let all = match Sorter::cuda_all() {
        Ok(s) if s.multi_gpu_from().is_some() => s.with_multi_gpu_from(1),
        _ => {
            eprintln!("skipped: multi-gpu: fewer than two usable GPUs");
            return;
        }
    };
    let gpus = all.describe().matches(" + ").count() + 1;
    eprintln!("multi-gpu: {all}");
    let rows = |case: &mut dyn Case, shape: &str| {
        for (s, name, count) in [(one, "1", 1), (&all, "all", gpus)] {
            let b = [("bytes", Value::from(case.bytes())), ("gpus", Value::from(count))];
            measure("multi-gpu", &format!("cuda-{name}-{shape}"), case, s, false, &b);
        }
    };
    for n in env_sizes("GPUSORT_BENCH_MULTI_SIZES", &[4 * MIB, 16 * MIB, 64 * MIB, 256 * MIB, 1024 * MIB]) {
        rows(&mut KvpCase::new(n, None).expect("ordinary memory"), "kvp");
    }
    for n in env_sizes("GPUSORT_BENCH_MULTI_KEY_SIZES", &[256 * MIB]) {
        rows(&mut SplitCase::new(n, false, None).expect("ordinary memory"), "keys");
    }
    all.release_memory();
    #[cfg(feature = "cuda")]
    for n in env_sizes("GPUSORT_BENCH_MULTI_DEVICE_SIZES", &[64 * MIB, 256 * MIB, 1024 * MIB]) {
        if let Err(e) = device::rows(one, &all, gpus, n) {
            eprintln!("failed: multi-gpu/device/random/{n}: {e}");
            emit_times(("multi-gpu", "cuda-all-device-kvp", "random", n), &[], Some(&e), &[]);
        }
    }
}

#[cfg(feature = "cuda")]
mod device {
    use std::sync::Arc;
    use std::time::Instant;

    use gpusort::cudarc::driver::{CudaContext, CudaSlice, CudaStream};
    use gpusort::{DeviceShare, Kvp, Sorter};
    use rayon::prelude::*;
    use serde_json::Value;

    use crate::inputs::Pattern;
    use crate::record::emit_times;

    const RUNS: usize = 9;
    const WARM: usize = 2;

    fn err(e: impl std::fmt::Display) -> String {
        e.to_string()
    }

    /// Times `sort` (which must leave its work queued on `streams`) after restoring every `work`
    /// buffer from its `pristine` twin, untimed; median of the runs after the warm-ups.
    fn time(
        streams: &[Arc<CudaStream>],
        pristine: &[CudaSlice<Kvp>],
        work: &mut [CudaSlice<Kvp>],
        mut sort: impl FnMut(&mut [CudaSlice<Kvp>]) -> Result<(), String>,
    ) -> Result<Vec<f64>, String> {
        let mut times = Vec::new();
        for r in 0..RUNS {
            for ((st, p), w) in streams.iter().zip(pristine).zip(work.iter_mut()) {
                st.memcpy_dtod(p, w).map_err(err)?;
                st.synchronize().map_err(err)?;
            }
            let t = Instant::now();
            sort(work)?;
            for st in streams {
                st.synchronize().map_err(err)?;
            }
            if r >= WARM {
                times.push(t.elapsed().as_secs_f64() * 1e3);
            }
        }
        Ok(times)
    }

    pub fn rows(one: &Sorter, all: &Sorter, gpus: usize, n: usize) -> Result<(), String> {
        let input = Pattern::Random.kvps(n, 0);
        let b = |g: usize| [("bytes", Value::from(n * 8)), ("gpus", Value::from(g))];

        // One GPU, all n.
        let ctx = one.cuda_context().ok_or("no context")?;
        let st = vec![ctx.new_stream().map_err(err)?];
        let pristine = vec![st[0].clone_htod(&input).map_err(err)?];
        let mut work = vec![st[0].clone_htod(&input).map_err(err)?];
        let t1 = time(&st, &pristine, &mut work, |w| one.sort_kvp_device(&mut w[0], &st[0]).map_err(err))?;
        let want = st[0].clone_dtoh(&work[0]).map_err(err)?;
        drop((pristine, work));
        one.release_memory();
        if let Some(i) = want.par_windows(2).position_any(|w| w[0].key > w[1].key) {
            return Err(format!("the one-GPU result is not sorted at {i}"));
        }

        // Every GPU, n / gpus each.
        let streams: Vec<Arc<CudaStream>> = (0..gpus)
            .map(|o| CudaContext::new(o).and_then(|c| c.new_stream()))
            .collect::<Result<_, _>>()
            .map_err(err)?;
        let cut = |i: usize| n * i / gpus;
        let pieces = |i: usize| &input[cut(i)..cut(i + 1)];
        let pristine: Vec<_> =
            streams.iter().enumerate().map(|(i, s)| s.clone_htod(pieces(i))).collect::<Result<_, _>>().map_err(err)?;
        let mut work: Vec<_> =
            streams.iter().enumerate().map(|(i, s)| s.clone_htod(pieces(i))).collect::<Result<_, _>>().map_err(err)?;
        let tn = time(&streams, &pristine, &mut work, |w| {
            let mut shares: Vec<DeviceShare<'_, Kvp>> =
                w.iter_mut().zip(&streams).map(|(b, s)| DeviceShare::new(b, s)).collect();
            all.sort_kvp_across(&mut shares).map_err(err)
        })?;
        let mut got = Vec::with_capacity(n);
        for (w, s) in work.iter().zip(&streams) {
            got.extend(s.clone_dtoh(w).map_err(err)?);
        }
        if got.par_iter().zip(&want).any(|(a, b)| a != b) {
            return Err("the result across the GPUs differs from the one-GPU stable sort".into());
        }
        let m1 = emit_times(("multi-gpu", "cuda-1-device-kvp", "random", n), &t1, None, &b(1));
        let mn = emit_times(("multi-gpu", "cuda-all-device-kvp", "random", n), &tn, None, &b(gpus));
        eprintln!("multi-gpu/device-kvp/random/{n}: 1 GPU {m1:.3} ms, {gpus} GPUs {mn:.3} ms ({:.2}x)", m1 / mn);
        all.release_memory();
        Ok(())
    }
}
