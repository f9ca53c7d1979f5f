// Bitonic sort in the "flip" form: stage s first compares i with i ^ (2^s - 1) (a flip), then runs
// half-cleaners (i with i + d) for d = 2^(s-2) .. 1. Every comparator sends the element that comes
// first to the lower position, which virtual padding needs (network_common.cuh).
//
// Three kernels, the roles of the classic sortShared / mergeGlobal / mergeShared:
//   tile_sort   stages 1..LOG of one tile (2^LOG elements) in shared memory and registers;
//   global      up to LOG - 5 consecutive strides >= tile of one stage in one pass over memory: a block
//               holds 2^k rows (positions that differ only in the k stride bits) of C = 2^(LOG-k)
//               adjacent columns, so each stride is a step inside the tile;
//   tile_merge  the strides < tile that end every stage above LOG.
// Inside a tile a "virtual index" v (LOG bits) names each slot; each map below turns v into a
// global position so that the network's steps are steps on bits of v, the flip a flip of all the
// bits below its top.
#pragma once
#include "network_common.cuh"

namespace net {

// A thread holds 2^R slots that differ in bits [lo, lo+R) of v and runs every step on those bits.
// For a flip the upper half of its slots has every bit below lo complemented too, so the flip's
// partners are its own registers (j <-> 2^R-1-j) and the steps after it stay within each half.
template <int R, bool FLIP, bool DESC, class T, class Map>
__device__ __forceinline__ void reg_pass(T* sm, unsigned lo, const Map& map, long long n, bool all_real) {
  constexpr unsigned E = 1u << R;
  const unsigned low = (1u << lo) - 1;
  for (unsigned q = threadIdx.x; q < (Shape<T>::W >> R); q += policy::NET.threads) {
    const unsigned v0 = (q & low) | ((q & ~low) << R);
    T x[E];
    unsigned v[E];
    unsigned real = all_real ? ~0u : 0u;  // bit j: slot j holds a real element
#pragma unroll
    for (unsigned j = 0; j < E; ++j) {
      v[j] = v0 | (j << lo);
      if (FLIP && j >= E / 2) v[j] ^= low;
      x[j] = sm[slot(v[j])];
      if (!all_real && map.pos(v[j]) < n) real |= 1u << j;
    }
    if (FLIP) {
#pragma unroll
      for (unsigned j = 0; j < E / 2; ++j)
        if ((real >> (E - 1 - j)) & 1) cas<DESC>(x[j], x[E - 1 - j]);
    }
#pragma unroll
    for (unsigned d = FLIP ? E / 4 : E / 2; d >= 1; d >>= 1) {
#pragma unroll
      for (unsigned j = 0; j < E; ++j)
        if (!(j & d) && ((real >> (j | d)) & 1)) cas<DESC>(x[j], x[j | d]);
    }
#pragma unroll
    for (unsigned j = 0; j < E; ++j) sm[slot(v[j])] = x[j];
  }
}

// Stages 1..R on bits [0, R): all in registers, one shared round trip.
template <int R, bool DESC, class T, class Map>
__device__ __forceinline__ void reg_sort(T* sm, const Map& map, long long n, bool all_real) {
  constexpr unsigned E = 1u << R;
  for (unsigned q = threadIdx.x; q < (Shape<T>::W >> R); q += policy::NET.threads) {
    const unsigned v0 = q << R;
    T x[E];
    unsigned real = all_real ? ~0u : 0u;
#pragma unroll
    for (unsigned j = 0; j < E; ++j) {
      x[j] = sm[slot(v0 + j)];
      if (!all_real && map.pos(v0 + j) < n) real |= 1u << j;
    }
#pragma unroll
    for (unsigned size = 2; size <= E; size <<= 1) {
#pragma unroll
      for (unsigned j = 0; j < E; ++j)
        if (!(j & (size / 2)) && ((real >> (j ^ (size - 1))) & 1)) cas<DESC>(x[j], x[j ^ (size - 1)]);
#pragma unroll
      for (unsigned d = size / 4; d >= 1; d >>= 1) {
#pragma unroll
        for (unsigned j = 0; j < E; ++j)
          if (!(j & d) && ((real >> (j | d)) & 1)) cas<DESC>(x[j], x[j | d]);
      }
    }
#pragma unroll
    for (unsigned j = 0; j < E; ++j) sm[slot(v0 + j)] = x[j];
  }
}

// Steps on bits top-1 .. bottom of v, the first a flip when `flip`; groups of NetPolicy::reg_bits bits,
// the odd-sized group first so that the last one ends on `bottom`.
template <bool DESC, class T, class Map>
__device__ __forceinline__ void steps(T* sm, unsigned top, unsigned bottom, bool flip, const Map& map, long long n,
                                      bool all_real) {
  for (unsigned hi = top; hi > bottom;) {
    unsigned r = (hi - bottom) % policy::NET.reg_bits;
    if (r == 0) r = policy::NET.reg_bits;
    const unsigned lo = hi - r;
    const bool f = flip && hi == top;
#define NET_REG_CASE(R)                                            \
  case R:                                                          \
    if (f)                                                         \
      reg_pass<R, true, DESC>(sm, lo, map, n, all_real);           \
    else                                                           \
      reg_pass<R, false, DESC>(sm, lo, map, n, all_real);          \
    break;
    switch (r) {
      NET_REG_CASE(1)
      NET_REG_CASE(2)
      NET_REG_CASE(3)
      NET_REG_CASE(4)
    }
#undef NET_REG_CASE
    __syncthreads();
    hi = lo;
  }
}
static_assert(policy::NET.reg_bits >= 1 && policy::NET.reg_bits <= 4, "steps() dispatches group sizes 1..4");

struct TileMap {
  long long base;
  __device__ __forceinline__ long long pos(unsigned v) const { return base + v; }
  __device__ __forceinline__ bool owns(unsigned) const { return true; }
};

// Rows of a global pass: v = row << cb | c. Row g sits 2^b apart; columns c0 .. c0+C-1, or for a
// flip C/2 columns from c0 and their mirrors (2^b-1-col), so that complementing v mirrors both.
struct ColMap {
  long long base;
  unsigned b, cb, c0;
  bool flip;
  __device__ __forceinline__ long long pos(unsigned v) const {
    const unsigned C = 1u << cb, c = v & (C - 1);
    const unsigned col = (flip && c >= C / 2) ? (1u << b) - 1 - (c0 + (C - 1 - c)) : c0 + c;
    return base + ((long long)(v >> cb) << b) + col;
  }
  __device__ __forceinline__ bool owns(unsigned) const { return true; }
};

template <bool DESC, class T>
__device__ __forceinline__ void bitonic_tile_sort(const T* src, T* dst, long long n) {
  T* sm = tile_smem<T>();
  const TileMap map{(long long)blockIdx.x * Shape<T>::W};
  const bool all_real = map.base + Shape<T>::W <= n;
  load_tile(sm, src, map, n);
  __syncthreads();
  reg_sort<policy::NET.reg_bits, DESC>(sm, map, n, all_real);
  __syncthreads();
  for (unsigned s = policy::NET.reg_bits + 1; s <= Shape<T>::LOG; ++s) steps<DESC>(sm, s, 0, true, map, n, all_real);
  store_tile(dst, sm, map, n);
}

template <bool DESC, class T>
__device__ __forceinline__ void bitonic_tile_merge(const T* src, T* dst, long long n) {
  T* sm = tile_smem<T>();
  const TileMap map{(long long)blockIdx.x * Shape<T>::W};
  const bool all_real = map.base + Shape<T>::W <= n;
  load_tile(sm, src, map, n);
  __syncthreads();
  steps<DESC>(sm, Shape<T>::LOG, 0, false, map, n, all_real);
  store_tile(dst, sm, map, n);
}

// Strides 2^(b+k-1) .. 2^b of one stage; `flip` when the first of them is the stage's flip.
template <bool DESC, class T>
__device__ __forceinline__ void bitonic_global(const T* src, T* dst, long long n, unsigned b, unsigned k,
                                               unsigned flip) {
  T* sm = tile_smem<T>();
  const unsigned cb = Shape<T>::LOG - k, groups_log = b - cb;
  const unsigned cg = blockIdx.x & ((1u << groups_log) - 1);
  const long long base = (long long)(blockIdx.x >> groups_log) << (b + k);
  if (base >= n) return;
  const ColMap map{base, b, cb, flip ? cg << (cb - 1) : cg << cb, flip != 0};
  const bool all_real = base + (1ll << (b + k)) <= n;
  load_tile(sm, src, map, n);
  __syncthreads();
  steps<DESC>(sm, Shape<T>::LOG, cb, flip != 0, map, n, all_real);
  store_tile(dst, sm, map, n);
}

}  // namespace net
