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

Lexsort rows: 64M rows by (u32, u32) and by (f32, i64), host (gpusort at 64M, and
beside ``numpy.lexsort`` at ``--numpy-rows``, 4M by default) and device (1M to 64M, against
chained stable ``torch.argsort``s and ``cupy.lexsort``, torch's or CuPy's own time); and
``gpusort.pandas.sort_values`` of a 4-column frame of ``--pandas-rows`` rows (50M by default) by
2 columns against pandas' ``sort_values(kind="stable")``, measured once (it takes tens of seconds);
and the CPU backend on one thread beside ``numpy.lexsort`` (one thread too), 16M rows by (u32,
f64), in a child process started with ``RAYON_NUM_THREADS=1`` (group ``lexsort-one-thread``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
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


def lexsort_keys(rng: Any, shape: str, n: int) -> list:
    """The two keys of a lexsort row, NumPy's order (the primary last): (u32, u32) random words,
    or (f32, i64) with the f32 key primary and a few distinct values of it (so i64 breaks ties)."""
    if shape == "u32,u32":
        return [rng.integers(0, 2**32, n, dtype=np.uint32), rng.integers(0, 2**32, n, dtype=np.uint32)]
    return [rng.integers(-(2**62), 2**62, n, dtype=np.int64), rng.integers(0, 1000, n).astype(np.float32)]


def lexsort_host_rows(n: int, numpy_n: int, repeats: int) -> list:
    """Host lexsorts of 2 keys: gpusort at ``n`` rows, and gpusort beside ``numpy.lexsort`` at
    ``numpy_n`` (NumPy's takes about a minute at 64M)."""
    rows = []
    rng = np.random.default_rng(3)
    for shape in ("u32,u32", "f32,i64"):
        keys = lexsort_keys(rng, shape, n)
        gs = median_wall(lambda: gpusort.lexsort(keys), lambda: None, repeats)
        rows.append(dict(where="host", what=f"lexsort {shape}", n=n, gpusort_s=gs, numpy_s=None))
        small = [k[:numpy_n] for k in keys]
        gs = median_wall(lambda: gpusort.lexsort(small), lambda: None, repeats)
        npl = median_wall(lambda: np.lexsort(small), lambda: None, max(1, min(3, repeats)), warmup=False)
        rows.append(dict(where="host", what=f"lexsort {shape}", n=numpy_n, gpusort_s=gs, numpy_s=npl))
    return rows


def lexsort_one_thread_rows(n: int, repeats: int) -> list:
    """``gpusort.Sorter("cpu").lexsort`` beside ``numpy.lexsort`` of ``n`` rows by (u32 of 65536
    values, then f64), both on one thread: the CPU backend's pool takes its size from
    ``RAYON_NUM_THREADS`` when the process first sorts, so a child process with it set measures."""
    if os.environ.get("RAYON_NUM_THREADS") != "1":
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "rows.json")
            argv = [sys.executable, os.path.abspath(__file__), "--groups", "lexsort-one-thread", "--out", out,
                    "--one-thread-rows", str(n), "--repeats", str(repeats)]
            child = subprocess.run(argv, env=dict(os.environ, RAYON_NUM_THREADS="1"), stdout=subprocess.DEVNULL)
            if child.returncode != 0:
                print(f"lexsort-one-thread: the child process failed ({child.returncode})", file=sys.stderr)
                return []
            with open(out) as f:
                return json.load(f)["rows"]
    rng = np.random.default_rng(5)
    keys = [rng.standard_normal(n), rng.integers(0, 1 << 16, n, dtype=np.uint32)]
    cpu = gpusort.Sorter("cpu")
    if not np.array_equal(cpu.lexsort(keys), np.lexsort(keys)):
        raise AssertionError("the CPU backend's lexsort differs from numpy.lexsort")
    gs = median_wall(lambda: cpu.lexsort(keys), lambda: None, repeats)
    npl = median_wall(lambda: np.lexsort(keys), lambda: None, max(1, min(3, repeats)), warmup=False)
    return [dict(where="host", what="lexsort u32,f64 one thread", n=n, gpusort_s=gs, numpy_s=npl)]


def pandas_rows(n: int, repeats: int) -> list:
    """``gpusort.pandas.sort_values`` of an ``n``-row frame of 4 columns by 2 (uint32 with few
    values, then float64 with NaN) against pandas' own ``sort_values(kind="stable")``, wall-clock
    of the whole call (the take of the rows included). Skipped without pandas."""
    try:
        import pandas as pd

        import gpusort.pandas as gpd
    except ImportError:
        return []
    rng = np.random.default_rng(4)
    b = rng.standard_normal(n)
    b[rng.integers(0, n, n // 100)] = np.nan
    df = pd.DataFrame(
        {
            "a": rng.integers(0, 1000, n).astype(np.uint32),
            "b": b,
            "c": rng.integers(0, 2**62, n),
            "d": rng.standard_normal(n).astype(np.float32),
        }
    )
    by = ["a", "b"]
    gs = median_wall(lambda: gpd.sort_values(df, by), lambda: None, max(1, min(3, repeats)))
    ps = median_wall(lambda: df.sort_values(by, kind="stable"), lambda: None, 1, warmup=False)
    return [dict(where="host", what="pandas sort_values 4 cols by 2", other="pandas", n=n, gpusort_s=gs, numpy_s=ps)]


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


def device_lexsort_rows(dev: Device, sizes: list, repeats: int) -> list:
    """Device lexsorts of 2 keys against what each library offers: chained stable argsorts in
    torch (the secondary key first, then the primary gathered through it; torch's int32 and
    int64 stand in for uint32, with the same bits), ``cupy.lexsort`` of the stacked keys
    (float64 for (f32, i64), which CuPy stacks them as)."""
    rows = []
    rng = np.random.default_rng(5)
    m = dev.m
    for shape in ("u32,u32", "f32,i64"):
        for n in sizes:
            host = lexsort_keys(rng, shape, n)
            if dev.name == "torch":
                u32 = getattr(m, "uint32", None)
                mine = [dev.array(k.view(np.int32)) if k.dtype == np.uint32 else dev.array(k) for k in host]
                if u32 is not None:  # gpusort sorts them as uint32 where torch has the dtype
                    mine = [d.view(u32) if k.dtype == np.uint32 else d for d, k in zip(mine, host)]
                theirs = [dev.array(k.view(np.int32)) if k.dtype == np.uint32 else dev.array(k) for k in host]

                def lib_sort(keys=theirs):
                    p = m.argsort(keys[0], stable=True)
                    return p[m.argsort(keys[1][p], stable=True)]

            else:
                mine = [dev.array(k) for k in host]
                stacked = m.stack([m.asarray(k.astype(np.float64) if shape == "f32,i64" else k) for k in host])

                def lib_sort(keys=stacked):
                    return m.lexsort(keys)

            r = max(3, repeats if n < 8 * M else repeats // 2)
            g = dev.event_ms(lambda: gpusort.lexsort(mine), lambda: None, r)
            lib = dev.event_ms(lib_sort, lambda: None, r)
            rows.append(dict(where=dev.name, what=f"lexsort {shape}", n=n, gpusort_ms=g, lib_ms=lib))
            del mine
            dev.sync()
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
            g, other = r["gpusort_s"] * 1e3, r.get("other", "numpy")
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
    p.add_argument("--numpy-rows", type=int, help="rows of the lexsorts beside numpy.lexsort (default 4M)")
    p.add_argument("--pandas-rows", type=int, help="rows of the pandas frame (default 50M; 0 skips it)")
    p.add_argument("--one-thread-rows", type=int, help="rows of the one-thread lexsort (default 16M)")
    p.add_argument("--repeats", type=int, help="repeats of each host row (default 10, --quick 3)")
    groups = ("host", "lexsort", "lexsort-one-thread", "pandas", "device", "device-lexsort")
    p.add_argument("--groups", default=",".join(groups), help=f"the row groups to run (default all: {','.join(groups)})")
    args = p.parse_args(argv)
    run = set(args.groups.split(","))
    if not run <= set(groups):
        p.error(f"--groups: {', '.join(sorted(run - set(groups)))} not among {', '.join(groups)}")
    host_n, sizes, repeats = (1 * M, [16 * 1024, M], 3) if args.quick else (64 * M, [16 * 1024, M, 16 * M, 64 * M], 10)
    repeats = args.repeats or repeats
    numpy_n = args.numpy_rows if args.numpy_rows is not None else min(host_n, 4 * M)
    pandas_n = args.pandas_rows if args.pandas_rows is not None else (M if args.quick else 50 * M)
    describe = gpusort.default_sorter().describe()
    rows = host_rows(host_n, repeats) if "host" in run else []
    if "lexsort" in run:
        rows += lexsort_host_rows(host_n, numpy_n, repeats)
    if "lexsort-one-thread" in run:
        rows += lexsort_one_thread_rows(args.one_thread_rows or (M if args.quick else 16 * M), repeats)
    if pandas_n and "pandas" in run:
        rows += pandas_rows(pandas_n, repeats)
    for dev in libraries():
        if "device" in run:
            rows += device_rows(dev, sizes, repeats * 5)
        if "device-lexsort" in run:
            rows += device_lexsort_rows(dev, sizes[1:], repeats * 2)
    print(table(rows, describe))
    with open(args.out, "w") as f:
        json.dump(dict(describe=describe, version=gpusort.__version__, python=sys.version, rows=rows), f, indent=1)
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
