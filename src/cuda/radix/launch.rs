//! Typed, safe wrappers of the radix kernels (`kernels-cuda/cuda/radix.cu`): each takes the
//! buffers and counts it needs and builds its launch itself, so no caller handles raw arguments.
//! Every radix kernel waits for the previous grid before touching memory (radix.cu), so every
//! one launches as `Launch::Follows`.

use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::{CudaStream, LaunchConfig};

use super::config::Config;
use super::variants::Variant;
use crate::cuda::overlap::{self, Args, Launch};
use crate::cuda::Gpu;
use crate::SortError;

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

pub(super) fn launch_err(what: &'static str) -> impl FnOnce(cudarc::driver::DriverError) -> SortError {
    SortError::driver(what, 0)
}

pub(super) fn grid_for(items: usize, per_block: usize, cap: usize) -> u32 {
    items.div_ceil(per_block.max(1)).clamp(1, cap.max(1)) as u32
}

/// A typed range of device memory the sort owns for the duration of its launches. Kernels take
/// raw pointers rather than `CudaSlice`s: with cudarc's event tracking every slice argument costs
/// two driver calls per launch, which made up most of the time of a 1M sort.
pub(crate) struct Dev<T> {
    pub(super) ptr: u64,
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
    let lc = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (cfg.hist_threads, 1, 1),
        shared_mem_bytes: cfg.hist_shared_bytes,
    };
    let mut a = Args::new();
    a.arg(keys.ptr).arg(n).arg(order).arg(hist.ptr);
    // SAFETY: matches radix_histogram_<name>(const Item*, u64 n, int, u64*); the kernel reads the
    // n items of `keys` and adds into passes * 256 words of `hist`, both checked above.
    unsafe { overlap::launch(gpu, stream, &f, Launch::Follows, lc, &mut a) }.map_err(launch_err("radix_histogram"))
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
    let mut a = Args::new();
    a.arg(hist.ptr).arg(p).arg(n).arg(plan.ptr).arg(bases.ptr);
    unsafe { overlap::launch(gpu, stream, &f, Launch::Follows, lc, &mut a) }.map_err(launch_err("radix_prepare"))
}

/// The two buffers a pass reads from and writes to; the plan says which is which.
pub(crate) struct PingPong<K, V> {
    pub(crate) keys_a: Dev<K>,
    pub(crate) keys_b: Dev<K>,
    /// The caller's values and the scratch side of them.
    pub(crate) values: Option<(Dev<V>, ScratchValues<V>)>,
}

/// The scratch side of split values: an array beside the scratch keys, or, where the scratch
/// buffer holds (key, value) items (`Config::b_interleaved`), the second item buffer if one was
/// allocated (`Config::second_items`); the kernels take either in their `values_b` argument.
pub(crate) enum ScratchValues<V> {
    Split(Dev<V>),
    Items(Option<Dev<[u32; 2]>>),
}

/// The status words of one digit-pass launch, the same for the whole-input and the segmented
/// sweep: zeroed words for its tiles' look-back (256 per tile), the next launch's words (cleared
/// by this one, the same length), and one zeroed tile counter.
pub(crate) struct PassWords {
    pub(crate) pass: usize,
    pub(crate) status: Dev<u32>,
    pub(crate) status_next: Dev<u32>,
    pub(crate) tile_counter: Dev<u32>,
}

/// The arguments every sweep kernel takes, in the launch's own types: `plan, pass, order, keys_a,
/// keys_b, values_a, values_b` first, and `status, status_next, words, counter` after the
/// kernel's own.
pub(super) struct SweepArgs {
    plan: u64,
    pass: i32,
    order: i32,
    keys: [u64; 2],
    values: [u64; 2],
    status: [u64; 2],
    words: u64,
    counter: u64,
}

impl SweepArgs {
    /// Checks the buffers and the words for `tiles` tiles.
    pub(super) fn new<K, V>(plan: Dev<u32>, order: i32, buffers: &PingPong<K, V>, w: &PassWords, tiles: usize) -> Self {
        let n = buffers.keys_a.len();
        assert!(buffers.keys_b.len() == n && plan.len() >= PLAN_WORDS);
        assert!(w.status.len() >= tiles * RADIX && w.status_next.len() == w.status.len() && !w.tile_counter.is_empty());
        let (va, vb) = match &buffers.values {
            None => (0, 0),
            Some((a, b)) => {
                let (b_len, b_ptr) = match b {
                    ScratchValues::Split(b) => (b.len(), b.ptr),
                    ScratchValues::Items(c) => c.map_or((n, 0), |c| (c.len(), c.ptr)),
                };
                assert!(a.len() == n && b_len == n);
                (a.ptr, b_ptr)
            }
        };
        SweepArgs {
            plan: plan.ptr,
            pass: w.pass as i32,
            order,
            keys: [buffers.keys_a.ptr, buffers.keys_b.ptr],
            values: [va, vb],
            status: [w.status.ptr, w.status_next.ptr],
            words: w.status_next.len() as u64,
            counter: w.tile_counter.ptr,
        }
    }

    pub(super) fn push_buffers(&self, b: &mut Args) {
        b.arg(self.plan).arg(self.pass).arg(self.order).arg(self.keys[0]).arg(self.keys[1]);
        b.arg(self.values[0]).arg(self.values[1]);
    }

    pub(super) fn push_status(&self, b: &mut Args) {
        b.arg(self.status[0]).arg(self.status[1]).arg(self.words).arg(self.counter);
    }
}

/// Where one launch of a pass works: a portion of at most `SWEEP_MAX_KEYS` keys.
pub(crate) struct Portion {
    pub(crate) words: PassWords,
    pub(crate) begin: usize,
    pub(crate) len: usize,
    pub(crate) base_in: Dev<u64>,
    pub(crate) base_out: Dev<u64>,
}

/// Which sweep kernel a pass launches: its set's, or a test-only one of the radix_steps image
/// (`radix_onesweep_steps_<name>`, the same arguments, in that image's tiles: `super::steps`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sweep {
    Of(Variant),
    Steps(&'static str),
    /// The set's argsort sweep (`Variant::argsort_sweep`), writing u64 positions to the address
    /// given (0: u32 ones to the caller's values).
    Argsort(Variant, u64),
}

/// One digit pass over one portion.
#[allow(clippy::too_many_arguments)]
pub(crate) fn onesweep<K, V>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    kernel: Sweep,
    cfg: &Config,
    plan: Dev<u32>,
    order: i32,
    buffers: &PingPong<K, V>,
    portion: &Portion,
) -> Result<(), SortError> {
    let tiles = portion.len.div_ceil(cfg.tile);
    let n = buffers.keys_a.len();
    assert!(portion.len > 0 && portion.len <= SWEEP_MAX_KEYS && portion.begin + portion.len <= n);
    assert!(portion.base_in.len() >= RADIX && portion.base_out.len() >= RADIX);
    let args = SweepArgs::new(plan, order, buffers, &portion.words, tiles);
    let f = match kernel {
        Sweep::Of(variant) => gpu.function(&gpusort_kernels::RADIX, variant.names().onesweep)?,
        Sweep::Steps(name) => gpu.function(&gpusort_kernels::RADIX_STEPS, name)?,
        Sweep::Argsort(variant, _) => {
            let name = variant.argsort_sweep().expect("an argsort sweep is chosen where its set has one");
            gpu.function(&gpusort_kernels::RADIX, name)?
        }
    };
    let (begin, len) = (portion.begin as u64, portion.len as u32);
    let lc = LaunchConfig {
        grid_dim: (tiles as u32, 1, 1),
        block_dim: (cfg.sweep_threads, 1, 1),
        shared_mem_bytes: cfg.sweep_shared_bytes,
    };
    let mut b = Args::new();
    args.push_buffers(&mut b);
    b.arg(begin).arg(len);
    args.push_status(&mut b);
    b.arg(portion.base_in.ptr).arg(portion.base_out.ptr);
    if let Sweep::Argsort(_, wide) = kernel {
        b.arg(wide);
    }
    // SAFETY: matches radix_onesweep_<name> and radix_onesweep_steps_<name>(plan, int pass, int
    // order, Item* a, Item* b, Value* va, Value* vb, u64 begin, u32 len, u32* status,
    // u32* status_next, u64 words, u32* counter, const u64* base_in, u64* base_out), and
    // radix_onesweep_argsort_<name>(the same, u64* wide: n positions or null); one block per
    // tile; blocks read [begin, begin+len) of one buffer and write inside the other, of the same
    // length; every size is checked above.
    unsafe { overlap::launch(gpu, stream, &f, Launch::Follows, lc, &mut b) }.map_err(launch_err("radix_onesweep"))
}

/// Copies the scratch keys over the caller's, and the scratch values over the caller's values
/// where they are split, when the plan says the result ended in the scratch buffer; one launch.
pub(crate) fn copy_back<K, V>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    plan: Dev<u32>,
    keys: (Dev<K>, Dev<K>),
    values: Option<(Dev<V>, Dev<V>)>,
) -> Result<(), SortError> {
    let bytes_of = |src: usize, dst: usize, size: usize| {
        assert_eq!(src, dst);
        (src * size) as u64
    };
    assert!(plan.len() >= PLAN_WORDS);
    let bytes = bytes_of(keys.0.len(), keys.1.len(), std::mem::size_of::<K>());
    let (vsrc, vdst, vbytes) = match values {
        Some((src, dst)) => (src.ptr, dst.ptr, bytes_of(src.len(), dst.len(), std::mem::size_of::<V>())),
        None => (0, 0, 0),
    };
    let f = gpu.function(&gpusort_kernels::RADIX, "radix_copy_back")?;
    let blocks = grid_for(((bytes + vbytes) / 16) as usize, 256, gpu.multiprocessors as usize * 8);
    let lc = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    let mut a = Args::new();
    a.arg(plan.ptr).arg(keys.0.ptr).arg(keys.1.ptr).arg(bytes).arg(vsrc).arg(vdst).arg(vbytes);
    // SAFETY: matches radix_copy_back(const u32* plan, const u8* src, u8* dst, u64 bytes, const
    // u8* vsrc, u8* vdst, u64 vbytes); each pair of ranges holds its count of bytes (checked
    // above; no values: null and 0).
    unsafe { overlap::launch(gpu, stream, &f, Launch::Follows, lc, &mut a) }.map_err(launch_err("radix_copy_back"))
}

/// Writes the positions in input order into an argsort's output (`out` u32 words, or `wide` u64
/// ones when not 0; `n` of them) when the plan says no pass ran: every key was equal.
pub(crate) fn argsort_identity(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    plan: Dev<u32>,
    out: u64,
    wide: u64,
    n: usize,
) -> Result<(), SortError> {
    assert!(plan.len() >= PLAN_WORDS && (out != 0 || wide != 0));
    let f = gpu.function(&gpusort_kernels::RADIX, "radix_argsort_identity")?;
    let blocks = grid_for(n, 256, gpu.multiprocessors as usize * 8);
    let lc = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    let mut a = Args::new();
    a.arg(plan.ptr).arg(out).arg(wide).arg(n as u64);
    // SAFETY: matches radix_argsort_identity(const u32* plan, u32* out, u64* wide, u64 n); the
    // caller's output holds n positions of the width chosen (`wide` when not null).
    unsafe { overlap::launch(gpu, stream, &f, Launch::Follows, lc, &mut a) }
        .map_err(launch_err("radix_argsort_identity"))
}

/// Splits the (key, value) items of `src` into `keys` and `values` when the plan says the result
/// ended in the scratch buffer (`Config::b_interleaved`).
pub(crate) fn copy_back_split(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    plan: Dev<u32>,
    src: Dev<[u32; 2]>,
    items_c: Option<Dev<[u32; 2]>>,
    keys: Dev<u32>,
    values: Dev<u32>,
) -> Result<(), SortError> {
    assert!(src.len() == keys.len() && keys.len() == values.len() && plan.len() >= PLAN_WORDS);
    assert!(items_c.is_none_or(|c| c.len() == src.len()));
    let n = src.len() as u64;
    let c = items_c.map_or(0, |c| c.ptr);
    let f = gpu.function(&gpusort_kernels::RADIX, "radix_copy_back_split")?;
    let blocks = grid_for(src.len(), 256, gpu.multiprocessors as usize * 8);
    let lc = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    // SAFETY: matches radix_copy_back_split(const u32* plan, const KvpItem* src, const KvpItem*
    // items_c, u32* keys, u32* values, u64 n); `src` and `items_c` (or null) hold n items, `keys`
    // and `values` n words each (checked above).
    let mut a = Args::new();
    a.arg(plan.ptr).arg(src.ptr).arg(c).arg(keys.ptr).arg(values.ptr).arg(n);
    unsafe { overlap::launch(gpu, stream, &f, Launch::Follows, lc, &mut a) }
        .map_err(launch_err("radix_copy_back_split"))
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
    let mut a = Args::new();
    a.arg(keys.ptr).arg(vptr).arg(n).arg(order);
    unsafe { overlap::launch(gpu, stream, &f, Launch::Follows, lc, &mut a) }.map_err(launch_err("radix_small"))
}
