// Top-k on the device (radix select): the k first keys of an input in a sort order, found without
// sorting the input, then sorted as k pairs by the radix sort (src/cuda/select.rs runs the steps):
//   1. select_init:                 the search state (nothing known, rank k) and a zeroed histogram;
//   2. select_histogram, select_pick, once per 8-bit digit from the top: count the digits of the
//      keys whose higher digits match those found so far, then pick the digit that holds the
//      k-th key. After the last digit the state holds the k-th key's ordered bits, how many keys
//      order strictly before it (`less`) and how many of its equals make the top k (`remaining`);
//   3. select_count:  per tile, how many keys order before the k-th key and how many equal it;
//   4. select_scan:   exclusive prefixes of both counts over the tiles (one block);
//   5. select_write:  every chosen key and its input position, at its place among the chosen in
//      input order: (keys before it that order before the k-th key) + min(its equals before it,
//      remaining). Tiles with nothing to write stop after reading their counts, so for small k
//      this step reads almost nothing;
//   6. select_gather: after the sort of the chosen (key, slot) pairs, each slot's input position.
// Ties at the k-th key go to the earliest positions, and the stable sort of the chosen keys (in
// input order) keeps equal keys in input order: exactly the first k of a stable sort.
// No step waits for the host.
#include "policy_select.cuh"
#include "radix.cuh"  // the key order map and the digit scan (radix_rank.cuh)

namespace select_k {

using radix::KeyOrder;
using radix::RADIX;

// Search state, 32 bytes of device memory (select.rs allocates it with the histogram).
struct State {
    unsigned long long prefix;     // the k-th key's ordered bits found so far
    unsigned long long mask;       // which bits of `prefix` are found
    unsigned long long less;       // keys ordering strictly below every key that matches `prefix`
    unsigned long long remaining;  // the k-th key's rank (from 1) among the keys matching `prefix`
};

// Keys one load brings: 16 bytes.
template <class S> constexpr int VEC = 16 / sizeof(typename S::Item);

// Calls f(bits, valid) for every key of `keys`, one vector (or one key, where `keys` is not
// 16-byte aligned) per thread per step, grid-strided; the loop runs the same number of steps for
// every lane of a warp, so `f` may use warp collectives (lanes past the end pass valid = false).
template <class S, int THREADS, class F>
__device__ __forceinline__ void for_each_key(const typename S::Item *keys, unsigned long long n, F f) {
    using Item = typename S::Item;
    constexpr int V = VEC<S>;
    const unsigned long long stride = (unsigned long long)gridDim.x * THREADS;
    const unsigned long long warp_first = (unsigned long long)blockIdx.x * THREADS + (threadIdx.x & ~31u);
    const unsigned lane = threadIdx.x & 31;
    if (((unsigned long long)keys & 15) == 0) {
        const unsigned long long vectors = n / V;
        for (unsigned long long w = warp_first; w < vectors; w += stride) {
            const unsigned long long v = w + lane;
            Item x[V];
            if (v < vectors) {
                const uint4 raw = reinterpret_cast<const uint4 *>(keys)[v];
                memcpy(x, &raw, 16);
            }
#pragma unroll
            for (int e = 0; e < V; ++e) f(x[e], v < vectors);
        }
        // The last n % V keys, one per thread of the first block.
        if (blockIdx.x == 0 && threadIdx.x < 32) {
            const unsigned long long i = vectors * V + lane;
            f(i < n ? keys[i] : Item(0), i < n);
        }
    } else {
        for (unsigned long long w = warp_first; w < n; w += stride) {
            const unsigned long long i = w + lane;
            f(i < n ? keys[i] : Item(0), i < n);
        }
    }
}

template <class S, bool FLOAT, int THREADS>
__device__ void histogram(const typename S::Item *keys, unsigned long long n, int order, int shift,
                          const State *state, unsigned long long *hist) {
    using Bits = typename S::Bits;
    __shared__ unsigned counts[RADIX];
    for (int i = threadIdx.x; i < RADIX; i += THREADS) counts[i] = 0;
    __syncthreads();
    const KeyOrder<S, FLOAT> key(order);
    const Bits prefix = (Bits)state->prefix, mask = (Bits)state->mask;
    const unsigned lane = threadIdx.x & 31;
    for_each_key<S, THREADS>(keys, n, [&](const typename S::Item &x, bool valid) {
        const Bits b = key(x);
        // RADIX: not counted (past the end, or outside the prefix found so far).
        const unsigned d = valid && (b & mask) == prefix ? (unsigned)(b >> shift) & (RADIX - 1) : RADIX;
        // A warp whose keys share one digit (equal keys, sorted runs, and every later digit pass,
        // where most keys fall outside the prefix) adds once instead of 32 times to one counter.
        const unsigned first = __shfl_sync(0xffffffffu, d, 0);
        if (__all_sync(0xffffffffu, d == first)) {
            if (lane == 0 && first < RADIX) atomicAdd(&counts[first], 32u);
        } else if (d < RADIX) {
            atomicAdd(&counts[d], 1u);
        }
    });
    __syncthreads();
    for (int i = threadIdx.x; i < RADIX; i += THREADS)
        if (counts[i]) atomicAdd(&hist[i], (unsigned long long)counts[i]);
}

// One block of RADIX threads: finds the digit holding the k-th key, records it, and zeroes the
// histogram for the next digit.
__device__ void pick(unsigned long long *hist, State *state, int shift) {
    __shared__ unsigned long long warp_sums[RADIX / 32];
    const unsigned t = threadIdx.x;
    const unsigned long long c = hist[t];
    const unsigned long long rank = state->remaining;
    const unsigned long long before = radix::scan_digits(c, warp_sums);  // synchronizes the block
    if (before < rank && rank <= before + c) {  // exactly one digit holds the rank
        state->prefix |= (unsigned long long)t << shift;
        state->mask |= (unsigned long long)(RADIX - 1) << shift;
        state->less += before;
        state->remaining = rank - before;
    }
    hist[t] = 0;
}

// Which keys a tile chooses: those ordering before the k-th key, and its equals.
template <class S, bool FLOAT> struct Chooser {
    using Bits = typename S::Bits;
    KeyOrder<S, FLOAT> key;
    Bits kth;
    __device__ __forceinline__ Chooser(int order, const State *state) : key(order), kth((Bits)state->prefix) {}
    // (before, equal) as the high and low halves of one word, so one scan carries both.
    __device__ __forceinline__ unsigned long long classify(const typename S::Item &x) const {
        const Bits b = key(x);
        return b < kth ? (1ull << 32) : (b == kth ? 1ull : 0ull);
    }
};

// Tiles: THREADS threads, each ROUNDS vectors of VEC keys, vector (round r, thread t) at
// tile start + (r * THREADS + t) * VEC: coalesced loads, and input order is (round, thread, lane).
template <class S, int THREADS, int ROUNDS> __host__ __device__ constexpr unsigned long long tile_keys() {
    return (unsigned long long)THREADS * ROUNDS * VEC<S>;
}

// Loads the vector of round r of this thread; keys past n are classified as not chosen.
template <class S, int THREADS>
__device__ __forceinline__ void load_vector(const typename S::Item *keys, unsigned long long n,
                                            unsigned long long first, typename S::Item (&x)[VEC<S>],
                                            bool (&valid)[VEC<S>]) {
    constexpr int V = VEC<S>;
    if (first + V <= n && ((unsigned long long)(keys + first) & 15) == 0) {
        const uint4 raw = *reinterpret_cast<const uint4 *>(keys + first);
        memcpy(x, &raw, 16);
#pragma unroll
        for (int e = 0; e < V; ++e) valid[e] = true;
    } else {
#pragma unroll
        for (int e = 0; e < V; ++e) {
            valid[e] = first + e < n;
            x[e] = valid[e] ? keys[first + e] : typename S::Item(0);
        }
    }
}

template <class S, bool FLOAT, int THREADS, int ROUNDS>
__device__ void count(const typename S::Item *keys, unsigned long long n, int order, const State *state,
                      unsigned long long *tile_counts) {
    constexpr int V = VEC<S>;
    __shared__ unsigned long long warp_sums[THREADS / 32];
    const Chooser<S, FLOAT> choose(order, state);
    const unsigned long long start = blockIdx.x * tile_keys<S, THREADS, ROUNDS>();
    unsigned long long mine = 0;
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) {
        typename S::Item x[V];
        bool valid[V];
        load_vector<S, THREADS>(keys, n, start + ((unsigned long long)r * THREADS + threadIdx.x) * V, x, valid);
#pragma unroll
        for (int e = 0; e < V; ++e) mine += valid[e] ? choose.classify(x[e]) : 0;
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) mine += __shfl_xor_sync(0xffffffffu, mine, off);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = mine;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long total = 0;
        for (int w = 0; w < THREADS / 32; ++w) total += warp_sums[w];
        tile_counts[blockIdx.x] = total;
    }
}

// One block of THREADS: exclusive prefixes of the packed (before, equal) tile counts, each half
// widened to 64 bits: bases[2 t] before, bases[2 t + 1] equal. Each thread sums PER consecutive
// tiles, so one round covers THREADS * PER tiles (16K tiles: 64M u32 keys).
template <int THREADS, int PER>
__device__ void scan(const unsigned long long *tile_counts, unsigned long long tiles, unsigned long long *bases) {
    __shared__ unsigned long long warp_sums[2][THREADS / 32];
    __shared__ unsigned long long round_total[2];
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned long long carry_before = 0, carry_equal = 0;
    for (unsigned long long chunk = 0; chunk < tiles; chunk += (unsigned long long)THREADS * PER) {
        const unsigned long long first = chunk + (unsigned long long)threadIdx.x * PER;
        unsigned long long sb = 0, se = 0;
        for (int j = 0; j < PER; ++j) {
            const unsigned long long c = first + j < tiles ? tile_counts[first + j] : 0;
            sb += c >> 32;
            se += c & 0xffffffffu;
        }
        unsigned long long ib = sb, ie = se;
#pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            const unsigned long long yb = __shfl_up_sync(0xffffffffu, ib, off);
            const unsigned long long ye = __shfl_up_sync(0xffffffffu, ie, off);
            if (lane >= off) ib += yb, ie += ye;
        }
        if (lane == 31) warp_sums[0][warp] = ib, warp_sums[1][warp] = ie;
        __syncthreads();
        unsigned long long pb = carry_before + ib - sb, pe = carry_equal + ie - se;
        for (int w = 0; w < (int)warp; ++w) pb += warp_sums[0][w], pe += warp_sums[1][w];
        if (threadIdx.x == THREADS - 1) round_total[0] = pb + sb - carry_before, round_total[1] = pe + se - carry_equal;
        for (int j = 0; j < PER && first + j < tiles; ++j) {
            const unsigned long long c = tile_counts[first + j];
            bases[2 * (first + j)] = pb;
            bases[2 * (first + j) + 1] = pe;
            pb += c >> 32;
            pe += c & 0xffffffffu;
        }
        __syncthreads();
        carry_before += round_total[0];
        carry_equal += round_total[1];
        __syncthreads();  // warp_sums and round_total are rewritten by the next round
    }
}

template <class S, bool FLOAT, int THREADS, int ROUNDS>
__device__ void write(const typename S::Item *keys, unsigned long long n, int order, const State *state,
                      const unsigned long long *tile_counts, const unsigned long long *bases,
                      typename S::Item *out_keys, unsigned long long *out_positions, unsigned *out_slots) {
    constexpr int V = VEC<S>;
    __shared__ unsigned long long warp_sums[THREADS / 32];
    __shared__ unsigned long long round_total;
    const unsigned long long tile = blockIdx.x;
    const unsigned long long take = state->remaining;  // equals of the k-th key that are chosen
    unsigned long long before = bases[2 * tile], equal = bases[2 * tile + 1];
    const unsigned long long counts = tile_counts[tile];
    if ((counts >> 32) == 0 && ((counts & 0xffffffffu) == 0 || equal >= take)) return;  // nothing chosen here
    const Chooser<S, FLOAT> choose(order, state);
    const unsigned long long start = tile * tile_keys<S, THREADS, ROUNDS>();
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int r = 0; r < ROUNDS; ++r) {
        const unsigned long long first = start + ((unsigned long long)r * THREADS + threadIdx.x) * V;
        typename S::Item x[V];
        bool valid[V];
        load_vector<S, THREADS>(keys, n, first, x, valid);
        unsigned long long kinds[V], mine = 0;
#pragma unroll
        for (int e = 0; e < V; ++e) {
            kinds[e] = valid[e] ? choose.classify(x[e]) : 0;
            mine += kinds[e];
        }
        // Block-wide exclusive scan of the packed counts, in thread order.
        unsigned long long inclusive = mine;
#pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            const unsigned long long y = __shfl_up_sync(0xffffffffu, inclusive, off);
            if (lane >= off) inclusive += y;
        }
        if (lane == 31) warp_sums[warp] = inclusive;
        __syncthreads();
        unsigned long long prefix = inclusive - mine;
        for (int w = 0; w < (int)warp; ++w) prefix += warp_sums[w];
        if (threadIdx.x == THREADS - 1) round_total = prefix + mine;
        unsigned long long b = before + (prefix >> 32), q = equal + (prefix & 0xffffffffu);
#pragma unroll
        for (int e = 0; e < V; ++e) {
            unsigned long long place = ~0ull;
            if (kinds[e] >> 32) {
                place = b + (q < take ? q : take);
                ++b;
            } else if (kinds[e]) {
                if (q < take) place = b + q;
                ++q;
            }
            if (place != ~0ull) {
                out_keys[place] = x[e];
                out_positions[place] = first + e;
                out_slots[place] = (unsigned)place;
            }
        }
        __syncthreads();
        before += round_total >> 32;
        equal += round_total & 0xffffffffu;
        __syncthreads();  // round_total and warp_sums are rewritten by the next round
    }
}

}  // namespace select_k

// The tile shape (policy_select.cuh).
constexpr int SELECT_THREADS = policy::SELECT.threads;
constexpr int SELECT_ROUNDS = policy::SELECT.rounds;

extern "C" __global__ void __launch_bounds__(1)
    select_init(select_k::State *state, unsigned long long k, unsigned long long *hist) {
    *state = select_k::State{0, 0, 0, k};
    for (int i = 0; i < radix::RADIX; ++i) hist[i] = 0;
}

extern "C" __global__ void __launch_bounds__(radix::RADIX)
    select_pick(unsigned long long *hist, select_k::State *state, int shift) {
    select_k::pick(hist, state, shift);
}

extern "C" __global__ void __launch_bounds__(1024)
    select_scan(const unsigned long long *tile_counts, unsigned long long tiles, unsigned long long *bases) {
    select_k::scan<1024, 16>(tile_counts, tiles, bases);
}

extern "C" __global__ void select_gather(const unsigned *slots, const unsigned long long *positions,
                                         unsigned long long *out, unsigned long long k) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < k; i += stride)
        out[i] = positions[slots[i]];
}

// The tile size each key width uses (select.rs reads it to size the count and write launches).
extern "C" __device__ unsigned select_config[3] = {(unsigned)SELECT_THREADS, (unsigned)SELECT_ROUNDS, 16};

#define SELECT_ENTRY_POINTS(NAME, S)                                                                        \
    extern "C" __global__ void __launch_bounds__(SELECT_THREADS) select_histogram_##NAME(                      \
        const S::Item *keys, unsigned long long n, int order, int shift, const select_k::State *state,        \
        unsigned long long *hist) {                                                                          \
        radix::with_key_order<S>(order, [&](auto fl) {                                                       \
            select_k::histogram<S, decltype(fl)::value, SELECT_THREADS>(keys, n, order, shift, state, hist);  \
        });                                                                                                  \
    }                                                                                                        \
    extern "C" __global__ void __launch_bounds__(SELECT_THREADS) select_count_##NAME(                          \
        const S::Item *keys, unsigned long long n, int order, const select_k::State *state,                   \
        unsigned long long *tile_counts) {                                                                   \
        radix::with_key_order<S>(order, [&](auto fl) {                                                       \
            select_k::count<S, decltype(fl)::value, SELECT_THREADS, SELECT_ROUNDS>(keys, n, order, state,    \
                                                                                  tile_counts);             \
        });                                                                                                  \
    }                                                                                                        \
    extern "C" __global__ void __launch_bounds__(SELECT_THREADS) select_write_##NAME(                          \
        const S::Item *keys, unsigned long long n, int order, const select_k::State *state,                   \
        const unsigned long long *tile_counts, const unsigned long long *bases, S::Item *out_keys,            \
        unsigned long long *out_positions, unsigned *out_slots) {                                            \
        radix::with_key_order<S>(order, [&](auto fl) {                                                       \
            select_k::write<S, decltype(fl)::value, SELECT_THREADS, SELECT_ROUNDS>(                           \
                keys, n, order, state, tile_counts, bases, out_keys, out_positions, out_slots);              \
        });                                                                                                  \
    }

SELECT_ENTRY_POINTS(u32, radix::SortU32)
SELECT_ENTRY_POINTS(u64, radix::SortU64)
