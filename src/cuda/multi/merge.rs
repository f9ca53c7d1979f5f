//! The sorted pieces one device received, merged into one run (`multi_merge_*` in
//! `kernels-cuda/cuda/multi.cu`): two pieces in one stable merge; more in rounds of pairs, back and
//! forth between the two buffers. Equal keys keep piece order, which is input order.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};

use crate::cuda::device::Gpu;
use crate::cuda::dispatch::DeviceItem;
use crate::cuda::overlap::{self, Args, Launch};
use crate::cuda::radix::{order_flags, Dev};
use crate::{Order, SortError};

/// Threads per block of the merge (`MERGE_THREADS`) and outputs per block and tile
/// (`MERGE_TILE`); the kernel strides over tiles, so the grid only sets how many run at once.
const THREADS: u32 = 256;
const TILE: usize = 2048;
/// Blocks per multiprocessor: 16 KB of shared memory each, so eight fit beside one another.
const BLOCKS_PER_SM: usize = 8;

/// Merges the sorted pieces of `src` that start at `starts` (ascending, the first 0) into `dst`,
/// queued on `stream`. `src` is overwritten when there are more than two pieces.
pub(crate) fn merge_pieces<T: DeviceItem>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    src: &mut CudaSlice<T>,
    starts: &[usize],
    dst: &mut CudaSlice<T>,
    order: Order,
) -> Result<(), SortError> {
    // `src` may hold a place more than `dst` (device buffers are at least one item long).
    let n = dst.len();
    assert!(src.len() >= n, "{} items merged into {n}", src.len());
    // Piece boundaries without the empty pieces.
    let mut bounds: Vec<usize> = starts.iter().copied().filter(|&s| s < n).collect();
    bounds.dedup();
    bounds.push(n);
    if bounds.len() <= 2 {
        return copy(stream, src, dst, 0, n);
    }
    let mut in_src = true;
    while bounds.len() > 2 {
        let (from, to): (&CudaSlice<T>, &mut CudaSlice<T>) =
            if in_src { (&*src, &mut *dst) } else { (&*dst, &mut *src) };
        let runs = bounds.len() - 1;
        let mut next = vec![0];
        for r in (0..runs).step_by(2) {
            let (a, m) = (bounds[r], bounds[r + 1]);
            if r + 1 == runs {
                // An odd piece out: carried over as it is.
                copy(stream, from, to, a, m)?;
                next.push(m);
                continue;
            }
            let e = bounds[r + 2];
            // Each guard records the launch as its view's last use when it drops, after the launch.
            let (fp, _gf) = from.slice(a..m).view_ptr(stream);
            let (sp, _gs) = from.slice(m..e).view_ptr(stream);
            let (op, _go) = to.slice_mut(a..e).view_ptr_mut(stream);
            // SAFETY: the two runs are items of `from`, the output their places in the other
            // buffer, all borrowed until the launch is queued.
            let (ra, rb, out) =
                unsafe { (Dev::<T>::new(fp, m - a), Dev::<T>::new(sp, e - m), Dev::<T>::new(op, e - a)) };
            merge_runs(gpu, stream, ra, rb, out, order)?;
            next.push(e);
        }
        bounds = next;
        in_src = !in_src;
    }
    if in_src {
        copy(stream, src, dst, 0, n)?;
    }
    Ok(())
}

/// The stable merge of the sorted runs `a` and `b` (equal keys: `a`'s first) into `out`, which
/// holds both and overlaps neither, queued on `stream`.
pub(crate) fn merge_runs<T: DeviceItem>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    a: Dev<T>,
    b: Dev<T>,
    out: Dev<T>,
    order: Order,
) -> Result<(), SortError> {
    assert_eq!(a.len() + b.len(), out.len(), "merged runs and their output");
    let spread = super::ranks::spread_kernels::<T>()?;
    let f = gpu.function(&gpusort_kernels::MULTI, spread.merge)?;
    let most = gpu.multiprocessors as usize * BLOCKS_PER_SM;
    let blocks = out.len().div_ceil(TILE).clamp(1, most) as u32;
    let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 };
    let mut args = Args::new();
    args.arg(a.ptr()).arg(a.len() as u64).arg(b.ptr()).arg(b.len() as u64).arg(out.ptr());
    args.arg(order_flags(spread.key_flags, order));
    // SAFETY: matches multi_merge_*(const Item* a, u64 na, const Item* b, u64 nb, Item* out, int
    // order) for T's layout (DeviceItem::SPREAD), the three ranges live (the callers' `Dev`
    // contract) and apart. multi.cu's kernels do not wait for the previous grid, so it launches
    // plainly.
    unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, cfg, &mut args) }
        .map_err(SortError::driver(spread.merge, 0))
}

/// `src[a..b]` to `dst[a..b]` on `stream`.
fn copy<T: DeviceItem>(
    stream: &Arc<CudaStream>,
    src: &CudaSlice<T>,
    dst: &mut CudaSlice<T>,
    a: usize,
    b: usize,
) -> Result<(), SortError> {
    if a == b {
        return Ok(());
    }
    let bytes = (b - a) * std::mem::size_of::<T>();
    stream
        .memcpy_dtod(&src.slice(a..b), &mut dst.slice_mut(a..b))
        .map_err(SortError::driver("copy on the device", bytes))
}
