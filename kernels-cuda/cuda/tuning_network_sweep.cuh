// Benchmark-only overrides of the sorting networks' policy (policy_network.cuh), compiled in only
// with -DGPUSORT_TUNING_SWEEP (benches/net/sweep.sh): SWEEP_NET is a list of statements on the policy
// `p`, e.g. -DSWEEP_NET='p.threads=512;p.oe_col_bits=4'. The committed images never define it.
#pragma once

namespace policy {

__host__ __device__ constexpr NetPolicy swept_net(NetPolicy p) {
#ifdef SWEEP_NET
    SWEEP_NET;
#endif
    return p;
}

}  // namespace policy
