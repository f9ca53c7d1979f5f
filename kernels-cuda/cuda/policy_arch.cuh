// The architecture classes the kernel policies tell apart, chosen here and nowhere else from
// __CUDA_ARCH__ (the images carry sm_75 with its PTX, sm_80, sm_90, sm_100 and sm_120 code).
#pragma once

namespace policy {

enum class Arch {
    SM75,   // the default: sm_75, the PTX other chips JIT from, and sm_86 / sm_89 built on their own
    SM80,   // A100: 164 KB of shared memory a block (sm_86 and sm_89 run this code too)
    SM90,   // H100 / H200: 228 KB of shared memory an SM, bulk L2 prefetch, where the policies were timed
    SM100,  // B200: sm_90's shared memory and L2, so sm_90's policy (untimed)
    SM120,  // RTX 50: sm_90's instructions, 100 KB of shared memory an SM
};

#if !defined(__CUDA_ARCH__)
constexpr Arch ARCH = Arch::SM75;  // host pass: the configs are read from the device code
#elif __CUDA_ARCH__ >= 1200
constexpr Arch ARCH = Arch::SM120;
#elif __CUDA_ARCH__ >= 1000
constexpr Arch ARCH = Arch::SM100;
#elif __CUDA_ARCH__ >= 900
constexpr Arch ARCH = Arch::SM90;
#elif __CUDA_ARCH__ == 800
constexpr Arch ARCH = Arch::SM80;
#else
constexpr Arch ARCH = Arch::SM75;
#endif

// Chips with 228 KB of shared memory an SM (two large sweep blocks, 128 KB histogram copies).
__host__ __device__ constexpr bool big_shared(Arch a) { return a == Arch::SM90 || a == Arch::SM100; }
// Chips with cp.async.bulk.prefetch.L2 and a large L2.
__host__ __device__ constexpr bool bulk_prefetch(Arch a) { return a >= Arch::SM90; }

}  // namespace policy
