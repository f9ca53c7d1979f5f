"""The process around a sort: other Python threads run while it runs (the GIL is released),
forked children still sort, and an address-space limit gives MemoryError, not a crash."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import gpusort
from conftest import has_cuda


def test_other_threads_run_while_a_host_sort_runs():
    # 64-bit keys take eight digit passes: long enough to tell on 16 cores too (16M u32: 25 ms).
    a = np.random.default_rng(0).integers(0, 2**64, 1 << 25, dtype=np.uint64, endpoint=False)
    cpu = gpusort.Sorter("cpu")
    started, done = threading.Event(), threading.Event()
    span = {}

    def sort():
        started.set()
        t0 = time.perf_counter()
        cpu.sort(a)
        span["sort"] = (t0, time.perf_counter())
        done.set()

    worker = threading.Thread(target=sort)
    worker.start()
    started.wait()
    ticks = []
    while not done.is_set():
        ticks.append(time.perf_counter())
    worker.join()
    t0, t1 = span["sort"]
    during = [t for t in ticks if t0 <= t <= t1]
    # With the GIL held for the whole sort, this thread would not tick at all between t0 and t1.
    # Released, it ticks throughout: the longest silence is a scheduling slice, not the sort.
    gaps = np.diff([t0] + during + [t1])
    assert t1 - t0 > 0.05, "the sort was too short to tell"
    assert len(during) > 1000 and gaps.max() < 0.5 * (t1 - t0), f"longest gap {gaps.max():.3f}s of {t1 - t0:.3f}s"
    assert np.all(a[:-1] <= a[1:])


# A sorter made and used by the parent, inherited by the pool's forked children.
_PRE_FORK = None


def _child_sorts(_):
    """Runs in a forked child: module functions, a sorter from before the fork, and one made
    after it all sort 1M pairs correctly."""
    rng = np.random.default_rng(os.getpid())
    results = []
    for s in (gpusort.default_sorter(), _PRE_FORK, gpusort.Sorter("auto")):
        k = rng.integers(0, 1000, 1 << 20, dtype=np.uint32)
        v = np.arange(k.size, dtype=np.uint32)
        want = np.argsort(k, kind="stable")
        s.sort_pairs(k, v)
        results.append(bool(np.array_equal(v, want)))
        results.append(bool(np.array_equal(s.argsort(k[::-1]), np.argsort(k[::-1], kind="stable"))))
    return results, gpusort.default_sorter().describe()


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # 3.12: fork of a process with threads
def test_forked_children_sort():
    # The parent sorts first, on the GPU where there is one: its context cannot cross the fork.
    global _PRE_FORK
    _PRE_FORK = gpusort.Sorter("auto", crossover=0)
    a = np.arange(1 << 20, dtype=np.uint32)[::-1].copy()
    _PRE_FORK.sort(a)
    gpusort.sort(a[::-1].copy())
    with multiprocessing.get_context("fork").Pool(2) as pool:
        pending = [pool.apply_async(_child_sorts, (i,)) for i in range(2)]
        outcomes = [p.get(timeout=120) for p in pending]
    for results, describe in outcomes:
        assert all(results), results
        if has_cuda():
            assert "fork" in describe, describe


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_a_sorter_made_before_fork_sorts_in_the_child():
    s = gpusort.Sorter("auto", crossover=0)
    s.sort(np.arange(1 << 16, dtype=np.uint32)[::-1].copy())
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: report through the pipe, never return into pytest
        ok = False
        try:
            k = np.random.default_rng(1).integers(0, 2**32, 1 << 20, dtype=np.uint32)
            s.sort(k)
            ok = bool(np.all(k[:-1] <= k[1:]))
            if has_cuda():
                try:
                    gpusort.Sorter("cuda").sort(k)
                    ok = False  # the parent's GPU must not be usable here
                except gpusort.NoDeviceError:
                    pass
        finally:
            os.write(w, b"1" if ok else b"0")
            os._exit(0)
    os.close(w)
    deadline = time.monotonic() + 120
    while os.waitpid(pid, os.WNOHANG) == (0, 0):
        assert time.monotonic() < deadline, "the forked child hangs"
        time.sleep(0.05)
    assert os.read(r, 1) == b"1"
    os.close(r)


LIMITED = textwrap.dedent(
    """
    import resource, numpy as np, gpusort
    def vm_size():
        for line in open("/proc/self/status"):
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    cpu = gpusort.Sorter("cpu")
    warm = np.arange(1 << 20, dtype=np.uint32)[::-1].copy()
    cpu.sort(warm)               # the CPU pool's threads and arenas exist before the limit
    keys = np.random.default_rng(2).integers(0, 2**32, 16 << 20, dtype=np.uint32)
    before = keys.copy()
    cpu.release_memory()
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (vm_size() + (24 << 20), hard))
    for call in (lambda: cpu.sort(keys), lambda: cpu.argsort(keys)):
        try:
            call()
            print("sorted under the limit")
        except MemoryError as e:
            assert np.array_equal(keys, before), "modified"
            print("MemoryError", type(e).__name__)
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
    cpu.sort(keys)
    assert np.all(keys[:-1] <= keys[1:])
    print("sorted after")
    """
)


def test_memory_limit_raises_memory_error_and_leaves_data():
    # The radix sort, which needs scratch as large as the keys: the vector sort (the default for
    # keys alone on AVX2/AVX-512 machines) sorts in place and would succeed under the limit.
    env = dict(os.environ, GPUSORT_BACKEND="cpu", GPUSORT_CPU_SIMD="off")
    p = subprocess.run([sys.executable, "-c", LIMITED], capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.split("\n")
    assert lines[0] == "MemoryError OutOfMemoryError", p.stdout  # the sort's scratch
    assert lines[1].startswith("MemoryError"), p.stdout  # argsort's buffers, or numpy.empty
    assert lines[2] == "sorted after", p.stdout
