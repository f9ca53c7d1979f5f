"""Half-precision keys on the GPU from Python, one process, one device: gpusort.sort / argsort
against torch.sort(stable=True) / torch.argsort(stable=True) on float16 and bfloat16 tensors
(and cupy.sort / cupy.argsort on float16), each library in its own float order. Timed keys: torch.randn
(seed n) rounded to the type, as a model's activations are: no NaN, no -0.0. Checked keys: the
low 16 bits of the splitmix64 stream seeded with n (every bit pattern, NaNs of both signs and
-0.0 included), gpusort's results against NumPy's stable argsort of their exact float32 values
(torch's documented order), bit for bit; whether torch's own sort agrees is printed. CUDA
events on torch's current stream around each call, median of 15 after 3 warm-ups; a keys sort
gets a fresh copy of the input before each call (not timed).

    ci/half_libs.py [--json] [--sizes 67108864]

--json prints JSON lines for ci/report/report.py (src "half-libs": lib, dtype, op, n, median_ms)."""

import argparse
import json
import os
import statistics
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "report"))
from report_torch import parse_sizes, splitmix_np  # noqa: E402

WARMUPS, RUNS = 3, 15


def bits16(np, n, chunk=1 << 24):
    out = np.empty(n, dtype=np.uint16)
    for start in range(0, n, chunk):
        z = splitmix_np(np, n, np.arange(start, min(n, start + chunk), dtype=np.uint64))
        out[start : start + len(z)] = (z & np.uint64(0xFFFF)).astype(np.uint16)
    return out


def time_calls(torch, call, before=None):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for run in range(WARMUPS + RUNS):
        if before is not None:
            before()
        start.record()
        call()
        end.record()
        end.synchronize()
        if run >= WARMUPS:
            times.append(start.elapsed_time(end))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--sizes", default="67108864")
    args = ap.parse_args()
    import numpy as np
    import torch

    import gpusort

    rows = []
    for n in parse_sizes(args.sizes):
        raw = torch.from_numpy(bits16(np, n).view(np.int16)).cuda()
        torch.manual_seed(n)
        normal = torch.randn(n, device="cuda")
        for dtype in ("float16", "bfloat16"):
            t = getattr(torch, dtype)
            checked = raw.view(t)
            # The oracle: NumPy's stable argsort of the exact float32 values (NaN last, -0.0 ==
            # +0.0), which is torch's documented order ascending.
            want = torch.from_numpy(np.argsort(checked.float().cpu().numpy(), kind="stable")).cuda()
            work = checked.clone()
            gpusort.sort(work)
            same_vals = torch.equal(work.view(torch.int16), checked[want].view(torch.int16))
            same_idx = torch.equal(gpusort.argsort(checked), want)
            torch_agrees = torch.equal(torch.argsort(checked, stable=True), want)
            print(f"half-libs: {dtype} n={n}: sort {same_vals}, argsort {same_idx}; torch agrees: {torch_agrees}", file=sys.stderr)
            if not (same_vals and same_idx):
                sys.exit(1)
            x = normal.to(t)
            work = torch.empty_like(x)
            refill = lambda: work.copy_(x)  # noqa: E731
            timed = [
                ("torch", "sort", lambda: torch.sort(x, stable=True), None),
                ("torch", "argsort", lambda: torch.argsort(x, stable=True), None),
                ("gpusort", "sort", lambda: gpusort.sort(work), refill),
                ("gpusort", "argsort", lambda: gpusort.argsort(x), None),
            ]
            for lib, op, call, before in timed:
                rows.append({"lib": lib, "dtype": dtype, "op": op, "n": n, "median_ms": time_calls(torch, call, before)})
        try:
            import cupy

            c = cupy.asarray(normal.to(torch.float16))
            for op, call in (("sort", lambda: cupy.sort(c)), ("argsort", lambda: cupy.argsort(c))):
                rows.append({"lib": "cupy", "dtype": "float16", "op": op, "n": n, "median_ms": time_calls(torch, call)})
        except Exception as e:  # noqa: BLE001 - no CuPy column
            print(f"half-libs: no cupy rows: {e}", file=sys.stderr)
    for r in rows:
        if args.json:
            print(json.dumps({"src": "half-libs", **r}))
        else:
            print(f"{r['lib']:8} {r['dtype']:9} {r['op']:8} n={r['n']:>10} {r['median_ms']:9.3f} ms")
    by = {(r["lib"], r["dtype"], r["op"], r["n"]): r["median_ms"] for r in rows}
    for (lib, dtype, op, n), ms in by.items():
        if lib == "gpusort" and ("torch", dtype, op, n) in by:
            print(f"ratio torch/gpusort {dtype} {op} n={n}: {by[('torch', dtype, op, n)] / ms:.2f}x", file=sys.stderr)


if __name__ == "__main__":
    main()
