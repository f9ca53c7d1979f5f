// What the radix kernels sort and how they read keys: the constants every kernel shares (digit
// size, look-back status words, plan words), the sort descriptions (one struct per key and value
// layout), the order-preserving map of a key's bits (signed, float, descending), and small PTX
// helpers. The kernels themselves are in radix.cuh.
#pragma once

#include <type_traits>

#include "overlap.cuh"
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
// Bits: the key's raw bits; FLOATS: whether the key may be an IEEE float (ORDER_FLOAT);
// KEY_WORD: whether the key can be loaded without the rest of the item (load_bits).
// STAGE_IN_RANK: keys alone staged as they are ranked (StagedInRank below).
struct SortKvp {
    using Item = KvpItem;
    using Value = NoValue;
    using Bits = unsigned;
    static constexpr int PASSES = 4;
    static constexpr bool FLOATS = false;
    static constexpr bool RUNTIME_FLOAT = false;
    static constexpr bool KEY_WORD = true;  // the key can be loaded alone (RADIX_KEYS_FIRST)
    static constexpr bool FULL_TILE = RADIX_FULL_TILE_KVP;  // scatter full tiles unguarded (tuning.cuh)
    static constexpr bool FULL_PATH = RADIX_FULL_TILE_PATH_KVP;  // full tiles untested (tuning.cuh)
    static constexpr bool LOOKBACK_LATE = RADIX_LOOKBACK_LATE_KVP;  // look back after staging (tuning.cuh)
    static constexpr int LOOKBACK_BATCH = RADIX_LOOKBACK_BATCH_KVP;  // tuning.cuh
    static constexpr int GROUPED_MAX = RADIX_GROUPED_MAX_KVP;        // tuning.cuh
    static constexpr bool RANK_LEADER_ADD = RADIX_RANK_LEADER_ADD_KVP;  // tuning.cuh
    static constexpr int PREFETCH_TILES = RADIX_PREFETCH_TILES_KVP;  // tuning.cuh
    static constexpr bool HOLD_DIGITS = false;  // no values
    static constexpr bool JOINT_STAGING = false;  // no split values
    static constexpr bool B_INTERLEAVED = false;  // no split values
    static constexpr bool HIST_VECTOR = false;  // slower (tuning.cuh RADIX_HIST_VECTOR_KEYS)
    static constexpr bool SMALL_LEADER_ADD = RADIX_RANK_LEADER_ADD_KVP;  // the one-block sort's ranking
    static constexpr bool SMALL_LOAD_ALL = RADIX_SMALL_LOAD_ALL_KVP;  // tuning.cuh RADIX_SMALL_LOAD_ALL_*
    static constexpr bool COUNTS_REREAD = RADIX_COUNTS_REREAD_KVP;  // tuning.cuh
    static constexpr bool STAGE_IN_RANK = false;  // StagedInRank below
    static __device__ __forceinline__ Bits bits(const Item &x) { return x.key; }
    static __device__ __forceinline__ Bits load_bits(const Item *p) { return p->key; }
};

struct SortU32 {  // u32, i32 and f32 keys
    using Item = unsigned;
    using Value = NoValue;
    using Bits = unsigned;
    static constexpr int PASSES = 4;
    static constexpr bool FLOATS = true;
    static constexpr bool RUNTIME_FLOAT = false;  // FloatKeys sets it
    static constexpr bool KEY_WORD = false;
    static constexpr bool FULL_TILE = RADIX_FULL_TILE_KEYS;  // scatter full tiles unguarded (tuning.cuh)
    static constexpr bool FULL_PATH = RADIX_FULL_TILE_PATH_KEYS;  // full tiles untested (tuning.cuh)
    static constexpr bool LOOKBACK_LATE = RADIX_LOOKBACK_LATE_KEYS;  // look back after staging (tuning.cuh)
    static constexpr int LOOKBACK_BATCH = RADIX_LOOKBACK_BATCH_KEYS;  // tuning.cuh
    static constexpr int GROUPED_MAX = RADIX_GROUPED_MAX_KEYS;        // tuning.cuh
    static constexpr bool RANK_LEADER_ADD = RADIX_RANK_LEADER_ADD_KEYS;  // tuning.cuh
    static constexpr int PREFETCH_TILES = RADIX_PREFETCH_TILES_KEYS;  // tuning.cuh
    static constexpr bool HOLD_DIGITS = false;  // no values
    static constexpr bool JOINT_STAGING = false;  // no split values
    static constexpr bool B_INTERLEAVED = false;  // no split values
    static constexpr bool HIST_VECTOR = RADIX_HIST_VECTOR_KEYS;  // tuning.cuh
    static constexpr bool SMALL_LEADER_ADD = RADIX_SMALL_LEADER_ADD_KEYS;  // tuning.cuh RADIX_SMALL_LEADER_ADD_*
    static constexpr bool SMALL_LOAD_ALL = false;  // tuning.cuh RADIX_SMALL_LOAD_ALL_*
    static constexpr bool COUNTS_REREAD = RADIX_COUNTS_REREAD_KEYS;  // tuning.cuh
    static constexpr bool STAGE_IN_RANK = false;  // StagedInRank below
    static __device__ __forceinline__ Bits bits(Item x) { return x; }
};

struct SortPairsU32 {  // u32, i32 or f32 keys with u32 values
    using Item = unsigned;
    using Value = unsigned;
    using Bits = unsigned;
    static constexpr int PASSES = 4;
    static constexpr bool FLOATS = true;
    static constexpr bool RUNTIME_FLOAT = false;  // FloatKeys sets it
    static constexpr bool KEY_WORD = false;
    static constexpr bool FULL_TILE = RADIX_FULL_TILE_PAIRS;  // scatter full tiles unguarded (tuning.cuh)
    static constexpr bool FULL_PATH = RADIX_FULL_TILE_PATH_PAIRS;  // full tiles untested (tuning.cuh)
    static constexpr bool LOOKBACK_LATE = RADIX_LOOKBACK_LATE_PAIRS;  // look back after staging (tuning.cuh)
    static constexpr int LOOKBACK_BATCH = RADIX_LOOKBACK_BATCH_PAIRS;  // tuning.cuh
    static constexpr int GROUPED_MAX = RADIX_GROUPED_MAX_PAIRS;        // tuning.cuh
    static constexpr bool RANK_LEADER_ADD = RADIX_RANK_LEADER_ADD;  // tuning.cuh
    static constexpr int PREFETCH_TILES = RADIX_PREFETCH_TILES_PAIRS;  // tuning.cuh
    static constexpr bool HOLD_DIGITS = RADIX_HOLD_DIGITS_PAIRS;      // tuning.cuh
    static constexpr bool COUNTS_REREAD = RADIX_COUNTS_REREAD_PAIRS;  // tuning.cuh
    static constexpr bool STAGE_IN_RANK = false;  // StagedInRank below
    static constexpr bool JOINT_STAGING = false;  // JointStaged below
    static constexpr bool B_INTERLEAVED = false;  // JointStaged below
    static constexpr bool HIST_VECTOR = RADIX_HIST_VECTOR_PAIRS;  // tuning.cuh
    static constexpr bool SMALL_LEADER_ADD = RADIX_RANK_LEADER_ADD;  // the one-block sort's ranking
    static constexpr bool SMALL_LOAD_ALL = false;  // tuning.cuh RADIX_SMALL_LOAD_ALL_*
    static __device__ __forceinline__ Bits bits(Item x) { return x; }
};

struct SortU64 {  // u64, i64 and f64 keys
    using Item = unsigned long long;
    using Value = NoValue;
    using Bits = unsigned long long;
    static constexpr int PASSES = 8;
    static constexpr bool FLOATS = true;
    static constexpr bool RUNTIME_FLOAT = false;  // FloatKeys sets it
    static constexpr bool KEY_WORD = false;
    static constexpr bool FULL_TILE = RADIX_FULL_TILE_KEYS;  // scatter full tiles unguarded (tuning.cuh)
    static constexpr bool FULL_PATH = RADIX_FULL_TILE_PATH_KEYS;  // full tiles untested (tuning.cuh)
    static constexpr bool LOOKBACK_LATE = RADIX_LOOKBACK_LATE_KEYS;  // look back after staging (tuning.cuh)
    static constexpr int LOOKBACK_BATCH = RADIX_LOOKBACK_BATCH_KEYS;  // tuning.cuh
    static constexpr int GROUPED_MAX = RADIX_GROUPED_MAX_KEYS;        // tuning.cuh
    static constexpr bool RANK_LEADER_ADD = RADIX_RANK_LEADER_ADD_KEYS;  // tuning.cuh
    static constexpr int PREFETCH_TILES = RADIX_PREFETCH_TILES_KEYS;  // tuning.cuh
    static constexpr bool HOLD_DIGITS = false;  // no values
    static constexpr bool JOINT_STAGING = false;  // no split values
    static constexpr bool B_INTERLEAVED = false;  // no split values
    static constexpr bool HIST_VECTOR = false;  // untimed (tuning.cuh RADIX_HIST_VECTOR_KEYS)
    static constexpr bool SMALL_LEADER_ADD = RADIX_SMALL_LEADER_ADD_KEYS;  // tuning.cuh RADIX_SMALL_LEADER_ADD_*
    static constexpr bool SMALL_LOAD_ALL = RADIX_SMALL_LOAD_ALL_U64;  // tuning.cuh RADIX_SMALL_LOAD_ALL_*
    static constexpr bool COUNTS_REREAD = RADIX_COUNTS_REREAD_U64;  // tuning.cuh
    static constexpr bool STAGE_IN_RANK = false;  // StagedInRank below
    static __device__ __forceinline__ Bits bits(Item x) { return x; }
};

struct SortPairsU64 {  // u64, i64 or f64 keys with u32 values
    using Item = unsigned long long;
    using Value = unsigned;
    using Bits = unsigned long long;
    static constexpr int PASSES = 8;
    static constexpr bool FLOATS = true;
    static constexpr bool RUNTIME_FLOAT = false;  // FloatKeys sets it
    static constexpr bool KEY_WORD = false;
    static constexpr bool FULL_TILE = RADIX_FULL_TILE_PAIRS;  // scatter full tiles unguarded (tuning.cuh)
    static constexpr bool FULL_PATH = RADIX_FULL_TILE_PATH_PAIRS_U64;  // full tiles untested (tuning.cuh)
    static constexpr bool LOOKBACK_LATE = RADIX_LOOKBACK_LATE_PAIRS;  // look back after staging (tuning.cuh)
    static constexpr int LOOKBACK_BATCH = RADIX_LOOKBACK_BATCH_PAIRS;  // tuning.cuh
    static constexpr int GROUPED_MAX = RADIX_GROUPED_MAX_PAIRS;        // tuning.cuh
    static constexpr bool RANK_LEADER_ADD = RADIX_RANK_LEADER_ADD;  // tuning.cuh
    static constexpr int PREFETCH_TILES = RADIX_PREFETCH_TILES_PAIRS_U64;  // tuning.cuh
    static constexpr bool HOLD_DIGITS = RADIX_HOLD_DIGITS_PAIRS_U64;      // tuning.cuh
    static constexpr bool COUNTS_REREAD = RADIX_COUNTS_REREAD_PAIRS_U64;  // tuning.cuh
    static constexpr bool STAGE_IN_RANK = false;  // StagedInRank below
    static constexpr bool JOINT_STAGING = false;  // slower (tuning.cuh RADIX_JOINT_STAGING_PAIRS)
    static constexpr bool B_INTERLEAVED = false;  // two-round staging
    static constexpr bool HIST_VECTOR = false;     // slower (tuning.cuh RADIX_HIST_VECTOR_KEYS)
    static constexpr bool SMALL_LEADER_ADD = RADIX_RANK_LEADER_ADD;  // the one-block sort's ranking
    static constexpr bool SMALL_LOAD_ALL = false;  // tuning.cuh RADIX_SMALL_LOAD_ALL_*
    static __device__ __forceinline__ Bits bits(Item x) { return x; }
};

// The plain sort's entry points by key kind (radix.cu): IntKeys<S> (pairs of u32 and i32 keys)
// without the float path, FloatKeys<S> (32-bit keys alone of every type, f32 pairs, and every
// 64-bit key set) flipping floats by a run-time mask in the one body. A FLOAT instantiation of the
// sweep beside the integer one ran its passes 30% slower (H200, 64M keys: 470 against 359 us a
// pass, ncu), in a kernel of its own as well. Which body is faster depends on the block shape:
// at 512 x 16 the integer body sorted 64M u32 keys in 1.57 ms against 1.64 with the mask, at
// 384 x 24 (3 blocks, 56 registers) the masked body 1.425 ms against 2.11 (tuning.cuh). H200, 64M
// random keys, ms, session 17: split u32 pairs 2.26 -> 2.19 (IntKeys), f64 keys 4.78 -> 4.46,
// u64 keys with u32 values 5.48 -> 5.32 (FloatKeys). docs/tuning.md has the rest.
template <class S> struct IntKeys : S {
    static constexpr bool FLOATS = false;
};
template <class S> struct FloatKeys : S {
    static constexpr bool RUNTIME_FLOAT = true;
};

// Split pairs staged in one round, each value beside its key's slot (radix.cuh onesweep): the
// plain sort's large and huge u32 pairs sets, where tuning.cuh RADIX_JOINT_STAGING_PAIRS says so,
// and its mid set where RADIX_JOINT_STAGING_PAIRS_MID does too (PairsU32Mid below).
template <class S> struct JointStaged : S {
    static constexpr bool JOINT_STAGING = RADIX_JOINT_STAGING_PAIRS;
    // The scratch buffer as (key, value) items (radix.cuh onesweep; tuning.cuh RADIX_INTERLEAVE_B_PAIRS).
    static constexpr int B_INTERLEAVED = RADIX_JOINT_STAGING_PAIRS ? RADIX_INTERLEAVE_B_PAIRS : 0;
    static constexpr bool RANK_LEADER_ADD = RADIX_RANK_LEADER_ADD_PAIRS;  // tuning.cuh
    static constexpr bool SMALL_LEADER_ADD = RADIX_RANK_LEADER_ADD_PAIRS;  // the one-block sort's ranking
    static constexpr bool SMALL_LOAD_ALL = RADIX_SMALL_LOAD_ALL_PAIRS;  // tuning.cuh RADIX_SMALL_LOAD_ALL_*
};

// The huge 32-bit keys set (from src/tuning.rs RADIX_HUGE_FROM): an L2 prefetch distance of its
// own (tuning.cuh RADIX_PREFETCH_TILES_KEYS_HUGE).
template <class S> struct HugeKeys : S {
    static constexpr int PREFETCH_TILES = RADIX_PREFETCH_TILES_KEYS_HUGE;
};

// Keys alone staged one by one as their ranks are found, in shared memory of their own beside the
// warps' counters (radix.cuh onesweep), where tuning_tiles.cuh RADIX_STAGE_IN_RANK_KEYS says so.
// No rank is held in a register through the ranking, which leaves room for larger tiles.
template <class S, bool ON> struct StagedInRank : S {
    static_assert(!ON || sizeof(typename S::Value) == 1, "split values are staged after the ranking");
    static constexpr bool STAGE_IN_RANK = ON;
};

// The plain sort's sets of 32-bit keys alone from 8M (src/tuning.rs RADIX_MID_KEYS_BELOW; u32 and i32
// keys from 2.5M where these stage, RADIX_MID_U32_KEYS_BELOW_STAGED, read by src/cuda/radix/sets.rs from
// the twelfth word of radix_config_u32), the huge one from RADIX_HUGE_FROM.
using KeysU32 = StagedInRank<FloatKeys<SortU32>, RADIX_STAGE_IN_RANK_KEYS>;
using KeysU32Huge = StagedInRank<HugeKeys<FloatKeys<SortU32>>, RADIX_STAGE_IN_RANK_KEYS>;

// The mid split-pairs set (below src/tuning.rs RADIX_MID_KEYS_BELOW) staged in one round with
// items in the scratch, as the large set, where tuning.cuh RADIX_JOINT_STAGING_PAIRS_MID says so.
using PairsU32Mid = std::conditional_t<RADIX_JOINT_STAGING_PAIRS_MID, IntKeys<JointStaged<SortPairsU32>>,
                                       IntKeys<SortPairsU32>>;

template <class S> __host__ __device__ constexpr bool has_values() { return sizeof(typename S::Value) > 1; }

// Split pairs holding each slot's 64-bit output position for the value scatter, not its digit:
// the segmented sort's sweeps. With digits they spilled more (sm_90: 40 bytes against 28) and the
// report of 818ad5b showed 64M pairs in 256 segments at 2.45 ms against 2.34 before.
template <class S> struct PositionsHeld : S {
    static constexpr bool HOLD_DIGITS = false;
};


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
    __device__ __forceinline__ unsigned digit_of_bits(Bits b, int shift) const {
        return (unsigned)(ordered(b) >> shift) & (RADIX - 1);
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
