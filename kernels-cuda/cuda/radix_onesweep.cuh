// Step 3 of the radix sort (radix.cuh): one digit pass. Each block ranks a tile in shared memory,
// finds the tile's global offsets by a chained scan with decoupled look-back, stages the tile in
// digit order so the writes are coalesced, and scatters. The segmented sort (radix_segments.cuh)
// runs the same pass over chains of its own.
#pragma once

#include "radix_keys.cuh"
#include "radix_lookback.cuh"
#include "radix_rank.cuh"

namespace radix {

// ---- 3. one digit pass ----------------------------------------------------------------------------
template <class S, int THREADS, int ITEMS> struct SweepShared {
    static constexpr int WARPS = THREADS / 32, TILE = THREADS * ITEMS;
    static constexpr bool JOINT = has_values<S>() && S::JOINT_STAGING;
    using V = typename S::Value;
    // The staged keys take the counters' memory once the ranking is done, or with
    // S::STAGE_IN_RANK memory of their own, since they are staged while the counters are in use.
    static constexpr bool KEYS_APART = S::STAGE_IN_RANK;
    union {
        unsigned warp_bins[WARPS][BIN_WORDS];
        typename S::Item keys_after_rank[KEYS_APART ? 1 : TILE];
        V values[has_values<S>() ? TILE : 1];
    };
    V joint_values[JOINT ? TILE : 1];  // S::JOINT_STAGING: the values, staged with the keys
    unsigned tile_start[RADIX];            // tile-local start of each digit
    unsigned tile_count[RADIX];            // S::LOOKBACK_LATE: this tile's count of each digit
    unsigned long long out_offset[RADIX];  // global position of tile-local slot 0 of each digit
    unsigned warp_sums[RADIX / 32];
    unsigned warp_grouped[WARPS];  // S::GROUPED_MAX: this warp ranks with match
    unsigned tile;
    typename S::Item keys_apart[KEYS_APART ? TILE : 1];  // last, so the other members keep their offsets
    __device__ __forceinline__ typename S::Item *keys() { return KEYS_APART ? keys_apart : keys_after_rank; }
};

// One block of shared memory per sweep shape, which a kernel's float and integer instantiations
// share (declared inside the function, each got its own: 39 KB instead of 19.5 for the u32 kernels).
template <class S, int THREADS, int ITEMS> __shared__ SweepShared<S, THREADS, ITEMS> sweep_shared;

// Static shared memory stops at 48 KB. A sweep shape that needs more (policy_radix.cuh) takes it as
// dynamic shared memory, which the launch asks the driver for per kernel (src/cuda/radix/launch.rs
// reads this from radix_config_<name>); 0 for the shapes that fit statically.
constexpr size_t STATIC_SHARED_LIMIT = 48 * 1024;
template <class S, int THREADS, int ITEMS> __host__ __device__ constexpr unsigned sweep_dynamic_bytes() {
    constexpr size_t bytes = sizeof(SweepShared<S, THREADS, ITEMS>);
    return bytes > STATIC_SHARED_LIMIT ? (unsigned)bytes : 0u;
}

template <class S, int THREADS, int ITEMS> __device__ __forceinline__ SweepShared<S, THREADS, ITEMS> &sweep_storage() {
    if constexpr (sweep_dynamic_bytes<S, THREADS, ITEMS>() > 0) {
        extern __shared__ __align__(16) unsigned char sweep_dynamic[];
        return *reinterpret_cast<SweepShared<S, THREADS, ITEMS> *>(sweep_dynamic);
    } else {
        return sweep_shared<S, THREADS, ITEMS>;
    }
}

// One block's share of a digit pass: the tile it claims and that tile's items, with the steps of
// the pass as members. onesweep below runs them in order; each step's S:: member picks its variant.
// Every warp first counts its digits, the block publishes the tile's counts and the warps' counters
// start at their tile slots, so the ranks come out final and the look-back can wait until the tiles
// before this one have long published theirs.
template <class S, bool FLOAT, int THREADS, int ITEMS, class Tiles> struct OnesweepAgent {
    static_assert(THREADS >= RADIX && THREADS % 32 == 0, "one thread per digit");
    using Item = typename S::Item;
    using Value = typename S::Value;
    using Shared = SweepShared<S, THREADS, ITEMS>;
    static constexpr int WARPS = THREADS / 32, TILE = THREADS * ITEMS, WARP_TILE = 32 * ITEMS;
    static constexpr bool VALUES = has_values<S>();
    // S::STAGE_IN_RANK (the sweep policy's stage_in_rank): each key goes to its tile slot
    // as soon as the ranking finds it, which the early counts make final.
    static_assert(!S::STAGE_IN_RANK || !VALUES, "keys alone are staged as they are ranked");
    // S::B_INTERLEAVED (split u32 pairs): buffer B holds (key, value) items, so the passes that read
    // A write 8-byte items as a Kvp sort does and the passes that read B load them as items. (The
    // two as separate instantiations in one kernel spilled 448 bytes, sm_90.)
    static constexpr bool MIXED = S::B_INTERLEAVED != 0;
    static_assert(!MIXED || (sizeof(Item) == 4 && sizeof(Value) == 4), "B interleaves 32-bit pairs");
    // S::JOINT_STAGING: each value goes to shared memory with its key, one scatter loop for both.
    static constexpr bool JOINT = Shared::JOINT;
    static_assert(!MIXED || JOINT, "an interleaved B is staged in one round");
    // What the value scatter needs of each slot's key: its 64-bit output position, or with
    // S::HOLD_DIGITS its digit, four to a register (out_offset stays in shared memory), which
    // leaves registers for larger tiles (the sweep policy's hold_digits).
    static constexpr bool HOLD = VALUES && S::HOLD_DIGITS;
    // S::ARGSORT: the keys are the caller's, only read; the first running pass makes each key's
    // position as its value, the last one writes the positions alone, into the caller's u32
    // array (values_a) or its u64 array (`wide`). So the passes between would need a buffer of
    // their own: at most two passes run.
    static constexpr bool ARGSORT = S::ARGSORT;
    static_assert(!ARGSORT || (VALUES && !MIXED && !JOINT && S::PASSES <= 2), "an argsort of 8- or 16-bit keys");

    // The pass's buffers: a pass reads B when an odd number of passes ran before it.
    struct Buffers {
        const Item *src;
        Item *dst;
        const Value *vsrc;
        Value *vdst;
        bool src_joint;      // src holds (key, value) items
        KvpItem *items_out;  // where the scatter writes (key, value) items, or null
        unsigned stride;     // words per item of src
    };

    Shared &sh;
    Buffers io;
    bool first_pass, last_pass;     // S::ARGSORT: this pass makes the positions / writes them out
    unsigned long long *wide;       // S::ARGSORT: the u64 positions, or null for u32 ones in values_a
    unsigned long long chain_begin; // the chain's first item in the whole input
    const KeyOrder<S, FLOAT> key;
    const int shift, t, lane, warp;
    // The tile (claim_tile).
    unsigned tile, portion_len, tile_begin, tile_len, last_tile, warp_begin;
    unsigned *status;
    const unsigned long long *base_in;
    unsigned long long *base_out;
    unsigned count, start;  // digit t's count in the tile and its tile-local start (t < RADIX)

    // This thread's items, in registers once the loops unroll (an object apart from the agent, so
    // that its indexing before the unrolling keeps the agent's scalars in registers).
    struct Items {
        Item held[ITEMS];  // lane l's item i is the warp's (i * 32 + l)-th
        Value value[VALUES ? ITEMS : 1];
        unsigned rank[ITEMS];  // the tile-local slot
    };
    // Between the two scatter rounds: each slot's output position, or its digit (HOLD).
    struct SlotsOut {
        unsigned long long where[VALUES && !HOLD ? ITEMS : 1];
        unsigned digits[HOLD ? (ITEMS + 3) / 4 : 1];
    };

    __device__ __forceinline__ OnesweepAgent(const unsigned *plan, int pass, int order, Item *keys_a, Item *keys_b,
                                             Value *values_a, Value *values_b, unsigned long long *wide_out)
        : sh(sweep_storage<S, THREADS, ITEMS>()), io(pick_buffers(plan, pass, keys_a, keys_b, values_a, values_b)),
          first_pass(ARGSORT && plan[PLAN_BEFORE + pass] == 0),
          last_pass(ARGSORT && plan[PLAN_BEFORE + pass] + 1 == plan[PLAN_RUNNING]),
          wide(wide_out), key(order), shift(pass * DIGIT_BITS), t(threadIdx.x), lane(t & 31), warp(t >> 5) {
        if constexpr (ARGSORT) {
            if (last_pass && wide == nullptr) io.vdst = values_a;
        }
    }

    // The next launch's status words were last used two launches ago (finished, same stream):
    // clearing them here saves a memset launch per pass. Skipped passes clear them too.
    static __device__ __forceinline__ void clear_next_status(unsigned *status_next, unsigned long long words) {
        const unsigned long long lo = (unsigned long long)blockIdx.x * RADIX;
        const unsigned long long hi = blockIdx.x + 1 == gridDim.x ? words : lo + RADIX;
        for (unsigned long long i = lo + threadIdx.x; i < hi; i += THREADS) status_next[i] = 0;
    }

    // With S::B_INTERLEAVED 2 and a second item buffer C in `values_b` (null without one), only the
    // first pass that runs reads A and only the last one writes it; the passes between go B -> C
    // -> B as items, so one pass writes split words instead of every other one.
    static __device__ __forceinline__ Buffers pick_buffers(const unsigned *plan, int pass, Item *keys_a, Item *keys_b,
                                                           Value *values_a, Value *values_b) {
        const unsigned before = plan[PLAN_BEFORE + pass];  // passes that ran before this one
        const bool from_b = before & 1;
        Buffers io{from_b ? keys_b : keys_a, from_b ? keys_a : keys_b,
                   VALUES ? (from_b ? values_b : values_a) : nullptr, from_b ? values_a : values_b,
                   MIXED && from_b, MIXED && !from_b ? reinterpret_cast<KvpItem *>(keys_b) : nullptr, 1};
        if constexpr (S::B_INTERLEAVED == 2) {
            KvpItem *const b = reinterpret_cast<KvpItem *>(keys_b), *const c = reinterpret_cast<KvpItem *>(values_b);
            if (c != nullptr) {
                io.src_joint = before > 0;
                io.src = io.src_joint ? reinterpret_cast<const Item *>(from_b ? b : c) : keys_a;
                io.vsrc = values_a;
                const unsigned running = plan[PLAN_RUNNING];
                const bool last = before + 1 == running && running > 1;
                io.items_out = last ? nullptr : from_b ? c : b;
                io.dst = keys_a;
                io.vdst = values_a;
            }
        }
        io.stride = io.src_joint ? 2 : 1;
        return io;
    }

    // Tiles are numbered in the order blocks start, and chains are runs of consecutive numbers, so
    // every tile this one waits for in the look-back is already running or done: no deadlock
    // whatever order the hardware schedules. False for a block past a segmented sort's last tile.
    __device__ __forceinline__ bool claim_tile(const Tiles &tiles, unsigned *all_status, unsigned *tile_counter) {
        if (t == 0) sh.tile = atomicAdd(tile_counter, 1u);
        for (int i = t; i < WARPS * BIN_WORDS; i += THREADS) (&sh.warp_bins[0][0])[i] = 0;
        __syncthreads();
        const Chain chain = tiles.locate(sh.tile);
        if constexpr (Tiles::SEGMENTED) {
            if (chain.len == 0) return false;
        }
        tile = chain.tile;
        portion_len = chain.len;
        status = all_status + chain.first_tile * RADIX;
        chain_begin = chain.begin;
        base_in = chain.base_in;
        base_out = chain.base_out;
        io.src += chain.begin * io.stride;
        if constexpr (VALUES) io.vsrc += chain.begin * io.stride;
        tile_begin = tile * TILE;
        tile_len = min((unsigned)TILE, portion_len - tile_begin);
        last_tile = (portion_len - 1) / TILE;
        return true;
    }

    // The tile S::PREFETCH_TILES ahead (policy_radix.cuh) into L2: its block starts a fraction of a wave later.
    __device__ __forceinline__ void prefetch_ahead() const {
        if constexpr (S::PREFETCH_TILES > 0 && !Tiles::SEGMENTED) {
            if (t == 0 && tile + S::PREFETCH_TILES <= last_tile) {
                const unsigned first = tile_begin + S::PREFETCH_TILES * TILE;
                const unsigned len = min((unsigned)TILE, portion_len - first);
                // Keys only: split pairs with their values prefetched too ran slower (docs/tuning.md).
                prefetch_l2(io.src + first * io.stride, len * io.stride * (unsigned)sizeof(Item));
            }
        }
    }

    // Where this lane's items start.
    __device__ __forceinline__ void place_lane() { warp_begin = tile_begin + warp * WARP_TILE + lane; }

    // FULL: a full tile, whose items need no test against the end of the chain (S::FULL_PATH).
    template <bool FULL> __device__ __forceinline__ bool in_tile(int i) const {
        return FULL || warp_begin + i * 32 < portion_len;
    }
    // Slots past the end count and rank in bin PAST_END, which nothing reads: no branch per item.
    template <bool FULL> __device__ __forceinline__ unsigned digit(const Items &it, int i) const {
        if (!in_tile<FULL>(i)) return PAST_END;
        return key.digit(it.held[i], shift);
    }

    // The keys, or from a source of (key, value) items (S::B_INTERLEAVED) one 8-byte load each,
    // the value held through the ranking (the sweep policy's interleave: faster than the key
    // and the value as two 4-byte loads, the value's after the ranking, despite ptxas's spills).
    template <bool FULL> __device__ __forceinline__ void load(Items &it) {
        if constexpr (MIXED) {
            if (io.src_joint) {
                const KvpItem *items = reinterpret_cast<const KvpItem *>(io.src);
#pragma unroll
                for (int i = 0; i < ITEMS; ++i) {
                    if (in_tile<FULL>(i)) {
                        const KvpItem x = items[warp_begin + i * 32];
                        it.held[i] = x.key;
                        it.value[i] = x.value;
                    }
                }
                return;
            }
        }
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            if (in_tile<FULL>(i)) it.held[i] = io.src[warp_begin + i * 32];
        }
    }

    // Each warp's count of each digit, and whether it holds at most S::GROUPED_MAX distinct ones.
    template <bool FULL> __device__ __forceinline__ void count_warp_digits(const Items &it) {
        unsigned *my_bins = sh.warp_bins[warp];
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) atomicAdd(&bin_count(my_bins, digit<FULL>(it, i)), 1u);
        __syncthreads();
        // Read before the counters become slot starts (tile_counts' scan orders it); kept in shared
        // memory, since a register live through the scan made the kernels spill.
        if constexpr (S::GROUPED_MAX > 0) {
            const bool grouped = count_digits(my_bins) <= S::GROUPED_MAX;
            if (lane == 0) sh.warp_grouped[warp] = grouped;
        }
    }

    // Digit t's count in the tile, published at once for the tiles after this one, and its start
    // in the tile; each warp's counters become its first slot of each digit. S::COUNTS_REREAD
    // (the sweep policy's counts_reread): each warp's count read again after the scan, rather than WARPS registers held
    // through it.
    __device__ __forceinline__ void tile_counts() {
        constexpr bool REREAD = S::COUNTS_REREAD;
        unsigned warp_count[REREAD ? 1 : WARPS];
        count = 0;
        if (t < RADIX) {
#pragma unroll
            for (int w = 0; w < WARPS; ++w) {
                const unsigned c = bin_count(sh.warp_bins[w], t);
                if constexpr (!REREAD) warp_count[w] = c;
                count += c;
            }
            store_relaxed(&status[(size_t)tile * RADIX + t], (tile == 0 ? FLAG_INCLUSIVE : FLAG_AGGREGATE) | count);
        }
        start = scan_digits(count, sh.warp_sums);
        if (t < RADIX) {
            unsigned slot = start;
#pragma unroll
            for (int w = 0; w < WARPS; ++w) {
                const unsigned c = REREAD ? bin_count(sh.warp_bins[w], t) : warp_count[w];
                bin_count(sh.warp_bins[w], t) = slot;
                slot += c;
            }
            if constexpr (S::LOOKBACK_LATE) {
                sh.tile_start[t] = start;
                sh.tile_count[t] = count;
            }
        }
        __syncthreads();
    }

    // Each item's tile slot (radix_rank.cuh warp_rank): by match in a warp of few digits
    // (S::GROUPED_MAX), else by the shared-memory OR, with S::RANK_LEADER_ADD or without.
    template <bool FULL> __device__ __forceinline__ void rank_items(Items &it) {
        unsigned *my_bins = sh.warp_bins[warp];
        Item *const staged = sh.keys();
        auto digit_of = [&](int i) { return digit<FULL>(it, i); };
        auto stage_ranked = [&](int i, unsigned slot) {
            if constexpr (S::STAGE_IN_RANK) {
                if (in_tile<FULL>(i)) staged[slot] = it.held[i];
            }
        };
        if (S::GROUPED_MAX > 0 && sh.warp_grouped[warp])
            warp_rank<ITEMS, S::RANK_LEADER_ADD, true>(digit_of, it.rank, my_bins, stage_ranked);
        else
            warp_rank<ITEMS, S::RANK_LEADER_ADD>(digit_of, it.rank, my_bins, stage_ranked);
    }

    // Digit d's (d = t) global position of tile slot 0 (out_offset), from the look-back. The
    // thread index comes as an argument, read once, so that one 64-bit copy of it serves both
    // the look-back's addresses and base_in's.
    __device__ __forceinline__ void offsets_from(int d, unsigned tile_count, unsigned tile_start) {
        const unsigned before = look_back<S::LOOKBACK_BATCH>(status, tile, d, tile_count);
        const unsigned long long global = base_in[d] + before;
        sh.out_offset[d] = global - tile_start;  // wraps for digits before the start; the scatter's add wraps back
        if (!Tiles::SEGMENTED && tile == last_tile) base_out[d] = global + tile_count;
    }
    // The look-back, where S::LOOKBACK_LATE puts it: right after the ranking (LATE false), or
    // after staging the keys, when the tiles before this one have had longer to publish.
    template <bool LATE> __device__ __forceinline__ void look_back_offsets() {
        if constexpr (LATE == S::LOOKBACK_LATE) {
            if (t < RADIX) {
                if constexpr (LATE) offsets_from(t, sh.tile_count[t], sh.tile_start[t]);
                else offsets_from(t, count, start);
            }
        }
    }

    // The items to their tile slots in shared memory, the values too with S::JOINT_STAGING. As each
    // order was timed: before the values load (AFTER_VALUES false), or with digits held or
    // one-round staging after it, so the values' loads go out first. Not with S::STAGE_IN_RANK.
    template <bool FULL, bool AFTER_VALUES> __device__ __forceinline__ void stage(Items &it) {
        if constexpr (!S::STAGE_IN_RANK && AFTER_VALUES == (HOLD || JOINT)) {
#pragma unroll
            for (int i = 0; i < ITEMS; ++i) {
                if (in_tile<FULL>(i)) {
                    sh.keys()[it.rank[i]] = it.held[i];
                    if constexpr (JOINT) sh.joint_values[it.rank[i]] = it.value[i];
                }
            }
        }
    }

    // Split values load after the ranking, in flight while the keys are staged and scatter.
    template <bool FULL> __device__ __forceinline__ void load_values(Items &it) {
        if constexpr (ARGSORT) {
            if (first_pass) {  // each key's position in the input
#pragma unroll
                for (int i = 0; i < ITEMS; ++i) it.value[i] = (Value)(chain_begin + warp_begin + i * 32);
                return;
            }
        }
        if constexpr (VALUES) {
            if (!(MIXED && io.src_joint)) {  // items brought theirs
                // An opaque copy of vsrc, so the compiler recomputes the addresses instead of keeping
                // ITEMS 64-bit addresses live through the ranking.
                const Value *vload = io.vsrc;
                asm("" : "+l"(vload));
#pragma unroll
                for (int i = 0; i < ITEMS; ++i) {
                    if (in_tile<FULL>(i)) it.value[i] = vload[warp_begin + i * 32];
                }
            }
        }
    }

    // body(k, j) for the staged slots j = k * THREADS + t of this tile. Full tiles skip the guard
    // (S::FULL_TILE, the sweep policy's full_tile), so the compiler can put every slot's loads in
    // flight at once instead of one guarded load-load-store chain after another.
    template <bool FULL, class Body> __device__ __forceinline__ void each_slot(Body body) const {
        if (S::FULL_TILE && (FULL || tile_len == TILE)) {
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) body(k, k * THREADS + t);
        } else {
            const unsigned len = FULL ? (unsigned)TILE : tile_len;  // a full tile's length as a constant
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                const unsigned j = k * THREADS + t;
                if (j < len) body(k, j);
            }
        }
    }

    // One round (S::JOINT_STAGING): each key with the value staged beside it, as two words or,
    // to an interleaved buffer, one item.
    template <bool FULL> __device__ __forceinline__ void scatter_joint() {
        each_slot<FULL>([&](int, unsigned j) {
            const Item x = sh.keys()[j];
            const unsigned long long o = sh.out_offset[key.digit(x, shift)] + j;
            if (MIXED && io.items_out) {
                io.items_out[o] = KvpItem{x, sh.joint_values[j]};
            } else {
                io.dst[o] = x;
                io.vdst[o] = sh.joint_values[j];
            }
        });
    }

    // Two rounds, first the keys, keeping each slot's output position or digit for the values.
    template <bool FULL> __device__ __forceinline__ void scatter_keys(SlotsOut &out) {
        if constexpr (HOLD) {
#pragma unroll
            for (int k = 0; k < (ITEMS + 3) / 4; ++k) out.digits[k] = 0;
        }
        each_slot<FULL>([&](int k, unsigned j) {
            const Item x = sh.keys()[j];
            const unsigned d = key.digit(x, shift);
            const unsigned long long o = sh.out_offset[d] + j;
            if (!(ARGSORT && last_pass)) io.dst[o] = x;  // an argsort's last pass writes positions alone
            if constexpr (HOLD) out.digits[k / 4] |= d << (8 * (k % 4));
            else if constexpr (VALUES) out.where[k] = o;
        });
    }

    // Then the values, staged in the keys' memory.
    template <bool FULL> __device__ __forceinline__ void scatter_values(Items &it, const SlotsOut &out) {
        if constexpr (VALUES) {
            __syncthreads();
#pragma unroll
            for (int i = 0; i < ITEMS; ++i) {
                if (in_tile<FULL>(i)) sh.values[it.rank[i]] = it.value[i];
            }
            __syncthreads();
            each_slot<FULL>([&](int k, unsigned j) {
                unsigned long long o;
                if constexpr (HOLD) o = sh.out_offset[(out.digits[k / 4] >> (8 * (k % 4))) & (RADIX - 1)] + j;
                else o = out.where[k];
                if (ARGSORT && last_pass && wide != nullptr) wide[o] = sh.values[j];
                else io.vdst[o] = sh.values[j];
            });
        }
    }

    template <bool FULL> __device__ __forceinline__ void scatter(Items &it) {
        if constexpr (JOINT) {
            scatter_joint<FULL>();
        } else {
            SlotsOut out;
            scatter_keys<FULL>(out);
            scatter_values<FULL>(it, out);
        }
    }

    // The tile's steps, in order.
    template <bool FULL> __device__ __forceinline__ void sweep_tile() {
        Items it;
        load<FULL>(it);
        count_warp_digits<FULL>(it);
        tile_counts();
        rank_items<FULL>(it);
        look_back_offsets<false>();
        if constexpr (!S::STAGE_IN_RANK) __syncthreads();  // the counters' memory becomes the staging buffer
        stage<FULL, false>(it);
        load_values<FULL>(it);
        stage<FULL, true>(it);
        look_back_offsets<true>();
        __syncthreads();
        scatter<FULL>(it);
    }
};

// The tile's body twice where S::FULL_PATH (the sweep policy's full_path): once for full
// tiles, whose items need no test against the end of the input, and once for a chain's last,
// partial tile.
template <class S, bool FLOAT, int THREADS, int ITEMS, class Tiles>
__device__ void onesweep(const unsigned *plan, int pass, int order, typename S::Item *keys_a,
                         typename S::Item *keys_b, typename S::Value *values_a, typename S::Value *values_b,
                         const Tiles tiles, unsigned *all_status, unsigned *status_next,
                         unsigned long long status_words, unsigned *tile_counter,
                         unsigned long long *wide_out = nullptr) {
    using Agent = OnesweepAgent<S, FLOAT, THREADS, ITEMS, Tiles>;
    Agent::clear_next_status(status_next, status_words);
    if (plan[PLAN_SKIP + pass]) return;
    Agent agent(plan, pass, order, keys_a, keys_b, values_a, values_b, wide_out);
    if (!agent.claim_tile(tiles, all_status, tile_counter)) return;
    agent.prefetch_ahead();
    agent.place_lane();
    if (S::FULL_PATH && !Tiles::SEGMENTED && agent.tile_len == Agent::TILE) agent.template sweep_tile<true>();
    else agent.template sweep_tile<false>();
}

}  // namespace radix
