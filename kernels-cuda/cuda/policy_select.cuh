// The top-k select's tuning policy (select.cu), the same on every architecture; select.cu exports
// it (select_config) for src/cuda/select.rs to size its launches.
#pragma once

#include "policy_arch.cuh"

namespace policy {

struct SelectPolicy {
    int threads = 256;  // threads a block of the histogram, count and write steps
    int rounds = 4;     // 16-byte vectors a thread a tile: 4096 u32 or 2048 u64 keys a tile
};

__host__ __device__ constexpr SelectPolicy select_policy(Arch) { return SelectPolicy{}; }

constexpr SelectPolicy SELECT = select_policy(ARCH);  // the architecture being compiled

}  // namespace policy
