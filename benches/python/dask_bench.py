"""Dask's distributed sort_values with gpusort doing the partition sorts, against Dask's default
(pandas' ``sort_values``), on one cluster in one run.

The data set (a uint32 key and a uint64 payload, the row's number) is generated on the workers
and persisted there, so the sorts start from worker memory. Each sort is persisted and waited
for; the rows stay on the workers. Timed runs, in this order:

- ``quantiles``: Dask's sample of the key column's quantiles (the output's ``divisions``; Dask
  keeps them for the frame, so the runs below share them);
- ``no-op``: ``sort_function`` returns the partition as it is, so the run is Dask's shuffle;
- ``pandas``: what Dask's default partition sort does (``M.sort_values``, timed);
- ``gpusort``: :func:`gpusort.dask.sort_partition`;
- with ``--repeat N``, pandas and gpusort N times each, alternating (the best run is reported).

A sort's ``total`` is its run plus ``quantiles``. ``partition sorts`` is the time spent
inside the sort functions, summed over partitions and divided by the worker threads (the wall
time it takes when they all sort at once). Both results are checked: sorted in each partition
and across partitions, the same keys in each position, and the same (key, payload) rows in each
partition (Dask's default sort is not stable, so the payloads of equal keys may differ in order).

    python benches/python/dask_bench.py --rows 50_000_000 --workers 4
    python benches/python/dask_bench.py --scheduler tcp://host:8786 --rows 1_000_000_000
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, Callable, Dict, List, Optional

import numpy as np
import pandas as pd

import dask
import dask.dataframe as dd
import distributed
from distributed import Client, wait

import gpusort
import gpusort.dask as gdask


def make_partition(i: int, rows: int, per_part: int, seed: int) -> pd.DataFrame:
    """Partition ``i``: random uint32 keys and the rows' numbers as a uint64 payload."""
    start = i * per_part
    n = max(0, min(per_part, rows - start))
    rng = np.random.default_rng([seed, i])
    return pd.DataFrame(
        {"key": rng.integers(0, 2**32, n, dtype=np.uint32), "payload": np.arange(start, start + n, dtype=np.uint64)}
    )


def dataset(rows: int, per_part: int, seed: int = 0) -> Any:
    """The data set as a lazy Dask DataFrame: each partition is made on its worker."""
    nparts = max(1, -(-rows // per_part))
    meta = make_partition(0, 0, per_part, seed)
    return dd.from_map(make_partition, range(nparts), rows=rows, per_part=per_part, seed=seed, meta=meta)


def _timed(sort: Callable[..., Any]) -> Callable[..., Any]:
    """``sort``, recording its seconds on the worker that runs it."""

    def run(df: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        out = sort(df, **kwargs)
        w = distributed.get_worker()
        w.__dict__.setdefault("_bench_sort_s", []).append(time.perf_counter() - t0)
        return out

    return run


def _noop(df: Any, **kwargs: Any) -> Any:
    return df


def _pandas(df: Any, **kwargs: Any) -> Any:
    return df.sort_values(**kwargs)  # what Dask's default sort_function (M.sort_values) does


def _sort_seconds(client: Client) -> List[float]:
    return [t for ts in client.run(lambda dask_worker: dask_worker.__dict__.pop("_bench_sort_s", [])).values() for t in ts]


_MIX = np.uint64(0x9E3779B97F4A7C15)


def _stats(df: pd.DataFrame) -> pd.DataFrame:
    """One row per partition: its length, first and last key, whether it is sorted, a checksum of
    its keys by position, and a checksum of its (key, payload) rows in any order."""
    k = df["key"].to_numpy()
    p = df["payload"].to_numpy()
    n = len(k)
    with np.errstate(over="ignore"):
        k64 = k.astype(np.uint64)
        pos = (k64 * (np.arange(n, dtype=np.uint64) + np.uint64(1))).sum(dtype=np.uint64)
        rows = (((k64 * _MIX) ^ p) * _MIX).sum(dtype=np.uint64)
    return pd.DataFrame(
        {
            "n": [n],
            "first": [int(k[0]) if n else -1],
            "last": [int(k[-1]) if n else -1],
            "sorted": [bool(np.all(k[1:] >= k[:-1]))],
            "pos": [pos],
            "rows": [rows],
        }
    )


def check(out: Any, rows: int, input_rows_sum: int) -> pd.DataFrame:
    """The per-partition stats of a sorted frame, after checking it is sorted, across partitions
    too, and holds every row once (count and payload sum)."""
    meta = pd.DataFrame({"n": [0], "first": [0], "last": [0], "sorted": [True], "pos": [np.uint64(0)], "rows": [np.uint64(0)]})
    st = out.map_partitions(_stats, meta=meta).compute()
    assert st["sorted"].all(), "a partition is not sorted"
    full = st[st["n"] > 0]
    assert (full["first"].to_numpy()[1:] >= full["last"].to_numpy()[:-1]).all(), "partitions overlap"
    assert int(st["n"].sum()) == rows, "rows lost or duplicated"
    assert int(st["rows"].to_numpy(np.uint64).sum(dtype=np.uint64)) == input_rows_sum, "rows changed"
    return st.reset_index(drop=True)


def run_sort(client: Client, ddf: Any, name: str, sort_function: Optional[Callable[..., Any]], **kwargs: Any) -> Dict[str, Any]:
    _sort_seconds(client)
    t0 = time.perf_counter()
    out = ddf.sort_values("key", sort_function=sort_function, **kwargs).persist()
    wait(out)
    wall = time.perf_counter() - t0
    sort_s = _sort_seconds(client)
    return {"name": name, "wall_s": wall, "sort_sum_s": float(sum(sort_s)), "partitions": len(sort_s), "out": out}


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=lambda s: int(float(s.replace("_", ""))), default=50_000_000)
    ap.add_argument("--rows-per-partition", type=lambda s: int(float(s.replace("_", ""))), default=4_000_000)
    ap.add_argument("--workers", type=int, default=4, help="worker processes of the LocalCluster")
    ap.add_argument("--threads-per-worker", type=int, default=1)
    ap.add_argument("--memory-limit", default="auto", help="per worker (LocalCluster)")
    ap.add_argument("--gpus", default=None, help="comma-separated devices: workers rotate CUDA_VISIBLE_DEVICES (default: "
                    "gpusort.dask.gpu_devices(); '' for none); with fewer GPUs than workers, workers share them")
    ap.add_argument("--scheduler", default=None, help="a running cluster's scheduler address instead of a LocalCluster")
    ap.add_argument("--shuffle", default="p2p", choices=["p2p", "tasks"])
    ap.add_argument("--p2p-storage", default="disk", choices=["disk", "memory"])
    ap.add_argument("--backend", default=None, help="gpusort backend on the workers (default: their default sorter)")
    ap.add_argument("--skip-pandas", action="store_true")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each sort, alternating (the best is reported)")
    ap.add_argument("--out", default=None, help="JSON results")
    args = ap.parse_args(argv)

    dask.config.set({"distributed.p2p.storage.disk": args.p2p_storage == "disk", "dataframe.shuffle.method": args.shuffle})
    cluster = None
    t0 = time.perf_counter()
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        devices = gdask.gpu_devices() if args.gpus is None else [d for d in args.gpus.split(",") if d]
        cluster = gdask.local_cluster(
            args.workers,
            devices=devices,
            threads_per_worker=args.threads_per_worker,
            memory_limit=args.memory_limit,
        )
        client = Client(cluster)
        client.wait_for_workers(args.workers)
    threads = sum(client.nthreads().values())
    sorters = client.run(lambda: gpusort.default_sorter().describe())
    start_s = time.perf_counter() - t0
    print(f"# {len(sorters)} workers, {threads} threads; worker 0's sorter: {next(iter(sorters.values()))}", file=sys.stderr)

    t0 = time.perf_counter()
    ddf = dataset(args.rows, args.rows_per_partition).persist()
    wait(ddf)
    gen_s = time.perf_counter() - t0
    in_st = ddf.map_partitions(_stats, meta=pd.DataFrame({"n": [0], "first": [0], "last": [0], "sorted": [True],
                                                          "pos": [np.uint64(0)], "rows": [np.uint64(0)]})).compute()
    input_rows_sum = int(in_st["rows"].to_numpy(np.uint64).sum(dtype=np.uint64))
    print(f"# {args.rows:,} rows in {ddf.npartitions} partitions, generated in {gen_s:.1f} s", file=sys.stderr)

    fkw = {"backend": args.backend} if args.backend else None
    t0 = time.perf_counter()
    ddf.sort_values("key", sort_function=_noop).divisions  # computed once, kept by Dask for the frame
    quantiles = time.perf_counter() - t0
    print(f"# quantiles: {quantiles:.2f} s", file=sys.stderr)
    plan = [("no-op (shuffle)", _timed(_noop), None)]
    for _ in range(args.repeat):
        if not args.skip_pandas:
            plan.append(("pandas", _timed(_pandas), None))
        plan.append(("gpusort", _timed(gdask.sort_partition), fkw))
    runs: List[Dict[str, Any]] = []
    for name, fn, kw in plan:
        r = run_sort(client, ddf, name, fn, sort_function_kwargs=kw)
        if not name.startswith("no-op"):
            r["stats"] = check(r["out"], args.rows, input_rows_sum)
        del r["out"]
        runs.append(r)
        print(f"# {name}: {r['wall_s']:.2f} s, partition sorts {r['sort_sum_s']:.2f} s summed", file=sys.stderr)

    shuffle = runs[0]["wall_s"]
    sorts = []
    for name in ("pandas", "gpusort"):
        mine = [r for r in runs if r["name"] == name]
        if mine:
            sorts.append(min(mine, key=lambda r: r["wall_s"]))
    if len(sorts) == 2:
        a, b = sorts[0]["stats"], sorts[1]["stats"]
        same = a[["n", "first", "last", "pos", "rows"]].equals(b[["n", "first", "last", "pos", "rows"]])
        assert same, "pandas and gpusort results differ"
    print(f"\n{args.rows:,} rows (uint32 key + uint64 payload), {ddf.npartitions} partitions, {len(sorters)} workers x "
          f"{args.threads_per_worker} threads, shuffle {args.shuffle} ({args.p2p_storage}), best of {args.repeat}; "
          f"quantiles {quantiles:.2f} s, shuffle (no-op sort) {shuffle:.2f} s\n")
    print("| partition sort | total (s) | sort run (s) | partition sorts (s) | rest: shuffle etc. (s) | Mrows/s |")
    print("|---|---:|---:|---:|---:|---:|")
    result_rows = []
    for r in sorts:
        part = r["sort_sum_s"] / threads
        total = r["wall_s"] + quantiles
        print(f"| {r['name']} | {total:.2f} | {r['wall_s']:.2f} | {part:.2f} | {r['wall_s'] - part:.2f} | {args.rows / total / 1e6:.1f} |")
        result_rows.append({"name": r["name"], "total_s": total, "run_s": r["wall_s"], "partition_sorts_s": part,
                            "sort_sum_s": r["sort_sum_s"], "partitions": r["partitions"]})
    if len(sorts) == 2:
        print(f"\npandas / gpusort, total: {result_rows[0]['total_s'] / result_rows[1]['total_s']:.2f}x; "
              f"partition sorts: {result_rows[0]['partition_sorts_s'] / max(result_rows[1]['partition_sorts_s'], 1e-9):.2f}x; "
              "results: same keys in every position, same rows in every partition")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"rows": args.rows, "partitions": ddf.npartitions, "workers": len(sorters), "threads": threads,
                       "sorters": sorted(set(sorters.values())), "shuffle": args.shuffle, "p2p_storage": args.p2p_storage,
                       "start_s": start_s, "generate_s": gen_s, "quantiles_s": quantiles, "shuffle_s": shuffle,
                       "runs": result_rows, "all_runs": [{k: v for k, v in r.items() if k != "stats"} for r in runs], "gpusort": gpusort.__version__, "dask": dask.__version__,
                       "pandas": pd.__version__, "cpu_count": os.cpu_count()}, f, indent=1)
    client.close()
    if cluster is not None:
        cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
