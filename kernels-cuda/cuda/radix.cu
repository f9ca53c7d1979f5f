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

extern "C" __global__ void radix_copy_back(const unsigned *plan, const unsigned *src, unsigned *dst,
                                           unsigned long long words, const unsigned *vsrc, unsigned *vdst,
                                           unsigned long long vwords) {
    wait_for_previous_grid();
    radix::copy_back(plan, src, dst, words, vsrc, vdst, vwords);
}

extern "C" __global__ void radix_copy_back_split(const unsigned *plan, const radix::KvpItem *src,
                                                 const radix::KvpItem *items_c, unsigned *keys, unsigned *values,
                                                 unsigned long long n) {
    wait_for_previous_grid();
    radix::copy_back_split(plan, src, items_c, keys, values, n);
}

// config: sweep threads, sweep items, small threads, small items, small dynamic shared bytes,
// histogram threads, histogram blocks per SM, passes, sweep dynamic shared bytes, 1 when the
// scratch buffer holds (key, value) items (S::B_INTERLEAVED), histogram dynamic shared bytes, 1 when
// the sweep stages keys as it ranks them (S::STAGE_IN_RANK: src/cuda/radix/sets.rs moves u32 keys'
// set boundary by it).
#define RADIX_SORT_ENTRY_POINTS(NAME, S, SWEEP_THREADS, SWEEP_ITEMS, SWEEP_BLOCKS)                                     \
    extern "C" __device__ unsigned radix_config_##NAME[12] = {                                                          \
        SWEEP_THREADS,                                                                                                 \
        SWEEP_ITEMS,                                                                                                   \
        RADIX_SMALL_THREADS,                                                                                           \
        RADIX_SMALL_ITEMS,                                                                                             \
        (unsigned)radix::small_shared_bytes<S, RADIX_SMALL_THREADS, RADIX_SMALL_ITEMS>(),                              \
        RADIX_HIST_THREADS,                                                                                            \
        RADIX_HIST_BLOCKS_PER_SM,                                                                                      \
        S::PASSES,                                                                                                     \
        radix::sweep_dynamic_bytes<S, SWEEP_THREADS, SWEEP_ITEMS>(),                                                   \
        S::B_INTERLEAVED,                                                                                              \
        radix::hist_dynamic_bytes<S>(),                                                                                \
        S::STAGE_IN_RANK};                                                                                             \
    extern "C" __global__ void __launch_bounds__(RADIX_HIST_THREADS)                                                   \
        radix_histogram_##NAME(const S::Item *keys, unsigned long long n, int order, unsigned long long *hist) {       \
        wait_for_previous_grid();                                                                                      \
        radix::with_key_order<S>(order, [&](auto fl) {                                                                 \
            radix::histogram<S, decltype(fl)::value, RADIX_HIST_THREADS, RADIX_HIST_ITEMS>(keys, n, order, hist);      \
        });                                                                                                            \
    }                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(SWEEP_THREADS, SWEEP_BLOCKS) radix_onesweep_##NAME(                   \
        const unsigned *plan, int pass, int order, S::Item *keys_a, S::Item *keys_b, S::Value *values_a,               \
        S::Value *values_b, unsigned long long portion_begin, unsigned portion_len, unsigned *status,                  \
        unsigned *status_next, unsigned long long status_words, unsigned *tile_counter,                                \
        const unsigned long long *base_in, unsigned long long *base_out) {                                             \
        wait_for_previous_grid();                                                                                      \
        radix::with_key_order<S>(order, [&](auto fl) {                                                                 \
            radix::onesweep<S, decltype(fl)::value, SWEEP_THREADS, SWEEP_ITEMS>(                                       \
                plan, pass, order, keys_a, keys_b, values_a, values_b,                                                 \
                radix::PortionTiles{portion_begin, portion_len, base_in, base_out}, status, status_next,               \
                status_words, tile_counter);                                                                           \
        });                                                                                                            \
    }                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(RADIX_SMALL_THREADS)                                                  \
        radix_small_##NAME(S::Item *keys, S::Value *values, unsigned n, int order) {                                   \
        wait_for_previous_grid();                                                                                      \
        radix::with_key_order<S>(order, [&](auto fl) {                                                                 \
            radix::small_sort<S, decltype(fl)::value, RADIX_SMALL_THREADS, RADIX_SMALL_ITEMS>(keys, values, n, order); \
        });                                                                                                            \
    }

RADIX_SORT_ENTRY_POINTS(kvp, radix::SortKvp, RADIX_SWEEP_THREADS_KVP, RADIX_SWEEP_ITEMS_KVP, RADIX_SWEEP_BLOCKS_KVP)
// Kvp below 8M (src/tuning.rs RADIX_MID_KEYS_BELOW): the tile size that fills the grid there (tuning.cuh).
RADIX_SORT_ENTRY_POINTS(kvp_mid, radix::SortKvp, RADIX_SWEEP_THREADS_KVP_MID, RADIX_SWEEP_ITEMS_KVP_MID,
                        RADIX_SWEEP_BLOCKS_KVP)
// From src/tuning.rs RADIX_HUGE_FROM (Kvp here, keys and split pairs below): tiles that keep sorted
// keys' last pass out of one shared-memory bank (tuning.cuh).
RADIX_SORT_ENTRY_POINTS(kvp_huge, radix::SortKvp, RADIX_SWEEP_THREADS_KVP_HUGE, RADIX_SWEEP_ITEMS_KVP_HUGE,
                        RADIX_SWEEP_BLOCKS_KVP)
// 32-bit keys alone (u32, i32, f32) on one set that flips floats by a run-time mask: under the
// 384 x 24 block shape the integer-only body spilled more and ran slower (tuning.cuh). Pairs of
// u32 and i32 keys take the integer body, f32 pairs their own set; 64-bit keys share one set that
// flips floats at run time. The large and huge sets (radix_keys.cuh KeysU32) stage each key as it is
// ranked where tuning_tiles.cuh RADIX_STAGE_IN_RANK_KEYS is on (sm_90, sm_100).
RADIX_SORT_ENTRY_POINTS(u32, radix::KeysU32, RADIX_SWEEP_THREADS_KEYS, RADIX_SWEEP_ITEMS_KEYS, RADIX_SWEEP_BLOCKS_KEYS)
RADIX_SORT_ENTRY_POINTS(u32_huge, radix::KeysU32Huge, RADIX_SWEEP_THREADS_KEYS_HUGE, RADIX_SWEEP_ITEMS_KEYS_HUGE,
                        RADIX_SWEEP_BLOCKS_KEYS)
// Below 8M (src/tuning.rs RADIX_MID_KEYS_BELOW; u32 and i32 keys alone below 2.5M where the large set stages):
// smaller tiles (u32 and i32 keys alone and with values; 64-bit keys alone of every type).
RADIX_SORT_ENTRY_POINTS(u32_mid, radix::IntKeys<radix::SortU32>, RADIX_SWEEP_THREADS_KEYS_MID,
                        RADIX_SWEEP_ITEMS_KEYS_MID, RADIX_SWEEP_BLOCKS_KEYS_MID)
RADIX_SORT_ENTRY_POINTS(u64_mid, radix::FloatKeys<radix::SortU64>, RADIX_SWEEP_THREADS_U64_MID,
                        RADIX_SWEEP_ITEMS_U64_MID, RADIX_SWEEP_BLOCKS_U64_MID)
RADIX_SORT_ENTRY_POINTS(pairs_u32, radix::IntKeys<radix::JointStaged<radix::SortPairsU32>>, RADIX_SWEEP_THREADS_PAIRS,
                        RADIX_SWEEP_ITEMS_PAIRS, RADIX_SWEEP_BLOCKS_PAIRS)
RADIX_SORT_ENTRY_POINTS(pairs_u32_huge, radix::IntKeys<radix::JointStaged<radix::SortPairsU32>>,
                        RADIX_SWEEP_THREADS_PAIRS_HUGE, RADIX_SWEEP_ITEMS_PAIRS, RADIX_SWEEP_BLOCKS_PAIRS)
RADIX_SORT_ENTRY_POINTS(pairs_u32_mid, radix::PairsU32Mid, RADIX_SWEEP_THREADS_PAIRS_MID,
                        RADIX_SWEEP_ITEMS_PAIRS_MID, RADIX_SWEEP_BLOCKS_PAIRS_MID)
RADIX_SORT_ENTRY_POINTS(pairs_f32, radix::FloatKeys<radix::SortPairsU32>, RADIX_SWEEP_THREADS_PAIRS_F32,
                        RADIX_SWEEP_ITEMS_PAIRS_F32, RADIX_SWEEP_BLOCKS_PAIRS_F32)
RADIX_SORT_ENTRY_POINTS(u64, radix::FloatKeys<radix::SortU64>, RADIX_SWEEP_THREADS_U64, RADIX_SWEEP_ITEMS_U64,
                        RADIX_SWEEP_BLOCKS_U64)
RADIX_SORT_ENTRY_POINTS(pairs_u64, radix::FloatKeys<radix::SortPairsU64>, RADIX_SWEEP_THREADS_PAIRS_U64,
                        RADIX_SWEEP_ITEMS_PAIRS_U64, RADIX_SWEEP_BLOCKS_PAIRS_U64)

// The segmented sort, for 32-bit keys alone and with 32-bit values (src/cuda/radix/segmented.rs),
// f32 keys included: block shapes of its own (RADIX_SEGMENT_*), described by radix_config_segment_<name>
// (no one-block kernel: its fields are 0).
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

#define RADIX_SEGMENTED_ENTRY_POINTS(NAME, S, SWEEP_THREADS, SWEEP_ITEMS, SWEEP_BLOCKS)                                \
    extern "C" __device__ unsigned radix_config_segment_##NAME[12] = {                                                 \
        SWEEP_THREADS, SWEEP_ITEMS, 0, 0, 0, RADIX_SEGMENT_HIST_THREADS, RADIX_SEGMENT_HIST_BLOCKS_PER_SM,             \
        S::PASSES, radix::sweep_dynamic_bytes<S, SWEEP_THREADS, SWEEP_ITEMS>(), 0, 0, 0};                              \
    extern "C" __global__ void __launch_bounds__(RADIX_SEGMENT_HIST_THREADS) radix_segment_histogram_##NAME(           \
        const S::Item *keys, int order, const unsigned long long *offsets, const unsigned *first_tile,                 \
        unsigned segments, unsigned tiles_per_block, unsigned *hist) {                                                 \
        wait_for_previous_grid();                                                                                      \
        const radix::SegmentTiles tiles{offsets, first_tile, segments, SWEEP_THREADS * SWEEP_ITEMS,                    \
                                        nullptr, nullptr};                                                             \
        radix::with_key_order<S>(order, [&](auto fl) {                                                                 \
            radix::segment_histogram<S, decltype(fl)::value, RADIX_SEGMENT_HIST_THREADS>(keys, order, tiles,           \
                                                                                         tiles_per_block, hist);       \
        });                                                                                                            \
    }                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(SWEEP_THREADS, SWEEP_BLOCKS) radix_segment_onesweep_##NAME(           \
        const unsigned *plan, int pass, int order, S::Item *keys_a, S::Item *keys_b, S::Value *values_a,               \
        S::Value *values_b, const unsigned long long *offsets, const unsigned *first_tile,                             \
        const unsigned *tile_segment, unsigned segments, const unsigned long long *bases, unsigned *status,            \
        unsigned *status_next, unsigned long long status_words, unsigned *tile_counter) {                              \
        wait_for_previous_grid();                                                                                      \
        const radix::SegmentTiles tiles{offsets, first_tile, segments, SWEEP_THREADS * SWEEP_ITEMS, bases,             \
                                        tile_segment};                                                                 \
        radix::with_key_order<S>(order, [&](auto fl) {                                                                 \
            radix::onesweep<S, decltype(fl)::value, SWEEP_THREADS, SWEEP_ITEMS>(                                       \
                plan, pass, order, keys_a, keys_b, values_a, values_b, tiles, status, status_next, status_words,       \
                tile_counter);                                                                                         \
        });                                                                                                            \
    }

RADIX_SEGMENTED_ENTRY_POINTS(u32, radix::SortU32, RADIX_SEGMENT_THREADS, RADIX_SEGMENT_ITEMS_KEYS, RADIX_SEGMENT_BLOCKS)
RADIX_SEGMENTED_ENTRY_POINTS(pairs_u32, radix::PositionsHeld<radix::SortPairsU32>, RADIX_SEGMENT_THREADS,
                             RADIX_SEGMENT_ITEMS_PAIRS, RADIX_SEGMENT_BLOCKS)
