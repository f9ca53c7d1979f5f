//! The segmented radix sort (`kernels-cuda/cuda/radix_segments.cuh`): every segment sorted by the
//! same Onesweep passes as the whole-input sort, each segment a chain of tiles with its own
//! look-back and digit bases, so a pass moves the 4-byte keys (and values) once. It pays when the
//! segments hold a tile or more on average; shorter ones go through the words of
//! `src/cuda/segments.rs`.
//!
//! Extra device memory, in one allocation: the ping-pong copy of the keys (and values), per
//! segment 12 KB of digit counts and bases, and 2 KB of status words per tile.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};

use super::config::config;
use super::launch::{self, Dev, PassWords, PingPong, ScratchValues, RADIX, SWEEP_MAX_KEYS};
use super::segment_launch::{self, SegmentPass, Segments};
use super::{RadixKey, PLAN_SLOT};
use crate::cuda::device::Gpu;
use crate::SortError;

/// Whether `segments` segments of at most `longest` of `n` keys take this sort: a tile per segment
/// or more on average, and no segment past the look-back's counts.
pub(crate) fn takes<K: RadixKey>(
    gpu: &Gpu,
    with_values: bool,
    n: usize,
    segments: usize,
    longest: usize,
) -> Result<bool, SortError> {
    let Some(variant) = if with_values { K::PAIRS } else { K::KEYS }.large.segmented() else {
        return Ok(false);
    };
    let tile = config(gpu, variant)?.tile;
    Ok(longest <= SWEEP_MAX_KEYS && segments.saturating_mul(tile) <= n)
}

/// Byte offsets of the parts of the one scratch allocation, each 256-byte aligned.
struct Layout {
    values: usize,
    meta64: usize,
    meta32: usize,
    status: usize,
    total: usize,
}

/// Sorts each segment `offsets[s]..offsets[s + 1]` of `keys` (32-bit keys; `values` beside
/// them) by `order` (the kernels' flags), stably, queued on `stream`. The offsets must already be
/// checked to cut `keys` (segments.rs does it on the device).
pub(crate) fn sort<K: RadixKey>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    keys: &mut CudaSlice<K>,
    values: Option<&mut CudaSlice<u32>>,
    offsets: &CudaSlice<u64>,
    order: i32,
) -> Result<(), SortError> {
    let n = keys.len();
    let Some(variant) = if values.is_some() { K::PAIRS } else { K::KEYS }.large.segmented() else {
        return Err(SortError::Unsupported { backend: "cuda", what: "segmented radix sort of 64-bit keys".into() });
    };
    let cfg = config(gpu, variant)?;
    let count = offsets.len().saturating_sub(1);
    if n < 2 || count == 0 {
        return Ok(());
    }
    if values.as_ref().is_some_and(|v| v.len() != n) || size_of::<K>() != 4 {
        return Err(SortError::InvalidArgument("segmented radix sort: 32-bit keys, one value per key".into()));
    }
    let passes = cfg.passes;
    // Each segment adds at most one partial tile.
    let max_tiles = n.div_ceil(cfg.tile) + count;
    let per_segment = passes * RADIX;
    let align = |x: usize| x.div_ceil(256) * 256;
    let mut l = Layout { values: 0, meta64: 0, meta32: 0, status: 0, total: 0 };
    l.values = align(n * 4);
    l.meta64 = l.values + if values.is_some() { align(n * 4) } else { 0 };
    // u64: the counts of all segments [passes][256], radix_prepare's bases [passes][2][256] (unused
    // here), then the segments' bases [passes][segments][256].
    let meta64_words = passes * RADIX * 3 + count * per_segment;
    l.meta32 = l.meta64 + align(meta64_words * 8);
    // u32: the plan, one tile counter per pass, first_tile [segments + 1], tile_segment
    // [max_tiles], the segments' counts [segments][passes][256].
    let meta32_words = PLAN_SLOT + passes + count + 1 + max_tiles + count * per_segment;
    l.status = l.meta32 + align(meta32_words * 4);
    // Two status regions: each pass uses one and clears the other for the next.
    let status_words = max_tiles * RADIX;
    l.total = l.status + 2 * status_words * 4;

    // SAFETY: the ping-pong halves are written by a pass before they are read (when no pass runs,
    // the plan keeps the result in the caller's buffers); the rest is zeroed just below.
    let mut scratch =
        unsafe { stream.alloc::<u8>(l.total) }.map_err(SortError::driver("segmented radix scratch", l.total))?;
    let (base, _scratch_guard) = scratch.device_ptr_mut(stream);
    // SAFETY: a byte range of the allocation above, on its stream.
    unsafe {
        cudarc::driver::result::memset_d8_async(base + l.meta64 as u64, 0, l.total - l.meta64, stream.cu_stream())
    }
    .map_err(SortError::driver("cuMemsetD8Async", l.total - l.meta64))?;
    // SAFETY: `scratch` and the caller's buffers live until this function returns, and every
    // launch using them is queued on `stream` before then.
    let all = unsafe { Dev::<u8>::new(base, l.total) };
    let (keys_ptr, _keys_guard) = keys.device_ptr_mut(stream);
    let keys_a = unsafe { Dev::<K>::new(keys_ptr, n) };
    let (values_a, _values_guard) = match values {
        Some(v) => {
            let (p, g) = v.device_ptr_mut(stream);
            (Some(unsafe { Dev::<u32>::new(p, n) }), Some(g))
        }
        None => (None, None),
    };
    let (offsets_ptr, _offsets_guard) = offsets.device_ptr(stream);
    let offsets = unsafe { Dev::<u64>::new(offsets_ptr, count + 1) };

    let keys_b = all.range(0, n * 4).cast::<K>();
    let values_b = values_a.map(|_| all.range(l.values, n * 4).cast::<u32>());
    let meta64 = all.range(l.meta64, meta64_words * 8).cast::<u64>();
    let meta32 = all.range(l.meta32, meta32_words * 4).cast::<u32>();
    let status = [0, 1].map(|r| all.range(l.status + r * status_words * 4, status_words * 4).cast::<u32>());
    let counts_all = meta64.range(0, per_segment);
    let plan = meta32.range(0, PLAN_SLOT);
    let first_tile = meta32.range(PLAN_SLOT + passes, count + 1);
    let tile_segment = meta32.range(PLAN_SLOT + passes + count + 1, max_tiles);
    let hist = meta32.range(PLAN_SLOT + passes + count + 1 + max_tiles, count * per_segment);
    let segments = Segments { offsets, first_tile, tile_segment };

    segment_launch::segment_tiles(gpu, stream, &cfg, segments)?;
    segment_launch::segment_histogram(gpu, stream, variant, &cfg, keys_a, order, segments, hist)?;
    let bases = meta64.range(per_segment * 3, count * per_segment);
    segment_launch::segment_bases(gpu, stream, passes, segments, hist, bases, counts_all)?;
    launch::prepare(gpu, stream, counts_all, passes, n, plan, meta64.range(per_segment, per_segment * 2))?;
    let buffers = PingPong { keys_a, keys_b, values: values_a.zip(values_b.map(ScratchValues::Split)) };
    for pass in 0..passes {
        let p = SegmentPass {
            words: PassWords {
                pass,
                status: status[pass % 2],
                status_next: status[(pass + 1) % 2],
                tile_counter: meta32.range(PLAN_SLOT + pass, 1),
            },
            bases: bases.range(pass * count * RADIX, count * RADIX),
        };
        segment_launch::segment_onesweep(gpu, stream, variant, &cfg, plan, order, &buffers, segments, &p)?;
    }
    launch::copy_back(gpu, stream, plan, (keys_b, keys_a), values_b.zip(values_a))?;
    Ok(())
}
