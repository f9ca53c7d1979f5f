//! Segmented sorts of 64-bit keys (`u64`, `i64`, `f64`) on the device. The segment number has no
//! room beside such a key in one radix word, so positions are sorted instead, as the host API
//! does for these keys (`sorter/segments.rs`), by two stable radix sorts:
//! 1. a copy of the keys with their positions as values, by key in the wanted order;
//! 2. the positions by the segment each one lies in (ascending `u32` numbers; the radix sort skips
//!    the digit passes of the high bits no segment number sets, so 64K segments take 2 passes).
//!
//! Being stable, the second keeps the first's order inside each segment: every segment comes out
//! sorted, equal keys in their input order. The keys and values are then gathered through the
//! positions into scratch and copied back, so the caller's buffers are written only once every
//! step before was queued.
//!
//! One segment holding every key is the plain radix sort of the caller's buffers; segments of at
//! most 256 keys take the lanes networks of `segments.cu` in their 64-bit form (the key's ordered
//! bits and its place in the segment compared as a pair), as 32-bit keys do. H200, 64M u64 keys
//! with u32 values, device-resident, median of 15: 1M segments of 64 1.87 ms by the network (the
//! two sorts took 9.6), 64K of 1024 9.4 ms by the one-block network, so that length keeps the two
//! sorts (8.5 in an earlier call), 256 of 256K 9.2. Of the 9.6, the first sort takes about 5.3,
//! the second 2.2, finding the segments 1.0 and the gather 0.55.
//!
//! Extra device memory at its peak, whether values are given or not: 24 bytes per key (1.5 GB for
//! 64M keys) plus the radix sort's status words and counters (2 KB per tile, 6 KB): the key copy
//! (8) and the positions (4) throughout, and either the first sort's ping-pong copy of both (12)
//! or the segment numbers (4) and the second sort's copy of them and of the positions (8). Once
//! the first sort is done the key copy is spent: it holds the segment of every 64th item (which
//! bound each position's search for its own), then the gathered keys, and the segment numbers
//! take the gathered values. Each part is allocated on the caller's stream and freed there.

use crate::cuda::scratch::Scratch;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};

use super::super::device::Gpu;
use super::super::radix::{self, order_flags, Dev, RadixKey};
use super::{network, network_for, validate};
use crate::{Order, SortError};

/// Sorts each segment `offsets[s]..offsets[s + 1]` of the 64-bit `keys` (with `values`) on its
/// own, in `order`, stably, queued on `stream`. `Unsupported` from 2^32 keys on (the positions
/// are `u32`), before anything is queued.
pub(super) fn sort<K: RadixKey>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    keys: &mut CudaSlice<K>,
    values: Option<&mut CudaSlice<u32>>,
    offsets: &CudaSlice<u64>,
    order: Order,
) -> Result<(), SortError> {
    debug_assert_eq!(size_of::<K>(), 8);
    let n = keys.len();
    let longest = validate(gpu, stream, n, values.as_deref().map(|v| v.len()), offsets)?;
    if n < 2 || longest < 2 {
        return Ok(());
    }
    if n > u32::MAX as usize {
        return Err(SortError::Unsupported {
            backend: "cuda",
            what: format!(
                "segmented sorts of {n} 64-bit keys on the device: at most 2^32 - 1 (the positions are 32-bit)"
            ),
        });
    }
    if longest == n {
        return match values {
            Some(v) => radix::sort_pairs(gpu, stream, keys, v, order, Scratch::POOL),
            None => radix::sort_keys(gpu, stream, keys, order, Scratch::POOL),
        };
    }
    if let Some(kernel) = network_for(longest, true) {
        return network::<K, u64>(gpu, stream, kernel, keys, values, offsets, order_flags(K::ORDER_FLAGS, order));
    }
    let mut sorted = stream.clone_dtod(keys).map_err(SortError::driver("segmented sort key copy", n * 8))?;
    // SAFETY: positions_iota writes every position before the sort reads it.
    let mut positions =
        unsafe { stream.alloc::<u32>(n) }.map_err(SortError::driver("segmented sort positions", n * 4))?;
    crate::cuda::positions::iota(gpu, stream, &mut positions)?;
    radix::sort_pairs(gpu, stream, &mut sorted, &mut positions, order, Scratch::POOL)?;
    // Made after the first sort, so that its ping-pong copy is back in the stream's pool.
    // SAFETY: segments_of writes every number before the sort reads it.
    let mut seg = unsafe { stream.alloc::<u32>(n) }.map_err(SortError::driver("segmented sort numbers", n * 4))?;
    {
        // The sorted key copy is spent (the keys are gathered from the caller's buffer at the
        // end): it takes the samples that bound each position's search for its segment.
        let (tp, _gt) = sorted.device_ptr_mut(stream);
        let (op, _go) = offsets.device_ptr(stream);
        let (pp, _gp) = positions.device_ptr(stream);
        let (sp, _gs) = seg.device_ptr_mut(stream);
        // SAFETY: as above.
        let (samples, o, p, s) = unsafe {
            (
                Dev::<u64>::new(tp, n).cast::<u32>().range(0, n.div_ceil(launch::SAMPLE_ITEMS)),
                Dev::<u64>::new(op, offsets.len()),
                Dev::<u32>::new(pp, n),
                Dev::<u32>::new(sp, n),
            )
        };
        launch::samples(gpu, stream, o, n, samples)?;
        launch::segment_of(gpu, stream, p, o, samples, s)?;
    }
    radix::sort_pairs(gpu, stream, &mut seg, &mut positions, Order::Ascending, Scratch::POOL)?;
    {
        // The key copy and the segment numbers are spent: they take the gathered keys and values.
        let (pp, _gp) = positions.device_ptr(stream);
        let (kp, _gk) = keys.device_ptr(stream);
        let (tp, _gt) = sorted.device_ptr_mut(stream);
        let vp = values.as_deref().map(|v| v.device_ptr(stream));
        let (sp, _gs) = seg.device_ptr_mut(stream);
        // SAFETY: as above.
        let (p, k, t, v) = unsafe {
            (
                Dev::<u32>::new(pp, n),
                Dev::<u64>::new(kp, n),
                Dev::<u64>::new(tp, n),
                vp.as_ref().map(|(p, _)| (Dev::<u32>::new(*p, n), Dev::<u32>::new(sp, n))),
            )
        };
        launch::gather(gpu, stream, p, k, t, v)?;
    }
    stream.memcpy_dtod(&sorted, keys).map_err(SortError::driver("cuMemcpyDtoDAsync", n * 8))?;
    if let Some(v) = values {
        stream.memcpy_dtod(&seg, v).map_err(SortError::driver("cuMemcpyDtoDAsync", n * 4))?;
    }
    Ok(())
}

/// Typed wrappers of the 64-bit keys' kernels, launched as `Launch::Plain` (segments.cu's kernels
/// do not wait for the previous grid).
mod launch {
    use super::super::launch::{blocks, config, err};
    use super::*;
    use crate::cuda::overlap::{self, Args, Launch};

    /// Items per sample (`SAMPLE_ITEMS` in segments.cu).
    pub(super) const SAMPLE_ITEMS: usize = 64;

    /// `samples[b]`: the segment of item `b * SAMPLE_ITEMS`, for each of the `n` items it names.
    pub(super) fn samples(
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        offsets: Dev<u64>,
        n: usize,
        samples: Dev<u32>,
    ) -> Result<(), SortError> {
        assert!(offsets.len() >= 2 && samples.len() == n.div_ceil(SAMPLE_ITEMS));
        let f = gpu.function(&gpusort_kernels::SEGMENTS, "segments_samples")?;
        let mut a = Args::new();
        a.arg(offsets.ptr()).arg(offsets.len() as u64 - 1).arg(n as u64).arg(samples.ptr());
        let lc = config(blocks(gpu, samples.len()));
        // SAFETY: matches segments_samples(const u64* offsets, u64 segments, u64 n, u32* samples);
        // the offsets were checked to cut n items (0 first, n last, never falling), so every
        // search stays inside them, and each of the samples (checked above) is written once.
        unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, lc, &mut a) }.map_err(err("segments_samples"))
    }

    /// `seg[i]`: the segment of item `positions[i]`.
    pub(super) fn segment_of(
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        positions: Dev<u32>,
        offsets: Dev<u64>,
        samples: Dev<u32>,
        seg: Dev<u32>,
    ) -> Result<(), SortError> {
        let n = positions.len();
        assert!(seg.len() == n && offsets.len() >= 2 && samples.len() == n.div_ceil(SAMPLE_ITEMS));
        let f = gpu.function(&gpusort_kernels::SEGMENTS, "segments_of")?;
        let mut a = Args::new();
        a.arg(positions.ptr()).arg(n as u64).arg(offsets.ptr()).arg(offsets.len() as u64 - 1);
        a.arg(samples.ptr()).arg(seg.ptr());
        // SAFETY: matches segments_of(const u32* positions, u64 n, const u64* offsets, u64
        // segments, const u32* samples, u32* seg); the positions are a permutation of 0..n, so
        // each reads the samples of its own and the next, and the offsets between their segments
        // (checked offsets, written samples); each of the n numbers is written once.
        unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, config(blocks(gpu, n)), &mut a) }
            .map_err(err("segments_of"))
    }

    /// `keys_out[i] = keys[positions[i]]`, and the same for the values (source, destination).
    pub(super) fn gather(
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        positions: Dev<u32>,
        keys: Dev<u64>,
        keys_out: Dev<u64>,
        values: Option<(Dev<u32>, Dev<u32>)>,
    ) -> Result<(), SortError> {
        let n = positions.len();
        assert!(keys.len() == n && keys_out.len() == n && values.is_none_or(|(v, o)| v.len() == n && o.len() == n));
        let f = gpu.function(&gpusort_kernels::SEGMENTS, "segments_gather")?;
        let (vp, vo) = values.map_or((0, 0), |(v, o)| (v.ptr(), o.ptr()));
        let mut a = Args::new();
        a.arg(positions.ptr()).arg(n as u64).arg(keys.ptr()).arg(keys_out.ptr()).arg(vp).arg(vo);
        // SAFETY: matches segments_gather(const u32* positions, u64 n, const u64* keys, u64*
        // keys_out, const u32* values or null, u32* values_out or null); the positions are a
        // permutation of 0..n, so every read and write is inside the n of each buffer (checked).
        unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, config(blocks(gpu, n)), &mut a) }
            .map_err(err("segments_gather"))
    }
}
