"""A page of one section of the GPU report, from a run's JSON lines (benches/sort's GPUSORT_BENCH_JSON
and the anchors' lines in the same raw.jsonl): docs/BENCHMARKS-topk.md, -segments.md, -records.md and
-small-keys.md, so the next run that measures those rows writes the page (ci/report/report.py section
NAME)."""

import report_host
import report_segments
import report_small_keys
import report_topk
from report_machine import page_lead, run_name

# name -> (title, the report module, where the rows come from)
PAGES = {
    "topk": ("Top-k", report_topk, "`benches/sort/topk.rs`, `ci/topk_torch.py`"),
    "segments": ("Segmented sorts", report_segments, "`benches/sort/segments.rs`, `benches/cub/cub_segmented.cu`"),
    "records": ("Host to host: records by key, argsort and the PCIe floor", report_host, "the host tables of "
                "`benches/sort/`"),
    "small-keys": ("Small keys: 8 and 16 bits, float16 and bfloat16", report_small_keys,
                   "`benches/sort/small_keys.rs`, `ci/half_libs.py`"),
}


def document(data, name):
    title, module, rows_from = PAGES[name]
    sources = [f"the {name} rows of {run_name(data)} ({rows_from})"] if data.bench or data.machine else []
    lead = page_lead(data, sources, f"`ci/report/report.py section {name}` (`ci/report/report_sections.py`)")
    head = f"{lead}. The full report (`ci/report.sh`) renders the same section into docs/BENCHMARKS.md.\n"
    body = module.sections(data)
    if name != "records":  # one section: the page's title stands for its heading
        body = body[1:]
    if not body:
        return "\n".join([f"# {title}\n", head, f"No {name} rows in this run.\n"])
    method, missing = module.method(data), module.missing(data)
    out = [f"# {title}\n", head] + body
    if method:
        out += ["## How it was measured\n", method]
    if missing:
        out += ["## Not measured\n", "".join(f"- {m}\n" for m in missing)]
    return "\n".join(out)
