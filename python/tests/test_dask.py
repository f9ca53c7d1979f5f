"""gpusort.dask: Dask DataFrames sorted on a LocalCluster of worker processes, with gpusort doing
each partition's sort. Every result is gathered partition by partition (``compute()`` of the
whole frame would let Dask sort one concatenated partition) and compared with pandas' stable
``sort_values`` of the whole frame: the same rows, in the same order, with the same index and
payload, so sortedness, ties (input order kept), NaN placement and rows keeping their payloads
are all checked at once. Skipped where dask is not installed (``pip install ./python[dask]``).
"""

from __future__ import annotations

import asyncio
import os
import warnings

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import gpusort  # noqa: E402
import gpusort.dask as gdask  # noqa: E402
from conftest import has_cuda  # noqa: E402
from gpusort._key_types import KEY_TYPES  # noqa: E402
from gpusort._lexsort import host_keys  # noqa: E402

N = 6_000  # rows per frame: several partitions, every kind of tie, a few seconds in all
NPARTS = 5
# Every key type of the native module's list (gpusort sorts these as they are), and datetimes
# (which it sorts as their int64 counts); not the half floats: Dask's own divisions fail on
# float16 columns (pandas has no bfill of them), and pandas has no bfloat16. The partition sorts
# take float16 (test_sort_partition_is_pandas_stable_sort).
DTYPES = [k.numpy_dtype for k in KEY_TYPES if not (k.is_float and k.itemsize == 2)] + ["datetime64[ns]"]


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(
        n_workers=3, threads_per_worker=1, processes=True, dashboard_address=None, memory_limit="1GiB"
    ) as cluster, distributed.Client(cluster) as c:
        yield c


# A partition's sort takes milliseconds and a whole case seconds. Once, under the load of a CI run on
# two cores, a p2p shuffle never finished: the client waited in `gather` while every worker sat idle.
# Such a stall is Dask's, not the sort's: the case gets one more try on restarted workers, and a
# second stall fails it, where it would otherwise have held CI until its own time limit.
GATHER_TIMEOUT_S = 120


def gather(ddf):
    """The partitions of ``ddf``, computed as they are and concatenated in order."""
    client = distributed.get_client()
    for attempt in (1, 2):
        futures = client.compute(ddf.to_delayed())
        try:
            distributed.wait(futures, timeout=GATHER_TIMEOUT_S)
            break
        except (TimeoutError, asyncio.TimeoutError):  # one class from Python 3.11 on
            client.cancel(futures)
            if attempt == 2:
                pytest.fail(f"the Dask cluster did not finish the sort in {GATHER_TIMEOUT_S} s, twice")
            warnings.warn(f"Dask stalled for {GATHER_TIMEOUT_S} s; retrying on restarted workers")
            client.restart()
    parts = client.gather(futures)
    return pd.concat(parts) if parts else ddf._meta


def keys_of(dtype: str, n: int, seed: int, inf: bool = True) -> np.ndarray:
    """Few distinct keys (many ties), the extremes, and for floats NaN, ±0.0 and ±inf (unless
    not ``inf``: Dask's quantiles of infinite keys are NaN, and its own partitioning then puts
    rows into the wrong partitions, whichever partition sort follows)."""
    rng = np.random.default_rng([seed, n])
    dt = np.dtype(dtype)
    if dt.kind == "f":
        big = np.finfo(dt).max
        pool = np.array([np.nan, -big, big, -0.0, 0.0, 1.5, -2.25, 1e30, -1e-30], dtype=dt)
        if inf:
            pool = np.concatenate([pool, np.array([np.inf, -np.inf], dtype=dt)])
        return np.concatenate([rng.choice(pool, n // 2), rng.standard_normal(n - n // 2).astype(dt)])
    if dt.kind == "M":
        k = rng.integers(0, 50, n).astype(dt)
        k[rng.integers(0, n, n // 50)] = np.datetime64("NaT")
        return k
    info = np.iinfo(dt)
    pool = np.array([info.min, info.max, 0, 1, info.max - 1], dtype=dt)
    return np.concatenate([rng.choice(pool, n // 2), rng.integers(info.min, info.max, n - n // 2, dtype=dt)])


def frame(dtype: str, n: int = N, seed: int = 0, inf: bool = True):
    """Keys, a payload naming each row, and a shuffled index (ties must keep their rows)."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {"k": keys_of(dtype, n, seed, inf), "v": np.arange(n, dtype=np.uint64)},
        index=rng.permutation(n) + 1000,
    )


def assert_same(got, want):
    pd.testing.assert_frame_equal(got, want, check_index_type=True)


# --- one partition, no cluster ------------------------------------------------------------------


@pytest.mark.parametrize("na_position", ["last", "first"])
@pytest.mark.parametrize("ascending", [True, False], ids=["asc", "desc"])
@pytest.mark.parametrize("dtype", DTYPES + ["bool", "float16"])
def test_sort_partition_is_pandas_stable_sort(dtype, ascending, na_position):
    df = frame(dtype) if dtype not in ("bool", "float16") else frame("int16").assign(k=lambda d: d.k.astype(dtype))
    want = df.sort_values("k", ascending=ascending, na_position=na_position, kind="stable")
    assert gdask.sortable_dtype(df.k.dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error", gdask.PandasFallbackWarning)  # gpusort did the sort
        assert_same(gdask.sort_partition(df, "k", ascending, na_position), want)


def test_argsort_column_ties_zeros_and_nans():
    v = np.array([0.0, np.nan, -0.0, 1.0, -0.0, np.nan, 0.0], dtype=np.float64)
    # -0.0 == +0.0: the four zeros are ties and keep their order in both directions.
    np.testing.assert_array_equal(gdask.argsort_column(v), [0, 2, 4, 6, 3, 1, 5])
    np.testing.assert_array_equal(gdask.argsort_column(v, False), [3, 0, 2, 4, 6, 1, 5])
    np.testing.assert_array_equal(gdask.argsort_column(v, True, "first"), [1, 5, 0, 2, 4, 6, 3])
    np.testing.assert_array_equal(np.signbit(v), [0, 0, 1, 0, 1, 0, 0])  # left as it was
    i = np.array([-(2**63), 2**63 - 1, -1, 0, -1], dtype=np.int64)
    np.testing.assert_array_equal(gdask.argsort_column(i), [0, 2, 4, 3, 1])
    with pytest.raises(TypeError):
        gdask.argsort_column(np.array(["b", "a"], dtype=object))
    with pytest.raises(ValueError):
        gdask.argsort_column(v, na_position="middle")


def test_sortable_dtype():
    for dt in DTYPES + ["bool", "float16", "timedelta64[s]", "=u4", "<i8"]:
        assert gdask.sortable_dtype(dt), dt
    for k in KEY_TYPES:  # sorted as they are, without a copy
        if k.numpy_dtype == "bfloat16":
            continue  # no NumPy dtype without ml_dtypes (test_half.py)
        keys = np.zeros(3, dtype=k.numpy_dtype)
        assert host_keys(keys)[0] is keys, k
    for dt in [object, "complex64", ">u4", pd.Int64Dtype(), pd.CategoricalDtype(["a"]), pd.StringDtype()]:
        assert not gdask.sortable_dtype(dt), dt


@pytest.mark.parametrize("ascending", [True, False, [True, False], [False, True]], ids=str)
def test_sort_partition_several_columns(ascending):
    rng = np.random.default_rng(3)
    df = pd.DataFrame(
        {"a": rng.integers(0, 4, N).astype(np.int32), "b": rng.choice([np.nan, -0.0, 0.0, 1.0, 2.0], N), "v": np.arange(N)}
    )
    for na_position in ("last", "first"):
        want = df.sort_values(["a", "b"], ascending=ascending, na_position=na_position, kind="stable")
        assert_same(gdask.sort_partition(df, ["a", "b"], ascending, na_position), want)
        want = df.sort_values(["b", "a"], ascending=ascending, na_position=na_position, kind="stable")
        assert_same(gdask.sort_partition(df, ["b", "a"], ascending, na_position, ignore_index=True), want.reset_index(drop=True))


def test_sort_partition_falls_back_to_pandas_with_a_warning():
    df = pd.DataFrame({"s": ["b", "a", "c", "a", "b"], "v": np.arange(5)})
    with pytest.warns(gdask.PandasFallbackWarning, match="pandas"):
        got = gdask.sort_partition(df, "s", ascending=False)
    assert_same(got, df.sort_values("s", ascending=False, kind="stable"))


# --- the cluster ------------------------------------------------------------------------------------


@pytest.mark.parametrize("shuffle", ["p2p", "tasks"])
@pytest.mark.parametrize("ascending", [True, False], ids=["asc", "desc"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_distributed_sort_is_pandas_stable_sort(client, dtype, ascending, shuffle):
    df = frame(dtype, seed=DTYPES.index(dtype), inf=False)
    ddf = dd.from_pandas(df, npartitions=NPARTS, sort=False)
    out = gdask.sort_values(ddf, "k", ascending=ascending, shuffle_method=shuffle)
    assert out.npartitions > 1
    assert_same(gather(out), df.sort_values("k", ascending=ascending, kind="stable"))


@pytest.mark.parametrize("by", [["k"], ["k", "a"], ["a", "k"]], ids="-".join)
@pytest.mark.parametrize("ascending", [True, False], ids=["asc", "desc"])
@pytest.mark.parametrize("na_position", ["last", "first"])
def test_distributed_nan_placement(client, na_position, ascending, by):
    rng = np.random.default_rng(5)
    df = frame("float64", seed=5, inf=False).assign(a=rng.integers(0, 3, N).astype(np.uint32))
    ddf = dd.from_pandas(df, npartitions=NPARTS, sort=False)
    out = gdask.sort_values(ddf, by, ascending=ascending, na_position=na_position)
    got = gather(out)
    assert_same(got, df.sort_values(by, ascending=ascending, na_position=na_position, kind="stable"))
    if by == ["k"]:
        nan_at = np.flatnonzero(got.k.isna().to_numpy())
        assert nan_at.size and (nan_at[0] == 0 if na_position == "first" else nan_at[-1] == N - 1)


def test_distributed_empty_partitions_in_and_out(client):
    df = frame("uint32", seed=7)
    # Input partitions 1 and 3 empty; output: more partitions asked for than there are keys.
    pieces = [df.iloc[:2000], df.iloc[:0], df.iloc[2000:4000], df.iloc[:0], df.iloc[4000:]]
    ddf = dd.from_map(lambda p: p, pieces, meta=df.iloc[:0])
    few = ddf.assign(k=ddf.k % np.uint32(3))
    for src, want in ((ddf, df), (few, df.assign(k=df.k % np.uint32(3)))):
        out = gdask.sort_values(src, "k", npartitions=6)
        assert_same(gather(out), want.sort_values("k", kind="stable"))
    empty = dd.from_pandas(df.iloc[:0], npartitions=1)
    assert len(gather(gdask.sort_values(empty, "k"))) == 0


def test_distributed_ignore_index_and_compute(client):
    df = frame("int32", seed=8)
    ddf = dd.from_pandas(df, npartitions=NPARTS, sort=False)
    want = df.sort_values("k", kind="stable")
    got = gather(gdask.sort_values(ddf, "k", ignore_index=True))
    np.testing.assert_array_equal(got.v.to_numpy(), want.v.to_numpy())
    assert all(p.index.equals(pd.RangeIndex(len(p))) for p in dask.compute(*gdask.sort_values(ddf, "k", ignore_index=True).to_delayed()))
    assert_same(gdask.sort_values(ddf, "k").compute(), want)  # Dask may sort one concatenated partition here


def test_distributed_fallback_warns_on_the_client(client):
    rng = np.random.default_rng(9)
    df = pd.DataFrame({"s": rng.choice(["x", "y", "zz", "a"], N), "v": np.arange(N)})
    ddf = dd.from_pandas(df, npartitions=NPARTS, sort=False)
    with pytest.warns(gdask.PandasFallbackWarning, match="'s'"):
        out = gdask.sort_values(ddf, "s", ascending=False)
    want = df.sort_values("s", ascending=False, kind="stable")
    pd.testing.assert_frame_equal(gather(out), want, check_dtype=False)  # Dask's strings are Arrow's


def test_workers_sort_with_their_default_sorter(client):
    # The partitions' sorter is each worker's default one: its GPU when it has one, else its CPU.
    devices = set(client.run(lambda: gpusort.default_sorter().device).values())
    assert devices == ({0} if has_cuda() else {None})


@pytest.mark.skipif(not has_cuda(), reason="no CUDA device")
def test_distributed_sort_on_the_workers_gpus(client):
    df = frame("float32", n=200_003, seed=10, inf=False)
    ddf = dd.from_pandas(df, npartitions=NPARTS, sort=False)
    for ascending in (True, False):
        out = gdask.sort_values(ddf, "k", ascending=ascending, backend="cuda")
        assert_same(gather(out), df.sort_values("k", ascending=ascending, kind="stable"))


# --- workers and GPUs ---------------------------------------------------------------------------


def test_cuda_visible_devices_rotates_as_dask_cuda():
    devs = ["0", "1", "2", "3"]
    assert [gdask.cuda_visible_devices(i, devs) for i in range(4)] == ["0,1,2,3", "1,2,3,0", "2,3,0,1", "3,0,1,2"]
    assert gdask.cuda_visible_devices(5, [4, 6]) == "6,4"
    with pytest.raises(ValueError):
        gdask.cuda_visible_devices(0, [])


def test_gpu_devices_from_the_environment(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2, 5")
    assert gdask.gpu_devices() == ["2", "5"]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert gdask.gpu_devices() == []


def test_local_cluster_gives_each_worker_its_gpu():
    # Device numbers only: the workers start with them in CUDA_VISIBLE_DEVICES; no GPU is used.
    # Dask's NVML monitor would open the first one listed, which on a one-GPU host does not exist
    # for the second worker ("1,0"): it is turned off for this made-up pair.
    import dask

    with dask.config.set({"distributed.diagnostics.nvml": False}):
        with gdask.local_cluster(devices=["0", "1"], memory_limit="512MiB") as cluster, distributed.Client(cluster) as c:
            c.wait_for_workers(2)
            env = c.run(lambda: os.environ.get("CUDA_VISIBLE_DEVICES"))
    assert sorted(env.values()) == ["0,1", "1,0"]
