#!/usr/bin/env python3
"""Writes gpusort's benchmark report from the measurements of one run (Python 3 standard library only).

    ci/report.py render DATA.jsonl --out DIR [--cpu]
        GPU report: DIR/BENCHMARKS.md, DIR/docs/bench.svg, DIR/docs/bench-headline.md
        (--flat: all three straight into DIR). --cpu: DIR/BENCHMARKS-cpu.md only.
    ci/report.py torch --random N,N,... --patterns N,N,...
        times torch.sort on the GPU on the bench's inputs and prints JSON lines (needs torch, numpy)

DATA.jsonl holds one JSON object per line, each with "src": "bench" (benches/sort/,
GPUSORT_BENCH_JSON), "cub" (ci/cub/cub_bench.cu --json), "torch" (this script) or "machine"
(ci/report.sh). Other lines are ignored. Quoted figures come from ci/report/reference.json.
ci/report.sh runs the whole thing; this script only reads and writes files.
"""

import argparse
import json
import math
import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the checkout for the modules below
import report_host  # noqa: E402
from report_fmt import fmt_ms, num, rate, ratio, size_label, table  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PATTERNS = ["random", "sorted", "reverse", "distinct16", "equal", "zipf"]
PATTERN_TITLES = {
    "random": "uniform random keys",
    "sorted": "sorted keys (0, 1, 2, ...)",
    "reverse": "reverse-sorted keys",
    "distinct16": "16 distinct keys",
    "equal": "all keys equal",
    "zipf": "Zipf-like keys (log-uniform ranks: rank r has probability about 1/(32 r))",
}
CPU_SORTS = [
    ("gpusort", "gpusort CPU backend (stable)"),
    ("std-stable", "std sort_by_key (stable, 1 thread)"),
    ("std-unstable", "std sort_unstable_by_key (1 thread)"),
    ("rayon-stable", "rayon par_sort_by_key (stable)"),
    ("rayon-unstable", "rayon par_sort_unstable_by_key"),
    ("voracious-mt", "voracious_mt_sort (unstable)"),
    ("rdst", "rdst radix_sort_unstable"),
]


# ------------------------------------------------------------------------------------------------
# Reading


class Data:
    """Every measurement of a run, indexed by what was measured."""

    def __init__(self, path):
        self.bench = {}  # (group, sort, pattern, n) -> record
        self.cub = {}  # (what, pattern, n) -> ms
        self.torch = {}  # (pattern, n) -> record
        self.machine = {}  # key -> text
        self.meta = {}  # bench/cub/torch "kind" lines: kind -> text
        self.notes = {}  # src -> why it was not measured
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                src = r.get("src")
                if src == "machine":
                    self.machine[r["key"]] = r["text"]
                elif r.get("kind") == "absent":
                    self.notes[src] = r["text"]
                elif "kind" in r:
                    self.meta[f"{src}-{r['kind']}"] = r["text"]
                elif src == "bench":
                    self.bench[(r["group"], r["sort"], r["pattern"], r["n"])] = r
                elif src == "cub":
                    self.cub[(r["what"], r["pattern"], r["n"])] = r["median_ms"]
                elif src == "torch":
                    self.torch[(r["pattern"], r["n"])] = r

    def ms(self, group, sort, pattern, n):
        """Median milliseconds, or None (not measured), or a string (the error)."""
        r = self.bench.get((group, sort, pattern, n))
        if r is None:
            return None
        if r.get("error"):
            return "failed"
        return r.get("median_ms")

    def sizes(self, pattern, groups=("cuda-device", "cuda-host")):
        ns = {k[3] for k in self.bench if k[2] == pattern and k[0] in groups}
        ns |= {k[2] for k in self.cub if k[1] == pattern}
        ns |= {k[1] for k in self.torch if k[0] == pattern}
        return sorted(ns)

    def errors(self):
        return [r for r in self.bench.values() if r.get("error")]

    def has_gpu(self):
        return any(k[0].startswith("cuda") or k[0] == "host-bw" for k in self.bench)


def load_reference():
    with open(os.path.join(HERE, "report", "reference.json"), encoding="utf-8") as f:
        ref = json.load(f)
    for key in ("seed_gtx680", "nvidia_sample"):
        for col in ("bitonic_ms", "odd_even_ms"):
            ref[key][col] = {int(n): v for n, v in ref[key][col].items()}
    return ref


# ------------------------------------------------------------------------------------------------
# Formatting


def cpu_label(data):
    m = data.machine
    cpu = m.get("cpu", "unknown CPU")
    if m.get("cores"):
        cpu += f", {m['cores']} hardware threads"
    return cpu


def machine_section(data, gpu):
    m = data.machine
    rows = []
    if gpu:
        rows.append(("GPU", m.get("gpu") or data.meta.get("bench-gpu", "unknown")))
        rows.append(("driver", m.get("driver", "unknown")))
        rows.append(("gpusort's view", data.meta.get("bench-gpu", "")))
        rows.append(("nvcc (CUB harness)", m.get("nvcc", "absent")))
        rows.append(("CUB", data.meta.get("cub-version", data.notes.get("cub", "not measured"))))
        rows.append(("torch", data.meta.get("torch-version", data.notes.get("torch", "not measured"))))
    rows.append(("CPU", cpu_label(data)))
    rows.append(("CPU backend", data.meta.get("bench-cpu", "")))
    rows.append(("OS", m.get("os", "")))
    rows.append(("gpusort", m.get("commit", "")))
    rows.append(("date (UTC)", m.get("date", "")))
    rows.append(("command", f"`{m.get('command', 'ci/report.sh')}`"))
    return table(["", ""], [r for r in rows if r[1]], ["---", "---"])


# ------------------------------------------------------------------------------------------------
# GPU report


def gpu_name(data):
    g = data.machine.get("gpu") or data.meta.get("bench-gpu", "this GPU")
    return g.split(",")[0].strip()


def random_tables(data, ref):
    seed, sample = ref["seed_gtx680"], ref["nvidia_sample"]
    dev = lambda sort, n: data.ms("cuda-device", sort, "random", n)
    cub = lambda what, n: data.cub.get((what, "random", n))
    torch = lambda n: (data.torch.get(("random", n)) or {}).get("pairs_ms")
    rows, ratios = [], []
    for n in data.sizes("random"):
        rows.append([
            size_label(n),
            fmt_ms(seed["bitonic_ms"].get(n)),
            fmt_ms(seed["odd_even_ms"].get(n)),
            fmt_ms(sample["bitonic_ms"].get(n)),
            fmt_ms(sample["odd_even_ms"].get(n)),
            fmt_ms(cub("pairs_dbuf", n)),
            fmt_ms(cub("keys_dbuf", n)),
            fmt_ms(torch(n)),
            f"**{fmt_ms(dev('radix', n))}**" if num(dev("radix", n)) else fmt_ms(dev("radix", n)),
            fmt_ms(dev("radix-keys", n)),
            fmt_ms(dev("bitonic", n)),
            fmt_ms(dev("odd-even", n)),
            fmt_ms(data.ms("cuda-host", "radix", "random", n)),
        ])
        ratios.append([
            size_label(n),
            rate(n, dev("radix", n)),
            ratio(cub("pairs_dbuf", n), dev("radix", n)),
            ratio(cub("keys_dbuf", n), dev("radix-keys", n)),
            ratio(torch(n), dev("radix", n)),
            ratio(sample["bitonic_ms"].get(n), dev("bitonic", n)),
            ratio(sample["odd_even_ms"].get(n), dev("odd-even", n)),
            ratio(seed["bitonic_ms"].get(n), dev("bitonic", n)),
            ratio(seed["odd_even_ms"].get(n), dev("odd-even", n)),
            rate(n, data.ms("cuda-host", "radix", "random", n)),
        ])
    times = table(
        ["n", "GTX 680 bitonic (seed)", "GTX 680 odd-even (seed)", "NVIDIA sample bitonic (H200)",
         "NVIDIA sample odd-even (H200)", "CUB SortPairs", "CUB SortKeys", "torch sort + gather",
         "**gpusort radix**", "gpusort radix, keys only", "gpusort bitonic", "gpusort odd-even",
         "gpusort radix, host to host"],
        rows,
    )
    speed = table(
        ["n", "radix pairs/s", "radix vs CUB SortPairs", "radix keys vs CUB SortKeys", "radix vs torch",
         "bitonic vs sample", "odd-even vs sample", "bitonic vs GTX 680", "odd-even vs GTX 680",
         "host to host pairs/s"],
        ratios,
    )
    return times, speed


def pattern_table(data, pattern):
    dev = lambda sort, n: data.ms("cuda-device", sort, pattern, n)
    cub = lambda what, n: data.cub.get((what, pattern, n))
    torch = lambda n: (data.torch.get((pattern, n)) or {}).get("pairs_ms")
    random = lambda sort, n: data.ms("cuda-device", sort, "random", n)
    rows = []
    for n in data.sizes(pattern):
        rows.append([
            size_label(n),
            fmt_ms(cub("pairs_dbuf", n)),
            fmt_ms(cub("keys_dbuf", n)),
            fmt_ms(torch(n)),
            f"**{fmt_ms(dev('radix', n))}**" if num(dev("radix", n)) else fmt_ms(dev("radix", n)),
            fmt_ms(dev("bitonic", n)),
            fmt_ms(dev("odd-even", n)),
            fmt_ms(data.ms("cuda-host", "radix", pattern, n)),
            rate(n, dev("radix", n)),
            ratio(cub("pairs_dbuf", n), dev("radix", n)),
            ratio(torch(n), dev("radix", n)),
            ratio(random("radix", n), dev("radix", n)),
        ])
    return table(
        ["n", "CUB SortPairs", "CUB SortKeys", "torch sort + gather", "**gpusort radix**", "gpusort bitonic",
         "gpusort odd-even", "gpusort radix, host to host", "radix pairs/s", "radix vs CUB SortPairs",
         "radix vs torch", "radix vs its random time"],
        rows,
    )


def host_table(data):
    rows = []
    for n in data.sizes("random", groups=("cuda-host",)):
        host = lambda sort: data.ms("cuda-host", sort, "random", n)
        cpu = data.ms("cpu", "gpusort", "random", n)
        rows.append([
            size_label(n),
            f"**{fmt_ms(host('radix'))}**" if num(host("radix")) else fmt_ms(host("radix")),
            fmt_ms(host("bitonic")),
            fmt_ms(host("odd-even")),
            rate(n, host("radix")),
            fmt_ms(data.ms("cuda-device", "radix", "random", n)),
            fmt_ms(cpu),
            ratio(cpu, host("radix")),
        ])
    return table(
        ["n", "**radix**", "bitonic", "odd-even", "radix pairs/s", "radix, device-resident (for scale)",
         "gpusort CPU backend", "GPU vs CPU backend"],
        rows,
    )


def headline(data, ref, in_readme=True):
    """The rows README shows: the sizes a reader looks for first."""
    seed, sample = ref["seed_gtx680"], ref["nvidia_sample"]
    measured = [n for n in data.sizes("random") if data.ms("cuda-device", "radix", "random", n) is not None]
    sizes = [n for n in measured if n in (1 << 20, 1 << 24, 1 << 26, 1 << 28)] or measured[-4:]
    rows = []
    for n in sizes:
        radix = data.ms("cuda-device", "radix", "random", n)
        cub = data.cub.get(("pairs_dbuf", "random", n))
        bit = data.ms("cuda-device", "bitonic", "random", n)
        rows.append([
            size_label(n),
            f"**{fmt_ms(radix)}**",
            fmt_ms(cub) or "not measured",
            ratio(cub, radix),
            fmt_ms(bit),
            fmt_ms(sample["bitonic_ms"].get(n)),
            fmt_ms(seed["bitonic_ms"].get(n)),
            fmt_ms(data.ms("cuda-host", "radix", "random", n)),
        ])
    t = table(
        ["n pairs", "**gpusort radix**", "CUB SortPairs", "gpusort vs CUB", "gpusort bitonic",
         "NVIDIA sample bitonic (H200, 2026-11-21)", "GTX 680 bitonic (seed, 2013)", "gpusort host to host"],
        rows,
    )
    m = data.machine
    intro = (
        f"{gpu_name(data)}, driver {m.get('driver', '?')}, {m.get('date', '')[:10]}: milliseconds to sort n "
        "random (u32 key, u32 value) pairs, data on the GPU unless marked host to host; median of many runs; "
        "CUB measured in the same run."
    )
    if in_readme:
        intro += " Full report: [BENCHMARKS.md](BENCHMARKS.md); regenerate with `ci/report.sh`."
    return intro + "\n\n" + t + "\n\n![time vs n, log-log](docs/bench.svg)\n"


def gpu_report(data, ref):
    seed, sample = ref["seed_gtx680"], ref["nvidia_sample"]
    out = []
    out.append("# gpusort benchmarks\n")
    out.append(
        f"Generated by `{data.machine.get('command', 'ci/report.sh')}` on {gpu_name(data)}, "
        f"{data.machine.get('date', '')}. Every gpusort and CUB figure below was measured in that one run; "
        "the GTX 680 and NVIDIA-sample columns are quoted (see *Sources*). Times are milliseconds per sort of "
        "n (u32 key, u32 value) pairs, ascending; lower is better. A ratio is the other sort's time divided by "
        "gpusort's: above 1× gpusort is faster.\n"
    )
    out.append("## Machine\n")
    out.append(machine_section(data, gpu=True) + "\n")
    if data.sizes("random"):  # a host-only run (GPUSORT_BENCH_HOST=only) has none
        out.append("## Headline\n")
        out.append(headline(data, ref, in_readme=False))
        out.append("## Uniform random keys\n")
        out.append(
            "Data already on the GPU (device-resident) except the last column. The seed's table and NVIDIA's "
            "sample cover only power-of-two sizes up to 64M; radix also runs at 256M.\n"
        )
        times, speed = random_tables(data, ref)
        out.append(times + "\n")
        out.append("Throughput and ratios:\n")
        out.append(speed + "\n")
    for p in PATTERNS[1:]:
        if not data.sizes(p):
            continue
        out.append(f"## {PATTERN_TITLES[p][0].upper() + PATTERN_TITLES[p][1:]}\n")
        out.append(pattern_table(data, p) + "\n")
    if data.sizes("random", groups=("cuda-host",)):
        out.append("## Host to host\n")
        out.append(
            "`Sorter::cuda().sort_kvp(&mut v)` on a `Vec` in ordinary (pageable) memory: upload, sort, download, "
            "wall-clock time. The CPU backend column is gpusort's own CPU sort on this machine's cores, where "
            "measured.\n"
        )
        out.append(host_table(data) + "\n")
    out += report_host.sections(data)
    if any(k[0] == "cpu" for k in data.bench):
        out.append("## CPU sorts on this machine\n")
        out.append(cpu_tables(data) + "\n")
    out.append("## How it was measured\n")
    sizes_note = []
    for p in PATTERNS:
        ns = data.sizes(p)
        if ns:
            sizes_note.append(f"{p}: {', '.join(size_label(n) for n in ns)}")
    out.append(
        "- **Inputs.** Keys from a seeded splitmix64 stream, values 0..n-1; the same formulas in "
        "`benches/sort/inputs.rs`, `ci/cub/cub_bench.cu` and `ci/report.py`, so gpusort, CUB and torch sort the same "
        "data. Patterns: " + "; ".join(f"{p} = {PATTERN_TITLES[p]}" for p in PATTERNS) + ".\n"
        "- **Sizes.** Uniform random at every size of the seed's table (plus 256M for radix); the other patterns "
        "at fewer sizes, to keep the run short. Measured: " + "; ".join(sizes_note) + ".\n"
        "- **Device-resident (gpusort).** `cargo bench --bench sort` (criterion, 10 samples): before each sort "
        "the input is restored with a device-to-device copy from one of 2-4 rotating copies (not timed); CUDA "
        "events around the sort alone; the figure is the median of every timed sort after the first three. "
        "Every configuration's first result is checked (sorted, every value still with its key, and stable for "
        "radix) before it is timed.\n"
        "- **Host to host (gpusort).** Wall time of `Sorter::cuda().sort_kvp(&mut v)`, `v` restored before each "
        "run (not timed); median.\n"
        "- **CUB.** `ci/cub/cub_bench.cu`, built with the machine's nvcc during the run: "
        "`cub::DeviceRadixSort::SortPairs` / `SortKeys` with `DoubleBuffer` (ping-pong in two buffers, as gpusort "
        "does), input restored before each run, CUDA events, median of 15 after 3 warm-ups.\n"
        "- **torch.** `torch.sort(keys, stable=True)` then `values[indices]` (what a PyTorch user writes for "
        "pairs), int32 tensors (u32 keys with the top bit flipped, which keeps their order), CUDA events, median "
        "of 10 after 3 warm-ups.\n"
        + report_host.method(data)
    )
    missing = report_host.missing(data)
    if "bench" in data.notes:
        missing.append(f"gpusort rows: {data.notes['bench']}.")
    if not data.cub:
        missing.append(f"CUB columns: not measured ({data.notes.get('cub', 'no CUB timings in this run')}).")
    if not data.torch:
        missing.append(f"torch columns: not measured ({data.notes.get('torch', 'no torch timings in this run')}).")
    for r in data.errors():
        missing.append(f"`{r['group']}/{r['sort']}/{r['pattern']}/{r['n']}` failed: {r['error']}")
    if missing:
        out.append("## Not measured or failed\n")
        out.append("\n".join(f"- {m}" for m in missing) + "\n")
    out.append("## Sources of the quoted columns\n")
    out.append(
        f"- **{seed['label']}**: {seed['gpu']}, {seed['date']}. {seed['source']}.\n"
        f"- **{sample['label']}**: {sample['gpu']}, {sample['date']}. {sample['source']}\n"
    )
    return "\n".join(out)


# ------------------------------------------------------------------------------------------------
# CPU report


def cpu_tables(data):
    out = []
    for p in PATTERNS:
        ns = sorted({k[3] for k in data.bench if k[0] == "cpu" and k[2] == p})
        if not ns:
            continue
        rows = []
        for n in ns:
            cells = [size_label(n)]
            ours = data.ms("cpu", "gpusort", p, n)
            others = []
            for sort, _ in CPU_SORTS:
                v = data.ms("cpu", sort, p, n)
                cells.append(f"**{fmt_ms(v)}**" if sort == "gpusort" and num(v) else fmt_ms(v))
                if sort != "gpusort" and num(v):
                    others.append((v, sort))
            best = min(others) if others else None
            cells.append(rate(n, ours))
            cells.append(f"{ratio(best[0], ours)} ({best[1]})" if best else "")
            rows.append(cells)
        out.append(f"### {PATTERN_TITLES[p][0].upper() + PATTERN_TITLES[p][1:]}\n")
        out.append(
            table(["n"] + [label for _, label in CPU_SORTS] + ["gpusort pairs/s", "gpusort vs fastest other"], rows)
            + "\n"
        )
    return "\n".join(out)


def cpu_report(data):
    out = ["# gpusort CPU benchmarks\n"]
    out.append(
        f"Generated by `{data.machine.get('command', 'ci/report.sh --cpu')}` on a machine without a GPU (or with "
        "the GPU left out): gpusort's CPU backend against the standard library, rayon, voracious and rdst, "
        "sorting (u32 key, u32 value) pairs by key. Milliseconds per sort, median; lower is better. The last "
        "column divides the fastest other sort's time by gpusort's: above 1× gpusort is faster. Only gpusort, "
        "std sort_by_key and rayon par_sort_by_key are stable; gpusort pays for that.\n"
    )
    out.append("## Machine\n")
    out.append(machine_section(data, gpu=False) + "\n")
    out.append("## Milliseconds per sort\n")
    out.append(cpu_tables(data))
    out.append("## How it was measured\n")
    out.append(
        "`cargo bench --bench sort -- cpu/` (criterion, 10 samples). Before each sort the input is restored "
        "into the same buffer (not timed), so every run sorts the pattern, never an already sorted copy; the "
        "figure is the median of every timed sort after the first three. Each configuration's first result is "
        "checked (sorted, every value still with its key, stable where promised) before it is timed. Inputs: "
        "keys from a seeded splitmix64 stream, values 0..n-1. Patterns: "
        + "; ".join(f"{p} = {PATTERN_TITLES[p]}" for p in PATTERNS)
        + ".\n"
    )
    errs = [f"`{r['sort']}/{r['pattern']}/{r['n']}`: {r['error']}" for r in data.errors() if r["group"] == "cpu"]
    if "bench" in data.notes:
        errs.append(data.notes["bench"])
    if errs:
        out.append("## Not measured or failed\n")
        out.append("\n".join(f"- {e}" for e in errs) + "\n")
    return "\n".join(out)


# ------------------------------------------------------------------------------------------------
# Chart


def svg_chart(data, ref):
    """Log-log time vs n for uniform random pairs, like the seed's chart, our lines added."""
    seed, sample = ref["seed_gtx680"], ref["nvidia_sample"]
    dev = lambda sort: {n: data.ms("cuda-device", sort, "random", n) for n in data.sizes("random")}
    series = [
        # label, points, colour, dash, width
        ("GTX 680 bitonic (seed, 2013)", seed["bitonic_ms"], "#9e9e9e", "6 4", 2),
        ("GTX 680 odd-even (seed, 2013)", seed["odd_even_ms"], "#616161", "2 3", 2),
        ("NVIDIA sample bitonic (H200, quoted)", sample["bitonic_ms"], "#f4a261", "6 4", 2),
        ("NVIDIA sample odd-even (H200, quoted)", sample["odd_even_ms"], "#e76f51", "2 3", 2),
        ("CUB SortPairs (measured)", {k[2]: v for k, v in data.cub.items() if k[:2] == ("pairs_dbuf", "random")},
         "#000000", "", 2),
        ("torch sort + gather", {k[1]: r.get("pairs_ms") for k, r in data.torch.items() if k[0] == "random"},
         "#8e44ad", "4 2", 1.5),
        ("gpusort radix", dev("radix"), "#1f77b4", "", 3),
        ("gpusort bitonic", dev("bitonic"), "#2ca02c", "", 3),
        ("gpusort odd-even", dev("odd-even"), "#d62728", "", 3),
        ("gpusort radix, host to host", {n: data.ms("cuda-host", "radix", "random", n) for n in data.sizes("random")},
         "#1f77b4", "8 3 2 3", 1.5),
    ]
    series = [(lab, {n: v for n, v in pts.items() if num(v)}, c, d, w) for lab, pts, c, d, w in series]
    series = [s for s in series if s[1]]
    all_n = [n for s in series for n in s[1]]
    all_t = [v for s in series for v in s[1].values()]
    if not all_n:
        return None
    x0, x1 = math.log2(min(all_n)), math.log2(max(all_n))
    y0, y1 = math.floor(math.log10(min(all_t))), math.ceil(math.log10(max(all_t)))
    if x1 == x0:
        x0, x1 = x0 - 1, x1 + 1
    if y1 == y0:
        y1 += 1
    W, H, L, R, T, B = 1000, 560, 70, 320, 60, 60
    pw, ph = W - L - R, H - T - B
    px = lambda n: L + (math.log2(n) - x0) / (x1 - x0) * pw
    py = lambda ms: T + (y1 - math.log10(ms)) / (y1 - y0) * ph
    esc = lambda s: s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    o = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
        'font-family="Helvetica, Arial, sans-serif" font-size="12">',
        f'<rect width="{W}" height="{H}" fill="#ffffff"/>',
        f'<text x="{L}" y="24" font-size="16" font-weight="bold">Sorting n (u32 key, u32 value) pairs, uniform random'
        " keys: time vs n</text>",
        f'<text x="{L}" y="44" fill="#444">{esc(gpu_name(data))}, {esc(data.machine.get("date", "")[:10])}; data on '
        "the GPU except the host-to-host line; log-log; lower is better</text>",
    ]
    for e in range(int(y0), int(y1) + 1):
        y = py(10**e)
        o.append(f'<line x1="{L}" y1="{y:.1f}" x2="{L + pw}" y2="{y:.1f}" stroke="#e0e0e0"/>')
        label = f"{10**e:g}" if e >= -3 else f"1e{e}"
        o.append(f'<text x="{L - 8}" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
    for b in range(int(x0), int(x1) + 1):
        x = px(2**b)
        o.append(f'<line x1="{x:.1f}" y1="{T}" x2="{x:.1f}" y2="{T + ph}" stroke="#f0f0f0"/>')
        if (b - int(x0)) % 2 == 0 or x1 - x0 <= 8:
            o.append(f'<text x="{x:.1f}" y="{T + ph + 18}" text-anchor="middle">{size_label(2**b)}</text>')
    o.append(f'<rect x="{L}" y="{T}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>')
    o.append(f'<text x="{L + pw / 2}" y="{H - 14}" text-anchor="middle">n (pairs)</text>')
    o.append(
        f'<text x="18" y="{T + ph / 2}" text-anchor="middle" transform="rotate(-90 18 {T + ph / 2})">'
        "milliseconds per sort</text>"
    )
    for i, (label, pts, colour, dash, width) in enumerate(series):
        ns = sorted(pts)
        d = " ".join(f"{'M' if j == 0 else 'L'}{px(n):.1f},{py(pts[n]):.1f}" for j, n in enumerate(ns))
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        o.append(f'<path d="{d}" fill="none" stroke="{colour}" stroke-width="{width}"{dash_attr}/>')
        for n in ns:
            o.append(f'<circle cx="{px(n):.1f}" cy="{py(pts[n]):.1f}" r="{1 + width / 2:.1f}" fill="{colour}"/>')
        ly = T + 10 + i * 22
        o.append(
            f'<line x1="{L + pw + 16}" y1="{ly}" x2="{L + pw + 46}" y2="{ly}" stroke="{colour}" '
            f'stroke-width="{width}"{dash_attr}/>'
        )
        o.append(f'<text x="{L + pw + 52}" y="{ly + 4}">{esc(label)}</text>')
    o.append("</svg>")
    return "\n".join(o) + "\n"


# ------------------------------------------------------------------------------------------------
# torch column


def splitmix_np(np, seed, idx):
    z = np.uint64(seed) + (idx + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def pattern_keys_np(np, pattern, n, chunk=1 << 24):
    """The keys of benches/sort/inputs.rs `Pattern::key` (copy 0, seed n), as uint32."""
    out = np.empty(n, dtype=np.uint32)
    lo = np.uint64(0xFFFFFFFF)
    for start in range(0, n, chunk):
        idx = np.arange(start, min(n, start + chunk), dtype=np.uint64)
        if pattern == "sorted":
            k = idx
        elif pattern == "reverse":
            k = np.uint64(n - 1) - idx
        elif pattern == "equal":
            k = np.full(idx.shape, 0x9E3779B9, dtype=np.uint64)
        else:
            z = splitmix_np(np, n, idx)
            if pattern == "random":
                k = z
            elif pattern == "distinct16":
                k = splitmix_np(np, 16, z & np.uint64(15))
            elif pattern == "zipf":
                e = z >> np.uint64(59)
                one = np.left_shift(np.uint64(1), e)
                rank = one | (z & (one - np.uint64(1)) & lo)
                k = rank * np.uint64(0x9E3779B1)
            else:
                raise ValueError(pattern)
        out[start : start + len(idx)] = (k & lo).astype(np.uint32)
    return out


def import_torch():
    """numpy and torch, with a CUDA device; raises when either is missing."""
    import numpy as np
    import torch

    if not torch.cuda.is_available():
        raise RuntimeError("torch sees no CUDA device")
    return np, torch


def torch_bench(args):
    try:
        np, torch = import_torch()
    except Exception as e:  # a missing column, not a failed report
        print(json.dumps({"src": "torch", "kind": "absent", "text": f"torch unavailable: {e}"}))
        return 0
    print(json.dumps({"src": "torch", "kind": "version", "text": f"torch {torch.__version__}"}))
    plan = [("random", n) for n in parse_sizes(args.random)]
    plan += [(p, n) for p in PATTERNS[1:] for n in parse_sizes(args.patterns)]
    dev = torch.device("cuda")
    for pattern, n in plan:
        t_gen = time.time()
        keys_u32 = pattern_keys_np(np, pattern, n)
        # int32 with the top bit flipped sorts in u32 order; torch has no general uint32 sort.
        keys = torch.from_numpy((keys_u32 ^ np.uint32(0x80000000)).view(np.int32)).to(dev)
        values = torch.arange(n, dtype=torch.int32, device=dev)
        del keys_u32
        sk, idx = torch.sort(keys, stable=True)
        sv = values[idx]
        ok = bool((sk[1:] >= sk[:-1]).all()) and bool(torch.equal(keys[sv.long()], sk))
        times_keys, times_pairs = [], []
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for it in range(13):
            a.record()
            sk, idx = torch.sort(keys, stable=True)
            b.record()
            sv = values[idx]
            c = torch.cuda.Event(enable_timing=True)
            c.record()
            c.synchronize()
            if it >= 3:
                times_keys.append(a.elapsed_time(b))
                times_pairs.append(a.elapsed_time(c))
        med = lambda t: sorted(t)[len(t) // 2]
        rec = {"src": "torch", "pattern": pattern, "n": n, "keys_ms": med(times_keys), "pairs_ms": med(times_pairs),
               "checked": ok, "gen_s": round(time.time() - t_gen, 2)}
        print(json.dumps(rec), flush=True)
        del keys, values, sk, idx, sv
        torch.cuda.empty_cache()
    return 0


def torch_host(args):
    """What a PyTorch user waits for: host tensors to the GPU, stable sort, values gathered, back to
    the host (pageable memory, as torch hands it out). Wall clock, median, one line per size."""
    try:
        np, torch = import_torch()
    except Exception as e:
        print(f"torch round trip not measured: {e}")
        return 0
    dev = torch.device("cuda")
    print(f"torch {torch.__version__} round trip, host -> GPU sort + gather -> host, random pairs, median ms")
    for n in parse_sizes(args.sizes):
        keys_u32 = pattern_keys_np(np, "random", n)
        keys = torch.from_numpy((keys_u32 ^ np.uint32(0x80000000)).view(np.int32))
        values = torch.arange(n, dtype=torch.int32)
        del keys_u32
        reps = max(3, min(11, (64 << 20) * 11 // max(n, 1)))
        times = []
        for it in range(reps + 1):
            torch.cuda.synchronize()
            t = time.perf_counter()
            dk, dv = keys.to(dev), values.to(dev)
            sk, idx = torch.sort(dk, stable=True)
            out_k, out_v = sk.cpu(), dv[idx].cpu()
            torch.cuda.synchronize()
            if it > 0:
                times.append((time.perf_counter() - t) * 1e3)
            del dk, dv, sk, idx
        ok = bool((out_k[1:] >= out_k[:-1]).all()) and bool(torch.equal(keys[out_v.long()], out_k))
        print(f"  n={n:>10}  torch round trip {sorted(times)[len(times) // 2]:9.2f} ms  ({reps} runs, checked: {ok})",
              flush=True)
        del keys, values, out_k, out_v
        torch.cuda.empty_cache()
    return 0


def parse_sizes(s):
    return [int(t) for t in (s or "").split(",") if t.strip()]


# ------------------------------------------------------------------------------------------------


def write(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {path}")


def render(args):
    data = Data(args.data)
    if args.cpu:
        write(os.path.join(args.out, "BENCHMARKS-cpu.md"), cpu_report(data))
        return 0
    ref = load_reference()
    docs = args.out if args.flat else os.path.join(args.out, "docs")
    if not data.has_gpu():
        print("no GPU measurements in the data: the GPU report needs a CUDA device (try --cpu)", file=sys.stderr)
        return 1
    write(os.path.join(args.out, "BENCHMARKS.md"), gpu_report(data, ref))
    svg = svg_chart(data, ref) if data.sizes("random") else None
    if svg:
        write(os.path.join(docs, "bench.svg"), svg)
    if data.sizes("random"):
        write(os.path.join(docs, "bench-headline.md"), headline(data, ref))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("render")
    r.add_argument("data")
    r.add_argument("--out", default=".")
    r.add_argument("--cpu", action="store_true")
    r.add_argument("--flat", action="store_true")
    t = sub.add_parser("torch")
    t.add_argument("--random", default="")
    t.add_argument("--patterns", default="")
    h = sub.add_parser("torch-host")
    h.add_argument("--sizes", default="1048576,16777216,67108864,268435456")
    args = ap.parse_args()
    return {"render": render, "torch": torch_bench, "torch-host": torch_host}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
