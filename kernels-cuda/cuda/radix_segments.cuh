// Segmented radix sort: every segment of at least a few tiles sorted by the Onesweep passes of
// radix.cuh at once, each segment a chain of tiles with its own look-back and its own digit bases,
// so a pass moves 4-byte keys (and values) as the plain sort does. The alternative,
// `segment << 32 | key` words (segments.cu), moves 8-byte words through one more pass.
//   1. segment_tiles:     each segment's first tile (an exclusive scan of its tile count);
//   2. segment_histogram: every pass's digit counts of each segment, one read of the keys;
//   3. segment_bases:     each segment's digit starts per pass, the segment of each tile, and the
//                         counts of all segments, from which radix_prepare plans the passes;
//   4. radix_onesweep over SegmentTiles, one launch per pass, then radix_copy_back.
// Segments of up to VALUE_MASK items (the look-back's 30-bit counts); src/cuda/radix/segmented.rs
// runs the steps.
#pragma once

#include "radix.cuh"

namespace radix {

// Tiles of segment s: first_tile[s] .. first_tile[s + 1]; first_tile[segments] is the total.
struct SegmentTiles {
    static constexpr bool SEGMENTED = true;
    const unsigned long long *offsets;  // segment s: items offsets[s] .. offsets[s + 1]
    const unsigned *first_tile;
    unsigned segments;
    unsigned tile_items;                // items per tile (the sweep's TILE)
    const unsigned long long *bases;    // this pass's [segments][RADIX] digit starts
    const unsigned *tile_segment;       // the segment of each tile (segment_bases)

    // The segment holding tile g: the last s with first_tile[s] <= g, which skips empty segments
    // (a later segment starts at the same tile).
    __device__ __forceinline__ unsigned segment_of(unsigned g) const {
        unsigned lo = 0, hi = segments;  // answer in [lo, hi)
        while (hi - lo > 1) {
            const unsigned mid = lo + (hi - lo) / 2;
            if (first_tile[mid] <= g) lo = mid; else hi = mid;
        }
        return lo;
    }
    // One load for the segment instead of segment_of's chain of dependent loads, which every
    // sweep block waited for before its first key (H200, 64M keys in 256 segments: 1.847 ms).
    __device__ __forceinline__ Chain locate(unsigned g) const {
        if (g >= first_tile[segments]) return {0, 0, 0, 0, nullptr, nullptr};
        const unsigned s = tile_segment[g];
        const unsigned long long begin = offsets[s];
        return {begin, (unsigned)(offsets[s + 1] - begin), g - first_tile[s], first_tile[s],
                bases + (size_t)s * RADIX, nullptr};
    }
};

// One block: first_tile[s] for s <= segments. Tile counts fit 32 bits: the host sizes the grid by
// n / tile + segments.
template <int THREADS>
__device__ void segment_tiles(const unsigned long long *offsets, unsigned segments, unsigned tile_items,
                              unsigned *first_tile) {
    __shared__ unsigned warp_sums[THREADS / 32];
    __shared__ unsigned carry;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    if (t == 0) carry = 0;
    __syncthreads();
    for (unsigned long long base = 0; base <= segments; base += THREADS) {
        const unsigned long long s = base + t;
        unsigned x = 0;
        if (s < segments) x = (unsigned)((offsets[s + 1] - offsets[s] + tile_items - 1) / tile_items);
        unsigned inclusive = x;
#pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            const unsigned y = __shfl_up_sync(0xffffffffu, inclusive, off);
            if (lane >= off) inclusive += y;
        }
        if (lane == 31) warp_sums[warp] = inclusive;
        __syncthreads();
        unsigned before = carry;
        for (int w = 0; w < warp; ++w) before += warp_sums[w];
        if (s <= segments) first_tile[s] = before + inclusive - x;
        __syncthreads();  // every thread has read carry and warp_sums
        if (t == THREADS - 1) carry = before + inclusive;
        __syncthreads();
    }
}

// Block b counts the digits of tiles [b * per_block, (b + 1) * per_block), adding a segment's
// counts to hist[segment][pass][RADIX] when the next tile starts another segment and at the end.
// The grid is a few blocks per SM, as the plain histogram's: one block per 8 tiles ran 1.3 waves
// and took 168 us for 64M keys in 256 segments (ncu, H200).
template <class S, bool FLOAT, int THREADS>
__device__ void segment_histogram(const typename S::Item *keys, int order, const SegmentTiles tiles,
                                  unsigned per_block, unsigned *hist) {
    constexpr int WORDS = S::PASSES * RADIX;
    __shared__ unsigned counts[WORDS];
    for (int i = threadIdx.x; i < WORDS; i += THREADS) counts[i] = 0;
    const KeyOrder<S, FLOAT> key(order);
    auto flush = [&](unsigned segment) {
        __syncthreads();
        for (int i = threadIdx.x; i < WORDS; i += THREADS) {
            if (counts[i]) atomicAdd(&hist[(size_t)segment * WORDS + i], counts[i]);
            counts[i] = 0;
        }
        __syncthreads();
    };
    const unsigned total = tiles.first_tile[tiles.segments];
    const unsigned first = blockIdx.x * per_block, last = min(first + per_block, total);
    if (first >= last) return;
    unsigned segment = tiles.segment_of(first);
    __syncthreads();
    for (unsigned g = first; g < last; ++g) {
        while (g >= tiles.first_tile[segment + 1]) {  // the next segment with tiles
            flush(segment);
            ++segment;
        }
        const unsigned long long seg_begin = tiles.offsets[segment];
        const unsigned long long begin = seg_begin + (unsigned long long)(g - tiles.first_tile[segment]) * tiles.tile_items;
        const unsigned len = (unsigned)min((unsigned long long)tiles.tile_items, tiles.offsets[segment + 1] - begin);
        // 8 loads in flight before the first atomic, as the whole sort's histogram.
        add_digit_counts<S, FLOAT, 8>(keys + begin, threadIdx.x, len, (unsigned)THREADS, key, counts);
    }
    flush(segment);
}

// One block of RADIX threads per segment: bases[pass][segment][digit] = the segment's first item
// plus the count of its smaller digits; the counts of every segment summed into all[pass][digit];
// tile_segment[g] = segment for each of its tiles g.
__device__ void segment_bases(const unsigned *hist, int passes, const unsigned long long *offsets,
                              const unsigned *first_tile, unsigned segments, unsigned long long *bases,
                              unsigned long long *all, unsigned *tile_segment) {
    __shared__ unsigned warp_sums[RADIX / 32];
    const unsigned s = blockIdx.x;
    const int t = threadIdx.x;
    for (unsigned g = first_tile[s] + t; g < first_tile[s + 1]; g += RADIX) tile_segment[g] = s;
    const unsigned long long begin = offsets[s];
    for (int p = 0; p < passes; ++p) {
        const unsigned c = hist[((size_t)s * passes + p) * RADIX + t];
        const unsigned start = scan_digits(c, warp_sums);
        bases[((size_t)p * segments + s) * RADIX + t] = begin + start;
        if (c) atomicAdd(&all[p * RADIX + t], (unsigned long long)c);
        __syncthreads();  // warp_sums is reused by the next pass
    }
}

}  // namespace radix
