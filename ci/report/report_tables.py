"""Measurement tables inside the hand-written docs pages (tuning.md, host-path.md, ...): each is
rendered from docs/data/tables/<page>.json, marked in the page by a MARK line, so the
page's prose stays markdown and its figures stay data. `ci/report.sh pages` rewrites the marked
tables from their data; `mark` moves a page's tables of figures into data once."""

import json
import os
import re

from report_pages import DOCS, dump, is_table_start, refresh, table_block, table_lines

MARK = "<!-- table {page}#{k}: rendered from docs/data/tables/{page}.json by `ci/report.sh pages` -->"
MARK_RE = re.compile(r"<!-- table ([\w.-]+)#(\d+): rendered from docs/data/tables/\1\.json by `ci/report\.sh pages` -->")
TABLES = os.path.join(DOCS, "data", "tables")


def tables_of(lines):
    """(start, end) of each table outside code blocks: a header line, an alignment line, rows."""
    spans, code, i = [], False, 0
    while i < len(lines):
        if lines[i].startswith("```"):
            code = not code
        if not code and is_table_start(lines, i):
            j = i + 2
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            spans.append((i, j))
            i = j
            continue
        i += 1
    return spans


def has_figures(block):
    """Whether a table holds measurements: a cell that is a figure, or a decimal number in a cell's text."""
    cells = [c for r in block["rows"] for c in ([r] if isinstance(r, str) else r)]
    return any(isinstance(c, (dict, int, float)) or re.search(r"\d\.\d", c) for c in cells)


def mark(path, tables_dir=TABLES):
    """Moves the tables of figures of the page at `path` into tables_dir/<page>.json, each marked."""
    page = os.path.splitext(os.path.basename(path))[0]
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, out, at = [], [], 0
    for start, end in tables_of(lines):
        block = table_block(lines[start:end])
        if not has_figures(block) or (start > 0 and MARK_RE.fullmatch(lines[start - 1])):
            continue
        out += lines[at:start] + [MARK.format(page=page, k=len(blocks))]
        out += lines[start:end]
        blocks.append(block)
        at = end
    if not blocks:
        return None
    os.makedirs(tables_dir, exist_ok=True)
    with open(os.path.join(tables_dir, f"{page}.json"), "w", encoding="utf-8") as f:
        f.write(dump(blocks))
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out + lines[at:]))
    return blocks


def render(path, tables_dir=TABLES):
    """The page at `path` with each marked table replaced by its data's rendering."""
    page = os.path.splitext(os.path.basename(path))[0]
    lines = open(path, encoding="utf-8").read().split("\n")
    with open(os.path.join(tables_dir, f"{page}.json"), encoding="utf-8") as f:
        blocks = json.load(f)["blocks"]
    out, i = [], 0
    while i < len(lines):
        m = MARK_RE.fullmatch(lines[i])
        out.append(lines[i])
        i += 1
        if m:
            while i < len(lines) and lines[i].startswith("|"):
                i += 1
            out += table_lines(blocks[int(m.group(2))])
    return "\n".join(out)


def pages(check=False, docs=DOCS):
    """Rewrites the marked tables of every page with data in docs/data/tables/; returns the pages
    whose tables differed from their data."""
    tables_dir = os.path.join(docs, "data", "tables")
    names = sorted(f[:-5] for f in os.listdir(tables_dir) if f.endswith(".json")) if os.path.isdir(tables_dir) else []
    paths = [os.path.join(docs, f"{name}.md") for name in names]
    return [path for path in paths if refresh(path, render(path, tables_dir), check)]
