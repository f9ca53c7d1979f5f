//! Typed, safe wrappers of the radix kernels (`kernels-cuda/cuda/radix.cu`): each takes the
//! buffers and counts it needs and builds its launch itself, so no caller handles raw arguments.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};

use cudarc::driver::{CudaStream, LaunchConfig, PushKernelArg};

use super::super::Gpu;
use crate::SortError;

/// One set of entry points in the image: `radix_*_<name>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Variant {
    /// `Kvp` structs, 8 bytes each, moved whole.
    Kvp,
    /// 32-bit keys alone (`u32`, `i32`, `f32`: the kernels flip float bits at run time).
    U32,
    /// `u32` or `i32` keys alone, fewer than `tuning::RADIX_MID_KEYS_BELOW`: more threads per tile.
    U32Mid,
    /// `u32` (or `i32`) keys with a separate `u32` value array.
    PairsU32,
    /// `f32` keys with a separate `u32` value array.
    PairsF32,
    /// 64-bit keys alone.
    U64,
    /// 64-bit keys alone, fewer than `tuning::RADIX_MID_KEYS_BELOW`: more threads per tile.
    U64Mid,
    /// `u64` keys with a separate `u32` value array.
    PairsU64,
    /// The segmented sort of 32-bit keys alone (every 32-bit key type; `radix_segment_*_u32`).
    SegmentU32,
    /// The segmented sort of 32-bit keys with a separate `u32` value array.
    SegmentPairsU32,
}

struct Names {
    config: &'static str,
    histogram: &'static str,
    onesweep: &'static str,
    /// The one-block sort; the segmented sort has none.
    small: Option<&'static str>,
}

impl Variant {
    fn names(self) -> Names {
        match self {
            Variant::Kvp => Names {
                config: "radix_config_kvp",
                histogram: "radix_histogram_kvp",
                onesweep: "radix_onesweep_kvp",
                small: Some("radix_small_kvp"),
            },
            Variant::U32 => Names {
                config: "radix_config_u32",
                histogram: "radix_histogram_u32",
                onesweep: "radix_onesweep_u32",
                small: Some("radix_small_u32"),
            },
            Variant::U32Mid => Names {
                config: "radix_config_u32_mid",
                histogram: "radix_histogram_u32_mid",
                onesweep: "radix_onesweep_u32_mid",
                small: Some("radix_small_u32_mid"),
            },
            Variant::PairsU32 => Names {
                config: "radix_config_pairs_u32",
                histogram: "radix_histogram_pairs_u32",
                onesweep: "radix_onesweep_pairs_u32",
                small: Some("radix_small_pairs_u32"),
            },
            Variant::PairsF32 => Names {
                config: "radix_config_pairs_f32",
                histogram: "radix_histogram_pairs_f32",
                onesweep: "radix_onesweep_pairs_f32",
                small: Some("radix_small_pairs_f32"),
            },
            Variant::U64 => Names {
                config: "radix_config_u64",
                histogram: "radix_histogram_u64",
                onesweep: "radix_onesweep_u64",
                small: Some("radix_small_u64"),
            },
            Variant::U64Mid => Names {
                config: "radix_config_u64_mid",
                histogram: "radix_histogram_u64_mid",
                onesweep: "radix_onesweep_u64_mid",
                small: Some("radix_small_u64_mid"),
            },
            Variant::PairsU64 => Names {
                config: "radix_config_pairs_u64",
                histogram: "radix_histogram_pairs_u64",
                onesweep: "radix_onesweep_pairs_u64",
                small: Some("radix_small_pairs_u64"),
            },
            Variant::SegmentU32 => Names {
                config: "radix_config_segment_u32",
                histogram: "radix_segment_histogram_u32",
                onesweep: "radix_segment_onesweep_u32",
                small: None,
            },
            Variant::SegmentPairsU32 => Names {
                config: "radix_config_segment_pairs_u32",
                histogram: "radix_segment_histogram_pairs_u32",
                onesweep: "radix_segment_onesweep_pairs_u32",
                small: None,
            },
        }
    }
}

impl Variant {
    /// The segmented sort's kernels for the keys of this variant: one set for integer and float
    /// 32-bit keys; none for 64-bit keys.
    pub(crate) fn segmented(self) -> Option<Variant> {
        match self {
            Variant::U32 | Variant::U32Mid | Variant::SegmentU32 => Some(Variant::SegmentU32),
            Variant::PairsU32 | Variant::PairsF32 | Variant::SegmentPairsU32 => Some(Variant::SegmentPairsU32),
            Variant::Kvp | Variant::U64 | Variant::U64Mid | Variant::PairsU64 => None,
        }
    }
}

/// The tuning the image was built with for this device's architecture (`radix_config_<name>`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Config {
    pub(crate) sweep_threads: u32,
    pub(crate) tile: usize,
    pub(crate) small_threads: u32,
    /// 0 when the one-block path cannot get its shared memory on this device.
    pub(crate) small_tile: usize,
    pub(crate) small_shared_bytes: u32,
    pub(crate) hist_threads: u32,
    pub(crate) hist_blocks_per_sm: u32,
    pub(crate) passes: usize,
}

/// The tiling is compiled per architecture, so it is read from the loaded image once per device
/// and variant (one blocking copy on a private stream, the first time only).
pub(crate) fn config(gpu: &Gpu, variant: Variant) -> Result<Config, SortError> {
    static CACHE: OnceLock<Mutex<HashMap<(usize, Variant), Config>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(c) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&(gpu.ordinal, variant)) {
        return Ok(*c);
    }
    let names = variant.names();
    let module = gpu.module(&gpusort_kernels::RADIX)?;
    let stream = gpu.ctx.new_stream().map_err(SortError::driver("cuStreamCreate", 0))?;
    let global = module.get_global(names.config, &stream).map_err(SortError::driver("cuModuleGetGlobal", 0))?;
    let mut bytes = [0u8; 32];
    stream.memcpy_dtoh(&global, &mut bytes[..]).map_err(SortError::driver("read radix config", 32))?;
    stream.synchronize().map_err(SortError::driver("cuStreamSynchronize", 0))?;
    let w: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    let mut c = Config {
        sweep_threads: w[0],
        tile: (w[0] * w[1]) as usize,
        small_threads: w[2],
        small_tile: (w[2] * w[3]) as usize,
        small_shared_bytes: w[4],
        hist_threads: w[5],
        hist_blocks_per_sm: w[6],
        passes: w[7] as usize,
    };
    if c.tile == 0 || c.passes == 0 || c.passes > MAX_PASSES {
        return Err(SortError::Unsupported { backend: "cuda", what: format!("radix image has a bad config {w:?}") });
    }
    // More than 48 KB of dynamic shared memory must be asked for per kernel; where the device
    // cannot give it, inputs of one tile take the multi-block path instead.
    let optin = gpu
        .ctx
        .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
        .map_err(SortError::driver("cuDeviceGetAttribute", 0))?;
    let fits = match names.small {
        Some(name) => {
            let small = gpu.function(&gpusort_kernels::RADIX, name)?;
            (c.small_shared_bytes as i64) <= optin as i64
                && small
                    .set_attribute(
                        CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                        c.small_shared_bytes as i32,
                    )
                    .is_ok()
        }
        None => false,
    };
    if !fits {
        c.small_tile = 0;
    }
    cache.lock().unwrap_or_else(|p| p.into_inner()).insert((gpu.ordinal, variant), c);
    Ok(c)
}

/// The kernels' `order` flags (`ORDER_*` in radix.cuh).
pub(crate) const ORDER_DESCENDING: i32 = 1;
pub(crate) const ORDER_SIGNED: i32 = 2;
pub(crate) const ORDER_FLOAT: i32 = 4;
/// Most digit passes of any key type (`MAX_PASSES` in radix.cuh).
pub(crate) const MAX_PASSES: usize = 8;
pub(crate) const RADIX: usize = 256;
/// Words of the plan `radix_prepare` writes (`PLAN_WORDS` in radix.cuh).
pub(crate) const PLAN_WORDS: usize = 17;
/// Most keys one look-back sweep can count (30-bit status values, `VALUE_MASK` in radix.cuh).
pub(crate) const SWEEP_MAX_KEYS: usize = (1 << 30) - 1;

fn launch_err(what: &'static str) -> impl FnOnce(cudarc::driver::DriverError) -> SortError {
    SortError::driver(what, 0)
}

fn grid_for(items: usize, per_block: usize, cap: usize) -> u32 {
    items.div_ceil(per_block.max(1)).clamp(1, cap.max(1)) as u32
}

/// A typed range of device memory the sort owns for the duration of its launches. Kernels take
/// raw pointers rather than `CudaSlice`s: with cudarc's event tracking every slice argument costs
/// two driver calls per launch, which made up most of the time of a 1M sort.
pub(crate) struct Dev<T> {
    ptr: u64,
    len: usize,
    _t: PhantomData<*mut T>,
}

impl<T> Clone for Dev<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Dev<T> {}

impl<T> Dev<T> {
    /// # Safety
    /// `ptr` must address `len` elements of `T` that stay allocated, and are used by nothing but
    /// this sort's launches on its stream, until those launches have finished.
    pub(crate) unsafe fn new(ptr: u64, len: usize) -> Self {
        Dev { ptr, len, _t: PhantomData }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device address, for a kernel argument.
    pub(crate) fn ptr(&self) -> u64 {
        self.ptr
    }

    /// Elements `[start, start + len)`.
    pub(crate) fn range(&self, start: usize, len: usize) -> Self {
        assert!(start + len <= self.len, "device range {start}+{len} past {}", self.len);
        Dev { ptr: self.ptr + (start * std::mem::size_of::<T>()) as u64, len, _t: PhantomData }
    }

    /// The same bytes seen as `U`s (whole elements only).
    pub(crate) fn cast<U>(&self) -> Dev<U> {
        let bytes = self.len * std::mem::size_of::<T>();
        assert_eq!(self.ptr % std::mem::align_of::<U>() as u64, 0);
        Dev { ptr: self.ptr, len: bytes / std::mem::size_of::<U>(), _t: PhantomData }
    }
}

/// Counts every digit of every pass into `hist` (zeroed): `[passes][256]` u64.
pub(crate) fn histogram<K>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    variant: Variant,
    cfg: &Config,
    keys: Dev<K>,
    order: i32,
    hist: Dev<u64>,
) -> Result<(), SortError> {
    assert!(hist.len() >= cfg.passes * RADIX);
    let f = gpu.function(&gpusort_kernels::RADIX, variant.names().histogram)?;
    let n = keys.len() as u64;
    let blocks =
        grid_for(keys.len(), cfg.hist_threads as usize, (gpu.multiprocessors * cfg.hist_blocks_per_sm) as usize);
    let lc = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (cfg.hist_threads, 1, 1), shared_mem_bytes: 0 };
    // SAFETY: matches radix_histogram_<name>(const Item*, u64 n, int, u64*); the kernel reads the
    // n items of `keys` and adds into passes * 256 words of `hist`, both checked above.
    unsafe { stream.launch_builder(&f).arg(&keys.ptr).arg(&n).arg(&order).arg(&hist.ptr).launch(lc) }
        .map(drop)
        .map_err(launch_err("radix_histogram"))
}

/// Writes the plan (skipped passes, buffer parity) and each pass's digit starts into `bases`
/// (`[passes][2][256]` u64, slot 0).
pub(crate) fn prepare(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    hist: Dev<u64>,
    passes: usize,
    n: usize,
    plan: Dev<u32>,
    bases: Dev<u64>,
) -> Result<(), SortError> {
    assert!(passes <= MAX_PASSES && hist.len() >= passes * RADIX && plan.len() >= PLAN_WORDS);
    assert!(bases.len() >= passes * 2 * RADIX);
    let f = gpu.function(&gpusort_kernels::RADIX, "radix_prepare")?;
    let (p, n) = (passes as i32, n as u64);
    let lc = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (RADIX as u32, 1, 1), shared_mem_bytes: 0 };
    // SAFETY: matches radix_prepare(const u64*, int, u64, u32*, u64*); sizes checked above.
    unsafe { stream.launch_builder(&f).arg(&hist.ptr).arg(&p).arg(&n).arg(&plan.ptr).arg(&bases.ptr).launch(lc) }
        .map(drop)
        .map_err(launch_err("radix_prepare"))
}

/// The two buffers a pass reads from and writes to; the plan says which is which.
pub(crate) struct PingPong<K, V> {
    pub(crate) keys_a: Dev<K>,
    pub(crate) keys_b: Dev<K>,
    pub(crate) values: Option<(Dev<V>, Dev<V>)>,
}

/// Where one launch of a pass works: a portion of at most `SWEEP_MAX_KEYS` keys.
pub(crate) struct Portion {
    pub(crate) pass: usize,
    pub(crate) begin: usize,
    pub(crate) len: usize,
    /// Zeroed status words, 256 per tile.
    pub(crate) status: Dev<u32>,
    /// The next launch's status words, cleared by this one; the same length as `status`.
    pub(crate) status_next: Dev<u32>,
    /// One zeroed word.
    pub(crate) tile_counter: Dev<u32>,
    pub(crate) base_in: Dev<u64>,
    pub(crate) base_out: Dev<u64>,
}

/// One digit pass over one portion.
#[allow(clippy::too_many_arguments)]
pub(crate) fn onesweep<K, V>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    variant: Variant,
    cfg: &Config,
    plan: Dev<u32>,
    order: i32,
    buffers: &PingPong<K, V>,
    portion: &Portion,
) -> Result<(), SortError> {
    let tiles = portion.len.div_ceil(cfg.tile);
    let n = buffers.keys_a.len();
    assert!(portion.len > 0 && portion.len <= SWEEP_MAX_KEYS && portion.begin + portion.len <= n);
    assert!(buffers.keys_b.len() == n && plan.len() >= PLAN_WORDS);
    assert!(buffers.values.is_none_or(|(a, b)| a.len() == n && b.len() == n));
    assert!(portion.status.len() >= tiles * RADIX && portion.status_next.len() == portion.status.len());
    assert!(!portion.tile_counter.is_empty() && portion.base_in.len() >= RADIX && portion.base_out.len() >= RADIX);
    let f = gpu.function(&gpusort_kernels::RADIX, variant.names().onesweep)?;
    let pass = portion.pass as i32;
    let (begin, len, words) = (portion.begin as u64, portion.len as u32, portion.status_next.len() as u64);
    let (va, vb) = buffers.values.map_or((0, 0), |(a, b)| (a.ptr, b.ptr));
    let lc = LaunchConfig { grid_dim: (tiles as u32, 1, 1), block_dim: (cfg.sweep_threads, 1, 1), shared_mem_bytes: 0 };
    let mut b = stream.launch_builder(&f);
    b.arg(&plan.ptr).arg(&pass).arg(&order).arg(&buffers.keys_a.ptr).arg(&buffers.keys_b.ptr).arg(&va).arg(&vb);
    b.arg(&begin).arg(&len).arg(&portion.status.ptr).arg(&portion.status_next.ptr).arg(&words);
    b.arg(&portion.tile_counter.ptr).arg(&portion.base_in.ptr).arg(&portion.base_out.ptr);
    // SAFETY: matches radix_onesweep_<name>(plan, int pass, int order, Item* a, Item* b, Value* va,
    // Value* vb, u64 begin, u32 len, u32* status, u32* status_next, u64 words, u32* counter,
    // const u64* base_in, u64* base_out); one block per tile; blocks read [begin, begin+len) of one
    // buffer and write inside the other, of the same length; every size is checked above.
    unsafe { b.launch(lc) }.map(drop).map_err(launch_err("radix_onesweep"))
}

/// Copies `src` over `dst` when the plan says the result ended in the scratch buffer.
pub(crate) fn copy_back<T>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    plan: Dev<u32>,
    src: Dev<T>,
    dst: Dev<T>,
) -> Result<(), SortError> {
    assert!(src.len() == dst.len() && plan.len() >= PLAN_WORDS);
    let bytes = src.len() * std::mem::size_of::<T>();
    assert_eq!(bytes % 4, 0);
    let words = (bytes / 4) as u64;
    let f = gpu.function(&gpusort_kernels::RADIX, "radix_copy_back")?;
    let blocks = grid_for(bytes / 16, 256, gpu.multiprocessors as usize * 8);
    let lc = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    // SAFETY: matches radix_copy_back(const u32* plan, const u32* src, u32* dst, u64 words); both
    // ranges hold `words` 4-byte words.
    unsafe { stream.launch_builder(&f).arg(&plan.ptr).arg(&src.ptr).arg(&dst.ptr).arg(&words).launch(lc) }
        .map(drop)
        .map_err(launch_err("radix_copy_back"))
}

/// Sorts an input of at most `cfg.small_tile` keys in one block, in place.
pub(crate) fn small<K, V>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    variant: Variant,
    cfg: &Config,
    keys: Dev<K>,
    values: Option<Dev<V>>,
    order: i32,
) -> Result<(), SortError> {
    assert!(keys.len() <= cfg.small_tile && values.is_none_or(|v| v.len() == keys.len()));
    let name = variant.names().small.ok_or_else(|| SortError::Unsupported {
        backend: "cuda",
        what: format!("one-block radix sort of {variant:?}"),
    })?;
    let f = gpu.function(&gpusort_kernels::RADIX, name)?;
    let (n, vptr) = (keys.len() as u32, values.map_or(0, |v| v.ptr));
    let lc = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (cfg.small_threads, 1, 1),
        shared_mem_bytes: cfg.small_shared_bytes,
    };
    // SAFETY: matches radix_small_<name>(Item* keys, Value* values, u32 n, int order); one block
    // sorts the n items of both ranges (checked above).
    unsafe { stream.launch_builder(&f).arg(&keys.ptr).arg(&vptr).arg(&n).arg(&order).launch(lc) }
        .map(drop)
        .map_err(launch_err("radix_small"))
}

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
    let mut b = stream.launch_builder(&f);
    b.arg(&segments.offsets.ptr).arg(&count).arg(&tile).arg(&segments.first_tile.ptr);
    // SAFETY: matches radix_segment_tiles(const u64* offsets, u32 segments, u32 tile_items,
    // u32* first_tile); offsets and first_tile hold segments + 1 words (checked above).
    unsafe { b.launch(lc) }.map(drop).map_err(launch_err("radix_segment_tiles"))
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
    let mut b = stream.launch_builder(&f);
    b.arg(&keys.ptr).arg(&order).arg(&segments.offsets.ptr).arg(&segments.first_tile.ptr).arg(&count).arg(&per_block);
    b.arg(&hist.ptr);
    // SAFETY: matches radix_segment_histogram_<name>(const Item* keys, int order, const u64* offsets,
    // const u32* first_tile, u32 segments, u32 tiles_per_block, u32* hist); the offsets were checked against the keys'
    // length on the device, and hist holds every segment's counts (checked above).
    unsafe { b.launch(lc) }.map(drop).map_err(launch_err("radix_segment_histogram"))
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
    let mut b = stream.launch_builder(&f);
    b.arg(&hist.ptr).arg(&p).arg(&segments.offsets.ptr).arg(&segments.first_tile.ptr).arg(&count);
    b.arg(&bases.ptr).arg(&all.ptr).arg(&segments.tile_segment.ptr);
    // SAFETY: matches radix_segment_bases(const u32* hist, int passes, const u64* offsets, const u32*
    // first_tile, u32 segments, u64* bases, u64* all, u32* tile_segment); one block per segment,
    // sizes checked above; first_tile's tiles are fewer than tile_segment's words (segment_onesweep
    // checks the same bound).
    unsafe { b.launch(lc) }.map(drop).map_err(launch_err("radix_segment_bases"))
}

/// One digit pass of the segmented sort: a block per tile the segments can have (the extra ones
/// exit).
pub(crate) struct SegmentPass {
    pub(crate) pass: usize,
    pub(crate) bases: Dev<u64>,
    pub(crate) status: Dev<u32>,
    pub(crate) status_next: Dev<u32>,
    pub(crate) tile_counter: Dev<u32>,
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
    let n = buffers.keys_a.len();
    let max_tiles = segments.max_tiles();
    assert!(buffers.keys_b.len() == n && plan.len() >= PLAN_WORDS && n.div_ceil(cfg.tile) <= max_tiles);
    assert!(buffers.values.is_none_or(|(a, b)| a.len() == n && b.len() == n));
    assert!(p.status.len() >= max_tiles * RADIX && p.status_next.len() == p.status.len());
    assert!(!p.tile_counter.is_empty() && p.bases.len() >= segments.count() as usize * RADIX);
    let f = gpu.function(&gpusort_kernels::RADIX, segment_names(variant)?.onesweep)?;
    let (pass, count, words) = (p.pass as i32, segments.count(), p.status_next.len() as u64);
    let (va, vb) = buffers.values.map_or((0, 0), |(a, b)| (a.ptr, b.ptr));
    let grid = u32::try_from(max_tiles).map_err(|_| SortError::InvalidArgument("too many radix tiles".into()))?;
    let lc = LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (cfg.sweep_threads, 1, 1), shared_mem_bytes: 0 };
    let mut b = stream.launch_builder(&f);
    b.arg(&plan.ptr).arg(&pass).arg(&order).arg(&buffers.keys_a.ptr).arg(&buffers.keys_b.ptr).arg(&va).arg(&vb);
    b.arg(&segments.offsets.ptr).arg(&segments.first_tile.ptr).arg(&segments.tile_segment.ptr).arg(&count);
    b.arg(&p.bases.ptr);
    b.arg(&p.status.ptr).arg(&p.status_next.ptr).arg(&words).arg(&p.tile_counter.ptr);
    // SAFETY: matches radix_segment_onesweep_<name>(plan, int pass, int order, Item* a, Item* b,
    // Value* va, Value* vb, const u64* offsets, const u32* first_tile, const u32* tile_segment,
    // u32 segments, const u64* bases, u32* status, u32* status_next, u64 words, u32* counter); the segments cut [0, n) of
    // both buffers (checked on the device before), and every size is checked above.
    unsafe { b.launch(lc) }.map(drop).map_err(launch_err("radix_segment_onesweep"))
}
