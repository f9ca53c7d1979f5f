"""Tests of gpusort through ctypes only: array('I') keys, structured buffers of pairs (a ctypes
array of Kvp and a bytearray of packed records), split pairs, other key types, and error paths.
Prints one line per check and ends with "N passed, M failed"; exits 1 on any failure.

Run: GPUSORT_LIB=target/debug/libgpusort.so python3 ffi/python/test_gpusort.py
"""

import ctypes
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
check(raises(gs.INVALID_ARGUMENT, lambda: gs.sort_keys(keys, descending=7)) and keys.tolist() == [3, 1, 2],
      "order 7: invalid argument, keys untouched")
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

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
