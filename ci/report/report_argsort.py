"""The argsort section of BENCHMARKS.md, from benches/sort/argsort.rs: host to host
beside the floor of the same run (the keys up, the indices down, at the pinned rates), and
device-resident beside the split-pairs sort of the same keys and torch.argsort / cupy.argsort on
them (ci/argsort_libs.py), in the same run."""

from report_fmt import fmt_ms, num, ratio, size_label, table
from report_host import anchor_missing, at_least, bandwidth_text, verdict
from report_machine import page_lead, run_name

# The targets: host, times the floor at 64M and from 256M keys; device, at least this many
# times the libraries' argsort, and within this factor of our own split-pairs sort.
HOST_FLOOR = {64 << 20: 1.35, 256 << 20: 1.2}
LIBS_TARGET, PAIRS_TARGET = 1.15, 1.05
HOST_ROWS = [
    ("u32-u32", "u32 keys, u32 indices"),
    ("u32-u64", "u32 keys, u64 indices"),
    ("f32-u64", "f32 keys, u64 indices"),
    ("u64-u32", "u64 keys, u32 indices"),
    ("u64-u64", "u64 keys, u64 indices"),
]
DEVICE_KEYS = ["i32", "f32", "i64", "f64"]


def rec(data, group, sort, n):
    return data.bench.get((group, sort, "random", n)) or {}


def host_target(n):
    fits = [t for at, t in HOST_FLOOR.items() if n >= at]
    return fits[-1] if fits else None


def host_table(data):
    rows = []
    for n in sorted({k[3] for k in data.bench if k[0] == "argsort-host"}):
        for sort, label in HOST_ROWS:
            for desc in ("", "-desc", "-ooc"):
                r = rec(data, "argsort-host", f"cuda-{sort}{desc}", n)
                ours, floor = data.ms("argsort-host", f"cuda-{sort}{desc}", "random", n), r.get("floor_ms")
                if ours is None:
                    continue
                t = host_target(n) if desc != "-ooc" else None
                met = verdict([at_least(floor, ours, 1 / t)]) if t else ""
                times = ratio(ours, floor) if num(floor) else ""
                what = {"": "", "-desc": ", descending", "-ooc": ", out of core (device budget: 1/8 of in core)"}[desc]
                rows.append([size_label(n), label + what, f"**{fmt_ms(ours)}**",
                             fmt_ms(floor), times, f"≤ {t:g}× floor" if t else "", met])
        cpu = data.ms("argsort-host", "cpu-u32-u32", "random", n)
        if cpu is not None:
            rows.append([size_label(n), "u32 keys, u32 indices, `Sorter::cpu()`", fmt_ms(cpu), "", "", "", ""])
    header = ["n", "keys, indices", "**gpusort `argsort_into`**", "floor", "gpusort / floor", "target", "met"]
    return table(header, rows, ["---:", "---", "---:", "---:", "---:", "---", "---"]) if rows else ""


def device_table(data):
    rows = []
    for n in sorted({k[3] for k in data.bench if k[0] == "argsort-device"}):
        for key in DEVICE_KEYS:
            ours = data.ms("argsort-device", f"argsort-{key}", "random", n)
            if ours is None:
                continue
            pairs = data.ms("argsort-device", f"pairs-{key}", "random", n)
            torch, cupy = (data.argsort_libs.get((lib, key, n)) for lib in ("torch", "cupy"))
            checks = [at_least(torch, ours, LIBS_TARGET), at_least(cupy, ours, LIBS_TARGET),
                      at_least(pairs, ours, 1 / PAIRS_TARGET)]
            rows.append([size_label(n), key, f"**{fmt_ms(ours)}**", fmt_ms(pairs), ratio(ours, pairs), fmt_ms(torch),
                         ratio(torch, ours), fmt_ms(cupy), ratio(cupy, ours), verdict(checks)])
    header = ["n", "keys", "**gpusort `argsort_device`**", "split pairs sort", "argsort / pairs", "torch.argsort",
              "torch / gpusort", "cupy.argsort", "cupy / gpusort", "met"]
    return table(header, rows, ["---:", "---"] + ["---:"] * 7 + ["---"]) if rows else ""


def sections(data):
    """The argsort section as markdown chunks; none when the run has no argsort rows."""
    host, device = host_table(data), device_table(data)
    if not host and not device:
        return []
    out = ["## Argsort\n"]
    if host:
        out.append(
            "`Sorter::cuda()?.argsort_into(&keys, &mut out)` on pageable host memory, wall time, median: the keys go up "
            "at their own width, the positions are made and sorted on the GPU (and widened there for u64 indices), "
            "and only the indices come down. The floor is the keys up, then the indices down, at this run's pinned "
            "rates (see the host tables).\n"
        )
        out.append(host + "\n")
    if device:
        out.append(
            "Keys already on the GPU: `Sorter::argsort_device` into u64 indices (the keys only read), beside "
            f"`sort_pairs_device` of the same keys with u32 values (their input restored before each run) and "
            f"`torch.argsort(stable=True)` / `cupy.argsort` on the same keys, CUDA events, median; target: "
            f"at least {LIBS_TARGET:g}× both libraries, within {PAIRS_TARGET:g}× the pairs sort.\n"
        )
        out.append(device + "\n")
        for lib in ("torch", "cupy"):
            measured = any(k[0] == lib for k in data.argsort_libs)
            out += [m + "\n" for m in anchor_missing(f"{lib}.argsort", measured, data.notes.get(f"argsort-{lib}"),
                                                    "not run")]
    return out


def document(data):
    """docs/BENCHMARKS-argsort.md: the section alone, under a line naming the run."""
    sources = [f"the argsort rows of {run_name(data)} (`benches/sort/argsort.rs`, `ci/argsort_libs.py`)"] if (
        data.bench or data.machine) else []
    lead = page_lead(data, sources, "`ci/report/report.py argsort` (`ci/report/report_argsort.py`)")
    head = (f"{lead}; pinned rates of that run: {bandwidth_text(data)}. The full report (`ci/report.sh`) renders the "
            "same section into docs/BENCHMARKS.md; Python's figures are in docs/BENCHMARKS-python.md.\n")
    body = sections(data)[1:] or ["No argsort rows in this run.\n"]
    return "\n".join(["# Argsort\n", head] + body)
