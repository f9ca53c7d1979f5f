//! Host-side tuning numbers, each with the reason for it; the figures that chose them are in
//! docs/tuning.md and the benchmark reports. Kernel policies (block shapes, the sizes at which a
//! radix layout changes kernel sets) live per architecture in `kernels-cuda/cuda/policy_*.cuh`.

/// The kinds of sort whose CPU/GPU crossovers differ: the item layout and the key width. New
/// layouts or key widths become new variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum JobShape {
    /// `Kvp` structs.
    Kvp,
    /// 8-bit keys alone (`u8`, `i8`): a counting sort on either backend.
    Keys8,
    /// 32-bit keys alone (`u32`, `i32`, `f32`), and 16-bit ones.
    Keys32,
    /// `u64` keys alone.
    Keys64,
    /// 32-bit keys with a separate `u32` value array.
    Pairs32,
    /// `u64` keys with a separate `u32` value array.
    Pairs64,
}

/// From this many items up, `Sorter::auto()` sorts on the GPU (radix sort, host to host); below, on
/// the CPU backend: the smallest size from which the GPU won at every larger size (the sort bench's `crossover` table).
pub const fn gpu_from_items(shape: JobShape) -> usize {
    match shape {
        JobShape::Kvp => 1 << 14,
        // The cores count as fast as the GPU's round trip at 256M (which ships the keys up), and
        // faster below: the CPU at every size.
        JobShape::Keys8 => usize::MAX,
        JobShape::Keys32 => 1 << 14,
        JobShape::Keys64 => 1 << 14,
        JobShape::Pairs32 => 1 << 14,
        JobShape::Pairs64 => 1 << 13,
    }
}

/// The held pinned buffer (a staged copy of the whole input, `cuda/staging.rs`) may grow to this
/// share of the host's memory (1/4); larger inputs go through the ring and a host scratch buffer.
pub const PINNED_HELD_SHARE_OF_MEMORY: usize = 4;

/// The held buffer's cap where the host's memory size cannot be read.
pub const PINNED_HELD_FALLBACK_BYTES: usize = 512 << 20;

/// Chunk of the host pipeline (each host copy and copy-engine transfer): 16 MiB keeps a ring of 4
/// slots in the host's last-level cache, where the copy engine writes and the cores read.
pub const CHUNK_BYTES: usize = 16 << 20;

/// From this many split 32-bit pairs up, a host sort that fits in core sends the two arrays as they
/// are instead of interleaving them into `Kvp`s: fewer bytes through host memory.
pub const SPLIT_ROUND_TRIP_FROM: usize = 1 << 20;

/// Host data of at least this many bytes already in page-locked memory is copied by the copy engine
/// in place (`cuda/inplace.rs`); below, the copy engine's reads of lines still in the cores' caches cost more.
pub const IN_PLACE_FROM_BYTES: usize = 64 << 20;

/// Slots of the download ring (and of the upload ring, for inputs past the held cap).
pub const RING_SLOTS: usize = 4;

/// Smaller inputs are cut into at least this many chunks, so their copies overlap too ...
pub const MIN_CHUNKS: usize = 4;

/// ... but no chunk is smaller than this: each costs an event and a dispatch of the host copies.
pub const MIN_CHUNK_BYTES: usize = 4 << 20;

/// Out of core with the held buffer (`cuda::outofcore`): at each end of the runs, and of the
/// blocks of the GPU merge, up to this many pieces halving from half the longest ...
pub const OUT_OF_CORE_RAMP_STEPS: usize = 4;

/// ... none shorter than this many chunks (`CHUNK_BYTES`): each piece costs a sort launch and, in
/// the merge, a copy per run.
pub const OUT_OF_CORE_RAMP_MIN_CHUNKS: usize = 2;

/// The most out-of-core runs with which `Sorter::auto()` still sorts on the GPU; with more, on the
/// CPU: phase 2 of the GPU merge grows with the square of the run count.
pub const AUTO_OUT_OF_CORE_MAX_RUNS: usize = 128;

/// From this `k` up, `Sorter::auto()` selects a top-k of host keys on the GPU; below, on the host,
/// where one reading pass at memory speed beats the upload.
pub const TOPK_GPU_FROM_K: usize = 1024;

/// From this many items up, a sorter with several devices spreads a host sort over all of them;
/// below, the first device sorts it alone (the host's memory, not the links, bounds both).
pub const MULTI_GPU_FROM_ITEMS: usize = 1 << 26;

/// The committed images' mid boundary: below it most layouts take the radix sets with more
/// threads per tile, whose grids stay fuller. Sorts read the loaded image's own (`radix_sets_*`,
/// `kernels-cuda/cuda/policy_radix.cuh`).
#[cfg(any(test, feature = "testing"))] // the images carry the values sorts use
pub const RADIX_MID_KEYS_BELOW: usize = 8 << 20;

/// The committed images' mid boundary of u32 and i32 keys alone where the large set stages keys as
/// it ranks them (the sm_90 and sm_100 code): its tiles fill one wave from here.
///
/// ```
/// assert!(gpusort::tuning::RADIX_MID_U32_KEYS_BELOW_STAGED <= gpusort::tuning::RADIX_MID_KEYS_BELOW);
/// ```
#[cfg(any(test, feature = "testing"))] // the images carry the values sorts use
pub const RADIX_MID_U32_KEYS_BELOW_STAGED: usize = 5 << 19;

/// The committed images' huge boundary: from here `Kvp`, 32-bit keys alone and split u32 / i32
/// pairs take sets whose tiles keep sorted keys' last pass out of one shared-memory bank.
///
/// ```
/// assert!(gpusort::tuning::RADIX_HUGE_FROM > gpusort::tuning::RADIX_MID_KEYS_BELOW);
/// ```
#[cfg(any(test, feature = "testing"))] // the images carry the values sorts use
pub const RADIX_HUGE_FROM: usize = 128 << 20;

/// Most keys one radix sweep launch covers, about: longer inputs take one launch per portion of
/// each pass, so each launch's look-back words stay about half of L2.
///
/// ```
/// assert!(gpusort::tuning::RADIX_PORTION_KEYS >= gpusort::tuning::RADIX_HUGE_FROM);
/// ```
pub const RADIX_PORTION_KEYS: usize = 1 << 28;

/// `Sorter::sort_by_key` gathers records on the GPU from this many bytes of records up, when its
/// sorter runs the keys' argsort there; below, the host gathers them from a copy.
pub const RECORDS_ON_DEVICE_FROM_BYTES: usize = 8 << 20;
