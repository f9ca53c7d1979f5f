// The segmented sorts' tuning policy (segments.cu), the same on every architecture.
#pragma once

#include "policy_arch.cuh"

namespace policy {

struct SegmentsPolicy {
    int compose_items = 8;  // items a thread of segments_compose: one offsets search per run of them
};

__host__ __device__ constexpr SegmentsPolicy segments_policy(Arch) { return SegmentsPolicy{}; }

constexpr SegmentsPolicy SEGMENTS = segments_policy(ARCH);  // the architecture being compiled

}  // namespace policy
