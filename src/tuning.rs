//! Host-side tuning numbers, each with the figure that chose it. Kernel-side numbers (threads per
//! block, items per thread, digit bits) live per architecture in `kernels-cuda/cuda/tuning.cuh`.

/// The kinds of sort whose CPU/GPU crossovers differ: the item layout and the key width. New
/// layouts or key widths become new variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
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
/// included); below, on the CPU backend. Measured with the sort bench's `crossover` table
/// (`benches/sort/host_calls.rs`: random keys, powers of two from 2^10 to 2^24, median wall time per
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
/// (`hostcopy::par_copy`), the GPU lost from 128K to 512K in every shape.
pub const fn gpu_from_items(shape: JobShape) -> usize {
    match shape {
        JobShape::Kvp => 1 << 14,
        JobShape::Keys32 => 1 << 14,
        JobShape::Keys64 => 1 << 14,
        JobShape::Pairs32 => 1 << 14,
        JobShape::Pairs64 => 1 << 13,
    }
}

/// The held pinned buffer (a copy of the whole input, staged, for the length of a host sort; see
/// `cuda/staging.rs`) may grow to this share of the host's memory: 1/4, 32 GiB on the H200 machine
/// (128 GiB), so sorts of up to 4G pairs keep a copy of their input in pinned memory. Larger inputs
/// go through the ring and a host scratch buffer instead (256M pairs that way took 287 ms in
/// session 7, 3.7x the PCIe floor, against 78 ms for the floor).
pub const PINNED_HELD_SHARE_OF_MEMORY: usize = 4;

/// The held buffer's cap where the host's memory size cannot be read.
pub const PINNED_HELD_FALLBACK_BYTES: usize = 512 << 20;

/// Chunk of the host pipeline: each host copy into or out of pinned memory, and each copy-engine
/// transfer, moves this much. H200 machine, 512 MiB through a pinned ring of 4 slots, 16 host
/// threads (2026-11-25, `benches/probe/host_bw.cu`): the download ran at 54.2 GB/s with 16 MiB chunks
/// against 42.9 with 32 MiB and 36.9-41.7 with 4-8 MiB (a 64 MiB ring stays in the host's 300 MiB
/// last-level cache, where the copy engine writes and the cores read it; 128 MiB does not).
///
/// Measured and not kept (same machine, 2026-11-25, host to host through the public API): the
/// held copy of the input echoed back from the device by the idle device-to-host direction while
/// the cores gathered into a cache-resident ring, instead of the cores gathering into the held
/// buffer: 64M pairs 36.4 ms against 26.3, 256M 130 against 102 (host memory bandwidth, not the
/// bus, is what the three streams share); 8 MiB chunks: 64M 42.0 ms (8 slots 37.9).
pub const CHUNK_BYTES: usize = 16 << 20;

/// From this many split 32-bit pairs up, a host sort that fits in core and in the held buffer
/// sends the two arrays as they are (plain copies both ways, the split-pairs kernels) instead of
/// interleaving them into `Kvp`s on the way up and back out on the way down. H100 machine (16
/// cores), split u32 pairs host to host through the public API, median of 9, two rounds
/// alternating in one call (2026-11-26, session 19), ms, two arrays against `Kvp`s:
///
/// | n | two arrays | as `Kvp`s |
/// | ---: | ---: | ---: |
/// | 1M | 1.48-1.82 | 1.84-1.86 |
/// | 4M | 3.23-3.33 | 4.17-4.22 |
/// | 16M | 7.61-8.14 | 10.67-10.87 |
/// | 64M | 25.6-26.1 | 41.3-41.8 |
/// | 256M | 100.2-100.5 | 163.6-168.1 |
///
/// (`Kvp`s themselves, 64M, same call: 25.1-26.4.) Smaller inputs were not timed.
pub const SPLIT_ROUND_TRIP_FROM: usize = 1 << 20;

/// Host data of at least this many bytes that already lies in page-locked memory is copied by the
/// copy engine in place (`cuda/inplace.rs`), its backup echoed from the device into the
/// held buffer; smaller data is staged like any other. H200 machine (Intel Xeon host, 16 cores),
/// `Kvp` host to host through the public API, the caller's buffer from `cuMemHostAlloc` (flags
/// 0) and restored on all cores before each sort, medians of 21, three rounds in one call
/// (2026-11-28, session 32), ms, in place against staged:
///
/// | n pairs | bytes | in place | staged |
/// | ---: | ---: | ---: | ---: |
/// | 1M | 8 MiB | 0.77-0.97 | 0.64-0.71 |
/// | 2M | 16 MiB | 1.19-1.22 | 0.98-1.01 |
/// | 4M | 32 MiB | 1.89-1.99 | 1.77-1.84 |
/// | 8M | 64 MiB | 3.39-3.52 | 3.86-4.02 |
/// | 16M | 128 MiB | 6.16-6.19 | 7.17-7.36 |
/// | 32M | 256 MiB | 11.7-11.8 | 13.0-13.6 |
///
/// Below 64 MiB the copy engine's reads of lines the caller just wrote (still in the cores'
/// caches) and the sort's wait for the last echoed chunk cost more than the host copies.
pub const IN_PLACE_FROM_BYTES: usize = 64 << 20;

/// Slots of the download ring (and of the upload ring, for inputs past the held cap).
pub const RING_SLOTS: usize = 4;

/// Smaller inputs are cut into at least this many chunks, so their copies overlap too ...
pub const MIN_CHUNKS: usize = 4;

/// ... but no chunk is smaller than this: each costs an event and a dispatch of the host copies.
/// H200 machine, 1M pairs (8 MiB) host to host in four 2 MiB chunks: the four host copies into
/// pinned memory took 640 us together (13 GB/s), the whole sort 1.31 ms (2026-11-25, one traced
/// run, the copies on rayon); 4 MiB makes that two chunks. With the copy crew (`crate::crew`,
/// 2026-11-27, median of 61): two 4 MiB chunks 0.668 ms, one of 8 MiB 0.764, four of 2 MiB 0.765.
pub const MIN_CHUNK_BYTES: usize = 4 << 20;

/// Out of core with the held buffer (`cuda::outofcore`): at each end of the runs, and of the
/// blocks of the GPU merge, up to this many pieces halving from half the longest ...
pub const OUT_OF_CORE_RAMP_STEPS: usize = 4;

/// ... none shorter than this many chunks (`CHUNK_BYTES`): each piece costs a sort launch and, in
/// the merge, a copy per run.
pub const OUT_OF_CORE_RAMP_MIN_CHUNKS: usize = 2;

/// The most out-of-core runs with which `Sorter::auto()` still sorts on the GPU; with more it sorts
/// on the CPU. Phase 2 of the GPU merge copies one piece per run into every block, so its cost
/// grows with the square of the run count. H200 machine, 512M random pairs host to host
/// (2026-11-25): 256 MiB budget (34 runs) 279 ms, 64 MiB (136 runs) 627 ms, 16 MiB (544 runs)
/// 5743 ms, the CPU backend on 16 cores 1626 ms; a fit of a + b * runs^2 to those puts the tie near
/// 270 runs. Again: `GPUSORT_BENCH_HOST=only GPUSORT_BENCH_OOC_BUDGETS=16,64,256 ci/gpu.sh report`.
pub const AUTO_OUT_OF_CORE_MAX_RUNS: usize = 128;

/// From this `k` up, `Sorter::auto()` selects a top-k of host keys on the GPU (upload, radix
/// select, the `k` chosen sorted there); below, on the host, where small `k` take one reading
/// pass at memory speed. H100 machine, 64M random u32 keys, medians of 7 (2026-11-25, session 13,
/// `benches/sort/topk.rs`):
///
/// | k | host selects | GPU selects |
/// | ---: | ---: | ---: |
/// | 16 | 4.08 ms | 7.39 ms |
/// | 1K | 8.13 ms | 7.01 ms |
/// | 1M | 51.3 ms | 10.7 ms |
///
/// The GPU's time is mostly the upload of the keys (256 MiB, 4.9 ms at the pinned rate).
pub const TOPK_GPU_FROM_K: usize = 1024;

/// From this many items up, a sorter with several devices (`Sorter::cuda_all`,
/// `Sorter::cuda_devices`) spreads a host sort over all of them; below, the first device sorts it
/// alone. 2 x H100 NVLink host (32 cores), random `Kvp`s host to host, medians of 5, one GPU
/// against both in the same run (2026-11-25, session 14, `benches/sort/multi.rs`; calls 1 and 3
/// got a machine whose host copies ran at a third of call 2's speed):
///
/// | pairs | call 1: one GPU | both | call 2: one GPU | both | call 3: one GPU | both |
/// | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
/// | 4M | 9.26 ms | 11.2 | | | | |
/// | 16M | 18.9 | 18.9 | | | | |
/// | 64M | 71.2 | 72.7 | 28.3 | 27.7 | 77.0 | 73.0 |
/// | 256M | 313 | 325 | | | 273 | 327 |
/// | 1G | 1255 | 1297 | 451 | 420 | 1101 | 1089 |
///
/// All are bound by the host's memory (every item crosses it six times: gathered into pinned
/// memory, read by the copy engine, and back), not by the links, so a second link gains little
/// (at most 7%, and 256M lost 17% once); below 16M the extra steps cost more than it gains. For
/// the same reason `Sorter::auto()` keeps to one device.
pub const MULTI_GPU_FROM_ITEMS: usize = 1 << 26;

/// Below this many keys, sorts of keys alone take the radix kernel sets with more threads per
/// tile (`radix_*_u32_mid`, `radix_*_u64_mid`: 512 threads, 2 blocks per SM), whose grids stay
/// fuller at these sizes; from here up, the sets with larger tiles (32-bit keys 384 x 24 at 3
/// blocks, on sm_90 and sm_100 384 x 28 with each key staged as it is ranked, which moves u32 and
/// i32 keys' boundary there to [`RADIX_MID_U32_KEYS_BELOW_STAGED`]; 64-bit keys 256 x 20 at 4
/// blocks; `kernels-cuda/cuda/tuning_tiles.cuh`). f32 keys keep the large set at
/// every size (it has the float path). Split u32 and i32 pairs change sets here too: 512 x 12
/// below (`radix_*_pairs_u32_mid`), 512 x 15 from here up on sm_90 and sm_100 (sessions 34-37;
/// the boundary itself untimed for pairs). `Kvp` too, on sm_90 and sm_100: 448 x 18 below
/// (`radix_*_kvp_mid`, 8064 pairs a tile since session 39), 512 x 15 from here up, where tiles of
/// 512 x 16 stage sorted keys into one shared memory bank (H200, session 37: 64M sorted 2.00 ms
/// against 1.50; random 1M 0.075 against 0.085 at 15). H200, device-resident random keys, medians (2026-11-26,
/// session 18, `benches/sort/shapes.rs`, one call):
///
/// | n | u32: mid set | large set | u64: mid set | large set |
/// | ---: | ---: | ---: | ---: | ---: |
/// | 1M | 0.077 ms | 0.083 | 0.141 | 0.155 |
/// | 2M | 0.090 | 0.099 | 0.212 | 0.217 |
/// | 4M | 0.136 | 0.156 | 0.353 | 0.380 |
/// | 8M | 0.237 | 0.241 | 0.630 | 0.628 |
/// | 16M | 0.437 | 0.410 | 1.178 | 1.098 |
pub const RADIX_MID_KEYS_BELOW: usize = 8 << 20;

/// Where the image's large u32 keys set stages keys as it ranks them (its `radix_config_u32`
/// says so: the sm_90 and sm_100 code, `RADIX_STAGE_IN_RANK_KEYS` in
/// `kernels-cuda/cuda/tuning_tiles.cuh`), u32 and i32 keys alone take that set (384 x 28, three
/// blocks an SM) from this many keys instead of from [`RADIX_MID_KEYS_BELOW`]; elsewhere the
/// boundary stays there. H200, session 52, u32 keys,
/// device-resident keys, medians of 15 in ms, two rounds alternating in one call (sm_90
/// images through `GPUSORT_KERNELS_DIR`, each set swapped in for the other):
///
/// | n | mid set (512 x 16): random / sorted | large set (384 x 28, staged): random / sorted |
/// | ---: | ---: | ---: |
/// | 2M | 0.077-0.078 / 0.093-0.094 | 0.078-0.081 / 0.077-0.078 |
/// | 2.5M | 0.099-0.101 / 0.092-0.104 | 0.084-0.085 / 0.063-0.079 |
/// | 3M | 0.109-0.110 / 0.093-0.097 | 0.103-0.108 / 0.086-0.087 |
/// | 3.5M | 0.114-0.115 / 0.104-0.109 | 0.106 / 0.087-0.088 |
/// | 4M | 0.120-0.122 / 0.125-0.127 | 0.108-0.109 / 0.079-0.082 |
/// | 6M | 0.168 / - | 0.160-0.161 / - |
/// | 8M | 0.219 / - | 0.196-0.197 / - |
/// | 12M | 0.319 / - | 0.288-0.289 / - |
///
/// (2M to 4M from one call, 6M to 12M random keys alone from another.) At 2M random keys are
/// within 3% either way and sorted ones 17% faster in the large set; from 2.5M it wins both, so
/// it starts there. The mid set's tiles of 8192 keys at two blocks an SM leave 2.5M keys 1.2
/// waves of 264 blocks, the large set's 244 tiles of 10752 one wave of 396.
///
/// ```
/// assert!(gpusort::tuning::RADIX_MID_U32_KEYS_BELOW_STAGED <= gpusort::tuning::RADIX_MID_KEYS_BELOW);
/// ```
pub const RADIX_MID_U32_KEYS_BELOW_STAGED: usize = 5 << 19;

/// Radix sorts of this many items or more (`Kvp`, 32-bit keys alone, split `u32` and `i32` pairs)
/// take kernel sets of their own on the GPU, whose tiles keep the last pass of sorted keys out of
/// one shared-memory bank: from 128M up that pass sees 16 digits a tile, and the runs of a tile
/// of 7680 pairs (`Kvp`, split pairs) or 9216 keys (10752 since session 51) start a multiple of
/// 32 slots apart. sm_90 and sm_100: `Kvp` 448 threads x 17 items (session 39), keys 352 x 27
/// (352 x 31 since session 51, with the keys staged as they are ranked), split pairs 480 x 15
/// (session 40). H200, device-resident, ms, random / sorted keys, large set -> huge set (the sets
/// were timed at 16M and 64M through images of their own; below 128M they would cost random keys
/// up to 3%, and sorted ones are faster than random there already):
///
/// | n | `Kvp` | u32 keys | split u32 pairs |
/// | ---: | ---: | ---: | ---: |
/// | 16M | 0.510 / 0.409 -> 0.525 / 0.423 | 0.405 / 0.318 -> 0.410 / 0.327 | |
/// | 64M | 1.792 / 1.498 -> 1.802 / 1.563 | 1.417 / 1.236 -> 1.423 / 1.245 | 1.958 / 1.629 -> 1.972 / 1.688 |
/// | 128M | 3.508 / 3.170 -> 3.507 / 3.146 | 2.763 / 2.504 -> 2.771 / 2.459 | 3.816 / 3.352 -> 3.832 / 3.368 |
/// | 256M | 6.908 / 7.239 -> 6.895 / 6.692 | 5.464 / 5.653 -> 5.484 / 5.388 | 7.559 / 7.611 -> 7.600 / 7.064 |
///
/// ```
/// assert!(gpusort::tuning::RADIX_HUGE_FROM > gpusort::tuning::RADIX_MID_KEYS_BELOW);
/// ```
pub const RADIX_HUGE_FROM: usize = 128 << 20;

/// Most keys one radix sweep launch covers, about: longer inputs take one launch per portion of
/// each pass, the portions of one sort the same number of tiles (the last may be a few tiles
/// short), so each launch's look-back words (a kilobyte a tile) stay about half of L2. H200,
/// session 44, u32 keys in the huge set's 9504-key tiles, ms: one launch a pass over 1,072,693,248
/// keys ran 6.24-6.33 a pass (ncu; 27.4 a sort) where four of about 2^28 take 21.41 a sort; 2^30
/// keys before this (a launch of 2^30 - 9504 keys and one of 9504, whose single block cleared the
/// long launch's 116 MB of look-back words: 6.27 + 2.43 ms a pass) 28.6, now 21.43. Portions of
/// 2^29 keys: 21.25 at 2^30 and 10.68 at 2^29 against 21.43 and 10.72 here, 2^27 21.75 (u32 keys
/// only; `Kvp` and pairs untimed with them). The whole-sort figures at 2^30, before -> after (CUB
/// 3.0.1 in the same call): u32 keys 28.6 -> 21.42 (25.13), i32 keys 28.6 -> 21.43 (21.08),
/// split u32 pairs 38.2 -> 28.38 (29.46), descending `Kvp` 35.3 -> 26.31 (29.74), u64 keys 88.6 ->
/// 60.91 (65.51), u64 keys with u32 values 108.4 -> 80.94 (79.86).
///
/// ```
/// assert!(gpusort::tuning::RADIX_PORTION_KEYS >= gpusort::tuning::RADIX_HUGE_FROM);
/// ```
pub const RADIX_PORTION_KEYS: usize = 1 << 28;

/// `Sorter::sort_by_key` puts records in order on the GPU (keys and records up, the keys sorted
/// and the records gathered in device memory, the records down) from this many bytes of records
/// up, when its sorter runs the keys' argsort there; below, the host gathers them from a copy.
/// H200 machine, 2026-11-26, build 65f618a, the records bench (`GPUSORT_BENCH_RECORDS_ON_DEVICE_FROM`
/// 1 and `usize::MAX`, one call, 32-byte records, median of 7, ms, device / host): 256K (8 MiB)
/// 1.74 / 2.01, 1M 3.55 / 4.10, 4M 9.49 / 16.5, 16M 32.0 / 58.8, 64M 134.2 / 241.2. Not below
/// 256K records measured.
pub const RECORDS_ON_DEVICE_FROM_BYTES: usize = 8 << 20;
