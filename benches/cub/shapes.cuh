// CUB's radix sort on the other shapes, the inputs of benches/sort/shapes.rs: keys
// from the splitmix64 stream seeded with n (output i is z; 32-bit keys its low half, as unsigned,
// int or float bits, 64-bit keys all of it, as integer or double bits), values 0..n, DoubleBuffer
// API, device-resident. Each result is checked on the host: sorted in CUB's order (floats by their total order, as
// CUB's bit twiddling orders them) and, for pairs, every value still with its key.
#pragma once

#include <cub/cub.cuh>

#include "harness.cuh"

#include <atomic>
#include <cstring>
#include <type_traits>
#include <vector>

// The unsigned word that orders a key as CUB's radix sort does: signed keys with the sign bit
// flipped, floats with all bits flipped when negative and the sign bit otherwise.
template <class K> static unsigned long long ordered_bits(K k) {
    if constexpr (std::is_same_v<K, float>) {
        unsigned u;
        memcpy(&u, &k, 4);
        return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    } else if constexpr (std::is_same_v<K, double>) {
        unsigned long long u;
        memcpy(&u, &k, 8);
        return (u >> 63) ? ~u : (u | (1ull << 63));
    } else if constexpr (std::is_same_v<K, int>) {
        return (unsigned)k ^ 0x80000000u;
    } else {
        return (unsigned long long)k;
    }
}

template <class K> static K key_from(unsigned long long z) {
    if constexpr (std::is_same_v<K, float>) {
        unsigned u = (unsigned)z;
        float f;
        memcpy(&f, &u, 4);
        return f;
    } else if constexpr (std::is_same_v<K, double>) {
        double d;
        memcpy(&d, &z, 8);
        return d;
    } else if constexpr (std::is_same_v<K, int>) {
        return (int)(unsigned)z;
    } else if constexpr (std::is_same_v<K, unsigned>) {
        return (unsigned)z;
    } else {
        return (K)z;
    }
}

// Times one shape at n: keys of type K, with values when `pairs`, descending when `desc`.
// Returns the median in ms, or a negative number when the result was wrong.
template <class K, bool PAIRS, bool DESC>
static float cub_shape(size_t n, int warmups, int runs, size_t *temp_out) {
    std::vector<K> hk(n);
    std::vector<unsigned> hv(n);
    parallel_for(n, [&](size_t i) {
        hk[i] = key_from<K>(splitmix(n, i));
        hv[i] = (unsigned)i;
    });
    K *pk, *k0, *k1;
    unsigned *pv = nullptr, *v0 = nullptr, *v1 = nullptr;
    CK(cudaMalloc(&pk, n * sizeof(K)));
    CK(cudaMalloc(&k0, n * sizeof(K)));
    CK(cudaMalloc(&k1, n * sizeof(K)));
    CK(cudaMemcpy(pk, hk.data(), n * sizeof(K), cudaMemcpyHostToDevice));
    if (PAIRS) {
        CK(cudaMalloc(&pv, n * 4));
        CK(cudaMalloc(&v0, n * 4));
        CK(cudaMalloc(&v1, n * 4));
        CK(cudaMemcpy(pv, hv.data(), n * 4, cudaMemcpyHostToDevice));
    }
    int ni = (int)n;
    cub::DoubleBuffer<K> dk(k0, k1);
    cub::DoubleBuffer<unsigned> dv(v0, v1);
    auto call = [&](void *temp, size_t &bytes, cub::DoubleBuffer<K> &k, cub::DoubleBuffer<unsigned> &v) {
        if constexpr (PAIRS && DESC) return cub::DeviceRadixSort::SortPairsDescending(temp, bytes, k, v, ni);
        else if constexpr (PAIRS) return cub::DeviceRadixSort::SortPairs(temp, bytes, k, v, ni);
        else if constexpr (DESC) return cub::DeviceRadixSort::SortKeysDescending(temp, bytes, k, ni);
        else return cub::DeviceRadixSort::SortKeys(temp, bytes, k, ni);
    };
    size_t temp = 0;
    CK(call(nullptr, temp, dk, dv));
    void *d_temp;
    CK(cudaMalloc(&d_temp, temp));
    float ms = time_runs(
                   [&] {
                       cub::DoubleBuffer<K> k(k0, k1);
                       cub::DoubleBuffer<unsigned> v(v0, v1);
                       CK(call(d_temp, temp, k, v));
                       dk = k, dv = v;
                   },
                   pk, k0, pv, v0, n, warmups, runs)
                   .median_ms;
    std::vector<K> ok(n);
    std::vector<unsigned> ov(n);
    CK(cudaMemcpy(ok.data(), dk.Current(), n * sizeof(K), cudaMemcpyDeviceToHost));
    if (PAIRS) CK(cudaMemcpy(ov.data(), dv.Current(), n * 4, cudaMemcpyDeviceToHost));
    std::atomic<bool> wrong{false};
    parallel_for(n, [&](size_t i) {
        if (i) {
            unsigned long long a = ordered_bits(ok[i - 1]), b = ordered_bits(ok[i]);
            if (DESC ? a < b : a > b) wrong = true;
        }
        if (PAIRS && (ov[i] >= n || ordered_bits(hk[ov[i]]) != ordered_bits(ok[i]))) wrong = true;
    });
    if (wrong) ms = -1;
    for (void *p : {(void *)pk, (void *)k0, (void *)k1, (void *)pv, (void *)v0, (void *)v1, d_temp})
        if (p) CK(cudaFree(p));
    *temp_out = temp;
    return ms;
}
