// Batcher's odd-even merge sort. Stage s merges sorted runs of 2^(s-1) into runs of m = 2^s: its
// first step compares i with i + m/2 (bit m/2 of i clear), each later step of stride d compares
// i with i + d where bit d of i is set and both lie in the same run of m.
//
// Those later comparators are not closed over aligned groups (i + d carries into higher bits), so a
// tile cannot own its positions the way bitonic tiles do. Instead a pass that runs strides
// 2^(h-1) .. 1 (in units of its rows) loads a window with 2^h rows of halo on each side: a skipped
// comparator at the window's edge spoils at most 2^(h-1) + .. + 1 < 2^h rows inward, so the middle
// rows come out exact and are the only ones written. Windows overlap, so these passes read one
// buffer and write the other.
//
// Kernels: tile_sort (stages 1..LOG of one aligned tile, in place), tile_merge (strides < 2^h of one
// stage, windows of contiguous positions), global (k consecutive strides >= 2^h of one stage, windows
// of 16 columns by 2^LOG/16 rows).
#pragma once
#include "network_common.cuh"

namespace net {

// One step on slots v: stride 2^dbit in v. Comparators go in batches of 8 that load before any
// compares, so their shared-memory latencies overlap without holding 16 pairs of keys live.
template <bool DESC, class T, class Map>
__device__ __forceinline__ void oe_step(T* sm, const Map& map, unsigned s, unsigned dbit, bool first) {
  constexpr unsigned PER = Shape<T>::W / 2 / NET_THREADS, BATCH = PER < 8 ? PER : 8;
  const unsigned dv = 1u << dbit;
#pragma unroll
  for (unsigned k0 = 0; k0 < PER; k0 += BATCH) {
    unsigned a[BATCH];
    bool ok[BATCH];
    T x[BATCH], y[BATCH];
#pragma unroll
    for (unsigned k = 0; k < BATCH; ++k) {
      const unsigned i = threadIdx.x + (k0 + k) * NET_THREADS;
      const unsigned lower = (i & (dv - 1)) | ((i & ~(dv - 1)) << 1);  // bit dbit clear
      a[k] = first ? lower : lower + dv;
      ok[k] = a[k] + dv < Shape<T>::W && map.pair_ok(a[k], a[k] + dv, s);
      if (ok[k]) {
        x[k] = sm[slot(a[k])];
        y[k] = sm[slot(a[k] + dv)];
      }
    }
#pragma unroll
    for (unsigned k = 0; k < BATCH; ++k) {
      if (ok[k]) {
        cas<DESC>(x[k], y[k]);
        sm[slot(a[k])] = x[k];
        sm[slot(a[k] + dv)] = y[k];
      }
    }
  }
  __syncthreads();
}

// Contiguous window from `start` (negative for the first block). Positions fit in 32 bits since
// n <= 2^30 (plan.rs). `pair_ok`: both real and in the same run of 2^s.
struct OeTileMap {
  long long start;
  unsigned halo;  // slots [halo, W - halo) are this block's to write
  unsigned w;
  int first, lim;  // slots v with first <= v < lim hold real positions
  __device__ __forceinline__ OeTileMap(long long start_, unsigned halo_, unsigned w_, long long n)
      : start(start_), halo(halo_), w(w_) {
    first = start < 0 ? (int)-start : 0;
    const long long l = n - start;
    lim = l < (long long)w ? (int)l : (int)w;
  }
  __device__ __forceinline__ long long pos(unsigned v) const { return start + v; }
  __device__ __forceinline__ bool owns(unsigned v) const { return v >= halo && v < w - halo; }
  __device__ __forceinline__ bool pair_ok(unsigned a, unsigned b, unsigned s) const {
    const int pa = (int)start + (int)a, pb = (int)start + (int)b;
    return (int)a >= first && (int)b < lim && (pa >> s) == (pb >> s);
  }
};

// v = row << cb | c; position (row0 + row) * 2^b + col0 + c. A run of 2^s positions is 2^(s-b)
// rows; rows below `full` are real in every column of the window.
struct OeColMap {
  long long row0;
  unsigned b, cb, col0, halo_rows, rows;
  long long n;
  int full;
  __device__ __forceinline__ OeColMap(long long row0_, unsigned b_, unsigned cb_, unsigned col0_, unsigned halo_rows_,
                                      unsigned rows_, long long n_)
      : row0(row0_), b(b_), cb(cb_), col0(col0_), halo_rows(halo_rows_), rows(rows_), n(n_) {
    const long long room = n - col0 - (1ll << cb);  // last column of row r real <=> r * 2^b <= room
    full = room < 0 ? 0 : (int)((room >> b) + 1);
  }
  __device__ __forceinline__ long long pos(unsigned v) const {
    return (row0 + (long long)(v >> cb)) * (1ll << b) + col0 + (v & ((1u << cb) - 1));
  }
  __device__ __forceinline__ bool owns(unsigned v) const {
    const unsigned r = v >> cb;
    return r >= halo_rows && r < rows - halo_rows;
  }
  __device__ __forceinline__ bool pair_ok(unsigned a, unsigned b_, unsigned s) const {
    const int ra = (int)row0 + (int)(a >> cb), rb = (int)row0 + (int)(b_ >> cb);
    if (ra < 0 || (ra >> (s - b)) != (rb >> (s - b))) return false;
    return rb < full || pos(b_) < n;
  }
};

template <bool DESC, class T>
__device__ __forceinline__ void oddeven_tile_sort(const T* src, T* dst, long long n) {
  __shared__ T sm[Shape<T>::SLOTS];
  const OeTileMap map((long long)blockIdx.x * Shape<T>::W, 0, Shape<T>::W, n);
  load_tile(sm, src, map, n);
  __syncthreads();
  for (unsigned s = 1; s <= Shape<T>::LOG; ++s)
    for (unsigned d = s; d-- > 0;) oe_step<DESC>(sm, map, s, d, d == s - 1);
  store_tile(dst, sm, map, n);
}

// Strides 2^(h-1) .. 1 of stage s > LOG; block i owns positions [i*M, (i+1)*M), M = W - 2^(h+1).
template <bool DESC, class T>
__device__ __forceinline__ void oddeven_tile_merge(const T* src, T* dst, long long n, unsigned s, unsigned h) {
  __shared__ T sm[Shape<T>::SLOTS];
  const unsigned halo = 1u << h, own = Shape<T>::W - 2 * halo;
  const OeTileMap map((long long)blockIdx.x * own - halo, halo, Shape<T>::W, n);
  load_tile(sm, src, map, n);
  __syncthreads();
  for (unsigned d = h; d-- > 0;) oe_step<DESC>(sm, map, s, d, false);
  store_tile(dst, sm, map, n);
}

// Strides 2^(b+k-1) .. 2^b of stage s; the first is the stage's opening step when b + k == s.
template <bool DESC, class T>
__device__ __forceinline__ void oddeven_global(const T* src, T* dst, long long n, unsigned s, unsigned b,
                                               unsigned k) {
  __shared__ T sm[Shape<T>::SLOTS];
  constexpr unsigned cb = NET_OE_COL_BITS, rows = Shape<T>::W >> cb;
  const unsigned halo = 1u << k, own = rows - 2 * halo, groups_log = b - cb;
  const unsigned cg = blockIdx.x & ((1u << groups_log) - 1);
  // row0 is a multiple of 2^k, so the low k bits of a window row are those of the global row.
  const OeColMap map((long long)(blockIdx.x >> groups_log) * own - halo, b, cb, cg << cb, halo, rows, n);
  load_tile(sm, src, map, n);
  __syncthreads();
  for (unsigned d = b + k; d-- > b;) oe_step<DESC>(sm, map, s, d - b + cb, d == s - 1);
  store_tile(dst, sm, map, n);
}

}  // namespace net
