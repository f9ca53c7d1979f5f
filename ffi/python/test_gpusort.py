"""Tests of gpusort through ctypes only: array('I') keys, structured buffers of pairs (a ctypes
array of Kvp and a bytearray of packed records), split pairs, other key types, argsort, records
of any size sorted by a key inside them, segmented sorts, top-k, and error paths.
Prints one line per check and ends with "N passed, M failed"; exits 1 on any failure. Runs
without pytest; NumPy is optional (its checks are skipped, loudly, without it).

Run: GPUSORT_LIB=target/debug/libgpusort.so python3 ffi/python/test_gpusort.py
"""

import ctypes
import gc
import random
import struct
import sys
from array import array
from pathlib import Path

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import gpusort_ctypes as gs  # noqa: E402

passed = failed = 0


def check(ok, name):
    global passed, failed
    print(("ok   " if ok else "FAIL ") + name)
    if ok:
        passed += 1
    else:
        failed += 1


def raises(status, fn):
    try:
        fn()
    except gs.GpusortError as e:
        return e.status == status
    return False


def _last_exc(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return e
    return None


def stable_sorted_pairs(pairs, descending):
    # Python's sort is stable; reverse=True keeps equal items in input order too.
    return sorted(pairs, key=lambda p: p[0], reverse=descending)


rng = random.Random(20261122)
print("library", gs.version() + ":", gs.describe())

for n in [0, 1, 2, 255, 256, 257, 4099, 100_003]:
    for descending in (False, True):
        keys = array("I", (rng.getrandbits(32) for _ in range(n)))
        if n > 2:
            keys[0], keys[1] = 0, 0xFFFFFFFF
        want = sorted(keys, reverse=descending)
        gs.sort_keys(keys, descending=descending)
        check(keys.tolist() == want, f"array('I') of {n} keys, {'descending' if descending else 'ascending'}")

for n in [0, 1, 7, 1000, 65_537]:
    for descending in (False, True):
        src = [(rng.randrange(50), i) for i in range(n)]  # few distinct keys: stability shows
        pairs = (gs.Kvp * n)(*(gs.Kvp(k, v) for k, v in src))
        gs.sort_kvp(pairs, descending=descending)
        got = [(p.key, p.value) for p in pairs]
        order = "descending" if descending else "ascending"
        check(got == stable_sorted_pairs(src, descending), f"ctypes array of {n} Kvp, {order}, stable")

        raw = bytearray(struct.pack(f"<{2 * n}I", *(x for p in src for x in p)))
        gs.sort_kvp(raw, descending=descending)
        got = list(struct.iter_unpack("<II", raw))
        check(got == stable_sorted_pairs(src, descending), f"bytearray of {n} packed pairs, {order}, stable")

for code, gen in [
    ("I", lambda: rng.getrandbits(32)),
    ("i", lambda: rng.randrange(-(2**31), 2**31)),
    ("f", lambda: struct.unpack("f", struct.pack("f", rng.uniform(-1e6, 1e6)))[0]),
    ("Q", lambda: rng.getrandbits(64)),
    ("q", lambda: rng.randrange(-(2**63), 2**63)),
    ("d", lambda: rng.uniform(-1e300, 1e300)),
]:
    n = 5000
    keys = array(code, (gen() for _ in range(n)))
    keys[:3] = array(code, [keys[3]] * 3)  # a few equal keys
    values = array("I", range(n))
    src = list(zip(keys, values))
    gs.sort_pairs(keys, values, descending=True)
    check(list(zip(keys, values)) == stable_sorted_pairs(src, True), f"split pairs array('{code}'), descending, stable")
    k2 = array(code, (k for k, _ in src))
    gs.sort_keys(k2)
    check(k2.tolist() == sorted(k for k, _ in src), f"keys array('{code}'), ascending")

with gs.Sorter(gs.BACKEND_CPU) as cpu:
    keys = array("I", (rng.getrandbits(32) for _ in range(10_000)))
    want = sorted(keys)
    gs.sort_keys(keys, algorithm=gs.ALGORITHM_RADIX, sorter=cpu)
    check(keys.tolist() == want, "explicit CPU sorter, radix: " + cpu.describe())
    before = keys.tolist()[::-1]
    keys = array("I", before)
    check(
        raises(5, lambda: gs.sort_keys(keys, algorithm=gs.ALGORITHM_BITONIC, sorter=cpu)) and keys.tolist() == before,
        "bitonic on the CPU sorter: GPUSORT_UNSUPPORTED, keys untouched",
    )

lib = gs._lib
check(lib.gpusort_sort_keys_u32(None, None, 10, 0, 0) == gs.INVALID_ARGUMENT, "NULL keys with n = 10: invalid argument")
check("NULL" in gs.last_error_message(), "last error message: " + gs.last_error_message())
check(lib.gpusort_sort_kvp(None, None, 0, 0, 0) == gs.OK, "NULL pairs with n = 0: ok")
keys = array("I", [3, 1, 2])
check(lib.gpusort_sort_keys_u32(None, gs._address(keys, "keys")[0], 3, 7, 0) == gs.INVALID_ARGUMENT
      and keys.tolist() == [3, 1, 2], "order 7 (straight to the library): invalid argument, keys untouched")
check("order 7" in gs.last_error_message(), "last error names the order")
check(lib.gpusort_sorter_new(9, ctypes.byref(ctypes.c_void_p())) == gs.INVALID_ARGUMENT, "backend 9: invalid argument")
small = ctypes.create_string_buffer(4)
needed = ctypes.c_size_t()
check(lib.gpusort_describe(None, small, 4, ctypes.byref(needed)) == gs.BUFFER_TOO_SMALL
      and len(small.value) == 3 and needed.value > 3, "describe into 4 bytes: truncated, needed length reported")
try:
    gs.sort_keys(array("b", [1, 2]))
    check(False, "array('b') is refused")
except TypeError:
    check(True, "array('b') is refused")


def refuses(exc, fn, *words):
    """fn() raises exc (not a subclass) whose message holds every word; prints it."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is the check
        print(f"     ({type(e).__name__}: {e})")
        return type(e) is exc and all(w in str(e) for w in words)
    return False


# ---- element types by kind and item size, and the argument named in the error ----
big = array("L")  # unsigned long: 8 bytes on LP64 (NumPy's uint64 buffer is 'L' there too)
if big.itemsize == 8:
    keys, values = array("L", [2**64 - 1, 5, 2**40, 0]), array("I", [0, 1, 2, 3])
    gs.sort_pairs(keys, values)
    check(keys.tolist() == [0, 5, 2**40, 2**64 - 1] and values.tolist() == [3, 1, 2, 0],
          "array('L') of 8 bytes is u64: split pairs sorted")
    keys = array("L", [3, 2**63, 1])
    gs.sort_keys(keys, descending=True)
    check(keys.tolist() == [2**63, 3, 1], "array('L') keys, 8 bytes: u64, descending")
else:
    print("SKIP array('L') is 4 bytes on this platform: the 8-byte 'L' case needs LP64")
keys, before = array("I", [3, 1, 2]), [3, 1, 2]
check(refuses(TypeError, lambda: gs.sort_pairs(keys, array("H", [0, 1, 2])), "values", "u32 or u64")
      and "keys" not in str(_last_exc(lambda: gs.sort_pairs(keys, array("H", [0, 1, 2]))))
      and keys.tolist() == before, "u16 values: TypeError that names the values, not the keys")
keys, rows = array("f", [2.5, -1.0, 2.5]), array("Q", [2**64 - 1, 2**40, 7])
gs.sort_pairs(keys, rows, descending=True)
check(keys.tolist() == [2.5, 2.5, -1.0] and rows.tolist() == [2**64 - 1, 7, 2**40],
      "u64 values (gpusort_sort_pairs_f32_u64): all 64 bits, stable descending")
keys = array("I", [3, 1, 2])
check(refuses(TypeError, lambda: gs.sort_keys(array("h", [1, 2])), "keys", "signed 2-byte"),
      "i16 keys: TypeError naming keys and the kind")
check(refuses(TypeError, lambda: gs.sort_pairs(array("q", [1, 2]), array("d", [0.0, 1.0])), "values", "float 8-byte"),
      "f64 values: TypeError")
check(refuses(TypeError, lambda: gs.sort_keys([3, 1, 2]), "keys", "list"), "a list: TypeError naming keys")
check(refuses(ValueError, lambda: gs.sort_pairs(keys, array("I", [0, 1])), "values", "2 values for 3 keys")
      and keys.tolist() == before, "values shorter than keys: ValueError, keys untouched")
check(refuses(ValueError, lambda: gs.sort_keys(b"\x03\x00\x00\x00"), "keys", "writable"),
      "read-only bytes: ValueError")
check(refuses(ValueError, lambda: gs.sort_keys(memoryview(array("I", [3, 2, 1, 0]))[::2]), "keys", "contiguous"),
      "a strided view: ValueError")
grid = memoryview(array("I", [5, 4, 3, 2, 1, 0])).cast("B").cast("I", shape=[2, 3])
check(refuses(ValueError, lambda: gs.sort_keys(grid), "keys", "one-dimensional") and grid.tolist()[0] == [5, 4, 3],
      "a 2-D buffer: ValueError, untouched")

try:
    import numpy as np
except ImportError:
    np = None
    print("SKIP " + "!" * 20 + " NumPy is not installed: its dtype checks did NOT run " + "!" * 20)
if np is not None:
    for dt in ("uint32", "int32", "float32", "uint64", "int64", "float64"):
        a = np.array([5, 0, 3, 1], dtype=dt)
        gs.sort_keys(a, descending=True)
        check(a.tolist() == [5, 3, 1, 0], f"NumPy {dt} keys, descending")
    k, v = np.array([2**64 - 1, 1, 2**33], dtype=np.uint64), np.arange(3, dtype=np.uint32)
    gs.sort_pairs(k, v)
    check(k.tolist() == [1, 2**33, 2**64 - 1] and v.tolist() == [1, 2, 0], "NumPy uint64 keys with uint32 values")
    k, v = np.array([3, 1, 2], dtype=np.int64), np.array([2**63, 1, 2**33], dtype=np.uint64)
    gs.sort_pairs(k, v)
    check(k.tolist() == [1, 2, 3] and v.tolist() == [1, 2**33, 2**63], "NumPy int64 keys with uint64 values")
    k = np.array([3, 1, 2], dtype=np.uint32)
    check(refuses(TypeError, lambda: gs.sort_pairs(k, np.arange(3, dtype=np.int16)), "values")
          and k.tolist() == [3, 1, 2], "NumPy int16 values: TypeError naming values")
    check(refuses(TypeError, lambda: gs.sort_keys(np.array([1, 2], dtype=np.int16)), "keys"), "NumPy int16: TypeError")
    check(refuses(TypeError, lambda: gs.sort_keys(np.array([1, 2], dtype=np.float16)), "keys"),
          "NumPy float16: TypeError")
    check(refuses(TypeError, lambda: gs.sort_keys(np.array([1, 2], dtype=">u4")), "keys"),
          "NumPy big-endian uint32: TypeError")
    check(refuses(ValueError, lambda: gs.sort_keys(np.arange(6, dtype=np.uint32)[::2]), "contiguous"),
          "NumPy strided view: ValueError")
    check(refuses(ValueError, lambda: gs.sort_keys(np.zeros((2, 2), dtype=np.uint32)), "one-dimensional"),
          "NumPy 2-D array: ValueError")
    ro = np.arange(3, dtype=np.uint32)
    ro.flags.writeable = False
    check(refuses(ValueError, lambda: gs.sort_keys(ro), "writable"), "NumPy read-only array: ValueError")

# ---- handles: only our own Sorter objects ----
keys = array("I", [3, 1, 2])
check(refuses(TypeError, lambda: gs.describe(12345), "sorter", "int"), "describe(12345): TypeError, no crash")
check(refuses(TypeError, lambda: gs.describe(ctypes.c_void_p(8)), "sorter"), "describe(c_void_p): TypeError")
check(refuses(TypeError, lambda: gs.sort_keys(keys, sorter=12345), "sorter") and keys.tolist() == [3, 1, 2],
      "sort_keys(sorter=12345): TypeError, keys untouched")
closed = gs.Sorter(gs.BACKEND_CPU)
closed.close()
check(refuses(ValueError, lambda: gs.sort_keys(keys, sorter=closed), "closed")
      and refuses(ValueError, closed.describe, "closed"), "a closed Sorter: ValueError, not the default sorter")

# ---- enum arguments are range-checked, never cut to 32 bits ----
kvp = (gs.Kvp * 2)(gs.Kvp(2, 0), gs.Kvp(1, 1))
for bad in (2**32 + 2, 2**40, 2**32, -1, 4):
    ok = refuses(ValueError, lambda: gs.sort_keys(keys, algorithm=bad), "algorithm", str(bad))
    ok &= refuses(ValueError, lambda: gs.sort_pairs(keys, array("I", [0, 1, 2]), algorithm=bad), "algorithm")
    ok &= refuses(ValueError, lambda: gs.sort_kvp(kvp, algorithm=bad), "algorithm")
    check(ok and keys.tolist() == [3, 1, 2] and kvp[0].key == 2, f"algorithm={bad}: ValueError, data untouched")
check(refuses(TypeError, lambda: gs.sort_keys(keys, algorithm="radix"), "algorithm")
      and refuses(TypeError, lambda: gs.sort_keys(keys, algorithm=1.0), "algorithm"), "algorithm of a non-int: TypeError")
for bad in (7, 2**32, 2**32 + 1, -1, None, "yes"):
    check(refuses(ValueError, lambda: gs.sort_keys(keys, descending=bad), "descending") and keys.tolist() == [3, 1, 2],
          f"descending={bad!r}: ValueError, keys untouched")
gs.sort_keys(keys, descending=1)
check(keys.tolist() == [3, 2, 1], "descending=1 is True")
for bad in (3, 2**32 + 1, -1):
    check(refuses(ValueError, lambda: gs.Sorter(bad), "backend"), f"Sorter({bad}): ValueError")

# ---- a Sorter whose creation fails leaves nothing for __del__ to trip on ----
unraisable = []
old_hook, sys.unraisablehook = sys.unraisablehook, unraisable.append
for backend in (gs.BACKEND_CUDA, 99):
    try:
        gs.Sorter(backend).close()
    except (gs.GpusortError, ValueError) as e:
        print(f"     (Sorter({backend}) failed as it may here: {e})")
gc.collect()
sys.unraisablehook = old_hook
check(not unraisable, "failed Sorter(): no exception ignored in __del__"
      + "".join(f" [{u.exc_type.__name__}: {u.exc_value}]" for u in unraisable))

# ---- error messages: the status string once, then the library's detail ----
raw = bytearray(24)
odd = memoryview(raw)[1:17]  # two 8-byte records at an odd address: the library refuses them
e = _last_exc(lambda: gs.sort_kvp(odd))
check(isinstance(e, gs.GpusortError) and e.status == gs.INVALID_ARGUMENT and str(e).startswith("invalid argument: ")
      and str(e).count("invalid argument") == 1 and "aligned" in str(e), f"one prefix: {e}")
with gs.Sorter(gs.BACKEND_CPU) as cpu:
    e = _last_exc(lambda: gs.sort_keys(array("I", range(9, 0, -1)), algorithm=gs.ALGORITHM_BITONIC, sorter=cpu))
    check(isinstance(e, gs.GpusortError) and str(e).count("unsupported") == 1 and "cpu" in str(e), f"one prefix: {e}")

# ---- giving memory back ----
with gs.Sorter(gs.BACKEND_CPU) as cpu:
    keys = array("I", (rng.getrandbits(32) for _ in range(300_000)))
    want = sorted(keys)
    gs.sort_keys(keys, sorter=cpu)
    gs.release_memory()
    gs.release_memory(cpu)
    cpu.release_memory()
    keys = array("I", reversed(want))
    gs.sort_keys(keys, sorter=cpu)
    check(keys.tolist() == want, "release_memory (default and cpu sorter), then sorting again works")
check(refuses(TypeError, lambda: gs.release_memory(12345), "sorter"), "release_memory(12345): TypeError")

# ---- lengths 0 and 1 succeed with every algorithm on every backend ----
with gs.Sorter(gs.BACKEND_CPU) as cpu, gs.Sorter(gs.BACKEND_AUTO) as auto:
    for name, sorter in (("cpu", cpu), ("auto", auto), ("default", None)):
        for alg in range(4):
            ok = True
            for n in (0, 1):
                for desc in (False, True):
                    try:
                        for code in ("I", "i", "f", "Q"):
                            k = array(code, [7] * n)
                            gs.sort_keys(k, desc, alg, sorter)
                            v = array("I", [9] * n)
                            gs.sort_pairs(k, v, desc, alg, sorter)
                            ok &= k.tolist() == [7] * n and v.tolist() == [9] * n
                        p = (gs.Kvp * n)(*[gs.Kvp(5, 6)] * n)
                        gs.sort_kvp(p, desc, alg, sorter)
                        ok &= [(x.key, x.value) for x in p] == [(5, 6)] * n
                    except gs.GpusortError as e:
                        print(f"     (n = {n}: {e})")
                        ok = False
            check(ok, f"algorithm {alg}, n = 0 and 1 ({name} sorter): succeeds, data unchanged")

# ---- argsort: the stable permutation, the keys only read ----
def stable_perm(keys, descending):
    # Python's sort is stable, reverse=True too: equal keys keep their input order.
    return sorted(range(len(keys)), key=lambda i: keys[i], reverse=descending)


f32 = lambda x: struct.unpack("f", struct.pack("f", x))[0]  # noqa: E731
KEY_GENS = {
    "I": (lambda: rng.getrandbits(32), [0, 2**32 - 1]),
    "i": (lambda: rng.randrange(-(2**31), 2**31), [-(2**31), 2**31 - 1]),
    "f": (lambda: f32(rng.uniform(-1e6, 1e6)), [float("-inf"), float("inf")]),
    "Q": (lambda: rng.getrandbits(64), [0, 2**64 - 1]),
    "q": (lambda: rng.randrange(-(2**63), 2**63), [-(2**63), 2**63 - 1]),
    "d": (lambda: rng.uniform(-1e300, 1e300), [float("-inf"), float("inf")]),
}
for code, (gen, extremes) in KEY_GENS.items():
    for descending in (False, True):
        bad = None
        for n in [0, 1, 2, 3, 255, 256, 257, 4099, 65_537]:
            few = [gen() for _ in range(3)] + extremes
            for pattern, src in (("random", [gen() for _ in range(n)]), ("few", [rng.choice(few) for _ in range(n)]),
                                 ("equal", [few[0]] * n), ("sorted", sorted(gen() for _ in range(n)))):
                keys = array(code, src)
                before = keys.tolist()
                got = gs.argsort(keys, descending=descending)
                if got.typecode != "Q" or got.tolist() != stable_perm(before, descending) or keys.tolist() != before:
                    bad = bad or f"n = {n}, {pattern}"
        check(bad is None, f"argsort array('{code}'), {'descending' if descending else 'ascending'}: the stable "
              f"permutation, keys untouched{': ' + bad if bad else ''}")

ro = memoryview(struct.pack("<4I", 3, 1, 3, 0)).cast("I")
check(gs.argsort(ro, descending=True).tolist() == [0, 2, 1, 3], "argsort of read-only keys (bytes): stable, descending")
out = array("q", [-1] * 4)
check(gs.argsort(array("i", [5, -5, 5, 0]), out) is out and out.tolist() == [1, 3, 0, 2], "argsort into array('q')")
keys = array("I", [2, 1])
check(refuses(ValueError, lambda: gs.argsort(keys, array("Q", [9] * 3)), "out", "3 indices", "2 keys"),
      "argsort: out of the wrong length is a ValueError")
check(refuses(TypeError, lambda: gs.argsort(keys, array("I", [9, 9])), "out", "8-byte integers")
      and refuses(TypeError, lambda: gs.argsort(keys, array("d", [9, 9])), "out"),
      "argsort: out of u32 or f64: TypeError")
check(refuses(TypeError, lambda: gs.argsort(array("h", [1, 2])), "keys", "signed 2-byte"),
      "argsort: i16 keys: TypeError")
out = array("Q", [7, 7, 7])
check(lib.gpusort_argsort_u32(None, None, 3, gs._address(out, "out")[0], 0) == gs.INVALID_ARGUMENT
      and "keys is NULL" in gs.last_error_message() and out.tolist() == [7, 7, 7],
      "argsort straight to the library, NULL keys with n = 3: invalid argument, out untouched")
check(lib.gpusort_argsort_f64(None, gs._address(array("d", [1.0]), "k")[0], 1, gs._address(out, "out")[0], 5)
      == gs.INVALID_ARGUMENT and out.tolist() == [7, 7, 7] and "order 5" in gs.last_error_message(),
      "argsort straight to the library, order 5: invalid argument, out untouched")


# ---- segmented sorts: each segment on its own, stably ----
def cut(n, how):
    if how == "one":
        return [0, n]
    if how == "random, empty segments":
        inner = sorted(rng.randrange(n + 1) for _ in range(rng.randrange(6)))
        return [0, 0] + inner + inner[-1:] + [n, n]
    return list(range(0, n, how)) + [n]  # rows of `how`, the last one shorter


for code, (gen, extremes) in KEY_GENS.items():
    bad = None
    for descending in (False, True):
        for n in [0, 1, 2, 3, 7, 8, 9, 255, 256, 257, 4099]:
            few = [gen() for _ in range(3)] + extremes
            for how in ("one", "random, empty segments", 1, 2, 16, 17, 97):
                src = [rng.choice(few) for _ in range(n)]
                offsets = cut(n, how)
                perm = [s + i for s, e in zip(offsets, offsets[1:]) for i in stable_perm(src[s:e], descending)]
                keys, values = array(code, src), array("I", range(n))
                gs.sort_segments(keys, offsets, values, descending)
                only = array(code, src)
                gs.sort_segments(only, array("Q", offsets) if how == 1 else offsets, descending=descending)
                if keys.tolist() != [src[i] for i in perm] or values.tolist() != perm or only != keys:
                    bad = bad or f"n = {n}, {how}, {'descending' if descending else 'ascending'}"
    check(bad is None, f"sort_segments array('{code}') with values and keys only: each segment in stable order"
          f"{': ' + bad if bad else ''}")

keys, values = array("d", [2.0, 1.0, 0.5]), array("I", [0, 1, 2])
for offsets, words in (([], "empty"), ([1, 3], "start at 1"), ([0, 2], "end at 2"), ([0, 2, 1, 3], "fall from 2"),
                       ([0, 4], "end at 4")):
    check(refuses(gs.GpusortError, lambda: gs.sort_segments(keys, offsets, values), "invalid argument", words)
          and keys.tolist() == [2.0, 1.0, 0.5] and values.tolist() == [0, 1, 2],
          f"sort_segments, offsets {offsets}: invalid argument, arrays untouched")
for offsets, exc in (([0, -1, 3], ValueError), ([0, 1.5, 3], TypeError), (None, TypeError), ([[0, 3]], TypeError)):
    check(refuses(exc, lambda: gs.sort_segments(keys, offsets)) and keys.tolist() == [2.0, 1.0, 0.5],
          f"sort_segments, offsets {offsets}: {exc.__name__}, keys untouched")
check(refuses(ValueError, lambda: gs.sort_segments(keys, [0, 3], array("I", [0, 1])), "2 values for 3 keys")
      and refuses(TypeError, lambda: gs.sort_segments(keys, [0, 3], array("i", [0, 1, 2])), "values"),
      "sort_segments: values of the wrong length or type are refused")
gs.sort_segments(keys, range(0, 4, 3), values)
gs.sort_segments(array("I"), [0])
check(keys.tolist() == [0.5, 1.0, 2.0] and values.tolist() == [2, 1, 0], "sort_segments with range offsets; n = 0")


# ---- top-k: the first k of the stable order, the keys only read ----
for code, (gen, extremes) in KEY_GENS.items():
    bad = None
    for descending in (False, True):
        for n in [0, 1, 2, 3, 97, 1009, 4099]:
            few = [gen() for _ in range(3)] + extremes
            rand = [gen() for _ in range(n)]
            for pattern, src in (("random", rand), ("few", [rng.choice(few) for _ in range(n)]),
                                 ("equal", [few[0]] * n), ("sorted", sorted(rand)), ("reverse", sorted(rand)[::-1])):
                keys, perm = array(code, src), stable_perm(src, descending)
                for k in sorted({0, 1, 2, n // 2, max(n - 1, 0), n} & set(range(n + 1))):
                    # Keys only for k = 1: out_indices NULL in the library.
                    values, idx = gs.top_k(keys, k, descending, with_indices=k != 1)
                    want_idx = None if k == 1 else perm[:k]
                    if (values.typecode != code or values.tolist() != [src[i] for i in perm[:k]]
                            or (idx.tolist() if idx is not None else None) != want_idx or keys.tolist() != src):
                        bad = bad or f"n = {n}, k = {k}, {pattern}, {'descending' if descending else 'ascending'}"
    check(bad is None, f"top_k array('{code}'): the first k of the stable order, keys untouched"
          f"{': ' + bad if bad else ''}")

ro = memoryview(struct.pack("<5i", 3, -1, 3, 0, -1)).cast("i")
v, i = gs.top_k(ro, 3, descending=True)
check(v.tolist() == [3, 3, 0] and i.tolist() == [0, 2, 3], "top_k of read-only keys (bytes), descending: ties first")
keys = array("f", [2.0, 1.0])
check(refuses(gs.GpusortError, lambda: gs.top_k(keys, 3), "invalid argument", "k is 3 but there are 2 keys")
      and refuses(gs.GpusortError, lambda: gs.top_k(array("Q"), 1), "k is 1 but there are 0 keys")
      and refuses(gs.GpusortError, lambda: gs.top_k(keys, 2**64 - 1), "k is 18446744073709551615"),
      "top_k: k past the length (2**64 - 1 too) is invalid argument")
check(refuses(ValueError, lambda: gs.top_k(keys, -1), "k -1") and refuses(TypeError, lambda: gs.top_k(keys, 1.0), "k")
      and refuses(TypeError, lambda: gs.top_k(array("h", [1, 2]), 1), "keys", "signed 2-byte")
      and refuses(ValueError, lambda: gs.top_k(keys, 1, descending=2), "descending"),
      "top_k: a negative or float k, i16 keys, descending=2: ValueError or TypeError")
kin, outk, outi = array("I", [5, 4]), array("I", [7, 7]), array("Q", [7, 7])
ka, oa, ia = gs._address(kin, "k")[0], gs._address(outk, "o")[0], gs._address(outi, "i")[0]
check(lib.gpusort_top_k_u32(None, None, 3, 2, oa, ia, 0) == gs.INVALID_ARGUMENT
      and "keys is NULL" in gs.last_error_message()
      and lib.gpusort_top_k_u32(None, ka, 2, 3, oa, ia, 0) == gs.INVALID_ARGUMENT
      and lib.gpusort_top_k_u32(None, ka, 2, 2, None, ia, 0) == gs.INVALID_ARGUMENT
      and "out_keys is NULL" in gs.last_error_message()
      and lib.gpusort_top_k_u32(None, ka, 2, 2, oa, ia, 9) == gs.INVALID_ARGUMENT
      and outk.tolist() == [7, 7] and outi.tolist() == [7, 7],
      "top_k straight to the library: NULL keys or out_keys, k > n, order 9: invalid argument, outputs untouched")
check(lib.gpusort_top_k_u32(None, ka, 2, 2, oa, None, 0) == gs.OK and outk.tolist() == [4, 5]
      and outi.tolist() == [7, 7], "top_k straight to the library, out_indices NULL: keys only")

# ---- records sorted by a key inside them ----
class Row(ctypes.Structure):
    _fields_ = [("id", ctypes.c_uint32), ("score", ctypes.c_double), ("tag", ctypes.c_char * 3)]


class Packed(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("tag", ctypes.c_uint8), ("key", ctypes.c_int32), ("id", ctypes.c_uint16)]


for descending in (False, True):
    order = "descending" if descending else "ascending"
    src = [(i, float(rng.randrange(20)) - 10.0) for i in range(5000)]
    rows = (Row * len(src))(*(Row(i, s, b"r%d" % (i % 10)) for i, s in src))
    gs.sort_records(rows, Row.score.offset, "f64", descending=descending)
    want = [i for _, i in stable_sorted_pairs([(s, i) for i, s in src], descending)]
    check([r.id for r in rows] == want and all(r.tag == b"r%d" % (r.id % 10) for r in rows),
          f"sort_records of a ctypes Structure array by its double field, {order}: stable, fields intact")

    src = [(i, rng.randrange(-3, 3) * 2**29) for i in range(3001)]
    packed = (Packed * len(src))(*(Packed(i % 256, k, i) for i, k in src))
    gs.sort_records(packed, Packed.key.offset, gs.KEY_I32, descending=descending)
    want = [i for _, i in stable_sorted_pairs([(k, i) for i, k in src], descending)]
    check([p.id for p in packed] == want and all(p.tag == p.id % 256 for p in packed) and ctypes.sizeof(Packed) == 7,
          f"sort_records of a packed 7-byte Structure by an unaligned int32 at offset 1, {order}: stable")

    src = [(i, rng.choice([0, 1, 2**64 - 1, rng.getrandbits(64)])) for i in range(777)]
    raw = bytearray(b"".join(struct.pack("<HQB", i, k, i % 251) for i, k in src))
    gs.sort_records(raw, 2, "u64", record_size=11, descending=descending)
    got = [struct.unpack_from("<HQB", raw, 11 * j) for j in range(len(src))]
    want = [(i, k, i % 251) for k, i in stable_sorted_pairs([(k, i) for i, k in src], descending)]
    check(got == want, f"sort_records of a bytearray of 11-byte records by a u64 at offset 2, {order}: stable")

raw = bytearray(struct.pack("<4I", 4, 3, 2, 1))
before = bytes(raw)
for bad_args, exc, words, what in [
    (dict(key_offset=0, key_type="u128", record_size=8), ValueError, ("key_type", "u128"), "key_type 'u128'"),
    (dict(key_offset=0, key_type=6, record_size=8), ValueError, ("key_type 6",), "key_type 6"),
    (dict(key_offset=0, key_type="u32", record_size=-8), ValueError, ("record_size -8",), "record_size -8"),
    (dict(key_offset=2**64, key_type="u32", record_size=8), ValueError, ("key_offset",), "key_offset 2**64"),
    (dict(key_offset=0, key_type="u32", record_size=6), ValueError, ("16 bytes", "6 bytes"),
     "16 bytes in records of 6"),
    (dict(key_offset=5, key_type="u32", record_size=8), gs.GpusortError, ("invalid argument", "past the end"),
     "a u32 key at offset 5 of an 8-byte record"),
    (dict(key_offset=0, key_type="u32", record_size=0), gs.GpusortError, ("record_size is 0",), "record_size 0"),
    (dict(key_offset=0, key_type="u32"), gs.GpusortError, ("record_size 1",), "bytes without record_size"),
]:
    check(refuses(exc, lambda: gs.sort_records(raw, **bad_args), *words) and bytes(raw) == before,
          f"sort_records, {what}: {exc.__name__}, records untouched")
check(refuses(ValueError, lambda: gs.sort_records(bytes(raw), 0, "u32", 8), "writable"),
      "sort_records of read-only bytes: ValueError")
gs.sort_records(raw, 0, "u32", record_size=8, descending=True)
check(raw == bytearray(struct.pack("<4I", 4, 3, 2, 1)), "sort_records after the refused calls (already in order)")
gs.sort_records(raw, 4, "u32", record_size=8)
check(raw == bytearray(struct.pack("<4I", 2, 1, 4, 3)), "sort_records by the second u32 of 8-byte records")
check(lib.gpusort_sort_records(None, None, 2, 8, 0, 0, 0) == gs.INVALID_ARGUMENT
      and "records is NULL" in gs.last_error_message(), "sort_records straight to the library, NULL with n = 2")

if np is not None:
    table = np.zeros(1000, dtype=[("id", "<u4"), ("score", "<f8"), ("flag", "u1")])  # packed: score at offset 4
    table["id"] = np.arange(1000)
    table["score"] = np.random.default_rng(3).integers(0, 30, 1000) / 4
    want = table[np.argsort(-table["score"], kind="stable")].copy()
    gs.sort_records(table, table.dtype.fields["score"][1], "f64", descending=True)
    check(table.dtype.itemsize == 13 and np.array_equal(table, want),
          "sort_records of a NumPy structured array (13-byte rows, f64 at offset 4), descending: stable")
    grid = np.arange(64, dtype=np.uint8).reshape(4, 16)[::-1].copy()
    gs.sort_records(grid, 0, "u64", record_size=16)
    check(grid[0, 0] == 0 and grid[3, 0] == 48, "sort_records of a 2-D uint8 NumPy array, one row per record")
    k = np.array([3.0, -1.0, 3.0, np.inf], dtype=np.float32)
    out = np.full(4, -1, dtype=np.int64)
    gs.argsort(k, out, descending=True)
    check(out.tolist() == [3, 0, 2, 1] and gs.argsort(k).tolist() == [1, 0, 2, 3],
          "argsort of NumPy float32 into a NumPy int64 out, and into a new array('Q')")
    ro = np.arange(5, dtype=np.int64)[::-1].copy()
    ro.flags.writeable = False
    check(gs.argsort(ro).tolist() == [4, 3, 2, 1, 0], "argsort of a read-only NumPy int64 array")
    check(refuses(ValueError, lambda: gs.argsort(np.arange(6, dtype=np.uint32)[::2]), "contiguous"),
          "argsort of a strided NumPy view: ValueError")
    seg = np.array([[3, 1, 2], [9, 8, 7]], dtype=np.int64).ravel()
    gs.sort_segments(seg, np.arange(0, 7, 3, dtype=np.int64))
    ro = np.array([0, 6], dtype=np.uint64)
    ro.flags.writeable = False
    gs.sort_segments(seg, ro, descending=True)
    check(seg.tolist() == [9, 8, 7, 3, 2, 1], "sort_segments of NumPy int64 rows by int64 and read-only uint64 offsets")
    sc = np.array([0.5, np.nan, -0.0, 0.0, -np.inf, 0.5, -np.nan], dtype=np.float64)
    v, i = gs.top_k(sc, 4, descending=True)
    check(list(i) == [1, 0, 5, 3] and np.array_equal(np.frombuffer(v, np.float64), sc[[1, 0, 5, 3]], equal_nan=True)
          and gs.top_k(sc, 3)[1].tolist() == [6, 4, 2],
          "top_k of NumPy float64 with NaN, -NaN, -0.0: total order (NaN largest, -NaN smallest, -0.0 < 0.0)")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
