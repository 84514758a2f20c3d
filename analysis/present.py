"""Text-table helpers the model reports share: one row per source line, its code, its fix.

Unrolled loops give one PTX/SASS instruction per unrolled step; the reader wants the line,
so instructions of one line with the same op, width and diagnosis become one row ('xN').
"""
from __future__ import annotations

import os

from .common import Example
from .draw import Picture


def short(path: str) -> str:
    """A source file as the tables name it: its base name."""
    return os.path.basename(path) if path else "?"


def source_line(path: str, line: int) -> str:
    """The source text of `line` (stripped, at most 110 characters), or '' when unreadable."""
    try:
        with open(path) as f:
            return f.read().splitlines()[line - 1].strip()[:110]
    except (OSError, IndexError):
        return ""


def group_rows(instrs: list[dict], sums: tuple[str, ...]) -> list[dict]:
    """Instructions of one source line with the same op, width and diagnosis, as one row."""
    out: dict[tuple, dict] = {}
    for g in instrs:
        key = (g["file"], g["line"], g.get("site", ""), g["op"], g["size"], g["diagnosis"], g.get("data", ""))
        row = out.get(key)
        if row is None:
            row = out[key] = dict(g, count=0)
            for k in sums:
                row[k] = 0.0
        row["count"] += 1
        for k in sums:
            row[k] += g[k]
        row["max_degree"] = max(row.get("max_degree", 0), g.get("max_degree", 0))
    return list(out.values())


def where(row: dict) -> str:
    """'file.cu:44 x4': the row's line and how many instructions it groups; 'helper.cuh:5 < k.cu:20' for an
    inlined helper's access, with the call it was inlined into; '? ' before it where the row's counts rest on
    made-up buffer contents."""
    n = f" x{row['count']}" if row["count"] > 1 else ""
    site = row.get("site", "")
    at = f" < {short(site.rsplit(':', 1)[0])}:{site.rsplit(':', 1)[1]}" if site else ""
    mark = "? " if row.get("data") else ""  # counts that rest on made-up buffer contents (details say which)
    return f"{mark}{short(row['file'])}:{row['line']}{at}{n}"


def details(row: dict) -> list[str]:
    """The row's source text and fix, indented under it."""
    out = []
    src = source_line(row["file"], row["line"])
    if src:
        out.append(f"{'':>16}     {src}")
    if row.get("site"):  # an inlined helper's access: the call it was inlined into, too
        file, line = row["site"].rsplit(":", 1)
        call = source_line(file, int(line))
        if call:
            out.append(f"{'':>16}     inlined at {short(file)}:{line}: {call}")
    if row.get("data"):
        out.append(f"{'':>16}     ? {row['data']}")
    if row.get("fix"):
        out.append(f"{'':>16}     fix: {row['fix']}")
    return out


def picture(ex: Example, draw: Picture) -> list[str]:
    """A picture of one warp, indented under its row."""
    return ["     " + x for x in draw(ex).splitlines()]
