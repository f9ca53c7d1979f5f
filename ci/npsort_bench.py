#!/usr/bin/env python3
"""gpusort's CPU keys-only sort against np.sort on the same keys, in the same run.

Writes seeded random keys to raw files, times np.sort on one thread (it has no other mode) and
`npsort_table` (fallback/benches/npsort_table.rs, a release binary that ci/npsort.sh builds) on one thread and on all
cores, checks that both give the same keys, and prints a markdown table. Wall time, median of
repeats after warm-up; every sort gets a fresh copy of the input, the copy not timed. From 4 MiB
our copy sits in memory advised to huge pages, as NumPy's allocator advises its arrays. Each cell
is timed in several rounds, the columns taking turns, and shows its best round: on a shared
machine a slow spell then costs one round, not one column. `--stat least` shows the least time of
every sort of every round instead of the median (noise on a shared machine only adds time; the
same statistic for np.sort and for ours).

    python3 ci/npsort_bench.py --bin <the npsort_table binary> [--radix]   (or: ci/npsort.sh [--radix])

`--radix` adds the radix sort (GPUSORT_CPU_SIMD=off: the path before the vector sort), on one
thread and on all cores. Needs numpy; no Rust toolchain.
"""

import argparse
import json
import os
import platform
import subprocess
import tempfile
import time

import numpy as np

SIZES = {"64K": 1 << 16, "1M": 1 << 20, "16M": 1 << 24}
DTYPES = {"u32": np.uint32, "i32": np.int32, "f32": np.float32, "u64": np.uint64, "i64": np.int64, "f64": np.float64}


def keys(kind, n, seed):
    rng = np.random.default_rng(seed)
    if kind.startswith("f"):
        # Uniform in [-1e6, 1e6): both signs, many exponents, no NaN (np.sort's order for NaN and
        # -0.0 differs from total_cmp, so they stay out of the cross-check).
        return ((rng.random(n, dtype=np.float64) * 2 - 1) * 1e6).astype(DTYPES[kind])
    info = np.iinfo(DTYPES[kind])
    return rng.integers(info.min, info.max, n, dtype=DTYPES[kind], endpoint=True)


def repeats_for(n):
    return 200 if n <= 1 << 16 else 30 if n <= 1 << 20 else 7


def time_numpy(a, repeats):
    b = a.copy()
    for _ in range(20 if a.size <= 1 << 16 else 2):
        b[:] = a
        b.sort()
    times = []
    for _ in range(repeats):
        b[:] = a
        t = time.perf_counter()
        b.sort()
        times.append((time.perf_counter() - t) * 1e3)
    times.sort()
    return {"median_ms": times[len(times) // 2], "min_ms": times[0]}, b


def time_ours(binary, kind, path, repeats, threads, simd, out=None):
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
    if simd is not None:
        env["GPUSORT_CPU_SIMD"] = simd
    cmd = [binary, kind, path, str(repeats)] + ([out] if out else [])
    line = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout.strip()
    return json.loads(line.splitlines()[-1])


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def numpy_features():
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as feats
    except ImportError:
        try:
            from numpy.core._multiarray_umath import __cpu_features__ as feats
        except ImportError:
            return "unknown"
    want = ["AVX2", "AVX512F", "AVX512_SKX", "AVX512_ICL", "AVX512_SPR"]
    return ", ".join(f for f in want if feats.get(f)) or "none of AVX2/AVX-512"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="the npsort_table release binary")
    ap.add_argument("--types", default="u32,f32,u64", help="comma-separated: u32,i32,f32,u64,i64,f64")
    ap.add_argument("--sizes", default="64K,1M,16M", help="comma-separated: 64K,1M,16M")
    ap.add_argument("--threads", type=int, default=os.cpu_count(), help="'all cores' thread count")
    ap.add_argument("--radix", action="store_true", help="add the radix sort (vector sort off), all cores")
    ap.add_argument("--rounds", type=int, default=3, help="rounds per cell; the best round's median is shown")
    ap.add_argument("--stat", choices=("median", "least"), default="median",
                    help="each round's median (default), or the least time of every sort")
    ap.add_argument("--seed", type=int, default=27)
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    stat = "median_ms" if args.stat == "median" else "min_ms"
    all_t = args.threads
    print(f"CPU: {cpu_name()}, {os.cpu_count()} logical CPUs; numpy {np.__version__} ({numpy_features()})")
    print()
    head = f"| keys | n | np.sort, 1 thread (ms) | ours, 1 thread (ms) | np/ours 1 thread | ours, {all_t} threads (ms) | np/ours {all_t} threads |"
    rule = "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    if args.radix:
        head += f" radix, 1 thread (ms) | radix, {all_t} threads (ms) |"
        rule += " ---: | ---: |"
    print(head)
    print(rule)
    isa = None
    with tempfile.TemporaryDirectory() as tmp:
        for kind in args.types.split(","):
            for size in args.sizes.split(","):
                n = SIZES[size]
                a = keys(kind, n, args.seed)
                path = os.path.join(tmp, f"{kind}-{size}.raw")
                a.tofile(path)
                reps = repeats_for(n)
                out = os.path.join(tmp, "sorted.raw")
                cols = {}
                for r in range(max(1, args.rounds)):
                    np_t, np_sorted = time_numpy(a, reps)
                    one = time_ours(binary, kind, path, reps, 1, None, out if r == 0 else None)
                    if r == 0:
                        ours = np.fromfile(out, dtype=a.dtype)
                        if not np.array_equal(ours, np_sorted):
                            raise SystemExit(f"{kind} {size}: our result differs from np.sort")
                    times = {"np": np_t[stat], "one": one[stat], "many": time_ours(binary, kind, path, reps, all_t, None)[stat]}
                    if args.radix:
                        times["r1"] = time_ours(binary, kind, path, reps, 1, "off")[stat]
                        times["rn"] = time_ours(binary, kind, path, reps, all_t, "off")[stat]
                    for k, v in times.items():
                        cols[k] = min(cols.get(k, v), v)
                    isa = one["isa"]
                np_ms = cols["np"]
                row = (
                    f"| {kind} | {size} | {np_ms:.3f} | {cols['one']:.3f} | {np_ms / cols['one']:.2f}x"
                    f" | {cols['many']:.3f} | {np_ms / cols['many']:.2f}x |"
                )
                if args.radix:
                    row += f" {cols['r1']:.3f} | {cols['rn']:.3f} |"
                print(row, flush=True)
    print()
    what = "median of repeats" if args.stat == "median" else "least time of repeats"
    print(f"ours: gpusort_cpu::sort_keys (instruction set {isa}); {what} (200 at 64K, 30 at 1M, 7 at 16M)"
          f" after warm-up, wall time, the best of {max(1, args.rounds)} rounds; np/ours above 1 means ours is faster.")


if __name__ == "__main__":
    main()
