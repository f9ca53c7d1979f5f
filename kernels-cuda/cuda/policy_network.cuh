// The sorting networks' tuning policy (network*.cu): one table, the same on every architecture
// (the chips differ in nothing these kernels were timed for). network.cu exports the numbers the
// host plans with (net_tuning), so a candidate built with tuning_network_sweep.cuh's overrides runs
// through GPUSORT_KERNELS_DIR without a Rust rebuild (benches/net/sweep.sh). The figures behind each
// value are in docs/tuning.md and the git history.
#pragma once

#include "policy_arch.cuh"

namespace policy {

struct NetPolicy {
    int tile_bytes = 32768;         // one shared tile a block: 4096 pairs or 8192 keys (64 KB was slower)
    int threads = 256;              // threads a block (512 slower at every size)
    int min_blocks = 4;             // merge and global kernels: at most 64 registers
    int min_blocks_tile_sort = 3;   // the bitonic tile sorts spill at 64 registers
    int min_blocks_oe_tile_sort = 2;  // the odd-even tile sort spills at 3 blocks
    int reg_bits = 4;               // comparators in registers on 2^4 elements between shared round trips
    int oe_sort_reg_bits = 4;       // the odd-even tile sort's register groups (5 spilled)
    int bitonic_min_row_bytes = 128;  // bitonic global passes: one pass fewer than with 256-byte rows
    int oe_col_bits = 3;            // odd-even global windows of 8 columns (64-byte rows of pairs)
    int oe_halo_strides = 6;        // strides a windowed pass runs at most (4 was slower)
    int oe_merge_halo_bits = 4;     // tile merges' halos of 1/16 tile each side
    bool oe_step_near = true;       // near strides address comparators as offsets from one slot
    bool oe_store_swaps = true;     // only comparators that swapped write back
    bool oe_warp_stages = true;     // stages within one warp's share sync the warp, not the block
    bool load_async = true;         // tiles load with cp.async where the chip has it (sm_80 on)
    int load_batch = 16;            // otherwise loads in flight a thread before the first store
};

__host__ __device__ constexpr NetPolicy net_policy(Arch) { return NetPolicy{}; }

}  // namespace policy

#ifdef GPUSORT_TUNING_SWEEP
#include "tuning_network_sweep.cuh"
#else
namespace policy {
__host__ __device__ constexpr NetPolicy swept_net(NetPolicy p) { return p; }
}  // namespace policy
#endif

namespace policy {
constexpr NetPolicy NET = swept_net(net_policy(ARCH));  // the architecture being compiled
}  // namespace policy
