// Batcher's odd-even merge sort. Stage s merges sorted runs of 2^(s-1) into runs of m = 2^s: its
// first step compares i with i + m/2 (bit m/2 of i clear), each later step of stride d compares
// i with i + d where bit d of i is set and both lie in the same run of m.
//
// Those later comparators are not closed over aligned groups (i + d carries into higher bits), so a
// tile cannot own its positions the way bitonic tiles do, except for a stage's top strides: the
// steps of strides m/2 .. 2^c touch only bits [c, s) of a position, and the carry stops at bit s
// (same run), so groups that vary bits [c, s) are closed. Those run without halo: in registers
// (oe_reg, the top NetPolicy::reg_bits strides of a stage), and in "closed" global passes whose windows
// hold whole runs. The lower strides 2^(h-1) .. 1 (in units of a pass's rows) load a window with
// 2^h rows of halo on each side: a skipped comparator at the window's edge spoils at most
// 2^(h-1) + .. + 1 < 2^h rows inward, so the middle rows come out exact and are the only ones
// written. Windows overlap, so the halo passes read one buffer and write the other.
//
// Kernels: tile_sort (stages 1..LOG of one aligned tile), tile_merge (strides < 2^h of one stage,
// windows of contiguous positions), global (k consecutive strides >= 2^h of one stage, windows of
// 2^NetPolicy::oe_col_bits columns by rows; closed, without halo, when they are the stage's top strides).
#pragma once
#include "network_common.cuh"

namespace net {

// One step on slots v: stride 2^dbit in v. Comparators go in batches of 8 that load before any
// compares, so their shared-memory latencies overlap without holding 16 pairs of keys live.
// Comparator k of a thread is i = i0 + k * INC: i0 = tid and INC = NetPolicy::threads over the tile, or
// with WARP each warp's comparators over its own W / warps slots (i0 = warp * 32 * PER + lane,
// INC = 32), synchronised by the warp alone. With NEAR (dv <= INC) adding k * INC to i only adds
// to the bits above dbit, so the slots of comparator k are those of comparator 0 plus a constant:
// one address computation per step instead of one per comparator.
template <bool NEAR, bool WARP, bool DESC, class T, class Map>
__device__ __forceinline__ void oe_step_body(T* sm, const Map& map, unsigned s, unsigned dbit, bool first) {
  constexpr unsigned PER = Shape<T>::W / 2 / policy::NET.threads, BATCH = PER < 8 ? PER : 8;
  constexpr unsigned INC = WARP ? 32 : policy::NET.threads, STEP = 2 * INC, SLOT_STEP = STEP + STEP / 16;
  const unsigned dv = 1u << dbit;
  const unsigned i0 = WARP ? threadIdx.x / 32 * (32 * PER) + threadIdx.x % 32 : threadIdx.x;
  const unsigned lower0 = (i0 & (dv - 1)) | ((i0 & ~(dv - 1)) << 1);
  const unsigned a0 = first ? lower0 : lower0 + dv;
  const unsigned sa0 = slot(a0), sb0 = slot(a0 + dv);
#pragma unroll
  for (unsigned k0 = 0; k0 < PER; k0 += BATCH) {
    unsigned a[BATCH];
    bool ok[BATCH];
    T x[BATCH], y[BATCH];
#pragma unroll
    for (unsigned k = 0; k < BATCH; ++k) {
      if (NEAR) {
        a[k] = a0 + (k0 + k) * STEP;
      } else {
        const unsigned i = i0 + (k0 + k) * INC;
        const unsigned lower = (i & (dv - 1)) | ((i & ~(dv - 1)) << 1);  // bit dbit clear
        a[k] = first ? lower : lower + dv;
      }
      ok[k] = a[k] + dv < Shape<T>::W && map.pair_ok(a[k], a[k] + dv, s);
      if (ok[k]) {
        x[k] = sm[NEAR ? sa0 + (k0 + k) * SLOT_STEP : slot(a[k])];
        y[k] = sm[NEAR ? sb0 + (k0 + k) * SLOT_STEP : slot(a[k] + dv)];
      }
    }
#pragma unroll
    for (unsigned k = 0; k < BATCH; ++k) {
      // Only comparators that swapped write back (NetPolicy::oe_store_swaps): fewer lanes per store.
      if (ok[k] && (cas<DESC>(x[k], y[k]) || !policy::NET.oe_store_swaps)) {
        sm[NEAR ? sa0 + (k0 + k) * SLOT_STEP : slot(a[k])] = x[k];
        sm[NEAR ? sb0 + (k0 + k) * SLOT_STEP : slot(a[k] + dv)] = y[k];
      }
    }
  }
  if (WARP)
    __syncwarp();
  else
    __syncthreads();
}

template <bool DESC, bool WARP = false, class T, class Map>
__device__ __forceinline__ void oe_step(T* sm, const Map& map, unsigned s, unsigned dbit, bool first) {
  if constexpr (policy::NET.oe_step_near) {
    if ((1u << dbit) <= (WARP ? 32u : policy::NET.threads)) {
      oe_step_body<true, WARP, DESC>(sm, map, s, dbit, first);
      return;
    }
  }
  oe_step_body<false, WARP, DESC>(sm, map, s, dbit, first);
}

// The top R strides of stage `s` on bits [lo, lo + R) of v, which must be the stage's top bits
// (lo + R = s in v bits), or with SORT every stage up to R when lo = 0: a thread's 2^R slots are
// then closed under those comparators. Slot j is real when its position is < n (windows here never
// hang over the front), and a comparator runs only when its upper slot is real.
// With WARP a warp takes the groups q of its own W / warps slots, and only it synchronises.
template <int R, bool SORT, bool DESC, bool ALL_REAL, bool WARP, class T, class Map>
__device__ __forceinline__ void oe_reg_body(T* sm, unsigned lo, const Map& map, long long n) {
  constexpr unsigned E = 1u << R, GROUPS = Shape<T>::W >> R;
  static_assert(!WARP || GROUPS % policy::NET.threads == 0, "a warp's groups cover its slots");
  const unsigned low = (1u << lo) - 1;
  constexpr unsigned PER_WARP = GROUPS / (policy::NET.threads / 32);
  const unsigned q0 = WARP ? threadIdx.x / 32 * PER_WARP + threadIdx.x % 32 : threadIdx.x;
  const unsigned q_end = WARP ? (threadIdx.x / 32 + 1) * PER_WARP : GROUPS;
  for (unsigned q = q0; q < q_end; q += WARP ? 32 : policy::NET.threads) {
    const unsigned v0 = (q & low) | ((q & ~low) << R);
    T x[E];
    unsigned real = ALL_REAL ? ~0u : 0u;
#pragma unroll
    for (unsigned j = 0; j < E; ++j) {
      const unsigned v = v0 | (j << lo);
      x[j] = sm[slot(v)];
      if (!ALL_REAL && map.pos(v) < n) real |= 1u << j;
    }
#pragma unroll
    for (unsigned size = SORT ? 2 : E; size <= E; size <<= 1) {
#pragma unroll
      for (unsigned j = 0; j < E; ++j)
        if (!(j & (size / 2)) && ((real >> (j + size / 2)) & 1)) cas<DESC>(x[j], x[j + size / 2]);
#pragma unroll
      for (unsigned d = size / 4; d >= 1; d >>= 1) {
#pragma unroll
        for (unsigned j = 0; j < E; ++j)
          if ((j & d) && j / size == (j + d) / size && ((real >> (j + d)) & 1)) cas<DESC>(x[j], x[j + d]);
      }
    }
#pragma unroll
    for (unsigned j = 0; j < E; ++j) sm[slot(v0 | (j << lo))] = x[j];
  }
  if (WARP)
    __syncwarp();
  else
    __syncthreads();
}

// Full windows (every slot real) take a copy without the checks.
template <int R, bool SORT, bool DESC, bool WARP = false, class T, class Map>
__device__ __forceinline__ void oe_reg(T* sm, unsigned lo, const Map& map, long long n, bool all_real) {
  if (all_real)
    oe_reg_body<R, SORT, DESC, true, WARP>(sm, lo, map, n);
  else
    oe_reg_body<R, SORT, DESC, false, WARP>(sm, lo, map, n);
}

// oe_reg with R = min(NetPolicy::reg_bits, k) for the top k strides ending at bit `top` of v.
template <bool DESC, class T, class Map>
__device__ __forceinline__ unsigned oe_reg_top(T* sm, unsigned top, unsigned k, const Map& map, long long n,
                                               bool all_real) {
  const unsigned r = k < policy::NET.reg_bits ? k : policy::NET.reg_bits;
  switch (r) {
    case 1: oe_reg<1, false, DESC>(sm, top - 1, map, n, all_real); break;
    case 2: if constexpr (policy::NET.reg_bits >= 2) oe_reg<2, false, DESC>(sm, top - 2, map, n, all_real); break;
    case 3: if constexpr (policy::NET.reg_bits >= 3) oe_reg<3, false, DESC>(sm, top - 3, map, n, all_real); break;
    case 4: if constexpr (policy::NET.reg_bits >= 4) oe_reg<4, false, DESC>(sm, top - 4, map, n, all_real); break;
  }
  return r;
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
  T* sm = tile_smem<T>();
  const OeTileMap map((long long)blockIdx.x * Shape<T>::W, 0, Shape<T>::W, n);
  const bool all_real = map.start + Shape<T>::W <= n;
  load_tile(sm, src, map, n);
  __syncthreads();
  // Stages whose runs fit one warp's W / warps slots run warp by warp, without block barriers.
  constexpr unsigned R = policy::NET.oe_sort_reg_bits, CHUNK_LOG = Shape<T>::LOG - ilog2(policy::NET.threads / 32);
  constexpr bool WARPS = policy::NET.oe_warp_stages && CHUNK_LOG >= R;
  oe_reg<R, true, DESC, WARPS>(sm, 0, map, n, all_real);
  for (unsigned s = R + 1; s <= Shape<T>::LOG; ++s) {
    if (WARPS && s <= CHUNK_LOG) {
      oe_reg<R, false, DESC, true>(sm, s - R, map, n, all_real);
      for (unsigned d = s - R; d-- > 0;) oe_step<DESC, true>(sm, map, s, d, false);
      continue;
    }
    if (WARPS && s == CHUNK_LOG + 1) __syncthreads();
    oe_reg<R, false, DESC>(sm, s - R, map, n, all_real);
    for (unsigned d = s - R; d-- > 0;) oe_step<DESC>(sm, map, s, d, false);
  }
  if (WARPS && Shape<T>::LOG <= CHUNK_LOG) __syncthreads();
  store_tile(dst, sm, map, n);
}

// Strides 2^(h-1) .. 1 of stage s > LOG; block i owns positions [i*M, (i+1)*M), M = W - 2^(h+1).
template <bool DESC, class T>
__device__ __forceinline__ void oddeven_tile_merge(const T* src, T* dst, long long n, unsigned s, unsigned h) {
  T* sm = tile_smem<T>();
  const unsigned halo = 1u << h, own = Shape<T>::W - 2 * halo;
  const OeTileMap map((long long)blockIdx.x * own - halo, halo, Shape<T>::W, n);
  load_tile(sm, src, map, n);
  __syncthreads();
  for (unsigned d = h; d-- > 0;) oe_step<DESC>(sm, map, s, d, false);
  store_tile(dst, sm, map, n);
}

// Strides 2^(b+k-1) .. 2^b of stage s. When b + k == s they are the stage's top strides and the
// pass is closed: windows hold whole runs of 2^k rows (plan.rs keeps 2^k <= rows), no halo, the
// first strides in registers. Otherwise windows carry 2^k halo rows on each side.
template <bool DESC, class T>
__device__ __forceinline__ void oddeven_global(const T* src, T* dst, long long n, unsigned s, unsigned b,
                                               unsigned k) {
  T* sm = tile_smem<T>();
  constexpr unsigned cb = policy::NET.oe_col_bits, rows = Shape<T>::W >> cb;
  const bool closed = b + k == s;
  const unsigned halo = closed ? 0 : 1u << k, own = rows - 2 * halo, groups_log = b - cb;
  const unsigned cg = blockIdx.x & ((1u << groups_log) - 1);
  // row0 is a multiple of 2^k, so the low k bits of a window row are those of the global row.
  const OeColMap map((long long)(blockIdx.x >> groups_log) * own - halo, b, cb, cg << cb, halo, rows, n);
  load_tile(sm, src, map, n);
  __syncthreads();
  unsigned top = b + k;
  if (closed) top -= oe_reg_top<DESC>(sm, k + cb, k, map, n, map.pos(Shape<T>::W - 1) < n);
  for (unsigned d = top; d-- > b;) oe_step<DESC>(sm, map, s, d - b + cb, d == s - 1);
  store_tile(dst, sm, map, n);
}

}  // namespace net
