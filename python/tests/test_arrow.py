"""``gpusort.arrow.sort_indices`` against ``pyarrow.compute.sort_indices``: the same UInt64Array
for Arrays, ChunkedArrays, RecordBatches and Tables of every type gpusort sorts, one or several
keys in either order, nulls and NaN at either end (per key and through ``null_placement``), ties
in every key, at edge sizes; then fallbacks and errors."""

from __future__ import annotations

import doctest
import warnings

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

import gpusort  # noqa: E402
import gpusort.arrow as garrow  # noqa: E402

SIZES = [0, 1, 2, 7, 31, 32, 33, 255, 256, 257, 4099]
# Sort keys with a per-key null placement (a third item): pyarrow 25 and newer.
PER_KEY = tuple(int(x) for x in pa.__version__.split(".")[:1]) >= (25,)


def column(kind: str, n: int, rng: np.random.Generator):
    few = rng.integers(0, 4, n)
    mask = rng.integers(0, 5, n) == 0  # nulls
    if kind in ("float64", "float32"):
        v = np.array([-0.0, 0.0, 1.5, -np.inf, np.inf, np.nan], dtype=kind)[rng.integers(0, 6, n)]
        return pa.array(v, mask=mask)
    values = {
        "int64": np.array([np.iinfo(np.int64).min, -1, 0, np.iinfo(np.int64).max]),
        "uint64": np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64),
        "int8": np.array([-128, 0, 5, 127], dtype=np.int8),
        "uint16": np.array([0, 1, 7, 65535], dtype=np.uint16),
        "int32": np.array([-(2**31), 0, 5, 2**31 - 1], dtype=np.int32),
    }
    if kind in values:
        return pa.array(values[kind][few], mask=mask)
    if kind == "bool":
        return pa.array(few % 2 == 0, mask=mask)
    if kind == "timestamp":
        return pa.array(np.array([-5, 0, 10**15, 3])[few], type=pa.timestamp("us", tz="UTC"), mask=mask)
    if kind == "date32":
        return pa.array(np.array([-1, 0, 18000, 3], dtype=np.int32)[few], type=pa.date32(), mask=mask)
    if kind == "duration":
        return pa.array(np.array([-5, 0, 3, 3])[few], type=pa.duration("s"), mask=mask)
    if kind == "time64":
        return pa.array(np.array([0, 5, 86_399_999_999, 5])[few], type=pa.time64("us"), mask=mask)
    raise ValueError(kind)


KINDS = [
    "int64", "uint64", "int8", "uint16", "int32", "float64", "float32", "bool", "timestamp", "date32", "duration", "time64",
]  # fmt: skip


def table(kinds, n, seed):
    rng = np.random.default_rng([seed, n])
    return pa.table({f"c{i}": column(k, n, rng) for i, k in enumerate(kinds)})


def check(data, sort_keys=(), null_placement=None, sorter=None):
    kw = {} if null_placement is None else {"null_placement": null_placement}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # pyarrow 25+: null_placement is per key now
        want = pc.sort_indices(data, sort_keys=sort_keys, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback for these types
        got = garrow.sort_indices(data, sort_keys, null_placement=null_placement, sorter=sorter)
    assert got.type == pa.uint64() and isinstance(got, pa.UInt64Array)
    assert got.equals(want), (got.to_pylist()[:20], want.to_pylist()[:20])


@pytest.fixture(params=["cpu", "default"])
def sorter(request):
    return gpusort.Sorter("cpu") if request.param == "cpu" else None


@pytest.mark.parametrize("kind", KINDS)
def test_arrays_match_pyarrow(kind, sorter):
    for n in SIZES:
        arr = table([kind], n, seed=1).column(0).chunk(0) if n else column(kind, 0, np.random.default_rng(0))
        for order in ("ascending", "descending"):
            for placement in ("at_end", "at_start"):
                check(arr, [("x", order)], placement, sorter)
        check(arr, (), None, sorter)
        if n > 3:
            check(arr.slice(1, n - 2), [("x", "descending")], "at_start", sorter)  # an offset
            check(pa.chunked_array([arr.slice(0, 3), arr.slice(3)]), [("x", "ascending")], "at_start", sorter)


@pytest.mark.parametrize(
    "kinds",
    [
        ["int64", "float64"],
        ["uint16", "int8", "bool"],
        ["float32", "timestamp"],
        ["date32", "float64", "uint64", "duration"],
    ],
    ids="-".join,
)
def test_tables_match_pyarrow(kinds, sorter):
    for n in SIZES:
        t = table(kinds, n, seed=2)
        names = t.column_names
        orders = ["ascending", "descending"]
        for flip in (0, 1):
            keys = [(name, orders[(i + flip) % 2]) for i, name in enumerate(names)]
            for placement in ("at_end", "at_start"):
                check(t, keys, placement, sorter)
            check(t, keys[::-1], None, sorter)
            if PER_KEY:
                mixed = [(name, order, ("at_start", "at_end")[i % 2]) for i, (name, order) in enumerate(keys)]
                check(t, mixed, None, sorter)
        if n:
            check(t.combine_chunks().to_batches()[0], [(names[0], "descending")], None, sorter)


def test_large_seeded_table():
    n = (1 << 20) + 7
    rng = np.random.default_rng(51)
    t = pa.table(
        {
            "a": pa.array(rng.integers(0, 1000, n).astype(np.uint32)),
            "b": pa.array(
                np.where(rng.integers(0, 50, n) == 0, np.nan, rng.standard_normal(n)), mask=rng.integers(0, 40, n) == 0
            ),
        }
    )
    check(t, [("a", "ascending"), ("b", "descending")], "at_start")
    check(t, [("b", "ascending"), ("a", "ascending")])


def test_unsupported_keys_fall_back_to_pyarrow_with_a_warning():
    decimals = pa.array([2, 1, 2, None], type=pa.decimal128(5, 2))
    t = pa.table({"s": ["b", "a", None, "a"], "k": [1, 1, 0, 0], "d": decimals})
    for keys in ([("s", "ascending")], [("k", "ascending"), ("s", "descending")], [("d", "ascending")]):
        with pytest.warns(garrow.ArrowFallbackWarning, match="pyarrow sorts"):
            got = garrow.sort_indices(t, keys)
        assert got.equals(pc.sort_indices(t, sort_keys=keys))
    assert garrow.column_keys(t.column("s")) is None


def test_errors_and_other_inputs_are_pyarrows():
    t = pa.table({"a": [2, 1, 2]})
    with pytest.raises(pa.ArrowInvalid):
        garrow.sort_indices(t, [("nope", "ascending")])
    with pytest.raises(pa.ArrowInvalid):
        garrow.sort_indices(t)  # a table needs sort keys
    with pytest.raises(ValueError, match="sort order"):
        garrow.sort_indices(t, [("a", "up")])
    np.testing.assert_array_equal(garrow.sort_indices(pa.array([3, 1, 2])).to_numpy(), [1, 2, 0])
    assert garrow.sort_indices([3, 1, 2]).equals(pc.sort_indices([3, 1, 2]))  # not Arrow data: pyarrow's


def test_half_floats_sort_where_pyarrow_has_no_kernel():
    a = pa.array(np.array([1.5, np.nan, -0.0, 0.0, -2.0], dtype=np.float16))
    assert garrow.sort_indices(a).to_pylist() == [4, 2, 3, 0, 1]


def test_docstring_examples():
    failed, attempted = doctest.testmod(garrow)
    assert attempted > 0 and failed == 0
