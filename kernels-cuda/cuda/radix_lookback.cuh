// The sweep's chains of tiles and its decoupled look-back (radix_onesweep.cuh): each tile
// publishes its digit counts, and finds its digits' offsets from the tiles before it in its chain.
#pragma once

#include "radix_keys.cuh"

namespace radix {

// Decoupled look-back for digit t of this tile: the count of digit t in every earlier tile of the
// portion. Publishes this tile's inclusive count.
// The walk reads BATCH (S::LOOKBACK_BATCH) earlier tiles' words at once: with early counts most tiles
// behind this one have published only their own count, so a one-word-at-a-time walk is a chain of
// dependent L2 round trips (ncu, H200, 16M Kvp: 11% of the sweep's stall samples on that load and
// 15% on the barrier waiting for it).
template <int BATCH>
__device__ __forceinline__ unsigned look_back(unsigned *status, unsigned tile, int t, unsigned count) {
    unsigned before = 0;
    if (tile > 0) {
        int j = (int)tile - 1;  // the newest tile not yet added
        for (;;) {
            unsigned s[BATCH];
#pragma unroll
            for (int k = 0; k < BATCH; ++k)
                s[k] = j - k >= 0 ? load_relaxed(&status[(size_t)(j - k) * RADIX + t]) : FLAG_INCLUSIVE;
            // Tiles j, j-1, ... in order until one that has not published (read again from it) or one
            // with its inclusive count (done). Tile 0 publishes inclusive, so j never passes it.
            bool done = false;
            int k = 0;
#pragma unroll
            for (; k < BATCH; ++k) {
                if (!(s[k] & FLAG_MASK)) break;
                before += s[k] & VALUE_MASK;
                if (s[k] & FLAG_INCLUSIVE) {
                    done = true;
                    break;
                }
            }
            if (done) break;
            j -= k;
        }
        store_relaxed(&status[(size_t)tile * RADIX + t], FLAG_INCLUSIVE | (before + count));
    }
    return before;
}

// The items a sweep tile ranks: tiles form chains (the input, a portion of it, or one segment of a
// segmented sort), each with its own look-back and its own digit bases.
struct Chain {
    unsigned long long begin;           // the chain's first item
    unsigned len;                       // its items; 0 for a tile past the last chain
    unsigned tile;                      // this tile's place in the chain
    unsigned long long first_tile;      // the chain's first tile among all of the launch
    const unsigned long long *base_in;  // global position of each digit's first item of the chain
    unsigned long long *base_out;       // where the last tile leaves each digit's end (or null)
};

// One chain of every tile of the launch: a portion of up to VALUE_MASK items.
struct PortionTiles {
    static constexpr bool SEGMENTED = false;
    unsigned long long begin;
    unsigned len;
    const unsigned long long *base_in;
    unsigned long long *base_out;
    __device__ __forceinline__ Chain locate(unsigned tile) const { return {begin, len, tile, 0, base_in, base_out}; }
};

}  // namespace radix
