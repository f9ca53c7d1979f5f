"""The measurements of one report run, read from the JSON lines of ci/report.sh's raw.jsonl, and
the quoted reference figures (ci/report/reference.json)."""

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
        self.torch = {}  # (pattern, n) -> record
        self.machine = {}  # key -> text
        self.meta = {}  # bench/cub/torch "kind" lines: kind -> text
        self.notes = {}  # src -> why it was not measured
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
                elif src == "cub":
                    self.cub[(r["what"], r["pattern"], r["n"])] = r["median_ms"]
                elif src == "torch":
                    self.torch[(r["pattern"], r["n"])] = r

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


def load_reference():
    with open(os.path.join(HERE, "report", "reference.json"), encoding="utf-8") as f:
        ref = json.load(f)
    for key in ("seed_gtx680", "nvidia_sample"):
        for col in ("bitonic_ms", "odd_even_ms"):
            ref[key][col] = {int(n): v for n, v in ref[key][col].items()}
    return ref
