"""The report tests' input: small JSON rows in the formats ci/report.sh collects (benches/sort's
GPUSORT_BENCH_JSON, the CUB and torch harnesses, the machine facts), so every section renders on the CPU."""

import json

M = 1 << 20


def bench(group, sort, n, ms, pattern="random", **extra):
    return {"src": "bench", "group": group, "sort": sort, "pattern": pattern, "n": n, "median_ms": ms, **extra}


def fixture_rows():
    rows = [{"src": "machine", "key": k, "text": t} for k, t in (
        ("date", "2026-12-01 10:00 UTC"), ("cpu", "Test CPU"), ("cores", "16"), ("os", "Linux 6.8"),
        ("commit", "abc1234"), ("gpu", "NVIDIA H200, 143771 MiB"), ("driver", "580.159.04"),
        ("nvcc", "Build cuda_13.0"), ("command", "ci/report.sh"))]
    for n, ms in ((M, 0.5), (16 * M, 2.0)):
        for sort, f in (("radix", 1.0), ("radix-keys", 0.8), ("bitonic", 4.0), ("odd-even", 6.0)):
            rows.append(bench("cuda-device", sort, n, ms * f))
        rows.append(bench("cuda-host", "radix", n, ms * 10))
        rows.append({"src": "cub", "what": "pairs_dbuf", "pattern": "random", "n": n, "median_ms": ms * 1.5})
        rows.append({"src": "cub", "what": "keys_dbuf", "pattern": "random", "n": n, "median_ms": ms * 1.2})
        rows.append({"src": "torch", "pattern": "random", "n": n, "pairs_ms": ms * 3, "keys_ms": ms * 2})
        for sort, f in (("gpusort", 20.0), ("rayon-unstable", 30.0), ("rdst", 40.0)):
            rows.append(bench("cpu", sort, n, ms * f))
    for p in ("sorted", "reverse", "distinct16", "equal", "zipf"):
        rows.append(bench("cuda-device", "radix", M, 0.4, pattern=p))
    rows += [bench("host-bw", "h2d", 0, 0, gb_s=55.4, runs=7) | {"n": 512 * M},
             bench("host-bw", "d2h", 0, 0, gb_s=55.2, runs=7) | {"n": 512 * M}]
    for length in (64, 1024):
        rows.append(bench("segments", f"cuda-device-segments-{length}", 64 * M, 5.0, segment=length))
        rows.append(bench("segments", f"cuda-device-segments-keys-{length}", 64 * M, 4.0, segment=length))
        rows.append({"src": "cub", "group": "segments", "what": f"pairs-{length}", "n": 64 * M, "segment": length,
                     "values": True, "median_ms": 10.0})
        rows.append({"src": "cub", "group": "segments", "what": f"keys-{length}", "n": 64 * M, "segment": length,
                     "values": False, "median_ms": 6.0})
    for k in (16, 1024):
        rows.append(bench("topk", f"cuda-device-topk-{k}", 64 * M, 2.0, k=k))
        rows.append({"src": "torch-topk", "where": "device", "k": k, "n": 64 * M, "median_ms": 3.0})
    for n in (64 * M, 256 * M):
        rows.append(bench("host", "cuda-kvp", n, n / M * 0.5, floor_ms=n / M * 0.4, bytes=8 * n))
        rows.append(bench("host", "cpu-kvp", n, n / M * 2.0, bytes=8 * n))
    rows.append(bench("records", "cuda-argsort", 64 * M, 40.0))
    rows.append(bench("records", "cpu-argsort", 64 * M, 400.0))
    rows.append(bench("out-of-core", "cuda-1g", 1024 * M, 900.0, floor_ms=600.0, limit_bytes=1 << 30))
    rows.append(bench("out-of-core", "cpu", 1024 * M, 3000.0))
    for t, ms, floor in (("u8", 11.0, 10.0), ("u16", 30.0, 19.5)):
        rows.append(bench("small-keys-host", f"cuda-{t}", 256 * M, ms, floor_ms=floor, bytes=256 * M))
        rows.append(bench("small-keys-host", f"cpu-{t}", 256 * M, ms * 4))
    for sort, ms in (("keys-u16", 0.6), ("argsort-u16", 1.2), ("keys-u32", 1.4), ("argsort-u32", 2.8)):
        rows.append(bench("small-keys-device", sort, 64 * M, ms))
    for lib, op, ms in (("gpusort", "sort", 1.0), ("torch", "sort", 1.7), ("gpusort", "argsort", 1.5),
                        ("torch", "argsort", 1.7)):
        rows.append({"src": "half-libs", "lib": lib, "dtype": "float16", "op": op, "n": 64 * M, "median_ms": ms})
    return rows


def write_rows(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)
