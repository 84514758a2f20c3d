"""Anchors: what ptxas keeps of a PTX block whatever it does to it, and the SASS blocks matched by them.

Floating-point operations, bytes loaded or stored per lane, atomics, barriers, and a loop's back
branch, by source line. Each SASS block is matched to the PTX block at its loop depth (or one deeper:
the remainder code of a loop ptxas unrolled) whose anchors it repeats a whole number of times U on the
most lines (U > 1: ptxas unrolled that loop by U). Predicated SASS is left out of its block's anchors:
it is if-converted code, issued by every warp that reaches the block (a remainder's predicated last
trip aside: it may do the run's last work). A PTX mul fused into the add that reads it counts once, as
its FFMA. analysis.sassflow walks the SASS by them.
"""
from __future__ import annotations

from dataclasses import dataclass

from .sass import SassInstruction
from .sassgraph import TARGET, SassGraph

_FP = {"FFMA", "FADD", "FMUL", "DFMA", "DADD", "DMUL"}
# global and generic atomics are anchors too, one per warp instruction (a block of lane 0's atomicAdd after the
# other lanes' EXIT had none: the walk ended at the EXIT); shared ones and compare-and-swap are not: ptxas makes
# a shared float atomicAdd a CAS loop it repeats until it holds
_ATOMIC = {"ATOM", "ATOMG", "RED", "REDG"}
_PTX_BYTES = {"8": 1, "16": 2, "32": 4, "64": 8, "128": 16}
# floating-point SASS instructions (FFMA, DFMA, DMUL, ...) in ptxas's inline fast path for one PTX
# instruction that PTX counts as none: IEEE division, square root and reciprocal become Newton
# iterations. An anchor must count them on the PTX side too, or a loop body that divides does more
# SASS work per trip than its PTX (checked against the compiler: tests/test_sassflow.py)
EXPANDED_FP = {("div", "rn", "f32"): 5, ("div", "rn", "f64"): 9, ("div", "approx", "f32"): 1,
               ("rcp", "rn", "f32"): 3, ("rcp", "rn", "f64"): 5, ("sqrt", "rn", "f32"): 4,
               ("sqrt", "rn", "f64"): 8, ("rsqrt", "approx", "f64"): 5}


def ptx_where(x) -> tuple[int, int]:
    """(line, site) of a PTX instruction: its line, and the kernel-level line an inlined helper's code was
    inlined at (0: none). One helper called from two places (a loop body's and a reduction's TwoSum) is
    two places' work, not one line's. Floating-point anchors carry the site; memory anchors do not (ptxas
    merges and reorders a helper's byte accesses across call sites: histogram64's 16 addByte calls walked
    as 984 instructions a warp where 1,691 ran)."""
    at = x.inlined_at
    return x.line, (at[1] if at and (at[0], at[1]) != (x.file, x.line) else 0)


def _sass_where(x: SassInstruction) -> tuple[int, int]:
    """(line, site) of a SASS instruction as the PTX places it: code from another file (a header's helper,
    the toolkit's) at the kernel-level line it was inlined at; a helper of the kernel's own file at its line,
    with that site."""
    line = x.placed[1]
    return line, (x.site[1] if line == x.line and x.site[1] not in (0, x.line) else 0)


_ROUNDED = {"rn", "rz", "rm", "rp"}  # a float mul or add with its rounding written out: ptxas may not fuse it


def fused_muls(body: list, start: int, end: int) -> set[int]:
    """The float `mul`s of [start, end) that ptxas fuses into the add or sub that reads them (FFMA): no
    rounding written on either, the add the product's only reader in the block, one product per add."""
    readers: dict[str, list[int]] = {}
    for pc in range(start, end):
        for o in body[pc].operands[1:]:
            if o.kind == "reg":
                readers.setdefault(o.name, []).append(pc)
    out, taken = set(), set()
    for pc in range(start, end):
        x = body[pc]
        if (x.base != "mul" or x.type not in ("f32", "f64") or _ROUNDED & set(x.mods) or x.guard is not None
                or not x.operands or x.operands[0].kind != "reg"):
            continue
        users = readers.get(x.operands[0].name, [])
        if len(users) == 1 and users[0] > pc and users[0] not in taken:
            y = body[users[0]]
            if y.base in ("add", "sub") and y.type == x.type and not _ROUNDED & set(y.mods) and y.guard is None:
                out.add(pc)
                taken.add(users[0])
    return out


def _ptx_anchors(body: list, start: int, end: int, labels: dict) -> dict[tuple, int]:
    out: dict[tuple, int] = {}

    def add(line: tuple[int, int], kind: str, units: int) -> None:
        out[(line, kind)] = out.get((line, kind), 0) + units

    fused = fused_muls(body, start, end)
    for pc in range(start, end):
        x = body[pc]
        if x.label is not None or (x.guard is not None and x.base != "bra"):
            continue  # predicated, as ptxas's if-converted code: left out on both sides
        if pc in fused:
            continue  # one FFMA with the add that reads it
        if x.base in ("fma", "add", "sub", "mul") and x.type in ("f32", "f64"):
            add(ptx_where(x), "fp", 1)
        elif x.type in ("f32", "f64") and (n := next((EXPANDED_FP[(x.base, m, x.type)] for m in x.mods
                                                      if (x.base, m, x.type) in EXPANDED_FP), 0)):
            add(ptx_where(x), "fp", n)
        elif x.base in ("ld", "st") and not x.has("param", "const"):
            vec = next((int(m[1]) for m in x.mods if m in ("v2", "v4", "v8")), 1)
            add((x.line, 0), "local" if x.has("local") else "mem", vec * _PTX_BYTES.get(x.type[1:], 4))
        elif x.base in ("atom", "red") and not x.has("cas", "shared"):
            add((x.line, 0), "atom", 1)
        elif x.base in ("bar", "barrier"):
            add(ptx_where(x), "bar", 1)
        elif x.base == "bra" and x.guard is not None and labels.get(x.operands[0].name, pc + 1) <= pc:
            add(ptx_where(x), "loop", 1)
        elif x.type[:1] in ("s", "u") and (x.base in ("div", "rem") or (x.base == "mul" and "hi" in x.mods)):
            add(ptx_where(x), "div", 1)  # ptxas's integer division (or NVVM's, by a constant) has one IMAD.HI
    return out


def _sass_anchors(ins: list[SassInstruction], start: int, end: int, labels: dict,
                  predicated: bool = False) -> dict[tuple, int]:
    """The anchors of SASS instructions [start, end): those no predicate guards, or (`predicated`) only the
    guarded ones (a branch that ends the block aside)."""
    out: dict[tuple, int] = {}
    for i in range(start, end):
        x = ins[i]
        if bool(x.guard and not (x.op == "BRA" and i == end - 1)) != predicated:
            continue  # if-converted (or not, when asked for those): issued as often as the block around it
        if x.op in _FP:
            key, units = (_sass_where(x), "fp"), 1
        elif x.memory:
            key, units = ((x.placed[1], 0), "local" if x.memory[0] == "local" else "mem"), x.width
        elif x.op in _ATOMIC and not {"CAS", "CAST"} & set(x.mods):
            key, units = ((x.placed[1], 0), "atom"), 1
        elif x.op == "BAR":
            key, units = (_sass_where(x), "bar"), 1
        elif x.op == "BRA" and x.guard and (t := TARGET.search(x.operands)) and labels.get(t.group(1), i + 1) <= i:
            key, units = (_sass_where(x), "loop"), 1
        elif x.op == "IMAD" and "HI" in x.mods:
            key, units = (_sass_where(x), "div"), 1
        else:
            continue
        out[key] = out.get(key, 0) + units
    return out


# local memory is its own kind: a line's global accesses are not the stack traffic of a sine's slow
# argument reduction on the same line, nor ptxas's spills
_KIND_ORDER = {"fp": 3, "mem": 2, "local": 2, "atom": 2, "bar": 1, "loop": 0, "div": -1}


def key_anchor(anchors: dict[tuple, int]) -> tuple[tuple | None, int]:
    """The anchor a block is known by, and its units per execution: floating-point work before memory
    bytes before barriers before a loop's back branch, then the most units. Every copy ptxas or NVVM
    makes of a loop body keeps it, in proportion to the iterations the copy does."""
    if not anchors:
        return None, 0
    k = max(anchors, key=lambda k: (_KIND_ORDER[k[1]], anchors[k], -k[0][0], -k[0][1]))
    return k, anchors[k]


@dataclass
class Match:
    """`units` of the work known by `key` (a source line and kind) per execution of a SASS block, and
    what it does of the work other blocks are known by (`also`: a prologue's store beside its loads)."""

    key: tuple | None  # ((line, site), kind)
    units: int
    also: tuple[tuple[tuple, int], ...] = ()
    maybe: tuple[tuple[tuple, int], ...] = ()  # predicated work: the last trips of a loop ptxas folded, or none


def match_blocks(sg: SassGraph, body: list, cfg, labels: dict) -> tuple[list[Match], list[list[Match]]]:
    """(per SASS block, its key anchor and units; per PTX block, the key anchors of SASS blocks that it
    does work of, in the order it first does it). A SASS block that repeats a loop body U times does U
    times its units; PTX blocks a SASS block merged (if-converted branches between them) each count
    what they do of the SASS block's key."""
    ins = sg.listing.instructions
    anchors = [_sass_anchors(ins, s, e, sg.listing.labels) for s, e in sg.blocks]
    sass = [Match(*key_anchor(a)) for a in anchors]
    keys = {m.key for m in sass if m.key is not None}
    ptx = []
    for b in cfg.blocks:
        a = _ptx_anchors(body, b.start, b.end, labels)
        ptx.append([Match(k, v) for k, v in a.items() if k in keys])
    have = {m.key for ms in ptx for m in ms}
    out = []
    for m, a, (s, e) in zip(sass, anchors, sg.blocks):
        also = tuple((k, v) for k, v in a.items() if k in have and k != m.key)
        maybe = tuple((k, v) for k, v in _sass_anchors(ins, s, e, sg.listing.labels, True).items() if k in have)
        out.append(Match(m.key, m.units, also, maybe) if m.key in have else Match(None, 0, also, maybe))
    return out, ptx
