// Warp-level ranking of digits and the block-wide digit scan: the pieces of a radix pass that
// the sweep (radix.cuh), the one-block sort (radix_small.cuh) and the selection (select.cu) share.
#pragma once

#include "radix_keys.cuh"

namespace radix {

// ---- warp-level ranking -----------------------------------------------------------------------
// Each warp owns BIN_WORDS words of counters: for every digit (RADIX + 1 bins, the last for slots
// past the end of the input) a running count and, for RADIX_RANK 3, a peer mask.
constexpr int BIN_WORDS = 2 * (RADIX + 1);

// This warp's running count of digit d (its histogram once warp_rank returns).
__device__ __forceinline__ unsigned &bin_count(unsigned *bins, unsigned d) { return bins[d]; }

// Ranks ITEMS digits per lane (lane l's item i is the warp's (i * 32 + l)-th key, so input order
// is (i, lane)): rank = earlier keys of the warp with the same digit. The lanes sharing a digit
// (its peers) are found one of three ways (RADIX_RANK), and the lowest peer bumps the count:
//   0: one ballot per digit bit: about 130 instructions per item with the selects (SASS, sm_90);
//   1: __match_any_sync: few instructions, but MATCH iterates over the distinct values in the warp
//      (about 30 for random 8-bit digits): H200, 16M keys 0.90 ms against 0.65 with ballots;
//   3: each lane ORs its bit into a mask word of its digit, reads it back, and the lowest peer
//      clears it for the next item: about 60 instructions per item, H200 16M keys 0.566 ms.
//      (Mask and count in one 64-bit word, one load and one store fewer per item, measured
//      slower: 16M keys 0.615 ms.)
// LEADER_ADD (S::RANK_LEADER_ADD, tuning.cuh): with 3, only the lowest peer reads and bumps the
// count (one atomic add) and shuffles the old count to its peers, instead of every lane loading it:
// one shared-memory access fewer per item, at the price of a shuffle.
// The counts of `bins` start at zero (or, with RADIX_EARLY_COUNTS, at the warp's first tile slot
// of each digit, so the ranks come out final); the masks must be zero on entry and are again on return.
//
// GROUPED (warp-uniform): the warp's keys hold few distinct digits (count_digits). Then
// __match_any_sync is cheap (it iterates over the distinct values) and the atomic OR is slow, since
// every lane of a digit hits the same word; keys grouped by an earlier pass make whole warps share
// one digit. H200, 64M Kvp, 16 distinct keys, same run: 2.80 ms with the atomic OR for every warp,
// 2.25 with match for every warp (random keys: 2.57 and 3.63).
// `match` (warp-uniform, RADIX_GROUPED_INLINE): the same choice made per item inside one loop, so
// the kernel holds one unrolled copy of the ranking instead of two.
// on_rank(i, rank) runs as soon as item i's rank is known (the sweep stages the key there, so
// no rank stays live through the rest of the loop).
struct NoRankSink {
    __device__ __forceinline__ void operator()(int, unsigned) const {}
};
template <int ITEMS, bool LEADER_ADD, bool GROUPED = false, class DigitOf, class OnRank = NoRankSink>
__device__ __forceinline__ void warp_rank(DigitOf digit_of_item, unsigned (&rank)[ITEMS], unsigned *bins,
                                          bool match = false, OnRank on_rank = {}) {
    constexpr int HOW = GROUPED ? 1 : RADIX_RANK;  // grouped warps always match
    const unsigned below_me = lanemask_lt();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        // Recomputed from the item rather than kept: ITEMS fewer registers live through the pass.
        const unsigned d = digit_of_item(i);
        unsigned peers;
        if constexpr (HOW == 0) {
            peers = 0xffffffffu;
#pragma unroll
            for (int b = 0; b <= DIGIT_BITS; ++b) {  // DIGIT_BITS + 1 bits: PAST_END is bin 256
                const bool set = (d >> b) & 1;
                const unsigned ballot = __ballot_sync(0xffffffffu, set);
                peers &= set ? ballot : ~ballot;
            }
        } else if constexpr (HOW == 1) {
            peers = __match_any_sync(0xffffffffu, d);
        } else if (match) {
            peers = __match_any_sync(0xffffffffu, d);
        } else {
            atomicOr(&bins[RADIX + 1 + d], below_me + 1);  // this lane's bit
            __syncwarp();
            peers = bins[RADIX + 1 + d];
        }
        if constexpr (HOW == 3 && LEADER_ADD) {
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
                if constexpr (HOW == 3) bins[RADIX + 1 + d] = 0;
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
