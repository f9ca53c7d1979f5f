"""sort_file and check_file: files of records come out as NumPy's stable argsort of their key field
says (every key type, little- and big-endian, both orders, byte-string keys, fields of structured
dtypes), with memory limits that force many runs and merge passes; empty and one-record files;
and the failures (a partial record, a missing input, a progress callback that raises) leave the
input, any existing output and the folder as they were."""

from __future__ import annotations

import doctest
import errno
import os
import pathlib
import sys
import threading
import time

import numpy as np
import pytest

import gpusort
from gpusort import _files
from gpusort._key_types import KEY_TYPES

# The smallest limit the library takes for small records: runs of a few thousand records.
SMALL = "512KiB"
ORDERS = [False, True]


def bits_rank(bits: np.ndarray, is_float: bool, signed: bool, descending: bool) -> np.ndarray:
    """Unsigned numbers (native, of the keys' width) that order as the keys whose bits ``bits``
    holds: integers by value, floats in IEEE total order, descending as the complement."""
    sign = bits.dtype.type(1 << (8 * bits.dtype.itemsize - 1))
    if is_float:
        r = np.where(bits & sign, ~bits, bits | sign).astype(bits.dtype)
    elif signed:
        r = bits ^ sign
    else:
        r = bits.copy()
    return ~r if descending else r


def key_bits(n: int, size: int, seed: int) -> np.ndarray:
    """``n`` random bit patterns of ``size`` bytes (NaNs, infinities and negative zeros among the
    floats), a third of them from five values: ties, where stability shows."""
    rng = np.random.default_rng([seed, n, size])
    u = np.dtype(f"u{size}")
    bits = rng.integers(0, 2 ** (8 * size), n, dtype=u, endpoint=False) if n else np.zeros(0, u)
    few = rng.integers(0, 2 ** (8 * size), 5, dtype=u, endpoint=False)
    ties = rng.integers(0, 3, n) == 0
    bits[ties] = few[rng.integers(0, 5, int(ties.sum()))]
    return bits


def records(n: int, size: int, big_endian: bool, seed: int = 0) -> np.ndarray:
    """Packed 13..17-byte records: a tag byte, the key's bits at offset 1 in the file's byte order,
    the record's number (little-endian uint32)."""
    order = ">" if big_endian else "<"
    dt = np.dtype([("tag", "u1"), ("key", f"{order}u{size}"), ("id", "<u4")])
    a = np.zeros(n, dtype=dt)
    a["tag"] = np.arange(n) % 251
    a["key"] = key_bits(n, size, seed)
    a["id"] = np.arange(n, dtype=np.uint32)
    return a


def write(path, a: np.ndarray) -> None:
    a.tofile(os.fspath(path))


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal bytes (NaN fields compare equal to themselves)."""
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def names(d: pathlib.Path):
    return sorted(p.name for p in d.iterdir())


@pytest.fixture
def cpu():
    return gpusort.Sorter("cpu")


@pytest.mark.parametrize("kt", KEY_TYPES, ids=[k.numpy_dtype for k in KEY_TYPES])
@pytest.mark.parametrize("big_endian", [False, True], ids=["le", "be"])
def test_every_key_type_in_both_byte_orders_and_both_orders(tmp_path, cpu, kt, big_endian):
    size, signed = kt.itemsize, kt.numpy_dtype.startswith("int")
    for n in [0, 1, 2, 3, 1000, 60_001]:
        a = records(n, size, big_endian, seed=size)
        write(tmp_path / "in", a)
        for descending in ORDERS:
            what = f"{kt.numpy_dtype} {'be' if big_endian else 'le'} n={n} descending={descending}"
            # The key by name, in the byte order big_endian says.
            r = cpu.sort_file(
                tmp_path / "in",
                tmp_path / "out",
                record_size=a.dtype.itemsize,
                key_offset=1,
                key=kt.numpy_dtype,
                big_endian=big_endian,
                descending=descending,
                memory_limit=SMALL,
            )
            out = np.fromfile(tmp_path / "out", dtype=a.dtype)
            native = a["key"].astype(a.dtype["key"].newbyteorder("="))
            want = a[np.argsort(bits_rank(native, kt.is_float, signed, descending), kind="stable")]
            assert np.array_equal(out, want), what
            assert r.records == n and r.backend == "cpu", what
            assert n < 60_001 or (r.runs > 3 and r.merge_passes >= 1), f"{what}: {r}"
            assert names(tmp_path) == ["in", "out"], what
            c = cpu.check_file(
                tmp_path / "out", record_size=a.dtype.itemsize, key_offset=1, key=kt.numpy_dtype,
                big_endian=big_endian, descending=descending,
            )
            assert c.is_sorted and c.records == n and c.first_unsorted is None, what
            assert c.checksum == cpu.check_file(tmp_path / "in", record_size=a.dtype.itemsize, key="bytes").checksum
    # NumPy's own order where it is IEEE total order's: integers, ascending.
    if not kt.is_float and n:
        keys = np.fromfile(tmp_path / "in", dtype=a.dtype)["key"].view(f"{'>' if big_endian else '<'}{kt.numpy_dtype[0]}{size}")
        cpu.sort_file(tmp_path / "in", tmp_path / "out", record_size=a.dtype.itemsize, key_offset=1,
                      key=keys.dtype, memory_limit=SMALL)
        out = np.fromfile(tmp_path / "out", dtype=a.dtype)
        assert np.array_equal(out, a[np.argsort(keys, kind="stable")])


def memcmp_perm(keys: np.ndarray, descending: bool) -> np.ndarray:
    """The stable permutation of byte strings ``keys`` (an ``S<n>`` array) by NumPy, checked
    against Python's own ``bytes`` comparison (``memcmp``, embedded NULs included)."""
    if descending:
        n = len(keys)
        perm = (n - 1 - np.argsort(keys[::-1], kind="stable"))[::-1]
    else:
        perm = np.argsort(keys, kind="stable")
    raw = [bytes(k) for k in keys.view(f"V{keys.dtype.itemsize}")]
    # sorted(reverse=True) keeps equal keys in input order too.
    py = sorted(range(len(raw)), key=lambda i: raw[i], reverse=descending)
    assert list(perm) == py, "NumPy's S order is not memcmp's here"
    return perm


@pytest.mark.parametrize("shape", [(100, 0, 10), (12, 2, 3), (24, 4, 16), (9, 0, 9)], ids=str)
def test_byte_string_keys(tmp_path, cpu, shape):
    size, offset, length = shape
    n = 20_000
    rng = np.random.default_rng(size)
    data = rng.integers(0, 256, (n, size), dtype=np.uint8)
    # Ties, and keys that differ only after a NUL or in their last byte.
    few = rng.integers(0, 256, (4, length), dtype=np.uint8)
    few[1, : length // 2] = 0
    pick = rng.integers(0, 3, n) == 0
    data[pick, offset : offset + length] = few[rng.integers(0, 4, int(pick.sum()))]
    data.tofile(tmp_path / "in")
    keys = np.ascontiguousarray(data[:, offset : offset + length]).view(f"S{length}").ravel()
    for descending in ORDERS:
        r = cpu.sort_file(tmp_path / "in", tmp_path / "out", record_size=size, key_offset=offset, key="bytes",
                          key_size=length, descending=descending, memory_limit=SMALL)
        out = np.fromfile(tmp_path / "out", dtype=np.uint8).reshape(n, size)
        assert np.array_equal(out, data[memcmp_perm(keys, descending)]), f"{shape} descending={descending}"
        assert r.runs > 1, r
    # key_size left out: the rest of the record from the offset.
    cpu.sort_file(tmp_path / "in", tmp_path / "out", record_size=size, key_offset=offset, memory_limit=SMALL)
    rest = np.ascontiguousarray(data[:, offset:]).view(f"S{size - offset}").ravel()
    out = np.fromfile(tmp_path / "out", dtype=np.uint8).reshape(n, size)
    assert np.array_equal(out, data[np.argsort(rest, kind="stable")])


def test_fields_of_a_structured_dtype(tmp_path, cpu):
    dt = np.dtype([("id", "<u4"), ("score", ">f8"), ("name", "S6"), ("code", "u1", (3,)), ("level", "<i2")])
    n = 25_000
    rng = np.random.default_rng(1)
    a = np.zeros(n, dtype=dt)
    a["id"] = np.arange(n)
    a["score"] = rng.choice([-1.5, 0.0, -0.0, 2.0, np.inf, np.nan, 1e-300], n)
    a["name"] = rng.choice([b"ann", b"bob", b"b\x00b", b"zed", b""], n)
    a["code"] = rng.integers(0, 4, (n, 3))
    a["level"] = rng.integers(-3, 3, n)
    a.tofile(tmp_path / "rows")
    by_score = bits_rank(a["score"].astype("=f8").view(np.uint64), True, False, False)
    expect = {
        "id": np.argsort(a["id"], kind="stable"),
        "score": np.argsort(by_score, kind="stable"),
        "name": memcmp_perm(a["name"], False),
        "code": memcmp_perm(np.ascontiguousarray(a["code"]).view("S3").ravel(), False),
        "level": np.argsort(a["level"], kind="stable"),
    }
    for field, perm in expect.items():
        r = gpusort.sort_file(tmp_path / "rows", tmp_path / "out", dtype=dt, key=field, memory_limit=SMALL)
        assert same(np.fromfile(tmp_path / "out", dtype=dt), a[perm]), field
        assert r.records == n and r.runs > 1
        assert gpusort.check_file(tmp_path / "out", dtype=dt, key=field).is_sorted, field
    # descending by a big-endian float field, against NumPy where it agrees (no NaN, no -0.0).
    b = a[~np.isnan(a["score"]) & ~((a["score"] == 0) & np.signbit(a["score"]))]
    b.tofile(tmp_path / "rows")
    gpusort.sort_file(tmp_path / "rows", tmp_path / "rows", dtype=dt, key="score", descending=True)
    m = len(b)
    want = b[(m - 1 - np.argsort(b["score"][::-1], kind="stable"))[::-1]]
    assert same(np.fromfile(tmp_path / "rows", dtype=dt), want)


def test_raw_files_of_keys(tmp_path, cpu):
    x = np.random.default_rng(2).integers(-(2**40), 2**40, 50_000)
    x.tofile(tmp_path / "i8")
    r = cpu.sort_file(tmp_path / "i8", tmp_path / "i8", key=np.int64, memory_limit=SMALL)
    assert np.array_equal(np.fromfile(tmp_path / "i8", dtype=np.int64), np.sort(x)) and r.runs > 1
    y = x.astype(">u2")
    y.tofile(tmp_path / "u2be")
    cpu.sort_file(tmp_path / "u2be", tmp_path / "out", dtype=y.dtype, descending=True)
    assert np.array_equal(np.fromfile(tmp_path / "out", dtype=">u2"), np.sort(y)[::-1])
    f = np.random.default_rng(3).standard_normal(10_000).astype(np.float32)
    f.tofile(tmp_path / "f4")
    cpu.sort_file(tmp_path / "f4", tmp_path / "f4", key="float32")
    assert np.array_equal(np.fromfile(tmp_path / "f4", dtype=np.float32), np.sort(f))
    assert cpu.check_file(tmp_path / "f4", key="float32") == (10_000, True, None, cpu.check_file(tmp_path / "f4", key="float32").checksum)


@pytest.mark.parametrize("n", [0, 1])
def test_empty_and_one_record_files(tmp_path, cpu, n):
    a = records(n, 8, False)
    write(tmp_path / "in", a)
    r = cpu.sort_file(tmp_path / "in", tmp_path / "out", record_size=13, key_offset=1, key="u8", memory_limit=SMALL)
    assert (tmp_path / "out").read_bytes() == (tmp_path / "in").read_bytes()
    assert (r.records, r.runs, r.merge_passes) == (n, n, 0)
    assert isinstance(r.elapsed, float) and r.elapsed >= 0 and r.memory_budget == 512 << 10
    c = cpu.check_file(tmp_path / "out", record_size=13, key_offset=1, key="u8")
    assert (c.records, c.is_sorted, c.first_unsorted) == (n, True, None)


def test_a_partial_record_is_refused_and_no_output_made(tmp_path, cpu):
    data = records(100, 4, False).tobytes()
    (tmp_path / "in").write_bytes(data[:-1])
    with pytest.raises(gpusort.InvalidArgumentError, match="not a whole number of 9-byte records"):
        cpu.sort_file(tmp_path / "in", tmp_path / "out", record_size=9, key_offset=1, key="uint32")
    assert names(tmp_path) == ["in"]
    (tmp_path / "out").write_bytes(b"old output")
    with pytest.raises(ValueError):
        cpu.sort_file(tmp_path / "in", tmp_path / "out", record_size=9, key_offset=1, key="uint32")
    assert (tmp_path / "out").read_bytes() == b"old output"
    with pytest.raises(gpusort.InvalidArgumentError, match="whole number"):
        cpu.check_file(tmp_path / "in", record_size=9, key="bytes")
    assert names(tmp_path) == ["in", "out"]


def test_files_that_cannot_be_opened_raise_an_oserror_naming_them(tmp_path, cpu):
    missing = tmp_path / "missing"
    with pytest.raises(gpusort.FileSortError) as e:
        cpu.sort_file(missing, tmp_path / "out", record_size=100, key_size=10)
    assert isinstance(e.value, OSError) and isinstance(e.value, gpusort.GpusortError)
    assert e.value.errno == errno.ENOENT and str(missing) in str(e.value), str(e.value)
    with pytest.raises(OSError, match="missing"):
        gpusort.check_file(missing, record_size=100)
    (tmp_path / "in").write_bytes(bytes(1000))
    with pytest.raises(gpusort.FileSortError) as e:
        cpu.sort_file(tmp_path / "in", tmp_path / "no-such-folder" / "out", record_size=100)
    assert e.value.errno == errno.ENOENT and "no-such-folder" in str(e.value)
    assert names(tmp_path) == ["in"]


def test_the_output_is_replaced_only_on_success(tmp_path, cpu):
    a = records(40_000, 8, True)
    write(tmp_path / "in", a)
    (tmp_path / "out").write_bytes(b"old output")
    layout = dict(record_size=13, key_offset=1, key=">u8", memory_limit=SMALL)

    class Stop(Exception):
        pass

    seen = []

    def stop_in_the_merge(p):
        seen.append(p)
        if p.phase == "merge":
            raise Stop(p)

    with pytest.raises(Stop):
        cpu.sort_file(tmp_path / "in", tmp_path / "out", progress=stop_in_the_merge, **layout)
    assert (tmp_path / "out").read_bytes() == b"old output" and names(tmp_path) == ["in", "out"]
    runs = [p for p in seen if p.phase == "runs"]
    assert len(runs) > 2 and runs[-1].done == runs[-1].total == a.nbytes and all(p.merge_pass == 0 for p in runs)
    assert seen[-1].phase == "merge" and seen[-1].merge_pass == 1 and seen[-1].merge_passes >= 1
    # Stopped in the run phase, with its scratch folder elsewhere: nothing left there either.
    scratch = tmp_path / "scratch"
    scratch.mkdir()

    def stop_at_once(p):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        cpu.sort_file(tmp_path / "in", tmp_path / "out", progress=stop_at_once, temp_dir=scratch, **layout)
    assert names(scratch) == [] and (tmp_path / "out").read_bytes() == b"old output"
    calls = []
    r = cpu.sort_file(tmp_path / "in", tmp_path / "out", progress=calls.append, temp_dir=scratch, **layout)
    assert r.runs > 2 and len(calls) > r.runs and names(scratch) == []
    out = np.fromfile(tmp_path / "out", dtype=a.dtype)
    assert np.array_equal(out, a[np.argsort(a["key"], kind="stable")])
    # In place, descending.
    cpu.sort_file(tmp_path / "in", tmp_path / "in", descending=True, **layout)
    want = a[np.argsort(~a["key"].astype(np.uint64), kind="stable")]
    assert np.array_equal(np.fromfile(tmp_path / "in", dtype=a.dtype), want)
    assert names(tmp_path) == ["in", "out", "scratch"]


def test_check_file_finds_the_first_record_out_of_order(tmp_path, cpu):
    a = np.array([-5, -1, 0, 7, 3, 9], dtype=">i4")
    a.tofile(tmp_path / "f")
    records_, is_sorted, first, checksum = cpu.check_file(tmp_path / "f", key=a.dtype)
    assert (records_, is_sorted, first) == (6, False, 4) and isinstance(checksum, int)
    assert gpusort.check_file(tmp_path / "f", dtype=a.dtype, descending=True).first_unsorted == 1
    assert cpu.check_file(tmp_path / "f", key="int32", big_endian=True) == (6, False, 4, checksum)
    little = cpu.check_file(tmp_path / "f", key="uint32")  # the same bytes read little-endian
    assert little.checksum == checksum and little.first_unsorted == 2  # 0xfbffffff, 0xffffffff, 0
    np.sort(a).tofile(tmp_path / "g")
    assert cpu.check_file(tmp_path / "g", key=">i4") == (6, True, None, checksum)


def test_paths_and_memory_limits(tmp_path, cpu):
    x = np.arange(5000, 0, -1, dtype=np.uint32)
    x.tofile(tmp_path / "in")
    cpu.sort_file(os.fsencode(tmp_path / "in"), str(tmp_path / "out"), key="uint32", temp_dir=os.fsencode(tmp_path))
    assert np.array_equal(np.fromfile(tmp_path / "out", dtype=np.uint32), np.sort(x))
    assert _files.memory_limit("512KiB") == 512 << 10 and _files.memory_limit(" 3G ") == 3 * 10**9
    assert _files.memory_limit("1.5 GB") == 1_500_000_000 and _files.memory_limit("2gib") == 2 << 30
    assert _files.memory_limit(1 << 20) == 1 << 20 and _files.memory_limit(np.int64(7)) == 7
    assert _files.memory_limit(None) is None and _files.memory_limit("100") == 100
    for bad in ["3X", "", "G", "1.5.2M", "-3G"]:
        with pytest.raises(ValueError, match="memory_limit"):
            _files.memory_limit(bad)
    with pytest.raises(ValueError, match="negative"):
        _files.memory_limit(-1)
    for bad in [True, 1.5, [1]]:
        with pytest.raises(TypeError, match="memory_limit"):
            _files.memory_limit(bad)
    r = cpu.sort_file(tmp_path / "in", tmp_path / "out", key="uint32", memory_limit="1MiB")
    assert r.memory_budget == 1 << 20
    with pytest.raises(gpusort.InvalidArgumentError, match="host memory limit of 1000 bytes"):
        cpu.sort_file(tmp_path / "in", tmp_path / "out", key="uint32", memory_limit=1000)
    for bad in [None, 3, object()]:
        with pytest.raises(TypeError, match="input"):
            cpu.sort_file(bad, tmp_path / "out", key="uint32")
    with pytest.raises(TypeError, match="temp_dir"):
        cpu.sort_file(tmp_path / "in", tmp_path / "out", key="uint32", temp_dir=5)
    with pytest.raises(TypeError, match="progress"):
        cpu.sort_file(tmp_path / "in", tmp_path / "out", key="uint32", progress=5)


def test_bad_layouts(tmp_path, cpu):
    (tmp_path / "in").write_bytes(bytes(1200))
    sort = lambda **kw: cpu.sort_file(tmp_path / "in", tmp_path / "out", **kw)  # noqa: E731
    for key in ["complex64", "U4", np.bool_, "datetime64[s]", "object", "no-such-dtype", 3.5]:
        with pytest.raises(TypeError, match="key"):
            sort(record_size=12, key=key)
    with pytest.raises(TypeError, match="dtype"):
        sort(dtype="no-such-dtype")
    with pytest.raises(TypeError, match="objects"):
        sort(dtype=[("a", "O"), ("b", "u4")], key="b")
    rows = np.dtype([("a", "<u4"), ("b", "c8"), ("c", [("x", "u1")]), ("d", "<f4", (2,))])
    with pytest.raises(ValueError, match="no field 'zz'"):
        sort(dtype=rows, key="zz")
    with pytest.raises(ValueError, match="name the field"):
        sort(dtype=rows)
    for field in ["b", "c", "d"]:
        with pytest.raises(TypeError, match=f"field '{field}'"):
            sort(dtype=rows, key=field)
    with pytest.raises(ValueError, match="record_size: 8"):
        sort(dtype=rows, key="a", record_size=8)
    with pytest.raises(ValueError, match="key_offset"):
        sort(dtype=rows, key="a", key_offset=2)
    with pytest.raises(ValueError, match="big_endian=False"):
        sort(key=">u4", big_endian=False)
    with pytest.raises(TypeError, match="big_endian"):
        sort(key="u4", big_endian="yes")
    with pytest.raises(ValueError, match="key_size: 2"):
        sort(key="u4", key_size=2)
    with pytest.raises(ValueError, match="key_size: 4"):
        sort(record_size=12, key="S3", key_size=4)
    with pytest.raises(ValueError, match="record_size"):
        sort(key="bytes")
    with pytest.raises(ValueError, match="record_size"):
        sort(key="u4", key_offset=4)
    with pytest.raises(ValueError, match="negative"):
        sort(record_size=-1)
    with pytest.raises(TypeError, match="record_size"):
        sort(record_size=1.0)
    for kw in [dict(record_size=12, key_offset=10, key="u4"), dict(record_size=12, key_offset=12),
               dict(record_size=12, key_size=13), dict(record_size=0, key="bytes")]:
        with pytest.raises(gpusort.InvalidArgumentError):
            sort(**kw)
    assert names(tmp_path) == ["in"]
    # Keys the dtype tables do not list, but names do: bfloat16 without ml_dtypes.
    assert _files.layout(None, 0, "bfloat16", None, None, True) == (2, 0, "bfloat16", 2, True)
    assert _files.layout(None, 0, "S5", None, None, None) == (5, 0, "bytes", 5, False)
    little = sys.byteorder == "little"
    assert _files.layout(16, 8, np.float64, None, None, None) == (16, 8, "float64", 8, not little)
    assert _files.layout(None, 0, None, None, "<u2", None) == (2, 0, "uint16", 2, False)


def test_other_threads_run_while_a_file_sorts(tmp_path, cpu):
    x = np.random.default_rng(4).integers(0, 2**63, 200_000)
    x.tofile(tmp_path / "in")
    done, span = threading.Event(), {}

    def sort():
        t0 = time.perf_counter()
        span["report"] = cpu.sort_file(tmp_path / "in", tmp_path / "out", key="int64", memory_limit="1MiB")
        span["sort"] = (t0, time.perf_counter())
        done.set()

    worker = threading.Thread(target=sort)
    worker.start()
    ticks = []
    while not done.is_set():
        ticks.append(time.perf_counter())
    worker.join()
    t0, t1 = span["sort"]
    during = [t for t in ticks if t0 <= t <= t1]
    gaps = np.diff([t0] + during + [t1])
    # With the GIL held for the sort, this thread would not tick between t0 and t1.
    assert len(during) > 1000 and gaps.max() < 0.5 * (t1 - t0), f"longest gap {gaps.max():.3f}s of {t1 - t0:.3f}s"
    assert span["report"].runs > 2
    assert np.array_equal(np.fromfile(tmp_path / "out", dtype=np.int64), np.sort(x))


@pytest.mark.parametrize("descending", ORDERS)
def test_a_memmap_sorts_in_place(tmp_path, cpu, descending):
    """Structured memmaps by a field (big-endian too), memmaps of keys and of byte strings, with a
    limit that forces many runs and merge passes: the mapped file ends as NumPy's stable sort."""
    n = 150_000
    a = records(n, 8, big_endian=True, seed=3)
    keys4, bytes8 = key_bits(n, 4, 5).view("<i4"), key_bits(n, 8, 6).view("S8")
    # (array, field, the keys' bits as native unsigned numbers, signed)
    cases = [
        (a, "key", a["key"].astype(np.uint64), False),
        (keys4, None, keys4.view("<u4").astype(np.uint32), True),
        (bytes8, None, bytes8.view(">u8").astype(np.uint64), False),
    ]
    for i, (data, key, bits, signed) in enumerate(cases):
        path = tmp_path / f"m{i}"
        write(path, data)
        m = np.memmap(path, dtype=data.dtype, mode="r+", shape=data.shape)
        r = cpu.sort_mapped(m, key, descending=descending, memory_limit=SMALL)
        assert r.runs > 8 and r.merge_passes >= 2, r
        expected = data[np.argsort(bits_rank(bits, False, signed, descending), kind="stable")]
        m.flush()
        del m
        assert same(np.fromfile(path, dtype=data.dtype), expected), (i, descending)
        assert names(tmp_path) == sorted(f"m{j}" for j in range(i + 1))


def test_sort_mapped_refuses_what_it_cannot_sort_in_place(tmp_path, cpu):
    a = np.arange(10, dtype=np.uint32)[::-1].copy()
    write(tmp_path / "m", a)
    ro = np.memmap(tmp_path / "m", dtype=np.uint32, mode="r", shape=10)
    with pytest.raises(ValueError, match="read-only"):
        cpu.sort_mapped(ro)
    with pytest.raises(ValueError, match="contiguous"):
        cpu.sort_mapped(a[::2])
    with pytest.raises(TypeError, match="no fields"):
        cpu.sort_mapped(a, "x")
    with pytest.raises(TypeError):
        cpu.sort_mapped([3, 1, 2])
    assert np.array_equal(a, np.arange(10, dtype=np.uint32)[::-1])
    # A progress callback that raises before the last merge: untouched, and the error raised.
    b = key_bits(100_000, 8, 9).view("<u8")
    before = b.copy()

    def stop(p):
        if p.phase == "runs" and p.done > 200_000:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        cpu.sort_mapped(b, memory_limit=SMALL, temp_dir=tmp_path, progress=stop)
    assert same(b, before) and names(tmp_path) == ["m"]


def test_the_docstrings_run():
    for f in [gpusort.Sorter.sort_file, gpusort.Sorter.check_file, gpusort.sort_file, gpusort.Sorter.sort_mapped]:
        runner = doctest.DocTestRunner()
        for t in doctest.DocTestFinder().find(f, globs={}):
            runner.run(t)
        assert runner.failures == 0 and runner.tries > 0, f.__qualname__
