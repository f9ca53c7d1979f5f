"""The measurements of one report run, read from the JSON lines of ci/report.sh's raw.jsonl, the
figures of benches/python/bench.py (its JSON), and the quoted reference figures
(ci/report/reference.json)."""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PATTERNS = ["random", "sorted", "reverse", "distinct16", "equal", "zipf"]
PATTERN_TITLES = {
    "random": "uniform random keys",
    "sorted": "sorted keys (0, 1, 2, ...)",
    "reverse": "reverse-sorted keys",
    "distinct16": "16 distinct keys",
    "equal": "all keys equal",
    "zipf": "Zipf-like keys (log-uniform ranks: rank r has probability about 1/(32 r))",
}

class Data:
    """Every measurement of a run, indexed by what was measured."""

    def __init__(self, path):
        self.bench = {}  # (group, sort, pattern, n) -> record
        self.cub = {}  # (what, pattern, n) -> ms
        self.cub_segments = {}  # (what, n) -> record (benches/cub/cub_segmented.cu: api, values, order, segment)
        self.torch = {}  # (pattern, n) -> record
        self.torch_topk = {}  # (where, k, n) -> record (ci/topk_torch.py --json)
        self.argsort_libs = {}  # (lib, key, n) -> ms (ci/argsort_libs.py --json: torch, cupy)
        self.half_libs = {}  # (lib, dtype, op, n) -> ms (ci/half_libs.py --json: gpusort, torch, cupy)
        self.machine = {}  # key -> text
        self.meta = {}  # bench/cub/torch "kind" lines: kind -> text
        self.notes = {}  # src -> why it was not measured
        self.shapes_extra = None  # a shapes-only run's Data (report_shapes), set by the caller
        self.python_bench = None  # benches/python/bench.py's figures (load_python_bench), set by the caller
        if path is None:  # no run: every section says what it lacks
            return
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                src = r.get("src")
                if src == "machine":
                    self.machine[r["key"]] = r["text"]
                elif r.get("kind") == "absent":
                    self.notes[src] = r["text"]
                elif "kind" in r:
                    self.meta[f"{src}-{r['kind']}"] = r["text"]
                elif src == "bench":
                    self.bench[(r["group"], r["sort"], r["pattern"], r["n"])] = r
                elif src == "cub" and r.get("group") == "segments":
                    # Apart from self.cub: these 64M rows would otherwise count as whole-input sorts.
                    self.cub_segments[(r["what"], r["n"])] = r
                elif src == "cub":
                    self.cub[(r["what"], r["pattern"], r["n"])] = r["median_ms"]
                elif src == "torch":
                    self.torch[(r["pattern"], r["n"])] = r
                elif src == "torch-topk":
                    self.torch_topk[(r["where"], r["k"], r["n"])] = r
                elif src == "half-libs":
                    self.half_libs[(r["lib"], r["dtype"], r["op"], r["n"])] = r["median_ms"]
                elif src in ("argsort-torch", "argsort-cupy"):
                    self.argsort_libs[(src[len("argsort-"):], r["key"], r["n"])] = r["median_ms"]

    def ms(self, group, sort, pattern, n):
        """Median milliseconds, or None (not measured), or a string (the error)."""
        r = self.bench.get((group, sort, pattern, n))
        if r is None:
            return None
        if r.get("error"):
            return "failed"
        return r.get("median_ms")

    def sizes(self, pattern, groups=("cuda-device", "cuda-host")):
        ns = {k[3] for k in self.bench if k[2] == pattern and k[0] in groups}
        ns |= {k[2] for k in self.cub if k[1] == pattern}
        ns |= {k[1] for k in self.torch if k[0] == pattern}
        return sorted(ns)

    def errors(self):
        return [r for r in self.bench.values() if r.get("error")]

    def has_gpu(self):
        return any(k[0].startswith("cuda") or k[0] == "host-bw" for k in self.bench)

    def segments_plan(self):
        """(n, segment lengths) of the device-resident u32 segment rows, what CUB's segmented sorts
        are run on; None when the run has none."""
        recs = [r for k, r in self.bench.items() if k[0] == "segments" and k[1].startswith("cuda-device-segments-")
                and "-u64-" not in k[1] and r.get("segment")]
        if not recs:
            return None
        return max(r["n"] for r in recs), sorted({r["segment"] for r in recs})

    def argsort_plan(self):
        """The sizes of the device-resident argsort rows, what torch.argsort and cupy.argsort are run
        on; None when the run has none."""
        ns = sorted({k[3] for k in self.bench if k[0] == "argsort-device"})
        return (ns,) if ns else None

    def topk_plan(self):
        """(n, ks) of the top-k rows, what torch.topk is run on; None when the run has none."""
        recs = [r for k, r in self.bench.items() if k[0] == "topk" and r.get("k")]
        if not recs:
            return None
        return max(r["n"] for r in recs), sorted({r["k"] for r in recs})


def load_python_bench(path):
    """The figures benches/python/bench.py wrote (its --out JSON: describe, version, rows), or None
    when the file is absent."""
    if not path or not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load_reference():
    with open(os.path.join(HERE, "reference.json"), encoding="utf-8") as f:
        ref = json.load(f)
    for key in ("seed_gtx680", "nvidia_sample"):
        for col in ("bitonic_ms", "odd_even_ms"):
            ref[key][col] = {int(n): v for n, v in ref[key][col].items()}
    return ref
