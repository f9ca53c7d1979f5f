// Shared pieces of the sorting networks: element types, the comparator, the padded shared tile.
//
// Lengths need not be powers of two. The network runs on the next power of two with virtual
// elements at positions >= n that rank after every real element. Every comparator puts the element
// that comes first in the order at the lower position, so a virtual element would never move: the
// kernels skip any comparator whose upper position is virtual, and never load or store one. A real
// key equal to u32::MAX ties with nothing virtual, it simply stays where the network leaves it.
#pragma once
#include "overlap.cuh"
#include "policy_network.cuh"

namespace net {

__device__ __forceinline__ unsigned key_of(uint2 x) { return x.x; }
__device__ __forceinline__ unsigned key_of(unsigned x) { return x; }

template <class T>
struct Shape {
  static constexpr unsigned W = policy::NET.tile_bytes / sizeof(T);
  static constexpr unsigned LOG = W == 16384 ? 14 : W == 8192 ? 13 : W == 4096 ? 12 : W == 2048 ? 11 : 0;
  // One pad slot per 16 keeps a thread's 16 consecutive slots (the stride-1..8 steps) on
  // distinct banks across a warp.
  static constexpr unsigned SLOTS = W + W / 16;
  static constexpr unsigned SMEM_BYTES = SLOTS * sizeof(T);
  static_assert(LOG != 0, "NetPolicy::tile_bytes must give 2048 .. 16384 elements");
  static_assert(W / 2 % policy::NET.threads == 0, "odd-even steps give every thread the same comparator count");
};

// The tile lives in dynamic shared memory (the launch passes Shape<T>::SMEM_BYTES), so tiles may
// pass the 48 KB static limit.
template <class T>
__device__ __forceinline__ T* tile_smem() {
  extern __shared__ __align__(16) unsigned char net_smem[];
  return reinterpret_cast<T*>(net_smem);
}

__device__ __forceinline__ unsigned slot(unsigned v) { return v + (v >> 4); }

__host__ __device__ constexpr unsigned ilog2(unsigned x) { return x <= 1 ? 0 : 1 + ilog2(x / 2); }

// Order a (lower position) before b; true when they traded places.
template <bool DESC, class T>
__device__ __forceinline__ bool cas(T& a, T& b) {
  const unsigned ka = key_of(a), kb = key_of(b);
  const bool swap = DESC ? ka < kb : kb < ka;
  const T lo = swap ? b : a;
  const T hi = swap ? a : b;
  a = lo;
  b = hi;
  return swap;
}

// Tile slot v <-> global position; signed so that odd-even windows may hang over the front.
// A thread must keep many loads in flight: a plain loop (store each element to shared memory as it
// arrives) waited one DRAM round trip per element. sm_80+ copies global -> shared asynchronously
// (cp.async, no registers); older GPUs issue NetPolicy::load_batch loads before the first store.
template <class T, class Map>
__device__ __forceinline__ void load_tile(T* sm, const T* src, const Map& map, long long n) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr bool ASYNC = policy::NET.load_async;  // cp.async exists from sm_80
#else
  constexpr bool ASYNC = false;
#endif
  if constexpr (ASYNC) {
    for (unsigned v = threadIdx.x; v < Shape<T>::W; v += policy::NET.threads) {
      const long long p = map.pos(v);
      if (p >= 0 && p < n) {
        const unsigned to = (unsigned)__cvta_generic_to_shared(sm + slot(v));
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(to), "l"(src + p), "n"(sizeof(T)) : "memory");
      }
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
  } else {
    constexpr unsigned PER = Shape<T>::W / policy::NET.threads,
                       BATCH = PER < policy::NET.load_batch ? PER : policy::NET.load_batch;
#pragma unroll
    for (unsigned k0 = 0; k0 < PER; k0 += BATCH) {
      T x[BATCH];
#pragma unroll
      for (unsigned k = 0; k < BATCH; ++k) {
        const long long p = map.pos(threadIdx.x + (k0 + k) * policy::NET.threads);
        if (p >= 0 && p < n) x[k] = src[p];
      }
      // Positions are computed again rather than kept: 16 flags live across the loads spilled on sm_75.
#pragma unroll
      for (unsigned k = 0; k < BATCH; ++k) {
        const unsigned v = threadIdx.x + (k0 + k) * policy::NET.threads;
        const long long p = map.pos(v);
        if (p >= 0 && p < n) sm[slot(v)] = x[k];
      }
    }
  }
}

template <class T, class Map>
__device__ __forceinline__ void store_tile(T* dst, const T* sm, const Map& map, long long n) {
  for (unsigned v = threadIdx.x; v < Shape<T>::W; v += policy::NET.threads) {
    const long long p = map.pos(v);
    if (p >= 0 && p < n && map.owns(v)) dst[p] = sm[slot(v)];
  }
}

}  // namespace net
