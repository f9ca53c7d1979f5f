"""The low-memory section of BENCHMARKS.md, from benches/sort/lowmem.rs: device-resident
sorts of buffers that leave too little free memory for a normal sort's scratch, against the normal
sort of the same keys at a size that fits, extrapolated at its per-key rate, in the same run."""

from report_fmt import fmt_ms, num, size_label, table

GROUP = "lowmem-device"
SHAPES = {"keys-u32": "u32 keys", "kvp": "`Kvp` pairs (stable)"}
# The targets: u32 keys filling 80% of the free memory within 2.5x of the normal sort,
# stable Kvp pairs filling 70% within 4x.
TARGETS = {"keys-u32": (80, 2.5), "kvp": (70, 4.0)}


def rows(data):
    return [(k, r) for k, r in data.bench.items() if k[0] == GROUP and "-normal" not in k[1]]


def count(n):
    """An item count: exact where it is a round size, else in G (2^30) to one place."""
    exact = size_label(n)
    return exact if not exact.isdigit() or n < 2**30 else f"{n / 2**30:.1f}G"


def gib(n, item):
    return f"{n * item / 2**30:.1f} GiB"


def section_table(data):
    out = []
    def order(kr):
        sort, n = kr[0][1], kr[0][3]
        return sort.rsplit("-", 2)[0], n, sort

    for (_, sort, _, n), r in sorted(rows(data), key=order):
        shape = sort.rsplit("-", 2)[0]
        kind = "beside ballast" if "-fill-" in sort else "the data filling the device"
        fill = r.get("fill_percent")
        ms, normal = data.ms(GROUP, sort, "random", n), r.get("normal_ms")
        ratio = ms / normal if num(ms) and num(normal) else None
        goal_fill, goal = TARGETS.get(shape, (None, None))
        target = f"≤ {goal:g}×" if fill == goal_fill else ""
        met = "" if not target or ratio is None else "yes" if ratio <= goal else "no"
        item = 4 if shape == "keys-u32" else 8
        out.append([SHAPES.get(shape, shape), f"{fill}%" if fill else "", kind, count(n), gib(n, item), fmt_ms(ms),
                    fmt_ms(normal), "" if ratio is None else f"{ratio:.2f}×", target, met])
    header = ["data", "fill", "memory", "n", "bytes", "ms", "normal sort, extrapolated", "ratio", "target", "met"]
    return table(header, out, ["---", "---:", "---", "---:", "---:", "---:", "---:", "---:", "---", "---"])


def sections(data):
    """The section as markdown chunks; none when the run measured no low-memory sorts."""
    if not rows(data):
        return []
    normals = [(k[1], k[3], data.ms(GROUP, k[1], "random", k[3])) for k in data.bench
               if k[0] == GROUP and k[1].endswith("-normal")]
    basis = "; ".join(f"{SHAPES.get(s[:-7], s)}: {fmt_ms(ms)} ms at {size_label(n)}" for s, n, ms in normals)
    return [
        "## Sorts beside little free memory\n",
        "`sort_keys_device` / `sort_kvp_device` of buffers whose normal scratch the free memory cannot hold: the "
        "fill is the data's share of the free memory (what `cuMemGetInfo` reports with gpusort's pool given back), "
        "the rest left free by ballast allocations or by nothing else being on the device. The sort cuts the data "
        "into runs sorted in place and merges them through one buffer of the free memory "
        "([docs/embedding.md](embedding.md)). CUDA events around the call, median of the runs (one at full size); "
        "every result checked sorted and a permutation of the input, the pairs stable. The normal sort of the same "
        f"data at a size that fits sets the per-item rate the ratio extrapolates ({basis}).\n",
        section_table(data) + "\n",
    ]
