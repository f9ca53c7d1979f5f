// Entry points of the radix sort (radix.cuh) and of its segmented form (radix_segments.cuh), one
// set per sort description; `order` carries the
// ORDER_* flags (descending, signed, float keys). src/cuda/radix.rs
// wraps each in a typed Rust function and reads radix_config_<name> to size its launches.
#include "radix_segments.cuh"
#include "radix_small.cuh"

extern "C" __global__ void __launch_bounds__(radix::RADIX)
    radix_prepare(const unsigned long long *hist, int passes, unsigned long long n, unsigned *plan,
                  unsigned long long *bases) {
    wait_for_previous_grid();
    radix::prepare(hist, passes, n, plan, bases);
}

extern "C" __global__ void radix_copy_back(const unsigned *plan, const unsigned char *src, unsigned char *dst,
                                           unsigned long long bytes, const unsigned char *vsrc, unsigned char *vdst,
                                           unsigned long long vbytes) {
    wait_for_previous_grid();
    radix::copy_back(plan, src, dst, bytes, vsrc, vdst, vbytes);
}

extern "C" __global__ void radix_copy_back_split(const unsigned *plan, const radix::KvpItem *src,
                                                 const radix::KvpItem *items_c, unsigned *keys, unsigned *values,
                                                 unsigned long long n) {
    wait_for_previous_grid();
    radix::copy_back_split(plan, src, items_c, keys, values, n);
}

// config: sweep threads, sweep items, small threads, small items, small dynamic shared bytes,
// histogram threads, histogram blocks per SM, passes, sweep dynamic shared bytes, 1 or 2 when the
// scratch buffer holds (key, value) items (S::B_INTERLEAVED), histogram dynamic shared bytes, 1 when
// the sweep stages keys as it ranks them (S::STAGE_IN_RANK). The tuning is S's policy
// (policy_radix.cuh), compiled per architecture.
#define RADIX_SORT_ENTRY_POINTS(NAME, S)                                                                               \
    extern "C" __device__ unsigned radix_config_##NAME[12] = {                                                         \
        (unsigned)S::THREADS,                                                                                          \
        (unsigned)S::ITEMS,                                                                                            \
        (unsigned)policy::SMALL.threads,                                                                               \
        (unsigned)policy::SMALL.items,                                                                                 \
        (unsigned)radix::small_shared_bytes<S, policy::SMALL.threads, policy::SMALL.items>(),                          \
        (unsigned)policy::HIST.threads,                                                                                \
        (unsigned)policy::HIST.blocks_per_sm,                                                                          \
        (unsigned)S::PASSES,                                                                                           \
        radix::sweep_dynamic_bytes<S, S::THREADS, S::ITEMS>(),                                                         \
        (unsigned)S::B_INTERLEAVED,                                                                                    \
        radix::hist_dynamic_bytes<S>(),                                                                                \
        S::STAGE_IN_RANK};                                                                                             \
    extern "C" __global__ void __launch_bounds__(policy::HIST.threads)                                                 \
        radix_histogram_##NAME(const S::Item *keys, unsigned long long n, int order, unsigned long long *hist) {       \
        wait_for_previous_grid();                                                                                      \
        radix::with_key_order<S>(order, [&](auto fl) {                                                                 \
            radix::histogram<S, decltype(fl)::value, policy::HIST.threads, policy::HIST.items>(keys, n, order, hist);  \
        });                                                                                                            \
    }                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(S::THREADS, S::BLOCKS) radix_onesweep_##NAME(                         \
        const unsigned *plan, int pass, int order, S::Item *keys_a, S::Item *keys_b, S::Value *values_a,               \
        S::Value *values_b, unsigned long long portion_begin, unsigned portion_len, unsigned *status,                  \
        unsigned *status_next, unsigned long long status_words, unsigned *tile_counter,                                \
        const unsigned long long *base_in, unsigned long long *base_out) {                                             \
        wait_for_previous_grid();                                                                                      \
        radix::with_key_order<S>(order, [&](auto fl) {                                                                 \
            radix::onesweep<S, decltype(fl)::value, S::THREADS, S::ITEMS>(                                             \
                plan, pass, order, keys_a, keys_b, values_a, values_b,                                                 \
                radix::PortionTiles{portion_begin, portion_len, base_in, base_out}, status, status_next,               \
                status_words, tile_counter);                                                                           \
        });                                                                                                            \
    }                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(policy::SMALL.threads)                                                \
        radix_small_##NAME(S::Item *keys, S::Value *values, unsigned n, int order) {                                   \
        wait_for_previous_grid();                                                                                      \
        radix::with_key_order<S>(order, [&](auto fl) {                                                                 \
            radix::small_sort<S, decltype(fl)::value, policy::SMALL.threads, policy::SMALL.items>(keys, values, n,     \
                                                                                                 order);               \
        });                                                                                                            \
    }

// Kvp, with sets of their own below 8M (tiles that fill the grid there) and from 128M (tiles that
// keep sorted keys' last pass out of one shared-memory bank); the boundaries are in radix_sets_*.
RADIX_SORT_ENTRY_POINTS(kvp, radix::Kvp)
RADIX_SORT_ENTRY_POINTS(kvp_mid, radix::KvpMid)
RADIX_SORT_ENTRY_POINTS(kvp_huge, radix::KvpHuge)
// 32-bit keys alone (u32, i32, f32) on one set that flips floats by a run-time mask; u32 and i32
// keys below the mid boundary take the integer body. Pairs of u32 and i32 keys take the integer
// body, f32 pairs their own set; 64-bit keys share sets that flip floats at run time.
RADIX_SORT_ENTRY_POINTS(u32, radix::KeysU32)
RADIX_SORT_ENTRY_POINTS(u32_huge, radix::KeysU32Huge)
RADIX_SORT_ENTRY_POINTS(u32_mid, radix::KeysU32Mid)
RADIX_SORT_ENTRY_POINTS(u64_mid, radix::KeysU64Mid)
RADIX_SORT_ENTRY_POINTS(pairs_u32, radix::PairsU32)
RADIX_SORT_ENTRY_POINTS(pairs_u32_huge, radix::PairsU32Huge)
RADIX_SORT_ENTRY_POINTS(pairs_u32_mid, radix::PairsU32Mid)
RADIX_SORT_ENTRY_POINTS(pairs_f32, radix::PairsF32)
RADIX_SORT_ENTRY_POINTS(u64, radix::KeysU64)
RADIX_SORT_ENTRY_POINTS(pairs_u64, radix::PairsU64)
// 16- and 8-bit keys at their own width, one set each (the 16-bit ones flip floats at run time).
RADIX_SORT_ENTRY_POINTS(u16, radix::Keys16)
RADIX_SORT_ENTRY_POINTS(pairs_u16, radix::Pairs16)
RADIX_SORT_ENTRY_POINTS(u8, radix::Keys8)
RADIX_SORT_ENTRY_POINTS(pairs_u8, radix::Pairs8)

// The argsort sweeps of 16- and 8-bit keys (radix_onesweep.cuh S::ARGSORT): the pairs sets' tuning
// (their config, histogram and one-block sort serve), the caller's keys in keys_a, only read, its
// u32 positions in values_a or its u64 ones in `wide`.
#define RADIX_ARGSORT_SWEEP(NAME, S)                                                                                   \
    extern "C" __global__ void __launch_bounds__(S::THREADS, S::BLOCKS) radix_onesweep_argsort_##NAME(                 \
        const unsigned *plan, int pass, int order, S::Item *keys_a, S::Item *keys_b, S::Value *values_a,               \
        S::Value *values_b, unsigned long long portion_begin, unsigned portion_len, unsigned *status,                  \
        unsigned *status_next, unsigned long long status_words, unsigned *tile_counter,                                \
        const unsigned long long *base_in, unsigned long long *base_out, unsigned long long *wide) {                   \
        wait_for_previous_grid();                                                                                      \
        radix::with_key_order<S>(order, [&](auto fl) {                                                                 \
            radix::onesweep<S, decltype(fl)::value, S::THREADS, S::ITEMS>(                                             \
                plan, pass, order, keys_a, keys_b, values_a, values_b,                                                 \
                radix::PortionTiles{portion_begin, portion_len, base_in, base_out}, status, status_next,               \
                status_words, tile_counter, wide);                                                                     \
        });                                                                                                            \
    }
RADIX_ARGSORT_SWEEP(u16, radix::Argsort16)
RADIX_ARGSORT_SWEEP(u8, radix::Argsort8)

// An argsort of which no pass ran (every key equal): the positions in input order.
extern "C" __global__ void radix_argsort_identity(const unsigned *plan, unsigned *out, unsigned long long *wide,
                                                  unsigned long long n) {
    wait_for_previous_grid();
    if (plan[radix::PLAN_RUNNING] != 0) return;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        if (wide) wide[i] = i;
        else out[i] = (unsigned)i;
    }
}

// Where each layout changes sets (src/cuda/radix/sets.rs): the mid set below word 0 items, the
// huge set from word 1.
#define RADIX_SET_BOUNDS(NAME, FAMILY)                                                                                 \
    extern "C" __device__ unsigned radix_sets_##NAME[2] = {policy::bounds(policy::Family::FAMILY).mid_below,           \
                                                           policy::bounds(policy::Family::FAMILY).huge_from};
RADIX_SET_BOUNDS(kvp, Kvp)
RADIX_SET_BOUNDS(u32, U32Keys)
RADIX_SET_BOUNDS(f32, F32Keys)
RADIX_SET_BOUNDS(pairs_u32, PairsU32)
RADIX_SET_BOUNDS(pairs_f32, PairsF32)
RADIX_SET_BOUNDS(u64, U64Keys)
RADIX_SET_BOUNDS(pairs_u64, PairsU64)

// The segmented sort, for 32-bit keys alone and with 32-bit values (src/cuda/radix/segmented.rs),
// f32 keys included: block shapes of its own (policy_radix.cuh Set::Segment*), described by
// radix_config_segment_<name> (no one-block kernel: its fields are 0).
extern "C" __global__ void __launch_bounds__(1024)
    radix_segment_tiles(const unsigned long long *offsets, unsigned segments, unsigned tile_items, unsigned *first_tile) {
    wait_for_previous_grid();
    radix::segment_tiles<1024>(offsets, segments, tile_items, first_tile);
}

extern "C" __global__ void __launch_bounds__(radix::RADIX)
    radix_segment_bases(const unsigned *hist, int passes, const unsigned long long *offsets,
                        const unsigned *first_tile, unsigned segments, unsigned long long *bases,
                        unsigned long long *all, unsigned *tile_segment) {
    wait_for_previous_grid();
    radix::segment_bases(hist, passes, offsets, first_tile, segments, bases, all, tile_segment);
}

#define RADIX_SEGMENTED_ENTRY_POINTS(NAME, S)                                                                          \
    extern "C" __device__ unsigned radix_config_segment_##NAME[12] = {                                                 \
        (unsigned)S::THREADS, (unsigned)S::ITEMS, 0, 0, 0, (unsigned)policy::SEGMENT_HIST.threads,                     \
        (unsigned)policy::SEGMENT_HIST.blocks_per_sm, (unsigned)S::PASSES,                                             \
        radix::sweep_dynamic_bytes<S, S::THREADS, S::ITEMS>(), 0, 0, 0};                                               \
    extern "C" __global__ void __launch_bounds__(policy::SEGMENT_HIST.threads) radix_segment_histogram_##NAME(         \
        const S::Item *keys, int order, const unsigned long long *offsets, const unsigned *first_tile,                 \
        unsigned segments, unsigned tiles_per_block, unsigned *hist) {                                                 \
        wait_for_previous_grid();                                                                                      \
        const radix::SegmentTiles tiles{offsets, first_tile, segments, S::THREADS * S::ITEMS,                          \
                                        nullptr, nullptr};                                                             \
        radix::with_key_order<S>(order, [&](auto fl) {                                                                 \
            radix::segment_histogram<S, decltype(fl)::value, policy::SEGMENT_HIST.threads>(keys, order, tiles,         \
                                                                                         tiles_per_block, hist);       \
        });                                                                                                            \
    }                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(S::THREADS, S::BLOCKS) radix_segment_onesweep_##NAME(                 \
        const unsigned *plan, int pass, int order, S::Item *keys_a, S::Item *keys_b, S::Value *values_a,               \
        S::Value *values_b, const unsigned long long *offsets, const unsigned *first_tile,                             \
        const unsigned *tile_segment, unsigned segments, const unsigned long long *bases, unsigned *status,            \
        unsigned *status_next, unsigned long long status_words, unsigned *tile_counter) {                              \
        wait_for_previous_grid();                                                                                      \
        const radix::SegmentTiles tiles{offsets, first_tile, segments, S::THREADS * S::ITEMS, bases,                   \
                                        tile_segment};                                                                 \
        radix::with_key_order<S>(order, [&](auto fl) {                                                                 \
            radix::onesweep<S, decltype(fl)::value, S::THREADS, S::ITEMS>(                                             \
                plan, pass, order, keys_a, keys_b, values_a, values_b, tiles, status, status_next, status_words,       \
                tile_counter);                                                                                         \
        });                                                                                                            \
    }

RADIX_SEGMENTED_ENTRY_POINTS(u32, radix::SegmentKeysU32)
RADIX_SEGMENTED_ENTRY_POINTS(pairs_u32, radix::SegmentPairsU32)
