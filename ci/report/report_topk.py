"""The top-k section of BENCHMARKS.md, from benches/sort/topk.rs: the k smallest of n random
u32 keys with their positions, gpusort beside torch.topk on the same keys in the same run
(ci/topk_torch.py), on the GPU and host to host."""

from report_fmt import fmt_ms, num, ratio, size_label, table
from report_host import anchor_missing, at_least, verdict

# The target for keys already on the GPU: at least torch.topk.
TARGET = 1.0


def plan(data):
    """(n, k) of every top-k row, in order."""
    return sorted({(k[3], r["k"]) for k, r in data.bench.items() if k[0] == "topk" and r.get("k")})


def ms(data, sort, n):
    return data.ms("topk", sort, "random", n)


def torch_ms(data, where, k, n):
    return (data.torch_topk.get((where, k, n)) or {}).get("median_ms")


def bold(v):
    return f"**{fmt_ms(v)}**" if num(v) else fmt_ms(v)


def device_table(data):
    rows = []
    for n, k in plan(data):
        ours, theirs = ms(data, f"cuda-device-topk-{k}", n), torch_ms(data, "device", k, n)
        if ours is None:
            continue
        met = verdict([at_least(theirs, ours, TARGET)])
        rows.append([size_label(k), bold(ours), fmt_ms(theirs), ratio(theirs, ours), f"≥ {TARGET:g}× torch", met])
    header = ["k", "**gpusort `top_k_device`**", "torch.topk", "torch / gpusort", "target", "met"]
    return table(header, rows, ["---:"] * 4 + ["---", "---"]) if rows else ""


def host_table(data):
    cpu_tensor = any(w == "cpu" for w, _, _ in data.torch_topk)
    rows = []
    for n, k in plan(data):
        auto, cuda, cpu = (ms(data, f"{s}-topk-{k}", n) for s in ("auto", "cuda", "cpu"))
        if auto is None and cuda is None and cpu is None:
            continue
        trip = torch_ms(data, "host", k, n)
        row = [size_label(k), bold(auto), fmt_ms(cuda), fmt_ms(cpu), fmt_ms(trip), ratio(trip, auto)]
        rows.append(row + ([fmt_ms(torch_ms(data, "cpu", k, n))] if cpu_tensor else []))
    header = ["k", "**gpusort `auto()`**", "`cuda()` (GPU selects)", "`cpu()` (host selects)", "torch.topk round trip",
              "torch round trip / `auto()`"] + (["torch.topk on a CPU tensor"] if cpu_tensor else [])
    return table(header, rows) if rows else ""


def has_rows(data):
    return bool(plan(data))


def sections(data):
    """The section as markdown chunks for the GPU report; none when the run measured no top-k."""
    if not has_rows(data):
        return []
    ns = sorted({n for n, _ in plan(data)})
    out = ["## Top-k\n"]
    out.append(
        f"The k smallest of {' and '.join(size_label(n) for n in ns)} random u32 keys, ascending, with their input "
        "positions (`Sorter::top_k`); torch.topk (`largest=False, sorted=True`) on the same keys as int32 with the top "
        "bit flipped, which orders as u32, measured after the gpusort benches in the same run. Milliseconds, median; "
        "a ratio is torch's time over gpusort's: above 1× gpusort is faster.\n"
    )
    dev = device_table(data)
    if dev:
        out.append("Keys already on the GPU: `Sorter::top_k_device` against torch.topk on a CUDA tensor.\n")
        out.append(dev + "\n")
    host = host_table(data)
    if host:
        full = ms(data, "cuda-sort-all", ns[-1])
        out.append(
            "Host to host: the keys in a `Vec` in ordinary host memory, wall time until the keys and positions are "
            "back in host memory. `Sorter::auto()` picks the backend by k; `cuda()` always selects on the GPU, `cpu()` "
            "on the host's cores. torch's round trip starts from a CPU tensor: upload, torch.topk on the GPU, values "
            "and indices back."
            + (f" For scale, the full sort of the same keys (`Sorter::cuda()`, `sort_keys`, host to host) took "
               f"{fmt_ms(full)} ms in this run." if num(full) else "")
            + "\n"
        )
        out.append(host + "\n")
    return out


def method(data):
    """The 'How it was measured' bullet."""
    if not has_rows(data):
        return ""
    return (
        "- **Top-k.** `benches/sort/topk.rs`, in the host tables. `top_k_device`: the keys uploaded once, CUDA events "
        "around the call, median of 15 after 3 warm-ups, the result equal to the host top-k's. Host rows: the plain "
        "loop of the host tables, wall time, median, every result checked (keys ascending, each the input's key at its "
        "position, and the k-th key splitting the input). torch: `ci/topk_torch.py --json`, median of 11 after 2 warm-ups; on the GPU CUDA "
        "events around torch.topk, the round trip wall time; its result checked against NumPy.\n"
    )


def missing(data):
    if not has_rows(data):
        return []
    return anchor_missing("torch.topk", bool(data.torch_topk), data.notes.get("torch-topk"),
                          "no torch.topk timings in this run")
