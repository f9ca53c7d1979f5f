"""The small-keys section of BENCHMARKS.md, from benches/sort/small_keys.rs (groups small-keys-host and
small-keys-device) and ci/half_libs.py (src "half-libs": gpusort, torch and CuPy on 16-bit keys in one
process): 8- and 16-bit keys host to host against the PCIe floor at their own width, device-resident
against our own u32 sort of the same count, float16 and bfloat16 beside torch.sort and torch.argsort."""

from report_fmt import fmt_ms, num, ratio, size_label, table
from report_host import anchor_missing, at_least, verdict

HOST, DEVICE = "small-keys-host", "small-keys-device"
HOST_TYPES, DEVICE_TYPES = ("u8", "u16", "f16"), ("u8", "u16", "f16", "bf16")
# The targets: host to host within 1.5x of the floor; 16-bit keys on the device 1.6x our u32 sort;
# float16 / bfloat16 1.3x torch's stable sort and argsort.
HOST_MAX, DEVICE_MIN, TORCH_MIN = 1.5, 1.6, 1.3


def sizes(data, group):
    return sorted({k[3] for k in data.bench if k[0] == group})


def host_table(data):
    rows = []
    for n in sizes(data, HOST):
        for t in HOST_TYPES:
            r = data.bench.get((HOST, f"cuda-{t}", "random", n))
            if r is None:
                continue
            ours, floor, cpu = data.ms(HOST, f"cuda-{t}", "random", n), r.get("floor_ms"), data.ms(HOST, f"cpu-{t}", "random", n)
            within = at_least(HOST_MAX * floor, ours) if num(floor) else None
            rows.append([f"`{t}`", size_label(n), f"**{fmt_ms(ours)}**", fmt_ms(floor),
                         f"{ours / floor:.2f}×" if num(ours) and num(floor) else "", f"≤ {HOST_MAX:g}× floor",
                         verdict([within]), fmt_ms(cpu)])
    header = ["keys", "n", "**`Sorter::cuda()`**", "PCIe floor", "/ floor", "target", "met", "CPU backend"]
    return table(header, rows, ["---", "---:", "---:", "---:", "---:", "---", "---", "---:"]) if rows else ""


def device_table(data):
    rows = []
    for n in sizes(data, DEVICE):
        anchor = {op: data.ms(DEVICE, f"{op}-u32", "random", n) for op in ("keys", "argsort")}
        for t in DEVICE_TYPES:
            keys, arg = data.ms(DEVICE, f"keys-{t}", "random", n), data.ms(DEVICE, f"argsort-{t}", "random", n)
            if keys is None and arg is None:
                continue
            wide16 = t != "u8"
            met = verdict([at_least(anchor["keys"], keys, DEVICE_MIN)]) if wide16 else ""
            rows.append([f"`{t}`", size_label(n), f"**{fmt_ms(keys)}**", ratio(anchor["keys"], keys),
                         f"≥ {DEVICE_MIN:g}×" if wide16 else "", met, f"**{fmt_ms(arg)}**", ratio(anchor["argsort"], arg)])
        rows.append(["`u32` (anchor)", size_label(n), fmt_ms(anchor["keys"]), "", "", "", fmt_ms(anchor["argsort"]), ""])
    header = ["keys", "n", "**keys**", "u32 / this", "target", "met", "**argsort** (u64)", "u32 / this"]
    return table(header, rows, ["---", "---:", "---:", "---:", "---", "---", "---:", "---:"]) if rows else ""


def torch_table(data):
    rows = []
    for (lib, dtype, op, n), ours in sorted(data.half_libs.items()):
        if lib != "gpusort":
            continue
        torch, cupy = data.half_libs.get(("torch", dtype, op, n)), data.half_libs.get(("cupy", dtype, op, n))
        rows.append([dtype, op, size_label(n), f"**{fmt_ms(ours)}**", fmt_ms(torch), ratio(torch, ours),
                     f"≥ {TORCH_MIN:g}×", verdict([at_least(torch, ours, TORCH_MIN)]), fmt_ms(cupy)])
    header = ["dtype", "call", "n", "**gpusort**", "torch (stable)", "torch / gpusort", "target", "met", "CuPy"]
    return table(header, rows, ["---", "---", "---:", "---:", "---:", "---:", "---", "---", "---:"]) if rows else ""


def has_rows(data):
    return bool(sizes(data, HOST) or sizes(data, DEVICE) or data.half_libs)


def sections(data):
    """The section as markdown chunks; none when the run measured no small keys."""
    if not has_rows(data):
        return []
    out = ["## Small keys: 8 and 16 bits, float16 and bfloat16\n"]
    host, device, torch = host_table(data), device_table(data), torch_table(data)
    if host:
        out += ["Host to host, random keys, milliseconds; the floor is the keys up and back at their own width at this "
                "run's pinned rates (`host-bw`). 8-bit keys alone sort by counting on both backends.\n", host + "\n"]
    if device:
        out += ["Keys already on the GPU, every 16-bit pattern (NaNs of both signs included); argsort into u64 "
                "positions as torch returns them. Our own u32 sort of the same count beside them.\n", device + "\n"]
    if torch:
        out += ["From Python, one process: torch.randn values rounded to the type, each library in its own float "
                "order (torch: NaN largest); stable sort and argsort.\n", torch + "\n"]
    return out


def method(data):
    """The 'How it was measured' bullet."""
    if not has_rows(data):
        return ""
    return (
        "- **Small keys.** `benches/sort/small_keys.rs`, in the host tables: host rows the plain loop of the host "
        "tables (wall time, median, every result equal to the CPU backend's), device rows CUDA events around "
        "`sort_keys_device` / `argsort_device` (median of 15 after 3 warm-ups, the first result checked against the "
        "CPU). Python: `ci/half_libs.py --json`, CUDA events on torch's current stream, median of 15 after 3 warm-ups, "
        "gpusort's results checked bit for bit against NumPy's stable order of the exact values.\n"
    )


def missing(data):
    if not has_rows(data):
        return []
    return anchor_missing("torch (float16 / bfloat16)", bool(data.half_libs), data.notes.get("half-libs"),
                          "no ci/half_libs.py rows in this run")
