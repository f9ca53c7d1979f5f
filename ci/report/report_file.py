"""The external-sort section (docs/BENCHMARKS-file.md) from ci/file_bench.sh's JSON lines, one
file per run (machine and shape). Python 3 standard library only.

    python3 ci/report/report_file.py RUN.jsonl [RUN2.jsonl ...]        prints the tables
    python3 ci/report/report.py file RUN.jsonl [...] --out DIR         writes DIR/docs/BENCHMARKS-file.md
"""

import json
import sys

SHAPES = {
    "ascii": "100-byte ASCII lines, 10-byte key (the Sort Benchmark's records)",
    "u64": "16-byte records: a little-endian u64 key and a u64 payload",
}


def load(path):
    rows = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                r = json.loads(line)
                rows[r["what"]] = r
    return rows


def machine(setup):
    gpu = setup.get("gpu") or "no GPU"
    return f"{setup['cores']} cores, {setup['ram_bytes'] / 2**30:.0f} GiB, {gpu}"


def summary_row(rows):
    s, d, g = rows["setup"], rows["disk"], rows["gpusort"]
    gnu = rows.get("gnu_sort")
    gnu_cols = f"{gnu['wall_s']:.1f} s | {gnu['wall_s'] / g['wall_s']:.2f}x" if gnu else "not run | -"
    return (
        f"| {machine(s)} | {s['shape']} | {d['bytes'] / 1e9:.1f} GB | {s['budget'] / 2**30:.1f} GiB "
        f"({s['cgroup_limit'] / 2**30:.1f} GiB cgroup) | {d['read_bps'] / 1e9:.2f} / {d['write_bps'] / 1e9:.2f} GB/s ({d['tool']}) "
        f"| {d['floor_s']:.1f} s | {g['wall_s']:.1f} s on {g.get('backend', '?')} | {g['wall_s'] / d['floor_s']:.2f}x | {gnu_cols} |"
    )


def phase_row(rows):
    s, g = rows["setup"], rows["gpusort"]
    return (
        f"| {machine(s)} | {s['shape']} | {g['runs']} | {g['merge_passes']} | {g['run_phase_s']:.1f} "
        f"| {g['reading_s']:.1f} | {g['sorting_s']:.1f} | {g['writing_s']:.1f} | {g['merge_phase_s']:.1f} "
        f"| {g['merge_reading_s']:.1f} | {g['merging_s']:.1f} | {g['merge_writing_s']:.1f} |"
    )


def tables(paths):
    runs = [load(p) for p in paths]
    out = [
        "| machine | records | size | budget | disk read / write | floor | gpusort | vs floor | GNU sort | GNU / gpusort |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    out += [summary_row(r) for r in runs]
    out += [
        "",
        "Where the time went (seconds): each phase's wall time, then its threads' busy time (the run phase's three threads overlap; the merge's times are summed over its threads):",
        "",
        "| machine | records | runs | merge passes | run phase | reading | sorting | gathering and writing | merge | reading runs | merging | writing |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    out += [phase_row(r) for r in runs]
    return "\n".join(out)


def document(paths):
    shapes = sorted({load(p)["setup"]["shape"] for p in paths})
    lines = [
        "# External sorts: files larger than memory",
        "",
        "Written by `ci/report/report.py file` from `ci/file_bench.sh` runs (one per row). Each sort runs in a memory",
        "cgroup whose limit is the budget plus 1 GiB, so neither the process nor its page cache holds the file,",
        "with the page cache dropped before it. The floor is two reads and two writes of the data at the",
        "sequential rates measured on the same disk in the same run (`fio --direct=1`, 1 MiB blocks, or `dd`",
        "with direct I/O where fio is missing). GNU sort (`LC_ALL=C sort -k1.1,1.10 -S BUDGET --parallel=CORES`)",
        "runs in the same cgroup on the same file; it writes to /dev/null (the disk holds its temporary files",
        "beside the input, not a third copy), which spares it its final write. Every gpusort output was checked",
        "with `gpusort check` and with an independent checksum of the records' multiset (`ci/file_checksum.py`).",
        "",
    ]
    lines += [f"- `{k}`: {SHAPES.get(k, k)}" for k in shapes]
    lines += ["", tables(paths), ""]
    return "\n".join(lines)


if __name__ == "__main__":
    print(tables(sys.argv[1:]))
