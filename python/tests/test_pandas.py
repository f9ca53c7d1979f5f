"""``gpusort.pandas.sort_values`` against pandas' own ``sort_values(kind="stable")``: the same
frame, the same index order, for every dtype gpusort sorts (NumPy ints, uints, floats, bools,
datetimes naive and tz-aware, timedeltas, periods, categoricals, the nullable Int, Float and
boolean dtypes), one or several ``by`` columns, both orders per column, NaN / NaT / NA at either
end, ties in every column, at edge sizes; then Series, fallbacks and errors."""

from __future__ import annotations

import doctest
import warnings

import numpy as np
import pytest

pd = pytest.importorskip("pandas")

import gpusort  # noqa: E402
import gpusort.pandas as gpd  # noqa: E402

SIZES = [0, 1, 2, 7, 31, 32, 33, 127, 128, 129, 1021, 4099]


def with_na(values, missing):
    """``values`` (any pandas array) with NaT / NA / NaN where ``missing``."""
    return pd.Series(values).where(~missing).array


def column(kind: str, n: int, rng: np.random.Generator):
    """A column of ``kind`` with few distinct values (ties), and missing values where the dtype
    has them."""
    few = rng.integers(0, 4, n)
    missing = rng.integers(0, 5, n) == 0
    if kind == "int64":
        return np.array([np.iinfo(np.int64).min, -1, 0, np.iinfo(np.int64).max])[few]
    if kind == "uint8":
        return np.array([0, 1, 7, 255], dtype=np.uint8)[few]
    if kind == "uint64":
        return np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64)[few]
    if kind == "int16":
        return np.array([-32768, 0, 5, 32767], dtype=np.int16)[few]
    if kind in ("float64", "float32"):
        v = np.array([-0.0, 0.0, 1.5, -np.inf, np.inf, np.nan], dtype=kind)
        return v[rng.integers(0, 6, n)]
    if kind == "bool":
        return few % 2 == 0
    if kind == "datetime":
        return with_na(pd.to_datetime(np.array(["2020-01-01", "1969-12-31", "2038-01-19", "2020-01-01"])[few]), missing)
    if kind == "datetime_s":
        return pd.Series(column("datetime", n, rng)).astype("datetime64[s]")
    if kind == "datetime_tz":
        return pd.Series(column("datetime", n, rng)).dt.tz_localize("Europe/Paris")
    if kind == "timedelta":
        return with_na(pd.to_timedelta(np.array([-5, 0, 3, 3])[few], unit="s"), missing)
    if kind == "period":
        return with_na(pd.period_range("2020-01", periods=4, freq="M")[few], missing)
    if kind == "category":
        return pd.Categorical(np.array(["b", "a", "c", "a"], dtype=object)[few], categories=["c", "a", "b"])
    if kind == "category_na":
        return with_na(column("category", n, rng), missing)
    if kind == "Int64":
        return with_na(pd.array(np.array([-3, 0, 7, 7])[few], dtype="Int64"), missing)
    if kind == "UInt8":
        return with_na(pd.array(np.array([0, 1, 255, 1])[few], dtype="UInt8"), missing)
    if kind == "Float64":
        return with_na(pd.array(np.array([-0.0, 0.0, 2.5, -1.0])[few], dtype="Float64"), missing)
    if kind == "boolean":
        return with_na(pd.array(few % 2 == 0, dtype="boolean"), missing)
    raise ValueError(kind)


KINDS = [
    "int64", "uint8", "uint64", "int16", "float64", "float32", "bool", "datetime", "datetime_s",
    "datetime_tz", "timedelta", "period", "category", "category_na", "Int64", "UInt8", "Float64", "boolean",
]  # fmt: skip


def frame(kinds, n: int, seed: int):
    rng = np.random.default_rng([seed, n])
    data = {f"c{i}_{k}": column(k, n, rng) for i, k in enumerate(kinds)}
    data["payload"] = np.arange(n)
    # A shuffled index: the result's index order is checked, not only the rows.
    return pd.DataFrame(data, index=rng.permutation(n) * 3 + 1)


def pandas_reference(df, by, ascending, na_position, ignore_index):
    """pandas' stable sort_values. pandas 3.1's multi-column fast path for NumPy floats (pandas
    PR 64794) puts NaN where -inf goes under na_position="first" (where +inf goes, descending),
    unlike pandas' one-column sort and its own docs; the reference is then the same frame sorted
    with those columns as nullable Float64 (NaN as NA, pandas' general path)."""
    many = isinstance(by, list) and len(by) > 1
    floats = [c for c in (by if many else []) if isinstance(df[c].dtype, np.dtype) and df[c].dtype.kind == "f"]
    if na_position == "first" and floats:
        nullable = df.astype({c: "Float64" for c in floats})
        order = nullable.sort_values(by, ascending=ascending, na_position="first", kind="stable")
        want = df.loc[order.index]
        return want.reset_index(drop=True) if ignore_index else want
    return df.sort_values(by, ascending=ascending, na_position=na_position, ignore_index=ignore_index, kind="stable")


def check(df, by, ascending, na_position, sorter=None, ignore_index=False):
    want = pandas_reference(df, by, ascending, na_position, ignore_index)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback for these dtypes
        got = gpd.sort_values(df, by, ascending, na_position, ignore_index, sorter=sorter)
    pd.testing.assert_frame_equal(got, want)


@pytest.fixture(params=["cpu", "default"])
def sorter(request):
    return gpusort.Sorter("cpu") if request.param == "cpu" else None


@pytest.mark.parametrize("na_position", ["last", "first"])
@pytest.mark.parametrize("kind", KINDS)
def test_one_column_matches_pandas(kind, na_position, sorter):
    for n in SIZES:
        df = frame([kind], n, seed=1)
        for ascending in (True, False):
            check(df, df.columns[0], ascending, na_position, sorter)


@pytest.mark.parametrize("na_position", ["last", "first"])
@pytest.mark.parametrize(
    "kinds",
    [
        ["int64", "float64"],
        ["uint8", "uint8", "bool"],
        ["float32", "datetime_tz", "Int64"],
        ["category_na", "timedelta", "boolean"],
        ["Float64", "uint64", "period", "int16"],
        ["datetime", "category", "float64", "UInt8"],
    ],
    ids="-".join,
)
def test_several_columns_match_pandas(kinds, na_position, sorter):
    for n in SIZES:
        df = frame(kinds, n, seed=2)
        by = list(df.columns[: len(kinds)])
        for ascending in (True, False, [i % 2 == 0 for i in range(len(by))], [i % 2 == 1 for i in range(len(by))]):
            check(df, by, ascending, na_position, sorter)
        check(df, by[::-1], True, na_position, sorter, ignore_index=True)


def test_large_seeded_frame():
    n = (1 << 20) + 7
    rng = np.random.default_rng(50)
    df = pd.DataFrame(
        {
            "a": rng.integers(0, 1000, n).astype(np.uint32),
            "b": np.where(rng.integers(0, 50, n) == 0, np.nan, rng.standard_normal(n)).astype(np.float32),
            "c": rng.integers(-5, 5, n),
        }
    )
    check(df, ["a", "b"], [True, False], "first")
    check(df, ["b", "c", "a"], True, "last")
    check(df, "b", False, "first")


def test_unmasked_nan_in_nullable_floats():
    # NaN that is not NA (only through the constructor): pandas orders it as the largest value.
    data = np.array([np.nan, 1.0, 0.0, np.nan, 2.0, -0.0])
    arr = pd.arrays.FloatingArray(data, np.array([False, False, True, False, False, False]))
    df = pd.DataFrame({"f": arr, "k": [1, 0, 1, 0, 1, 0]})
    for ascending in (True, False):
        for na in ("first", "last"):
            check(df, "f", ascending, na)
            check(df, ["f", "k"], ascending, na)
            check(df, ["k", "f"], [True, ascending], na)


def test_series():
    s = pd.Series([3.0, np.nan, 1.0, 3.0, -0.0, 0.0], index=list("abcdef"), name="x")
    for ascending in (True, False, [False]):
        for na in ("first", "last"):
            for ignore in (False, True):
                want = s.sort_values(ascending=ascending, na_position=na, ignore_index=ignore, kind="stable")
                got = gpd.sort_values(s, ascending=ascending, na_position=na, ignore_index=ignore)
                pd.testing.assert_series_equal(got, want)
    c = pd.Series(pd.Categorical(["b", None, "a", "b"], categories=["b", "a"]))
    pd.testing.assert_series_equal(gpd.sort_values(c), c.sort_values(kind="stable"))
    with pytest.raises(TypeError, match="by"):
        gpd.sort_values(s, "x")


def test_unsupported_columns_fall_back_to_pandas_with_a_warning():
    df = pd.DataFrame({"s": ["b", "a", None, "a"], "o": [3, "x", 1.5, None], "k": [1, 1, 0, 0]})
    df["obj"] = pd.Series([2, 1, 2, 1], dtype=object)
    for by in ("s", ["k", "s"], ["k", "obj"]):
        with pytest.warns(gpd.PandasFallbackWarning, match="pandas sorts"):
            got = gpd.sort_values(df, by)
        pd.testing.assert_frame_equal(got, df.sort_values(by, kind="stable"))
    assert gpd.column_keys(df["s"]) is None and gpd.column_keys(df["obj"]) is None


def test_labels_pandas_resolves_and_errors_are_pandas():
    df = pd.DataFrame({"a": [2, 1, 2], "b": [0.5, 0.1, 0.2]}).rename_axis("idx")
    want = df.sort_values("idx", ascending=False, kind="stable")  # an index level: pandas sorts
    pd.testing.assert_frame_equal(gpd.sort_values(df, "idx", ascending=False), want)
    pd.testing.assert_frame_equal(gpd.sort_values(df, []), df.sort_values([], kind="stable"))
    with pytest.raises(KeyError):
        gpd.sort_values(df, "nope")
    with pytest.raises(ValueError, match="Length of ascending"):
        gpd.sort_values(df, ["a", "b"], ascending=[True])
    with pytest.raises(ValueError, match="invalid na_position"):
        gpd.sort_values(df, "a", na_position="middle")
    with pytest.raises(TypeError, match="DataFrame or Series"):
        gpd.sort_values(df.to_numpy(), "a")
    dup = pd.DataFrame([[1, 2], [0, 3]], columns=["a", "a"])
    with pytest.raises(ValueError):
        gpd.sort_values(dup, "a")  # pandas: the label is not unique


def test_the_frame_is_left_as_it_was():
    df = frame(["float64", "Int64", "category_na"], 1021, seed=4)
    before = df.copy()
    gpd.sort_values(df, list(df.columns[:3]), ascending=False)
    pd.testing.assert_frame_equal(df, before)


def test_docstring_examples():
    failed, attempted = doctest.testmod(gpd)
    assert attempted > 0 and failed == 0
