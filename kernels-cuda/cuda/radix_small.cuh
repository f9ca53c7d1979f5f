// The radix sort of small inputs: one block holds the whole input in shared memory and ranks it
// pass by pass with the sweep's warp ranking (radix_rank.cuh), in one launch.
#pragma once

#include "radix.cuh"

namespace radix {

template <class S, int THREADS, int ITEMS> __host__ __device__ constexpr size_t small_shared_bytes() {
    return sizeof(unsigned) * (THREADS / 32) * BIN_WORDS + sizeof(unsigned) * (RADIX + RADIX / 32) +
           sizeof(typename S::Item) * THREADS * ITEMS + (has_values<S>() ? sizeof(typename S::Value) * THREADS * ITEMS : 0);
}

template <class S, bool FLOAT, int THREADS, int ITEMS>
__device__ void small_sort(typename S::Item *keys, typename S::Value *values, unsigned n, int order) {
    using Item = typename S::Item;
    using Value = typename S::Value;
    constexpr int WARPS = THREADS / 32, TILE = THREADS * ITEMS, WARP_TILE = 32 * ITEMS;
    constexpr bool VALUES = has_values<S>();
    extern __shared__ __align__(16) unsigned char smem[];
    // Items first: the 8-byte ones need the alignment.
    Item *stage = reinterpret_cast<Item *>(smem);
    Value *vstage = reinterpret_cast<Value *>(stage + TILE);
    unsigned *bins = reinterpret_cast<unsigned *>(smem + sizeof(Item) * TILE + (VALUES ? sizeof(Value) * TILE : 0));
    unsigned *tile_start = bins + WARPS * BIN_WORDS;
    unsigned *warp_sums = tile_start + RADIX;

    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const KeyOrder<S, FLOAT> key(order);
    if constexpr (S::SMALL_LOAD_ALL) {
        // Every load of this thread in flight before the first store (S::SMALL_LOAD_ALL).
        Item k[ITEMS];
        Value v[ITEMS];
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const unsigned j = t + i * THREADS;
            if (j < n) {
                k[i] = keys[j];
                if constexpr (VALUES) v[i] = values[j];
            }
        }
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const unsigned j = t + i * THREADS;
            if (j < n) {
                stage[j] = k[i];
                if constexpr (VALUES) vstage[j] = v[i];
            }
        }
    } else {
        for (unsigned j = t; j < n; j += THREADS) {
            stage[j] = keys[j];
            if constexpr (VALUES) vstage[j] = values[j];
        }
    }
    const unsigned warp_begin = warp * WARP_TILE + lane;
    for (int pass = 0; pass < S::PASSES; ++pass) {
        const int shift = pass * DIGIT_BITS;
        for (int i = t; i < WARPS * BIN_WORDS; i += THREADS) bins[i] = 0;
        __syncthreads();
        Item item[ITEMS];
        Value value[ITEMS];
        unsigned rank[ITEMS];
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const unsigned idx = warp_begin + i * 32;
            if (idx < n) {
                item[i] = stage[idx];
                if constexpr (VALUES) value[i] = vstage[idx];
            }
        }
        auto digit = [&](int i) { return warp_begin + i * 32 < n ? key.digit(item[i], shift) : PAST_END; };
        unsigned *my_bins = bins + warp * BIN_WORDS;
        warp_rank<ITEMS, S::SMALL_LEADER_ADD>(digit, rank, my_bins);
        __syncthreads();
        unsigned count = 0;
        if (t < RADIX) {
            unsigned sum = 0;
            for (int w = 0; w < WARPS; ++w) {
                const unsigned c = bin_count(bins + w * BIN_WORDS, t);
                bin_count(bins + w * BIN_WORDS, t) = sum;
                sum += c;
            }
            count = sum;
        }
        const unsigned start = scan_digits(count, warp_sums);
        if (t < RADIX) tile_start[t] = start;
        __syncthreads();
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const unsigned d = digit(i);
            if (d != PAST_END) {
                const unsigned slot = tile_start[d] + bin_count(my_bins, d) + rank[i];
                stage[slot] = item[i];
                if constexpr (VALUES) vstage[slot] = value[i];
            }
        }
        __syncthreads();
    }
    for (unsigned j = t; j < n; j += THREADS) {
        keys[j] = stage[j];
        if constexpr (VALUES) values[j] = vstage[j];
    }
}

}  // namespace radix
