"""The segmented sorts of BENCHMARKS.md, from benches/sort/segments.rs: n random keys cut
into segments of one length, gpusort's device-resident sorts beside CUB's segmented sorts of the same
keys in the same run (benches/cub/cub_segmented.cu), then the host-to-host rows of both backends."""

from report_fmt import fmt_ms, num, ratio, size_label, table
from report_host import anchor_missing, at_least, verdict, x

# The target: at least CUB's segmented sorts, for u32 keys in the issue's three layouts
# (1M segments of 64, 64K of 1K, 256 of 256K at 64M keys).
ISSUE_LENGTHS = (64, 1024, 256 << 10)
# benches/cub/cub_segmented.cu's rows in the order it runs them.
CUB_ROWS = ["segsort_pairs_dbuf", "segsort_pairs_plain", "segsort_stable_pairs_dbuf", "segsort_keys_dbuf",
            "segsort_pairs_desc_dbuf", "segradix_pairs_dbuf", "segradix_pairs_plain", "segradix_keys_dbuf",
            "segradix_pairs_desc_dbuf"]


def layouts(data):
    """(n, segment length) of every segment row, in order."""
    return sorted({(k[3], r["segment"]) for k, r in data.bench.items() if k[0] == "segments" and r.get("segment")})


def ms(data, sort, n):
    return data.ms("segments", sort, "random", n)


def layout_label(n, length):
    return f"{size_label(-(-n // length))} x {size_label(length)}"


def api_label(r):
    """`cub::DeviceSegmentedSort::StableSortPairs` with in/out arrays -> 'SegmentedSort, stable, in/out arrays'."""
    parts = r.get("api", "").split("::")
    family = parts[1][len("Device"):] if len(parts) > 2 and parts[1].startswith("Device") else r.get("api", "?")
    extras = ["stable"] if len(parts) > 2 and parts[2].startswith("Stable") else []
    if r.get("buffers") and r["buffers"] != "DoubleBuffer":
        extras.append(r["buffers"])
    return ", ".join([family] + extras)


def cub_best(data, n, length, values):
    """CUB's fastest ascending row for the layout, pairs or keys alone: the record, or None."""
    recs = [r for (_, rn), r in data.cub_segments.items() if rn == n and r.get("segment") == length
            and bool(r.get("values")) == values and r.get("order", "ascending") == "ascending"
            and num(r.get("median_ms"))]
    return min(recs, key=lambda r: r["median_ms"], default=None)


def cub_cell(r):
    return f"{fmt_ms(r['median_ms'])} ({api_label(r)})" if r else ""


def bold(v):
    return f"**{fmt_ms(v)}**" if num(v) else fmt_ms(v)


def device_table(data):
    rows = []
    for n, length in layouts(data):
        pairs, keys = ms(data, f"cuda-device-segments-{length}", n), ms(data, f"cuda-device-segments-keys-{length}", n)
        if pairs is None and keys is None:
            continue
        cub_pairs, cub_keys = cub_best(data, n, length, True), cub_best(data, n, length, False)
        cp, ck = (r["median_ms"] if r else None for r in (cub_pairs, cub_keys))
        target, checks = "", []
        if length in ISSUE_LENGTHS:
            target = "≥ 1× CUB"
            checks = [at_least(cp, pairs), at_least(ck, keys)]
        rows.append([layout_label(n, length), bold(pairs), cub_cell(cub_pairs), ratio(cp, pairs),
                     bold(keys), cub_cell(cub_keys), ratio(ck, keys), target, verdict(checks)])
    header = ["segments x length", "**gpusort pairs**", "CUB pairs (fastest)", "CUB / gpusort", "**gpusort keys**",
              "CUB keys (fastest)", "CUB / gpusort", "target", "met"]
    return table(header, rows, ["---"] + ["---:"] * 6 + ["---", "---"])


def cub_table(data):
    """Every CUB row, so the fastest one above can be checked against the others."""
    whats = {r["what"].rsplit("-", 1)[0] for r in data.cub_segments.values()}
    whats = sorted(whats, key=lambda w: (CUB_ROWS.index(w) if w in CUB_ROWS else len(CUB_ROWS), w))
    rows = []
    for n, length in sorted({(r["n"], r.get("segment")) for r in data.cub_segments.values()}):
        rows.append([layout_label(n, length)] + [fmt_ms((data.cub_segments.get((f"{w}-{length}", n)) or {})
                                                        .get("median_ms")) for w in whats])
    return table(["segments x length"] + [f"`{w}`" for w in whats], rows, ["---"] + ["---:"] * len(whats))


def wide_table(data):
    """u64 keys on the device: no CUB column, as the harness sorts u32 keys only."""
    rows = []
    for n, length in layouts(data):
        pairs = ms(data, f"cuda-device-segments-u64-{length}", n)
        keys = ms(data, f"cuda-device-segments-u64-keys-{length}", n)
        if pairs is None and keys is None:
            continue
        narrow = ms(data, f"cuda-device-segments-{length}", n)
        rows.append([layout_label(n, length), bold(pairs), fmt_ms(keys), fmt_ms(narrow),
                     x(pairs / narrow if num(pairs) and num(narrow) else None)])
    header = ["segments x length", "**u64 keys, u32 values**", "u64 keys alone", "u32 pairs (above)", "u64 / u32 pairs"]
    return table(header, rows, ["---"] + ["---:"] * 4) if rows else ""


def host_table(data):
    rows = []
    for n, length in layouts(data):
        row = [layout_label(n, length)]
        for wide in ("", "u64-"):
            gpu, cpu = ms(data, f"cuda-segments-{wide}{length}", n), ms(data, f"cpu-segments-{wide}{length}", n)
            row += [bold(gpu), fmt_ms(cpu), x(gpu / cpu if num(gpu) and num(cpu) else None)]
        if any(row[1:]):
            rows.append(row)
    header = ["segments x length", "**GPU, u32 keys**", "CPU, u32 keys", "GPU / CPU", "**GPU, u64 keys**", "CPU, u64 keys",
              "GPU / CPU"]
    return table(header, rows, ["---"] + ["---:"] * 6) if rows else ""


def has_rows(data):
    return any(k[0] == "segments" for k in data.bench)


def has_device_rows(data):
    return data.segments_plan() is not None


def sections(data):
    """The section as markdown chunks for the GPU report; none when the run sorted no segments."""
    if not has_rows(data):
        return []
    out = ["## Segmented sorts\n"]
    ns = sorted({n for n, _ in layouts(data)})
    out.append(
        f"{' and '.join(size_label(n) for n in ns)} random u32 keys with u32 values (each item's input position), cut "
        "into segments of one length and sorted within each segment, ascending; milliseconds, median. The same keys "
        "as the whole-input tables' random pattern.\n"
    )
    if has_device_rows(data):
        out.append(
            "Data already on the GPU: `Sorter::sort_segments_device` (pairs) and `sort_segments_keys_device` (keys "
            "alone) beside CUB's segmented sorts of the same keys, measured after the gpusort benches in the same run. "
            "CUB's column holds the fastest of its ascending rows (`DeviceSegmentedSort` and "
            "`DeviceSegmentedRadixSort`, with `DoubleBuffer` or separate in/out arrays; pairs and keys alone picked "
            "apart), named beside its time. CUB / gpusort above 1× means gpusort is faster.\n"
        )
        out.append(device_table(data) + "\n")
        if data.cub_segments:
            out.append("Every CUB row, the same layouts (`desc`: descending, not in the comparison above):\n")
            out.append(cub_table(data) + "\n")
        wide = wide_table(data)
        if wide:
            out.append(
                "The same layouts with u64 keys (u32 values), on the GPU. No CUB column: the CUB harness sorts u32 "
                "keys only.\n"
            )
            out.append(wide + "\n")
    host = host_table(data)
    if host:
        whole = data.ms("host", "cuda-pairs", "random", ns[-1])
        out.append(
            "Host to host: `Sorter::cuda()?.sort_segments(&mut keys, &mut values, &offsets)` and `Sorter::cpu()` on "
            "vectors in ordinary host memory, wall time, input restored before each run (not timed). GPU / CPU below "
            "1× means the GPU is faster."
            + (f" For scale, one sort of the same {size_label(ns[-1])} split u32 pairs (a single segment) took "
               f"{fmt_ms(whole)} ms host to host in this run." if num(whole) else "")
            + "\n"
        )
        out.append(host + "\n")
    return out


def method(data):
    """The 'How it was measured' bullet."""
    if not has_rows(data):
        return ""
    return (
        "- **Segmented sorts.** `benches/sort/segments.rs`, in the host tables. Device rows: the input restored by a "
        "device-to-device copy before each run (not timed), CUDA events around the call alone, median of 15 after 3 "
        "warm-ups, every result compared with the host sort's. CUB: `benches/cub/cub_segmented.cu`, built with the "
        "machine's nvcc during the run and run on the same n and segment lengths: each row's temporary storage "
        "allocated once, a pristine copy of the input restored before each run (not timed), CUDA events around the "
        "call, median of 15 after 3 warm-ups, every result checked on the host (sorted within each segment, every "
        "value once and still with its key; `StableSortPairs` also stable). Host rows: the plain loop of the host "
        "tables, wall time, median.\n"
    )


def missing(data):
    if not has_device_rows(data):
        return []
    return anchor_missing("CUB segmented sorts", bool(data.cub_segments), data.notes.get("cub-segments"),
                          "no CUB segmented timings in this run")
