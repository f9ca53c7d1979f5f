// Eleven-bit digits for 32-bit keys alone: three onesweep passes (11, 11, 10 bits) instead of
// four 8-bit ones, timed beside CUB in the same run and checked against CUB's result. A probe of
// issue 17's untried design (docs/tuning.md, the floor section: 0.70 ms at 64M against 0.96 for
// four 8-bit passes), before anything of it goes into the kernels crate.
//
// The shape of a pass: a tile of THREADS x ITEMS keys (16K: eight keys a digit run, the floor
// probe's cheapest 11-bit tile). Early counts as in radix.cuh: each warp counts its digits into
// 16-bit counters (two a word, 4 KB a warp), the block publishes its counts, scans the 2048
// digits and turns the counters into the warp's first tile slot of each digit; then each warp
// ranks its keys. A 2048-word peer mask per warp does not fit beside the counters, so the peers
// are found in two steps: an atomic OR into a mask word of the digit's low LO_BITS bits, then one
// ballot per high bit. The histogram kernel also copies the keys into the scratch buffer, so the
// third pass ends in the caller's buffer (three passes: an odd number).
// Session 48 (H200): slower than four 8-bit passes at every size, even without its look-back
// (docs/tuning-tried.md has the figures and why).
//   nvcc -O3 -std=c++17 -arch=sm_90 -o radix11 radix11.cu && ./radix11 [n ...]
// Where CUB is not installed, -DR11_NO_CUB compiles the kernels alone (a syntax and register check).
#ifndef R11_NO_CUB  // a compile check where CUB is not installed
#include <cub/device/device_radix_sort.cuh>
#endif

#include "../../kernels-cuda/cuda/radix_keys.cuh"  // the relaxed loads and stores, lane masks, L2 prefetch
#include "../cub/harness.cuh"

namespace r11 {

constexpr int BITS = 11, R = 1 << BITS, PASSES = 3;
constexpr unsigned FLAG_AGGREGATE = 1u << 30, FLAG_INCLUSIVE = 2u << 30, FLAG_MASK = 3u << 30;
constexpr unsigned VALUE_MASK = (1u << 30) - 1;

using radix::lanemask_lt, radix::load_relaxed, radix::prefetch_l2, radix::store_relaxed;

// ---- histogram of the three passes, and a copy of the keys into the scratch buffer ----------
template <int THREADS>
__global__ void __launch_bounds__(THREADS) histogram_copy(const uint4 *src, uint4 *copy, unsigned quads,
                                                          unsigned *hist) {
    __shared__ unsigned counts[PASSES * R];
    for (int i = threadIdx.x; i < PASSES * R; i += THREADS) counts[i] = 0;
    __syncthreads();
    const unsigned stride = gridDim.x * THREADS;
    auto add = [&](unsigned k) {
        atomicAdd(&counts[k & (R - 1)], 1u);
        atomicAdd(&counts[R + ((k >> BITS) & (R - 1))], 1u);
        atomicAdd(&counts[2 * R + (k >> (2 * BITS))], 1u);
    };
    unsigned i = blockIdx.x * THREADS + threadIdx.x;
    for (; i + 3 * stride < quads; i += 4 * stride) {
        uint4 x[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) x[k] = src[i + k * stride];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            copy[i + k * stride] = x[k];
            add(x[k].x), add(x[k].y), add(x[k].z), add(x[k].w);
        }
    }
    for (; i < quads; i += stride) {
        const uint4 x = src[i];
        copy[i] = x;
        add(x.x), add(x.y), add(x.z), add(x.w);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < PASSES * R; k += THREADS)
        if (counts[k]) atomicAdd(&hist[k], counts[k]);
}

// Block-wide exclusive scan of one value per thread.
template <int THREADS> __device__ __forceinline__ unsigned block_scan(unsigned x, unsigned *warp_sums) {
    constexpr int WARPS = THREADS / 32;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned inc = x;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const unsigned y = __shfl_up_sync(~0u, inc, o);
        if (lane >= o) inc += y;
    }
    if (lane == 31) warp_sums[warp] = inc;
    __syncthreads();
    unsigned prefix = 0;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) prefix += w < warp ? warp_sums[w] : 0;
    return prefix + inc - x;
}

// Per pass (one block each, 1024 threads): exclusive scan of the 2048 digit counts.
__global__ void __launch_bounds__(1024) prepare(const unsigned *hist, unsigned *bases) {
    __shared__ unsigned sums[32];
    const unsigned *h = hist + blockIdx.x * R;
    const int t = threadIdx.x;
    const unsigned a = h[2 * t], b = h[2 * t + 1];
    const unsigned start = block_scan<1024>(a + b, sums);
    bases[blockIdx.x * R + 2 * t] = start;
    bases[blockIdx.x * R + 2 * t + 1] = start + a;
}

// ---- one 11-bit pass -------------------------------------------------------------------------
template <int THREADS, int ITEMS, int LO_BITS> struct Shared {
    static constexpr int WARPS = THREADS / 32, TILE = THREADS * ITEMS;
    union {
        unsigned counts[WARPS][R / 2];  // 16-bit counters, digit d in word d / 2
        unsigned keys[TILE];            // the tile staged in digit order
    };
    unsigned masks[WARPS][1 << LO_BITS];
    unsigned out_offset[R];
    unsigned warp_sums[WARPS];
    unsigned tile;
};

template <int THREADS, int ITEMS, int LO_BITS, int BLOCKS, int PREFETCH, int BATCH>
__global__ void __launch_bounds__(THREADS, BLOCKS)
    sweep(const unsigned *__restrict__ src, unsigned *__restrict__ dst, unsigned n, int shift,
          const unsigned *__restrict__ bases, unsigned *status, unsigned *tile_counter) {
    using Sh = Shared<THREADS, ITEMS, LO_BITS>;
    constexpr int WARPS = Sh::WARPS, TILE = Sh::TILE, DPT = R / THREADS, LO = 1 << LO_BITS;
    constexpr int HI_BITS = BITS - LO_BITS;
    static_assert(DPT == 4 || DPT == 2, "two or four digits a thread");
    extern __shared__ __align__(16) unsigned char smem[];
    Sh &sh = *reinterpret_cast<Sh *>(smem);
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;

    for (int i = t; i < WARPS * R / 2; i += THREADS) (&sh.counts[0][0])[i] = 0;
    for (int i = t; i < WARPS * LO; i += THREADS) (&sh.masks[0][0])[i] = 0;
    if (t == 0) sh.tile = atomicAdd(tile_counter, 1u);
    __syncthreads();
    const unsigned tile = sh.tile, tile_begin = tile * TILE, last_tile = (n - 1) / TILE;
    const unsigned tile_len = min((unsigned)TILE, n - tile_begin);
    if (PREFETCH > 0 && t == 0 && tile + PREFETCH <= last_tile) {
        const unsigned first = (tile + PREFETCH) * TILE;
        prefetch_l2(src + first, min((unsigned)TILE, n - first) * 4u);
    }
    const unsigned warp_begin = tile_begin + warp * 32 * ITEMS + lane;
    const bool full = tile_len == TILE;

    unsigned key[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const unsigned idx = warp_begin + i * 32;
        key[i] = full || idx < n ? src[idx] : 0u;
    }
    // Slots past the end rank in the last digit, after every real key of it.
    auto digit = [&](int i) -> unsigned {
        if (!full && warp_begin + i * 32 >= n) return R - 1;
        return (key[i] >> shift) & (R - 1);
    };

    unsigned *my_counts = sh.counts[warp];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const unsigned d = digit(i);
        atomicAdd(&my_counts[d >> 1], 1u << ((d & 1) * 16));
    }
    __syncthreads();

    // Thread t owns digits t * DPT ... t * DPT + DPT - 1.
    unsigned count[DPT];
#pragma unroll
    for (int k = 0; k < DPT; ++k) count[k] = 0;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) {
#pragma unroll
        for (int k = 0; k < DPT / 2; ++k) {
            const unsigned word = sh.counts[w][t * DPT / 2 + k];
            count[2 * k] += word & 0xffff;
            count[2 * k + 1] += word >> 16;
        }
    }
    unsigned sum = 0;
#pragma unroll
    for (int k = 0; k < DPT; ++k) sum += count[k];
    const unsigned first_slot = block_scan<THREADS>(sum, sh.warp_sums);
    unsigned start[DPT];
    {
        unsigned s = first_slot;
#pragma unroll
        for (int k = 0; k < DPT; ++k) start[k] = s, s += count[k];
    }
    if (t == THREADS - 1) count[DPT - 1] -= TILE - tile_len;  // the slots past the end
#pragma unroll
    for (int k = 0; k < DPT; ++k)
        store_relaxed(&status[(size_t)tile * R + t * DPT + k], (tile == 0 ? FLAG_INCLUSIVE : FLAG_AGGREGATE) | count[k]);
    // Counters -> each warp's first slot of each digit.
    {
        unsigned s[DPT];
#pragma unroll
        for (int k = 0; k < DPT; ++k) s[k] = start[k];
#pragma unroll
        for (int w = 0; w < WARPS; ++w) {
#pragma unroll
            for (int k = 0; k < DPT / 2; ++k) {
                const unsigned word = sh.counts[w][t * DPT / 2 + k];
                sh.counts[w][t * DPT / 2 + k] = s[2 * k] | (s[2 * k + 1] << 16);
                s[2 * k] += word & 0xffff;
                s[2 * k + 1] += word >> 16;
            }
        }
    }
    __syncthreads();

    // Ranking: peers share the low LO_BITS bits (atomic OR mask) and the high bits (ballots).
    unsigned rank[ITEMS];
    unsigned *my_masks = sh.masks[warp];
    const unsigned below_me = lanemask_lt();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const unsigned d = digit(i), lo = d & (LO - 1), hi = d >> LO_BITS;
        atomicOr(&my_masks[lo], below_me + 1);
        __syncwarp();
        const unsigned same_lo = my_masks[lo];
        unsigned peers = same_lo;
#pragma unroll
        for (int b = 0; b < HI_BITS; ++b) {
            const bool set = (hi >> b) & 1;
            const unsigned ballot = __ballot_sync(~0u, set);
            peers &= set ? ballot : ~ballot;
        }
        const unsigned ahead = __popc(peers & below_me);
        unsigned before = 0;
        if (ahead == 0) {
            const unsigned half = (d & 1) * 16;
            before = (atomicAdd(&my_counts[d >> 1], (unsigned)__popc(peers) << half) >> half) & 0xffff;
        }
        rank[i] = __shfl_sync(~0u, before, __ffs(peers) - 1) + ahead;
        __syncwarp();
        if ((same_lo & below_me) == 0) my_masks[lo] = 0;
        __syncwarp();
    }
    __syncthreads();  // the counters become the staging buffer
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
        if (full || warp_begin + i * 32 < n) sh.keys[rank[i]] = key[i];

    // Decoupled look-back for this thread's digits, BATCH earlier tiles' words at a time.
    {
        unsigned before[DPT];
        int j[DPT];
        bool done[DPT];
#pragma unroll
        for (int k = 0; k < DPT; ++k) before[k] = 0, j[k] = (int)tile - 1, done[k] = tile == 0;
        for (;;) {
            if constexpr (BATCH == 0) break;  // timing only: no look-back, wrong positions
            bool all = true;
#pragma unroll
            for (int k = 0; k < DPT; ++k) all &= done[k];
            if (all) break;
            unsigned s[DPT][BATCH > 0 ? BATCH : 1];
#pragma unroll
            for (int k = 0; k < DPT; ++k)
#pragma unroll
                for (int b = 0; b < BATCH; ++b)
                    s[k][b] = !done[k] && j[k] - b >= 0 ? load_relaxed(&status[(size_t)(j[k] - b) * R + t * DPT + k])
                                                        : FLAG_INCLUSIVE;
#pragma unroll
            for (int k = 0; k < DPT; ++k) {
                if (done[k]) continue;
                int b = 0;
#pragma unroll
                for (; b < BATCH; ++b) {
                    if (!(s[k][b] & FLAG_MASK)) break;
                    before[k] += s[k][b] & VALUE_MASK;
                    if (s[k][b] & FLAG_INCLUSIVE) {
                        done[k] = true;
                        break;
                    }
                }
                j[k] -= b;
            }
        }
#pragma unroll
        for (int k = 0; k < DPT; ++k) {
            const int d = t * DPT + k;
            if (tile > 0) store_relaxed(&status[(size_t)tile * R + d], FLAG_INCLUSIVE | (before[k] + count[k]));
            sh.out_offset[d] = bases[d] + before[k] - start[k];
        }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const unsigned j = k * THREADS + t;
        if (full || j < tile_len) {
            const unsigned x = sh.keys[j];
            dst[sh.out_offset[(x >> shift) & (R - 1)] + j] = x;
        }
    }
}

// The whole sort of n keys in `keys` (scratch `tmp`, n words); `work` from work_words(n).
template <int THREADS, int ITEMS, int LO_BITS, int BLOCKS, int PREFETCH, int BATCH> struct Sort {
    static constexpr int TILE = THREADS * ITEMS;
    static size_t tiles(size_t n) { return (n + TILE - 1) / TILE; }
    static size_t work_words(size_t n) { return 2 * PASSES * R + 4 + PASSES * tiles(n) * R; }
    static void setup() {
        CK(cudaFuncSetAttribute(sweep<THREADS, ITEMS, LO_BITS, BLOCKS, PREFETCH, BATCH>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sizeof(Shared<THREADS, ITEMS, LO_BITS>)));
    }
    static void run(unsigned *keys, unsigned *tmp, size_t n, unsigned *work, int sms, int passes = PASSES) {
        unsigned *hist = work, *bases = work + PASSES * R, *counters = bases + PASSES * R, *status = counters + 4;
        CK(cudaMemsetAsync(work, 0, work_words(n) * 4));
        // n a multiple of 4 here (the probe's sizes)
        histogram_copy<512><<<sms * 4, 512>>>((const uint4 *)keys, (uint4 *)tmp, (unsigned)(n / 4), hist);
        prepare<<<PASSES, 1024>>>(hist, bases);
        unsigned *from = tmp, *to = keys;
        for (int p = 0; p < passes; ++p) {
            sweep<THREADS, ITEMS, LO_BITS, BLOCKS, PREFETCH, BATCH>
                <<<(unsigned)tiles(n), THREADS, sizeof(Shared<THREADS, ITEMS, LO_BITS>)>>>(
                    from, to, (unsigned)n, p * BITS, bases + p * R, status + (size_t)p * tiles(n) * R, counters + p);
            std::swap(from, to);
        }
    }
};

}  // namespace r11

__global__ void fill_keys(unsigned *k, size_t n, unsigned long long seed, int pattern) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        unsigned x = (unsigned)z;
        if (pattern == 1) x = (unsigned)i;                      // sorted
        if (pattern == 2) x = (unsigned)(n - 1 - i);            // reverse
        if (pattern == 3) x = (unsigned)(z & 15) * 0x11111111u;  // 16 distinct
        if (pattern == 4) x &= 0x7ffu;                          // one 11-bit digit differs
        k[i] = x;
    }
}

static const char *PATTERN[] = {"random", "sorted", "reverse", "distinct16", "lowdigit"};

#ifndef R11_NO_CUB
int main(int argc, char **argv) {
    std::vector<size_t> sizes;
    for (int i = 1; i < argc; ++i) sizes.push_back(strtoull(argv[i], nullptr, 10));
    if (sizes.empty()) sizes = {16ull << 20, 64ull << 20, 256ull << 20};
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    const int sms = prop.multiProcessorCount;
    printf("# %s, %d SMs\n", prop.name, sms);
    const size_t max_n = *std::max_element(sizes.begin(), sizes.end());
    unsigned *pristine, *keys, *tmp, *ref, *work;
    CK(cudaMalloc(&pristine, max_n * 4));
    CK(cudaMalloc(&keys, max_n * 4));
    CK(cudaMalloc(&tmp, max_n * 4));
    CK(cudaMalloc(&ref, max_n * 4));
    CK(cudaMalloc(&work, (2 * 3 * 2048 + 4 + 3 * (max_n / 8192 + 2) * 2048) * 4));
    size_t cub_temp = 0;
    CK(cub::DeviceRadixSort::SortKeys(nullptr, cub_temp, keys, tmp, (int)max_n));
    void *cub_buf;
    CK(cudaMalloc(&cub_buf, cub_temp));
    std::vector<unsigned> got(max_n), want(max_n);

    using A = r11::Sort<512, 32, 9, 1, 0, 4>;
    using B = r11::Sort<512, 32, 9, 1, 0, 8>;
    using C = r11::Sort<512, 32, 9, 1, 0, 16>;
    using D = r11::Sort<1024, 16, 8, 1, 0, 16>;
    using E = r11::Sort<1024, 16, 8, 1, 0, 32>;
    using F = r11::Sort<512, 32, 9, 1, 0, 0>;
    A::setup(), B::setup(), C::setup(), D::setup(), E::setup(), F::setup();

    printf("%-10s %-11s %-34s %9s %9s %s\n", "n", "pattern", "sort", "median", "min", "check");
    for (size_t n : sizes) {
        for (int pattern = 0; pattern < 5; ++pattern) {
            if (pattern > 0 && n != (64ull << 20)) continue;
            fill_keys<<<1024, 256>>>(pristine, n, 42 + n, pattern);
            CK(cudaDeviceSynchronize());
            // CUB, double buffer (the report's keys_dbuf)
            cub::DoubleBuffer<unsigned> db(keys, tmp);
            const Timing tc = time_runs(
                [&] {
                    cub::DoubleBuffer<unsigned> d(keys, tmp);
                    CK(cub::DeviceRadixSort::SortKeys(cub_buf, cub_temp, d, (int)n));
                    db = d;
                },
                pristine, keys, (const unsigned *)nullptr, (unsigned *)nullptr, n, 3, 15);
            CK(cudaMemcpy(want.data(), db.Current(), n * 4, cudaMemcpyDeviceToHost));
            printf("%-10zu %-11s %-34s %9.4f %9.4f %s\n", n, PATTERN[pattern], "cub SortKeys u32 (double buffer)",
                   tc.median_ms, tc.min_ms, "ref");
            auto one = [&](const char *name, auto sorter) {
                using S = decltype(sorter);
                if ((n & 3) != 0) return;
                const Timing tm = time_runs([&] { S::run(keys, tmp, n, work, sms); }, pristine, keys,
                                            (const unsigned *)nullptr, (unsigned *)nullptr, n, 3, 15);
                CK(cudaMemcpy(got.data(), keys, n * 4, cudaMemcpyDeviceToHost));
                size_t bad = 0;
                for (size_t i = 0; i < n; ++i) bad += got[i] != want[i];
                printf("%-10zu %-11s %-34s %9.4f %9.4f %s (%.3fx cub)\n", n, PATTERN[pattern], name, tm.median_ms,
                       tm.min_ms, bad ? "WRONG" : "ok", tc.median_ms / tm.median_ms);
                if (bad) printf("  %zu of %zu differ\n", bad, n);
            };
            one("r11 512x32 lo9 batch4", A{});
            one("r11 512x32 lo9 batch8", B{});
            one("r11 512x32 lo9 batch16", C{});
            one("r11 1024x16 lo8 batch16", D{});
            one("r11 1024x16 lo8 batch32", E{});
            if (pattern == 0) {
                one("r11 512x32 lo9 no look-back (timing)", F{});
                const Timing front = time_runs([&] { C::run(keys, tmp, n, work, sms, 0); }, pristine, keys,
                                               (const unsigned *)nullptr, (unsigned *)nullptr, n, 3, 15);
                printf("%-10zu %-11s %-34s %9.4f %9.4f\n", n, PATTERN[pattern], "memset + histogram/copy + prepare",
                       front.median_ms, front.min_ms);
            }
        }
    }
    return 0;
}
#else
int main() {  // instantiates the kernels of the timed variants; runs nothing
    r11::Sort<512, 32, 9, 1, 0, 16>::setup();
    r11::Sort<1024, 16, 8, 1, 0, 32>::setup();
    r11::Sort<512, 32, 9, 1, 0, 0>::setup();
    return 0;
}
#endif
