// The memory traffic of one radix pass with the ranking taken away: what a onesweep pass over n
// items costs at least on this GPU. Each block loads a tile in slot order, as the sweep's scatter
// reads its staged tile, and writes it as RUNS runs of equal length, one per digit, each to that
// digit's region of the output, so the writes have the sweep's pattern (runs of TILE / RUNS items,
// one tile's run beside the previous tile's) without a key being ranked. Each tile also reads the
// previous tile's RUNS look-back words and writes its own (the look-back's least traffic).
// RUNS 256 is an 8-bit digit pass, 2048 an 11-bit one. The past-CUB targets are judged
// against these floors (docs/tuning.md). Build and run:
//   nvcc -O3 -std=c++17 -arch=sm_90 -o radix_floor radix_floor.cu && ./radix_floor [n ...]
#include "../cub/harness.cuh"

__global__ void fill(unsigned *p, size_t words, unsigned seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long z = (i + seed) * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        p[i] = (unsigned)(z ^ (z >> 31)) | 1u;
    }
}

// Bandwidth references: a 16-byte copy and a 16-byte read (the up-front histogram's traffic).
__global__ void copy16(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t quads) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < quads; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}

__global__ void read16(const uint4 *__restrict__ src, size_t quads, unsigned *sink) {
    unsigned x = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < quads; i += (size_t)gridDim.x * blockDim.x) {
        const uint4 v = src[i];
        x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (x == 0x12345678u) sink[0] = x;  // keeps the loads
}

__device__ __forceinline__ unsigned load_relaxed(const unsigned *p) {
    unsigned v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

// One pass's scatter: tile b's slot j goes to run d = j / PER at d * run_stride + b * PER + j % PER.
// With a value array (split pairs) the values follow the same positions.
template <class T, class V, int THREADS, int ITEMS, int RUNS>
__global__ void __launch_bounds__(THREADS) scatter_runs(const T *__restrict__ src, T *__restrict__ dst,
                                                        const V *__restrict__ vsrc, V *__restrict__ vdst,
                                                        size_t run_stride, unsigned *status) {
    constexpr int TILE = THREADS * ITEMS, PER = TILE / RUNS;
    static_assert(TILE % RUNS == 0, "whole runs");
    constexpr bool VALUES = sizeof(V) > 1;
    const size_t tile = blockIdx.x;
    const int t = threadIdx.x;
    T item[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) item[k] = src[tile * TILE + k * THREADS + t];
    for (int d = t; d < RUNS; d += THREADS) {
        const unsigned before = tile ? load_relaxed(&status[(tile - 1) * RUNS + d]) : 0u;
        status[tile * RUNS + d] = before + PER;
    }
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int j = k * THREADS + t, d = j / PER;
        dst[d * run_stride + tile * PER + (j - d * PER)] = item[k];
    }
    if constexpr (VALUES) {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) item[k] = (T)vsrc[tile * TILE + k * THREADS + t];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const int j = k * THREADS + t, d = j / PER;
            vdst[d * run_stride + tile * PER + (j - d * PER)] = (V)item[k];
        }
    }
}

struct NoValue {
    __host__ __device__ NoValue() {}
    __host__ __device__ explicit NoValue(unsigned) {}
    __host__ __device__ explicit operator unsigned() const { return 0; }
};

// Median of 15 launches after 3 warm-ups; the kernels leave their input as it was.
template <class Launch> static float time_ms(Launch launch) { return time_each([] {}, launch, 3, 15).median_ms; }

struct Buffers {
    unsigned char *a, *b, *va, *vb;
    unsigned *status, *sink;
};

// One scatter shape over n items; returns ms per pass.
template <class T, class V, int THREADS, int ITEMS, int RUNS> static float scatter_pass(Buffers &m, size_t n) {
    constexpr int TILE = THREADS * ITEMS;
    const size_t tiles = n / TILE;
    const size_t run_stride = tiles * (TILE / RUNS);
    return time_ms([&] {
        scatter_runs<T, V, THREADS, ITEMS, RUNS><<<(unsigned)tiles, THREADS>>>(
            (const T *)m.a, (T *)m.b, (const V *)m.va, (V *)m.vb, run_stride, m.status);
    });
}

int main(int argc, char **argv) {
    std::vector<size_t> sizes;
    for (int i = 1; i < argc; ++i) sizes.push_back(strtoull(argv[i], nullptr, 10));
    if (sizes.empty()) sizes = {64ull << 20, 256ull << 20};
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("# %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
    const size_t max_n = *std::max_element(sizes.begin(), sizes.end());
    Buffers m;
    CK(cudaMalloc(&m.a, max_n * 8));
    CK(cudaMalloc(&m.b, max_n * 8));
    CK(cudaMalloc(&m.va, max_n * 4));
    CK(cudaMalloc(&m.vb, max_n * 4));
    CK(cudaMalloc(&m.status, (max_n / 1024 + 2) * 2048 * 4));
    CK(cudaMalloc(&m.sink, 4));
    fill<<<1024, 256>>>((unsigned *)m.a, max_n * 2, 1);
    fill<<<1024, 256>>>((unsigned *)m.b, max_n * 2, 2);
    fill<<<1024, 256>>>((unsigned *)m.va, max_n, 3);
    fill<<<1024, 256>>>((unsigned *)m.vb, max_n, 4);
    CK(cudaDeviceSynchronize());

    printf("%-10s %-34s %9s %9s\n", "n", "kernel", "ms", "GB/s");
    auto row = [](size_t n, const char *what, float ms, double bytes) {
        printf("%-10zu %-34s %9.4f %9.0f\n", n, what, ms, bytes / ms / 1e6);
    };
    for (size_t n : sizes) {
        const int sms = prop.multiProcessorCount;
        for (int item : {4, 8}) {
            const size_t bytes = n * item, quads = bytes / 16;
            const float c = time_ms([&] { copy16<<<sms * 8, 512>>>((const uint4 *)m.a, (uint4 *)m.b, quads); });
            const float r = time_ms([&] { read16<<<sms * 8, 512>>>((const uint4 *)m.a, quads, m.sink); });
            char what[64];
            snprintf(what, sizeof what, "copy %d-byte items", item);
            row(n, what, c, 2.0 * bytes);
            snprintf(what, sizeof what, "read %d-byte items", item);
            row(n, what, r, (double)bytes);
        }
        // Kvp (8-byte items): the sweep's tile (512 x 10) with 8-bit runs; 11-bit runs of 3, 4, 8.
        row(n, "kvp  256 runs, 512x10 (20/run)", scatter_pass<unsigned long long, NoValue, 512, 10, 256>(m, n), 16.0 * n);
        row(n, "kvp  256 runs, 512x15 (30/run)", scatter_pass<unsigned long long, NoValue, 512, 15, 256>(m, n), 16.0 * n);
        row(n, "kvp 2048 runs, 512x12 (3/run)", scatter_pass<unsigned long long, NoValue, 512, 12, 2048>(m, n), 16.0 * n);
        row(n, "kvp 2048 runs, 512x16 (4/run)", scatter_pass<unsigned long long, NoValue, 512, 16, 2048>(m, n), 16.0 * n);
        row(n, "kvp 2048 runs, 512x32 (8/run)", scatter_pass<unsigned long long, NoValue, 512, 32, 2048>(m, n), 16.0 * n);
        // u32 keys: the sweep's tile (384 x 24) with 8-bit runs; 11-bit runs of 4 and 8.
        row(n, "keys  256 runs, 384x24 (36/run)", scatter_pass<unsigned, NoValue, 384, 24, 256>(m, n), 8.0 * n);
        row(n, "keys 2048 runs, 512x16 (4/run)", scatter_pass<unsigned, NoValue, 512, 16, 2048>(m, n), 8.0 * n);
        row(n, "keys 2048 runs, 512x32 (8/run)", scatter_pass<unsigned, NoValue, 512, 32, 2048>(m, n), 8.0 * n);
        // Split u32 pairs: the sweep's tile (512 x 12); 11-bit runs of 4 and 8.
        row(n, "pairs  256 runs, 512x12 (24/run)", scatter_pass<unsigned, unsigned, 512, 12, 256>(m, n), 16.0 * n);
        row(n, "pairs 2048 runs, 512x16 (4/run)", scatter_pass<unsigned, unsigned, 512, 16, 2048>(m, n), 16.0 * n);
        row(n, "pairs 2048 runs, 512x32 (8/run)", scatter_pass<unsigned, unsigned, 512, 32, 2048>(m, n), 16.0 * n);
        // u64 keys with u32 values: the sweep's tile (512 x 10) with 8-bit runs.
        row(n, "pairs64  256 runs, 512x10 (20/run)", scatter_pass<unsigned long long, unsigned, 512, 10, 256>(m, n),
            24.0 * n);
    }
    return 0;
}
