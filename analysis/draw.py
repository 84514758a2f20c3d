"""Pictures of one warp's access, apart from the models that count: lanes against the 32-byte
sectors they touch (global), and lanes against the 32 banks, one row per wavefront (shared).

Each picture comes as terminal text, a Mermaid flowchart and a standalone SVG; the model
reports pick one by name (`--draw text|mermaid|svg`) from SECTOR_PICTURES or BANK_PICTURES; SVG
pictures are written to files (`--svg DIR`, `svg_files`) and the report names them.
"""
from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from typing import Callable

from cudasim.console import unwritable

from .common import BANKS, SECTOR, WORD, Example, phases

# ---- global: lanes -> sectors ------------------------------------------------------------

_SYMS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def lane_sectors(addrs: list[int], mask: int, size: int) -> tuple[int, dict[int, list[int]]]:
    """(base sector, {sector offset from base: [lanes]}) for one warp."""
    hits: dict[int, list[int]] = {}
    lanes = [l for l in range(32) if mask >> l & 1]
    if not lanes:
        return 0, {}
    base = min(addrs[l] for l in lanes) // SECTOR
    for l in lanes:
        for s in range(addrs[l] // SECTOR, (addrs[l] + size - 1) // SECTOR + 1):
            hits.setdefault(s - base, []).append(l)
    return base, dict(sorted(hits.items()))


def _ranges(lanes: list[int]) -> str:
    out, start = [], None
    for i, l in enumerate(lanes):
        if start is None:
            start = l
        if i + 1 == len(lanes) or lanes[i + 1] != l + 1:
            out.append(f"{start}" if start == l else f"{start}-{l}")
            start = None
    return ",".join(out)


def sector_text(ex: Example, max_rows: int = 16) -> str:
    """One warp's lanes against the sectors they hit, for the terminal."""
    base, hits = lane_sectors(ex.addrs, ex.mask, ex.size)
    order = {s: i for i, s in enumerate(hits)}
    strip = []
    for l in range(32):
        if not ex.mask >> l & 1:
            strip.append(".")
            continue
        s = ex.addrs[l] // SECTOR - base
        i = order.get(s, 0)
        strip.append(_SYMS[i] if i < len(_SYMS) else "*")
    lines = [f"warp {ex.warp} of block {ex.block}: {len(hits)} sectors of 32 B from 0x{base * SECTOR:x}",
             "  lane   " + "".join(str(l // 10) for l in range(32)),
             "         " + "".join(str(l % 10) for l in range(32)),
             "  sector " + "".join(strip) + "   (symbol = n-th sector touched, . = inactive)"]
    for i, (s, lanes) in enumerate(hits.items()):
        if i >= max_rows:
            lines.append(f"  ... {len(hits) - max_rows} more sectors")
            break
        used = sum(min(ex.addrs[l] + ex.size, (base + s + 1) * SECTOR) - max(ex.addrs[l], (base + s) * SECTOR)
                   for l in set(lanes))
        used = min(used, SECTOR)
        sym = _SYMS[i] if i < len(_SYMS) else "*"
        lines.append(f"  {sym} +{s * SECTOR:>6} B  lanes {_ranges(sorted(set(lanes))):<16} "
                     f"{used:>2}/32 B used " + "#" * (used // 4) + "-" * (8 - used // 4))
    return "\n".join(lines)


def sector_mermaid(ex: Example) -> str:
    """The same picture as a Mermaid flowchart: runs of lanes -> sectors."""
    base, hits = lane_sectors(ex.addrs, ex.mask, ex.size)
    out = ["flowchart LR", f"  %% warp {ex.warp} of block {ex.block}, sectors from 0x{base * SECTOR:x}"]
    groups: dict[tuple[int, ...], list[int]] = {}
    for l in range(32):
        if ex.mask >> l & 1:
            key = tuple(s for s, ls in hits.items() if l in ls)
            groups.setdefault(key, []).append(l)
    for s in hits:
        out.append(f'  S{s}["sector +{s * SECTOR} B"]')
    for gi, (secs, lanes) in enumerate(groups.items()):
        out.append(f'  L{gi}(["lanes {_ranges(lanes)}"])')
        for s in secs:
            out.append(f"  L{gi} --> S{s}")
    return "\n".join(out)


def sector_svg(ex: Example) -> str:
    """The same picture as a small standalone SVG: lanes on top, sectors below, one line per hit."""
    base, hits = lane_sectors(ex.addrs, ex.mask, ex.size)
    cell, gap = 22, 4
    sectors = list(hits)
    width = max(32, len(sectors)) * (cell + gap) + 40
    y_lane, y_sec = 30, 150
    sx = {s: 20 + i * (cell + gap) for i, s in enumerate(sectors)}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="210" font-family="monospace" font-size="9">',
             f'<text x="20" y="14">warp {ex.warp} of block {ex.block}: {len(sectors)} sectors (32 B) from 0x{base * SECTOR:x}</text>']
    for s, lanes in hits.items():
        for l in set(lanes):
            parts.append(f'<line x1="{20 + l * (cell + gap) + cell / 2}" y1="{y_lane + cell}" '
                         f'x2="{sx[s] + cell / 2}" y2="{y_sec}" stroke="#4a7" stroke-width="1"/>')
    for l in range(32):
        on = ex.mask >> l & 1
        x = 20 + l * (cell + gap)
        parts.append(f'<rect x="{x}" y="{y_lane}" width="{cell}" height="{cell}" fill="{"#cde" if on else "#eee"}" stroke="#333"/>'
                     f'<text x="{x + 4}" y="{y_lane + 14}">{l}</text>')
    for s in sectors:
        parts.append(f'<rect x="{sx[s]}" y="{y_sec}" width="{cell}" height="{cell}" fill="#fd9" stroke="#333"/>'
                     f'<text x="{sx[s] + 2}" y="{y_sec + 14}">{s}</text>')
    parts.append(f'<text x="20" y="{y_sec + 45}">top: lanes 0-31; bottom: sectors (offset from the first, in 32 B units)</text>')
    parts.append("</svg>")
    return "\n".join(parts)


# ---- shared: lanes -> banks, one row per wavefront ----------------------------------------

def bank_map(ex: Example) -> list[list[dict[int, list[int]]]]:
    """Per phase, per bank: {word: [lanes]} for one warp."""
    nph = phases(ex.size)
    per = 32 // nph
    k = max(1, ex.size // WORD)
    out = []
    for p in range(nph):
        banks: list[dict[int, list[int]]] = [dict() for _ in range(BANKS)]
        for l in range(p * per, (p + 1) * per):
            if ex.mask >> l & 1:
                for j in range(k):
                    w = ex.addrs[l] // WORD + j
                    banks[w % BANKS].setdefault(w, []).append(l)
        out.append(banks)
    return out


def collisions(ex: Example, limit: int = 6) -> list[str]:
    """Which lanes collide in which bank (distinct words in one bank), worst first."""
    rows = []
    for p, banks in enumerate(bank_map(ex)):
        for b, words in enumerate(banks):
            if len(words) > 1:
                rows.append((len(words), p, b, words))
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    out = []
    for n, p, b, words in rows[:limit]:
        ph = f"phase {p}, " if phases(ex.size) > 1 else ""
        desc = ", ".join(f"w{w}:lanes {','.join(map(str, ls))}" if len(ls) > 1 else f"w{w}:lane {ls[0]}"
                         for w, ls in list(words.items())[:6])
        more = " ..." if len(words) > 6 else ""
        out.append(f"{ph}bank {b:2d}: {n} distinct words -> {desc}{more}")
    if len(rows) > limit:
        out.append(f"... {len(rows) - limit} more banks with conflicts")
    return out


def bank_text(ex: Example, max_rounds: int = 8) -> str:
    """Bank map: columns are banks, rows are the wavefronts a bank needs; cells are lanes."""
    lines = [f"warp {ex.warp} of block {ex.block}, {ex.size}-byte accesses"]
    head = "        bank " + " ".join(f"{b:>2}" for b in range(BANKS))
    for p, banks in enumerate(bank_map(ex)):
        depth = max((len(w) for w in banks), default=0)
        if depth == 0:
            continue
        if phases(ex.size) > 1:
            lines.append(f"  phase {p} (lanes {p * 32 // phases(ex.size)}-{(p + 1) * 32 // phases(ex.size) - 1})")
        lines.append(head)
        for r in range(min(depth, max_rounds)):
            cells = []
            for b in range(BANKS):
                ws = list(banks[b].items())
                if r < len(ws):
                    lanes = ws[r][1]
                    cells.append(f"{lanes[0]:>2}" if len(lanes) == 1 else " *")
                else:
                    cells.append(" .")
            lines.append(f"  wavefront {r + 1:>2} " + " ".join(cells))
        if depth > max_rounds:
            lines.append(f"  ... {depth - max_rounds} more wavefronts")
    lines.append("  (cell = the lane served; * = several lanes share the word (broadcast/multicast); . = idle bank)")
    return "\n".join(lines)


def bank_mermaid(ex: Example) -> str:
    """Lanes -> banks as a Mermaid flowchart (conflicting banks highlighted)."""
    out = ["flowchart LR", f"  %% warp {ex.warp} of block {ex.block}"]
    for p, banks in enumerate(bank_map(ex)):
        for b, words in enumerate(banks):
            if not words:
                continue
            node = f"P{p}B{b}"
            out.append(f'  {node}["bank {b}: {len(words)} word(s)"]')
            if len(words) > 1:
                out.append(f"  style {node} fill:#f99")
            for w, lanes in words.items():
                out.append(f'  P{p}W{w}(["lanes {",".join(map(str, lanes))}"]) --> {node}')
    return "\n".join(out)


def bank_svg(ex: Example) -> str:
    """Bank map as SVG: a 32-column grid, one row per wavefront, lane numbers in the cells."""
    cell = 22
    maps = bank_map(ex)
    rows = sum(max((len(w) for w in banks), default=0) for banks in maps)
    h = 40 + (rows + len(maps)) * cell + 20
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{BANKS * cell + 80}" height="{h}" '
             f'font-family="monospace" font-size="9">',
             f'<text x="4" y="14">warp {ex.warp} of block {ex.block}: banks (columns) x wavefronts (rows)</text>']
    y = 30
    for p, banks in enumerate(maps):
        depth = max((len(w) for w in banks), default=0)
        if depth == 0:
            continue
        for b in range(BANKS):
            parts.append(f'<text x="{60 + b * cell + 4}" y="{y + 12}">{b}</text>')
        y += cell
        for r in range(depth):
            parts.append(f'<text x="4" y="{y + 14}">wf {r + 1}</text>')
            for b in range(BANKS):
                ws = list(banks[b].items())
                fill = "#eee" if r >= len(ws) else ("#f99" if len(ws) > 1 else "#cde")
                parts.append(f'<rect x="{60 + b * cell}" y="{y}" width="{cell}" height="{cell}" fill="{fill}" stroke="#333"/>')
                if r < len(ws):
                    lab = str(ws[r][1][0]) if len(ws[r][1]) == 1 else "*"
                    parts.append(f'<text x="{60 + b * cell + 3}" y="{y + 14}">{lab}</text>')
            y += cell
    parts.append("</svg>")
    return "\n".join(parts)


Picture = Callable[[Example], str]
SECTOR_PICTURES: dict[str, Picture] = {"text": sector_text, "mermaid": sector_mermaid, "svg": sector_svg}
BANK_PICTURES: dict[str, Picture] = {"text": bank_text, "mermaid": bank_mermaid, "svg": bank_svg}
STYLES = tuple(SECTOR_PICTURES)


def add_draw_arguments(p: argparse.ArgumentParser) -> None:
    """--draw STYLE (and its shorthands) for the reports that draw a warp per row; SVG pictures go to files
    (`--svg DIR`), one per picture, which the report names: an SVG document is no text to read on a terminal."""
    style = p.add_mutually_exclusive_group()
    style.add_argument("--draw", choices=STYLES + ("none",), default=None,  # None: text (check_draw); a default
                       # of None lets argparse refuse --draw beside --mermaid, whatever the value
                       help="picture of one warp per instruction (default: text; svg needs --svg DIR)")
    style.add_argument("--mermaid", action="store_const", const="mermaid", dest="draw", help="same as --draw mermaid")
    p.add_argument("--svg", metavar="DIR", dest="svg_dir",
                   help="draw the pictures as SVG files in the folder DIR (made if missing); the report names each")


def check_draw(options: argparse.Namespace) -> str | None:
    """What is wrong with the drawing options, in one line (None: nothing): --draw svg needs the folder its files
    go to, and JSON has no pictures to draw. Sets the default style (text)."""
    folder = getattr(options, "svg_dir", None)
    if folder is not None and getattr(options, "draw", None) not in (None, "svg"):
        return f"--svg draws SVG files, and --draw {options.draw} asks for another picture: give one of them"
    if getattr(options, "json", False) and getattr(options, "draw", None) not in (None, "none") and folder is None:
        return f"--draw {options.draw}: JSON output has no pictures; drop --json to draw them, or --draw to get JSON"
    if getattr(options, "draw", "") is None:
        options.draw = "text"
    if folder is not None:
        if getattr(options, "json", False):
            return "--svg: JSON output has no pictures; drop --json to draw them, or --svg to get JSON"
        if os.path.exists(folder) and not os.path.isdir(folder):
            return f"--svg {folder}: a file, not a folder; give the folder the .svg files go to"
        try:  # made now, before any work: the pictures come last
            os.makedirs(folder, exist_ok=True)
        except OSError as e:
            return f"--svg {folder}: cannot make the folder ({e.strerror or e}); give one that can be written"
        if (why := unwritable(folder)) is not None:
            return f"--svg {folder}: cannot write in it ({why}); give a folder that can be written"
        options.draw = "svg"
    elif getattr(options, "draw", None) == "svg":
        return "--draw svg writes one .svg file per picture: give the folder with --svg DIR"
    return None


_SVG = re.compile(r"^[ \t]*<svg\b.*?</svg>[ \t]*$", re.S | re.M)


def svg_files(text: str, folder: str, stem: str) -> tuple[str, list[Path]]:
    """`text` with every SVG document in it written to `folder/stem-N.svg` and replaced by a line naming the
    file; returns (the text, the files written)."""
    out = Path(folder)
    written: list[Path] = []

    def write(m: re.Match) -> str:
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"{stem}-{len(written) + 1}.svg"
        path.write_text(m.group(0).strip() + "\n")
        written.append(path)
        indent = m.group(0)[:len(m.group(0)) - len(m.group(0).lstrip())]
        return f"{indent}picture: {path} (SVG)"

    return _SVG.sub(write, text), written
