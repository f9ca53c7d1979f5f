"""The report renders every section from small fixture rows, computes its numbers and ratios from them,
and says what is missing instead of failing."""

import os
import subprocess
import sys

import report_argsort
import report_compare
import report_cpu
import report_gpu
import report_lexsort
from report_data import Data, load_reference
from rows import M, bench, fixture_rows, write_rows

REPORT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "report.py")
SECTIONS = [
    "Machine", "Headline", "Uniform random keys", "Sorted keys (0, 1, 2, ...)", "Reverse-sorted keys",
    "16 distinct keys", "All keys equal", "Host to host", "Host to host against the PCIe floor",
    "Argsort and records", "Lexsort", "Small keys: 8 and 16 bits, float16 and bfloat16", "Segmented sorts", "Top-k", "Out of core", "CPU sorts on this machine",
    "How it was measured", "Sources of the quoted columns",
]


def data_of(tmp_path, rows):
    return Data(write_rows(tmp_path / "raw.jsonl", rows))


def headings(text):
    return [line[3:] for line in text.splitlines() if line.startswith("## ")]


def row_of(text, first_cell, after=""):
    """The cells of the first table row whose first cell is `first_cell` (after the line `after`)."""
    lines = text.splitlines()
    start = lines.index(after) if after else 0
    for line in lines[start:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first_cell:
            return cells
    raise AssertionError(f"no row {first_cell!r} after {after!r}")


def test_every_section_renders(tmp_path):
    text = report_gpu.gpu_report(data_of(tmp_path, fixture_rows()), load_reference())
    got = headings(text)
    for section in SECTIONS:
        assert section in got, section
    assert "Not measured or failed" not in got


def test_headline_numbers_and_ratios(tmp_path):
    data = data_of(tmp_path, fixture_rows())
    text = report_gpu.headline(data, load_reference())
    # 1M: radix 0.5 ms, CUB SortPairs 0.75 ms (1.50x), bitonic 2.0 ms, host to host 5.0 ms.
    assert row_of(text, "1M") == ["1M", "**0.500**", "0.750", "1.50×", "2.00", "0.417", "4.49", "5.00"]
    assert row_of(text, "16M")[1:4] == ["**2.00**", "3.00", "1.50×"]


def test_random_table_rates(tmp_path):
    text = report_gpu.gpu_report(data_of(tmp_path, fixture_rows()), load_reference())
    speed = row_of(text, "16M", after="Throughput and ratios:")
    # 16M pairs in 2 ms: 8.39 G pairs/s; torch 6 ms over radix 2 ms; host to host 20 ms: 839 M/s.
    assert speed[1] == "8.39 G" and speed[4] == "3.00×" and speed[-1] == "839 M"


def test_targets_and_verdicts(tmp_path):
    text = report_gpu.gpu_report(data_of(tmp_path, fixture_rows()), load_reference())
    seg = row_of(text, "1M x 64")
    assert seg[1:4] == ["**5.00**", "10.0 (?)", "2.00×"] and seg[-1] == "yes"
    topk = row_of(text, "1K")
    assert topk[1:4] == ["**2.00**", "3.00", "1.50×"] and topk[-1] == "yes"
    host = row_of(text, "`Kvp`")  # 64M: 32 ms over a 25.6 ms floor misses 22 ms and 1.15x the floor
    assert host[3:8] == ["**32.0**", "25.6", "1.25×", "≤ 22 ms, ≤ 1.15× floor", "**no**"]


def test_missing_anchor_is_said(tmp_path):
    rows = [r for r in fixture_rows() if r["src"] not in ("cub", "torch", "torch-topk")]
    rows.append({"src": "cub", "kind": "absent", "text": "no nvcc on this machine"})
    text = report_gpu.gpu_report(data_of(tmp_path, rows), load_reference())
    assert "Not measured or failed" in headings(text)
    assert "no nvcc on this machine" in text
    assert "torch.topk: not measured" in text
    assert row_of(text, "1M")[2:4] == ["not measured", ""]  # the headline's CUB SortPairs and its ratio


def test_failed_row_and_timeout(tmp_path):
    rows = fixture_rows() + [bench("cuda-device", "radix", 64 * M, None, error="out of memory"),
                             {"src": "bench", "kind": "absent", "text": "the benches hit the limit"}]
    text = report_gpu.gpu_report(data_of(tmp_path, rows), load_reference())
    assert "**failed**" in row_of(text, "64M")
    assert "the benches hit the limit" in text


def test_cpu_report(tmp_path):
    text = report_cpu.cpu_report(data_of(tmp_path, fixture_rows()))
    assert "Machine" in headings(text)
    # 1M: gpusort 10 ms, rayon 15 ms, rdst 20 ms: the fastest other over gpusort is 1.50x.
    assert row_of(text, "1M")[-2:] == ["105 M", "1.50× (rayon-unstable)"]


def test_sections_without_data():
    empty = Data(None)
    assert "not measured" in report_lexsort.document(empty)
    assert report_argsort.document(empty).startswith("#")


def test_compare(tmp_path):
    a = write_rows(tmp_path / "a.jsonl", [bench("cuda-device", "radix", M, 1.0)])
    b = write_rows(tmp_path / "b.jsonl", [bench("cuda-device", "radix", M, 0.5)])
    text = report_compare.table([a], [b])
    assert "1M" in text and "1.00" in text and "0.500" in text


def command(*args):
    return subprocess.run([sys.executable, REPORT, *args], capture_output=True, text=True, check=True).stdout


def test_command_line(tmp_path):
    raw = write_rows(tmp_path / "raw.jsonl", fixture_rows())
    assert command("plan", raw, "segments").split() == [str(64 * M), "64,1024"]
    assert command("plan", raw, "topk").split() == [str(64 * M), "16,1024"]
    command("render", raw, "--out", str(tmp_path / "out"), "--flat")
    for name in ("BENCHMARKS.md", "bench.svg", "bench-headline.md"):
        assert os.path.getsize(tmp_path / "out" / name) > 0
    command("render", raw, "--out", str(tmp_path / "cpu"), "--flat", "--cpu")
    assert os.path.exists(tmp_path / "cpu" / "BENCHMARKS-cpu.md")
    assert "render" in command("--help")


def test_section_pages(tmp_path):
    raw = write_rows(tmp_path / "raw.jsonl", fixture_rows())
    for name, row in (("topk", "1K"), ("segments", "1M x 64"), ("records", "`argsort` of 64M u32 keys"),
                      ("small-keys", "`u16`")):
        command("section", name, raw, "--out", str(tmp_path), "--flat")
        text = (tmp_path / f"BENCHMARKS-{name}.md").read_text()
        assert (tmp_path / "data" / f"BENCHMARKS-{name}.json").exists()
        assert "How it was measured" in headings(text)
        row_of(text, row)
    empty = write_rows(tmp_path / "empty.jsonl", [])
    command("section", "topk", empty, "--out", str(tmp_path), "--flat")
    assert "No topk rows in this run." in (tmp_path / "BENCHMARKS-topk.md").read_text()


def test_section_says_missing_anchor(tmp_path):
    import report_sections

    rows = [r for r in fixture_rows() if r["src"] != "torch-topk"]
    rows.append({"src": "torch-topk", "kind": "absent", "text": "skipped (GPUSORT_REPORT_TORCH=0)"})
    text = report_sections.document(data_of(tmp_path, rows), "topk")
    assert "torch.topk: not measured (skipped (GPUSORT_REPORT_TORCH=0))." in text


def test_file_page(tmp_path):
    run = [{"what": "setup", "cores": 2, "ram_bytes": 8 << 30, "gpu": None, "shape": "u64", "budget": 1 << 30,
            "cgroup_limit": 2 << 30},
           {"what": "disk", "bytes": 20e9, "read_bps": 1e9, "write_bps": 0.5e9, "tool": "fio", "floor_s": 60.0},
           {"what": "gpusort", "wall_s": 90.0, "backend": "cpu", "runs": 20, "merge_passes": 1, "run_phase_s": 40.0,
            "reading_s": 20.0, "sorting_s": 10.0, "writing_s": 15.0, "merge_phase_s": 50.0, "merge_reading_s": 20.0,
            "merging_s": 12.0, "merge_writing_s": 25.0},
           {"what": "gnu_sort", "wall_s": 300.0}]
    path = write_rows(tmp_path / "run.jsonl", run)
    command("file", path, "--out", str(tmp_path), "--flat")
    text = (tmp_path / "BENCHMARKS-file.md").read_text()
    # 20 GB, a 60 s floor: 90 s is 1.50x the floor; GNU sort's 300 s is 3.33x gpusort's.
    assert "| 90.0 s on cpu | 1.50x | 300.0 s | 3.33x |" in text
    out = subprocess.run([sys.executable, os.path.join(os.path.dirname(REPORT), "report_file.py"), path],
                         capture_output=True, text=True, check=True).stdout
    assert "1.50x" in out


def test_shapes_and_embed_commands(tmp_path):
    raw = write_rows(tmp_path / "raw.jsonl", fixture_rows())
    command("shapes", raw)
    assert "no embed or lowmem rows" in command("embed", raw)
    command("lexsort", "--out", str(tmp_path), "--flat")
    assert "not measured" in (tmp_path / "BENCHMARKS-lexsort.md").read_text()
    command("argsort", raw, "--out", str(tmp_path), "--flat")


def test_small_keys_targets(tmp_path):
    """The small-keys tables: the floor ratio and its verdict, the u32 anchor, torch beside gpusort."""
    import report_small_keys

    data = data_of(tmp_path, fixture_rows())
    host = report_small_keys.host_table(data)
    assert "| `u8` | 256M | **11.0** | 10.0 | 1.10× | ≤ 1.5× floor | yes | 44.0 |" in host
    assert "| `u16` | 256M | **30.0** | 19.5 | 1.54× | ≤ 1.5× floor | **no** |" in host
    device = report_small_keys.device_table(data)
    assert "| `u16` | 64M | **0.600** | 2.33× | ≥ 1.6× | yes | **1.20** | 2.33× |" in device
    torch = report_small_keys.torch_table(data)
    assert "| float16 | argsort | 64M | **1.50** | 1.70 | 1.13× | ≥ 1.3× | **no** |" in torch
    assert "| float16 | sort | 64M | **1.00** | 1.70 | 1.70× | ≥ 1.3× | yes |" in torch
