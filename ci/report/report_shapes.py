"""The radix sort's other shapes beside CUB: split u32 pairs, i32 / f32 / u64 / f64 keys,
u64 keys with u32 values, and descending pairs and keys, device-resident, from one run
(benches/sort/shapes.rs and benches/cub/cub_bench.cu --shapes). Sizes the report's own run has no room
for come from a shapes-only run (ci/report.sh GPUSORT_REPORT_SHAPES_ONLY), gpusort and CUB in that
run (`Data.shapes_extra`)."""

from report_fmt import fmt_ms, num, ratio, size_label, table

# (title, gpusort row in group cuda-device, CUB "what")
SHAPES = [
    ("`Kvp` pairs", "radix", "pairs_dbuf"),
    ("split u32 pairs", "radix-pairs", "pairs_dbuf"),
    ("u32 keys", "radix-keys", "keys_dbuf"),
    ("i32 keys", "radix-keys-i32", "keys_i32"),
    ("f32 keys", "radix-keys-f32", "keys_f32"),
    ("u64 keys", "radix-keys-u64", "keys_u64"),
    ("f64 keys", "radix-keys-f64", "keys_f64"),
    ("u64 keys, u32 values", "radix-pairs-u64", "pairs_u64"),
    ("`Kvp` pairs, descending", "radix-desc", "pairs_desc"),
    ("u32 keys, descending", "radix-keys-desc", "keys_desc"),
]


# CUB's shapes run sorts u32 pairs and keys ascending through the same code as the other shapes
# (DoubleBuffer, the same keys): where the run has no pairs_dbuf / keys_dbuf row (a shapes-only
# run), those stand in.
SHAPES_RUN_NAME = {"pairs_dbuf": "pairs_u32", "keys_dbuf": "keys_u32"}


def shape_sizes(data):
    return sorted({k[3] for k in data.bench if k[0] == "cuda-device" and k[1] == "radix-keys-u64"})


def measured(data, sort, what, n):
    """(gpusort ms, CUB ms) of one shape and size, both from one run."""
    ours = data.ms("cuda-device", sort, "random", n)
    cub = data.cub.get((what, "random", n))
    if cub is None:
        cub = data.cub.get((SHAPES_RUN_NAME.get(what), "random", n))
    return ours, cub


def shapes_section(data):
    """The section, or [] when the run measured no shapes."""
    extra = data.shapes_extra
    own = shape_sizes(data)
    more = [n for n in shape_sizes(extra) if n not in own] if extra else []
    sizes = sorted(own + more)
    if not sizes:
        return []
    rows, behind = [], []
    for title, sort, what in SHAPES:
        for n in sizes:
            ours, cub = measured(extra if n in more else data, sort, what, n)
            r = ratio(cub, ours)
            if num(ours) and num(cub) and cub / ours < 1.0:
                behind.append(f"{title} at {size_label(n)}")
            rows.append([title, size_label(n), f"**{fmt_ms(ours)}**" if num(ours) else fmt_ms(ours), fmt_ms(cub), r])
    out = ["## Radix sort by key type and order, against CUB\n"]
    out.append(
        "Device-resident, uniform random keys from the splitmix64 stream seeded with n (32-bit keys its low "
        "half as `u32`, `i32` or `f32` bits, NaNs included; 64-bit keys all 64 bits, as `u64` or `f64`), values 0..n. gpusort: "
        "`sort_kvp_device`, `sort_keys_device` and `sort_pairs_device` (`benches/sort/shapes.rs`; the `Kvp` and "
        "`u32` keys rows are the tables' above); CUB 3 `DeviceRadixSort` with `DoubleBuffer` on the same keys "
        "(`benches/cub/cub_bench.cu --shapes`; `Kvp` rows against CUB's split pairs, which have no `Kvp` layout). "
        "Median of 15 after 3 warm-ups, input restored before each sort (not timed); each result checked. "
        "Ratio: CUB's time over gpusort's (target: at least 1.0× everywhere). CUB sorts `unsigned` "
        "keys ascending (the u32 keys row) slower than `int` keys or descending `unsigned` ones of the same "
        "bits (ncu of one pass: 74 registers a thread against `int`'s 56, fewer warps resident; docs/tuning.md), "
        "so the i32 and descending rows are the closer race.\n"
    )
    if more:
        when = extra.machine.get("date", "date unknown")
        commit = extra.machine.get("commit", "unknown")
        gpu = extra.machine.get("gpu", "GPU unknown")
        driver = extra.machine.get("driver", "unknown")
        out.append(
            f"Rows at {', '.join(size_label(n) for n in more)}: a second run ({gpu}, driver {driver}, {when}, "
            f"gpusort {commit}), gpusort and CUB both in it; the report's own run has no room for them.\n"
        )
    out.append(table(["shape", "n", "gpusort (ms)", "CUB (ms)", "CUB / gpusort"], rows,
                     ["---", "---:", "---:", "---:", "---:"]) + "\n")
    out.append(("Below CUB: " + "; ".join(behind) + ".\n") if behind else "At least CUB at every size shown.\n")
    return out
