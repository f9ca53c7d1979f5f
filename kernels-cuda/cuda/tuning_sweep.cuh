// Benchmark-only overrides of the radix policies (policy_radix.cuh), compiled in only with
// -DGPUSORT_TUNING_SWEEP (benches/cub/sweep.sh). Each SWEEP_<SET> macro is a list of statements on the
// set's policy `p`, e.g. -DSWEEP_KVP='p.items=16;p.counts_reread=false'; SWEEP_ALL applies to
// every set first. SWEEP_HIST and SWEEP_SMALL change `p` of the histogram and the one-block sort,
// SWEEP_BOUNDS `b`, every layout's set boundaries. The committed images never define them.
#pragma once

namespace policy {

#define SWEEP_SET(SET, MACRO)                                                                                  \
    if (s == Set::SET) {                                                                                       \
        MACRO;                                                                                                 \
    }

__host__ __device__ constexpr SweepPolicy swept(Set s, SweepPolicy p) {
#ifdef SWEEP_ALL
    SWEEP_ALL;
#endif
#ifdef SWEEP_KVP
    SWEEP_SET(Kvp, SWEEP_KVP)
#endif
#ifdef SWEEP_KVP_MID
    SWEEP_SET(KvpMid, SWEEP_KVP_MID)
#endif
#ifdef SWEEP_KVP_HUGE
    SWEEP_SET(KvpHuge, SWEEP_KVP_HUGE)
#endif
#ifdef SWEEP_U32
    SWEEP_SET(U32, SWEEP_U32)
#endif
#ifdef SWEEP_U32_HUGE
    SWEEP_SET(U32Huge, SWEEP_U32_HUGE)
#endif
#ifdef SWEEP_U32_MID
    SWEEP_SET(U32Mid, SWEEP_U32_MID)
#endif
#ifdef SWEEP_U64_MID
    SWEEP_SET(U64Mid, SWEEP_U64_MID)
#endif
#ifdef SWEEP_KEYS16
    SWEEP_SET(Keys16, SWEEP_KEYS16)
#endif
#ifdef SWEEP_PAIRS16
    SWEEP_SET(Pairs16, SWEEP_PAIRS16)
#endif
#ifdef SWEEP_KEYS8
    SWEEP_SET(Keys8, SWEEP_KEYS8)
#endif
#ifdef SWEEP_PAIRS8
    SWEEP_SET(Pairs8, SWEEP_PAIRS8)
#endif
#ifdef SWEEP_PAIRS_U32
    SWEEP_SET(PairsU32, SWEEP_PAIRS_U32)
#endif
#ifdef SWEEP_PAIRS_U32_HUGE
    SWEEP_SET(PairsU32Huge, SWEEP_PAIRS_U32_HUGE)
#endif
#ifdef SWEEP_PAIRS_U32_MID
    SWEEP_SET(PairsU32Mid, SWEEP_PAIRS_U32_MID)
#endif
#ifdef SWEEP_PAIRS_F32
    SWEEP_SET(PairsF32, SWEEP_PAIRS_F32)
#endif
#ifdef SWEEP_U64
    SWEEP_SET(U64, SWEEP_U64)
#endif
#ifdef SWEEP_PAIRS_U64
    SWEEP_SET(PairsU64, SWEEP_PAIRS_U64)
#endif
#ifdef SWEEP_SEGMENT_U32
    SWEEP_SET(SegmentU32, SWEEP_SEGMENT_U32)
#endif
#ifdef SWEEP_SEGMENT_PAIRS_U32
    SWEEP_SET(SegmentPairsU32, SWEEP_SEGMENT_PAIRS_U32)
#endif
    return p;
}

#undef SWEEP_SET

__host__ __device__ constexpr HistPolicy swept_hist(HistPolicy p) {
#ifdef SWEEP_HIST
    SWEEP_HIST;
#endif
    return p;
}

__host__ __device__ constexpr SmallPolicy swept_small(SmallPolicy p) {
#ifdef SWEEP_SMALL
    SWEEP_SMALL;
#endif
    return p;
}

__host__ __device__ constexpr SetBounds swept_bounds(Family, SetBounds b) {
#ifdef SWEEP_BOUNDS
    SWEEP_BOUNDS;
#endif
    return b;
}

}  // namespace policy
