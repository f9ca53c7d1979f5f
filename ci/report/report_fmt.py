"""Number and table formatting shared by ci/report/report.py and its report modules."""


def size_label(n):
    for shift, unit in ((30, "G"), (20, "M"), (10, "K")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return str(n)


def fmt_ms(v):
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def num(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else None


def ratio(theirs, ours):
    """Their time over ours: above 1 means gpusort is faster."""
    t, o = num(theirs), num(ours)
    if t is None or o is None:
        return ""
    r = t / o
    return f"{r:.0f}×" if r >= 100 else f"{r:.2f}×" if r < 10 else f"{r:.1f}×"


def rate(n, ms):
    """Pairs per second, in the unit that reads best."""
    m = num(ms)
    if m is None:
        return ""
    per_s = n / (m / 1e3)
    return f"{per_s / 1e9:.2f} G" if per_s >= 1e9 else f"{per_s / 1e6:.0f} M"


def table(header, rows, align=None):
    align = align or ["---:"] * len(header)
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)
