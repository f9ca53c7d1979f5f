"""Two builds' measurements side by side (ci/report/report.py compare): the same benches run by a
reference build and a candidate build in one GPU session, several rounds each, so that a change
meant to keep the speed is checked against the noise of the run itself."""

import json
from collections import defaultdict

from report_fmt import fmt_ms, size_label


def medians(paths):
    """{(group, sort, pattern, n): [median_ms of each file]} of the bench's rows in `paths`."""
    rows = defaultdict(list)
    for path in paths:
        with open(path) as f:
            for line in f:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                if r.get("src") == "bench" and "median_ms" in r and r.get("median_ms") and not r.get("error"):
                    rows[(r["group"], r["sort"], r["pattern"], r["n"])].append(r["median_ms"])
    return rows


def spread(times):
    lo, hi = min(times), max(times)
    return fmt_ms(lo) if lo == hi else f"{fmt_ms(lo)}-{fmt_ms(hi)}"


def table(reference, candidate, names=("before", "after")):
    """Markdown rows: each measurement's range over the rounds in both builds, the ratio of their
    best rounds (above 1: the candidate is faster), and whether the ranges overlap (within the
    run's noise) or by how much the candidate is slower or faster."""
    ref, cand = medians(reference), medians(candidate)
    out = [f"| group | sort | pattern | n | {names[0]} ms | {names[1]} ms | {names[0]} / {names[1]} | |",
           "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for key in sorted(set(ref) & set(cand), key=lambda k: (k[0], k[1], k[2], k[3])):
        a, b = ref[key], cand[key]
        overlap = min(b) <= max(a) and min(a) <= max(b)
        verdict = "within noise" if overlap else ("faster" if min(b) < min(a) else "slower")
        out.append(f"| {key[0]} | {key[1]} | {key[2]} | {size_label(key[3])} | {spread(a)} | {spread(b)} | "
                   f"{min(a) / min(b):.3f} | {verdict} |")
    missing = sorted(set(ref) ^ set(cand))
    if missing:
        out.append(f"\n{len(missing)} rows measured by one build only: " + ", ".join(
            f"{g}/{s}/{p}/{size_label(n)}" for g, s, p, n in missing[:12]))
    return "\n".join(out)
