// Stable LSD radix sort, 8-bit digits, Onesweep style (Adinets & Merrill 2022):
//   1. radix_histogram: one read of the keys counts every digit of every pass at once;
//   2. radix_prepare:   per pass, the global start of each digit and whether the pass can be
//                       skipped (one digit holds every key), plus which buffer each pass reads;
//   3. radix_onesweep:  per pass, one kernel (radix_onesweep.cuh): each block ranks a tile in
//                       shared memory, finds the tile's global offsets by a chained scan with
//                       decoupled look-back, stages the tile in digit order so the writes are
//                       coalesced, and scatters;
//   4. radix_copy_back: when an odd number of passes ran, the result is in the scratch buffer
//                       (keys and split values in one launch).
// radix_small sorts inputs of one tile in one block and one launch (radix_small.cuh).
//
// Everything is templated on a sort description S (the item that moves in the key array, the
// optional separate value array, the key's order-preserving bits), so other key types are one
// more struct (radix_keys.cuh) and one more macro line in radix.cu.
#pragma once

#include "radix_histogram.cuh"
#include "radix_keys.cuh"
#include "radix_rank.cuh"
#include "radix_onesweep.cuh"

namespace radix {

// ---- 2. plan -------------------------------------------------------------------------------------
// One block of RADIX threads. bases: [passes][2][RADIX], slot 0 of each pass gets the digit starts.
__device__ void prepare(const unsigned long long *hist, int passes, unsigned long long n, unsigned *plan,
                        unsigned long long *bases) {
    __shared__ unsigned long long warp_sums[RADIX / 32];
    __shared__ unsigned skip[MAX_PASSES];
    const int t = threadIdx.x;
    // Every pass's count read at once: one after another they waited on L2 in turn (ncu, H200,
    // 16K u64 keys with u32 values: 7.3 us for eight passes, 5.3 at once).
    unsigned long long counts[MAX_PASSES];
#pragma unroll
    for (int p = 0; p < MAX_PASSES; ++p) counts[p] = p < passes ? hist[p * RADIX + t] : 0;
#pragma unroll
    for (int p = 0; p < MAX_PASSES; ++p) {
        if (p >= passes) break;
        const unsigned long long c = counts[p];
        const int all_one_digit = __syncthreads_or(c == n);
        const unsigned long long start = scan_digits(c, warp_sums);
        bases[(p * 2) * RADIX + t] = start;
        if (t == 0) skip[p] = all_one_digit;
        __syncthreads();  // warp_sums is reused by the next pass
    }
    if (t == 0) {
        unsigned running = 0;
        for (int p = 0; p < MAX_PASSES; ++p) {
            const bool run = p < passes && !skip[p];
            plan[PLAN_SKIP + p] = !run;
            plan[PLAN_BEFORE + p] = running;
            running += run;
        }
        plan[PLAN_RUNNING] = running;
    }
}

// ---- 4. result back into the caller's buffer ---------------------------------------------------
// Copies `bytes` bytes from src to dst, thread i of the grid taking the pieces i, i + stride, ...:
// 16 bytes a piece where both are 16-byte aligned, else 4 where they are 4-byte aligned, the
// bytes past the last whole piece one by one (8- and 16-bit keys).
template <class Piece>
__device__ __forceinline__ unsigned long long copy_pieces(const unsigned char *src, unsigned char *dst,
                                                          unsigned long long bytes, unsigned long long i,
                                                          unsigned long long stride) {
    const unsigned long long pieces = bytes / sizeof(Piece);
    for (unsigned long long q = i; q < pieces; q += stride)
        reinterpret_cast<Piece *>(dst)[q] = reinterpret_cast<const Piece *>(src)[q];
    return pieces * sizeof(Piece);
}

__device__ void copy_bytes(const unsigned char *src, unsigned char *dst, unsigned long long bytes, unsigned long long i,
                           unsigned long long stride) {
    const size_t both = (size_t)src | (size_t)dst;
    unsigned long long done = 0;
    if ((both & 15) == 0) done = copy_pieces<uint4>(src, dst, bytes, i, stride);
    else if ((both & 3) == 0) done = copy_pieces<unsigned>(src, dst, bytes, i, stride);
    for (unsigned long long b = done + i; b < bytes; b += stride) dst[b] = src[b];
}

// The keys (src, dst) and, for split pairs, the values (vsrc, vdst; vbytes 0 without) in one launch.
__device__ void copy_back(const unsigned *plan, const unsigned char *src, unsigned char *dst, unsigned long long bytes,
                          const unsigned char *vsrc, unsigned char *vdst, unsigned long long vbytes) {
    if (!(plan[PLAN_RUNNING] & 1)) return;  // the result is in A
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    copy_bytes(src, dst, bytes, i, stride);
    copy_bytes(vsrc, vdst, vbytes, i, stride);
}

// The same for an interleaved B (S::B_INTERLEAVED): its n items split back into keys and values.
// With a second item buffer (`items_c`, S::B_INTERLEAVED 2) only a sort of one running pass ends in B.
__device__ void copy_back_split(const unsigned *plan, const KvpItem *src, const KvpItem *items_c, unsigned *keys,
                                unsigned *values, unsigned long long n) {
    const unsigned running = plan[PLAN_RUNNING];
    if (items_c != nullptr ? running != 1 : !(running & 1)) return;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const KvpItem x = src[i];
        keys[i] = x.key;
        values[i] = x.value;
    }
}

}  // namespace radix
