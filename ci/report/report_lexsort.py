"""The lexsort section of BENCHMARKS.md and docs/BENCHMARKS-lexsort.md: rows by
(u32, u32) and by (f32, i64) (two and three 32-bit words on the GPU), host to host and
device-resident. Rust rows from benches/sort/lexsort.rs (groups lexsort-host, lexsort-device)
beside the argsort of one u64 column of the same run; Python rows from benches/python/bench.py's
JSON beside what its run measured with them: np.lexsort, pandas' sort_values, chained stable
torch.argsort and cupy.lexsort. A part whose figures are missing says so instead of a table."""

from report_fmt import fmt_ms, num, ratio, size_label, table
from report_host import bandwidth_text
from report_machine import page_lead, run_name

# (the Rust bench's name, the Python bench's, the label), the primary column first in each.
SHAPES = [
    ("u32-u32", "u32,u32", "(u32, u32)"),
    ("f32-i64", "f32,i64", "(f32, i64)"),
]
PANDAS_WHAT = "pandas sort_values 4 cols by 2"
ONE_THREAD_WHAT = "lexsort u32,f64 one thread"


def bold(v):
    return f"**{fmt_ms(v)}**" if v is not None else ""


def sizes(data, group):
    return sorted({k[3] for k in data.bench if k[0] == group})


def rust_host_table(data):
    rows, cpu_rows = [], []
    for n in sizes(data, "lexsort-host"):
        anchor = data.ms("lexsort-host", "cuda-u64", "random", n)
        for shape, _, label in SHAPES:
            ours = data.ms("lexsort-host", f"cuda-{shape}", "random", n)
            if ours is None:
                continue
            floor = (data.bench.get(("lexsort-host", f"cuda-{shape}", "random", n)) or {}).get("floor_ms")
            # (u32, u32) is held to the one-column sort of as many 64-bit keys.
            paired = shape == "u32-u32"
            rows.append([size_label(n), label, bold(ours), fmt_ms(floor), ratio(ours, floor),
                         fmt_ms(anchor) if paired else "", ratio(ours, anchor) if paired else ""])
        cpu = data.ms("lexsort-host", "cpu-u32-f64", "random", n)
        if cpu is not None:
            cpu_rows.append([size_label(n), "(u32, f64), `Sorter::cpu()`", fmt_ms(cpu), "", "", "", ""])
    rows += cpu_rows
    header = ["n", "columns", "**gpusort `lexsort_into`**", "floor", "gpusort / floor", "argsort of one u64 column",
              "lexsort / argsort"]
    return table(header, rows, ["---:", "---"] + ["---:"] * 5) if rows else ""


def rust_device_table(data):
    rows = []
    for n in sizes(data, "lexsort-device"):
        anchor = data.ms("lexsort-device", "argsort-u64", "random", n)
        for shape, _, label in SHAPES:
            ours = data.ms("lexsort-device", f"lexsort-{shape}", "random", n)
            if ours is None:
                continue
            paired = shape == "u32-u32"
            rows.append([size_label(n), label, bold(ours), fmt_ms(anchor) if paired else "",
                         ratio(ours, anchor) if paired else ""])
        one = data.ms("lexsort-device", "lexsort-u64", "random", n)
        if one is not None:
            rows.append([size_label(n), "(u64): one column, two 32-bit words", bold(one), fmt_ms(anchor),
                         ratio(one, anchor)])
    header = ["n", "columns", "**gpusort `lexsort_device`**", "`argsort_device` of one u64 column", "lexsort / argsort"]
    return table(header, rows, ["---:", "---"] + ["---:"] * 3) if rows else ""


def python_rows(data, where, what):
    """The Python bench's rows at `where` (host, torch, cupy) whose `what` starts with `what`."""
    rows = (data.python_bench or {}).get("rows", [])
    return [r for r in rows if r.get("where") == where and str(r.get("what", "")).startswith(what)]


def ms_of(r, key):
    """A Python row's figure in ms: seconds for host rows (`*_s`), ms for device rows."""
    v = r.get(key)
    if not num(v):
        return None
    return v * 1e3 if key.endswith("_s") else v


def python_host_table(data):
    rows = []
    for _, shape, label in SHAPES:
        for r in sorted(python_rows(data, "host", f"lexsort {shape}"), key=lambda r: r["n"]):
            ours, npl = ms_of(r, "gpusort_s"), ms_of(r, "numpy_s")
            rows.append([size_label(r["n"]), label, bold(ours), fmt_ms(npl), ratio(npl, ours)])
    for r in python_rows(data, "host", ONE_THREAD_WHAT):
        ours, npl = ms_of(r, "gpusort_s"), ms_of(r, "numpy_s")
        rows.append([size_label(r["n"]), "(u32, f64), both on one thread (`Sorter(\"cpu\")`, `RAYON_NUM_THREADS=1`)",
                     bold(ours), fmt_ms(npl), ratio(npl, ours)])
    header = ["n", "keys", "**`gpusort.lexsort`**", "`np.lexsort`", "np / gpusort"]
    return table(header, rows, ["---:", "---"] + ["---:"] * 3) if rows else ""


def pandas_table(data):
    rows = []
    for r in sorted(python_rows(data, "host", PANDAS_WHAT), key=lambda r: r["n"]):
        ours, theirs = ms_of(r, "gpusort_s"), ms_of(r, "numpy_s")
        rows.append([size_label(r["n"]), "4 columns by 2 (uint32 of 1000 values, float64 with 1% NaN)", bold(ours),
                     fmt_ms(theirs), ratio(theirs, ours)])
    header = ["rows", "frame", "**`gpusort.pandas.sort_values`**", "pandas `sort_values(kind=\"stable\")`",
              "pandas / gpusort"]
    return table(header, rows, ["---:", "---"] + ["---:"] * 3) if rows else ""


def python_device_table(data):
    rows = []
    for _, shape, label in SHAPES:
        by_lib = {lib: {r["n"]: r for r in python_rows(data, lib, f"lexsort {shape}")} for lib in ("torch", "cupy")}
        for n in sorted(set(by_lib["torch"]) | set(by_lib["cupy"])):
            row = [size_label(n), label]
            for lib in ("torch", "cupy"):
                r = by_lib[lib].get(n, {})
                ours, theirs = ms_of(r, "gpusort_ms"), ms_of(r, "lib_ms")
                row += [bold(ours), fmt_ms(theirs), ratio(theirs, ours)]
            rows.append(row)
    header = ["n", "keys", "**gpusort (torch tensors)**", "chained `torch.argsort`", "torch / gpusort",
              "**gpusort (CuPy arrays)**", "`cupy.lexsort`", "cupy / gpusort"]
    return table(header, rows, ["---:", "---"] + ["---:"] * 6) if rows else ""


def not_measured(data):
    """One line per part of the section that has no figures, saying why."""
    out = []
    timeout = data.notes.get("bench")
    for group, what in (("lexsort-host", "`lexsort_into` host to host"), ("lexsort-device", "`lexsort_device`")):
        if not sizes(data, group):
            out.append(f"gpusort {what} (`{group}`): not measured ({timeout or f'no {group} rows in this run'}).")
    if sizes(data, "lexsort-host") and not any(k[:2] == ("lexsort-host", "cuda-u64") for k in data.bench):
        out.append("the argsort of one u64 column host to host: not measured.")
    if sizes(data, "lexsort-device") and not any(k[:2] == ("lexsort-device", "argsort-u64") for k in data.bench):
        out.append("`argsort_device` of one u64 column: not measured.")
    if data.python_bench is None:
        out.append("the Python rows (`gpusort.lexsort`, `np.lexsort`, pandas, torch, CuPy): not measured (no "
                   "`benches/python/bench.py` figures given: `ci/report/report.py ... --python-bench python-bench.json`).")
        return out
    if not python_rows(data, "host", "lexsort "):
        out.append("`gpusort.lexsort` on the host: not measured (the Python bench's `lexsort` group did not run).")
    elif not any(num(r.get("numpy_s")) for r in python_rows(data, "host", "lexsort ")):
        out.append("`np.lexsort`: not measured.")
    if not python_rows(data, "host", ONE_THREAD_WHAT):
        out.append("the one-thread CPU lexsort beside `np.lexsort`: not measured (the Python bench's "
                   "`lexsort-one-thread` group did not run).")
    if not python_rows(data, "host", PANDAS_WHAT):
        out.append("pandas `sort_values`: not measured (no pandas, `--pandas-rows 0`, or its group did not run).")
    for lib, name, anchor in (("torch", "torch", "chained `torch.argsort`"), ("cupy", "CuPy", "`cupy.lexsort`")):
        if not python_rows(data, lib, "lexsort "):
            out.append(f"{anchor}: not measured (no {name} with a GPU, or the `device-lexsort` group did not run).")
    return out


def failed(data):
    return [f"`{'/'.join(str(x) for x in k)}` failed: {r['error']}" for k, r in sorted(data.bench.items())
            if k[0] in ("lexsort-host", "lexsort-device") and r.get("error")]


def body(data):
    """The section's paragraphs and tables, without its heading."""
    out = []
    host, device = rust_host_table(data), rust_device_table(data)
    if host:
        out.append(
            "`Sorter::cuda()?.lexsort_into(&[Column::new(&a), Column::new(&b)], &mut out)` on pageable host memory, "
            "u64 indices, wall time, median: the columns go up at their own widths, are packed into 32-bit radix words "
            "and sorted on the GPU, and only the indices come down. The (u32, u32) rows stand beside the argsort of "
            "one u64 column of the same run (as many 64-bit keys); the floor is the columns up, then "
            f"the indices down, at this run's pinned rates: {bandwidth_text(data)}.\n"
        )
        out.append(host + "\n")
    if device:
        out.append(
            "Columns already on the GPU: `Sorter::lexsort_device` into u64 indices, beside `argsort_device` of one "
            "u64 column in the same run; CUDA events around the call, median of 15 after 3 warm-ups.\n"
        )
        out.append(device + "\n")
    py_host, pandas, py_device = python_host_table(data), pandas_table(data), python_device_table(data)
    if py_host or pandas or py_device:
        pb = data.python_bench
        out.append(
            f"From Python (`benches/python/bench.py`, gpusort {pb.get('version', '?')}, default sorter: "
            f"{pb.get('describe', '?')}): `gpusort.lexsort` takes NumPy's convention (the last key primary; the "
            "rows here name the primary first). Host rows are wall time, median after a warm-up; `np.lexsort` runs "
            "at fewer rows (it takes about a minute at 64M) and pandas once.\n"
        )
    if py_host:
        out.append(py_host + "\n")
    if pandas:
        out.append(pandas + "\n")
    if py_device:
        out.append(
            "On the GPU, each library's own arrays, CUDA events on the current stream, median: chained stable "
            "`torch.argsort`s (the secondary key, then the primary gathered through it) and `cupy.lexsort` of the "
            "stacked keys (as float64 for (f32, i64)).\n"
        )
        out.append(py_device + "\n")
    gaps = not_measured(data) + failed(data)
    if gaps:
        out.append("\n".join(f"- {g}" for g in gaps) + "\n")
    return out


def sections(data):
    """The lexsort section of BENCHMARKS.md as markdown chunks."""
    return ["## Lexsort\n"] + body(data)


def document(data):
    """docs/BENCHMARKS-lexsort.md."""
    sources = []
    if data.bench or data.machine:
        sources.append(f"the lexsort rows of {run_name(data)} (`benches/sort/lexsort.rs`)")
    if data.python_bench is not None:
        sources.append("the lexsort, pandas, torch and CuPy rows of `benches/python/bench.py`")
    lead = page_lead(data, sources, "`ci/report/report.py lexsort` (`ci/report/report_lexsort.py`)")
    head = (
        f"{lead}. The full report (`ci/report.sh`) "
        "renders the same section into docs/BENCHMARKS.md; Python's other figures are in "
        "docs/BENCHMARKS-python.md. Times are milliseconds; each ratio's header says which time is over which.\n"
    )
    return "\n".join(["# Lexsort\n", head] + body(data))
