// Step 3 of the radix sort (radix.cuh): one digit pass. Each block ranks a tile in shared memory,
// finds the tile's global offsets by a chained scan with decoupled look-back, stages the tile in
// digit order so the writes are coalesced, and scatters. The segmented sort (radix_segments.cuh)
// runs the same pass over chains of its own.
#pragma once

#include "radix_keys.cuh"
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

#if RADIX_SHARED_ONCE
// One block of shared memory per kernel: declared inside onesweep, the float and the integer
// instantiations each get their own (39 KB instead of 19.5 for the u32 kernels).
template <class S, int THREADS, int ITEMS> __shared__ SweepShared<S, THREADS, ITEMS> sweep_shared;
#endif

// Static shared memory stops at 48 KB. A sweep shape that needs more (tuning.cuh) takes it as
// dynamic shared memory, which the launch asks the driver for per kernel (src/cuda/radix/launch.rs
// reads this from radix_config_<name>); 0 for the shapes that fit statically.
constexpr size_t STATIC_SHARED_LIMIT = 48 * 1024;
template <class S, int THREADS, int ITEMS> __host__ __device__ constexpr unsigned sweep_dynamic_bytes() {
    constexpr size_t bytes = sizeof(SweepShared<S, THREADS, ITEMS>);
    return bytes > STATIC_SHARED_LIMIT ? (unsigned)bytes : 0u;
}

#if RADIX_SHARED_ONCE
template <class S, int THREADS, int ITEMS> __device__ __forceinline__ SweepShared<S, THREADS, ITEMS> &sweep_storage() {
    if constexpr (sweep_dynamic_bytes<S, THREADS, ITEMS>() > 0) {
        extern __shared__ __align__(16) unsigned char sweep_dynamic[];
        return *reinterpret_cast<SweepShared<S, THREADS, ITEMS> *>(sweep_dynamic);
    } else {
        return sweep_shared<S, THREADS, ITEMS>;
    }
}
#endif

// Decoupled look-back for digit t of this tile: the count of digit t in every earlier tile of the
// portion. Publishes this tile's inclusive count.
// The walk reads RADIX_LOOKBACK_BATCH earlier tiles' words at once: with early counts most tiles
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

template <class S, bool FLOAT, int THREADS, int ITEMS, class Tiles>
__device__ void onesweep(const unsigned *plan, int pass, int order, typename S::Item *keys_a,
                         typename S::Item *keys_b, typename S::Value *values_a, typename S::Value *values_b,
                         const Tiles tiles, unsigned *all_status, unsigned *status_next,
                         unsigned long long status_words, unsigned *tile_counter) {
    static_assert(THREADS >= RADIX && THREADS % 32 == 0, "one thread per digit");
    using Item = typename S::Item;
    using Value = typename S::Value;
    constexpr int WARPS = THREADS / 32, TILE = THREADS * ITEMS, WARP_TILE = 32 * ITEMS;
    constexpr bool VALUES = has_values<S>();
    constexpr bool EARLY = RADIX_EARLY_COUNTS;
    // S::STAGE_IN_RANK (tuning_tiles.cuh RADIX_STAGE_IN_RANK_KEYS): each key goes to its tile slot
    // as soon as the ranking finds it, which early counts make final.
    constexpr bool STAGE_IN_RANK = S::STAGE_IN_RANK;
    static_assert(!STAGE_IN_RANK || (EARLY && !VALUES), "keys alone with early counts");
#if RADIX_SHARED_ONCE
    auto &sh = sweep_storage<S, THREADS, ITEMS>();
#else
    static_assert(sweep_dynamic_bytes<S, THREADS, ITEMS>() == 0, "dynamic sweep storage needs RADIX_SHARED_ONCE");
    __shared__ SweepShared<S, THREADS, ITEMS> sh;
#endif

    // The next launch's status words were last used two launches ago (finished, same stream):
    // clearing them here saves a memset launch per pass. Skipped passes clear them too.
    {
        const unsigned long long lo = (unsigned long long)blockIdx.x * RADIX;
        const unsigned long long hi = blockIdx.x + 1 == gridDim.x ? status_words : lo + RADIX;
        for (unsigned long long i = lo + threadIdx.x; i < hi; i += THREADS) status_next[i] = 0;
    }
    if (plan[PLAN_SKIP + pass]) return;
    const unsigned before = plan[PLAN_BEFORE + pass];  // passes that ran before this one
    const bool from_b = before & 1;
    const Item *src = from_b ? keys_b : keys_a;
    Item *dst = from_b ? keys_a : keys_b;
    const Value *vsrc = VALUES ? (from_b ? values_b : values_a) : nullptr;
    Value *vdst = from_b ? values_a : values_b;
    // S::B_INTERLEAVED (split u32 pairs): buffer B holds (key, value) items, so the passes that read
    // A write 8-byte items as a Kvp sort does and the passes that read B load them as items. (The
    // two as separate instantiations in one kernel spilled 448 bytes, sm_90.)
    // With S::B_INTERLEAVED 2 and a second item buffer C in `values_b` (null without one), only the
    // first pass that runs reads A and only the last one writes it; the passes between go B -> C
    // -> B as items, so one pass writes split words instead of every other one.
    constexpr bool MIXED = S::B_INTERLEAVED != 0;
    static_assert(!MIXED || (sizeof(Item) == 4 && sizeof(Value) == 4), "B interleaves 32-bit pairs");
    bool src_joint = MIXED && from_b;
    KvpItem *items_out = MIXED && !from_b ? reinterpret_cast<KvpItem *>(keys_b) : nullptr;
    if constexpr (S::B_INTERLEAVED == 2) {
        KvpItem *const b = reinterpret_cast<KvpItem *>(keys_b), *const c = reinterpret_cast<KvpItem *>(values_b);
        if (c != nullptr) {
            src_joint = before > 0;
            src = src_joint ? reinterpret_cast<const Item *>(from_b ? b : c) : keys_a;
            vsrc = values_a;
            const unsigned running = plan[PLAN_RUNNING];
            const bool last = before + 1 == running && running > 1;
            items_out = last ? nullptr : from_b ? c : b;
            dst = keys_a;
            vdst = values_a;
        }
    }
    const unsigned stride = src_joint ? 2 : 1;  // words per item of `src`
    const KeyOrder<S, FLOAT> key(order);
    const int shift = pass * DIGIT_BITS;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;

    // Tiles are numbered in the order blocks start, and chains are runs of consecutive numbers, so
    // every tile this one waits for in the look-back is already running or done: no deadlock
    // whatever order the hardware schedules.
    if (t == 0) sh.tile = atomicAdd(tile_counter, 1u);
    for (int i = t; i < WARPS * BIN_WORDS; i += THREADS) (&sh.warp_bins[0][0])[i] = 0;
    __syncthreads();
    const Chain chain = tiles.locate(sh.tile);
    // A segmented sort's grid may hold more blocks than there are tiles.
    if constexpr (Tiles::SEGMENTED) {
        if (chain.len == 0) return;
    }
    const unsigned tile = chain.tile, portion_len = chain.len;
    unsigned *status = all_status + chain.first_tile * RADIX;
    const unsigned long long *base_in = chain.base_in;
    unsigned long long *base_out = chain.base_out;
    src += chain.begin * stride;
    if constexpr (VALUES) vsrc += chain.begin * stride;
    const unsigned tile_begin = tile * TILE;
    const unsigned tile_len = min((unsigned)TILE, portion_len - tile_begin);
    const unsigned last_tile = (portion_len - 1) / TILE;
    // The tile S::PREFETCH_TILES ahead (tuning.cuh): its block starts a fraction of a wave later.
    if constexpr (S::PREFETCH_TILES > 0 && !Tiles::SEGMENTED) {
        const unsigned ahead = tile + S::PREFETCH_TILES;
        if (t == 0 && ahead <= last_tile) {
            const unsigned first = ahead * TILE, len = min((unsigned)TILE, portion_len - first);
            // Keys only: split pairs with their values prefetched too ran slower (tuning.cuh).
            prefetch_l2(src + first * stride, len * stride * (unsigned)sizeof(Item));
        }
    }

    // What stays in registers through the ranking: the items, or only their keys when the item
    // is reloaded for staging (RADIX_KEYS_FIRST; the reload mostly hits L1). Split values are
    // loaded after the ranking when RADIX_VALUES_LATE.
    constexpr bool KEYS_FIRST = RADIX_KEYS_FIRST && S::KEY_WORD;
    // RADIX_VALUES_LATE 2: the values load after the ranking, in flight while the keys scatter.
    constexpr bool VALUES_LATE = RADIX_VALUES_LATE == 1;
    constexpr bool VALUES_AFTER_RANK = RADIX_VALUES_LATE == 2 && VALUES;
    using Held = std::conditional_t<KEYS_FIRST, typename S::Bits, Item>;
    const unsigned warp_begin = tile_begin + warp * WARP_TILE + lane;

    // Digit t's global position of tile slot 0 (out_offset), from the look-back.
    auto find_offsets = [&](unsigned count, unsigned start) {
        const unsigned before = look_back<S::LOOKBACK_BATCH>(status, tile, t, count);
        const unsigned long long global = base_in[t] + before;
        sh.out_offset[t] = global - start;  // wraps for digits before `start`; the add below wraps back
        if (!Tiles::SEGMENTED && tile == last_tile) base_out[t] = global + count;
    };
    // S::LOOKBACK_LATE (early counts only): look back after staging the keys, not before; the
    // tiles before this one have had longer to publish their inclusive counts.
    constexpr bool LOOKBACK_LATE = EARLY && S::LOOKBACK_LATE;
    auto find_offsets_late = [&] {
        if constexpr (LOOKBACK_LATE) {
            if (t < RADIX) find_offsets(sh.tile_count[t], sh.tile_start[t]);
        }
    };

    // The tile's body, twice where S::FULL_PATH (tuning.cuh RADIX_FULL_TILE_PATH_*): once for full
    // tiles, whose items need no test against the end of the input, and once for a chain's last,
    // partial tile.
    auto sweep_tile = [&](auto full_tile) {
        constexpr bool FULL = decltype(full_tile)::value;
        Held held[ITEMS];
        Value value[VALUES && !VALUES_LATE ? ITEMS : 1];
        auto load_keys = [&] {
#pragma unroll
            for (int i = 0; i < ITEMS; ++i) {
                const unsigned idx = warp_begin + i * 32;
                if (FULL || idx < portion_len) {
                    if constexpr (KEYS_FIRST) held[i] = S::load_bits(src + idx);
                    else held[i] = src[idx];
                    if constexpr (VALUES && !VALUES_LATE && !VALUES_AFTER_RANK) value[i] = vsrc[idx];
                }
            }
        };
        // A source of (key, value) items (S::B_INTERLEAVED): one 8-byte load each, the value held
        // through the ranking (tuning.cuh RADIX_INTERLEAVE_B_PAIRS: faster than the key and the
        // value as two 4-byte loads, the value's after the ranking, despite ptxas's spills).
        if constexpr (MIXED) {
            static_assert(!KEYS_FIRST && VALUES_AFTER_RANK, "items bring their values before the ranking");
            if (src_joint) {
                const KvpItem *items = reinterpret_cast<const KvpItem *>(src);
#pragma unroll
                for (int i = 0; i < ITEMS; ++i) {
                    const unsigned idx = warp_begin + i * 32;
                    if (FULL || idx < portion_len) {
                        const KvpItem x = items[idx];
                        held[i] = x.key;
                        value[i] = x.value;
                    }
                }
            } else {
                load_keys();
            }
        } else {
            load_keys();
        }
        auto digit = [&](int i) {
            if (!FULL && warp_begin + i * 32 >= portion_len) return PAST_END;
            if constexpr (KEYS_FIRST) return key.digit_of_bits(held[i], shift);
            else return key.digit(held[i], shift);
        };

        unsigned rank[ITEMS];  // rank among the warp's equal digits, then the tile-local slot
        if constexpr (EARLY) {
            // Early counts (RADIX_EARLY_COUNTS): each warp counts its digits first, the block publishes
            // its counts before ranking, and the warp counters start at the tile slots, so the ranks
            // come out final. The look-back waits until after the ranking, when the tiles before this
            // one have long published theirs. The slots past the end of the input count (and then
            // rank) in bin PAST_END, which nothing reads: no branch per item.
            unsigned *my_bins = sh.warp_bins[warp];
#pragma unroll
            for (int i = 0; i < ITEMS; ++i) atomicAdd(&bin_count(my_bins, digit(i)), 1u);
            __syncthreads();
            // Read before the counters become slot starts below (the scan's barrier orders it); kept in
            // shared memory, since a register live through the scan made the kernels spill.
            if constexpr (S::GROUPED_MAX > 0) {
                const bool grouped = count_digits(my_bins) <= S::GROUPED_MAX;
                if (lane == 0) sh.warp_grouped[warp] = grouped;
            }
            // S::COUNTS_REREAD (tuning.cuh): each warp's count read again after the scan, rather
            // than WARPS registers held through it.
            constexpr bool REREAD = S::COUNTS_REREAD;
            unsigned count = 0, warp_count[REREAD ? 1 : WARPS];
            if (t < RADIX) {
#pragma unroll
                for (int w = 0; w < WARPS; ++w) {
                    const unsigned c = bin_count(sh.warp_bins[w], t);
                    if constexpr (!REREAD) warp_count[w] = c;
                    count += c;
                }
                store_relaxed(&status[(size_t)tile * RADIX + t], (tile == 0 ? FLAG_INCLUSIVE : FLAG_AGGREGATE) | count);
            }
            const unsigned start = scan_digits(count, sh.warp_sums);
            if (t < RADIX) {
                unsigned slot = start;
#pragma unroll
                for (int w = 0; w < WARPS; ++w) {
                    const unsigned c = REREAD ? bin_count(sh.warp_bins[w], t) : warp_count[w];
                    bin_count(sh.warp_bins[w], t) = slot;
                    slot += c;
                }
                if constexpr (LOOKBACK_LATE) {
                    sh.tile_start[t] = start;
                    sh.tile_count[t] = count;
                }
            }
            __syncthreads();
            constexpr bool LEADER = S::RANK_LEADER_ADD;
            Item *const staged = sh.keys();
            auto stage_ranked = [&](int i, unsigned slot) {
                if constexpr (STAGE_IN_RANK) {
                    if (FULL || warp_begin + i * 32 < portion_len) staged[slot] = held[i];
                }
            };
            if constexpr (RADIX_GROUPED_INLINE)
                warp_rank<ITEMS, LEADER>(digit, rank, my_bins, S::GROUPED_MAX > 0 && sh.warp_grouped[warp],
                                         stage_ranked);
            else if (S::GROUPED_MAX > 0 && sh.warp_grouped[warp])
                warp_rank<ITEMS, LEADER, true>(digit, rank, my_bins, false, stage_ranked);
            else
                warp_rank<ITEMS, LEADER>(digit, rank, my_bins, false, stage_ranked);
            if constexpr (!LOOKBACK_LATE) {
                if (t < RADIX) find_offsets(count, start);
            }
        } else {
            warp_rank<ITEMS, S::RANK_LEADER_ADD>(digit, rank, sh.warp_bins[warp]);
            __syncthreads();

            // Per digit: warp counts -> exclusive per-warp starts, tile count; publish it at once so the
            // tiles after this one can move on.
            unsigned count = 0;
            if (t < RADIX) {
                unsigned sum = 0;
#pragma unroll
                for (int w = 0; w < WARPS; ++w) {
                    const unsigned c = bin_count(sh.warp_bins[w], t);
                    bin_count(sh.warp_bins[w], t) = sum;
                    sum += c;
                }
                count = sum;
                store_relaxed(&status[(size_t)tile * RADIX + t], (tile == 0 ? FLAG_INCLUSIVE : FLAG_AGGREGATE) | count);
            }
            const unsigned start = scan_digits(count, sh.warp_sums);
            if (t < RADIX) {
                // (Adding `start` into every warp's counts here, to save a load per key below, made the
                // keys kernel spill: H200, 64M keys 2.24 ms against 2.05.)
                sh.tile_start[t] = start;
                find_offsets(count, start);
            }
            __syncthreads();

#pragma unroll
            for (int i = 0; i < ITEMS; ++i) {
                const unsigned d = digit(i);
                if (FULL || d != PAST_END) rank[i] += sh.tile_start[d] + bin_count(sh.warp_bins[warp], d);
            }
        }
        if constexpr (!STAGE_IN_RANK) __syncthreads();  // the counters' memory becomes the staging buffer
        // An opaque copy of `src`, so the compiler recomputes the reload addresses instead of keeping
        // ITEMS 64-bit addresses live through the ranking.
        const Item *reload = src;
        asm("" : "+l"(reload));
        // body(k, j) for the staged slots j = k * THREADS + t of this tile. Full tiles skip the guard
        // (S::FULL_TILE, tuning.cuh RADIX_FULL_TILE_*), so the compiler can put every slot's loads in flight at once
        // instead of one guarded load-load-store chain after another.
        auto each_slot = [&](auto body) {
            if (S::FULL_TILE && (FULL || tile_len == TILE)) {
#pragma unroll
                for (int k = 0; k < ITEMS; ++k) body(k, k * THREADS + t);
            } else {
#pragma unroll
                for (int k = 0; k < ITEMS; ++k) {
                    const unsigned j = k * THREADS + t;
                    if (j < tile_len) body(k, j);
                }
            }
        };
        // What the value scatter needs of each slot's key: its 64-bit output position, or with
        // S::HOLD_DIGITS its digit, four to a register (out_offset stays in shared memory), which
        // leaves registers for larger tiles (tuning.cuh RADIX_HOLD_DIGITS_*).
        constexpr bool HOLD = VALUES && S::HOLD_DIGITS;
        // S::JOINT_STAGING: each value goes to shared memory with its key, one scatter loop for both.
        constexpr bool JOINT = SweepShared<S, THREADS, ITEMS>::JOINT;
        static_assert(!JOINT || !VALUES_LATE, "one-round staging holds the values in registers");
        static_assert(!MIXED || JOINT, "an interleaved B is staged in one round");
        auto stage = [&] {
#pragma unroll
            for (int i = 0; i < ITEMS; ++i) {
                const unsigned idx = warp_begin + i * 32;
                if (FULL || idx < portion_len) {
                    if constexpr (KEYS_FIRST) sh.keys()[rank[i]] = reload[idx];
                    else sh.keys()[rank[i]] = held[i];
                    if constexpr (JOINT) sh.joint_values[rank[i]] = value[i];
                }
            }
        };
        // Keys, then values: each scatters from its own round of staging, the slot's digit (or
        // its output position) held between the two.
        auto scatter_two_rounds = [&] {
            unsigned long long where[VALUES && !HOLD ? ITEMS : 1];
            unsigned digits[HOLD ? (ITEMS + 3) / 4 : 1];
            if constexpr (HOLD) {
#pragma unroll
                for (int k = 0; k < (ITEMS + 3) / 4; ++k) digits[k] = 0;
            }
            each_slot([&](int k, unsigned j) {
                const Item x = sh.keys()[j];
                const unsigned d = key.digit(x, shift);
                const unsigned long long o = sh.out_offset[d] + j;
                dst[o] = x;
                if constexpr (HOLD) digits[k / 4] |= d << (8 * (k % 4));
                else if constexpr (VALUES) where[k] = o;
            });
            if constexpr (VALUES) {
                const Value *vload = vsrc;  // opaque, as `reload` above
                asm("" : "+l"(vload));
                __syncthreads();
#pragma unroll
                for (int i = 0; i < ITEMS; ++i) {
                    const unsigned idx = warp_begin + i * 32;
                    if (FULL || idx < portion_len) {
                        if constexpr (VALUES_LATE) sh.values[rank[i]] = vload[idx];
                        else sh.values[rank[i]] = value[i];
                    }
                }
                __syncthreads();
                each_slot([&](int k, unsigned j) {
                    if constexpr (HOLD) vdst[sh.out_offset[(digits[k / 4] >> (8 * (k % 4))) & (RADIX - 1)] + j] = sh.values[j];
                    else vdst[where[k]] = sh.values[j];
                });
            }
        };
        // Each order as it was timed: with digits held or one-round staging, the values' loads go out
        // before the keys are staged.
        if constexpr (!HOLD && !JOINT && !STAGE_IN_RANK) stage();
        if constexpr (VALUES_AFTER_RANK) {
            if (!(MIXED && src_joint)) {  // items brought theirs
                const Value *vload = vsrc;  // opaque, as `reload` above
                asm("" : "+l"(vload));
#pragma unroll
                for (int i = 0; i < ITEMS; ++i) {
                    const unsigned idx = warp_begin + i * 32;
                    if (FULL || idx < portion_len) value[i] = vload[idx];
                }
            }
        }
        if constexpr (HOLD || JOINT) stage();
        find_offsets_late();
        __syncthreads();
        if constexpr (JOINT) {
            each_slot([&](int, unsigned j) {
                const Item x = sh.keys()[j];
                const unsigned long long o = sh.out_offset[key.digit(x, shift)] + j;
                if (MIXED && items_out) {
                    items_out[o] = KvpItem{x, sh.joint_values[j]};
                } else {
                    dst[o] = x;
                    vdst[o] = sh.joint_values[j];
                }
            });
        } else {
            scatter_two_rounds();
        }
    };
    if (S::FULL_PATH && !Tiles::SEGMENTED && tile_len == TILE) sweep_tile(std::true_type{});
    else sweep_tile(std::false_type{});
}

}  // namespace radix
