#!/usr/bin/env python3
"""Writes gpusort's benchmark report from the measurements of one run (Python 3 standard library only).

    ci/report/report.py render DATA.jsonl --out DIR [--cpu] [--shapes-extra SHAPES.jsonl] [--python-bench PY.json]
        GPU report: DIR/docs/BENCHMARKS.md, DIR/docs/bench.svg, DIR/docs/bench-headline.md
        (--flat: all three straight into DIR). --cpu: DIR/docs/BENCHMARKS-cpu.md only.
        --shapes-extra: a shapes-only run's data (ci/report.sh GPUSORT_REPORT_SHAPES_ONLY=1),
        whose other sizes join the table of radix shapes against CUB. --python-bench: the JSON of
        benches/python/bench.py (ci/python.sh gpu-test's python-bench.json), whose lexsort, pandas,
        torch and CuPy rows join the lexsort section
    ci/report/report.py lexsort [DATA.jsonl] --out DIR [--flat] [--python-bench PY.json]
        DIR/docs/BENCHMARKS-lexsort.md (--flat: DIR/BENCHMARKS-lexsort.md): the lexsort section
        alone, from either input or none (what is missing is marked not measured)
    ci/report/report.py argsort DATA.jsonl --out DIR [--flat]
        DIR/docs/BENCHMARKS-argsort.md (--flat: DIR/BENCHMARKS-argsort.md): the argsort section alone
        (its torch and CuPy rows from ci/argsort_libs.py lines in the same data)
    ci/report/report.py file RUN.jsonl [RUN2.jsonl ...] --out DIR [--flat]
        DIR/docs/BENCHMARKS-file.md: the external-sort section from ci/file_bench.sh runs
    ci/report/report.py shapes DATA.jsonl
        prints that table for a shapes-only run's data
    ci/report/report.py embed DATA.jsonl
        prints the embedded-calls and low-memory sections (benches/sort/embed.rs, lowmem.rs rows)
    ci/report/report.py torch --random N,N,... --patterns N,N,...
        times torch.sort on the GPU on the bench's inputs and prints JSON lines (needs torch, numpy)
    ci/report/report.py compare --before A.jsonl [A2.jsonl ...] --after B.jsonl [B2.jsonl ...]
        prints the two builds' medians side by side with their ratio and whether each row lies
        within the rounds' spread (ci/gpu.sh compare)
    ci/report/report.py section topk|segments|records|small-keys DATA.jsonl --out DIR [--flat]
        DIR/docs/BENCHMARKS-<name>.md (--flat: DIR/BENCHMARKS-<name>.md): that section of the GPU
        report alone, from a run's rows (a host-tables run, GPUSORT_BENCH_HOST=only, is enough)
    ci/report/report.py pages [--check] [--python-bench PY.json]
        renders every page of docs/data/ (PAGE.json: its prose, tables and figures) into docs/PAGE.md
        (report_pages); --check writes nothing and fails when a page differs from its data;
        --python-bench: benches/python/bench.py's JSON becomes docs/data/python-bench.json first (the
        table of docs/BENCHMARKS-python.md)
    ci/report/report.py transcribe docs/PAGE.md ...
        writes docs/data/PAGE.json from a page as it stands (the pages above write theirs themselves)
    ci/report/report.py plan DATA.jsonl segments|topk|argsort
        prints "N L,L,..." (segment lengths), "N K,K,..." (values of k) or "N,N,..." (argsort
        sizes): what the run's segment, top-k or device argsort rows measured, for ci/report.sh to
        run CUB, torch.topk and torch / cupy argsort on; nothing when none

DATA.jsonl holds one JSON object per line, each with "src": "bench" (benches/sort/,
GPUSORT_BENCH_JSON), "cub" (benches/cub/cub_bench.cu --json, and benches/cub/cub_segmented.cu --json with
"group": "segments"), "torch" (this script), "torch-topk" (ci/topk_torch.py --json), "argsort-torch"
and "argsort-cupy" (ci/argsort_libs.py --json), "cub-segments"
(only `absent` notes from ci/report.sh) or "machine" (ci/report.sh). Other lines are ignored. Quoted
figures come from ci/report/reference.json. ci/report.sh runs the whole thing; this script only reads
and writes files.
"""

# One job per module: report_data (reading the records), report_fmt (numbers and tables),
# report_machine (the machine section), report_gpu (BENCHMARKS.md), report_host (its host and
# out-of-core tables), report_cpu (the CPU tables, BENCHMARKS-cpu.md), report_svg (the chart),
# report_segments (segmented sorts beside CUB's), report_topk (top-k beside torch.topk),
# report_embed (embedded device calls), report_lowmem (low-memory sorts), report_argsort and
# report_lexsort (their sections), report_torch (the torch columns and PyTorch's round trip),
# report_sections (one section's page), report_pages (docs/ pages from docs/data/), report_python and
# report_dask (the Python and Dask pages' tables from their benches' JSON); this file is the command line.

import argparse
import os
import shutil
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the checkout for the modules below
from report_cpu import cpu_report  # noqa: E402
from report_data import Data, load_python_bench, load_reference  # noqa: E402
from report_gpu import gpu_report, headline  # noqa: E402
from report_lexsort import document as lexsort_document  # noqa: E402
import report_pages  # noqa: E402
from report_shapes import shapes_section  # noqa: E402
from report_svg import svg_chart  # noqa: E402
from report_torch import torch_bench, torch_host  # noqa: E402


def write(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    if path.endswith(".md"):  # a page: its figures as data beside it (docs/data/), the page rendered from them
        report_pages.write_page(path, text)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    print(f"wrote {path}")


def python_bench(path):
    """benches/python/bench.py's figures, or None (with a warning when a path named no file)."""
    found = load_python_bench(path)
    if path and found is None:
        print(f"--python-bench {path}: no such file; the Python rows are marked not measured", file=sys.stderr)
    return found


def render(args):
    data = Data(args.data)
    if args.shapes_extra:
        data.shapes_extra = Data(args.shapes_extra)
    data.python_bench = python_bench(args.python_bench)
    docs = args.out if args.flat else os.path.join(args.out, "docs")
    if args.cpu:
        write(os.path.join(docs, "BENCHMARKS-cpu.md"), cpu_report(data))
        return 0
    ref = load_reference()
    if not data.has_gpu():
        print("no GPU measurements in the data: the GPU report needs a CUDA device (try --cpu)", file=sys.stderr)
        return 1
    write(os.path.join(docs, "BENCHMARKS.md"), gpu_report(data, ref))
    svg = svg_chart(data, ref) if data.sizes("random") else None
    if svg:
        write(os.path.join(docs, "bench.svg"), svg)
    if data.sizes("random"):
        write(os.path.join(docs, "bench-headline.md"), headline(data, ref))
    return 0


def lexsort(args):
    if args.data and not os.path.exists(args.data):
        print(f"{args.data}: no such file; the Rust rows are marked not measured", file=sys.stderr)
    data = Data(args.data if args.data and os.path.exists(args.data) else None)
    data.python_bench = python_bench(args.python_bench)
    docs = args.out if args.flat else os.path.join(args.out, "docs")
    write(os.path.join(docs, "BENCHMARKS-lexsort.md"), lexsort_document(data))
    return 0


def argsort(args):
    from report_argsort import document as argsort_document

    docs = args.out if args.flat else os.path.join(args.out, "docs")
    write(os.path.join(docs, "BENCHMARKS-argsort.md"), argsort_document(Data(args.data)))
    return 0


def file_sort(args):
    from report_file import document as file_document

    docs = args.out if args.flat else os.path.join(args.out, "docs")
    write(os.path.join(docs, "BENCHMARKS-file.md"), file_document(args.data))
    return 0


def section(args):
    from report_sections import document as section_document

    docs = args.out if args.flat else os.path.join(args.out, "docs")
    write(os.path.join(docs, f"BENCHMARKS-{args.name}.md"), section_document(Data(args.data), args.name))
    return 0


def shapes(args):
    print("\n".join(shapes_section(Data(args.data))))
    return 0


def embed(args):
    import report_embed
    import report_lowmem

    data = Data(args.data)
    print("\n".join(report_embed.sections(data) + report_lowmem.sections(data)) or "no embed or lowmem rows")
    return 0


def plan(args):
    data = Data(args.data)
    if args.what == "argsort":
        got = data.argsort_plan()
        if got:
            print(",".join(str(x) for x in got[0]))
        return 0
    got = data.segments_plan() if args.what == "segments" else data.topk_plan()
    if got:
        print(got[0], ",".join(str(x) for x in got[1]))
    return 0


def pages(args):
    if args.python_bench:  # benches/python/bench.py's --out JSON: the Python page's table
        shutil.copyfile(args.python_bench, os.path.join(report_pages.DATA, "python-bench.json"))
    import report_tables

    stale = report_pages.pages(check=args.check) + report_tables.pages(check=args.check)
    for path in stale:
        print(f"{path}: {'differs from its data' if args.check else 'rewritten from its data'}")
    return 1 if args.check and stale else 0


def transcribe(args):
    import report_tables

    for page in args.page:
        if args.tables:  # a hand-written page: its tables of figures into docs/data/tables/, marked
            blocks = report_tables.mark(page)
            print(f"{page}: {len(blocks or [])} tables moved into docs/data/tables/")
        else:
            print(f"wrote {report_pages.transcribe(page)}")
    return 0


def compare(args):
    import report_compare

    print(report_compare.table(args.before, args.after))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("render")
    r.add_argument("data")
    r.add_argument("--out", default=".")
    r.add_argument("--cpu", action="store_true")
    r.add_argument("--flat", action="store_true")
    r.add_argument("--shapes-extra")
    r.add_argument("--python-bench")
    lx = sub.add_parser("lexsort")
    lx.add_argument("data", nargs="?")
    lx.add_argument("--out", default=".")
    lx.add_argument("--flat", action="store_true")
    lx.add_argument("--python-bench")
    s = sub.add_parser("shapes")
    s.add_argument("data")
    e = sub.add_parser("embed")
    e.add_argument("data")
    t = sub.add_parser("torch")
    t.add_argument("--random", default="")
    t.add_argument("--patterns", default="")
    h = sub.add_parser("torch-host")
    h.add_argument("--sizes", default="1048576,16777216,67108864,268435456")
    c = sub.add_parser("compare")
    c.add_argument("--before", nargs="+", required=True)
    c.add_argument("--after", nargs="+", required=True)
    a = sub.add_parser("argsort")
    a.add_argument("data")
    a.add_argument("--out", default=".")
    a.add_argument("--flat", action="store_true")
    fs = sub.add_parser("file")
    fs.add_argument("data", nargs="+")
    fs.add_argument("--out", default=".")
    fs.add_argument("--flat", action="store_true")
    sc = sub.add_parser("section")
    sc.add_argument("name", choices=["topk", "segments", "records", "small-keys"])
    sc.add_argument("data")
    sc.add_argument("--out", default=".")
    sc.add_argument("--flat", action="store_true")
    pg = sub.add_parser("pages")
    pg.add_argument("--check", action="store_true")
    pg.add_argument("--python-bench")
    tr = sub.add_parser("transcribe")
    tr.add_argument("page", nargs="+")
    tr.add_argument("--tables", action="store_true")
    p = sub.add_parser("plan")
    p.add_argument("data")
    p.add_argument("what", choices=["segments", "topk", "argsort"])
    args = ap.parse_args()
    commands = {"render": render, "lexsort": lexsort, "shapes": shapes, "torch": torch_bench, "torch-host": torch_host,
                "plan": plan, "embed": embed, "compare": compare, "file": file_sort, "argsort": argsort,
                "section": section, "pages": pages, "transcribe": transcribe}
    return commands[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
