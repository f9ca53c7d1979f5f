// Programmatic dependent launch, for every kernel of the sorting networks and the radix sort
// (sm_90 and newer; src/cuda/overlap.rs launches them with it): a kernel may be launched while the
// one before it in the stream drains, so the launch latency hides behind work, but it waits for
// that kernel to finish, its writes visible, before touching memory.
// Blocks let the next kernel launch only as they exit (no griddepcontrol.launch_dependents):
// letting it launch as each block starts was slower for both families (docs/tuning.md). Without the launch attribute (older
// GPUs and drivers, GPUSORT_OVERLAP_LAUNCHES=0) the wait returns at once.
#pragma once

__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
