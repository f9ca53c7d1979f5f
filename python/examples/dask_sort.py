"""Sort a data set larger than one worker's memory with Dask, gpusort sorting on every worker.

The rows (a uint32 key, a float32 value, and the row's number as a uint64 payload) are made by
the workers, a chunk per partition, so the data set never lives in one process; on a local
cluster each worker's memory limit is set below the data set's size (Dask spills to disk what
does not fit). ``gpusort.dask.sort_values`` is Dask's distributed sort with gpusort doing each
output partition's sort, on the worker's GPU when it has one. The result is checked partition
by partition (sorted within each, and across their boundaries; every row once) without
gathering it.

    python python/examples/dask_sort.py --rows 20_000_000 --workers 4
    python python/examples/dask_sort.py --rows 1e9 --scheduler tcp://scheduler-host:8786

With ``--scheduler`` the same code runs on a real cluster: start ``dask scheduler`` and a
``dask worker`` per GPU on each host (with ``CUDA_VISIBLE_DEVICES`` set per worker as
``gpusort.dask.cuda_visible_devices`` makes it, or with Dask-CUDA's ``dask cuda worker``), with
gpusort installed on every host.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pandas as pd

import dask.dataframe as dd
from distributed import Client, wait

import gpusort.dask as gdask


def chunk(i: int, rows: int, per_part: int) -> pd.DataFrame:
    """Rows ``i * per_part`` onwards: random keys (many ties), values, and the row numbers."""
    start = i * per_part
    n = max(0, min(per_part, rows - start))
    rng = np.random.default_rng(i)
    return pd.DataFrame(
        {
            "key": rng.integers(0, 1 << 24, n, dtype=np.uint32),
            "value": rng.standard_normal(n, dtype=np.float32),
            "row": np.arange(start, start + n, dtype=np.uint64),
        }
    )


def partition_summary(df: pd.DataFrame, descending: bool = False) -> pd.DataFrame:
    """Length, first and last key, sortedness, and the sum of row numbers (mod 2**64) of one
    partition."""
    k = df["key"].to_numpy()
    in_order = k[1:] <= k[:-1] if descending else k[1:] >= k[:-1]
    return pd.DataFrame(
        {
            "n": [len(k)],
            "first": [int(k[0]) if len(k) else -1],
            "last": [int(k[-1]) if len(k) else -1],
            "sorted": [bool(in_order.all())],
            "row_sum": [int(df["row"].to_numpy().sum(dtype=np.uint64))],
        }
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=lambda s: int(float(s.replace("_", ""))), default=50_000_000)
    ap.add_argument("--rows-per-partition", type=lambda s: int(float(s.replace("_", ""))), default=1_000_000)
    ap.add_argument("--workers", type=int, default=None, help="local workers (default: one per GPU, else 4)")
    ap.add_argument("--memory-limit", default=None, help="per local worker (default: half the data set, >= 768 MiB: a worker process alone takes about 250 MiB)")
    ap.add_argument("--scheduler", default=None, help="address of a running cluster's scheduler")
    ap.add_argument("--descending", action="store_true")
    args = ap.parse_args()

    nbytes = args.rows * (4 + 4 + 8 + 8)  # three columns and the index the shuffle adds
    cluster = None
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        limit = args.memory_limit or max(nbytes // 2, 768 << 20)
        cluster = gdask.local_cluster(args.workers, memory_limit=limit)
        client = Client(cluster)
        print(f"local cluster: {len(cluster.workers)} workers, {limit} bytes each, data set {nbytes / 2**20:.0f} MiB")
    print("workers' sorters:", sorted(set(client.run(lambda: __import__("gpusort").default_sorter().describe()).values())))

    nparts = max(1, -(-args.rows // args.rows_per_partition))
    meta = chunk(0, 0, 1)
    ddf = dd.from_map(chunk, range(nparts), rows=args.rows, per_part=args.rows_per_partition, meta=meta)

    t0 = time.perf_counter()
    out = gdask.sort_values(ddf, "key", ascending=not args.descending).persist()
    wait(out)
    sort_s = time.perf_counter() - t0
    print(f"sorted {args.rows:,} rows into {out.npartitions} partitions in {sort_s:.2f} s (generation included)")

    meta_s = pd.DataFrame({"n": [0], "first": [0], "last": [0], "sorted": [True], "row_sum": [0]})
    s = out.map_partitions(partition_summary, descending=args.descending, meta=meta_s).compute()
    full = s[s["n"] > 0]
    first, last = full["first"].to_numpy(), full["last"].to_numpy()
    across = (first[1:] <= last[:-1]) if args.descending else (first[1:] >= last[:-1])
    row_sum = sum(int(x) for x in s["row_sum"]) % 2**64
    ok = bool(s["sorted"].all()) and bool(across.all())
    ok = ok and int(s["n"].sum()) == args.rows and row_sum == (args.rows * (args.rows - 1) // 2) % 2**64
    print(f"check: {'ok' if ok else 'FAILED'} (sorted in each partition and across {len(full)} non-empty partitions, every row once)")
    client.close()
    if cluster is not None:
        cluster.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
