"""The table of docs/BENCHMARKS-python.md from benches/python/bench.py's JSON (`--out`: describe,
version, rows), the same table bench.py prints. A row may carry `speedup`, the ratio of the
unrounded times, where its times were transcribed from a page at their printed precision."""


def fmt(x, digits):
    return "-" if x is None else f"{x:.{digits}f}"


def table(bench):
    """The table's lines: one per row of bench.py's JSON, in its order."""
    lines = ["| where | what | n | gpusort ms | other ms | speed-up | call us | python us |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in bench["rows"]:
        if r["where"] == "host":
            g, other = r["gpusort_s"] * 1e3, r.get("other", "numpy")
            o = None if r.get("numpy_s") is None else r["numpy_s"] * 1e3
        else:
            g, o, other = r["gpusort_ms"], r.get("lib_ms"), r["where"]
        if o is None:
            lines.append(f"| {r['where']} | {r['what']} | {r['n']:,} | {g:.3f} | - | - | - | - |")
            continue
        speedup = r.get("speedup", o / g)
        lines.append(f"| {r['where']} | {r['what']} (vs {other}) | {r['n']:,} | {g:.3f} | {o:.3f} | {speedup:.2f}x "
                     f"| {fmt(r.get('call_us'), 1)} | {fmt(r.get('python_us'), 1)} |")
    return lines


def rows_from_table(lines):
    """bench.py's rows from the table's lines (header and alignment row first), for a page whose
    JSON was not kept: times at their printed precision, each printed speed-up kept with its row."""
    rows = []
    for line in lines[2:]:
        where, what, n, g, o, speedup, call, py = (c.strip() for c in line.strip()[1:-1].split("|"))
        other = what.rsplit(" (vs ", 1)[1][:-1] if " (vs " in what else None
        r = {"where": where, "what": what.rsplit(" (vs ", 1)[0], "n": int(n.replace(",", ""))}
        o = None if o == "-" else float(o)
        if where == "host":
            r.update(gpusort_s=float(g) / 1e3, numpy_s=None if o is None else o / 1e3)
            if other not in (None, "numpy"):
                r["other"] = other
        else:
            r.update(gpusort_ms=float(g), lib_ms=o)
        if call != "-":
            r.update(call_us=float(call), python_us=float(py))
        if o is not None and f"{(o / float(g)):.2f}x" != speedup:
            r["speedup"] = float(speedup[:-1])
        rows.append(r)
    return rows
