//! Sorting networks on the GPU: bitonic sort and Batcher's odd-even merge sort, for `Kvp` (8-byte
//! loads and stores) and `u32` keys, ascending or descending, any length. Neither is stable: equal
//! keys come out in an order that depends on the input.
//!
//! Each keeps the classic three roles as kernels (`kernels-cuda/cuda/network*.cu`): a tile sort
//! in shared memory and registers, global passes that each run several consecutive strides of a
//! stage over a block's rows, and a tile merge that finishes the strides below one tile. Lengths
//! that are not powers of two sort as if padded with elements that rank last; those are never
//! stored, and blocks that would hold only them are not launched, so n costs about what its
//! real elements touch. `plan.rs` decides the launches.
//!
//! At most 2^30 elements (`plan::MAX_LEN`; more returns `Unsupported`).
//! Extra device memory: none for bitonic; one copy of the data for odd-even, whose windowed passes
//! read one buffer and write the other. Allocated and freed on the caller's stream.

mod plan;

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtrMut, DeviceRepr, LaunchConfig, PushKernelArg};

use super::Gpu;
use crate::{Kvp, Order, SortError};
use plan::{Kernel, Network, Pass, MAX_LEN, THREADS};

pub(crate) fn bitonic_kvp(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    data: &mut CudaSlice<Kvp>,
    order: Order,
) -> Result<(), SortError> {
    sort::<Kvp>(gpu, stream, data, order, Network::Bitonic)
}

pub(crate) fn bitonic_keys_u32(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    data: &mut CudaSlice<u32>,
    order: Order,
) -> Result<(), SortError> {
    sort::<u32>(gpu, stream, data, order, Network::Bitonic)
}

pub(crate) fn odd_even_kvp(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    data: &mut CudaSlice<Kvp>,
    order: Order,
) -> Result<(), SortError> {
    sort::<Kvp>(gpu, stream, data, order, Network::OddEven)
}

pub(crate) fn odd_even_keys_u32(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    data: &mut CudaSlice<u32>,
    order: Order,
) -> Result<(), SortError> {
    sort::<u32>(gpu, stream, data, order, Network::OddEven)
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
    let passes = plan::plan(network, n, std::mem::size_of::<T>());
    let desc = usize::from(order == Order::Descending);
    // Load every kernel first: a missing one fails before anything is queued.
    let mut funcs = Vec::with_capacity(passes.len());
    for p in &passes {
        funcs.push(gpu.function(&gpusort_kernels::NETWORK, T::NAMES[kernel_index(p.kernel)][desc])?);
    }
    let bytes = n * std::mem::size_of::<T>();
    let mut scratch = if passes.iter().any(|p| p.swap) {
        // SAFETY: the first pass that reads the scratch buffer follows one that wrote every real
        // position of it (each windowed pass writes all positions < n; see plan.rs).
        Some(unsafe { stream.alloc::<T>(n) }.map_err(SortError::driver("network scratch", bytes))?)
    } else {
        None
    };
    let (data_ptr, _data_sync) = data.device_ptr_mut(stream);
    let scratch_ptr = scratch.as_mut().map(|s| s.device_ptr_mut(stream));
    let mut cur = data_ptr;
    let other = |p: u64| match &scratch_ptr {
        Some((s, _)) if p == data_ptr => *s,
        _ => data_ptr,
    };
    let n64 = n as i64;
    for (pass, f) in passes.iter().zip(&funcs) {
        let dst = if pass.swap { other(cur) } else { cur };
        launch(stream, f, pass, cur, dst, n64)?;
        cur = dst;
    }
    debug_assert_eq!(cur, data_ptr);
    drop(scratch_ptr);
    drop(scratch);
    Ok(())
}

fn launch(
    stream: &Arc<CudaStream>,
    f: &cudarc::driver::CudaFunction,
    pass: &Pass,
    src: u64,
    dst: u64,
    n: i64,
) -> Result<(), SortError> {
    let cfg = LaunchConfig { grid_dim: (pass.blocks, 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 };
    let [a, b, c] = pass.args;
    let mut builder = stream.launch_builder(f);
    builder.arg(&src).arg(&dst).arg(&n).arg(&a).arg(&b).arg(&c);
    // SAFETY: the kernel takes (const T*, T*, long long, unsigned x3); src and dst are live device
    // buffers of n elements of the kernel's element type, held by the caller for the whole sort.
    unsafe { builder.launch(cfg) }.map(drop).map_err(SortError::driver("network kernel launch", 0))
}
