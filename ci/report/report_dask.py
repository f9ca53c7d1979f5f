"""The tables of docs/BENCHMARKS-dask.md from benches/python/dask_bench.py's JSON (`--out`: rows,
partitions, workers, runs: name, total_s, run_s, partition_sorts_s), as dask_bench.py prints them.
A run may carry `rest_s`, the rest from the unrounded times, where its times were transcribed from
a page at their printed precision."""


def table(bench):
    lines = ["| partition sort | total (s) | sort run (s) | partition sorts (s) | rest: shuffle etc. (s) | Mrows/s |",
             "|---|---:|---:|---:|---:|---:|"]
    for r in bench["runs"]:
        total, run, part = r["total_s"], r["run_s"], r["partition_sorts_s"]
        rest = r.get("rest_s", run - part)
        lines.append(f"| {r['name']} | {total:.2f} | {run:.2f} | {part:.2f} | {rest:.2f} | "
                     f"{bench['rows'] / total / 1e6:.1f} |")
    return lines


def runs_from_table(lines, rows):
    """dask_bench.py's runs from the table's lines (header and alignment row first)."""
    runs = []
    for line in lines[2:]:
        name, total, run, part, rest, _ = (c.strip() for c in line.strip()[1:-1].split("|"))
        r = {"name": name, "total_s": float(total), "run_s": float(run), "partition_sorts_s": float(part)}
        if f"{float(run) - float(part):.2f}" != rest:
            r["rest_s"] = float(rest)
        runs.append(r)
    assert table({"rows": rows, "runs": runs}) == lines, lines
    return runs
