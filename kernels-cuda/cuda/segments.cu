// Segmented sorts on the device (src/cuda/segments.rs runs the steps). 32-bit keys: every key
// becomes the 64-bit word `segment << 32 | its ordered bits`, one stable radix sort of those words
// (with the values beside them) orders each segment on its own, and the keys are read back out of
// the low halves. Digit passes over segment bits that no key sets are skipped by the radix sort.
//   segments_check:     whether the offsets cut n items (start at 0, end at n, never fall);
//   segments_compose:   the words, from the keys and the offsets;
//   segments_decompose: the keys, from the sorted words.
// Segments of up to 2048 keys take segments_block_<N> (one block per segment, in shared memory,
// below) instead, and segments of at most 256 keys (all of them) segments_lanes_<N>: N / 8 lanes
// per segment hold it in registers, 8 keys each, and sort it with a bitonic network (see
// lanes_bitonic). segments_lanes64_<N> are the same for 64-bit keys. Longer segments of 64-bit
// keys leave no room for the segment beside them in one word, so src/cuda/segments/wide.rs sorts
// positions instead, by two stable radix sorts: by key, then by segment (a one-block network of
// 64-bit words took longer than those: 9.4 ms for 64K segments of 1024 keys with values, H200).
//   (the positions 0..n: positions_iota, positions.cu)
//   segments_samples: the segment of every SAMPLE_ITEMS-th item;
//   segments_of:      the segment of each sorted position, searched between two samples;
//   segments_gather:  the keys (8 bytes) and values in the order of the positions.
#include "policy_segments.cuh"
#include "radix_keys.cuh"

namespace segments {

using radix::ORDER_DESCENDING;
using radix::ORDER_FLOAT;
using radix::ORDER_SIGNED;

// Bits whose unsigned order is the wanted order (the map of radix::KeyOrder, for one u32 or u64).
template <typename B> __device__ __forceinline__ B ordered(B b, int order) {
    constexpr B SIGN = B(1) << (sizeof(B) * 8 - 1);
    if (order & ORDER_FLOAT) b ^= (b & SIGN) ? ~B(0) : SIGN;
    if (order & ORDER_SIGNED) b ^= SIGN;
    if (order & ORDER_DESCENDING) b = ~b;
    return b;
}

// The inverse of `ordered`.
template <typename B> __device__ __forceinline__ B unordered(B o, int order) {
    constexpr B SIGN = B(1) << (sizeof(B) * 8 - 1);
    if (order & ORDER_DESCENDING) o = ~o;
    if (order & ORDER_SIGNED) o ^= SIGN;
    if (order & ORDER_FLOAT) o ^= (o & SIGN) ? SIGN : ~B(0);
    return o;
}

// The segment of item i: the last s with offsets[s] <= i (segments [offsets[s], offsets[s+1]);
// empty ones are never the answer, as a later offset equals theirs), known to lie in [lo, hi).
__device__ __forceinline__ unsigned long long segment_between(const unsigned long long *offsets,
                                                              unsigned long long lo, unsigned long long hi,
                                                              unsigned long long i) {
    while (hi - lo > 1) {
        const unsigned long long mid = lo + (hi - lo) / 2;
        if (offsets[mid] <= i) lo = mid; else hi = mid;
    }
    return lo;
}

__device__ __forceinline__ unsigned long long segment_of(const unsigned long long *offsets,
                                                         unsigned long long segments, unsigned long long i) {
    return segment_between(offsets, 0, segments, i);
}

// Segments of at most N keys (N a power of two, 8 to 256) take N / 8 lanes each, 8 keys per lane
// in registers: element e = t * 8 + i of the segment sits in register i of its lane t. A bitonic
// network then runs its steps between elements less than 8 apart inside each lane (plain min and
// max, no shuffles) and only the others across lanes, by shuffles within the segment's lanes:
// 6 of the 21 steps for N = 64, against 20 of 21 with one warp per segment and a key per lane.
constexpr int LANE_KEYS = 8;

template <typename W> __device__ __forceinline__ W lesser(W a, W b) { return a < b ? a : b; }
template <typename W> __device__ __forceinline__ W greater(W a, W b) { return a < b ? b : a; }

// A 64-bit key's ordered bits and its place in the segment: no room for both in one word.
struct Placed {
    unsigned long long key;
    unsigned place;
};
__device__ __forceinline__ bool operator<(const Placed &a, const Placed &b) {
    return a.key < b.key || (a.key == b.key && a.place < b.place);
}

template <typename W> __device__ __forceinline__ W shfl_xor(W w, int m) { return __shfl_xor_sync(0xffffffffu, w, m); }
__device__ __forceinline__ Placed shfl_xor(Placed w, int m) {
    return {__shfl_xor_sync(0xffffffffu, w.key, m), __shfl_xor_sync(0xffffffffu, w.place, m)};
}

// The word a network sorts for keys of type K: the key's ordered bits, and with PLACED its place
// in the segment below them (unique words, so the unstable network keeps equal keys in order and
// the values can be fetched by place). `last` sorts after every key: slots past the segment.
template <typename K, bool PLACED> struct Words;
template <> struct Words<unsigned, false> {
    using W = unsigned;
    static __device__ __forceinline__ W make(unsigned k, unsigned) { return k; }
    static __device__ __forceinline__ unsigned key(W w) { return w; }
    static __device__ __forceinline__ unsigned place(W) { return 0; }
    static __device__ __forceinline__ W last() { return ~0u; }
};
template <> struct Words<unsigned, true> {
    using W = unsigned long long;
    static __device__ __forceinline__ W make(unsigned k, unsigned p) { return (W)k << 32 | p; }
    static __device__ __forceinline__ unsigned key(W w) { return (unsigned)(w >> 32); }
    static __device__ __forceinline__ unsigned place(W w) { return (unsigned)w; }
    static __device__ __forceinline__ W last() { return ~0ull; }
};
template <> struct Words<unsigned long long, false> {
    using W = unsigned long long;
    static __device__ __forceinline__ W make(unsigned long long k, unsigned) { return k; }
    static __device__ __forceinline__ unsigned long long key(W w) { return w; }
    static __device__ __forceinline__ unsigned place(W) { return 0; }
    static __device__ __forceinline__ W last() { return ~0ull; }
};
template <> struct Words<unsigned long long, true> {
    using W = Placed;
    static __device__ __forceinline__ W make(unsigned long long k, unsigned p) { return {k, p}; }
    static __device__ __forceinline__ unsigned long long key(W w) { return w.key; }
    static __device__ __forceinline__ unsigned place(W w) { return w.place; }
    static __device__ __forceinline__ W last() { return {~0ull, ~0u}; }
};

// Sorts ascending the N elements held by the N / LANE_KEYS lanes of one segment; t: the lane's
// place among them. Every lane of the warp takes part (the shuffles need all of them).
template <int N, typename W> __device__ __forceinline__ void lanes_bitonic(W (&w)[LANE_KEYS], unsigned t) {
    constexpr int I = LANE_KEYS;
#pragma unroll
    for (int k = 2; k <= N; k <<= 1) {
#pragma unroll
        for (int j = k >> 1; j > 0; j >>= 1) {
            if (j < I) {
#pragma unroll
                for (int i = 0; i < I; ++i) {
                    if (i & j) continue;
                    const int p = i | j;
                    const bool up = ((t * I + i) & k) == 0;
                    const W lo = lesser(w[i], w[p]), hi = greater(w[i], w[p]);
                    w[i] = up ? lo : hi;
                    w[p] = up ? hi : lo;
                }
            } else {
                const int m = j / I;  // lane distance, inside the segment's lanes
                const bool lower = (t & m) == 0;
                // k > j >= I: the direction depends on the lane only.
                const bool up = ((t * I) & k) == 0;
#pragma unroll
                for (int i = 0; i < I; ++i) {
                    const W other = shfl_xor(w[i], m);
                    // The lower element of an ascending pair keeps the smaller word.
                    w[i] = lower == up ? lesser(other, w[i]) : greater(other, w[i]);
                }
            }
        }
    }
}

// Threads per block of the lanes kernels and of segments_check (their __launch_bounds__).
constexpr int THREADS = 256;

// Keys alone sort as their ordered bits: equal keys are equal bits, so no order among them can
// be seen. With values, the words carry each key's place in the segment (`Words`) and each value
// is fetched by place afterwards. Each lane reads and writes its 8 consecutive keys itself:
// staging a block's segments through shared memory with coalesced loads and stores was slower
// (BENCHMARKS-segments.md).
template <int N, bool VALUES, typename K>
__device__ void lanes_sort(K *keys, unsigned *values, const unsigned long long *offsets,
                           unsigned long long segments, int order) {
    constexpr int I = LANE_KEYS, T = N / LANE_KEYS;
    using WS = Words<K, VALUES>;
    using W = typename WS::W;
    const unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long s = g / T;
    const unsigned t = (unsigned)(g % T);
    unsigned long long begin = 0;
    unsigned len = 0;
    if (s < segments) {
        begin = offsets[s];
        len = (unsigned)(offsets[s + 1] - begin);  // at most N (checked)
    }
    W w[I];
#pragma unroll
    for (int i = 0; i < I; ++i) {
        const unsigned e = t * I + i;
        w[i] = e < len ? WS::make(ordered(keys[begin + e], order), e) : WS::last();
    }
    lanes_bitonic<N>(w, t);
    const bool write = len >= 2;
    unsigned v[I];
    if (VALUES) {
#pragma unroll
        for (int i = 0; i < I; ++i) v[i] = write && t * I + i < len ? values[begin + WS::place(w[i])] : 0;
        __syncwarp();  // every lane of the segment has read its values before any is overwritten
    }
#pragma unroll
    for (int i = 0; i < I; ++i) {
        const unsigned e = t * I + i;
        if (write && e < len) {
            keys[begin + e] = unordered(WS::key(w[i]), order);
            if (VALUES) values[begin + e] = v[i];
        }
    }
}

// One block per segment of at most N keys (N a power of two, up to 2048): the words in shared
// memory, a bitonic network over them with a barrier per step, the values fetched by place as in
// warp_sort. For segments too long for one warp's registers and short enough that the radix
// sort's passes over all keys cost more.
template <int N, bool VALUES>
__device__ void block_sort(unsigned *keys, unsigned *values, const unsigned long long *offsets,
                           unsigned long long segments, int order) {
    __shared__ unsigned long long w[N];
    __shared__ unsigned v[VALUES ? N : 1];
    for (unsigned long long s = blockIdx.x; s < segments; s += gridDim.x) {
        const unsigned long long begin = offsets[s];
        const unsigned len = (unsigned)(offsets[s + 1] - begin);  // at most N (checked)
        if (len < 2) continue;  // the same for the whole block
        for (unsigned e = threadIdx.x; e < N; e += blockDim.x) {
            w[e] = e < len ? (unsigned long long)ordered(keys[begin + e], order) << 32 | e : ~0ull;
            if (VALUES && e < len) v[e] = values[begin + e];
        }
        __syncthreads();
        for (unsigned k = 2; k <= N; k <<= 1) {
            for (unsigned j = k >> 1; j > 0; j >>= 1) {
                for (unsigned t = threadIdx.x; t < N / 2; t += blockDim.x) {
                    const unsigned i = 2 * t - (t & (j - 1));  // the pair's lower element: bit j clear
                    const unsigned long long a = w[i], b = w[i + j];
                    if ((a > b) == ((i & k) == 0)) w[i] = b, w[i + j] = a;
                }
                __syncthreads();
            }
        }
        for (unsigned e = threadIdx.x; e < len; e += blockDim.x) {
            keys[begin + e] = unordered((unsigned)(w[e] >> 32), order);
            if (VALUES) values[begin + e] = v[(unsigned)w[e]];
        }
        __syncthreads();  // w and v are refilled for the next segment
    }
}

}  // namespace segments

// One block per segment (grid-strided past the grid).
#define SEGMENTS_BLOCK(N)                                                                                     \
    extern "C" __global__ void __launch_bounds__(256) segments_block_##N(                                      \
        unsigned *keys, unsigned *values, const unsigned long long *offsets, unsigned long long segments,     \
        int order) {                                                                                        \
        if (values)                                                                                          \
            segments::block_sort<N, true>(keys, values, offsets, segments, order);                           \
        else                                                                                                 \
            segments::block_sort<N, false>(keys, values, offsets, segments, order);                          \
    }
SEGMENTS_BLOCK(512)
SEGMENTS_BLOCK(1024)
SEGMENTS_BLOCK(2048)

// N / 8 lanes per segment (grid: that many threads for every segment).
#define SEGMENTS_LANES(NAME, N, K)                                                                            \
    extern "C" __global__ void __launch_bounds__(segments::THREADS) NAME(                                      \
        K *keys, unsigned *values, const unsigned long long *offsets, unsigned long long segments, int order) { \
        if (values)                                                                                          \
            segments::lanes_sort<N, true, K>(keys, values, offsets, segments, order);                        \
        else                                                                                                 \
            segments::lanes_sort<N, false, K>(keys, values, offsets, segments, order);                       \
    }
SEGMENTS_LANES(segments_lanes_8, 8, unsigned)
SEGMENTS_LANES(segments_lanes_16, 16, unsigned)
SEGMENTS_LANES(segments_lanes_32, 32, unsigned)
SEGMENTS_LANES(segments_lanes_64, 64, unsigned)
SEGMENTS_LANES(segments_lanes_128, 128, unsigned)
SEGMENTS_LANES(segments_lanes_256, 256, unsigned)
SEGMENTS_LANES(segments_lanes64_8, 8, unsigned long long)
SEGMENTS_LANES(segments_lanes64_16, 16, unsigned long long)
SEGMENTS_LANES(segments_lanes64_32, 32, unsigned long long)
SEGMENTS_LANES(segments_lanes64_64, 64, unsigned long long)
SEGMENTS_LANES(segments_lanes64_128, 128, unsigned long long)
SEGMENTS_LANES(segments_lanes64_256, 256, unsigned long long)

// Items per thread of compose (policy_segments.cuh): one binary search over the offsets per run of
// consecutive items, then a walk.
constexpr unsigned long long SEGMENTS_ITEMS = policy::SEGMENTS.compose_items;

// result[0]: 1 when the offsets do not cut n items; result[1]: the longest segment. The longest is
// reduced in the block first: an atomic per thread on the one word took longer than the sort
// itself for 1M segments (see BENCHMARKS-segments.md).
extern "C" __global__ void __launch_bounds__(segments::THREADS) segments_check(const unsigned long long *offsets,
        unsigned long long count, unsigned long long n, unsigned long long *result) {
    __shared__ unsigned long long warp_longest[segments::THREADS / 32];
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long longest = 0;
    bool wrong = false;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        wrong |= (i == 0 && offsets[0] != 0) || (i + 1 == count && offsets[i] != n) ||
                 (i + 1 < count && offsets[i + 1] < offsets[i]);
        if (i + 1 < count && offsets[i + 1] > offsets[i] && offsets[i + 1] - offsets[i] > longest)
            longest = offsets[i + 1] - offsets[i];
    }
    if (wrong) result[0] = 1;
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
        const unsigned long long other = __shfl_xor_sync(0xffffffffu, longest, d);
        longest = other > longest ? other : longest;
    }
    if ((threadIdx.x & 31) == 0) warp_longest[threadIdx.x / 32] = longest;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < segments::THREADS / 32; ++w) longest = warp_longest[w] > longest ? warp_longest[w] : longest;
        if (longest) atomicMax(&result[1], longest);
    }
}

// segments: the number of segments (offsets holds segments + 1 entries, checked).
extern "C" __global__ void segments_compose(const unsigned *keys, unsigned long long n, int order,
                                            const unsigned long long *offsets, unsigned long long segments,
                                            unsigned long long *words) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x * SEGMENTS_ITEMS;
    for (unsigned long long first = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) * SEGMENTS_ITEMS;
         first < n; first += stride) {
        unsigned long long s = segments::segment_of(offsets, segments, first);
        const unsigned long long end = first + SEGMENTS_ITEMS < n ? first + SEGMENTS_ITEMS : n;
        for (unsigned long long i = first; i < end; ++i) {
            while (offsets[s + 1] <= i) ++s;
            words[i] = s << 32 | segments::ordered(keys[i], order);
        }
    }
}

extern "C" __global__ void segments_decompose(const unsigned long long *words, unsigned long long n, int order,
                                              unsigned *keys) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        keys[i] = segments::unordered((unsigned)words[i], order);
}

// Items per sample of segments_samples (SAMPLE_ITEMS in wide.rs): the samples of 64M keys take
// 4 MB, which stays in L2 while segments_of reads them at random.
#define SAMPLE_ITEMS 64

// samples[b]: the segment of item b * SAMPLE_ITEMS, for every such item below n. Fewer than 2^32
// segments (checked), so every number fits.
extern "C" __global__ void segments_samples(const unsigned long long *offsets, unsigned long long segments,
                                            unsigned long long n, unsigned *samples) {
    const unsigned long long count = (n + SAMPLE_ITEMS - 1) / SAMPLE_ITEMS;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long b = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; b < count; b += stride)
        samples[b] = (unsigned)segments::segment_of(offsets, segments, b * SAMPLE_ITEMS);
}

// The positions come sorted by key, so neighbours lie in unrelated segments and no walk as in
// compose helps. A binary search over all offsets each took 5.2 ms of the 12.9 (H200, 64M keys in
// 1M segments), and one load each from a table of every item's segment 1.7 (random reads of
// 256 MB): the samples bound the search to the segments between two of them instead, mostly one
// or two.
extern "C" __global__ void segments_of(const unsigned *positions, unsigned long long n,
                                       const unsigned long long *offsets, unsigned long long segments,
                                       const unsigned *samples, unsigned *seg) {
    const unsigned long long count = (n + SAMPLE_ITEMS - 1) / SAMPLE_ITEMS;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const unsigned long long at = positions[i], b = at / SAMPLE_ITEMS;
        // Segments never go back: item at lies in a segment from its sample's to the next one's.
        const unsigned long long lo = samples[b], hi = b + 1 < count ? samples[b + 1] + 1ull : segments;
        seg[i] = (unsigned)segments::segment_between(offsets, lo, hi, at);
    }
}

// Out of place: the caller's buffers are the sources, written back only once every step before
// was queued. values and values_out are both null for keys alone.
extern "C" __global__ void segments_gather(const unsigned *positions, unsigned long long n,
                                           const unsigned long long *keys, unsigned long long *keys_out,
                                           const unsigned *values, unsigned *values_out) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const unsigned from = positions[i];
        keys_out[i] = keys[from];
        if (values) values_out[i] = values[from];
    }
}
