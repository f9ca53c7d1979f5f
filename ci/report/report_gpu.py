"""The GPU report, BENCHMARKS.md: headline, device-resident tables per pattern, host to host, the
host tables (report_host), argsort (report_argsort), lexsort (report_lexsort), segmented sorts
(report_segments), top-k (report_topk), embedded device calls (report_embed), low-memory sorts
(report_lowmem), out of core (report_host), CPU rows, method and sources."""

import report_argsort
import report_embed
import report_host
import report_lexsort
import report_lowmem
import report_segments
import report_shapes
import report_small_keys
import report_topk
from report_cpu import cpu_tables
from report_data import PATTERN_TITLES, PATTERNS
from report_fmt import fmt_ms, num, rate, ratio, size_label, table
from report_machine import gpu_name, machine_section

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
    """The headline rows (docs/bench-headline.md, which the README's results summary quotes): the
    sizes a reader looks for first."""
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
    # The README links into docs/; the report itself lies in docs/ beside the chart.
    if in_readme:
        intro += " Full report: [docs/BENCHMARKS.md](docs/BENCHMARKS.md); regenerate with `ci/report.sh`."
    chart = "docs/bench.svg" if in_readme else "bench.svg"
    return intro + "\n\n" + t + f"\n\n![time vs n, log-log]({chart})\n"


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
    out += report_shapes.shapes_section(data)
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
    out += report_argsort.sections(data)
    out += report_lexsort.sections(data)
    out += report_small_keys.sections(data)
    out += report_segments.sections(data)
    out += report_topk.sections(data)
    out += report_embed.sections(data)
    out += report_lowmem.sections(data)
    out += report_host.out_of_core_section(data)
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
        "`benches/sort/inputs.rs`, `benches/cub/cub_bench.cu` and `ci/report/report.py`, so gpusort, CUB and torch sort the same "
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
        "- **CUB.** `benches/cub/cub_bench.cu`, built with the machine's nvcc during the run: "
        "`cub::DeviceRadixSort::SortPairs` / `SortKeys` with `DoubleBuffer` (ping-pong in two buffers, as gpusort "
        "does), input restored before each run, CUDA events, median of 15 after 3 warm-ups.\n"
        "- **torch.** `torch.sort(keys, stable=True)` then `values[indices]` (what a PyTorch user writes for "
        "pairs), int32 tensors (u32 keys with the top bit flipped, which keeps their order), CUDA events, median "
        "of 10 after 3 warm-ups.\n"
        + report_host.method(data)
        + report_segments.method(data)
        + report_topk.method(data)
        + report_small_keys.method(data)
    )
    missing = (report_host.missing(data) + report_segments.missing(data) + report_topk.missing(data)
               + report_small_keys.missing(data))
    if "bench" in data.notes:
        missing.append(f"gpusort rows: {data.notes['bench']}.")
    if not data.cub:
        why = data.notes.get("cub", "no CUB timings in this run")
        missing.append(f"CUB's whole-input columns: not measured ({why}).")
    if not data.torch:
        missing.append(f"torch.sort columns: not measured ({data.notes.get('torch', 'no torch timings in this run')}).")
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
