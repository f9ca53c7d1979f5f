// What both CUB harnesses (cub_bench.cu, cub_segmented.cu) and benches/probe/radix_floor.cu share: the
// CUDA error check, the splitmix64 stream the Rust benches seed their keys with, and the timing
// loop (pristine input restored before each run, not timed; CUDA events around the sort alone).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>
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

// f(i) for every i below n, on every core: inputs and checks of 256M keys in seconds, not minutes.
template <class F> static void parallel_for(size_t n, F &&f) {
    const size_t threads = std::max(1u, std::thread::hardware_concurrency());
    const size_t chunk = (n + threads - 1) / threads;
    std::vector<std::thread> pool;
    for (size_t lo = 0; lo < n; lo += chunk) {
        const size_t hi = std::min(n, lo + chunk);
        pool.emplace_back([lo, hi, &f] {
            for (size_t i = lo; i < hi; ++i) f(i);
        });
    }
    for (std::thread &t : pool) t.join();
}

struct Timing {
    float median_ms, min_ms;
};

// Times `run` alone with CUDA events: `before` (not timed) ahead of each of `warmups` untimed runs
// and `runs` timed ones.
template <class Before, class Run> static Timing time_each(Before &&before, Run &&run, int warmups, int runs) {
    std::vector<float> t;
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int it = 0; it < warmups + runs; ++it) {
        before();
        CK(cudaEventRecord(a));
        run();
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

// Restores the pristine input into k (and v, when given), then times `sort` alone: `warmups`
// untimed runs, then `runs` timed ones. Keys of any type, values `unsigned`.
template <class F, class K>
static Timing time_runs(F &&sort, const K *pk, K *k, const unsigned *pv, unsigned *v, size_t n, int warmups,
                        int runs) {
    const auto restore = [&] {
        CK(cudaMemcpyAsync(k, pk, n * sizeof(K), cudaMemcpyDeviceToDevice));
        if (v) CK(cudaMemcpyAsync(v, pv, n * 4, cudaMemcpyDeviceToDevice));
    };
    return time_each(restore, sort, warmups, runs);
}
