// Step 1 of the radix sort (radix.cuh): one read of the keys counts every digit of every pass.
#pragma once

#include "radix_keys.cuh"

namespace radix {

// ---- 1. histogram of every digit --------------------------------------------------------------
// Adds the digits of every pass of src[i], i = first, first + stride, ... below end, to
// counts[pass * RADIX + digit], with LOADS loads in flight before the first atomic. The whole
// sort's histogram and the segmented one (radix_segments.cuh) both count through it.
// With COPIES > 1 the counts are laid out digit-major, COPIES words a digit, and `counts` points
// at this lane's copy (histogram below).
template <class S, bool FLOAT, int LOADS, class Index, class Load = typename S::Item, int COPIES = 1>
__device__ __forceinline__ void add_digit_counts(const Load *src, Index first, Index end, Index stride,
                                             const KeyOrder<S, FLOAT> &key, unsigned *counts) {
    auto count_item = [&](const typename S::Item &x) {
        const auto b = key(x);
#pragma unroll
        for (int p = 0; p < S::PASSES; ++p)
            atomicAdd(&counts[(p * RADIX + ((unsigned)(b >> (p * DIGIT_BITS)) & (RADIX - 1))) * COPIES], 1u);
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

// Copies of the counts a block keeps (policy_radix.cuh HistPolicy, halved until they fit in its
// copy_bytes): with one per lane a warp's atomic adds meet in 32 different banks.
template <class S> __host__ __device__ constexpr int hist_copies() {
    int copies = policy::HIST.copies;
    while (copies > 1 && S::PASSES * RADIX * copies * 4 > policy::HIST.copy_bytes) copies /= 2;
    return copies;
}
// Dynamic shared memory of the histogram block: 0 for one copy (static).
template <class S> __host__ __device__ constexpr unsigned hist_dynamic_bytes() {
    return hist_copies<S>() > 1 ? S::PASSES * RADIX * hist_copies<S>() * 4 : 0;
}

template <class S, bool FLOAT, int THREADS, int ITEMS>
__device__ void histogram(const typename S::Item *keys, unsigned long long n, int order,
                          unsigned long long *hist) {
    constexpr int COPIES = hist_copies<S>(), WORDS = S::PASSES * RADIX;
    static_assert(32 % COPIES == 0, "a warp's lanes share the copies evenly");
    unsigned *all_counts;
    if constexpr (COPIES > 1) {
        extern __shared__ unsigned hist_dynamic[];
        all_counts = hist_dynamic;
    } else {
        __shared__ unsigned hist_static[WORDS];
        all_counts = hist_static;
    }
    for (int i = threadIdx.x; i < WORDS * COPIES; i += THREADS) all_counts[i] = 0;
    __syncthreads();
    unsigned *const counts = all_counts + threadIdx.x % COPIES;
    const KeyOrder<S, FLOAT> key(order);
    const unsigned long long stride = (unsigned long long)gridDim.x * THREADS;
    const unsigned long long first = (unsigned long long)blockIdx.x * THREADS + threadIdx.x;
    using Item = typename S::Item;
    constexpr int PER_VEC = 16 / sizeof(Item);
    if constexpr (S::HIST_VECTOR && PER_VEC > 1) {
        // 16-byte loads over the aligned middle of the input (S::HIST_VECTOR); the
        // few items before and after it one at a time.
        struct alignas(16) Vec {
            Item items[PER_VEC];
        };
        const unsigned long long head = min(n, (unsigned long long)(((16 - ((size_t)keys & 15)) & 15) / sizeof(Item)));
        const unsigned long long vecs = (n - head) / PER_VEC;
        const unsigned long long tail = head + vecs * PER_VEC;
        add_digit_counts<S, FLOAT, 1, unsigned long long, Item, COPIES>(keys, first, head, stride, key, counts);
        add_digit_counts<S, FLOAT, 1, unsigned long long, Item, COPIES>(keys, tail + first, n, stride, key, counts);
        add_digit_counts<S, FLOAT, ITEMS, unsigned long long, Vec, COPIES>(reinterpret_cast<const Vec *>(keys + head),
                                                                          first, vecs, stride, key, counts);
    } else {
        add_digit_counts<S, FLOAT, ITEMS, unsigned long long, Item, COPIES>(keys, first, n, stride, key, counts);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < WORDS; k += THREADS) {
        // Each thread starts its sum at a different copy, so a warp's reads meet in different banks.
        unsigned sum = 0;
#pragma unroll
        for (int c = 0; c < COPIES; ++c) sum += all_counts[k * COPIES + (c + k) % COPIES];
        if (sum) atomicAdd(&hist[k], (unsigned long long)sum);
    }
}

}  // namespace radix
