"""The chart of BENCHMARKS.md and the README: log-log time against n for uniform random pairs."""

import math

from report_fmt import num, size_label
from report_machine import gpu_name

def svg_chart(data, ref):
    """Log-log time vs n for uniform random pairs, like the seed's chart, our lines added."""
    seed, sample = ref["seed_gtx680"], ref["nvidia_sample"]
    dev = lambda sort: {n: data.ms("cuda-device", sort, "random", n) for n in data.sizes("random")}
    series = [
        # label, points, colour, dash, width
        ("GTX 680 bitonic (seed, 2013)", seed["bitonic_ms"], "#9e9e9e", "6 4", 2),
        ("GTX 680 odd-even (seed, 2013)", seed["odd_even_ms"], "#616161", "2 3", 2),
        ("NVIDIA sample bitonic (H200, quoted)", sample["bitonic_ms"], "#f4a261", "6 4", 2),
        ("NVIDIA sample odd-even (H200, quoted)", sample["odd_even_ms"], "#e76f51", "2 3", 2),
        ("CUB SortPairs (measured)", {k[2]: v for k, v in data.cub.items() if k[:2] == ("pairs_dbuf", "random")},
         "#000000", "", 2),
        ("torch sort + gather", {k[1]: r.get("pairs_ms") for k, r in data.torch.items() if k[0] == "random"},
         "#8e44ad", "4 2", 1.5),
        ("gpusort radix", dev("radix"), "#1f77b4", "", 3),
        ("gpusort bitonic", dev("bitonic"), "#2ca02c", "", 3),
        ("gpusort odd-even", dev("odd-even"), "#d62728", "", 3),
        ("gpusort radix, host to host", {n: data.ms("cuda-host", "radix", "random", n) for n in data.sizes("random")},
         "#1f77b4", "8 3 2 3", 1.5),
    ]
    series = [(lab, {n: v for n, v in pts.items() if num(v)}, c, d, w) for lab, pts, c, d, w in series]
    series = [s for s in series if s[1]]
    all_n = [n for s in series for n in s[1]]
    all_t = [v for s in series for v in s[1].values()]
    if not all_n:
        return None
    x0, x1 = math.log2(min(all_n)), math.log2(max(all_n))
    y0, y1 = math.floor(math.log10(min(all_t))), math.ceil(math.log10(max(all_t)))
    if x1 == x0:
        x0, x1 = x0 - 1, x1 + 1
    if y1 == y0:
        y1 += 1
    W, H, L, R, T, B = 1000, 560, 70, 320, 60, 60
    pw, ph = W - L - R, H - T - B
    px = lambda n: L + (math.log2(n) - x0) / (x1 - x0) * pw
    py = lambda ms: T + (y1 - math.log10(ms)) / (y1 - y0) * ph
    esc = lambda s: s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    o = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
        'font-family="Helvetica, Arial, sans-serif" font-size="12">',
        f'<rect width="{W}" height="{H}" fill="#ffffff"/>',
        f'<text x="{L}" y="24" font-size="16" font-weight="bold">Sorting n (u32 key, u32 value) pairs, uniform random'
        " keys: time vs n</text>",
        f'<text x="{L}" y="44" fill="#444">{esc(gpu_name(data))}, {esc(data.machine.get("date", "")[:10])}; data on '
        "the GPU except the host-to-host line; log-log; lower is better</text>",
    ]
    for e in range(int(y0), int(y1) + 1):
        y = py(10**e)
        o.append(f'<line x1="{L}" y1="{y:.1f}" x2="{L + pw}" y2="{y:.1f}" stroke="#e0e0e0"/>')
        label = f"{10**e:g}" if e >= -3 else f"1e{e}"
        o.append(f'<text x="{L - 8}" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
    for b in range(int(x0), int(x1) + 1):
        x = px(2**b)
        o.append(f'<line x1="{x:.1f}" y1="{T}" x2="{x:.1f}" y2="{T + ph}" stroke="#f0f0f0"/>')
        if (b - int(x0)) % 2 == 0 or x1 - x0 <= 8:
            o.append(f'<text x="{x:.1f}" y="{T + ph + 18}" text-anchor="middle">{size_label(2**b)}</text>')
    o.append(f'<rect x="{L}" y="{T}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>')
    o.append(f'<text x="{L + pw / 2}" y="{H - 14}" text-anchor="middle">n (pairs)</text>')
    o.append(
        f'<text x="18" y="{T + ph / 2}" text-anchor="middle" transform="rotate(-90 18 {T + ph / 2})">'
        "milliseconds per sort</text>"
    )
    for i, (label, pts, colour, dash, width) in enumerate(series):
        ns = sorted(pts)
        d = " ".join(f"{'M' if j == 0 else 'L'}{px(n):.1f},{py(pts[n]):.1f}" for j, n in enumerate(ns))
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        o.append(f'<path d="{d}" fill="none" stroke="{colour}" stroke-width="{width}"{dash_attr}/>')
        for n in ns:
            o.append(f'<circle cx="{px(n):.1f}" cy="{py(pts[n]):.1f}" r="{1 + width / 2:.1f}" fill="{colour}"/>')
        ly = T + 10 + i * 22
        o.append(
            f'<line x1="{L + pw + 16}" y1="{ly}" x2="{L + pw + 46}" y2="{ly}" stroke="{colour}" '
            f'stroke-width="{width}"{dash_attr}/>'
        )
        o.append(f'<text x="{L + pw + 52}" y="{ly + 4}">{esc(label)}</text>')
    o.append("</svg>")
    return "\n".join(o) + "\n"
