"""The benchmark pages of docs/ as data: each page's figures in docs/data/<page>.json, the page
rendered from it (ci/report/report.py pages), so a table is edited in its data and never by hand.

A page's data is its blocks in order: prose ({"text": [lines]}), a table ({"columns": [...],
"align": [...], "rows": [[cell, ...], ...]}, each cell as `cell_value` reads it: a number, a figure
with its unit, or text), or the table of benches/python/bench.py's or dask_bench.py's JSON ({"python_bench": "file.json"},
{"dask_bench": "file.json"}: a file beside the data, in the format `--out` writes, so a run's file
replaces it as it is). Pages
that a report command writes from a run's measurements (BENCHMARKS.md, -cpu, -argsort, -lexsort,
-file) get their data rewritten with them (`write_page`); a data file's "keep_from" names the
heading from which on its page is written by hand, kept when a run rewrites the rest."""

import json
import os
import re

import report_dask
import report_python

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "docs")
DATA = os.path.join(DOCS, "data")
HEADER = "<!-- Generated from docs/data/{name}.json by `ci/report.sh pages`: edit the data, not this page. -->"
# A figure in a cell: bold or not, a number, a unit (" ms", "x", "×", " GB/s", ...).
FIGURE = re.compile(r"(\*\*)?(-?(?:0|[1-9][0-9]*)(?:\.([0-9]+))?)( ?[A-Za-z/%×]+)?(\*\*)?")


def cell_value(text):
    value = figure(text)
    return value if cell_text(value) == text else text


def figure(text):
    """A cell as data: a JSON number where the cell is a number that writes back the same; a figure
    {"v": number, "d": decimals, "unit": text, "bold": true} (keys left out when not needed); else
    the cell's text."""
    m = FIGURE.fullmatch(text)
    if not m or bool(m.group(1)) != bool(m.group(5)):
        return text
    number, decimals, unit = m.group(2), m.group(3), m.group(4)
    v = float(number) if decimals is not None else int(number)
    if not m.group(1) and not unit and (decimals is None or repr(v) == number):
        return v
    fig = {"v": v}
    if decimals is not None and repr(v) != number:
        fig["d"] = len(decimals)
    if unit:
        fig["unit"] = unit
    if m.group(1):
        fig["bold"] = True
    return fig


def cell_text(value):
    if isinstance(value, dict):
        v = value["v"]
        text = f"{v:.{value['d']}f}" if "d" in value else repr(v) if isinstance(v, float) else str(v)
        text += value.get("unit", "")
        return f"**{text}**" if value.get("bold") else text
    return repr(value) if isinstance(value, float) else str(value)


def split_row(line):
    """The cells of a table line as row_line writes it (None for any other line)."""
    if len(line) < 4 or not (line.startswith("| ") and line.endswith(" |")):
        return None
    cells = line[2:-2].split(" | ")
    return cells if row_line(cells) == line else None


def row_line(cells):
    return "| " + " | ".join(cells) + " |"


def is_table_start(lines, k):
    """Whether lines[k] is a table's header line: a row followed by an alignment line."""
    return lines[k].startswith("|") and k + 1 < len(lines) and "-" in lines[k + 1] \
        and set(lines[k + 1]) <= set("|-: ")


def table_block(lines):
    """A table's lines (header, alignment, rows) as a block; a line in another layout stays one string."""
    rows = [[cell_value(c) for c in split_row(line)] if split_row(line) else line for line in lines[2:]]
    return {"columns": split_row(lines[0]) or lines[0], "align": lines[1], "rows": rows}


def table_lines(block):
    return [line_of(block["columns"], str), block["align"]] + [line_of(r, cell_text) for r in block["rows"]]


def parse(markdown):
    """A page's markdown (header line left out) as its blocks."""
    lines = markdown.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    blocks, i = [], 0
    while i < len(lines):
        is_table, j = is_table_start(lines, i), i + 1
        while j < len(lines) and (lines[j].startswith("|") if is_table else not is_table_start(lines, j)):
            j += 1
        chunk = lines[i:j]
        blocks.append(table_block(chunk) if is_table else {"text": wrap_prose(chunk)})
        i = j
    return blocks


def wrap_prose(lines, width=120):
    """Prose lines split at the last space before `width` (docs keep prose lines that short); code
    blocks, table-like lines, headings and HTML comments stay as they are."""
    out, code = [], False
    for line in lines:
        if line.startswith("```"):
            code = not code
        if code or len(line) <= width or line.lstrip().startswith(("|", "#", "<!--")):
            out.append(line)
            continue
        m = re.match(r"(\s*)([-*] |\d+\. )?", line)
        indent = m.group(1) + " " * len(m.group(2) or "")
        while len(line) > width:
            cut = line.rfind(" ", 0, width + 1)
            if cut <= len(indent):
                break
            out.append(line[:cut])
            line = indent + line[cut + 1:]
        out.append(line)
    return out


def line_of(row, text):
    return row if isinstance(row, str) else row_line([text(c) for c in row])


def render_blocks(blocks, here):
    lines = []
    for b in blocks:
        if "text" in b:
            lines += b["text"]
        elif "python_bench" in b or "dask_bench" in b:
            key, module = ("python_bench", report_python) if "python_bench" in b else ("dask_bench", report_dask)
            with open(os.path.join(here, b[key]), encoding="utf-8") as f:
                lines += module.table(json.load(f))
        else:
            lines += table_lines(b)
    return "\n".join(lines) + "\n"


def render(name, data_dir=DATA):
    """The page docs/<name>.md as the data in data_dir/<name>.json renders it."""
    with open(os.path.join(data_dir, f"{name}.json"), encoding="utf-8") as f:
        page = json.load(f)
    return HEADER.format(name=name) + "\n" + render_blocks(page["blocks"], data_dir)


def dump(blocks, keep_from=None):
    """The data file's text: one line per table row and per prose line (a short block on one), so a
    diff shows the row."""
    out = ['{' + (f'"keep_from": {json.dumps(keep_from, ensure_ascii=False)},\n ' if keep_from else "") + '"blocks": [']
    for k, b in enumerate(blocks):
        end = "," if k + 1 < len(blocks) else ""
        one_line = " " + json.dumps(b, ensure_ascii=False) + end
        if "python_bench" in b or "dask_bench" in b or ("text" in b and len(one_line) <= 120):
            out.append(one_line)
        elif "text" in b:
            body = ",\n  ".join(json.dumps(line, ensure_ascii=False) for line in b["text"])
            out.append(f' {{"text": [\n  {body}\n ]}}{end}')
        else:
            rows = ",\n  ".join(json.dumps(r, ensure_ascii=False) for r in b["rows"])
            head = f' {{"columns": {json.dumps(b["columns"], ensure_ascii=False)}, "align": {json.dumps(b["align"])},'
            if len(head) > 120:
                head = head.replace(', "align"', ',\n  "align"')
            out.append(f'{head} "rows": [\n  {rows}\n ]}}{end}')
    return "\n".join(out + ["]}"]) + "\n"


def strip_header(markdown):
    first, _, rest = markdown.partition("\n")
    return rest if first.startswith("<!-- Generated from docs/data/") else markdown


def transcribe(path, data_dir=DATA):
    """Writes data_dir/<page>.json from the page at `path`; returns the data file's path."""
    name = os.path.splitext(os.path.basename(path))[0]
    out = os.path.join(data_dir, f"{name}.json")
    if os.path.exists(out) and re.search(r'"(python|dask)_bench"', open(out, encoding="utf-8").read()):
        raise SystemExit(f"{out}: a table of it is a bench's JSON file; replace that file instead")
    keep = None
    if os.path.exists(out):
        with open(out, encoding="utf-8") as f:
            keep = json.load(f).get("keep_from")
    with open(path, encoding="utf-8") as f:
        blocks = parse(strip_header(f.read()))
    os.makedirs(data_dir, exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        f.write(dump(blocks, keep))
    return out


def write_page(path, markdown):
    """A page a report command made from a run: its data beside it (docs/data/ under the page's
    folder), then the page as that data renders it, header included."""
    name = os.path.splitext(os.path.basename(path))[0]
    data_dir = os.path.join(os.path.dirname(path) or ".", "data")
    data_path = os.path.join(data_dir, f"{name}.json")
    os.makedirs(data_dir, exist_ok=True)
    markdown, keep = strip_header(markdown), None
    if os.path.exists(data_path):
        # The page's own part that no run writes (its data's keep_from heading on) stays after the run's.
        with open(data_path, encoding="utf-8") as f:
            old = json.load(f)
        keep = old.get("keep_from")
        at = ("\n" + render_blocks(old["blocks"], data_dir)).find(f"\n{keep}\n") if keep else -1
        if at >= 0:
            markdown = markdown.rstrip("\n") + "\n\n" + render_blocks(old["blocks"], data_dir)[at:]
    with open(data_path, "w", encoding="utf-8") as f:
        f.write(dump(parse(markdown), keep))
    with open(path, "w", encoding="utf-8") as f:
        f.write(render(name, data_dir))


def names(data_dir=DATA):
    return sorted(f[:-5] for f in os.listdir(data_dir) if f.startswith(("BENCHMARKS", "bench-headline"))
                  and f.endswith(".json"))


def refresh(path, text, check):
    """Whether the file at `path` differs from `text`; without check, writes text there when it does."""
    old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
    if old != text and not check:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return old != text


def pages(check=False, docs=DOCS):
    """Renders every page of docs/data/ into docs/; with check, only lists the pages that differ."""
    data = os.path.join(docs, "data")
    paths = [(os.path.join(docs, f"{name}.md"), name) for name in names(data)]
    return [path for path, name in paths if refresh(path, render(name, data), check)]
