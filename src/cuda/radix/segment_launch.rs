//! Typed, safe wrappers of the segmented sort's kernels (`radix_segment_*` in
//! `kernels-cuda/cuda/radix.cu`), beside the whole-input sort's in `launch.rs`: each builds its
//! own launch from the buffers and counts it takes.

use std::sync::Arc;

use cudarc::driver::{CudaStream, LaunchConfig};

use super::config::Config;
use super::launch::{grid_for, launch_err, Dev, PassWords, PingPong, SweepArgs, MAX_PASSES, RADIX};
use super::variants::{Names, Variant};
use crate::cuda::overlap::{self, Args, Launch};
use crate::cuda::Gpu;
use crate::SortError;

/// `variant`'s names, when it is one of the segmented sort's.
fn segment_names(variant: Variant) -> Result<Names, SortError> {
    match variant {
        Variant::SegmentU32 | Variant::SegmentPairsU32 => Ok(variant.names()),
        _ => Err(SortError::Unsupported { backend: "cuda", what: format!("segmented radix sort of {variant:?}") }),
    }
}

/// The segments of a segmented sort, where each one's tiles start (`first_tile`, one word per
/// segment and the total after them) and the segment of each tile (`tile_segment`, one word per
/// tile of the most the segments can have: the sweeps' grid).
#[derive(Clone, Copy)]
pub(crate) struct Segments {
    pub(crate) offsets: Dev<u64>,
    pub(crate) first_tile: Dev<u32>,
    pub(crate) tile_segment: Dev<u32>,
}

impl Segments {
    fn count(&self) -> u32 {
        (self.offsets.len() - 1) as u32
    }

    fn max_tiles(&self) -> usize {
        self.tile_segment.len()
    }
}

/// Fills `segments.first_tile` for tiles of `cfg.tile` items.
pub(crate) fn segment_tiles(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    cfg: &Config,
    segments: Segments,
) -> Result<(), SortError> {
    assert!(!segments.offsets.is_empty() && segments.first_tile.len() == segments.offsets.len());
    let f = gpu.function(&gpusort_kernels::RADIX, "radix_segment_tiles")?;
    let (count, tile) = (segments.count(), cfg.tile as u32);
    let lc = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1024, 1, 1), shared_mem_bytes: 0 };
    let mut b = Args::new();
    b.arg(segments.offsets.ptr).arg(count).arg(tile).arg(segments.first_tile.ptr);
    // SAFETY: matches radix_segment_tiles(const u64* offsets, u32 segments, u32 tile_items,
    // u32* first_tile); offsets and first_tile hold segments + 1 words (checked above).
    unsafe { overlap::launch(gpu, stream, &f, Launch::Follows, lc, &mut b) }.map_err(launch_err("radix_segment_tiles"))
}

/// Counts every pass's digits per segment into `hist` ([segment][pass][RADIX], zeroed).
#[allow(clippy::too_many_arguments)]
pub(crate) fn segment_histogram<K>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    variant: Variant,
    cfg: &Config,
    keys: Dev<K>,
    order: i32,
    segments: Segments,
    hist: Dev<u32>,
) -> Result<(), SortError> {
    assert!(hist.len() >= segments.count() as usize * cfg.passes * RADIX);
    let f = gpu.function(&gpusort_kernels::RADIX, segment_names(variant)?.histogram)?;
    let count = segments.count();
    let max_tiles = segments.max_tiles();
    let blocks = grid_for(max_tiles, 1, (gpu.multiprocessors * cfg.hist_blocks_per_sm) as usize);
    let per_block = max_tiles.div_ceil(blocks as usize) as u32;
    let lc = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (cfg.hist_threads, 1, 1), shared_mem_bytes: 0 };
    let mut b = Args::new();
    b.arg(keys.ptr).arg(order).arg(segments.offsets.ptr).arg(segments.first_tile.ptr).arg(count).arg(per_block);
    b.arg(hist.ptr);
    // SAFETY: matches radix_segment_histogram_<name>(const Item* keys, int order, const u64* offsets,
    // const u32* first_tile, u32 segments, u32 tiles_per_block, u32* hist); the offsets were checked against the keys'
    // length on the device, and hist holds every segment's counts (checked above).
    unsafe { overlap::launch(gpu, stream, &f, Launch::Follows, lc, &mut b) }
        .map_err(launch_err("radix_segment_histogram"))
}

/// Each segment's digit starts per pass (`bases`, [pass][segment][RADIX]), the counts of all
/// segments (`all`, [pass][RADIX], zeroed) for `prepare`, and `segments.tile_segment`.
pub(crate) fn segment_bases(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    passes: usize,
    segments: Segments,
    hist: Dev<u32>,
    bases: Dev<u64>,
    all: Dev<u64>,
) -> Result<(), SortError> {
    let count = segments.count();
    assert!(passes <= MAX_PASSES && all.len() >= passes * RADIX);
    assert!(hist.len() >= count as usize * passes * RADIX && bases.len() >= count as usize * passes * RADIX);
    assert!(segments.first_tile.len() == count as usize + 1);
    let f = gpu.function(&gpusort_kernels::RADIX, "radix_segment_bases")?;
    let p = passes as i32;
    let lc = LaunchConfig { grid_dim: (count, 1, 1), block_dim: (RADIX as u32, 1, 1), shared_mem_bytes: 0 };
    let mut b = Args::new();
    b.arg(hist.ptr).arg(p).arg(segments.offsets.ptr).arg(segments.first_tile.ptr).arg(count);
    b.arg(bases.ptr).arg(all.ptr).arg(segments.tile_segment.ptr);
    // SAFETY: matches radix_segment_bases(const u32* hist, int passes, const u64* offsets, const u32*
    // first_tile, u32 segments, u64* bases, u64* all, u32* tile_segment); one block per segment,
    // sizes checked above; first_tile's tiles are fewer than tile_segment's words (segment_onesweep
    // checks the same bound).
    unsafe { overlap::launch(gpu, stream, &f, Launch::Follows, lc, &mut b) }.map_err(launch_err("radix_segment_bases"))
}

/// One digit pass of the segmented sort: a block per tile the segments can have (the extra ones
/// exit).
pub(crate) struct SegmentPass {
    pub(crate) words: PassWords,
    pub(crate) bases: Dev<u64>,
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn segment_onesweep<K, V>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    variant: Variant,
    cfg: &Config,
    plan: Dev<u32>,
    order: i32,
    buffers: &PingPong<K, V>,
    segments: Segments,
    p: &SegmentPass,
) -> Result<(), SortError> {
    let max_tiles = segments.max_tiles();
    assert!(buffers.keys_a.len().div_ceil(cfg.tile) <= max_tiles);
    assert!(p.bases.len() >= segments.count() as usize * RADIX);
    let args = SweepArgs::new(plan, order, buffers, &p.words, max_tiles);
    let f = gpu.function(&gpusort_kernels::RADIX, segment_names(variant)?.onesweep)?;
    let count = segments.count();
    let grid = u32::try_from(max_tiles).map_err(|_| SortError::InvalidArgument("too many radix tiles".into()))?;
    let lc = LaunchConfig {
        grid_dim: (grid, 1, 1),
        block_dim: (cfg.sweep_threads, 1, 1),
        shared_mem_bytes: cfg.sweep_shared_bytes,
    };
    let mut b = Args::new();
    args.push_buffers(&mut b);
    b.arg(segments.offsets.ptr).arg(segments.first_tile.ptr).arg(segments.tile_segment.ptr).arg(count);
    b.arg(p.bases.ptr);
    args.push_status(&mut b);
    // SAFETY: matches radix_segment_onesweep_<name>(plan, int pass, int order, Item* a, Item* b,
    // Value* va, Value* vb, const u64* offsets, const u32* first_tile, const u32* tile_segment,
    // u32 segments, const u64* bases, u32* status, u32* status_next, u64 words, u32* counter); the
    // segments cut [0, n) of both buffers (checked on the device before), and every size is
    // checked above.
    unsafe { overlap::launch(gpu, stream, &f, Launch::Follows, lc, &mut b) }
        .map_err(launch_err("radix_segment_onesweep"))
}
