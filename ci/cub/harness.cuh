// What both CUB harnesses (cub_bench.cu, cub_segmented.cu) share: the CUDA error check, the
// splitmix64 stream the Rust benches seed their keys with, and the timing loop (pristine input
// restored before each run, not timed; CUDA events around the sort alone).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                       \
    do {                                                                                            \
        cudaError_t e_ = (x);                                                                       \
        if (e_ != cudaSuccess) {                                                                    \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));      \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

// Output i of the splitmix64 stream seeded with `seed` (the Rust side's Rng: seeded alike, both
// sort the same keys).
static unsigned long long splitmix(unsigned long long seed, unsigned long long i) {
    unsigned long long z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

struct Timing {
    float median_ms, min_ms;
};

// Restores the pristine input into k (and v, when given), then times `sort` alone: `warmups`
// untimed runs, then `runs` timed ones.
template <class F>
static Timing time_runs(F &&sort, const unsigned *pk, unsigned *k, const unsigned *pv, unsigned *v, size_t n,
                        int warmups, int runs) {
    std::vector<float> t;
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int it = 0; it < warmups + runs; ++it) {
        CK(cudaMemcpyAsync(k, pk, n * 4, cudaMemcpyDeviceToDevice));
        if (v) CK(cudaMemcpyAsync(v, pv, n * 4, cudaMemcpyDeviceToDevice));
        CK(cudaEventRecord(a));
        sort();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaGetLastError());
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (it >= warmups) t.push_back(ms);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return {t[t.size() / 2], t[0]};
}
