"""torch.argsort(stable=True) and cupy.argsort on the keys of the bench's `argsort-device` rows
(benches/sort/argsort.rs): the splitmix64 stream seeded with n, 32-bit keys its low half as int32
or float32 bits, 64-bit keys all of it as int64 or float64 bits. The keys on the GPU, CUDA events
around the call on the library's current stream, median of 15 after 3 warm-ups; each result's
first run checked to be a permutation that orders the keys (NaNs aside: the libraries place
them by their own rules).

    ci/argsort_libs.py [--json] [--sizes 1048576,16777216,67108864]

--json prints JSON lines for ci/report/report.py (src "argsort-torch" or "argsort-cupy": key, n, median_ms,
runs; first a version line, or one `absent` line where the library is missing); otherwise one line
a row."""

import argparse
import json
import os
import statistics
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the checkout for report_torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "report"))
from report_torch import parse_sizes, splitmix_np  # noqa: E402

KEYS = ("i32", "f32", "i64", "f64")
WARMUPS, RUNS = 3, 15


def keys_np(np, key, n, chunk=1 << 24):
    """The bench's keys of type `key` at n, as a NumPy array."""
    wide = key in ("i64", "f64")
    out = np.empty(n, dtype=np.uint64 if wide else np.uint32)
    for start in range(0, n, chunk):
        z = splitmix_np(np, n, np.arange(start, min(n, start + chunk), dtype=np.uint64))
        out[start : start + len(z)] = z if wide else (z & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    return out.view({"i32": np.int32, "f32": np.float32, "i64": np.int64, "f64": np.float64}[key])


def libraries():
    """(name, module, version) of torch and CuPy where each has a GPU; absent lines for the rest."""
    found, absent = [], []
    try:
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("torch has no CUDA device")
        found.append(("torch", torch, f"torch {torch.__version__}"))
    except Exception as e:  # noqa: BLE001 - any failure means: no torch column
        absent.append(("torch", str(e)))
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
        found.append(("cupy", cupy, f"cupy {cupy.__version__}"))
    except Exception as e:  # noqa: BLE001 - no cupy, or no device for it
        absent.append(("cupy", str(e)))
    return found, absent


def time_argsort(name, m, host):
    """Median milliseconds of the library's stable argsort of `host` on its GPU."""
    if name == "torch":
        d = m.from_numpy(host).cuda()
        call = lambda: m.argsort(d, stable=True)  # noqa: E731
        events = lambda: (m.cuda.Event(enable_timing=True), m.cuda.Event(enable_timing=True))  # noqa: E731
        elapsed = lambda a, b: a.elapsed_time(b)  # noqa: E731
        back = lambda p: p.cpu().numpy()  # noqa: E731
    else:
        d = m.asarray(host)
        call = lambda: m.argsort(d)  # noqa: E731
        events = lambda: (m.cuda.Event(), m.cuda.Event())  # noqa: E731
        elapsed = m.cuda.get_elapsed_time
        back = m.asnumpy
    times = []
    for run in range(WARMUPS + RUNS):
        a, b = events()
        a.record()
        p = call()
        b.record()
        b.synchronize()
        if run == 0:
            check(host, back(p), name)
        if run >= WARMUPS:
            times.append(elapsed(a, b))
        del p
    return statistics.median(times)


def check(keys, p, name):
    import numpy as np

    assert len(p) == len(keys) and np.array_equal(np.sort(p), np.arange(len(keys))), f"{name}: not a permutation"
    ordered = keys[p]
    if ordered.dtype.kind == "f":
        ordered = ordered[~np.isnan(ordered)]
    assert np.all(ordered[:-1] <= ordered[1:]), f"{name}: the keys are not in order"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--sizes", default="1048576,16777216,67108864")
    args = ap.parse_args()
    import numpy as np

    found, absent = libraries()
    for name, why in absent:
        if args.json:
            print(json.dumps({"src": f"argsort-{name}", "kind": "absent", "text": why}), flush=True)
        else:
            print(f"{name}: not measured ({why})")
    for name, _, version in found:
        if args.json:
            print(json.dumps({"src": f"argsort-{name}", "kind": "version", "text": version}), flush=True)
    for n in parse_sizes(args.sizes):
        for key in KEYS:
            host = keys_np(np, key, n)
            for name, m, _ in found:
                ms = time_argsort(name, m, host)
                if args.json:
                    row = {"src": f"argsort-{name}", "key": key, "n": n, "median_ms": ms, "runs": RUNS}
                    print(json.dumps(row), flush=True)
                else:
                    print(f"{name}.argsort {key} n={n}: {ms:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
