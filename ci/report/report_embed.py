"""The embedded-calls section of BENCHMARKS.md, from benches/sort/embed.rs: each
device-resident call on the pool's scratch (direct), on scratch the caller lent (scratch), and
captured into a CUDA graph with that scratch and replayed (graph), in the same run."""

from report_fmt import fmt_ms, num, size_label, table

GROUP = "embed-device"
MODES = ("direct", "scratch", "graph")
# The targets: caller scratch at least as fast as today's call; replays within 5% of it.
SCRATCH_MAX, GRAPH_MAX = 1.0, 1.05
# Two medians of the same kernels differ by this much between rounds: "at least as fast" allows it.
NOISE = 0.02


def calls(data):
    """(call, n) of every row, in the bench's order."""
    seen = []
    for g, sort, _, n in data.bench:
        if g == GROUP and sort.endswith("-direct") and (sort[: -len("-direct")], n) not in seen:
            seen.append((sort[: -len("-direct")], n))
    return seen


def quotient(a, b):
    return a / b if num(a) and num(b) else None


def met(q, limit):
    return "" if q is None else "yes" if q <= limit + NOISE else "no"


def section_table(data):
    rows = []
    for call, n in calls(data):
        direct, scratch, graph = (data.ms(GROUP, f"{call}-{m}", "random", n) for m in MODES)
        s, g = quotient(scratch, direct), quotient(graph, direct)
        rows.append([f"`{call}`", size_label(n), fmt_ms(direct), fmt_ms(scratch), fmt_ms(graph),
                     "" if s is None else f"{s:.3f}", met(s, SCRATCH_MAX), "" if g is None else f"{g:.3f}",
                     met(g, GRAPH_MAX)])
    header = ["call", "n", "direct", "caller scratch", "graph replay", "scratch / direct", "≤ 1", "graph / direct",
              "≤ 1.05"]
    return table(header, rows, ["---", "---:"] + ["---:"] * 7)


def sections(data):
    """The section as markdown chunks; none when the run measured no embedded calls."""
    if not calls(data):
        return []
    return [
        "## Embedded device calls\n",
        "Keys already on the GPU, uniform random, ascending: each call as a program that embeds it makes it. "
        "`direct` takes its scratch from gpusort's stream-ordered pool (`sort_keys_device`, …); `caller scratch` "
        "carves it from a buffer the caller allocated once (`sort_keys_device_with_scratch`, …); `graph replay` is "
        "that call captured into a CUDA graph once and the graph launched. Milliseconds, median of 15 after 3 "
        "warm-ups, CUDA events around the call or the launch alone; the first result of each checked against the "
        f"CPU backend. Targets: caller scratch no slower than direct, replays within 5% (a "
        f"{NOISE:.0%} allowance for the spread between medians).\n",
        section_table(data) + "\n",
    ]
