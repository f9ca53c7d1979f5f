// CUB DeviceRadixSort timings on the same inputs the Rust benches (benches/sort/, its
// radix-device table among them) use: u32 keys, values 0..n, device-resident. A pristine
// copy is restored before each run (not timed); CUDA events around the sort alone; 3 warm-ups,
// median of 15.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o cub_bench benches/cub/cub_bench.cu
//   ./cub_bench [n ...]                                  a table, random keys
//   ./cub_bench --json [--pattern p[,p...]] [n ...]      one JSON line per timing (ci/report.py)
//   ./cub_bench [--json] --shapes [n ...]               the other shapes (shapes.cuh), random keys
//
// Patterns (the formulas of benches/sort/inputs.rs `Pattern::key`): random, sorted, reverse, distinct16,
// equal, zipf.
//
// Pairs are timed with the DoubleBuffer API (ping-pong in two buffers, like gpusort) and with the
// plain API (separate in/out arrays); keys with DoubleBuffer.
#include <cub/cub.cuh>

#include "harness.cuh"
#include "shapes.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>


// CUB_POOL=1: every buffer comes from the stream-ordered pool (cudaMallocAsync, kept), as gpusort's
// scratch and its benchmarks' buffers do, instead of cudaMalloc; to compare the two placements.
static bool use_pool() {
    static const bool pool = [] {
        const char *e = getenv("CUB_POOL");
        if (!e || strcmp(e, "1") != 0) return false;
        cudaMemPool_t p;
        CK(cudaDeviceGetDefaultMemPool(&p, 0));
        unsigned long long keep = ~0ull;
        CK(cudaMemPoolSetAttribute(p, cudaMemPoolAttrReleaseThreshold, &keep));
        return true;
    }();
    return pool;
}
template <class T> static cudaError_t dev_alloc(T **p, size_t bytes) {
    if (!use_pool()) return cudaMalloc(p, bytes);
    cudaError_t e = cudaMallocAsync((void **)p, bytes, 0);
    return e == cudaSuccess ? cudaStreamSynchronize(0) : e;
}
static cudaError_t dev_free(void *p) {
    if (!use_pool()) return cudaFree(p);
    cudaError_t e = cudaFreeAsync(p, 0);
    return e == cudaSuccess ? cudaStreamSynchronize(0) : e;
}


// Key i of n in `pattern`, seeded with n (copy 0 of benches/sort/inputs.rs). False for an unknown name.
static bool pattern_keys(const std::string &pattern, std::vector<unsigned> &k) {
    size_t n = k.size();
    unsigned long long seed = n;
    for (size_t i = 0; i < n; ++i) {
        unsigned long long z = splitmix(seed, i);
        unsigned key;
        if (pattern == "random") key = (unsigned)z;
        else if (pattern == "sorted") key = (unsigned)i;
        else if (pattern == "reverse") key = (unsigned)(n - 1 - i);
        else if (pattern == "distinct16") key = (unsigned)splitmix(16, z & 15);
        else if (pattern == "equal") key = 0x9E3779B9u;
        else if (pattern == "zipf") {
            unsigned e = (unsigned)(z >> 59);
            unsigned rank = (1u << e) | ((unsigned)z & ((1u << e) - 1));
            key = rank * 0x9E3779B1u;
        } else return false;
        k[i] = key;
    }
    return true;
}


// Untimed and timed runs per measurement.
static const int WARMUPS = 3, RUNS = 15;

int main(int argc, char **argv) {
    std::vector<size_t> sizes;
    std::vector<std::string> patterns;
    bool json = false, shapes = false;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--json")) json = true;
        else if (!strcmp(argv[i], "--shapes")) shapes = true;
        else if (!strcmp(argv[i], "--pattern") && i + 1 < argc) {
            std::string list = argv[++i];
            for (size_t at = 0, comma; at <= list.size(); at = comma + 1) {
                comma = list.find(',', at);
                if (comma == std::string::npos) comma = list.size();
                if (comma > at) patterns.push_back(list.substr(at, comma - at));
            }
        } else sizes.push_back(strtoull(argv[i], nullptr, 10));
    }
    if (sizes.empty()) sizes = {16384, 1 << 20, 1 << 24, 1 << 26, 1 << 28};
    if (patterns.empty()) patterns = {"random"};
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    if (json) {
        printf("{\"src\":\"cub\",\"kind\":\"version\",\"text\":\"%s, CUB %d.%d.%d\"}\n", prop.name, CUB_MAJOR_VERSION,
               CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION);
    } else {
        printf("# %s, CUB %d.%d.%d\n", prop.name, CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION);
        printf("%10s %-16s %10s %12s\n", "n", "what", "cub_ms", "temp_bytes");
    }
    auto report = [&](const std::string &pattern, size_t n, const char *what, float ms, size_t temp) {
        if (json)
            printf("{\"src\":\"cub\",\"pattern\":\"%s\",\"n\":%zu,\"what\":\"%s\",\"median_ms\":%.6f,\"temp_bytes\":%zu}\n",
                   pattern.c_str(), n, what, ms, temp);
        else
            printf("%10zu %-16s %10.4f %12zu\n", n, what, ms, temp);
        fflush(stdout);
    };
    if (shapes) {
        // i32, f32, u64 and f64 keys, u64 keys with values, u32 pairs and keys descending, and u32 keys
        // and pairs ascending again through this code (their buffers allocated as the others').
        for (size_t n : sizes) {
            size_t temp = 0;
            // CUB_SHAPES=<names, comma-separated>: only those (for profiling one shape).
            const char *only = getenv("CUB_SHAPES");
            auto wanted = [&](const char *what) { return !only || strstr(only, what); };
            auto one = [&](const char *what, float ms) {
                if (ms < 0) {
                    printf("CUB %s result wrong at n = %zu\n", what, n);
                    exit(1);
                }
                report("random", n, what, ms, temp);
            };
#define SHAPE(NAME, K, PAIRS, DESC) \
    if (wanted(NAME)) one(NAME, cub_shape<K, PAIRS, DESC>(n, WARMUPS, RUNS, &temp))
            SHAPE("keys_i32", int, false, false);
            SHAPE("keys_f32", float, false, false);
            SHAPE("keys_u64", unsigned long long, false, false);
            SHAPE("keys_f64", double, false, false);
            SHAPE("pairs_u64", unsigned long long, true, false);
            SHAPE("pairs_desc", unsigned, true, true);
            SHAPE("keys_desc", unsigned, false, true);
            SHAPE("keys_u32", unsigned, false, false);
            SHAPE("pairs_u32", unsigned, true, false);
#undef SHAPE
        }
        return 0;
    }
    for (const std::string &pattern : patterns)
    for (size_t n : sizes) {
        std::vector<unsigned> hk(n), hv(n);
        if (!pattern_keys(pattern, hk)) {
            fprintf(stderr, "unknown pattern %s\n", pattern.c_str());
            return 2;
        }
        for (size_t i = 0; i < n; ++i) hv[i] = (unsigned)i;
        unsigned *pk, *pv, *k0, *k1, *v0, *v1;
        CK(dev_alloc(&pk, n * 4));
        CK(dev_alloc(&pv, n * 4));
        CK(dev_alloc(&k0, n * 4));
        CK(dev_alloc(&k1, n * 4));
        CK(dev_alloc(&v0, n * 4));
        CK(dev_alloc(&v1, n * 4));
        CK(cudaMemcpy(pk, hk.data(), n * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(pv, hv.data(), n * 4, cudaMemcpyHostToDevice));
        int ni = (int)n;

        // Pairs, DoubleBuffer.
        {
            cub::DoubleBuffer<unsigned> dk(k0, k1), dv(v0, v1);
            size_t temp = 0;
            CK(cub::DeviceRadixSort::SortPairs(nullptr, temp, dk, dv, ni));
            void *d_temp;
            CK(dev_alloc(&d_temp, temp));
            float ms = time_runs(
                [&] {
                    cub::DoubleBuffer<unsigned> k(k0, k1), v(v0, v1);
                    CK(cub::DeviceRadixSort::SortPairs(d_temp, temp, k, v, ni));
                    dk = k, dv = v;
                },
                pk, k0, pv, v0, n, WARMUPS, RUNS).median_ms;
            // Check the result is sorted and values follow keys.
            std::vector<unsigned> ok(n), ov(n);
            CK(cudaMemcpy(ok.data(), dk.Current(), n * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(ov.data(), dv.Current(), n * 4, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < n; ++i)
                if ((i && ok[i - 1] > ok[i]) || hk[ov[i]] != ok[i]) {
                    printf("CUB pairs result wrong at %zu\n", i);
                    return 1;
                }
            report(pattern, n, "pairs_dbuf", ms, temp);
            CK(dev_free(d_temp));
        }
        // Pairs, plain API (input arrays kept, output arrays separate).
        {
            size_t temp = 0;
            CK(cub::DeviceRadixSort::SortPairs(nullptr, temp, k0, k1, v0, v1, ni));
            void *d_temp;
            CK(dev_alloc(&d_temp, temp));
            float ms = time_runs([&] { CK(cub::DeviceRadixSort::SortPairs(d_temp, temp, k0, k1, v0, v1, ni)); },
                                   pk, k0, pv, v0, n, WARMUPS, RUNS).median_ms;
            report(pattern, n, "pairs_plain", ms, temp);
            CK(dev_free(d_temp));
        }
        // Keys, DoubleBuffer.
        {
            cub::DoubleBuffer<unsigned> dk(k0, k1);
            size_t temp = 0;
            CK(cub::DeviceRadixSort::SortKeys(nullptr, temp, dk, ni));
            void *d_temp;
            CK(dev_alloc(&d_temp, temp));
            float ms = time_runs(
                [&] {
                    cub::DoubleBuffer<unsigned> k(k0, k1);
                    CK(cub::DeviceRadixSort::SortKeys(d_temp, temp, k, ni));
                    dk = k;
                },
                pk, k0, nullptr, nullptr, n, WARMUPS, RUNS).median_ms;
            std::vector<unsigned> ok(n);
            CK(cudaMemcpy(ok.data(), dk.Current(), n * 4, cudaMemcpyDeviceToHost));
            for (size_t i = 1; i < n; ++i)
                if (ok[i - 1] > ok[i]) {
                    printf("CUB keys result wrong at %zu\n", i);
                    return 1;
                }
            report(pattern, n, "keys_dbuf", ms, temp);
            CK(dev_free(d_temp));
        }
        for (unsigned *p : {pk, pv, k0, k1, v0, v1}) CK(dev_free(p));
    }
    return 0;
}
