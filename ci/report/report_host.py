"""The host tables of BENCHMARKS.md, from the records of benches/sort/host.rs: host-to-host sorts
against the PCIe floor measured in the same run, and one input out of core under device-memory
budgets, each beside the CPU backend on the same data. Every ratio here is a time over a time."""

from report_fmt import fmt_ms, num, ratio, size_label, table

# The targets, set for the H200: in core, milliseconds for Kvp pairs, and at most 1.15x the
# floor from 64M items up (every shape); out of core, by budget: (times the floor, ms at 512M pairs).
KVP_TARGET_MS = {1 << 20: 0.8, 16 << 20: 6, 64 << 20: 22, 256 << 20: 90, 512 << 20: 180, 1 << 30: 360}
FLOOR_TARGET, FLOOR_TARGET_FROM = 1.15, 64 << 20
OOC_TARGETS = {2 << 30: (1.5, 235), 512 << 20: (2.0, 312)}
OOC_TARGET_N, OOC_CPU_TARGET_FROM = 512 << 20, 256 << 20
SHAPES = [
    ("kvp", "`Kvp`"),
    ("kvp-page-locked", "`Kvp`, page-locked"),
    ("pairs", "split u32 pairs"),
    ("pairs-page-locked", "split u32 pairs, page-locked"),
    ("keys", "u32 keys"),
]
# The targets for the records table: argsort within 10% of the pair sort of as many pairs;
# sort_by_key within 1.3x of two copies of the records over memory plus the key sort.
ARGSORT_TARGET, BY_KEY_TARGET = 1.10, 1.3


def bytes_label(b):
    s = size_label(b) if isinstance(b, int) else ""
    return f"{s[:-1]} {s[-1]}iB" if s[-1:] in ("K", "M", "G") else (f"{b} B" if b else "")


def record(data, group, sort, n):
    return data.bench.get((group, sort, "random", n)) or {}


def x(v):
    """A time ratio as ratio() writes one, or nothing."""
    return ratio(v, 1.0) if num(v) else ""


def verdict(checks):
    """'yes' when every applicable check passed, 'no' when one failed, '' when none applied."""
    checks = [c for c in checks if c is not None]
    return "" if not checks else "yes" if all(checks) else "**no**"


def at_least(theirs, ours, times=1.0):
    """Whether ours takes at most theirs / times: None when either is missing; a failed row of ours
    (a string) fails."""
    if isinstance(ours, str):
        return False
    return theirs / ours >= times if num(theirs) and num(ours) else None


def anchor_missing(label, measured, note, default):
    """The 'Not measured' line of an anchor (CUB, torch) beside gpusort rows: why it is absent, or
    the note its run left (rows missing), or nothing."""
    if not measured:
        return [f"{label}: not measured ({note or default})."]
    return [f"{label}: {note}."] if note else []


def has_host(data):
    return any(k[0] in ("host", "out-of-core", "records") for k in data.bench)


def bandwidth_text(data):
    bw = {k[1]: r for k, r in data.bench.items() if k[0] == "host-bw"}
    up, down = (bw.get(d, {}) for d in ("h2d", "d2h"))
    if not num(up.get("gb_s")) or not num(down.get("gb_s")):
        return "pinned bandwidth not measured"
    return (
        f"up {up['gb_s']:.1f} GB/s, down {down['gb_s']:.1f} GB/s ({bytes_label(up.get('n'))} each way, "
        f"median of {up.get('runs')})"
    )


def in_core_table(data):
    rows = []
    for shape, label in SHAPES:
        gpu_sort, cpu_sort = f"cuda-{shape}", f"cpu-{shape}"
        for n in sorted({k[3] for k in data.bench if k[0] == "host" and k[1] in (gpu_sort, cpu_sort)}):
            g, c = record(data, "host", gpu_sort, n), record(data, "host", cpu_sort, n)
            gpu, cpu = data.ms("host", gpu_sort, "random", n), data.ms("host", cpu_sort, "random", n)
            floor = g.get("floor_ms")
            per_floor = gpu / floor if num(gpu) and num(floor) else None
            target, checks = [], []
            if shape == "kvp" and n in KVP_TARGET_MS:
                target.append(f"≤ {KVP_TARGET_MS[n]:g} ms")
                checks.append(gpu <= KVP_TARGET_MS[n] if num(gpu) else None)
            if n >= FLOOR_TARGET_FROM:
                target.append(f"≤ {FLOOR_TARGET}× floor")
                checks.append(per_floor <= FLOOR_TARGET if per_floor else None)
            rows.append([
                label,
                size_label(n),
                bytes_label(g.get("bytes") or c.get("bytes")),
                f"**{fmt_ms(gpu)}**" if num(gpu) else fmt_ms(gpu),
                fmt_ms(floor),
                x(per_floor),
                ", ".join(target),
                verdict(checks),
                fmt_ms(cpu),
                x(gpu / cpu if num(gpu) and num(cpu) else None),
                " / ".join(str(r.get("runs", "")) for r in (g, c) if r),
            ])
    return table(
        ["items", "n", "bytes each way", "**GPU, host to host**", "floor", "GPU / floor", "target (H200)",
         "met", "CPU backend", "GPU / CPU", "runs (GPU / CPU)"],
        rows,
        ["---"] + ["---:"] * 5 + ["---", "---"] + ["---:"] * 3,
    )


def out_of_core_tables(data):
    out = []
    for n in sorted({k[3] for k in data.bench if k[0] == "out-of-core"}):
        recs = {k[1]: r for k, r in data.bench.items() if k[0] == "out-of-core" and k[3] == n}
        cpu = data.ms("out-of-core", "cpu", "random", n)
        floor = next((r["floor_ms"] for r in recs.values() if num(r.get("floor_ms"))), None)
        # Budgets from the smallest up, no limit last, then auto().
        order = sorted((s for s in recs if s.startswith("cuda-")), key=lambda s: recs[s].get("limit_bytes") or 1 << 62)
        rows = []
        for sort in order + (["auto"] if "auto" in recs else []):
            r = recs[sort]
            limit = r.get("limit_bytes")
            gpu = data.ms("out-of-core", sort, "random", n)
            per_floor = gpu / floor if num(gpu) and num(floor) else None
            per_cpu = gpu / cpu if num(gpu) and num(cpu) else None
            target, checks = [], []
            if limit in OOC_TARGETS:
                times, ms = OOC_TARGETS[limit]
                target.append(f"≤ {times:g}× floor" + (f" ({ms} ms)" if n == OOC_TARGET_N else ""))
                checks.append(per_floor <= times if per_floor else None)
                checks.append(gpu <= ms if n == OOC_TARGET_N and num(gpu) else None)
            if sort != "auto" and (limit is None or limit >= OOC_CPU_TARGET_FROM):
                target.append("faster than the CPU")
                checks.append(per_cpu < 1 if per_cpu else None)
            name = "`Sorter::auto()`" if sort == "auto" else bytes_label(limit) if limit else "none"
            rows.append([
                name,
                f"**{fmt_ms(gpu)}**" if num(gpu) else fmt_ms(gpu),
                x(per_floor),
                x(per_cpu),
                ", ".join(target),
                verdict(checks),
                r.get("runs", ""),
            ])
        cpu_text = f"{fmt_ms(cpu)} ms (median of {recs['cpu'].get('runs')})" if num(cpu) else fmt_ms(cpu) or "not measured"
        out.append(
            f"{size_label(n)} pairs ({bytes_label(next(iter(recs.values())).get('bytes'))}), random `Kvp`: floor "
            f"{fmt_ms(floor) + ' ms' if num(floor) else 'not measured'}; CPU backend (`Sorter::cpu()`) {cpu_text}.\n"
        )
        out.append(
            table(["device budget", "**GPU, host to host**", "GPU / floor", "GPU / CPU", "target (H200)",
                   "met", "runs"], rows, ["---", "---:", "---:", "---:", "---", "---", "---:"])
            + "\n"
        )
        auto = recs.get("auto", {})
        if auto.get("backend"):
            out.append(f"`Sorter::auto()` picked `{auto['backend']}` for {size_label(n)} pairs: {auto.get('describe', '')}.\n")
    return "\n".join(out)


def records_table(data):
    """argsort and sort_by_key beside their yardsticks of the same run (benches/sort/records.rs)."""
    rows = []
    for n in sorted({k[3] for k in data.bench if k[0] == "records"}):
        ms = lambda group, sort: data.ms(group, sort, "random", n)  # noqa: E731
        arg, pairs, kvp = ms("records", "cuda-argsort"), ms("host", "cuda-pairs"), ms("host", "cuda-kvp")
        yard = pairs if num(pairs) else kvp
        per = arg / yard if num(arg) and num(yard) else None
        what = "split u32 pairs" if num(pairs) else "`Kvp` pairs"
        rows.append([
            f"`argsort` of {size_label(n)} u32 keys", fmt_ms(arg), fmt_ms(ms("records", "cpu-argsort")),
            f"{fmt_ms(yard)} ({what}, `cuda`)" if num(yard) else "", x(per), f"≤ {ARGSORT_TARGET:.2f}×",
            verdict([per <= ARGSORT_TARGET] if per else []),
        ])
        by, copy = ms("records", "cuda-sort-by-key"), ms("records", "copy-twice")
        yard = copy + arg if num(copy) and num(arg) else None
        per = by / yard if num(by) and yard else None
        rows.append([
            f"`sort_by_key` of {size_label(n)} 32-byte records", fmt_ms(by), fmt_ms(ms("records", "cpu-sort-by-key")),
            f"{fmt_ms(yard)} (two copies {fmt_ms(copy)} + argsort)" if yard else "", x(per),
            f"≤ {BY_KEY_TARGET:.1f}×", verdict([per <= BY_KEY_TARGET] if per else []),
        ])
    header = ["sort (host to host)", "GPU (ms)", "CPU backend (ms)", "yardstick (ms)", "GPU / yardstick", "target", "met"]
    return table(header, rows, ["---"] + ["---:"] * 6)


def sections(data):
    """The host-to-host and records sections, as markdown chunks for the GPU report; none when nothing
    was measured."""
    if not has_host(data):
        return []
    out = ["## Host to host against the PCIe floor\n"]
    out.append(
        "Wall time of `Sorter::cuda()?.sort_kvp(&mut v)` (and `sort_pairs`, `sort_keys`) on data in ordinary "
        "(pageable) host memory, input restored before each run (not timed); median. The page-locked rows sort a "
        "buffer from `cuMemHostAlloc` (the caller's data already pinned, as torch's `pin_memory()` leaves it), which "
        "the copy engine reads and writes in place from 64 MiB. The floor is what a host-to-host "
        "sort cannot beat: the bytes up at the pinned upload rate, then the same bytes down at the pinned download "
        f"rate, both measured at the start of this run: {bandwidth_text(data)}. CPU backend: `Sorter::cpu()` on the "
        "same data. GPU / CPU below 1× means the GPU is faster.\n"
    )
    if any(k[0] == "host" for k in data.bench):
        out.append(in_core_table(data) + "\n")
    if any(k[0] == "records" for k in data.bench):
        out.append("## Argsort and records\n")
        out.append(
            "`Sorter::cuda()?.argsort_into(&keys, &mut out)` (the keys are only read) and `sort_by_key(&mut rows, |r| "
            "r.key)` on 32-byte records, host to host, beside the yardsticks of the same run: the split-pairs sort of "
            "as many pairs, and two parallel copies of the records (the memory traffic of a permutation done out of "
            "place and copied back) plus the argsort.\n"
        )
        out.append(records_table(data) + "\n")
    return out


def out_of_core_section(data):
    """Apart from sections(), so the report can put the segments and top-k sections between them."""
    out = []
    if any(k[0] == "out-of-core" for k in data.bench):
        out.append("## Out of core\n")
        out.append(
            "The same sort under `Sorter::cuda()?.with_device_memory_limit(budget)`: inputs larger than the budget "
            "are sorted in runs that fit and merged. `none` is the sorter without a limit (in core when the device "
            "has room).\n"
        )
        out.append(out_of_core_tables(data))
    return out


def method(data):
    """The 'How it was measured' bullet."""
    if not has_host(data):
        return ""
    secs = data.meta.get("bench-host-seconds")
    return (
        "- **Host tables.** `benches/sort/host.rs`, run before the criterion groups: a plain loop (1-2 untimed "
        "warm-ups, then 3-11 timed runs, fewer as n grows), wall time around the call, the input restored on every "
        "core before each run. The first and the last result of every row are checked: up to 16M items exactly "
        "(sorted, every value once and still with its key, stable), past that for order and a permutation signature "
        "(wrapping sums and xors of keys and values, and a sum of a hash of each pair)."
        + (f" They took {secs} s." if secs else "")
        + "\n"
    )


def missing(data):
    return [] if has_host(data) else ["host tables: not measured (GPUSORT_BENCH_HOST=0, or no GPU in the run)."]
