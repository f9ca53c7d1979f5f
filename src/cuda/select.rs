//! Top-k on the device (radix select, `kernels-cuda/cuda/select.cu`): the `k` first keys of a
//! device buffer in a sort order and their positions, found without sorting the buffer. One
//! counting pass per 8-bit digit from the top narrows down the `k`-th key; a counting pass and a
//! writing pass then copy out the chosen keys in input order (ties at the `k`-th key to the
//! earliest positions), and the stable radix sort orders those `k` as (key, slot) pairs. Every
//! step is queued on one stream with no host wait.
//!
//! Reads of the input: one per digit (4 for 32-bit keys, 8 for 64-bit), one to count per tile,
//! and one more to write, in which tiles holding no chosen key stop after reading their counts.
//! Extra device memory: 24 bytes per 4096 keys (2048 for 64-bit keys) of tile counts and bases,
//! and per chosen key its key, a u32 slot and two u64 positions, plus the sort's scratch for `k`
//! pairs.

use super::scratch::Scratch;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig};

use super::device::Gpu;
use super::modules::ImageConfig;
use super::radix::{self, order_flags, Dev, RadixKey};
use crate::{Order, SortError};

/// The tiling the image was built with (`select_config` in select.cu).
#[derive(Clone, Copy, Debug)]
struct Config {
    threads: u32,
    rounds: usize,
    vector_bytes: usize,
}

impl Config {
    fn tile_keys<K>(&self) -> usize {
        self.threads as usize * self.rounds * (self.vector_bytes / std::mem::size_of::<K>())
    }
}

/// Reads the image's config (loading the image), so that no later selection makes a blocking call.
pub(crate) fn prepare(gpu: &Gpu) {
    let _ = gpu.config::<Config>(());
}

/// Read once per device, the first time only.
impl ImageConfig for Config {
    const IMAGE: &'static gpusort_kernels::Image = &gpusort_kernels::SELECT;
    const WORDS: usize = 3;
    type Key = ();

    fn global(_: ()) -> &'static str {
        "select_config"
    }

    fn parse(_: (), w: &[u32]) -> Result<Config, SortError> {
        let c = Config { threads: w[0], rounds: w[1] as usize, vector_bytes: w[2] as usize };
        if c.threads == 0 || c.rounds == 0 || c.vector_bytes != 16 {
            return Err(SortError::Unsupported {
                backend: "cuda",
                what: format!("select image has a bad config {w:?}"),
            });
        }
        Ok(c)
    }
}

/// Byte offsets of the parts of the one scratch allocation.
struct Layout {
    state: usize,
    hist: usize,
    tile_counts: usize,
    bases: usize,
    positions: usize,
    total: usize,
}

impl Layout {
    fn new(tiles: usize, k: usize) -> Layout {
        let align = |x: usize| x.div_ceil(256) * 256;
        let (state, hist) = (0, 256);
        let tile_counts = hist + align(RADIX * 8);
        let bases = tile_counts + align(tiles * 8);
        let positions = bases + align(tiles * 16);
        Layout { state, hist, tile_counts, bases, positions, total: positions + k * 8 }
    }
}

const RADIX: usize = 256;
/// Bytes of the search state (`select_k::State`).
const STATE_BYTES: usize = 32;

/// The scratch bytes `top_k` of `k` of `n` keys carves: the search state, histogram, tile counts
/// and bases with the chosen positions, the slots, and the radix sort of the `k` chosen pairs.
pub(crate) fn need<K: RadixKey>(gpu: &Gpu, n: usize, k: usize) -> Result<usize, SortError> {
    let tiles = n.div_ceil(gpu.config::<Config>(())?.tile_keys::<K>());
    let l = Layout::new(tiles, k);
    Ok(Scratch::bytes::<u8>(l.total) + Scratch::bytes::<u32>(k) + radix::need_pairs::<K>(gpu, k)?)
}

/// The `k` first keys of `keys` in `order` (stable: ties to the earliest positions), sorted, into
/// `out_keys`, with their positions into `out_positions` (both `k` long); queued on `stream`,
/// the scratch from `scratch`. `k` from 1 to `keys.len()`, below 2^32 (the callers check).
pub(crate) fn top_k<K: RadixKey>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    keys: &CudaSlice<K>,
    order: Order,
    (out_keys, out_positions): (&mut CudaSlice<K>, &mut CudaSlice<u64>),
    scratch: Scratch,
) -> Result<(), SortError> {
    let (n, k) = (keys.len(), out_keys.len());
    assert!(k >= 1 && k <= n && k <= u32::MAX as usize && out_positions.len() == k, "top {k} of {n}");
    let cfg = gpu.config::<Config>(())?;
    let tile = cfg.tile_keys::<K>();
    let tiles = n.div_ceil(tile);
    let l = Layout::new(tiles, k);
    let flags = order_flags(K::ORDER_FLAGS, order);

    // The state and histogram are set by select_init, the tile counts and bases by select_count
    // and select_scan, the chosen positions by select_write, the slots by select_write, each
    // before it is read.
    let mut parts = scratch.take::<u8>(stream, l.total, "top-k scratch")?;
    let mut slots = scratch.take::<u32>(stream, k, "top-k slots")?;
    {
        let (base, _g) = parts.device_ptr_mut(stream);
        let (kp, _gk) = keys.device_ptr(stream);
        let (okp, _gok) = out_keys.device_ptr_mut(stream);
        let (sp, _gs) = slots.device_ptr_mut(stream);
        // SAFETY: every buffer above is borrowed (so allocated and used by nothing else) until
        // this block ends, and each launch is queued on `stream` before then; the frees of the
        // pool's scratch are ordered after them on the same stream.
        let (all, input) = unsafe { (Dev::<u8>::new(base, l.total), Dev::<K>::new(kp, n)) };
        let state = all.range(l.state, STATE_BYTES);
        let hist = all.range(l.hist, RADIX * 8).cast::<u64>();
        let tile_counts = all.range(l.tile_counts, tiles * 8).cast::<u64>();
        let bases = all.range(l.bases, tiles * 16).cast::<u64>();
        let chosen = all.range(l.positions, k * 8).cast::<u64>();
        let out = Out { keys: unsafe { Dev::<K>::new(okp, k) }, positions: chosen, slots: unsafe { Dev::new(sp, k) } };

        launch::init(gpu, stream, state, k, hist)?;
        for shift in (0..8 * size_of::<K>()).step_by(8).rev() {
            launch::histogram(gpu, stream, &cfg, input, flags, shift, state, hist)?;
            launch::pick(gpu, stream, hist, state, shift)?;
        }
        launch::count(gpu, stream, &cfg, input, flags, state, tile_counts)?;
        launch::scan(gpu, stream, tile_counts, bases)?;
        launch::write(gpu, stream, &cfg, input, flags, state, tile_counts, bases, &out)?;
    }
    // Chosen in input order, so the stable sort leaves equal keys in input order.
    radix::sort_pairs(gpu, stream, out_keys, &mut slots, order, scratch)?;
    let (base, _g) = parts.device_ptr_mut(stream);
    let (sp, _gs) = slots.device_ptr(stream);
    let (pp, _gp) = out_positions.device_ptr_mut(stream);
    // SAFETY: as above.
    let (chosen, slots, out) = unsafe {
        (Dev::<u8>::new(base, l.total).range(l.positions, k * 8).cast::<u64>(), Dev::new(sp, k), Dev::new(pp, k))
    };
    launch::gather(gpu, stream, slots, chosen, out)
}

/// Where select_write puts the chosen: keys, input positions, and slots (0..k, the values the
/// sort carries).
struct Out<K> {
    keys: Dev<K>,
    positions: Dev<u64>,
    slots: Dev<u32>,
}

/// Typed wrappers of the select kernels: each builds its own launch from typed buffers. None of
/// select.cu's kernels waits for the previous grid, so every one launches as `Launch::Plain`.
mod launch {
    use super::*;
    use crate::cuda::overlap::{self, Args, Launch};

    fn err(what: &'static str) -> impl FnOnce(cudarc::driver::DriverError) -> SortError {
        SortError::driver(what, 0)
    }

    /// `select_<name>` for the key width of `K`.
    fn name<K>(u32_name: &'static str, u64_name: &'static str) -> &'static str {
        if size_of::<K>() == 4 {
            u32_name
        } else {
            u64_name
        }
    }

    fn grid(items: usize, per_block: usize, cap: usize) -> u32 {
        items.div_ceil(per_block.max(1)).clamp(1, cap.max(1)) as u32
    }

    pub(super) fn init(
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        state: Dev<u8>,
        k: usize,
        hist: Dev<u64>,
    ) -> Result<(), SortError> {
        assert!(state.len() >= STATE_BYTES && hist.len() >= RADIX);
        let f = gpu.function(&gpusort_kernels::SELECT, "select_init")?;
        let k = k as u64;
        let lc = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: matches select_init(State*, u64 k, u64* hist); 32 bytes of state and 256 words
        // of histogram, checked above.
        let mut a = Args::new();
        a.arg(state.ptr()).arg(k).arg(hist.ptr());
        unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, lc, &mut a) }.map_err(err("select_init"))
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn histogram<K>(
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        cfg: &Config,
        keys: Dev<K>,
        order: i32,
        shift: usize,
        state: Dev<u8>,
        hist: Dev<u64>,
    ) -> Result<(), SortError> {
        assert!(state.len() >= STATE_BYTES && hist.len() >= RADIX && shift < 8 * size_of::<K>());
        let f = gpu.function(&gpusort_kernels::SELECT, name::<K>("select_histogram_u32", "select_histogram_u64"))?;
        let (n, shift) = (keys.len() as u64, shift as i32);
        let vectors = keys.len().div_ceil(cfg.vector_bytes / size_of::<K>());
        let blocks = grid(vectors, cfg.threads as usize, gpu.multiprocessors as usize * 8);
        let lc = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (cfg.threads, 1, 1), shared_mem_bytes: 0 };
        let mut a = Args::new();
        a.arg(keys.ptr()).arg(n).arg(order).arg(shift).arg(state.ptr()).arg(hist.ptr());
        // SAFETY: matches select_histogram_<name>(const Item*, u64 n, int order, int shift, const
        // State*, u64* hist); reads n keys, adds into 256 words (checked above).
        unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, lc, &mut a) }.map_err(err("select_histogram"))
    }

    pub(super) fn pick(
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        hist: Dev<u64>,
        state: Dev<u8>,
        shift: usize,
    ) -> Result<(), SortError> {
        assert!(state.len() >= STATE_BYTES && hist.len() >= RADIX);
        let f = gpu.function(&gpusort_kernels::SELECT, "select_pick")?;
        let shift = shift as i32;
        let lc = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (RADIX as u32, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: matches select_pick(u64* hist, State*, int shift); sizes checked above.
        let mut a = Args::new();
        a.arg(hist.ptr()).arg(state.ptr()).arg(shift);
        unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, lc, &mut a) }.map_err(err("select_pick"))
    }

    pub(super) fn count<K>(
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        cfg: &Config,
        keys: Dev<K>,
        order: i32,
        state: Dev<u8>,
        tile_counts: Dev<u64>,
    ) -> Result<(), SortError> {
        let tiles = keys.len().div_ceil(cfg.tile_keys::<K>());
        assert!(state.len() >= STATE_BYTES && tile_counts.len() >= tiles);
        let f = gpu.function(&gpusort_kernels::SELECT, name::<K>("select_count_u32", "select_count_u64"))?;
        let n = keys.len() as u64;
        let lc = LaunchConfig { grid_dim: (tiles as u32, 1, 1), block_dim: (cfg.threads, 1, 1), shared_mem_bytes: 0 };
        let mut a = Args::new();
        a.arg(keys.ptr()).arg(n).arg(order).arg(state.ptr()).arg(tile_counts.ptr());
        // SAFETY: matches select_count_<name>(const Item*, u64 n, int order, const State*, u64*
        // tile_counts); one block per tile writes its own word (checked above).
        unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, lc, &mut a) }.map_err(err("select_count"))
    }

    pub(super) fn scan(
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        tile_counts: Dev<u64>,
        bases: Dev<u64>,
    ) -> Result<(), SortError> {
        assert!(bases.len() >= 2 * tile_counts.len());
        let f = gpu.function(&gpusort_kernels::SELECT, "select_scan")?;
        let tiles = tile_counts.len() as u64;
        let lc = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1024, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: matches select_scan(const u64* tile_counts, u64 tiles, u64* bases); two bases
        // per tile (checked above).
        let mut a = Args::new();
        a.arg(tile_counts.ptr()).arg(tiles).arg(bases.ptr());
        unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, lc, &mut a) }.map_err(err("select_scan"))
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn write<K>(
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        cfg: &Config,
        keys: Dev<K>,
        order: i32,
        state: Dev<u8>,
        tile_counts: Dev<u64>,
        bases: Dev<u64>,
        out: &Out<K>,
    ) -> Result<(), SortError> {
        let tiles = keys.len().div_ceil(cfg.tile_keys::<K>());
        assert!(state.len() >= STATE_BYTES && tile_counts.len() >= tiles && bases.len() >= 2 * tiles);
        let k = out.keys.len();
        assert!(out.positions.len() == k && out.slots.len() == k);
        let f = gpu.function(&gpusort_kernels::SELECT, name::<K>("select_write_u32", "select_write_u64"))?;
        let n = keys.len() as u64;
        let lc = LaunchConfig { grid_dim: (tiles as u32, 1, 1), block_dim: (cfg.threads, 1, 1), shared_mem_bytes: 0 };
        let mut a = Args::new();
        a.arg(keys.ptr()).arg(n).arg(order).arg(state.ptr()).arg(tile_counts.ptr()).arg(bases.ptr());
        a.arg(out.keys.ptr()).arg(out.positions.ptr()).arg(out.slots.ptr());
        // SAFETY: matches select_write_<name>(const Item*, u64 n, int order, const State*, const
        // u64* tile_counts, const u64* bases, Item* out_keys, u64* out_positions, u32* out_slots).
        // The state after the digit passes makes exactly k keys chosen, each written once at a
        // place below k; the outputs hold k elements (checked above).
        unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, lc, &mut a) }.map_err(err("select_write"))
    }

    pub(super) fn gather(
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        slots: Dev<u32>,
        positions: Dev<u64>,
        out: Dev<u64>,
    ) -> Result<(), SortError> {
        let k = out.len();
        assert!(slots.len() == k && positions.len() == k);
        let f = gpu.function(&gpusort_kernels::SELECT, "select_gather")?;
        let blocks = grid(k, 256, gpu.multiprocessors as usize * 8);
        let lc = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        let k = k as u64;
        // SAFETY: matches select_gather(const u32* slots, const u64* positions, u64* out, u64 k);
        // the slots are a permutation of 0..k (the sort moved them), every range holds k.
        let mut a = Args::new();
        a.arg(slots.ptr()).arg(positions.ptr()).arg(out.ptr()).arg(k);
        unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, lc, &mut a) }.map_err(err("select_gather"))
    }
}
