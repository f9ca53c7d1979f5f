//! The kernels of `positions.cu`: an argsort's positions made on the device (`iota`) and widened
//! there to the caller's 64-bit indices (`widen`), so neither crosses the bus as anything but the
//! result.

use std::sync::Arc;

use cudarc::driver::{CudaStream, DevicePtr, DevicePtrMut, LaunchConfig};

use super::overlap::{self, Args, Launch};
use super::Gpu;
use crate::SortError;

const THREADS: u32 = 256;

/// Enough blocks for `n` items at four a thread, at most a few waves: the launch of every
/// kernel that streams through memory once in a grid-stride loop (here and `small_keys.rs`).
pub(crate) fn config(gpu: &Gpu, n: usize) -> LaunchConfig {
    let blocks = n.div_ceil(4 * THREADS as usize).clamp(1, gpu.multiprocessors as usize * 16) as u32;
    LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 }
}

/// `out[i] = i`, queued on `stream`. At most 2^32 positions.
pub(crate) fn iota(gpu: &Gpu, stream: &Arc<CudaStream>, out: &mut impl DevicePtrMut<u32>) -> Result<(), SortError> {
    let n = out.len();
    debug_assert!(n as u64 <= 1 << 32);
    if n == 0 {
        return Ok(());
    }
    let f = gpu.function(&gpusort_kernels::POSITIONS, "positions_iota")?;
    let (op, _go) = out.device_ptr_mut(stream);
    let mut a = Args::new();
    a.arg(op).arg(n as u64);
    // SAFETY: matches positions_iota(unsigned* out, u64 n): `out` holds n u32s and is borrowed
    // until the launch is queued on `stream`.
    unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, config(gpu, n), &mut a) }
        .map_err(SortError::driver("positions_iota", 0))
}

/// `out[i] = from[i]` as u64, queued on `stream`; the lengths are equal.
pub(crate) fn widen(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    from: &impl DevicePtr<u32>,
    out: &mut impl DevicePtrMut<u64>,
) -> Result<(), SortError> {
    let n = out.len();
    assert_eq!(from.len(), n, "one position in for each out");
    if n == 0 {
        return Ok(());
    }
    let f = gpu.function(&gpusort_kernels::POSITIONS, "positions_widen")?;
    let (fp, _gf) = from.device_ptr(stream);
    let (op, _go) = out.device_ptr_mut(stream);
    let mut a = Args::new();
    a.arg(fp).arg(op).arg(n as u64);
    // SAFETY: matches positions_widen(const unsigned* in, u64* out, u64 n): both buffers hold n
    // items and are borrowed until the launch is queued on `stream`; they do not overlap (one is
    // borrowed mutably).
    unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, config(gpu, n), &mut a) }
        .map_err(SortError::driver("positions_widen", 0))
}
