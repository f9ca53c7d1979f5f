//! Stable LSD radix sort on the GPU, 8-bit digits, Onesweep style (Adinets & Merrill 2022): one
//! histogram pass for every digit, then one kernel per digit that ranks a tile in shared memory,
//! finds its global offsets by a chained scan with decoupled look-back and scatters coalesced.
//! Passes whose digit is the same for every key are skipped on the device (no host sync). Inputs
//! of one tile are sorted by one block in one launch. The kernels are `kernels-cuda/cuda/radix.cu`.
//!
//! Extra device memory, in one allocation made and freed on the caller's stream: one copy of the
//! data (the ping-pong buffer; split u32 pairs keep it as (key, value) items where the image says
//! so, `Config::b_interleaved`, and take a second copy as items where it fits,
//! `Config::second_items`), 2 KB of status words per tile (two regions of 256 u32) and 6 KB of
//! counters; for 64M `Kvp`s (512 MB) that is 512 MB + 32 MB, for 64M split u32 pairs 1 GB + 32 MB.

mod argsort;
mod config;
mod launch;
mod segment_launch;
pub(crate) mod segmented;
mod sets;
#[cfg(feature = "testing")]
pub mod steps;
#[cfg(not(feature = "testing"))]
mod steps;
#[cfg(test)]
mod tests;
mod variants;

use std::mem::size_of;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr};

use super::device::Gpu;
use super::scratch::Scratch;
use crate::{Kvp, Order, SortError};
#[cfg(test)]
use argsort::argsort_narrow_in;
pub(crate) use argsort::{argsort_narrow, need_argsort_narrow};
pub(crate) use launch::Dev;
use launch::{PassWords, PingPong, Portion, ScratchValues, Sweep, RADIX, SWEEP_MAX_KEYS};
use sets::{
    Sets, F32_KEYS, F32_PAIRS, KVP_SETS, U16_KEYS, U16_PAIRS, U32_KEYS, U32_PAIRS, U64_KEYS, U64_PAIRS, U8_KEYS,
    U8_PAIRS,
};
use variants::Variant;

/// Words at the start of the u32 metadata buffer reserved for the plan (`PLAN_WORDS` rounded up).
const PLAN_SLOT: usize = 32;
const _: () = assert!(launch::PLAN_WORDS <= PLAN_SLOT);

/// A key type the radix kernels sort on the device, and how its bits order (`ORDER_*` in
/// radix.cuh): i32 keys share the u32 kernels, f32 keys have their own, i64 and f64 keys share the
/// u64 ones, the 16- and the 8-bit keys one set per width; all flip their bits on the fly.
pub(crate) trait RadixKey: DeviceRepr + 'static {
    /// The keys-only entry points.
    const KEYS: Sets;
    /// The entry points for these keys with a separate u32 value array.
    const PAIRS: Sets;
    /// `ORDER_SIGNED` or `ORDER_FLOAT`, or 0.
    const ORDER_FLAGS: i32;
}

impl RadixKey for u32 {
    const KEYS: Sets = U32_KEYS;
    const PAIRS: Sets = U32_PAIRS;
    const ORDER_FLAGS: i32 = 0;
}
impl RadixKey for i32 {
    const KEYS: Sets = U32_KEYS;
    const PAIRS: Sets = U32_PAIRS;
    const ORDER_FLAGS: i32 = launch::ORDER_SIGNED;
}
impl RadixKey for f32 {
    const KEYS: Sets = F32_KEYS;
    const PAIRS: Sets = F32_PAIRS;
    const ORDER_FLAGS: i32 = launch::ORDER_FLOAT;
}
impl RadixKey for u64 {
    const KEYS: Sets = U64_KEYS;
    const PAIRS: Sets = U64_PAIRS;
    const ORDER_FLAGS: i32 = 0;
}
impl RadixKey for i64 {
    const KEYS: Sets = U64_KEYS;
    const PAIRS: Sets = U64_PAIRS;
    const ORDER_FLAGS: i32 = launch::ORDER_SIGNED;
}
impl RadixKey for f64 {
    const KEYS: Sets = U64_KEYS;
    const PAIRS: Sets = U64_PAIRS;
    const ORDER_FLAGS: i32 = launch::ORDER_FLOAT;
}

/// 8- and 16-bit keys at their own width: one digit pass per byte.
macro_rules! narrow_radix_keys {
    ($($t:ty: $keys:ident, $pairs:ident, $flags:expr;)*) => {$(
        impl RadixKey for $t {
            const KEYS: Sets = $keys;
            const PAIRS: Sets = $pairs;
            const ORDER_FLAGS: i32 = $flags;
        }
    )*};
}
narrow_radix_keys! {
    u16: U16_KEYS, U16_PAIRS, 0;
    i16: U16_KEYS, U16_PAIRS, launch::ORDER_SIGNED;
    half::f16: U16_KEYS, U16_PAIRS, launch::ORDER_FLOAT;
    half::bf16: U16_KEYS, U16_PAIRS, launch::ORDER_FLOAT;
    u8: U8_KEYS, U8_PAIRS, 0;
    i8: U8_KEYS, U8_PAIRS, launch::ORDER_SIGNED;
}

/// Reads every kernel set's config (loading the image and granting shared memory), so that no
/// later sort makes a blocking driver call; a set this device cannot run fails when used.
pub(crate) fn prepare(gpu: &Gpu) {
    for &v in Variant::ALL {
        let _ = config::config(gpu, v);
    }
}

/// The kernels' `order` argument for keys of `key_flags` (`RadixKey::ORDER_FLAGS`) in `order`.
pub(crate) fn order_flags(key_flags: i32, order: Order) -> i32 {
    key_flags | if order == Order::Descending { launch::ORDER_DESCENDING } else { 0 }
}

/// Sorts `Kvp`s by key in place, stably, asynchronously on `stream`.
pub(crate) fn sort_kvp(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    data: &mut CudaSlice<Kvp>,
    order: Order,
    scratch: Scratch,
) -> Result<(), SortError> {
    let variant = KVP_SETS.set_for(data.len(), gpu)?;
    sort::<Kvp, u32>(gpu, stream, variant, data, None, order_flags(0, order), Run::FULL, scratch)
}

/// Sorts keys in place, asynchronously on `stream`.
pub(crate) fn sort_keys<K: RadixKey>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    data: &mut CudaSlice<K>,
    order: Order,
    scratch: Scratch,
) -> Result<(), SortError> {
    let variant = K::KEYS.set_for(data.len(), gpu)?;
    sort::<K, u32>(gpu, stream, variant, data, None, order_flags(K::ORDER_FLAGS, order), Run::FULL, scratch)
}

/// Sorts split arrays by key in place, values moving with their keys, stably, asynchronously.
pub(crate) fn sort_pairs<K: RadixKey>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    keys: &mut CudaSlice<K>,
    values: &mut CudaSlice<u32>,
    order: Order,
    scratch: Scratch,
) -> Result<(), SortError> {
    SortError::check_pair_lengths(keys.len(), values.len())?;
    let variant = K::PAIRS.set_for(keys.len(), gpu)?;
    sort(gpu, stream, variant, keys, Some(values), order_flags(K::ORDER_FLAGS, order), Run::FULL, scratch)
}

/// Adds to `hist` (256 words, zeroed) how many of the 8-bit `keys` take each place in `order`: the
/// histogram of their one digit pass, for a counting sort. Asynchronous on `stream`.
pub(crate) fn count_bytes<K: RadixKey>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    keys: &CudaSlice<K>,
    order: Order,
    hist: &mut CudaSlice<u64>,
) -> Result<(), SortError> {
    assert!(size_of::<K>() == 1 && hist.len() == RADIX, "256 counts of 8-bit keys");
    let variant = K::KEYS.set_for(keys.len(), gpu)?;
    let cfg = config::config(gpu, variant)?;
    let (kp, _keys_guard) = keys.device_ptr(stream);
    let (hp, _hist_guard) = hist.device_ptr_mut(stream);
    // SAFETY: both buffers stay borrowed until this function returns, after the launch is queued
    // on `stream`.
    let (keys, hist) = unsafe { (Dev::<K>::new(kp, keys.len()), Dev::<u64>::new(hp, RADIX)) };
    launch::histogram(gpu, stream, variant, &cfg, keys, order_flags(K::ORDER_FLAGS, order), hist)
}

/// The scratch bytes `sort_kvp` of `n` items carves from a caller's arena.
pub(crate) fn need_kvp(gpu: &Gpu, n: usize) -> Result<usize, SortError> {
    need::<Kvp>(gpu, KVP_SETS.set_for(n, gpu)?, n, 0)
}

/// The scratch bytes `sort_keys` of `n` keys carves from a caller's arena.
pub(crate) fn need_keys<K: RadixKey>(gpu: &Gpu, n: usize) -> Result<usize, SortError> {
    need::<K>(gpu, K::KEYS.set_for(n, gpu)?, n, 0)
}

/// The scratch bytes `sort_pairs` of `n` pairs carves from a caller's arena (with the second
/// item buffer where the image takes one: the faster sort).
pub(crate) fn need_pairs<K: RadixKey>(gpu: &Gpu, n: usize) -> Result<usize, SortError> {
    need::<K>(gpu, K::PAIRS.set_for(n, gpu)?, n, size_of::<u32>())
}

fn need<K>(gpu: &Gpu, variant: Variant, n: usize, value_size: usize) -> Result<usize, SortError> {
    let cfg = config::config(gpu, variant)?;
    if n < 2 || n <= cfg.small_tile {
        return Ok(0);
    }
    let shape = Shape::of(&cfg, n, size_of::<K>(), value_size, Run::FULL);
    Ok(Scratch::bytes::<u8>(shape.layout(shape.wants_second_items(&cfg, Run::FULL)).total))
}

/// How a sort may run. The public sorts take `Run::FULL`; the unit tests choose less, to reach at
/// small sizes the paths that only a full device or more than 2^30 - 1 keys take otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    /// Whether a split u32 pairs sort whose image takes a second item buffer
    /// (`Config::second_items`) allocates one where it fits: 8n more bytes of scratch for a faster
    /// sort (kernels-cuda/cuda/policy_radix.cuh `SweepPolicy::interleave`). Without room for it the sort
    /// runs without it.
    second_items: bool,
    /// Most tiles one sweep launch covers. Longer inputs take one launch per portion of each
    /// pass, the digits' bases carried from one portion to the next. `None`: about
    /// `tuning::RADIX_PORTION_KEYS` keys. Never more than the look-back's 30-bit counts hold
    /// (`SWEEP_MAX_KEYS` keys).
    portion_tiles: Option<usize>,
    /// A test-only sweep kernel of the radix_steps image in place of the set's, in that image's
    /// tiles, and no one-block sort (`steps`).
    steps: Option<&'static str>,
}

impl Run {
    const FULL: Run = Run { second_items: true, portion_tiles: None, steps: None };
}

/// Byte offsets of the parts of the one scratch allocation, each 256-byte aligned.
struct Layout {
    keys: usize,
    values: usize,
    /// The second item buffer of split u32 pairs (`Config::second_items`), 8n bytes.
    items_c: Option<usize>,
    meta64: usize,
    meta32: usize,
    status: usize,
    total: usize,
}

/// How a sweep pass of `n` keys in tiles of `tile` is cut into launches of at most `most_tiles`
/// tiles (and `SWEEP_MAX_KEYS` keys): the tiles of one launch and the number of launches. The
/// launches get equal tile counts, the last at most one tile fewer per launch: each launch clears
/// the look-back words of the next, and a short last one would leave its few blocks to clear a
/// long one's.
fn portions_of(n: usize, tile: usize, most_tiles: usize) -> (usize, usize) {
    let most_tiles = most_tiles.clamp(1, SWEEP_MAX_KEYS / tile);
    let all_tiles = n.div_ceil(tile);
    let tiles = all_tiles.div_ceil(all_tiles.div_ceil(most_tiles));
    (tiles, all_tiles.div_ceil(tiles))
}

/// The launch shape of a sort of `n` items past one tile, from which its scratch layout follows.
#[derive(Clone, Copy)]
struct Shape {
    n: usize,
    key_size: usize,
    /// 0 for keys alone.
    value_size: usize,
    passes: usize,
    tiles: usize,
    portions: usize,
    /// Split u32 pairs kept as (key, value) items in the scratch copy (`Config::b_interleaved`).
    interleaved: bool,
}

impl Shape {
    fn of(cfg: &config::Config, n: usize, key_size: usize, value_size: usize, run: Run) -> Shape {
        let most_tiles = run.portion_tiles.unwrap_or(crate::tuning::RADIX_PORTION_KEYS.div_ceil(cfg.tile));
        let (tiles, portions) = portions_of(n, cfg.tile, most_tiles);
        let interleaved = cfg.b_interleaved && value_size > 0;
        Shape { n, key_size, value_size, passes: cfg.passes, tiles, portions, interleaved }
    }

    /// Whether the sort asks for the second item buffer (`Run::second_items`).
    fn wants_second_items(&self, cfg: &config::Config, run: Run) -> bool {
        self.interleaved && cfg.second_items && run.second_items
    }

    /// The scratch copy of split pairs as (key, value) items, where the image says so: every
    /// other pass then writes 8-byte items (radix_onesweep.cuh, B_INTERLEAVED), or with a second
    /// item buffer every pass but the last.
    fn layout(&self, second_items: bool) -> Layout {
        let align = |x: usize| x.div_ceil(256) * 256;
        let (n, passes) = (self.n, self.passes);
        let value_bytes = n * self.value_size;
        let mut l = Layout { keys: 0, values: 0, items_c: None, meta64: 0, meta32: 0, status: 0, total: 0 };
        l.values = if self.interleaved { n * self.key_size } else { align(n * self.key_size) };
        l.items_c = second_items.then(|| align(l.values + value_bytes));
        l.meta64 = align(l.items_c.map_or(l.values + value_bytes, |c| c + n * 8));
        // u64: [passes][256] histogram, then [passes][2][256] digit bases (ping-pong per portion).
        l.meta32 = l.meta64 + align(passes * RADIX * 3 * 8);
        // u32: the plan, then one tile counter per launch (pass x portion).
        l.status = l.meta32 + align((PLAN_SLOT + passes * self.portions) * 4);
        // Two status regions: each launch uses one and clears the other for the next.
        l.total = l.status + 2 * self.tiles * RADIX * 4;
        l
    }
}

#[allow(clippy::too_many_arguments)] // one per part of a sort's shape; `Run` picks the test-only paths
fn sort<K: DeviceRepr, V: DeviceRepr>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    variant: Variant,
    keys: &mut CudaSlice<K>,
    values: Option<&mut CudaSlice<V>>,
    order: i32,
    run: Run,
    scratch: Scratch,
) -> Result<(), SortError> {
    let n = keys.len();
    if n < 2 {
        return Ok(());
    }
    let mut cfg = config::config(gpu, variant)?;
    if run.steps.is_some() {
        cfg = steps::with_steps_shape(gpu, cfg)?;
    }
    // One device pointer per caller buffer for all launches; the guards record the caller's
    // buffers as written by this stream when they drop, at the end.
    let (keys_ptr, _keys_guard) = keys.device_ptr_mut(stream);
    // SAFETY: the caller's buffers stay borrowed (and so allocated and unused elsewhere) until this
    // function returns, and every launch below is queued on `stream` before it does.
    let keys_a = unsafe { Dev::<K>::new(keys_ptr, n) };
    let (values_a, _values_guard) = match values {
        Some(v) => {
            let (p, g) = v.device_ptr_mut(stream);
            (Some(unsafe { Dev::<V>::new(p, n) }), Some(g))
        }
        None => (None, None),
    };
    if n <= cfg.small_tile {
        return launch::small(gpu, stream, variant, &cfg, keys_a, values_a, order);
    }

    passes(gpu, stream, variant, &cfg, keys_a, values_a, order, run, scratch, Tail::CopyBack)
}

/// What ends a sort once its passes are queued: the result copied back into the caller's buffers
/// where it ended in the scratch ones, or for an argsort (`argsort_narrow`) the positions in
/// input order where no pass ran; `wide` is the caller's u64 positions (0: u32 ones in values_a).
#[derive(Clone, Copy)]
enum Tail {
    CopyBack,
    Argsort { wide: u64 },
}

/// The passes of a sort of more than one tile: the histogram, the plan, each pass in portions,
/// then `tail`, all queued on `stream` with scratch from `scratch`.
#[allow(clippy::too_many_arguments)] // one per part of a sort's shape; `Run` picks the test-only paths
fn passes<K: DeviceRepr, V: DeviceRepr>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    variant: Variant,
    cfg: &config::Config,
    keys_a: Dev<K>,
    values_a: Option<Dev<V>>,
    order: i32,
    run: Run,
    scratch: Scratch,
    tail: Tail,
) -> Result<(), SortError> {
    let n = keys_a.len();
    let passes = cfg.passes;
    let shape = Shape::of(cfg, n, size_of::<K>(), values_a.map_or(0, |_| size_of::<V>()), run);
    let Shape { tiles, portions, .. } = shape;
    let (portion_cap, status_words) = (tiles * cfg.tile, tiles * RADIX);
    let interleaved = shape.interleaved;
    assert!(!interleaved || (size_of::<K>() == 4 && size_of::<V>() == 4));
    let mut l = shape.layout(shape.wants_second_items(cfg, run));
    debug_assert_eq!(l.keys, 0);

    // SAFETY (both sources): the ping-pong halves are written by a pass before they are read (when
    // no pass runs, the plan keeps the result in the caller's buffer and they are never read); the
    // counters and status words are zeroed just below.
    // Where the second item buffer does not fit, the sort runs without it (8n bytes less).
    let mut scratch = match scratch.take::<u8>(stream, l.total, "radix scratch") {
        Err(_) if l.items_c.is_some() => {
            l = shape.layout(false);
            scratch.take::<u8>(stream, l.total, "radix scratch")?
        }
        r => r?,
    };
    let (base, _scratch_guard) = scratch.device_ptr_mut(stream);
    // SAFETY: `scratch` lives until the end of this function; the launches are queued before its
    // asynchronous free (or the caller's reuse of its arena) on the same stream.
    let all = unsafe { Dev::<u8>::new(base, l.total) };
    // SAFETY: a byte range of the allocation above.
    unsafe {
        cudarc::driver::result::memset_d8_async(base + l.meta64 as u64, 0, l.total - l.meta64, stream.cu_stream())
    }
    .map_err(SortError::driver("cuMemsetD8Async", l.total - l.meta64))?;

    // With interleaved items the kernels address all n items from `keys_b` (and the second item
    // buffer, where there is one, through the values' scratch argument).
    let keys_b = all.range(l.keys, n * size_of::<K>()).cast::<K>();
    let items_c = l.items_c.map(|c| all.range(c, n * 8).cast::<[u32; 2]>());
    let values_b = values_a.map(|_| {
        if interleaved {
            ScratchValues::Items(items_c)
        } else {
            ScratchValues::Split(all.range(l.values, n * size_of::<V>()).cast::<V>())
        }
    });
    let meta64 = all.range(l.meta64, passes * RADIX * 3 * 8).cast::<u64>();
    let meta32 = all.range(l.meta32, (PLAN_SLOT + passes * portions) * 4).cast::<u32>();
    let status = [0, 1].map(|r| all.range(l.status + r * status_words * 4, status_words * 4).cast::<u32>());
    let hist = meta64.range(0, passes * RADIX);
    let plan = meta32.range(0, PLAN_SLOT);

    launch::histogram(gpu, stream, variant, cfg, keys_a, order, hist)?;
    launch::prepare(gpu, stream, hist, passes, n, plan, meta64.range(passes * RADIX, passes * 2 * RADIX))?;
    let buffers = PingPong { keys_a, keys_b, values: values_a.zip(values_b) };
    for pass in 0..passes {
        for q in 0..portions {
            let k = pass * portions + q;
            let begin = q * portion_cap;
            let bases = |s: usize| meta64.range(passes * RADIX + (pass * 2 + s) * RADIX, RADIX);
            let portion = Portion {
                words: PassWords {
                    pass,
                    status: status[k % 2],
                    status_next: status[(k + 1) % 2],
                    tile_counter: meta32.range(PLAN_SLOT + k, 1),
                },
                begin,
                len: portion_cap.min(n - begin),
                base_in: bases(q % 2),
                base_out: bases((q + 1) % 2),
            };
            let kernel = match (run.steps, tail) {
                (Some(name), _) => Sweep::Steps(name),
                (None, Tail::Argsort { wide }) => Sweep::Argsort(variant, wide),
                (None, Tail::CopyBack) => Sweep::Of(variant),
            };
            launch::onesweep(gpu, stream, kernel, cfg, plan, order, &buffers, &portion)?;
        }
    }
    if let Tail::Argsort { wide } = tail {
        let out = buffers.values.as_ref().map_or(0, |(a, _)| a.ptr());
        return launch::argsort_identity(gpu, stream, plan, out, wide, n);
    }
    match buffers.values {
        Some((a, ScratchValues::Items(c))) => {
            let items = all.range(l.keys, n * 8).cast::<[u32; 2]>();
            launch::copy_back_split(gpu, stream, plan, items, c, keys_a.cast(), a.cast())?;
        }
        Some((a, ScratchValues::Split(b))) => launch::copy_back(gpu, stream, plan, (keys_b, keys_a), Some((b, a)))?,
        None => launch::copy_back::<K, V>(gpu, stream, plan, (keys_b, keys_a), None)?,
    }
    Ok(())
}
