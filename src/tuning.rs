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
/// call) on the H200 machine (16 CPU cores), 2026-11-22 (device run 4); each value is the smallest
/// size from which the GPU won at every larger size, with the two times there:
///
/// | shape | GPU from | GPU ms | CPU ms | at 64K: GPU / CPU ms |
/// | --- | ---: | ---: | ---: | ---: |
/// | `Kvp` | 16K (see below) | 0.102 | 0.119 | 0.159 / 0.494 |
/// | 32-bit keys | 16K | 0.087 | 0.154 | 0.136 / 0.626 |
/// | 32-bit split pairs | 16K | 0.126 | 0.135 | 0.184 / 0.570 |
/// | `u64` keys | 16K | 0.165 | 0.352 | 0.180 / 1.516 |
/// | `u64` split pairs | 8K | 0.144 | 0.259 | 0.266 / 2.708 |
///
/// `Kvp` is the exception to the rule: the GPU won from 16K to 256K (1.2-3x), lost at 512K
/// (0.910 against 0.826 ms) and tied at 1M (1.369 against 1.385 ms), then won again; one
/// threshold at 16K costs at most 10% there and gains up to 3x below. The sorting networks (GPU
/// only, chosen explicitly) won from 1M (bitonic, 1.244 against 1.332 ms) and 8M (odd-even
/// merge, 8.583 against 9.472 ms). Before small host copies stayed on the calling thread
/// (`cuda::staging::par_copy`), the GPU lost from 128K to 512K in every shape.
pub const fn gpu_from_items(shape: JobShape) -> usize {
    match shape {
        JobShape::Kvp => 1 << 14,
        JobShape::Keys32 => 1 << 14,
        JobShape::Keys64 => 1 << 14,
        JobShape::Pairs32 => 1 << 14,
        JobShape::Pairs64 => 1 << 13,
    }
}

/// Largest page-locked staging buffer kept per device for host-to-host sorts (64M pairs). Larger
/// inputs pass through it as a ring of chunks (see cuda/pipeline.rs). Pinned copies run at 55 GB/s against 8.7 (up) and 15.4
/// (down) GB/s pageable on the H200 machine (shared/anchors/README.md).
pub const PINNED_STAGING_MAX_BYTES: usize = 512 << 20;
