//! Sorting networks on the GPU: bitonic sort and Batcher's odd-even merge sort, for `Kvp` (8-byte
//! loads and stores) and `u32` keys, ascending or descending, any length. Neither is stable: equal
//! keys come out in an order that depends on the input.
//!
//! Each keeps the classic three roles as kernels (`kernels-cuda/cuda/network*.cu`): a tile sort
//! in shared memory and registers, global passes that each run several consecutive strides of a
//! stage over a block's rows, and a tile merge that finishes the strides below one tile. Lengths
//! that are not powers of two sort as if padded with elements that rank last; those are never
//! stored, and blocks that would hold only them are not launched, so n costs about what its
//! real elements touch. `plan.rs` decides the launches. On compute capability 9.0 and newer every
//! pass is launched to overlap the drain of the kernel before it (`overlap.rs`; each kernel waits
//! for that kernel before touching memory), as the radix sort's are: 1M pairs, H200, bitonic
//! 0.153 -> 0.131 ms, odd-even 0.300 -> 0.271.
//!
//! At most 2^30 elements (`plan::MAX_LEN`; more returns `Unsupported`).
//! Extra device memory: none for bitonic; one copy of the data for odd-even, whose windowed passes
//! read one buffer and write the other. Allocated and freed on the caller's stream.

mod plan;

use super::scratch::Scratch;
use std::sync::Arc;

use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, DevicePtrMut, DeviceRepr, LaunchConfig};

use super::device::Gpu;
use super::modules::ImageConfig;
use super::overlap::{self, Args, Launch};
use crate::{Kvp, Order, SortError};
use plan::{Kernel, Network, Pass, Tuning, MAX_LEN, TUNING_WORDS};

pub(crate) fn bitonic_kvp(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    data: &mut CudaSlice<Kvp>,
    order: Order,
    scratch: Scratch,
) -> Result<(), SortError> {
    sort::<Kvp>(gpu, stream, data, order, Network::Bitonic, scratch)
}

pub(crate) fn bitonic_keys_u32(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    data: &mut CudaSlice<u32>,
    order: Order,
    scratch: Scratch,
) -> Result<(), SortError> {
    sort::<u32>(gpu, stream, data, order, Network::Bitonic, scratch)
}

pub(crate) fn odd_even_kvp(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    data: &mut CudaSlice<Kvp>,
    order: Order,
    scratch: Scratch,
) -> Result<(), SortError> {
    sort::<Kvp>(gpu, stream, data, order, Network::OddEven, scratch)
}

pub(crate) fn odd_even_keys_u32(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    data: &mut CudaSlice<u32>,
    order: Order,
    scratch: Scratch,
) -> Result<(), SortError> {
    sort::<u32>(gpu, stream, data, order, Network::OddEven, scratch)
}

/// An element type the network kernels are built for.
trait Element: DeviceRepr {
    /// Kernel names per (kernel, descending), in `Kernel` order.
    const NAMES: [[&'static str; 2]; 6];
}

macro_rules! names {
    ($suf:literal) => {
        [
            [concat!("net_bitonic_tile_sort_", $suf, "_asc"), concat!("net_bitonic_tile_sort_", $suf, "_desc")],
            [concat!("net_bitonic_tile_merge_", $suf, "_asc"), concat!("net_bitonic_tile_merge_", $suf, "_desc")],
            [concat!("net_bitonic_global_", $suf, "_asc"), concat!("net_bitonic_global_", $suf, "_desc")],
            [concat!("net_oddeven_tile_sort_", $suf, "_asc"), concat!("net_oddeven_tile_sort_", $suf, "_desc")],
            [concat!("net_oddeven_tile_merge_", $suf, "_asc"), concat!("net_oddeven_tile_merge_", $suf, "_desc")],
            [concat!("net_oddeven_global_", $suf, "_asc"), concat!("net_oddeven_global_", $suf, "_desc")],
        ]
    };
}

impl Element for Kvp {
    const NAMES: [[&'static str; 2]; 6] = names!("kvp");
}
impl Element for u32 {
    const NAMES: [[&'static str; 2]; 6] = names!("u32");
}

fn kernel_index(k: Kernel) -> usize {
    match k {
        Kernel::BitonicTileSort => 0,
        Kernel::BitonicTileMerge => 1,
        Kernel::BitonicGlobal => 2,
        Kernel::OddEvenTileSort => 3,
        Kernel::OddEvenTileMerge => 4,
        Kernel::OddEvenGlobal => 5,
    }
}

fn sort<T: Element>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    data: &mut CudaSlice<T>,
    order: Order,
    network: Network,
    scratch: Scratch,
) -> Result<(), SortError> {
    let n = data.len();
    if n < 2 {
        return Ok(());
    }
    if n > MAX_LEN {
        return Err(SortError::Unsupported {
            backend: "cuda",
            what: format!("sorting networks take at most {MAX_LEN} elements, got {n}"),
        });
    }
    let tuning = gpu.config::<Tuning>(())?;
    let elem_bytes = std::mem::size_of::<T>();
    let passes = plan::plan(network, n, elem_bytes, &tuning);
    let desc = usize::from(order == Order::Descending);
    let shared = tuning.shared_bytes(elem_bytes);
    // Load every kernel first: a missing one fails before anything is queued.
    let mut funcs = Vec::with_capacity(passes.len());
    let mut raised = [false; 6];
    for p in &passes {
        let i = kernel_index(p.kernel);
        let f = gpu.function(&gpusort_kernels::NETWORK, T::NAMES[i][desc])?;
        if shared > 48 * 1024 && !std::mem::replace(&mut raised[i], true) {
            // Past 48 KB a kernel must opt in to its dynamic shared memory (cheap; once per sort).
            f.set_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared as i32)
                .map_err(SortError::driver("network shared memory opt-in", shared as usize))?;
        }
        funcs.push(f);
    }
    // The first pass that reads the scratch buffer follows one that wrote every real position of
    // it (each windowed pass writes all positions < n; see plan.rs).
    let mut scratch =
        if passes.iter().any(|p| p.swap) { Some(scratch.take::<T>(stream, n, "network scratch")?) } else { None };
    let (data_ptr, _data_sync) = data.device_ptr_mut(stream);
    let scratch_ptr = scratch.as_mut().map(|s| s.device_ptr_mut(stream));
    let mut cur = data_ptr;
    let other = |p: u64| match &scratch_ptr {
        Some((s, _)) if p == data_ptr => *s,
        _ => data_ptr,
    };
    for (pass, f) in passes.iter().zip(&funcs) {
        let dst = if pass.swap { other(cur) } else { cur };
        launch(gpu, stream, f, pass, (tuning.threads, shared), (cur, dst, n as i64))?;
        cur = dst;
    }
    debug_assert_eq!(cur, data_ptr);
    drop(scratch_ptr);
    drop(scratch);
    Ok(())
}

/// Reads the image's tuning (loading the image), so that no later sort makes a blocking call.
pub(crate) fn prepare(gpu: &Gpu) {
    let _ = gpu.config::<Tuning>(());
}

/// The tuning the network image was built with, read from its `net_tuning` once per device (the
/// module is loaded once per device too, so the two always match).
impl ImageConfig for Tuning {
    const IMAGE: &'static gpusort_kernels::Image = &gpusort_kernels::NETWORK;
    const WORDS: usize = TUNING_WORDS;
    type Key = ();

    fn global(_: ()) -> &'static str {
        "net_tuning"
    }

    fn parse(_: (), words: &[u32]) -> Result<Tuning, SortError> {
        Tuning::from_words(words).ok_or_else(|| SortError::Unsupported {
            backend: "cuda",
            what: format!("the network image's net_tuning is not one this build plans for: {words:x?}"),
        })
    }
}

fn launch(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    f: &CudaFunction,
    pass: &Pass,
    (threads, shared): (u32, u32),
    (src, dst, n): (u64, u64, i64),
) -> Result<(), SortError> {
    let cfg = LaunchConfig { grid_dim: (pass.blocks, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: shared };
    let [a, b, c] = pass.args;
    let mut args = Args::new();
    args.arg(src).arg(dst).arg(n).arg(a).arg(b).arg(c);
    // SAFETY: the kernel takes (const T*, T*, long long, unsigned x3); src and dst are live device
    // buffers of n elements of the kernel's element type, held by the caller for the whole sort,
    // and every network kernel waits for the previous grid before its first access (network.cu).
    unsafe { overlap::launch(gpu, stream, f, Launch::Follows, cfg, &mut args) }
        .map_err(SortError::driver("network kernel launch", 0))
}
