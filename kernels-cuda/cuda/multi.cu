// One sort spread over several GPUs (src/cuda/multi/): each device sorts its share of the input,
// then the devices agree on where the global rank boundaries fall in every sorted share, swap the
// pieces, and each merges the sorted pieces it received.
// - multi_count_below_*: finding a boundary is a search over key values: for a batch of candidate
//   values, how many keys of one sorted share order strictly before each. The host sums the counts
//   of all devices and narrows the candidates by one 8-bit digit per launch, so a 32-bit key takes
//   four launches per device and a 64-bit key eight.
// - multi_merge_*: a stable merge of two sorted runs (equal keys: the first run's first), by merge
//   path: each block finds where its tile of the output starts in both runs by a binary search
//   along its diagonal, stages the two slices in shared memory, and each thread merges its own
//   stretch of the tile found the same way within them; the tile goes out coalesced.
#include "radix_keys.cuh"  // the sort descriptions and the key order map

namespace multi {

// below[q] = how many keys of `sorted` (ascending in the order map, as the radix sort leaves it)
// order strictly before queries[q]. A query is an ordered value; for 32-bit keys 2^32 counts all.
template <class S, bool FLOAT>
__device__ void count_below(const typename S::Item *sorted, unsigned long long n, int order,
                            const unsigned long long *queries, unsigned nq, unsigned long long *below) {
    const unsigned q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= nq) return;
    const radix::KeyOrder<S, FLOAT> key(order);
    const unsigned long long v = queries[q];
    unsigned long long lo = 0, hi = n;
    while (lo < hi) {
        const unsigned long long mid = lo + (hi - lo) / 2;
        if ((unsigned long long)key(sorted[mid]) < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    below[q] = lo;
}

// Where diagonal `diag` of the merge of a (na items) and b (nb items) crosses a: how many of the
// first `diag` outputs come from a. Ties go to a, which keeps the merge stable. `ka(i)` and
// `kb(j)` give the ordered keys.
template <class KA, class KB>
__device__ __forceinline__ unsigned long long co_rank(unsigned long long diag, unsigned long long na,
                                                      unsigned long long nb, KA ka, KB kb) {
    unsigned long long lo = diag > nb ? diag - nb : 0, hi = diag < na ? diag : na;
    while (lo < hi) {
        const unsigned long long mid = lo + (hi - lo) / 2;
        if (ka(mid) <= kb(diag - 1 - mid))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

constexpr int MERGE_THREADS = 256;
constexpr int MERGE_ITEMS = 8;  // per thread: 2048 outputs per tile
constexpr int MERGE_TILE = MERGE_THREADS * MERGE_ITEMS;

// `tile` (MERGE_TILE items) and `bounds` (2 words) are the entry point's shared memory, declared
// there once rather than once per key order instantiation.
template <class S, bool FLOAT>
__device__ void merge(const typename S::Item *a, unsigned long long na, const typename S::Item *b,
                      unsigned long long nb, typename S::Item *out, int order, typename S::Item *tile,
                      unsigned long long *bounds) {
    using Item = typename S::Item;
    const radix::KeyOrder<S, FLOAT> key(order);
    const unsigned long long n = na + nb;
    // Grid-strided over the tiles, so any grid size is correct (merge.rs picks one per device).
    for (unsigned long long d0 = (unsigned long long)blockIdx.x * MERGE_TILE; d0 < n;
         d0 += (unsigned long long)gridDim.x * MERGE_TILE) {
        const unsigned long long d1 = d0 + MERGE_TILE < n ? d0 + MERGE_TILE : n;
        if (threadIdx.x < 2) {
            const unsigned long long diag = threadIdx.x == 0 ? d0 : d1;
            bounds[threadIdx.x] = co_rank(diag, na, nb, [&](unsigned long long i) { return key(a[i]); },
                                          [&](unsigned long long j) { return key(b[j]); });
        }
        __syncthreads();
        const unsigned long long a0 = bounds[0], a1 = bounds[1];
        const unsigned long long b0 = d0 - a0, b1 = d1 - a1;
        const unsigned la = (unsigned)(a1 - a0), lb = (unsigned)(b1 - b0);
        for (unsigned i = threadIdx.x; i < la; i += MERGE_THREADS) tile[i] = a[a0 + i];
        for (unsigned i = threadIdx.x; i < lb; i += MERGE_THREADS) tile[la + i] = b[b0 + i];
        __syncthreads();

        // This thread's stretch of the tile, merged from the staged slices into registers.
        const unsigned start = threadIdx.x * MERGE_ITEMS < la + lb ? threadIdx.x * MERGE_ITEMS : la + lb;
        unsigned i = (unsigned)co_rank(start, la, lb, [&](unsigned long long x) { return key(tile[x]); },
                                       [&](unsigned long long y) { return key(tile[la + y]); });
        unsigned j = start - i;
        Item mine[MERGE_ITEMS];
#pragma unroll
        for (int k = 0; k < MERGE_ITEMS; ++k) {
            const bool take_a = i < la && (j >= lb || key(tile[i]) <= key(tile[la + j]));
            mine[k] = take_a ? tile[i] : tile[la + (j < lb ? j : 0)];
            i += take_a;
            j += !take_a;
        }
        __syncthreads();  // every thread has read its inputs from the tile
#pragma unroll
        for (int k = 0; k < MERGE_ITEMS; ++k)
            if (start + k < la + lb) tile[start + k] = mine[k];
        __syncthreads();
        for (unsigned x = threadIdx.x; x < la + lb; x += MERGE_THREADS) out[d0 + x] = tile[x];
        __syncthreads();  // the tile and bounds are rewritten by the next one
    }
}

}  // namespace multi

#define MULTI_ENTRY_POINT(NAME, S)                                                                      \
    extern "C" __global__ void multi_count_below_##NAME(const S::Item *sorted, unsigned long long n,      \
                                                        int order, const unsigned long long *queries,    \
                                                        unsigned nq, unsigned long long *below) {        \
        radix::with_key_order<S>(order, [&](auto fl) {                                                   \
            multi::count_below<S, decltype(fl)::value>(sorted, n, order, queries, nq, below);            \
        });                                                                                              \
    }

#define MULTI_MERGE_ENTRY_POINT(NAME, S)                                                                \
    extern "C" __global__ void __launch_bounds__(multi::MERGE_THREADS)                                   \
        multi_merge_##NAME(const S::Item *a, unsigned long long na, const S::Item *b, unsigned long long nb, \
                           S::Item *out, int order) {                                                    \
        __shared__ S::Item tile[multi::MERGE_TILE];                                                      \
        __shared__ unsigned long long bounds[2];                                                         \
        radix::with_key_order<S>(order, [&](auto fl) {                                                   \
            multi::merge<S, decltype(fl)::value>(a, na, b, nb, out, order, tile, bounds);                \
        });                                                                                              \
    }

MULTI_ENTRY_POINT(kvp, radix::SortKvp)
MULTI_ENTRY_POINT(u32, radix::SortU32)
MULTI_ENTRY_POINT(u64, radix::SortU64)
MULTI_MERGE_ENTRY_POINT(kvp, radix::SortKvp)
MULTI_MERGE_ENTRY_POINT(u32, radix::SortU32)
MULTI_MERGE_ENTRY_POINT(u64, radix::SortU64)

