"""The pages of docs/ are what their data renders: every committed page equals the page made from
its committed docs/data/ file, and a page's tables go through the data and back unchanged."""

import json
import os

import report_pages
import report_python


def test_committed_pages_equal_their_data():
    assert report_pages.pages(check=True) == []


def test_every_benchmark_page_has_data():
    docs = report_pages.DOCS
    pages = {f[:-3] for f in os.listdir(docs) if f.startswith("BENCHMARKS") and f.endswith(".md")}
    assert pages <= set(report_pages.names())
    for name in pages:
        with open(os.path.join(docs, f"{name}.md"), encoding="utf-8") as f:
            assert f.readline().rstrip("\n") == report_pages.HEADER.format(name=name)


def test_cells_as_data():
    value = report_pages.cell_value
    assert value("16") == 16 and value("0.619") == 0.619 and value("failed") == "failed"
    assert value("**0.619 ms**") == {"v": 0.619, "unit": " ms", "bold": True}
    assert value("1.50×") == {"v": 1.5, "d": 2, "unit": "×"}
    assert value("10.0 (?)") == "10.0 (?)" and value("**7") == "**7" and value("007") == "007"
    for text in ("16", "0.10", "**1.20x**", "64M", "2504 ms", "", "1.2.3", "-0.5", "55.4 GB/s"):
        assert report_pages.cell_text(value(text)) == text


def test_page_round_trip(tmp_path):
    page = "# T\n\nprose 1.5 ms\n\n| a | b |\n| --- | ---: |\n| x | **1.50 ms** |\n|  | 3 |\n\nafter\n"
    blocks = report_pages.parse(page)
    assert [list(b) for b in blocks] == [["text"], ["columns", "align", "rows"], ["text"]]
    assert blocks[1]["rows"] == [["x", {"v": 1.5, "d": 2, "unit": " ms", "bold": True}], ["", 3]]
    assert json.loads(report_pages.dump(blocks)) == {"blocks": blocks}
    path = tmp_path / "docs" / "BENCHMARKS-t.md"
    path.parent.mkdir()
    report_pages.write_page(str(path), page)
    data = tmp_path / "docs" / "data"
    assert json.loads((data / "BENCHMARKS-t.json").read_text()) == {"blocks": blocks}
    assert path.read_text() == report_pages.HEADER.format(name="BENCHMARKS-t") + "\n" + page
    assert report_pages.pages(check=True, docs=str(tmp_path / "docs")) == []


def test_python_table_from_bench_json():
    bench = {"rows": [
        {"where": "host", "what": "keys u32", "n": 1 << 26, "gpusort_s": 0.0125, "numpy_s": 9.0},
        {"where": "host", "what": "argsort f32", "n": 1 << 26, "gpusort_s": 0.064766, "numpy_s": None},
        {"where": "torch", "what": "keys i32", "n": 1 << 14, "gpusort_ms": 0.05, "lib_ms": 0.1, "call_us": 13.7,
         "python_us": 4.6},
        {"where": "cupy", "what": "argsort i32", "n": 1 << 14, "gpusort_ms": 0.104, "lib_ms": 0.109, "speedup": 1.04},
    ]}
    lines = report_python.table(bench)
    assert lines[2:] == [
        "| host | keys u32 (vs numpy) | 67,108,864 | 12.500 | 9000.000 | 720.00x | - | - |",
        "| host | argsort f32 | 67,108,864 | 64.766 | - | - | - | - |",
        "| torch | keys i32 (vs torch) | 16,384 | 0.050 | 0.100 | 2.00x | 13.7 | 4.6 |",
        "| cupy | argsort i32 (vs cupy) | 16,384 | 0.104 | 0.109 | 1.04x | - | - |",
    ]
    assert report_python.table({"rows": report_python.rows_from_table(lines)}) == lines


def test_python_page_reads_bench_json():
    with open(os.path.join(report_pages.DATA, "BENCHMARKS-python.json"), encoding="utf-8") as f:
        blocks = json.load(f)["blocks"]
    assert {"python_bench": "python-bench.json"} in blocks
    with open(os.path.join(report_pages.DATA, "python-bench.json"), encoding="utf-8") as f:
        rows = json.load(f)["rows"]
    assert len(rows) == 44 and all({"where", "what", "n"} <= set(r) for r in rows)


def test_run_keeps_the_hand_written_part(tmp_path):
    docs = tmp_path / "docs"
    (docs / "data").mkdir(parents=True)
    old = "# P\n\n| n | ms |\n| --- | --- |\n| 1 | 2.5 |\n\n## By hand\n\nkept 7 ms\n"
    (docs / "data" / "BENCHMARKS-p.json").write_text(report_pages.dump(report_pages.parse(old), "## By hand"))
    report_pages.write_page(str(docs / "BENCHMARKS-p.md"), "# P\n\n| n | ms |\n| --- | --- |\n| 1 | 1.5 |\n")
    new = (docs / "BENCHMARKS-p.md").read_text().split("\n", 1)[1]
    assert new == "# P\n\n| n | ms |\n| --- | --- |\n| 1 | 1.5 |\n\n## By hand\n\nkept 7 ms\n"
    assert json.loads((docs / "data" / "BENCHMARKS-p.json").read_text())["keep_from"] == "## By hand"


def test_dask_table_from_bench_json():
    import report_dask

    bench = {"rows": 50_000_000, "runs": [{"name": "pandas", "total_s": 20.0, "run_s": 19.0, "partition_sorts_s": 9.5},
                                          {"name": "gpusort", "total_s": 10.0, "run_s": 9.0, "partition_sorts_s": 2.25,
                                           "rest_s": 6.76}]}
    assert report_dask.table(bench)[2:] == ["| pandas | 20.00 | 19.00 | 9.50 | 9.50 | 2.5 |",
                                            "| gpusort | 10.00 | 9.00 | 2.25 | 6.76 | 5.0 |"]
    with open(os.path.join(report_pages.DATA, "BENCHMARKS-dask.json"), encoding="utf-8") as f:
        blocks = json.load(f)["blocks"]
    assert [b["dask_bench"] for b in blocks if "dask_bench" in b] == ["dask-bench-cpu.json", "dask-bench-gpu.json"]


def test_prose_is_wrapped_tables_and_code_are_not():
    long = " ".join(["word"] * 40)
    table = "| " + "x | " * 60
    lines = report_pages.wrap_prose([long, "- " + long, table, "```", long, "```"])
    prose = lines[: lines.index(table)]
    item = next(k for k, l in enumerate(prose) if l.startswith("- "))
    assert all(len(l) <= 120 for l in prose) and item > 0 and len(prose) > item + 1
    assert " ".join(" ".join(prose).split()) == " ".join([long, "-", long])
    assert all(l.startswith("  word") for l in prose[item + 1:])  # a list item's lines stay under it
    assert table in lines and long in lines  # the table row and the code line stay whole


def test_marked_tables_render_from_their_data(tmp_path):
    import report_tables

    page = tmp_path / "notes.md"
    page.write_text("# Notes\n\n| n | ms |\n| ---: | ---: |\n| 1M | 0.102 |\n\n| module | job |\n| --- | --- |\n| a | b |\n")
    tables = tmp_path / "tables"
    assert len(report_tables.mark(str(page), str(tables))) == 1  # the table of figures, not the other
    text = page.read_text()
    assert text.count("<!-- table notes#0:") == 1 and "| 1M | 0.102 |" in text
    data = json.loads((tables / "notes.json").read_text())
    data["blocks"][0]["rows"][0][1] = 0.25
    (tables / "notes.json").write_text(json.dumps(data))
    assert "| 1M | 0.25 |" in report_tables.render(str(page), str(tables))


def test_hand_written_pages_tables_equal_their_data():
    import report_tables

    assert report_tables.pages(check=True) == []
