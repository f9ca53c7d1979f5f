//! Where the global rank boundaries fall in the sorted shares of a sort spread over several
//! devices (kernel: `multi_count_below_*` in `kernels-cuda/cuda/multi.cu`).
//!
//! Device `d` ends with the items of global ranks `bounds[d]..bounds[d + 1]`. For a boundary `r`
//! the search finds the ordered value `v` of the item at rank `r`: the largest `v` with fewer than
//! `r + 1` keys ordering before it, summed over every share. It narrows `v` one 8-bit digit at a
//! time, asking every device at once how many of its keys order below each of the 257 candidates
//! of the digit (one launch and one small read-back per device per digit: 4 rounds for 32-bit
//! keys, 8 for 64-bit). The boundary then cuts each share before its keys below `v` plus enough
//! of its keys equal to `v`, given to the shares in order, to reach `r`: equal keys stay in input
//! order, as the shares are consecutive ranges of the input and each share's sort is stable.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig};

use crate::cuda::device::Gpu;
use crate::cuda::dispatch::{DeviceItem, SpreadKernels};
use crate::cuda::overlap::{self, Args, Launch};
use crate::cuda::radix::order_flags;
use crate::hooks::{self, Step};
use crate::{Order, SortError};

/// Candidates per digit: the 256 digit values and the next prefix, whose count bounds the last.
const CANDIDATES: usize = 257;
const DIGIT_BITS: u32 = 8;

/// The kernels that spread `T` over several devices; `Unsupported` for items without them.
pub(crate) fn spread_kernels<T: DeviceItem>() -> Result<SpreadKernels, SortError> {
    T::SPREAD.ok_or_else(|| SortError::Unsupported {
        backend: "cuda",
        what: format!("{} items spread over several devices", std::any::type_name::<T>()),
    })
}

/// `cuts[g][d]`: where share `g` (sorted on `streams[g]`) is cut for the device that ends with
/// ranks from `bounds[d]`; `cuts[g][0] == 0` and `cuts[g][devices] == sorted[g].len()`.
pub(crate) fn cuts<T: DeviceItem>(
    gpus: &[Arc<Gpu>],
    streams: &[Arc<CudaStream>],
    sorted: &[&mut CudaSlice<T>],
    bounds: &[usize],
    order: Order,
) -> Result<Vec<Vec<usize>>, SortError> {
    let devices = gpus.len();
    let lens: Vec<usize> = sorted.iter().map(|s| s.len()).collect();
    let targets = &bounds[1..devices];
    let search = spread_kernels::<T>()?;
    let flags = order_flags(search.key_flags, order);
    let top = 1u128 << search.bits;

    // Per target: the ordered value found so far, and each share's counts below the candidates
    // that bracket it (`lo`: below the value, `hi`: below the value + 1).
    let mut prefix = vec![0u128; targets.len()];
    let mut lo = vec![vec![0usize; devices]; targets.len()];
    let mut hi = vec![lens.clone(); targets.len()];
    let mut shift = search.bits;
    while shift > 0 {
        shift -= DIGIT_BITS;
        let candidates: Vec<u128> =
            prefix.iter().flat_map(|&p| (0..CANDIDATES as u128).map(move |c| p + (c << shift))).collect();
        let below = count_below(gpus, streams, sorted, flags, search.count_below, &candidates, top)?;
        for (t, &r) in targets.iter().enumerate() {
            let base = t * CANDIDATES;
            let total = |c: usize| below.iter().map(|share| share[base + c]).sum::<usize>();
            // Candidate 0 is the prefix itself, below which fewer than r + 1 keys order.
            let c = (1..CANDIDATES).take_while(|&c| total(c) <= r).last().unwrap_or(0);
            prefix[t] += (c as u128) << shift;
            for g in 0..devices {
                lo[t][g] = below[g][base + c];
                hi[t][g] = below[g][base + c + 1];
            }
        }
    }

    let mut cuts = vec![vec![0usize; devices + 1]; devices];
    for (g, share) in cuts.iter_mut().enumerate() {
        share[devices] = lens[g];
    }
    for (t, &r) in targets.iter().enumerate() {
        // r - (keys below the value) of its equals go before the boundary, shares in order.
        let mut take = r - lo[t].iter().sum::<usize>();
        for g in 0..devices {
            let here = take.min(hi[t][g] - lo[t][g]);
            cuts[g][t + 1] = lo[t][g] + here;
            take -= here;
        }
        debug_assert_eq!(take, 0, "boundary {r} not reached");
    }
    Ok(cuts)
}

/// `below[g][q]`: the keys of share `g` ordering before `candidates[q]` (values from `top` up
/// count every key, without a launch needing to represent them).
fn count_below<T: DeviceItem>(
    gpus: &[Arc<Gpu>],
    streams: &[Arc<CudaStream>],
    sorted: &[&mut CudaSlice<T>],
    flags: i32,
    kernel: &'static str,
    candidates: &[u128],
    top: u128,
) -> Result<Vec<Vec<usize>>, SortError> {
    let queries: Vec<u64> = candidates.iter().map(|&v| v.min(top - 1) as u64).collect();
    let nq = queries.len() as u32;
    let mut pending = Vec::with_capacity(gpus.len());
    for ((gpu, stream), share) in gpus.iter().zip(streams).zip(sorted) {
        hooks::hit(Step::Exchange)?;
        let f = gpu.function(&gpusort_kernels::MULTI, kernel)?;
        let err = |op| SortError::driver(op, queries.len() * 8);
        let q = stream.clone_htod(&queries).map_err(err("rank search candidates"))?;
        // SAFETY: written by the launch below before it is read.
        let mut below = unsafe { stream.alloc::<u64>(queries.len()) }.map_err(err("rank search counts"))?;
        let n = share.len() as u64;
        let cfg = LaunchConfig { grid_dim: (nq.div_ceil(256), 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        {
            // The guards order the launch after the buffers' last writes, and record it as their
            // last use when they drop, after the launch.
            let (sp, _gs) = share.device_ptr(stream);
            let (qp, _gq) = q.device_ptr(stream);
            let (bp, _gb) = below.device_ptr_mut(stream);
            let mut args = Args::new();
            args.arg(sp).arg(n).arg(flags).arg(qp).arg(nq).arg(bp);
            // SAFETY: matches multi_count_below_*(const Item*, u64 n, int order, const u64*, u32 nq,
            // u64*): `share` holds n items of the kernel's item type (DeviceItem::SPREAD), `q` and
            // `below` nq words. multi.cu's kernels do not wait for the previous grid, so it
            // launches plainly.
            unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, cfg, &mut args) }
                .map_err(SortError::driver(kernel, 0))?;
        }
        pending.push(below);
    }
    let mut out = Vec::with_capacity(gpus.len());
    for ((stream, below), share) in streams.iter().zip(&pending).zip(sorted) {
        let counts = stream.clone_dtoh(below).map_err(SortError::driver("rank search counts", queries.len() * 8))?;
        stream.synchronize().map_err(SortError::driver("cuStreamSynchronize", 0))?;
        let all = share.len();
        out.push(candidates.iter().zip(counts).map(|(&v, c)| if v >= top { all } else { c as usize }).collect());
    }
    Ok(out)
}
