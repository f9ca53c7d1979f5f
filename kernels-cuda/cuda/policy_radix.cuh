// The radix sort's tuning policies (radix*.cu): how each kernel set's sweep ranks, stages and
// scatters, its block shape, the histogram's and the one-block sort's shapes, and the input sizes
// at which a layout changes sets. One table per family, written per architecture class
// (policy_arch.cuh). The figures that chose each value are in docs/tuning.md and the git history;
// benches/cub/sweep.sh times candidates built with tuning_sweep.cuh's overrides.
#pragma once

#include "policy_arch.cuh"

namespace policy {

// One kernel set's onesweep digit pass (radix_onesweep.cuh, radix_rank.cuh), read through the
// sort description's S:: members (radix_keys.cuh Tuned).
struct SweepPolicy {
    int threads = 512;         // a tile is threads * items keys
    int items = 12;            // keys per thread
    int blocks = 2;            // blocks per SM the registers are capped for (__launch_bounds__)
    int lookback_batch = 8;    // earlier tiles' status words read at once in the look-back
    bool lookback_late = true; // look back after staging, when the tiles before have published
    int grouped_max = 32;      // warps with at most this many distinct digits rank by match (0: never)
    bool leader_add = false;   // only a digit's lowest lane bumps the warp's count
    int prefetch_tiles = 0;    // L2 prefetch of the input tile this many ahead (0: none)
    bool counts_reread = false;  // digit threads reread the warps' counts instead of holding them
    bool hold_digits = false;  // split pairs keep each slot's digit, not its output position
    bool joint_staging = false;  // split pairs stage each value beside its key, one scatter
    int interleave = 0;        // scratch as (key, value) items: 1 one buffer, 2 with a second one
    bool full_tile = false;    // full tiles scatter without a guard per slot
    bool full_path = false;    // full tiles take a copy of the body without end tests
    bool stage_in_rank = false;  // keys alone go to their tile slots as they are ranked
    bool hist_vector = false;  // the histogram reads 16-byte vectors
    bool small_leader_add = false;  // the one-block sort ranks with the leader's add
    bool small_load_all = false;    // the one-block sort puts all its loads in flight first
};

// The kernel sets of radix.cu, one per entry point group (radix_config_<name>).
enum class Set {
    Kvp, KvpMid, KvpHuge,
    U32, U32Huge, U32Mid, U64Mid,
    PairsU32, PairsU32Huge, PairsU32Mid, PairsF32,
    U64, PairsU64,
    Keys16, Pairs16, Keys8, Pairs8,
    SegmentU32, SegmentPairsU32,
};

__host__ __device__ constexpr SweepPolicy shaped(SweepPolicy p, int threads, int items, int blocks) {
    p.threads = threads;
    p.items = items;
    p.blocks = blocks;
    return p;
}

// Kvp structs: keys and values move as one 8-byte item.
__host__ __device__ constexpr SweepPolicy kvp_family(Arch a) {
    SweepPolicy p;
    p.leader_add = true;        // fewer shared-memory wavefronts; Kvp has the registers for it
    p.full_path = true;         // the end tests cost the full tiles more than the copy of the body
    p.prefetch_tiles = bulk_prefetch(a) ? 80 : 0;  // the input streams in while an SM's blocks rank
    p.counts_reread = big_shared(a);  // frees the registers that 15 items a thread need
    p.small_leader_add = true;  // as the sweep
    p.small_load_all = big_shared(a);  // more loads in flight in the one-block sort
    return p;
}

// 32-bit keys alone (u32, i32, f32).
__host__ __device__ constexpr SweepPolicy keys32_family(Arch a) {
    SweepPolicy p;
    p.lookback_batch = 4;       // fewer registers than 8, as fast
    p.lookback_late = false;    // looking back late made these kernels spill
    p.full_tile = true;         // unguarded scatter: every slot's loads in flight at once
    p.hist_vector = bulk_prefetch(a);  // 16-byte histogram loads (untimed before sm_90)
    p.small_leader_add = big_shared(a);  // faster one-block sort; the sweep spills with it
    return p;
}

// 32-bit keys with a separate u32 value array.
__host__ __device__ constexpr SweepPolicy pairs32_family(Arch a) {
    SweepPolicy p;
    p.full_path = true;         // as Kvp
    p.prefetch_tiles = bulk_prefetch(a) ? 24 : 0;  // the keys only; values prefetched lost
    p.hold_digits = true;       // a quarter register a slot, which lets the tiles grow
    p.hist_vector = bulk_prefetch(a);  // as keys alone
    return p;
}

// Split u32 pairs staged in one round where 228 KB an SM hold two such blocks; the leader's add on
// every chip (it pays for split pairs either way).
__host__ __device__ constexpr SweepPolicy joint_staged(SweepPolicy p, Arch a) {
    p.joint_staging = big_shared(a);   // no digit waits in registers between two scatters
    p.interleave = big_shared(a) ? 2 : 0;  // items in the scratch, a second buffer where one is given
    p.leader_add = true;
    p.small_leader_add = true;
    p.small_load_all = big_shared(a);
    return p;
}

// 64-bit keys alone (u64, i64, f64).
__host__ __device__ constexpr SweepPolicy keys64_family(Arch a) {
    SweepPolicy p;
    p.lookback_batch = 4;       // as 32-bit keys
    p.lookback_late = false;
    p.full_tile = true;
    p.small_leader_add = big_shared(a);  // faster one-block sort
    p.small_load_all = big_shared(a);
    return p;
}

// 64-bit keys with a separate u32 value array.
__host__ __device__ constexpr SweepPolicy pairs64_family(Arch a) {
    SweepPolicy p;
    p.prefetch_tiles = bulk_prefetch(a) ? 24 : 0;  // the keys, as 32-bit pairs
    return p;  // positions held, guarded scatter, one body: the others were slower or spilled
}

// Each set's policy: its family's, its tile shape and what differs for its size range. Mid sets
// (below SetBounds::mid_below) take tiles that fill the grid there; huge sets (from huge_from)
// tiles whose sorted keys' digit runs do not start a multiple of 32 slots apart.
__host__ __device__ constexpr SweepPolicy sweep_policy(Set s, Arch a) {
    const bool big = big_shared(a);
    switch (s) {
    case Set::Kvp: return shaped(kvp_family(a), 512, big ? 15 : 10, 2);  // 60 KB dynamic / 40 KB static
    case Set::KvpMid: return shaped(kvp_family(a), big ? 448 : 512, big ? 18 : 10, 2);  // 8064 pairs
    case Set::KvpHuge: return shaped(kvp_family(a), big ? 448 : 512, big ? 17 : 10, 2);  // 7616 pairs
    case Set::U32: {
        SweepPolicy p = keys32_family(a);
        p.stage_in_rank = big;  // needs its own 72 KB tile: three such blocks fit 228 KB only
        return shaped(p, 384, big ? 28 : 24, 3);  // 10752 / 9216 keys
    }
    case Set::U32Huge: {
        SweepPolicy p = keys32_family(a);
        p.stage_in_rank = big;
        p.prefetch_tiles = bulk_prefetch(a) ? 24 : 0;  // pays from 128M only
        return shaped(p, big ? 352 : 384, big ? 31 : 24, 3);  // 11 warps: runs 2 mod 4 apart
    }
    case Set::U32Mid: return shaped(keys32_family(a), 512, 16, 2);  // the integer body
    case Set::U64Mid: return shaped(keys64_family(a), 512, 10, 2);
    case Set::PairsU32:  // one round at 15 where it stages jointly, two rounds of 36 KB on sm_120
        return shaped(joint_staged(pairs32_family(a), a), 512, big ? 15 : a == Arch::SM120 ? 18 : 12, 2);
    case Set::PairsU32Huge:  // 480 x 15: digit runs 450 apart
        return shaped(joint_staged(pairs32_family(a), a), big ? 480 : 512, big ? 15 : a == Arch::SM120 ? 18 : 12, 2);
    case Set::PairsU32Mid:  // stages as the large set does
        return shaped(big ? joint_staged(pairs32_family(a), a) : pairs32_family(a), 512, big ? 10 : 12, 2);
    case Set::PairsF32: return shaped(pairs32_family(a), 512, 12, 2);  // spills at 18 in the masked body
    case Set::U64: return shaped(keys64_family(a), 256, 20, 4);  // 40 KB staged
    case Set::PairsU64: return shaped(pairs64_family(a), 512, 10, 2);  // larger tiles did not pay
    case Set::Keys16: {  // a register a key, as 32-bit keys: their shape
        SweepPolicy p = keys32_family(a);
        p.stage_in_rank = big;
        return shaped(p, 384, big ? 28 : 24, 3);
    }
    case Set::Keys8: {  // spills in the 16-bit keys' shape
        SweepPolicy p = keys32_family(a);
        p.stage_in_rank = big;
        return shaped(p, 512, 16, 2);
    }
    case Set::Pairs16:  // as f32 pairs: the masked body, values apart
    case Set::Pairs8: return shaped(pairs32_family(a), 512, 12, 2);
    case Set::SegmentU32: return shaped(keys32_family(a), 512, 16, 2);  // also sizes segments per tile
    case Set::SegmentPairsU32: {
        SweepPolicy p = pairs32_family(a);
        p.hold_digits = false;  // positions: the digits spilled more here
        return shaped(p, 512, 12, 2);
    }
    }
    return SweepPolicy{};
}

// The up-front histogram of every digit (radix_histogram.cuh).
struct HistPolicy {
    int threads;      // threads a block
    int items;        // loads in flight a thread
    int blocks_per_sm;
    int copies;       // copies of the counts a block keeps, halved until they fit copy_bytes
    int copy_bytes;   // shared memory the copies may take a block
};

__host__ __device__ constexpr HistPolicy hist_policy(Arch a) {
    // One copy per lane puts a warp's adds in 32 banks; 128 KB a block need 228 KB an SM.
    return big_shared(a) ? HistPolicy{1024, 8, 1, 32, 128 << 10} : HistPolicy{256, 8, 4, 1, 128 << 10};
}

// The segmented sort's histogram flushes its counts at every segment's end: one static copy.
__host__ __device__ constexpr HistPolicy segment_hist_policy(Arch) { return HistPolicy{256, 8, 4, 1, 0}; }

// The one-block sort of small inputs (radix_small.cuh): the whole input in shared memory.
struct SmallPolicy {
    int threads;
    int items;
};

__host__ __device__ constexpr SmallPolicy small_policy(Arch a) {
    // 16K pairs need about 194 KB a block (sm_80, sm_90, sm_100); 4K fit sm_75's 64 KB.
    return a == Arch::SM80 || big_shared(a) ? SmallPolicy{1024, 16} : SmallPolicy{256, 16};
}

// Where a layout changes kernel sets (src/cuda/radix/sets.rs reads radix_sets_<family>).
struct SetBounds {
    unsigned mid_below;  // the mid set below this many items
    unsigned huge_from;  // the huge set from this many
};

// The layouts, one radix_sets_<name> each.
enum class Family { Kvp, U32Keys, F32Keys, PairsU32, PairsF32, U64Keys, PairsU64 };

// u32_staged: whether the large u32 keys set stages keys as it ranks them (Set::U32).
__host__ __device__ constexpr SetBounds set_bounds(Family f, bool u32_staged) {
    SetBounds b{8u << 20, 128u << 20};  // the large tiles fill the grid from 8M; sorted keys bank from 128M
    // u32 keys staged as ranked fill one wave of three blocks an SM from 2.5M.
    if (f == Family::U32Keys && u32_staged) b.mid_below = 5u << 19;
    return b;
}

}  // namespace policy

#ifdef GPUSORT_TUNING_SWEEP
#include "tuning_sweep.cuh"
#else
namespace policy {
__host__ __device__ constexpr SweepPolicy swept(Set, SweepPolicy p) { return p; }
__host__ __device__ constexpr HistPolicy swept_hist(HistPolicy p) { return p; }
__host__ __device__ constexpr SmallPolicy swept_small(SmallPolicy p) { return p; }
__host__ __device__ constexpr SetBounds swept_bounds(Family, SetBounds b) { return b; }
}  // namespace policy
#endif

namespace policy {
// The policies of the architecture being compiled.
__host__ __device__ constexpr SweepPolicy sweep(Set s) { return swept(s, sweep_policy(s, ARCH)); }
constexpr HistPolicy HIST = swept_hist(hist_policy(ARCH));
constexpr HistPolicy SEGMENT_HIST = segment_hist_policy(ARCH);
constexpr SmallPolicy SMALL = swept_small(small_policy(ARCH));
__host__ __device__ constexpr SetBounds bounds(Family f) {
    return swept_bounds(f, set_bounds(f, sweep(Set::U32).stage_in_rank));
}
}  // namespace policy
