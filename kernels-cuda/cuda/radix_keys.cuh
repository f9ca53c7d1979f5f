// What the radix kernels sort and how they read keys: the constants every kernel shares (digit
// size, look-back status words, plan words), the sort descriptions (one struct per key and value
// layout), the order-preserving map of a key's bits (signed, float, descending), and small PTX
// helpers. The kernels themselves are in radix.cuh.
#pragma once

#include <type_traits>

#include "overlap.cuh"
#include "policy_radix.cuh"

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

// Plan words written by radix_prepare: [0, 8) skip flags, [8, 16) the passes that run before each
// pass, [16] the passes that run. A pass reads buffer B when an odd number ran before it, and the
// result ends in B when an odd number ran; a second item buffer takes the place of A between the
// first and the last running pass (radix.cuh onesweep).
constexpr int PLAN_SKIP = 0;
constexpr int PLAN_BEFORE = 8;
constexpr int PLAN_RUNNING = 16;
constexpr int PLAN_WORDS = 17;

struct NoValue {};

// Matches the Rust `Kvp` (two u32, key first); 8-byte aligned so a pair is one 64-bit access.
struct __align__(8) KvpItem {
    unsigned key, value;
};

// ---- sort descriptions ----------------------------------------------------------------------
// Item: what the key array holds; Value: the separate value array's element (NoValue: none);
// Bits: the key's raw bits; FLOATS: whether the key may be an IEEE float (ORDER_FLOAT). How a kernel
// set sorts them (the S:: tuning members) comes from its policy (Tuned below).
struct SortKvp {
    using Item = KvpItem;
    using Value = NoValue;
    using Bits = unsigned;
    static constexpr int PASSES = 4;
    static constexpr bool FLOATS = false;
    static constexpr bool RUNTIME_FLOAT = false;
    static __device__ __forceinline__ Bits bits(const Item &x) { return x.key; }
};

struct SortU32 {  // u32, i32 and f32 keys
    using Item = unsigned;
    using Value = NoValue;
    using Bits = unsigned;
    static constexpr int PASSES = 4;
    static constexpr bool FLOATS = true;
    static constexpr bool RUNTIME_FLOAT = false;  // FloatKeys sets it
    static __device__ __forceinline__ Bits bits(Item x) { return x; }
};

struct SortPairsU32 {  // u32, i32 or f32 keys with u32 values
    using Item = unsigned;
    using Value = unsigned;
    using Bits = unsigned;
    static constexpr int PASSES = 4;
    static constexpr bool FLOATS = true;
    static constexpr bool RUNTIME_FLOAT = false;  // FloatKeys sets it
    static __device__ __forceinline__ Bits bits(Item x) { return x; }
};

struct SortU64 {  // u64, i64 and f64 keys
    using Item = unsigned long long;
    using Value = NoValue;
    using Bits = unsigned long long;
    static constexpr int PASSES = 8;
    static constexpr bool FLOATS = true;
    static constexpr bool RUNTIME_FLOAT = false;  // FloatKeys sets it
    static __device__ __forceinline__ Bits bits(Item x) { return x; }
};

struct SortPairsU64 {  // u64, i64 or f64 keys with u32 values
    using Item = unsigned long long;
    using Value = unsigned;
    using Bits = unsigned long long;
    static constexpr int PASSES = 8;
    static constexpr bool FLOATS = true;
    static constexpr bool RUNTIME_FLOAT = false;  // FloatKeys sets it
    static __device__ __forceinline__ Bits bits(Item x) { return x; }
};

// 8- and 16-bit keys (u8, i8; u16, i16, f16, bf16) at their own width, alone or with u32 values:
// one digit pass per byte.
template <class K, class V> struct SortNarrow {
    using Item = K;
    using Value = V;
    using Bits = K;
    static constexpr int PASSES = sizeof(K);
    static constexpr bool FLOATS = sizeof(K) == 2;  // f16 and bf16
    static constexpr bool RUNTIME_FLOAT = false;    // FloatKeys sets it
    static __device__ __forceinline__ Bits bits(Item x) { return x; }
};

// The plain sort's entry points by key kind (radix.cu): IntKeys<S> (pairs of u32 and i32 keys,
// the mid u32 keys set) without the float path, FloatKeys<S> (32-bit keys alone of every type, f32
// pairs, and every 64-bit key set) flipping floats by a run-time mask in the one body: a FLOAT
// instantiation beside the integer one ran the passes slower, and which body is faster depends on
// the block shape (docs/tuning.md).
template <class S> struct IntKeys : S {
    static constexpr bool FLOATS = false;
};
template <class S> struct FloatKeys : S {
    static constexpr bool RUNTIME_FLOAT = true;
};

// A kernel set: layout L sorted as policy_radix.cuh's policy for set ID says (the members
// radix_onesweep.cuh, radix_rank.cuh, radix_histogram.cuh and radix_small.cuh read). ARGSORT: the
// sweep of an argsort (radix_onesweep.cuh): positions made by the first pass, written by the last
// one in the caller's width, the caller's keys only read.
template <class L, policy::Set ID, bool ARGSORT_ = false> struct Tuned : L {
    static constexpr bool ARGSORT = ARGSORT_;
    static constexpr policy::SweepPolicy P = policy::sweep(ID);
    static constexpr int THREADS = P.threads;
    static constexpr int ITEMS = P.items;
    static constexpr int BLOCKS = P.blocks;
    static constexpr bool FULL_TILE = P.full_tile;
    static constexpr bool FULL_PATH = P.full_path;
    static constexpr bool LOOKBACK_LATE = P.lookback_late;
    static constexpr int LOOKBACK_BATCH = P.lookback_batch;
    static constexpr int GROUPED_MAX = P.grouped_max;
    static constexpr bool RANK_LEADER_ADD = P.leader_add;
    static constexpr int PREFETCH_TILES = P.prefetch_tiles;
    static constexpr bool HOLD_DIGITS = P.hold_digits;
    static constexpr bool JOINT_STAGING = P.joint_staging;
    static constexpr int B_INTERLEAVED = P.interleave;
    static constexpr bool HIST_VECTOR = P.hist_vector;
    static constexpr bool SMALL_LEADER_ADD = P.small_leader_add;
    static constexpr bool SMALL_LOAD_ALL = P.small_load_all;
    static constexpr bool COUNTS_REREAD = P.counts_reread;
    static constexpr bool STAGE_IN_RANK = P.stage_in_rank;
    static_assert(!STAGE_IN_RANK || sizeof(typename L::Value) == 1, "split values are staged after the ranking");
    static_assert(!(JOINT_STAGING || B_INTERLEAVED) || sizeof(typename L::Value) > 1, "only split pairs stage jointly");
};

// The plain sort's kernel sets (radix.cu) and the segmented sort's (radix_segments.cuh).
using Kvp = Tuned<SortKvp, policy::Set::Kvp>;
using KvpMid = Tuned<SortKvp, policy::Set::KvpMid>;
using KvpHuge = Tuned<SortKvp, policy::Set::KvpHuge>;
using KeysU32 = Tuned<FloatKeys<SortU32>, policy::Set::U32>;
using KeysU32Huge = Tuned<FloatKeys<SortU32>, policy::Set::U32Huge>;
using KeysU32Mid = Tuned<IntKeys<SortU32>, policy::Set::U32Mid>;
using KeysU64Mid = Tuned<FloatKeys<SortU64>, policy::Set::U64Mid>;
using PairsU32 = Tuned<IntKeys<SortPairsU32>, policy::Set::PairsU32>;
using PairsU32Huge = Tuned<IntKeys<SortPairsU32>, policy::Set::PairsU32Huge>;
using PairsU32Mid = Tuned<IntKeys<SortPairsU32>, policy::Set::PairsU32Mid>;
using PairsF32 = Tuned<FloatKeys<SortPairsU32>, policy::Set::PairsF32>;
using KeysU64 = Tuned<FloatKeys<SortU64>, policy::Set::U64>;
using PairsU64 = Tuned<FloatKeys<SortPairsU64>, policy::Set::PairsU64>;
using Keys16 = Tuned<FloatKeys<SortNarrow<unsigned short, NoValue>>, policy::Set::Keys16>;
using Pairs16 = Tuned<FloatKeys<SortNarrow<unsigned short, unsigned>>, policy::Set::Pairs16>;
using Argsort16 = Tuned<FloatKeys<SortNarrow<unsigned short, unsigned>>, policy::Set::Pairs16, true>;
using Keys8 = Tuned<IntKeys<SortNarrow<unsigned char, NoValue>>, policy::Set::Keys8>;
using Pairs8 = Tuned<IntKeys<SortNarrow<unsigned char, unsigned>>, policy::Set::Pairs8>;
using Argsort8 = Tuned<IntKeys<SortNarrow<unsigned char, unsigned>>, policy::Set::Pairs8, true>;
using SegmentKeysU32 = Tuned<SortU32, policy::Set::SegmentU32>;
using SegmentPairsU32 = Tuned<SortPairsU32, policy::Set::SegmentPairsU32>;

template <class S> __host__ __device__ constexpr bool has_values() { return sizeof(typename S::Value) > 1; }

// The kernels' `order` argument: how a key's bits map to its place in the order.
constexpr int ORDER_DESCENDING = 1;  // sort the inverted bits ascending: still stable
constexpr int ORDER_SIGNED = 2;      // two's complement: flip the sign bit
constexpr int ORDER_FLOAT = 4;       // IEEE: flip the sign bit of positives, every bit of negatives,
                                     // which orders as f32::total_cmp (-NaN < -inf < -0 < +0 < NaN)

// Maps an item to unsigned bits whose ascending order is the wanted order. FLOAT is a template
// parameter so that the other key types pay nothing for it.
template <class S, bool FLOAT> struct KeyOrder {
    using Bits = typename S::Bits;
    static constexpr Bits SIGN = Bits(1) << (sizeof(Bits) * 8 - 1);
    // S::RUNTIME_FLOAT (FloatKeys): float keys flip by a mask chosen at run time (all ones for
    // floats, 0 otherwise) in the one kernel body, not in a second, FLOAT instantiation of it.
    static constexpr bool RUNTIME_FLOAT = S::RUNTIME_FLOAT && S::FLOATS;
    Bits xor_mask, float_mask;
    __device__ __forceinline__ explicit KeyOrder(int order)
        : xor_mask((order & ORDER_DESCENDING ? ~Bits(0) : Bits(0)) ^ (order & ORDER_SIGNED ? SIGN : Bits(0))),
          float_mask(RUNTIME_FLOAT && (order & ORDER_FLOAT) ? ~Bits(0) : Bits(0)) {}
    __device__ __forceinline__ Bits ordered(Bits b) const {
        if constexpr (FLOAT) b ^= (b & SIGN) ? ~Bits(0) : SIGN;
        if constexpr (RUNTIME_FLOAT) {
            using Signed = std::make_signed_t<Bits>;
            b ^= ((Bits)((Signed)b >> (sizeof(Bits) * 8 - 1)) | SIGN) & float_mask;
        }
        return b ^ xor_mask;
    }
    __device__ __forceinline__ Bits operator()(const typename S::Item &x) const { return ordered(S::bits(x)); }
    __device__ __forceinline__ unsigned digit(const typename S::Item &x, int shift) const {
        return (unsigned)((*this)(x) >> shift) & (RADIX - 1);
    }
};

// Runs body(std::true_type) for float keys, body(std::false_type) otherwise; only sort
// descriptions that take floats instantiate the float path, and those with RUNTIME_FLOAT do not
// (their KeyOrder flips floats in the one body).
template <class S, class Body> __device__ __forceinline__ void with_key_order(int order, Body body) {
    if constexpr (S::FLOATS && !S::RUNTIME_FLOAT) {
        if (order & ORDER_FLOAT) {
            body(std::true_type{});
            return;
        }
    }
    body(std::false_type{});
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

// Asks L2 to fetch `bytes` from p: a hint, nothing waits for it (sm_90 on; nothing before).
__device__ __forceinline__ void prefetch_l2(const void *p, unsigned bytes) {
#if __CUDA_ARCH__ >= 900
    // The bulk form wants a 16-byte aligned address and a multiple of 16 bytes.
    const size_t a = (size_t)p, lo = (a + 15) & ~(size_t)15, hi = (a + bytes) & ~(size_t)15;
    if (hi > lo) asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(lo), "r"((unsigned)(hi - lo)) : "memory");
#endif
}

}  // namespace radix
