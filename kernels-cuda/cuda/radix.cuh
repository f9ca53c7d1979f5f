// Stable LSD radix sort, 8-bit digits, Onesweep style (Adinets & Merrill 2022):
//   1. radix_histogram: one read of the keys counts every digit of every pass at once;
//   2. radix_prepare:   per pass, the global start of each digit and whether the pass can be
//                       skipped (one digit holds every key), plus which buffer each pass reads;
//   3. radix_onesweep:  per pass, one kernel: each block ranks a tile in shared memory, finds the
//                       tile's global offsets by a chained scan with decoupled look-back, stages the
//                       tile in digit order so the writes are coalesced, and scatters;
//   4. radix_copy_back: when an odd number of passes ran, the result is in the scratch buffer.
// radix_small sorts inputs of one tile in one block and one launch.
//
// Everything is templated on a sort description S (the item that moves in the key array, the
// optional separate value array, the key's order-preserving bits), so other key types are one
// more struct and one more macro line in radix.cu.
#pragma once

#include "tuning.cuh"

namespace radix {

constexpr int DIGIT_BITS = 8;
constexpr int RADIX = 1 << DIGIT_BITS;
constexpr int MAX_PASSES = 8;
// Ranks use one extra bin for the slots past the end of the input, so the last tile needs no
// separate code path: those slots rank after every real key and are never written.
constexpr unsigned PAST_END = RADIX;

// Look-back status word: 2 flag bits and a 30-bit count. A sweep over more than VALUE_MASK keys is
// split into portions (the host launches one kernel per portion; the per-digit base carries over).
constexpr unsigned FLAG_AGGREGATE = 1u << 30;
constexpr unsigned FLAG_INCLUSIVE = 2u << 30;
constexpr unsigned FLAG_MASK = 3u << 30;
constexpr unsigned VALUE_MASK = (1u << 30) - 1;

// Plan words written by radix_prepare: [0, 8) skip flags, [8, 16) 1 when the pass reads buffer B,
// [16] 1 when the result ends in buffer B.
constexpr int PLAN_SKIP = 0;
constexpr int PLAN_FROM_B = 8;
constexpr int PLAN_RESULT_IN_B = 16;
constexpr int PLAN_WORDS = 17;

struct NoValue {};

// Matches the Rust `Kvp` (two u32, key first); 8-byte aligned so a pair is one 64-bit access.
struct __align__(8) KvpItem {
    unsigned key, value;
};

// ---- sort descriptions ----------------------------------------------------------------------
// Item: what the key array holds; Value: the separate value array's element (NoValue: none);
// Bits: unsigned bits whose ascending order is the key's order.
struct SortKvp {
    using Item = KvpItem;
    using Value = NoValue;
    using Bits = unsigned;
    static constexpr int PASSES = 4;
    static __device__ __forceinline__ Bits bits(const Item &x) { return x.key; }
};

struct SortU32 {
    using Item = unsigned;
    using Value = NoValue;
    using Bits = unsigned;
    static constexpr int PASSES = 4;
    static __device__ __forceinline__ Bits bits(Item x) { return x; }
};

struct SortPairsU32 {
    using Item = unsigned;
    using Value = unsigned;
    using Bits = unsigned;
    static constexpr int PASSES = 4;
    static __device__ __forceinline__ Bits bits(Item x) { return x; }
};

template <class S> __host__ __device__ constexpr bool has_values() { return sizeof(typename S::Value) > 1; }

// Descending order sorts the inverted bits ascending: still stable, equal keys keep input order.
template <class S> __device__ __forceinline__ typename S::Bits order_mask(int descending) {
    return descending ? ~typename S::Bits(0) : typename S::Bits(0);
}

template <class S>
__device__ __forceinline__ unsigned digit_of(const typename S::Item &x, typename S::Bits mask, int shift) {
    return (unsigned)((S::bits(x) ^ mask) >> shift) & (RADIX - 1);
}

__device__ __forceinline__ unsigned lanemask_lt() {
    unsigned m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}

__device__ __forceinline__ unsigned load_relaxed(const unsigned *p) {
    unsigned v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void store_relaxed(unsigned *p, unsigned v) {
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// ---- warp-level ranking -----------------------------------------------------------------------
// Ranks ITEMS digits per lane (lane l's item i is the warp's (i * 32 + l)-th key, so input order
// is (i, lane)). counts[d] is this warp's running count of digit d (RADIX + 1 bins). Peers with the
// same digit are found with one ballot per digit bit instead of one shared atomic per key; the
// lowest peer bumps the counter, so no two lanes write the same word.
template <int ITEMS, class DigitOf>
__device__ __forceinline__ void warp_rank(DigitOf digit_of_item, unsigned (&rank)[ITEMS], unsigned *counts) {
    const unsigned below_me = lanemask_lt();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        // Recomputed from the item rather than kept: ITEMS fewer registers live through the pass.
        const unsigned d = digit_of_item(i);
        unsigned peers = 0xffffffffu;
#pragma unroll
        for (int b = 0; b <= DIGIT_BITS; ++b) {  // DIGIT_BITS + 1 bits: PAST_END is bin 256
            const bool set = (d >> b) & 1;
            const unsigned ballot = __ballot_sync(0xffffffffu, set);
            peers &= set ? ballot : ~ballot;
        }
        const unsigned before = counts[d];
        const unsigned ahead = __popc(peers & below_me);
        rank[i] = before + ahead;
        __syncwarp();
        if (ahead == 0) counts[d] = before + __popc(peers);
        __syncwarp();
    }
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

// ---- 1. histogram of every digit --------------------------------------------------------------
template <class S, int THREADS, int ITEMS>
__device__ void histogram(const typename S::Item *keys, unsigned long long n, int descending,
                          unsigned long long *hist) {
    __shared__ unsigned counts[S::PASSES * RADIX];
    for (int i = threadIdx.x; i < S::PASSES * RADIX; i += THREADS) counts[i] = 0;
    __syncthreads();
    const auto mask = order_mask<S>(descending);
    auto count = [&](const typename S::Item &x) {
        const auto b = S::bits(x) ^ mask;
#pragma unroll
        for (int p = 0; p < S::PASSES; ++p) atomicAdd(&counts[p * RADIX + ((unsigned)(b >> (p * DIGIT_BITS)) & 255)], 1u);
    };
    const unsigned long long stride = (unsigned long long)gridDim.x * THREADS;
    unsigned long long i = (unsigned long long)blockIdx.x * THREADS + threadIdx.x;
    // ITEMS loads in flight before the first atomic.
    for (; i + (ITEMS - 1) * stride < n; i += ITEMS * stride) {
        typename S::Item x[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) x[k] = keys[i + k * stride];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) count(x[k]);
    }
    for (; i < n; i += stride) count(keys[i]);
    __syncthreads();
    for (int k = threadIdx.x; k < S::PASSES * RADIX; k += THREADS)
        if (counts[k]) atomicAdd(&hist[k], (unsigned long long)counts[k]);
}

// ---- 2. plan -------------------------------------------------------------------------------------
// One block of RADIX threads. bases: [passes][2][RADIX], slot 0 of each pass gets the digit starts.
__device__ void prepare(const unsigned long long *hist, int passes, unsigned long long n, unsigned *plan,
                        unsigned long long *bases) {
    __shared__ unsigned long long warp_sums[RADIX / 32];
    __shared__ unsigned skip[MAX_PASSES];
    const int t = threadIdx.x;
    for (int p = 0; p < passes; ++p) {
        const unsigned long long c = hist[p * RADIX + t];
        const int all_one_digit = __syncthreads_or(c == n);
        const unsigned long long start = scan_digits(c, warp_sums);
        bases[(p * 2) * RADIX + t] = start;
        if (t == 0) skip[p] = all_one_digit;
        __syncthreads();  // warp_sums is reused by the next pass
    }
    if (t == 0) {
        unsigned in_b = 0;
        for (int p = 0; p < MAX_PASSES; ++p) {
            const bool run = p < passes && !skip[p];
            plan[PLAN_SKIP + p] = !run;
            plan[PLAN_FROM_B + p] = in_b;
            if (run) in_b ^= 1;
        }
        plan[PLAN_RESULT_IN_B] = in_b;
    }
}

// ---- 3. one digit pass ----------------------------------------------------------------------------
template <class S, int THREADS, int ITEMS> struct SweepShared {
    static constexpr int WARPS = THREADS / 32, TILE = THREADS * ITEMS;
    using V = typename S::Value;
    union {
        unsigned warp_counts[WARPS][RADIX + 1];
        typename S::Item keys[TILE];
        V values[has_values<S>() ? TILE : 1];
    };
    unsigned tile_start[RADIX];            // tile-local start of each digit
    unsigned long long out_offset[RADIX];  // global position of tile-local slot 0 of each digit
    unsigned warp_sums[RADIX / 32];
    unsigned tile;
};

template <class S, int THREADS, int ITEMS>
__device__ void onesweep(const unsigned *plan, int pass, int descending, typename S::Item *keys_a,
                         typename S::Item *keys_b, typename S::Value *values_a, typename S::Value *values_b,
                         unsigned long long portion_begin, unsigned portion_len, unsigned *status,
                         unsigned *status_next, unsigned long long status_words, unsigned *tile_counter,
                         const unsigned long long *base_in, unsigned long long *base_out) {
    static_assert(THREADS >= RADIX && THREADS % 32 == 0, "one thread per digit");
    using Item = typename S::Item;
    using Value = typename S::Value;
    constexpr int WARPS = THREADS / 32, TILE = THREADS * ITEMS, WARP_TILE = 32 * ITEMS;
    constexpr bool VALUES = has_values<S>();
    __shared__ SweepShared<S, THREADS, ITEMS> sh;

    // The next launch's status words were last used two launches ago (finished, same stream):
    // clearing them here saves a memset launch per pass. Skipped passes clear them too.
    {
        const unsigned long long lo = (unsigned long long)blockIdx.x * RADIX;
        const unsigned long long hi = blockIdx.x + 1 == gridDim.x ? status_words : lo + RADIX;
        for (unsigned long long i = lo + threadIdx.x; i < hi; i += THREADS) status_next[i] = 0;
    }
    if (plan[PLAN_SKIP + pass]) return;
    const bool from_b = plan[PLAN_FROM_B + pass];
    const Item *src = (from_b ? keys_b : keys_a) + portion_begin;
    Item *dst = from_b ? keys_a : keys_b;
    const Value *vsrc = VALUES ? (from_b ? values_b : values_a) + portion_begin : nullptr;
    Value *vdst = from_b ? values_a : values_b;
    const auto mask = order_mask<S>(descending);
    const int shift = pass * DIGIT_BITS;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;

    // Tiles are numbered in the order blocks start, so every tile this one waits for in the
    // look-back is already running or done: no deadlock whatever order the hardware schedules.
    if (t == 0) sh.tile = atomicAdd(tile_counter, 1u);
    for (int i = t; i < WARPS * (RADIX + 1); i += THREADS) (&sh.warp_counts[0][0])[i] = 0;
    __syncthreads();
    const unsigned tile = sh.tile;
    const unsigned tile_begin = tile * TILE;
    const unsigned tile_len = min((unsigned)TILE, portion_len - tile_begin);
    const unsigned last_tile = (portion_len - 1) / TILE;

    Item item[ITEMS];
    Value value[ITEMS];
    const unsigned warp_begin = tile_begin + warp * WARP_TILE + lane;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const unsigned idx = warp_begin + i * 32;
        if (idx < portion_len) {
            item[i] = src[idx];
            if constexpr (VALUES) value[i] = vsrc[idx];
        }
    }
    auto digit = [&](int i) {
        return warp_begin + i * 32 < portion_len ? digit_of<S>(item[i], mask, shift) : PAST_END;
    };

    unsigned rank[ITEMS];  // rank among the warp's equal digits, then the tile-local slot
    warp_rank<ITEMS>(digit, rank, sh.warp_counts[warp]);
    __syncthreads();

    // Per digit: warp counts -> exclusive per-warp starts, tile count; publish it at once so the
    // tiles after this one can move on.
    unsigned count = 0;
    if (t < RADIX) {
        unsigned sum = 0;
#pragma unroll
        for (int w = 0; w < WARPS; ++w) {
            const unsigned c = sh.warp_counts[w][t];
            sh.warp_counts[w][t] = sum;
            sum += c;
        }
        count = sum;
        store_relaxed(&status[(size_t)tile * RADIX + t], (tile == 0 ? FLAG_INCLUSIVE : FLAG_AGGREGATE) | count);
    }
    const unsigned start = scan_digits(count, sh.warp_sums);
    if (t < RADIX) {
        sh.tile_start[t] = start;
        unsigned before = 0;
        if (tile > 0) {
            for (unsigned j = tile - 1;; --j) {
                unsigned s;
                do {
                    s = load_relaxed(&status[(size_t)j * RADIX + t]);
                } while (!(s & FLAG_MASK));
                before += s & VALUE_MASK;
                if (s & FLAG_INCLUSIVE) break;
            }
            store_relaxed(&status[(size_t)tile * RADIX + t], FLAG_INCLUSIVE | (before + count));
        }
        const unsigned long long global = base_in[t] + before;
        sh.out_offset[t] = global - start;  // wraps for digits before `start`; the add below wraps back
        if (tile == last_tile) base_out[t] = global + count;
    }
    __syncthreads();

#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const unsigned d = digit(i);
        if (d != PAST_END) rank[i] += sh.tile_start[d] + sh.warp_counts[warp][d];
    }
    __syncthreads();  // the counters' memory becomes the staging buffer
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
        if (warp_begin + i * 32 < portion_len) sh.keys[rank[i]] = item[i];
    __syncthreads();

    unsigned long long where[VALUES ? ITEMS : 1];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const unsigned j = k * THREADS + t;
        if (j < tile_len) {
            const Item x = sh.keys[j];
            const unsigned long long o = sh.out_offset[digit_of<S>(x, mask, shift)] + j;
            dst[o] = x;
            if constexpr (VALUES) where[k] = o;
        }
    }
    if constexpr (VALUES) {
        __syncthreads();
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
            if (warp_begin + i * 32 < portion_len) sh.values[rank[i]] = value[i];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const unsigned j = k * THREADS + t;
            if (j < tile_len) vdst[where[k]] = sh.values[j];
        }
    }
}

// ---- 4. result back into the caller's buffer ---------------------------------------------------
__device__ void copy_back(const unsigned *plan, const unsigned *src, unsigned *dst, unsigned long long words) {
    if (!plan[PLAN_RESULT_IN_B]) return;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if ((((size_t)src | (size_t)dst) & 15) == 0) {
        const unsigned long long quads = words / 4;
        for (unsigned long long q = i; q < quads; q += stride)
            reinterpret_cast<uint4 *>(dst)[q] = reinterpret_cast<const uint4 *>(src)[q];
        for (unsigned long long w = quads * 4 + i; w < words; w += stride) dst[w] = src[w];
    } else {
        for (; i < words; i += stride) dst[i] = src[i];
    }
}

// ---- small inputs: one block, everything in shared memory ------------------------------------
template <class S, int THREADS, int ITEMS> __host__ __device__ constexpr size_t small_shared_bytes() {
    return sizeof(unsigned) * (THREADS / 32) * (RADIX + 1) + sizeof(unsigned) * (RADIX + RADIX / 32) +
           sizeof(typename S::Item) * THREADS * ITEMS + (has_values<S>() ? sizeof(typename S::Value) * THREADS * ITEMS : 0);
}

template <class S, int THREADS, int ITEMS>
__device__ void small_sort(typename S::Item *keys, typename S::Value *values, unsigned n, int descending) {
    using Item = typename S::Item;
    using Value = typename S::Value;
    constexpr int WARPS = THREADS / 32, TILE = THREADS * ITEMS, WARP_TILE = 32 * ITEMS;
    constexpr bool VALUES = has_values<S>();
    extern __shared__ __align__(16) unsigned char smem[];
    // Items first: the 8-byte ones need the alignment.
    Item *stage = reinterpret_cast<Item *>(smem);
    Value *vstage = reinterpret_cast<Value *>(stage + TILE);
    unsigned *counts = reinterpret_cast<unsigned *>(smem + sizeof(Item) * TILE + (VALUES ? sizeof(Value) * TILE : 0));
    unsigned *tile_start = counts + WARPS * (RADIX + 1);
    unsigned *warp_sums = tile_start + RADIX;

    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const auto mask = order_mask<S>(descending);
    for (unsigned j = t; j < n; j += THREADS) {
        stage[j] = keys[j];
        if constexpr (VALUES) vstage[j] = values[j];
    }
    const unsigned warp_begin = warp * WARP_TILE + lane;
    for (int pass = 0; pass < S::PASSES; ++pass) {
        const int shift = pass * DIGIT_BITS;
        for (int i = t; i < WARPS * (RADIX + 1); i += THREADS) counts[i] = 0;
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
        auto digit = [&](int i) { return warp_begin + i * 32 < n ? digit_of<S>(item[i], mask, shift) : PAST_END; };
        unsigned *my_counts = counts + warp * (RADIX + 1);
        warp_rank<ITEMS>(digit, rank, my_counts);
        __syncthreads();
        unsigned count = 0;
        if (t < RADIX) {
            unsigned sum = 0;
            for (int w = 0; w < WARPS; ++w) {
                const unsigned c = counts[w * (RADIX + 1) + t];
                counts[w * (RADIX + 1) + t] = sum;
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
                const unsigned slot = tile_start[d] + my_counts[d] + rank[i];
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
