// CUB's segmented sorts on the inputs of benches/sort/segments.rs (the targets): n u32 keys
// (default 64M), values 0..n (each item's input position), cut into segments of one length (64,
// 1024 and 262144 by default; the last segment shorter when the length does not divide n), all
// device-resident.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o cub_segmented benches/cub/cub_segmented.cu
//   ./cub_segmented [--lengths L[,L...]] [n]                a table (default lengths 64,1024,262144)
//   ./cub_segmented --json [--lengths L[,L...]] [n]         one JSON line per row instead
//   ./cub_segmented --json-file PATH [--lengths ...] [n]   the table, and the JSON lines into PATH
// (benches/cub/segmented.sh builds and runs it.)
//
// Inputs: key i is the low 32 bits of output i of the splitmix64 stream seeded with n, the same
// formula as cub_bench.cu and `Pattern::Random.keys(n, 0)` on the Rust side, so gpusort and CUB sort
// the same pairs. Segment s covers items [s*L, min((s+1)*L, n)); CUB reads the begin offsets from
// an int array of num_segments + 1 entries and the end offsets from the same array one entry on.
//
// Timing, as cub_bench.cu: the sort's temporary storage is sized and allocated once per row; before
// every run a pristine copy of the keys (and values) is copied into the first buffer (not timed);
// CUDA events on the default stream bracket the sort call alone; 3 warm-up runs, then the median
// (and minimum) of 15.
//
// Rows per segment length, every one ascending unless named otherwise:
//   segsort_pairs_dbuf         cub::DeviceSegmentedSort::SortPairs, DoubleBuffer
//   segsort_pairs_plain        cub::DeviceSegmentedSort::SortPairs, separate input and output arrays
//   segsort_stable_pairs_dbuf  cub::DeviceSegmentedSort::StableSortPairs, DoubleBuffer
//   segsort_keys_dbuf          cub::DeviceSegmentedSort::SortKeys, DoubleBuffer
//   segsort_pairs_desc_dbuf    cub::DeviceSegmentedSort::SortPairsDescending, DoubleBuffer
//   segradix_pairs_dbuf        cub::DeviceSegmentedRadixSort::SortPairs, DoubleBuffer
//   segradix_pairs_plain       cub::DeviceSegmentedRadixSort::SortPairs, separate arrays
//   segradix_keys_dbuf         cub::DeviceSegmentedRadixSort::SortKeys, DoubleBuffer
//   segradix_pairs_desc_dbuf   cub::DeviceSegmentedRadixSort::SortPairsDescending, DoubleBuffer
// (In CUB 3.0 SortPairs and StableSortPairs of DeviceSegmentedSort dispatch to the same code; only
// the stable one promises stability, so both are timed and only it is held to it.)
//
// Every row's result (its last timed run) is checked on the host before its time is printed.
// Pairs: inside each segment the keys are in order, every value lies in its own segment, carries
// the key it had on input and occurs once (so each segment holds a permutation of its input
// pairs); StableSortPairs must also keep equal keys in input order (values increasing). Keys only:
// each segment equals its input keys sorted on the host. A row that fails prints its first bad
// item on stderr and no time; the other rows go on, and the exit status is 1. `stable` in the
// output says whether equal keys came out in input order in that run (observed; promised only by
// StableSortPairs). Random u32 keys tie about 8 times in a segment of 256K, rarely in shorter ones.
//
// Output: a table by default. With --json (or into --json-file) one line per row: src "cub" with
// the fields ci/report_data.py reads (what, pattern "random", n, median_ms; `what` ends in the
// segment length, so the rows stay apart from cub_bench's), group "segments", api, buffers
// ("DoubleBuffer" or "in/out arrays"), order, values, segment, segments, min_ms, runs, temp_bytes,
// bytes (n * 8 for pairs, n * 4 for keys, as the Rust bench counts), stable (null for keys) and
// checked; first a version line as cub_bench prints. Device memory: six arrays of n u32 plus CUB's
// temporary storage.

#include <cub/cub.cuh>

#include "harness.cuh"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>


static const int WARMUPS = 3, RUNS = 15;


// f(lo, hi) over [0, count) in contiguous chunks, one per host core.
template <class F> static void par_for(size_t count, F &&f) {
    size_t threads = std::max(1u, std::thread::hardware_concurrency());
    threads = std::min(threads, std::max<size_t>(1, count));
    std::vector<std::thread> pool;
    for (size_t t = 0; t < threads; ++t)
        pool.emplace_back([&, t] { f(count * t / threads, count * (t + 1) / threads); });
    for (auto &th : pool) th.join();
}

struct Layout {
    size_t n, len, segments;
    std::vector<int> offsets;  // segments + 1 entries
    size_t begin(size_t s) const { return (size_t)offsets[s]; }
    size_t end(size_t s) const { return (size_t)offsets[s + 1]; }
};

enum class Check { Pairs, StablePairs, Keys };

// The host check of one result (see the header). `ref` holds each segment's input keys sorted
// ascending (for the keys-only rows). Returns false after printing the first fault.
static bool check_result(const char *what, const Layout &lay, const std::vector<unsigned> &in_keys,
                         const std::vector<unsigned> &ref, const std::vector<unsigned> &ok,
                         const std::vector<unsigned> &ov, Check mode, bool descending, bool &stable) {
    std::atomic<size_t> bad_at{~(size_t)0};
    std::atomic<bool> unstable{false};
    std::vector<unsigned char> seen(mode == Check::Keys ? 0 : lay.n, 0);
    par_for(lay.segments, [&](size_t s0, size_t s1) {
        bool local_unstable = false;
        for (size_t s = s0; s < s1; ++s) {
            size_t b = lay.begin(s), e = lay.end(s);
            for (size_t i = b; i < e; ++i) {
                bool fault;
                if (mode == Check::Keys) {
                    fault = ok[i] != ref[i];
                } else {
                    size_t v = ov[i];
                    fault = v < b || v >= e || seen[v] || in_keys[v] != ok[i];
                    if (!fault) seen[v] = 1;
                    if (!fault && i > b) {
                        unsigned p = ok[i - 1], k = ok[i];
                        fault = descending ? p < k : p > k;
                        if (p == k && ov[i - 1] > ov[i]) {
                            local_unstable = true;
                            fault = fault || mode == Check::StablePairs;
                        }
                    }
                }
                if (fault) {
                    size_t cur = bad_at.load();
                    while (i < cur && !bad_at.compare_exchange_weak(cur, i)) {
                    }
                    break;
                }
            }
        }
        if (local_unstable) unstable = true;
    });
    stable = !unstable;
    size_t i = bad_at.load();
    if (i == ~(size_t)0) return true;
    size_t s = (size_t)(std::upper_bound(lay.offsets.begin(), lay.offsets.end(), (int)i) - lay.offsets.begin()) - 1;
    if (mode == Check::Keys)
        fprintf(stderr, "%s, segments of %zu: WRONG at item %zu (segment %zu): key %u, expected %u\n", what, lay.len, i,
                s, ok[i], ref[i]);
    else
        fprintf(stderr,
                "%s, segments of %zu: WRONG at item %zu (segment %zu, items %zu..%zu): key %u value %u (previous "
                "key %u value %u): out of order, out of its segment, duplicated, off its key or unstable\n",
                what, lay.len, i, s, lay.begin(s), lay.end(s), ok[i], ov[i], i > 0 ? ok[i - 1] : 0,
                i > 0 ? ov[i - 1] : 0);
    return false;
}


static std::vector<size_t> parse_list(const char *s) {
    std::vector<size_t> out;
    std::string list = s;
    for (size_t at = 0, comma; at <= list.size(); at = comma + 1) {
        comma = list.find(',', at);
        if (comma == std::string::npos) comma = list.size();
        if (comma > at) out.push_back(strtoull(list.substr(at, comma - at).c_str(), nullptr, 10));
    }
    return out;
}

int main(int argc, char **argv) {
    size_t n = 67108864;
    std::vector<size_t> lengths = {64, 1024, 262144};
    bool json = false;
    FILE *jf = nullptr;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--json")) json = true;
        else if (!strcmp(argv[i], "--lengths") && i + 1 < argc) lengths = parse_list(argv[++i]);
        else if (!strcmp(argv[i], "--json-file") && i + 1 < argc) {
            if (!(jf = fopen(argv[++i], "w"))) {
                perror(argv[i]);
                return 2;
            }
        } else if (argv[i][0] >= '0' && argv[i][0] <= '9') n = strtoull(argv[i], nullptr, 10);
        else {
            fprintf(stderr, "usage: %s [--json | --json-file PATH] [--lengths L[,L...]] [n]\n", argv[0]);
            return 2;
        }
    }
    // DeviceSegmentedRadixSort counts items and offsets in int.
    if (n == 0 || n > (size_t)0x7fffffff || lengths.empty() ||
        std::find(lengths.begin(), lengths.end(), (size_t)0) != lengths.end()) {
        fprintf(stderr, "n must be 1..2^31-1 and every segment length at least 1\n");
        return 2;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    if (json) jf = stdout;
    if (jf)
        fprintf(jf, "{\"src\":\"cub\",\"kind\":\"version\",\"text\":\"%s, CUB %d.%d.%d\"}\n", prop.name,
                CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION);
    if (!json) {
        printf("# %s, CUB %d.%d.%d; n = %zu u32 keys (values 0..n), random (splitmix64 seeded with n); median of %d "
               "after %d warm-ups\n",
               prop.name, CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, n, RUNS, WARMUPS);
        printf("%8s %8s %-26s %-66s %9s %9s %9s %12s %6s\n", "segment", "segments", "what", "api", "median_ms",
               "min_ms", "Gitems/s", "temp_bytes", "stable");
    }
    fflush(stdout);

    std::vector<unsigned> hk(n), hv(n);
    par_for(n, [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) hk[i] = (unsigned)splitmix(n, i), hv[i] = (unsigned)i;
    });
    unsigned *pk, *pv, *k0, *k1, *v0, *v1;
    for (unsigned **p : {&pk, &pv, &k0, &k1, &v0, &v1}) CK(cudaMalloc(p, n * 4));
    CK(cudaMemcpy(pk, hk.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(pv, hv.data(), n * 4, cudaMemcpyHostToDevice));
    std::vector<unsigned> ok(n), ov(n);
    int failures = 0;

    for (size_t len : lengths) {
        Layout lay;
        lay.n = n;
        lay.len = len;
        lay.segments = (n + len - 1) / len;
        for (size_t s = 0; s < lay.segments; ++s) lay.offsets.push_back((int)(s * len));
        lay.offsets.push_back((int)n);
        // Each segment's input keys sorted on the host: the expected result of the keys-only rows.
        std::vector<unsigned> ref(hk);
        par_for(lay.segments, [&](size_t s0, size_t s1) {
            for (size_t s = s0; s < s1; ++s) std::sort(ref.begin() + lay.begin(s), ref.begin() + lay.end(s));
        });
        int *d_off;
        CK(cudaMalloc(&d_off, lay.offsets.size() * sizeof(int)));
        CK(cudaMemcpy(d_off, lay.offsets.data(), lay.offsets.size() * sizeof(int), cudaMemcpyHostToDevice));
        const int *d_begin = d_off, *d_end = d_off + 1;
        const int ni = (int)n, ns = (int)lay.segments;

        // One row: `sort(temp, temp_bytes)` sizes its temporary storage when temp is null, else
        // sorts; it returns where the result lies (keys, values; values null for keys only).
        auto row = [&](const char *what, const char *api, const char *buffers, bool descending, Check mode,
                       auto &&sort) {
            bool pairs = mode != Check::Keys;
            size_t temp_bytes = 0;
            sort(nullptr, temp_bytes);
            void *temp = nullptr;
            CK(cudaMalloc(&temp, std::max<size_t>(temp_bytes, 1)));
            std::pair<unsigned *, unsigned *> out{nullptr, nullptr};
            Timing t = time_runs([&] { out = sort(temp, temp_bytes); }, pk, k0, pairs ? pv : nullptr,
                                 pairs ? v0 : nullptr, n, WARMUPS, RUNS);
            CK(cudaFree(temp));
            CK(cudaMemcpy(ok.data(), out.first, n * 4, cudaMemcpyDeviceToHost));
            if (pairs) CK(cudaMemcpy(ov.data(), out.second, n * 4, cudaMemcpyDeviceToHost));
            bool stable = false;
            if (!check_result(what, lay, hk, ref, ok, ov, mode, descending, stable)) {
                ++failures;
                return;
            }
            if (jf) {
                fprintf(jf,
                        "{\"src\":\"cub\",\"group\":\"segments\",\"what\":\"%s-%zu\",\"api\":\"%s\",\"buffers\":\"%s\","
                        "\"order\":\"%s\",\"values\":%s,\"pattern\":\"random\",\"n\":%zu,\"segment\":%zu,"
                        "\"segments\":%zu,\"median_ms\":%.6f,\"min_ms\":%.6f,\"runs\":%d,\"temp_bytes\":%zu,"
                        "\"bytes\":%zu,\"stable\":%s,\"checked\":true}\n",
                        what, len, api, buffers, descending ? "descending" : "ascending", pairs ? "true" : "false", n,
                        len, lay.segments, t.median_ms, t.min_ms, RUNS, temp_bytes, n * (pairs ? 8 : 4),
                        pairs ? (stable ? "true" : "false") : "null");
                fflush(jf);
            }
            if (!json) {
                std::string full = std::string(api) + " (" + buffers + ")";
                printf("%8zu %8zu %-26s %-66s %9.3f %9.3f %9.2f %12zu %6s\n", len, lay.segments, what, full.c_str(),
                       t.median_ms, t.min_ms, n / (t.median_ms * 1e6), temp_bytes,
                       pairs ? (stable ? "yes" : "no") : "-");
            }
            fflush(stdout);
        };
        using Out = std::pair<unsigned *, unsigned *>;

        // cub::DeviceSegmentedSort (sizes segments into groups, a sort for each group).
        row("segsort_pairs_dbuf", "cub::DeviceSegmentedSort::SortPairs", "DoubleBuffer", false, Check::Pairs,
            [&](void *tmp, size_t &bytes) {
                cub::DoubleBuffer<unsigned> k(k0, k1), v(v0, v1);
                CK(cub::DeviceSegmentedSort::SortPairs(tmp, bytes, k, v, ni, ns, d_begin, d_end));
                return Out{k.Current(), v.Current()};
            });
        row("segsort_pairs_plain", "cub::DeviceSegmentedSort::SortPairs", "in/out arrays", false, Check::Pairs,
            [&](void *tmp, size_t &bytes) {
                CK(cub::DeviceSegmentedSort::SortPairs(tmp, bytes, k0, k1, v0, v1, ni, ns, d_begin, d_end));
                return Out{k1, v1};
            });
        row("segsort_stable_pairs_dbuf", "cub::DeviceSegmentedSort::StableSortPairs", "DoubleBuffer", false,
            Check::StablePairs, [&](void *tmp, size_t &bytes) {
                cub::DoubleBuffer<unsigned> k(k0, k1), v(v0, v1);
                CK(cub::DeviceSegmentedSort::StableSortPairs(tmp, bytes, k, v, ni, ns, d_begin, d_end));
                return Out{k.Current(), v.Current()};
            });
        row("segsort_keys_dbuf", "cub::DeviceSegmentedSort::SortKeys", "DoubleBuffer", false, Check::Keys,
            [&](void *tmp, size_t &bytes) {
                cub::DoubleBuffer<unsigned> k(k0, k1);
                CK(cub::DeviceSegmentedSort::SortKeys(tmp, bytes, k, ni, ns, d_begin, d_end));
                return Out{k.Current(), nullptr};
            });
        row("segsort_pairs_desc_dbuf", "cub::DeviceSegmentedSort::SortPairsDescending", "DoubleBuffer", true,
            Check::Pairs, [&](void *tmp, size_t &bytes) {
                cub::DoubleBuffer<unsigned> k(k0, k1), v(v0, v1);
                CK(cub::DeviceSegmentedSort::SortPairsDescending(tmp, bytes, k, v, ni, ns, d_begin, d_end));
                return Out{k.Current(), v.Current()};
            });

        // cub::DeviceSegmentedRadixSort (one thread block per segment, 32-bit keys in full).
        row("segradix_pairs_dbuf", "cub::DeviceSegmentedRadixSort::SortPairs", "DoubleBuffer", false, Check::Pairs,
            [&](void *tmp, size_t &bytes) {
                cub::DoubleBuffer<unsigned> k(k0, k1), v(v0, v1);
                CK(cub::DeviceSegmentedRadixSort::SortPairs(tmp, bytes, k, v, ni, ns, d_begin, d_end));
                return Out{k.Current(), v.Current()};
            });
        row("segradix_pairs_plain", "cub::DeviceSegmentedRadixSort::SortPairs", "in/out arrays", false, Check::Pairs,
            [&](void *tmp, size_t &bytes) {
                CK(cub::DeviceSegmentedRadixSort::SortPairs(tmp, bytes, k0, k1, v0, v1, ni, ns, d_begin, d_end));
                return Out{k1, v1};
            });
        row("segradix_keys_dbuf", "cub::DeviceSegmentedRadixSort::SortKeys", "DoubleBuffer", false, Check::Keys,
            [&](void *tmp, size_t &bytes) {
                cub::DoubleBuffer<unsigned> k(k0, k1);
                CK(cub::DeviceSegmentedRadixSort::SortKeys(tmp, bytes, k, ni, ns, d_begin, d_end));
                return Out{k.Current(), nullptr};
            });
        row("segradix_pairs_desc_dbuf", "cub::DeviceSegmentedRadixSort::SortPairsDescending", "DoubleBuffer", true,
            Check::Pairs, [&](void *tmp, size_t &bytes) {
                cub::DoubleBuffer<unsigned> k(k0, k1), v(v0, v1);
                CK(cub::DeviceSegmentedRadixSort::SortPairsDescending(tmp, bytes, k, v, ni, ns, d_begin, d_end));
                return Out{k.Current(), v.Current()};
            });
        CK(cudaFree(d_off));
    }
    for (unsigned *p : {pk, pv, k0, k1, v0, v1}) CK(cudaFree(p));
    if (jf && jf != stdout) fclose(jf);
    if (failures) fprintf(stderr, "%d row(s) failed the host check and were not reported\n", failures);
    return failures ? 1 : 0;
}
