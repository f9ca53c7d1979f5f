// Step 1 of the radix sort (radix.cuh): one read of the keys counts every digit of every pass.
#pragma once

#include "radix_keys.cuh"

namespace radix {

// ---- 1. histogram of every digit --------------------------------------------------------------
// Adds the digits of every pass of src[i], i = first, first + stride, ... below end, to
// counts[pass * RADIX + digit], with LOADS loads in flight before the first atomic. The whole
// sort's histogram and the segmented one (radix_segments.cuh) both count through it.
template <class S, bool FLOAT, int LOADS, class Index, class Load = typename S::Item>
__device__ __forceinline__ void add_digit_counts(const Load *src, Index first, Index end, Index stride,
                                             const KeyOrder<S, FLOAT> &key, unsigned *counts) {
    auto count_item = [&](const typename S::Item &x) {
        const auto b = key(x);
#pragma unroll
        for (int p = 0; p < S::PASSES; ++p)
            atomicAdd(&counts[p * RADIX + ((unsigned)(b >> (p * DIGIT_BITS)) & (RADIX - 1))], 1u);
    };
    // A Load is one item or a 16-byte vector of them (histogram below).
    auto count = [&](const Load &x) {
        if constexpr (std::is_same_v<Load, typename S::Item>) {
            count_item(x);
        } else {
#pragma unroll
            for (const auto &item : x.items) count_item(item);
        }
    };
    Index i = first;
    for (; i + (LOADS - 1) * stride < end; i += LOADS * stride) {
        Load x[LOADS];
#pragma unroll
        for (int k = 0; k < LOADS; ++k) x[k] = src[i + k * stride];
#pragma unroll
        for (int k = 0; k < LOADS; ++k) count(x[k]);
    }
    for (; i < end; i += stride) count(src[i]);
}

template <class S, bool FLOAT, int THREADS, int ITEMS>
__device__ void histogram(const typename S::Item *keys, unsigned long long n, int order,
                          unsigned long long *hist) {
    __shared__ unsigned counts[S::PASSES * RADIX];
    for (int i = threadIdx.x; i < S::PASSES * RADIX; i += THREADS) counts[i] = 0;
    __syncthreads();
    const KeyOrder<S, FLOAT> key(order);
    const unsigned long long stride = (unsigned long long)gridDim.x * THREADS;
    const unsigned long long first = (unsigned long long)blockIdx.x * THREADS + threadIdx.x;
    using Item = typename S::Item;
    constexpr int PER_VEC = 16 / sizeof(Item);
    if constexpr (S::HIST_VECTOR && PER_VEC > 1) {
        // 16-byte loads over the aligned middle of the input (tuning.cuh RADIX_HIST_VECTOR_*); the
        // few items before and after it one at a time.
        struct alignas(16) Vec {
            Item items[PER_VEC];
        };
        const unsigned long long head = min(n, (unsigned long long)(((16 - ((size_t)keys & 15)) & 15) / sizeof(Item)));
        const unsigned long long vecs = (n - head) / PER_VEC;
        const unsigned long long tail = head + vecs * PER_VEC;
        add_digit_counts<S, FLOAT, 1>(keys, first, head, stride, key, counts);
        add_digit_counts<S, FLOAT, 1>(keys, tail + first, n, stride, key, counts);
        add_digit_counts<S, FLOAT, ITEMS>(reinterpret_cast<const Vec *>(keys + head), first, vecs, stride, key, counts);
    } else {
        add_digit_counts<S, FLOAT, ITEMS>(keys, first, n, stride, key, counts);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < S::PASSES * RADIX; k += THREADS)
        if (counts[k]) atomicAdd(&hist[k], (unsigned long long)counts[k]);
}

}  // namespace radix
