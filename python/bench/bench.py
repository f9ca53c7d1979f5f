"""gpusort from Python beside the sorts Python users have: NumPy on the host, PyTorch and CuPy on
the device. Prints a markdown table and writes the figures as JSON.

    python bench.py [--out bench.json] [--quick]

Host rows: 64M uint32 keys and 64M uint32 pairs in NumPy arrays, gpusort (default sorter) against
``numpy.sort(kind="stable")`` and ``numpy.argsort(kind="stable")``, and the argsort of 64M float32
keys (beside the Rust call in the report); wall-clock, median of the repeats after one warm-up,
the input restored before each (untimed). Device rows: 16K, 1M, 16M and 64M keys in CUDA tensors
and CuPy arrays, gpusort (sorts in place; argsort of int32, float32, int64 and float64 keys into
int64 indices, on the current stream) against ``torch.sort``/``torch.argsort`` (stable) and
``cupy.sort``/``cupy.argsort``, timed with CUDA
events on the current stream, median after warm-up. ``call us`` is the host time one gpusort call
takes to queue its work (median, no synchronisation), and ``python us`` the part of it spent in
the Python layer (the same call made straight to the native method, subtracted).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any, Callable, Optional

import numpy as np

import gpusort
from gpusort import _device

M = 1 << 20


def median_wall(fn: Callable[[], Any], reset: Callable[[], Any], repeats: int, warmup: bool = True) -> float:
    """Median seconds of ``fn`` (after one warm-up call), ``reset`` run untimed before each."""
    times = []
    for i in range(repeats + warmup):
        reset()
        t0 = time.perf_counter()
        fn()
        if i or not warmup:
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def host_rows(n: int, repeats: int) -> list:
    rng = np.random.default_rng(1)
    src = rng.integers(0, 2**32, n, dtype=np.uint32)
    keys, values = src.copy(), np.empty(n, dtype=np.uint32)
    iota = np.arange(n, dtype=np.uint32)

    def reset():
        np.copyto(keys, src)
        np.copyto(values, iota)

    rows = []
    # NumPy's stable sort of 64M 32-bit keys takes seconds and keeps no state: no warm-up.
    nr = max(1, min(3, repeats))
    gs = median_wall(lambda: gpusort.sort(keys), reset, repeats)
    npk = median_wall(lambda: np.sort(keys, kind="stable"), reset, nr, warmup=False)
    rows.append(dict(where="host", what="keys u32", n=n, gpusort_s=gs, numpy_s=npk))
    gp = median_wall(lambda: gpusort.sort_pairs(keys, values), reset, repeats)
    npp = median_wall(lambda: values.take(np.argsort(keys, kind="stable")), reset, nr, warmup=False)
    rows.append(dict(where="host", what="pairs u32", n=n, gpusort_s=gp, numpy_s=npp))
    ga = median_wall(lambda: gpusort.argsort(keys), reset, repeats)
    npa = median_wall(lambda: np.argsort(keys, kind="stable"), reset, nr, warmup=False)
    rows.append(dict(where="host", what="argsort u32", n=n, gpusort_s=ga, numpy_s=npa))
    # float32 keys, the Rust call's figure beside it in the report (NumPy's would take a minute).
    floats = rng.standard_normal(n, dtype=np.float32)
    gf = median_wall(lambda: gpusort.argsort(floats), lambda: None, repeats)
    rows.append(dict(where="host", what="argsort f32", n=n, gpusort_s=gf, numpy_s=None))
    return rows


class Device:
    """Event timing and the competitor sorts of one library."""

    def __init__(self, name: str, mod: Any):
        self.name, self.m = name, mod

    def array(self, a: np.ndarray) -> Any:
        return self.m.from_numpy(a).cuda() if self.name == "torch" else self.m.asarray(a)

    def event_ms(self, fn: Callable[[], Any], reset: Callable[[], Any], repeats: int) -> float:
        m = self.m
        times = []
        for i in range(repeats + 1):
            reset()
            if self.name == "torch":
                start, end = m.cuda.Event(enable_timing=True), m.cuda.Event(enable_timing=True)
                start.record()
                fn()
                end.record()
                end.synchronize()
                ms = start.elapsed_time(end)
            else:
                start, end = m.cuda.Event(), m.cuda.Event()
                start.record()
                fn()
                end.record()
                end.synchronize()
                ms = m.cuda.get_elapsed_time(start, end)
            if i:
                times.append(ms)
        return statistics.median(times)

    def sort(self, d: Any) -> Any:
        return self.m.sort(d, stable=True) if self.name == "torch" else self.m.sort(d)

    def argsort(self, d: Any) -> Any:
        return self.m.argsort(d, stable=True) if self.name == "torch" else self.m.argsort(d)

    def sync(self) -> None:
        if self.name == "torch":
            self.m.cuda.synchronize()
        else:
            self.m.cuda.runtime.deviceSynchronize()


def call_overheads(d: Any, sync: Callable[[], Any], repeats: int) -> tuple:
    """Median host microseconds to queue one gpusort.sort of ``d``, and the part of it spent in
    Python (the native call alone subtracted). The device is idle before each call, so a full
    launch queue never holds one back."""
    sorter = gpusort.default_sorter()
    native = sorter._native
    view = _device.view(d, "a")
    key, stream = _device.key_name(view, "a"), _device.stream_handle(view, None)

    def timed(fn):
        out = []
        for _ in range(repeats):
            sync()
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
        return statistics.median(out) * 1e6

    full = timed(lambda: sorter.sort(d))
    raw = timed(lambda: native.sort_device(view.ptr, view.n, key, stream, False))
    return full, full - raw


def random_keys(rng: Any, dtype: Any, n: int) -> np.ndarray:
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(n).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def device_rows(dev: Device, sizes: list, repeats: int) -> list:
    rows = []
    rng = np.random.default_rng(2)
    for n in sizes:
        src_np = random_keys(rng, np.int32, n)
        src = dev.array(src_np)
        d = dev.array(src_np)
        reset = (lambda: d.copy_(src)) if dev.name == "torch" else (lambda: dev.m.copyto(d, src))
        r = max(3, repeats if n < 8 * M else repeats // 2)
        g_sort = dev.event_ms(lambda: gpusort.sort(d), reset, r)
        l_sort = dev.event_ms(lambda: dev.sort(d), reset, r)
        dev.sync()
        call_us, python_us = call_overheads(d, dev.sync, 500 if n <= M else 20)
        dev.sync()
        rows.append(
            dict(where=dev.name, what="keys i32", n=n, gpusort_ms=g_sort, lib_ms=l_sort, call_us=call_us, python_us=python_us)
        )
        del src, d
        # Argsort reads its keys only: nothing to restore between runs.
        for dtype in (np.int32, np.float32, np.int64, np.float64):
            d = dev.array(random_keys(rng, dtype, n))
            g_arg = dev.event_ms(lambda: gpusort.argsort(d), lambda: None, r)
            l_arg = dev.event_ms(lambda: dev.argsort(d), lambda: None, r)
            name = {np.int32: "i32", np.float32: "f32", np.int64: "i64", np.float64: "f64"}[dtype]
            rows.append(dict(where=dev.name, what=f"argsort {name}", n=n, gpusort_ms=g_arg, lib_ms=l_arg))
            del d
    return rows


def libraries() -> list:
    out = []
    try:
        import torch

        if torch.cuda.is_available():
            out.append(Device("torch", torch))
    except ImportError:
        pass
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() > 0:
            out.append(Device("cupy", cupy))
    except Exception:  # noqa: BLE001 - no cupy, or no device for it
        pass
    return out


def fmt(x: Optional[float], scale: float = 1.0, digits: int = 2) -> str:
    return "-" if x is None else f"{x * scale:.{digits}f}"


def table(rows: list, describe: str) -> str:
    lines = [f"gpusort {gpusort.__version__}, default sorter: {describe}", ""]
    lines += ["| where | what | n | gpusort ms | other ms | speed-up | call us | python us |"]
    lines += ["|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r["where"] == "host":
            g, other = r["gpusort_s"] * 1e3, "numpy"
            o = None if r["numpy_s"] is None else r["numpy_s"] * 1e3
        else:
            g, o, other = r["gpusort_ms"], r["lib_ms"], r["where"]
        if o is None:
            lines.append(f"| {r['where']} | {r['what']} | {r['n']:,} | {g:.3f} | - | - | - | - |")
            continue
        lines.append(
            f"| {r['where']} | {r['what']} (vs {other}) | {r['n']:,} | {g:.3f} | {o:.3f} | {o / g:.2f}x "
            f"| {fmt(r.get('call_us'), 1, 1)} | {fmt(r.get('python_us'), 1, 1)} |"
        )
    return "\n".join(lines)


def main(argv: Optional[list] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="bench.json", help="where to write the JSON figures")
    p.add_argument("--quick", action="store_true", help="small sizes, few repeats (a smoke test)")
    args = p.parse_args(argv)
    host_n, sizes, repeats = (1 * M, [16 * 1024, M], 3) if args.quick else (64 * M, [16 * 1024, M, 16 * M, 64 * M], 10)
    describe = gpusort.default_sorter().describe()
    rows = host_rows(host_n, repeats)
    for dev in libraries():
        rows += device_rows(dev, sizes, repeats * 5)
    print(table(rows, describe))
    with open(args.out, "w") as f:
        json.dump(dict(describe=describe, version=gpusort.__version__, python=sys.version, rows=rows), f, indent=1)
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
