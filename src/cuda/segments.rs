//! Segmented sorts of keys already on the device (`kernels-cuda/cuda/segments.cu`), by the
//! longest segment and the average:
//! - none longer than 256 keys: `n / 8` lanes per segment in registers (`segments_lanes_<n>`,
//!   8 keys per lane);
//! - none longer than 2048: one block per segment in shared memory (`segments_block_<n>`);
//! - a radix tile of keys or more per segment on average: the radix sort's passes over every
//!   segment at once, each with its own digit bases (`radix::segmented`);
//! - otherwise 32-bit keys become `segment << 32 | ordered bits`, one stable radix sort of those
//!   64-bit words (values beside them) orders every segment on its own, and the keys are read
//!   back out. The radix sort skips the digit passes of segment bits no key sets: 1M segments
//!   leave 12 of the 32 high bits zero.
//!
//! 64-bit keys take the lanes networks up to 256 keys per segment (`segments_lanes64_<n>`);
//! longer segments leave no room for the segment beside the key, so they take two stable radix
//! sorts of positions, by key and then by segment (`wide`).
//!
//! The offsets are checked on the device first, which also finds the longest segment; that
//! answer is what this reads back (a wait for the stream), so bad offsets leave the data
//! untouched.
//!
//! Extra device memory: the words (8 bytes per key) and the radix sort's ping-pong copy of them
//! and of the values; the segmented radix sort needs less (`radix::segmented`); 64-bit keys 24
//! bytes per key (`wide`).

mod wide;

use super::scratch::Scratch;
use std::any::Any;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, LaunchConfig};

use super::device::Gpu;
use super::dispatch::{DeviceItem, DeviceStep};
use super::host_keys::Bits32;
use super::hostdata::{self, Direct, KeysAsBits};
use super::incore;
use super::radix::{self, order_flags, Dev, RadixKey};
use super::small_keys;
use super::staging::Plain;
use super::transfer::begin;
use super::CudaBackend;
use crate::backend::KeySlice;
use crate::{Key, Order, SortError};

/// A segmented sort as the step of a host round trip (`incore`): the offsets already on the
/// device.
pub(crate) struct SegmentedSort<'a> {
    gpu: &'a Gpu,
    order: Order,
    offsets: &'a CudaSlice<u64>,
}

impl DeviceStep for SegmentedSort<'_> {
    fn run<T: DeviceItem>(&self, stream: &Arc<CudaStream>, data: &mut CudaSlice<T>) -> Result<(), SortError> {
        sort_any(self.gpu, stream, data, None, self.offsets, self.order)
    }
    fn run_pairs<K: RadixKey>(
        &self,
        stream: &Arc<CudaStream>,
        keys: &mut CudaSlice<K>,
        values: &mut CudaSlice<u32>,
    ) -> Result<(), SortError> {
        sort_any(self.gpu, stream, keys, Some(values), self.offsets, self.order)
    }
}

/// Bytes of device memory a segmented sort of `n` keys (64-bit when `wide`; with values) needs:
/// the data and the scratch. 32-bit keys: the words and the radix sort's copies of words and
/// values; 64-bit keys: 24 bytes per key whether values are given or not (`wide`).
fn need_bytes(n: usize, wide: bool, values: bool, segments: usize) -> usize {
    let per_key = match (wide, values) {
        (true, true) => 8 + 4 + 24,
        (true, false) => 8 + 24,
        (false, true) => 4 + 16 + 4 + 8,
        (false, false) => 4 + 16,
    };
    n.saturating_mul(per_key + 1).saturating_add(segments.saturating_mul(8)).saturating_add(1 << 20)
}

impl CudaBackend {
    /// Sorts each segment of host `keys` (with `values`) on its own on the device: the offsets go
    /// up first, then one round trip of the keys (and values) through the pinned staging, as a
    /// sort's data does. The data is untouched on failure; `OutOfMemory` when it does not fit the
    /// device budget or the held pinned buffer in one piece (no out-of-core form), `Unsupported`
    /// for 2^32 64-bit keys or more: `auto()` then sorts on the host.
    pub(crate) fn sort_segments_host(
        &self,
        keys: KeySlice<'_>,
        values: Option<&mut [u32]>,
        offsets: &[usize],
        order: Order,
    ) -> Result<(), SortError> {
        self.bind()?;
        // Small keys travel as their 32-bit ordered bits.
        let wide = matches!(keys, KeySlice::U64(_) | KeySlice::I64(_) | KeySlice::F64(_));
        let need = need_bytes(keys.len(), wide, values.is_some(), offsets.len());
        if self.budget(need)?.is_some_and(|limit| need > limit) {
            return Err(SortError::OutOfMemory { op: "segmented sort on the device (device memory)", bytes: need });
        }
        let wide: Vec<u64> = offsets.iter().map(|&o| o as u64).collect();
        let stream = begin(&self.gpu)?;
        let d_offsets = stream.clone_htod(&wide).map_err(SortError::driver("copy to device", wide.len() * 8))?;
        stream.synchronize().map_err(SortError::driver("cuStreamSynchronize", 0))?;
        let step = SegmentedSort { gpu: &self.gpu, order, offsets: &d_offsets };
        match (keys, values) {
            (KeySlice::U32(k), Some(v)) => incore::round_trip_pairs(&self.gpu, k, v, &step),
            (KeySlice::I32(k), Some(v)) => incore::round_trip_pairs(&self.gpu, k, v, &step),
            (KeySlice::F32(k), Some(v)) => incore::round_trip_pairs(&self.gpu, k, v, &step),
            (KeySlice::U32(k), None) => incore::round_trip(&self.gpu, &mut Direct(k), &step),
            (KeySlice::I32(k), None) => incore::round_trip(&self.gpu, &mut Direct(k), &step),
            (KeySlice::F32(k), None) => incore::round_trip(&self.gpu, &mut Direct(k), &step),
            (KeySlice::U64(k), Some(v)) => incore::round_trip_pairs(&self.gpu, k, v, &step),
            (KeySlice::I64(k), Some(v)) => incore::round_trip_pairs(&self.gpu, k, v, &step),
            (KeySlice::F64(k), Some(v)) => incore::round_trip_pairs(&self.gpu, k, v, &step),
            (KeySlice::U64(k), None) => incore::round_trip(&self.gpu, &mut Direct(k), &step),
            (KeySlice::I64(k), None) => incore::round_trip(&self.gpu, &mut Direct(k), &step),
            (KeySlice::F64(k), None) => incore::round_trip(&self.gpu, &mut Direct(k), &step),
            (KeySlice::U16(k), v) => small(&self.gpu, k, v, &step),
            (KeySlice::I16(k), v) => small(&self.gpu, k, v, &step),
            (KeySlice::U8(k), v) => small(&self.gpu, k, v, &step),
            (KeySlice::I8(k), v) => small(&self.gpu, k, v, &step),
            (KeySlice::F16(k), v) => small(&self.gpu, k, v, &step),
            (KeySlice::BF16(k), v) => small(&self.gpu, k, v, &step),
        }
    }

    /// Sorts each segment of `keys` (with `values`, when given) on its own, in `order`, stably,
    /// queued on `stream`; segment `s` is `offsets[s]..offsets[s + 1]`. `K` is one of the `Key`
    /// types; those of 8 and 16 bits sort as their 32-bit ordered bits (`small_keys.rs`).
    pub(crate) fn sort_segments_device<K: Key + DeviceRepr>(
        &self,
        stream: &Arc<CudaStream>,
        keys: &mut CudaSlice<K>,
        values: Option<&mut CudaSlice<u32>>,
        offsets: &CudaSlice<u64>,
        order: Order,
    ) -> Result<(), SortError> {
        self.bind()?;
        if size_of::<K>() < 4 {
            let mut bits = small_keys::widen(&self.gpu, stream, keys, Scratch::POOL)?;
            sort(&self.gpu, stream, &mut bits, values, offsets, order)?;
            return small_keys::narrow(&self.gpu, stream, &bits, keys);
        }
        sort_any(&self.gpu, stream, keys, values, offsets, order)
    }
}

/// Small host keys, which the segment kernels take as their 32-bit ordered bits: keys only are
/// widened while staged (`KeysAsBits`); with values the bits go through a host copy, sorted as
/// `u32` pairs, and reach `keys` only once that succeeded, so a failure leaves both untouched.
fn small<K: Bits32 + Plain>(
    gpu: &Gpu,
    keys: &mut [K],
    values: Option<&mut [u32]>,
    step: &SegmentedSort,
) -> Result<(), SortError> {
    let Some(values) = values else {
        return incore::round_trip(gpu, &mut KeysAsBits(keys), step);
    };
    let mut bits = hostdata::widen(keys)?;
    incore::round_trip_pairs(gpu, bits.as_mut_slice(), values, step)?;
    hostdata::narrow(keys, bits.as_slice());
    Ok(())
}

/// `sort` (32-bit keys) or `wide::sort` (64-bit keys) for whichever key type `T` is (the
/// downcasts find it); `Unsupported` for any other item.
fn sort_any<T: 'static>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    keys: &mut CudaSlice<T>,
    values: Option<&mut CudaSlice<u32>>,
    offsets: &CudaSlice<u64>,
    order: Order,
) -> Result<(), SortError> {
    let any = keys as &mut dyn Any;
    macro_rules! as_type {
        ($sort:path: $($t:ty),*) => {$(
            if let Some(keys) = any.downcast_mut::<CudaSlice<$t>>() {
                return $sort(gpu, stream, keys, values, offsets, order);
            }
        )*};
    }
    as_type!(sort: u32, i32, f32);
    as_type!(wide::sort: u64, i64, f64);
    Err(SortError::Unsupported {
        backend: "cuda",
        what: format!(
            "segmented sorts of {} keys on the device: it sorts the segments of 32- and 64-bit keys (u32, i32, \
             f32, u64, i64, f64) only; other key types' segments sort from host memory",
            std::any::type_name::<T>()
        ),
    })
}

/// Checks the lengths and the offsets (on the device, a wait for `stream`) before anything is
/// queued that writes, and returns the longest segment.
fn validate(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    n: usize,
    values: Option<usize>,
    offsets: &CudaSlice<u64>,
) -> Result<usize, SortError> {
    if let Some(v) = values {
        SortError::check_pair_lengths(n, v)?;
    }
    let bad = |why: String| Err(SortError::InvalidArgument(format!("segment offsets: {why}")));
    let count = offsets.len();
    if count == 0 {
        return bad("empty; give at least [0, n]".into());
    }
    if count - 1 > u32::MAX as usize {
        return bad(format!("{} segments; at most 2^32 - 1 on the device", count - 1));
    }
    check(gpu, stream, offsets, n)
}

fn sort<K: RadixKey>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    keys: &mut CudaSlice<K>,
    values: Option<&mut CudaSlice<u32>>,
    offsets: &CudaSlice<u64>,
    order: Order,
) -> Result<(), SortError> {
    let n = keys.len();
    let longest = validate(gpu, stream, n, values.as_deref().map(|v| v.len()), offsets)?;
    let count = offsets.len();
    if n < 2 || longest < 2 {
        return Ok(());
    }
    let flags = order_flags(K::ORDER_FLAGS, order);
    if let Some(kernel) = network_for(longest, false) {
        return network::<K, u32>(gpu, stream, kernel, keys, values, offsets, flags);
    }
    if radix::segmented::takes::<K>(gpu, values.is_some(), n, count - 1, longest)? {
        return radix::segmented::sort(gpu, stream, keys, values, offsets, flags);
    }
    // SAFETY: segments_compose writes every word before the sort reads it.
    let mut words = unsafe { stream.alloc::<u64>(n) }.map_err(SortError::driver("segmented sort words", n * 8))?;
    {
        let (kp, _gk) = keys.device_ptr(stream);
        let (op, _go) = offsets.device_ptr(stream);
        let (wp, _gw) = words.device_ptr_mut(stream);
        // SAFETY: the buffers are borrowed until the block ends and the launch is queued before.
        let (k, o, w) = unsafe { (Dev::<u32>::new(kp, n), Dev::<u64>::new(op, count), Dev::<u64>::new(wp, n)) };
        launch::compose(gpu, stream, k, flags, o, w)?;
    }
    // The words order ascending: `flags` already turned each key's bits (descending included).
    match values {
        Some(v) => radix::sort_pairs(gpu, stream, &mut words, v, Order::Ascending, Scratch::POOL)?,
        None => radix::sort_keys(gpu, stream, &mut words, Order::Ascending, Scratch::POOL)?,
    }
    let (wp, _gw) = words.device_ptr(stream);
    let (kp, _gk) = keys.device_ptr_mut(stream);
    // SAFETY: as above.
    let (w, k) = unsafe { (Dev::<u64>::new(wp, n), Dev::<u32>::new(kp, n)) };
    launch::decompose(gpu, stream, w, flags, k)
}

/// Segment lengths the sorts in registers take (`segments_lanes_<n>`): `n / 8` lanes per segment,
/// 8 keys each.
const LANES_KEYS: [usize; 6] = [8, 16, 32, 64, 128, 256];

/// Keys per lane of `segments_lanes_<n>` (`LANE_KEYS` in segments.cu).
const LANE_KEYS: usize = 8;

/// The key words the network kernels take: 32-bit (`segments_lanes_<n>`, `segments_block_<n>`)
/// and 64-bit ones (`segments_lanes64_<n>`).
pub(super) trait NetworkBits: Copy {
    const WIDE: bool;
}
impl NetworkBits for u32 {
    const WIDE: bool = false;
}
impl NetworkBits for u64 {
    const WIDE: bool = true;
}

/// Which network kernel sorts segments short enough for it.
#[derive(Clone, Copy, Debug)]
enum Network {
    /// `segments_lanes_<keys>`: `keys / 8` lanes per segment of at most `keys`.
    Lanes(usize),
    /// `segments_block_<keys>`: one block per segment of at most `keys`.
    Block(usize),
}

/// Segment lengths the one-block sorts take (`segments_block_<n>`), up to 2048 keys.
const BLOCK_KEYS: [usize; 3] = [512, 1024, 2048];

/// The network kernel that sorts segments of at most `longest` keys, if one takes them: the
/// smallest lanes kernel, else (32-bit keys) the smallest one-block kernel. A one-block network of
/// 64-bit words took longer than the two position sorts of `wide` (H200, 64M u64 keys with u32
/// values in 64K segments of 1024: 9.4 ms, against 8.5).
fn network_for(longest: usize, wide: bool) -> Option<Network> {
    let lanes = LANES_KEYS.iter().copied().find(|&keys| longest <= keys).map(Network::Lanes);
    let block = || BLOCK_KEYS.iter().copied().find(|&keys| longest <= keys).map(Network::Block);
    lanes.or_else(|| if wide { None } else { block() })
}

/// Sorts every segment of `keys` (with `values`) with `kernel`, the keys taken as their words `B`
/// (`u32` for 32-bit keys, `u64` for 64-bit ones: the kernels order them by `flags`). Every
/// segment is at most as long as the kernel takes (checked on the device by the caller).
fn network<K, B: NetworkBits>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    kernel: Network,
    keys: &mut CudaSlice<K>,
    values: Option<&mut CudaSlice<u32>>,
    offsets: &CudaSlice<u64>,
    flags: i32,
) -> Result<(), SortError> {
    assert_eq!(size_of::<K>(), size_of::<B>(), "network key words");
    let n = keys.len();
    let (kp, _gk) = keys.device_ptr_mut(stream);
    let (op, _go) = offsets.device_ptr(stream);
    let vp = values.map(|v| v.device_ptr_mut(stream));
    // SAFETY: the buffers are borrowed until the launch is queued; a key is one word `B` (checked
    // above) and the values hold n items (checked by the caller's `validate`).
    let (k, o, v) = unsafe {
        (Dev::<B>::new(kp, n), Dev::<u64>::new(op, offsets.len()), vp.as_ref().map(|(p, _)| Dev::<u32>::new(*p, n)))
    };
    launch::network_sort(gpu, stream, kernel, k, v, o, flags)
}

/// Checks on the device that `offsets` cut `n` items, and waits for the answer: the length of
/// the longest segment.
fn check(gpu: &Gpu, stream: &Arc<CudaStream>, offsets: &CudaSlice<u64>, n: usize) -> Result<usize, SortError> {
    let mut result = stream.alloc_zeros::<u64>(2).map_err(SortError::driver("segment offsets check", 16))?;
    {
        let (op, _go) = offsets.device_ptr(stream);
        let (rp, _gr) = result.device_ptr_mut(stream);
        // SAFETY: borrowed until the block ends; the launch is queued before.
        let (o, r) = unsafe { (Dev::<u64>::new(op, offsets.len()), Dev::<u64>::new(rp, 2)) };
        launch::check(gpu, stream, o, n, r)?;
    }
    let mut back = [0u64; 2];
    stream.memcpy_dtoh(&result, &mut back).map_err(SortError::driver("copy to host", 16))?;
    stream.synchronize().map_err(SortError::driver("cuStreamSynchronize", 0))?;
    if back[0] != 0 {
        return Err(SortError::InvalidArgument(format!(
            "segment offsets: they must start at 0, end at the {n} keys and never fall"
        )));
    }
    Ok(back[1] as usize)
}

/// Typed wrappers of the segments kernels. None of segments.cu's kernels waits for the previous
/// grid, so every one launches as `Launch::Plain`.
mod launch {
    use super::*;
    use crate::cuda::overlap::{self, Args, Launch};

    pub(super) fn err(what: &'static str) -> impl FnOnce(cudarc::driver::DriverError) -> SortError {
        SortError::driver(what, 0)
    }

    const THREADS: u32 = 256;
    /// `SEGMENTS_ITEMS` in segments.cu.
    const COMPOSE_ITEMS: usize = 8;

    pub(super) fn blocks(gpu: &Gpu, items: usize) -> u32 {
        items.div_ceil(THREADS as usize).clamp(1, gpu.multiprocessors as usize * 16) as u32
    }

    pub(super) fn config(blocks: u32) -> LaunchConfig {
        LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 }
    }

    /// `positions[i] = i`: the values of an argsort (64-bit keys' segments, records by key).
    pub(super) fn check(
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        offsets: Dev<u64>,
        n: usize,
        result: Dev<u64>,
    ) -> Result<(), SortError> {
        assert!(!offsets.is_empty() && result.len() == 2);
        let f = gpu.function(&gpusort_kernels::SEGMENTS, "segments_check")?;
        let mut a = Args::new();
        a.arg(offsets.ptr()).arg(offsets.len() as u64).arg(n as u64).arg(result.ptr());
        let lc = config(blocks(gpu, offsets.len()));
        // SAFETY: matches segments_check(const u64* offsets, u64 count, u64 n, u64* result); reads
        // `count` offsets, writes the two result words (zeroed by the caller).
        unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, lc, &mut a) }.map_err(err("segments_check"))
    }

    pub(super) fn compose(
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        keys: Dev<u32>,
        order: i32,
        offsets: Dev<u64>,
        words: Dev<u64>,
    ) -> Result<(), SortError> {
        assert!(words.len() == keys.len() && offsets.len() >= 2);
        let f = gpu.function(&gpusort_kernels::SEGMENTS, "segments_compose")?;
        let mut a = Args::new();
        a.arg(keys.ptr()).arg(keys.len() as u64).arg(order).arg(offsets.ptr()).arg(offsets.len() as u64 - 1);
        a.arg(words.ptr());
        let lc = config(blocks(gpu, keys.len().div_ceil(COMPOSE_ITEMS)));
        // SAFETY: matches segments_compose(const u32* keys, u64 n, int order, const u64* offsets,
        // u64 segments, u64* words); the offsets were checked (0 first, n last, never falling), so
        // every item's segment lies in [0, segments) and each of the n words is written once.
        unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, lc, &mut a) }.map_err(err("segments_compose"))
    }

    /// Sorts every segment with one of the network kernels, each segment at most as long as the
    /// kernel takes (checked by the caller): `segments_lanes_<n>` and `segments_block_<n>` for
    /// keys of 32 bits (`K` u32), `segments_lanes64_<n>` for 64 (u64).
    pub(super) fn network_sort<K: NetworkBits>(
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        kernel: Network,
        keys: Dev<K>,
        values: Option<Dev<u32>>,
        offsets: Dev<u64>,
        order: i32,
    ) -> Result<(), SortError> {
        assert!(values.is_none_or(|v| v.len() == keys.len()) && offsets.len() >= 2);
        let segments = offsets.len() - 1;
        let (name, grid) = match kernel {
            // Lanes for every segment in the grid: a grid-stride loop over segments left each
            // warp waiting on its next segment's loads (H100, 1M segments of 64 pairs, one warp per
            // segment: 1.57 ms with 16 blocks per SM, 1.28 with a warp each).
            Network::Lanes(keys_per_segment) => {
                let name = match (K::WIDE, keys_per_segment) {
                    (false, 8) => "segments_lanes_8",
                    (false, 16) => "segments_lanes_16",
                    (false, 32) => "segments_lanes_32",
                    (false, 64) => "segments_lanes_64",
                    (false, 128) => "segments_lanes_128",
                    (false, 256) => "segments_lanes_256",
                    (true, 8) => "segments_lanes64_8",
                    (true, 16) => "segments_lanes64_16",
                    (true, 32) => "segments_lanes64_32",
                    (true, 64) => "segments_lanes64_64",
                    (true, 128) => "segments_lanes64_128",
                    (true, 256) => "segments_lanes64_256",
                    _ => unreachable!("LANES_KEYS holds 8 to 256"),
                };
                let threads = segments as u64 * (keys_per_segment / super::LANE_KEYS) as u64;
                (name, threads.div_ceil(THREADS as u64) as usize)
            }
            Network::Block(keys_per_block) => {
                let name = match (K::WIDE, keys_per_block) {
                    (false, 512) => "segments_block_512",
                    (false, 1024) => "segments_block_1024",
                    (false, 2048) => "segments_block_2048",
                    (true, _) => unreachable!("64-bit keys take no one-block kernel (network_for)"),
                    _ => unreachable!("BLOCK_KEYS holds 512, 1024 and 2048"),
                };
                (name, segments.min(1 << 30))
            }
        };
        let f = gpu.function(&gpusort_kernels::SEGMENTS, name)?;
        let mut a = Args::new();
        a.arg(keys.ptr()).arg(values.map_or(0, |v| v.ptr())).arg(offsets.ptr()).arg(segments as u64).arg(order);
        // SAFETY: matches segments_lanes[64]_<n> and segments_block_<n>(K* keys, u32* values or
        // null, const u64* offsets, u64 segments, int order), K the key word the name says; the
        // offsets were checked, so each segment's lanes or block read and write the keys (and
        // values) of its own segments only, inside the n.
        unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, config(grid as u32), &mut a) }.map_err(err(name))
    }

    pub(super) fn decompose(
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        words: Dev<u64>,
        order: i32,
        keys: Dev<u32>,
    ) -> Result<(), SortError> {
        assert!(words.len() == keys.len());
        let f = gpu.function(&gpusort_kernels::SEGMENTS, "segments_decompose")?;
        let mut a = Args::new();
        a.arg(words.ptr()).arg(words.len() as u64).arg(order).arg(keys.ptr());
        let lc = config(blocks(gpu, keys.len()));
        // SAFETY: matches segments_decompose(const u64* words, u64 n, int order, u32* keys); n
        // of each (checked above).
        unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, lc, &mut a) }.map_err(err("segments_decompose"))
    }
}
