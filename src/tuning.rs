//! Host-side tuning numbers, each with the figure that chose it. Kernel-side numbers (threads per
//! block, items per thread, digit bits) live per architecture in `kernels-cuda/cuda/tuning.cuh`.

/// Below this many items `Sorter::auto()` sorts on the CPU even when a GPU is present.
///
/// First estimate from `shared/anchors/README.md` (H200 machine, 16 cores): a host-to-host GPU
/// sort pays about 60 us of fixed cost (stream, two copies, launches) plus about 0.3 ns per byte
/// each way from pageable memory, while rdst sorts 1M pairs in 2.06 ms; the two meet near 128K
/// pairs. Issue 6 replaces this with measured per-type crossovers.
pub const CPU_CROSSOVER_ITEMS: usize = 1 << 17;

/// Largest page-locked staging buffer kept per device for host-to-host sorts (64M pairs). Larger
/// inputs pass through it as a ring of chunks (see cuda/pipeline.rs). Pinned copies run at 55 GB/s against 8.7 (up) and 15.4
/// (down) GB/s pageable on the H200 machine (shared/anchors/README.md).
pub const PINNED_STAGING_MAX_BYTES: usize = 512 << 20;
