// Segmented sorts of 32-bit keys on the device (src/cuda/segments.rs runs the steps): every key
// becomes the 64-bit word `segment << 32 | its ordered bits`, one stable radix sort of those words
// (with the values beside them) orders each segment on its own, and the keys are read back out of
// the low halves. Digit passes over segment bits that no key sets are skipped by the radix sort.
//   segments_check:     whether the offsets cut n items (start at 0, end at n, never fall);
//   segments_compose:   the words, from the keys and the offsets;
//   segments_decompose: the keys, from the sorted words.
// Segments of up to 2048 keys take segments_block_<N> (one block per segment, in shared memory,
// below) instead, and segments of at most 256 keys (all of them) segments_warp_<N>: one warp per segment
// holds it in registers as 64-bit words `ordered bits << 32 | place in the segment` (unique, so
// the unstable network sorts stably) and sorts them with a bitonic network: compare-exchanges
// between registers of a lane, then between lanes by shuffles.
#include "radix_keys.cuh"

namespace segments {

using radix::ORDER_DESCENDING;
using radix::ORDER_FLOAT;
using radix::ORDER_SIGNED;

constexpr unsigned SIGN = 0x80000000u;

// Bits whose unsigned order is the wanted order (the map of radix::KeyOrder, for one u32).
__device__ __forceinline__ unsigned ordered(unsigned b, int order) {
    if (order & ORDER_FLOAT) b ^= (b & SIGN) ? ~0u : SIGN;
    if (order & ORDER_SIGNED) b ^= SIGN;
    if (order & ORDER_DESCENDING) b = ~b;
    return b;
}

// The inverse of `ordered`.
__device__ __forceinline__ unsigned unordered(unsigned o, int order) {
    if (order & ORDER_DESCENDING) o = ~o;
    if (order & ORDER_SIGNED) o ^= SIGN;
    if (order & ORDER_FLOAT) o ^= (o & SIGN) ? SIGN : ~0u;
    return o;
}

// The segment of item i: the last s with offsets[s] <= i (segments [offsets[s], offsets[s+1]);
// empty ones are never the answer, as a later offset equals theirs).
__device__ __forceinline__ unsigned long long segment_of(const unsigned long long *offsets,
                                                         unsigned long long segments, unsigned long long i) {
    unsigned long long lo = 0, hi = segments;  // answer in [lo, hi)
    while (hi - lo > 1) {
        const unsigned long long mid = lo + (hi - lo) / 2;
        if (offsets[mid] <= i) lo = mid; else hi = mid;
    }
    return lo;
}

// Striped layout: element e = i * 32 + lane sits in register i of `lane`. Sorts ascending.
template <int ITEMS> __device__ __forceinline__ void warp_bitonic(unsigned long long (&w)[ITEMS]) {
    constexpr int N = 32 * ITEMS;
    const unsigned lane = threadIdx.x & 31;
#pragma unroll
    for (int k = 2; k <= N; k <<= 1) {
#pragma unroll
        for (int j = k >> 1; j > 0; j >>= 1) {
            if (j >= 32) {
                const int r = j >> 5;
#pragma unroll
                for (int i = 0; i < ITEMS; ++i) {
                    if (i & r) continue;
                    const int p = i | r;
                    const bool up = ((i * 32 + lane) & k) == 0;
                    const unsigned long long lo = w[i] < w[p] ? w[i] : w[p], hi = w[i] < w[p] ? w[p] : w[i];
                    w[i] = up ? lo : hi;
                    w[p] = up ? hi : lo;
                }
            } else {
#pragma unroll
                for (int i = 0; i < ITEMS; ++i) {
                    const unsigned long long other = __shfl_xor_sync(0xffffffffu, w[i], j);
                    const bool up = ((i * 32 + lane) & k) == 0;
                    const bool lower = (lane & j) == 0;
                    // The lower element of an ascending pair keeps the smaller word.
                    const bool keep_min = lower == up;
                    w[i] = keep_min ? (other < w[i] ? other : w[i]) : (other > w[i] ? other : w[i]);
                }
            }
        }
    }
}

// Values do not ride through the network: each sorted word's low half names its place in the
// segment, and the value is fetched from the lane and register that loaded it (ITEMS shuffles
// per register, against three shuffles per register per network step when carried along).
template <int ITEMS, bool VALUES>
__device__ void warp_sort(unsigned *keys, unsigned *values, const unsigned long long *offsets,
                          unsigned long long segments, int order) {
    const unsigned lane = threadIdx.x & 31;
    const unsigned long long s = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (s >= segments) return;
    const unsigned long long begin = offsets[s];
    const unsigned len = (unsigned)(offsets[s + 1] - begin);  // at most 32 * ITEMS (checked)
    if (len < 2) return;
    unsigned long long w[ITEMS];
    unsigned v[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const unsigned e = i * 32 + lane;
        // Slots past the segment sort after every key: their word is all ones.
        w[i] = e < len ? (unsigned long long)ordered(keys[begin + e], order) << 32 | e : ~0ull;
        if (VALUES) v[i] = e < len ? values[begin + e] : 0;
    }
    warp_bitonic<ITEMS>(w);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const unsigned e = i * 32 + lane;
        unsigned value = 0;
        if (VALUES) {
            const unsigned from = (unsigned)w[i];
#pragma unroll
            for (int r = 0; r < ITEMS; ++r) {
                const unsigned x = __shfl_sync(0xffffffffu, v[r], from & 31);
                if ((from >> 5) == (unsigned)r) value = x;
            }
        }
        if (e < len) {
            keys[begin + e] = unordered((unsigned)(w[i] >> 32), order);
            if (VALUES) values[begin + e] = value;
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

// One warp per segment (grid: a warp for every segment).
#define SEGMENTS_WARP(ITEMS)                                                                                  \
    extern "C" __global__ void __launch_bounds__(256) segments_warp_##ITEMS(                                  \
        unsigned *keys, unsigned *values, const unsigned long long *offsets, unsigned long long segments,     \
        int order) {                                                                                        \
        if (values)                                                                                          \
            segments::warp_sort<ITEMS, true>(keys, values, offsets, segments, order);                        \
        else                                                                                                 \
            segments::warp_sort<ITEMS, false>(keys, values, offsets, segments, order);                       \
    }
SEGMENTS_WARP(1)
SEGMENTS_WARP(2)
SEGMENTS_WARP(4)
SEGMENTS_WARP(8)

// Items per thread of compose: one binary search over the offsets per run of consecutive items,
// then a walk.
#define SEGMENTS_ITEMS 8

// result[0]: 1 when the offsets do not cut n items; result[1]: the longest segment.
extern "C" __global__ void segments_check(const unsigned long long *offsets, unsigned long long count,
                                          unsigned long long n, unsigned long long *result) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long longest = 0;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        const bool wrong = (i == 0 && offsets[0] != 0) || (i + 1 == count && offsets[i] != n) ||
                           (i + 1 < count && offsets[i + 1] < offsets[i]);
        if (wrong) result[0] = 1;
        if (i + 1 < count && offsets[i + 1] > offsets[i] && offsets[i + 1] - offsets[i] > longest)
            longest = offsets[i + 1] - offsets[i];
    }
    if (longest) atomicMax(&result[1], longest);
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
