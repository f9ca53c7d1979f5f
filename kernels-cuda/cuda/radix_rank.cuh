// Warp-level ranking of digits and the block-wide digit scan: the pieces of a radix pass that
// the sweep (radix.cuh), the one-block sort (radix_small.cuh) and the selection (select.cu) share.
#pragma once

#include "radix_keys.cuh"

namespace radix {

// ---- warp-level ranking -----------------------------------------------------------------------
// Each warp owns BIN_WORDS words of counters: for every digit (RADIX + 1 bins, the last for slots
// past the end of the input) a running count and a peer mask.
constexpr int BIN_WORDS = 2 * (RADIX + 1);

// This warp's running count of digit d (its histogram once warp_rank returns).
__device__ __forceinline__ unsigned &bin_count(unsigned *bins, unsigned d) { return bins[d]; }

// The lanes of the warp whose digit is d (its peers), this lane included. Each lane ORs its bit
// into a mask word of its digit, reads it back, and the lowest peer clears it for the next item
// (the caller, after a __syncwarp): about 60 instructions per item (SASS, sm_90), against about
// 130 for one ballot per digit bit. Keeping mask and count in one 64-bit word measured slower.
__device__ __forceinline__ unsigned peers_by_or(unsigned *bins, unsigned d, unsigned below_me) {
    atomicOr(&bins[RADIX + 1 + d], below_me + 1);  // this lane's bit
    __syncwarp();
    return bins[RADIX + 1 + d];
}

// Ranks ITEMS digits per lane (lane l's item i is the warp's (i * 32 + l)-th key, so input order
// is (i, lane)): rank = the count of digit d in `bins` + earlier keys of the warp with digit d.
// The counts of `bins` start at zero (or, in the sweep, at the warp's first tile slot of each
// digit, so the ranks come out final); the masks must be zero on entry and are again on return.
// LEADER_ADD (S::RANK_LEADER_ADD, the sweep policy's leader_add): only the lowest peer reads and bumps the count (one
// atomic add) and shuffles the old count to its peers, instead of every lane loading it: one
// shared-memory access fewer per item, at the price of a shuffle.
// GROUPED (warp-uniform): the warp's keys hold few distinct digits (count_digits). Then
// __match_any_sync is cheap (it iterates over the distinct values in the warp, about 30 for random
// 8-bit digits) and the atomic OR is slow, since every lane of a digit hits the same word; keys
// grouped by an earlier pass make whole warps share one digit (figures in docs/tuning.md).
// on_rank(i, rank) runs as soon as item i's rank is known (the sweep stages the key there, so
// no rank stays live through the rest of the loop).
struct NoRankSink {
    __device__ __forceinline__ void operator()(int, unsigned) const {}
};
template <int ITEMS, bool LEADER_ADD, bool GROUPED = false, class DigitOf, class OnRank = NoRankSink>
__device__ __forceinline__ void warp_rank(DigitOf digit_of_item, unsigned (&rank)[ITEMS], unsigned *bins,
                                          OnRank on_rank = {}) {
    const unsigned below_me = lanemask_lt();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        // Recomputed from the item rather than kept: ITEMS fewer registers live through the pass.
        const unsigned d = digit_of_item(i);
        unsigned peers;
        if constexpr (GROUPED) peers = __match_any_sync(0xffffffffu, d);
        else peers = peers_by_or(bins, d, below_me);
        if constexpr (!GROUPED && LEADER_ADD) {
            // Only the lowest peer touches the count, and shuffles what it read to the others.
            const unsigned ahead = __popc(peers & below_me);
            unsigned before = 0;
            if (ahead == 0) before = atomicAdd(&bins[d], __popc(peers));
            rank[i] = __shfl_sync(0xffffffffu, before, __ffs(peers) - 1) + ahead;
            on_rank(i, rank[i]);
            __syncwarp();  // every peer has read the mask before it is cleared
            if (ahead == 0) bins[RADIX + 1 + d] = 0;
        } else {
            const unsigned before = bins[d];
            const unsigned ahead = __popc(peers & below_me);
            rank[i] = before + ahead;
            on_rank(i, rank[i]);
            __syncwarp();
            if (ahead == 0) {
                bins[d] = before + __popc(peers);
                if constexpr (!GROUPED) bins[RADIX + 1 + d] = 0;
            }
        }
        __syncwarp();
    }
}

// The number of digits (of RADIX) with a nonzero count in a warp's counters; every lane gets it.
__device__ __forceinline__ unsigned count_digits(const unsigned *bins) {
    unsigned distinct = 0;
#pragma unroll
    for (int b = 0; b < RADIX; b += 32) distinct += __popc(__ballot_sync(0xffffffffu, bins[b + (threadIdx.x & 31)] != 0));
    return distinct;
}

// Block-wide exclusive scan of one value per thread for threads [0, RADIX); every thread of the
// block must call it. `warp_sums` holds RADIX / 32 words. Returns the exclusive prefix.
template <class T> __device__ __forceinline__ T scan_digits(T x, T *warp_sums) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    T inclusive = x;
    if (threadIdx.x < RADIX) {
#pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            T y = __shfl_up_sync(0xffffffffu, inclusive, off);
            if (lane >= off) inclusive += y;
        }
        if (lane == 31) warp_sums[warp] = inclusive;
    }
    __syncthreads();
    T prefix = 0;
    if (threadIdx.x < RADIX) {
        for (int w = 0; w < warp; ++w) prefix += warp_sums[w];
    }
    return prefix + inclusive - x;
}

}  // namespace radix
