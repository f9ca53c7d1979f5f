//! Host-side tuning numbers, each with the figure that chose it. Kernel-side numbers (threads per
//! block, items per thread, digit bits) live per architecture in `kernels-cuda/cuda/tuning.cuh`.

/// The kinds of sort whose CPU/GPU crossovers differ: the item layout and the key width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JobShape {
    /// `Kvp` structs.
    Kvp,
    /// 32-bit keys alone (`u32`, `i32`, `f32`).
    Keys32,
    /// `u64` keys alone.
    Keys64,
    /// 32-bit keys with a separate `u32` value array.
    Pairs32,
    /// `u64` keys with a separate `u32` value array.
    Pairs64,
}

/// From this many items up, `Sorter::auto()` sorts on the GPU (radix sort, host to host, copies
/// included); below, on the CPU backend. Measured with `tests/bench_host.rs`
/// (`bench_host_crossover`: random keys, powers of two from 2^10 to 2^24, median wall time per
/// call) on the H200 machine (16 CPU cores), 2026-11-22; each value is the smallest size from
/// which the GPU won at every larger size, with the two times there:
///
/// | shape | GPU from | GPU ms | CPU ms |
/// | --- | ---: | ---: | ---: |
/// | `Kvp` | 1M | 1.280 | 1.539 |
/// | 32-bit keys | 2M | 1.262 | 2.342 |
/// | 32-bit split pairs | 1M | 1.724 | 1.810 |
/// | `u64` keys | 512K | 1.045 | 1.075 |
/// | `u64` split pairs | 8K | 0.149 | 0.220 |
///
/// The GPU also won from 16K to 64K items in every shape (the CPU backend sorts those on one
/// thread, 0.15-0.8 ms), lost from 128K to 512K, and won from the values above on. `u64` split
/// pairs win early because the CPU backend's split-pair sort of 64-bit keys is slow (16M: 68 ms
/// against 13 ms on the GPU, host to host). The sorting networks (GPU only, chosen explicitly)
/// measured 2M for bitonic (1.652 against 3.091 ms) and 2M for odd-even merge (2.379 against
/// 2.900 ms).
pub const fn gpu_from_items(shape: JobShape) -> usize {
    match shape {
        JobShape::Kvp => 1 << 20,
        JobShape::Keys32 => 1 << 21,
        JobShape::Keys64 => 1 << 19,
        JobShape::Pairs32 => 1 << 20,
        JobShape::Pairs64 => 1 << 13,
    }
}

/// Largest page-locked staging buffer kept per device for host-to-host sorts (64M pairs). Larger
/// inputs pass through it as a ring of chunks (see cuda/pipeline.rs). Pinned copies run at 55 GB/s against 8.7 (up) and 15.4
/// (down) GB/s pageable on the H200 machine (shared/anchors/README.md).
pub const PINNED_STAGING_MAX_BYTES: usize = 512 << 20;
