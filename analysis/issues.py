"""The shared-memory instructions the SASS issues, where ptxas made short branches predicated code.

ptxas turns `if (t < k) s[t] += s[t + k];` into predicated LDS/STS that every warp reaching them issues, its
lanes on or off, and ncu's counts of executed instructions take those in; the trace has a warp's access only
where some lane was on. The SASS walk (analysis.sassflow) of every warp of the followed blocks, weighted by the
blocks each stands for, counts what each SASS instruction issues. Where the loads and stores ptxas left
unpredicated move as many bytes a lane in the walk as in the trace (counted in bytes, and over all such lines
together, as ptxas merges accesses into wider ones, across lines too), and no predicated line fewer (it cannot
issue less than its lanes that were on), the walk has followed the warps and its counts stand; elsewhere the
trace's, with a note.
"""
from __future__ import annotations

import os
from collections import defaultdict

import numpy as np

from cudasim.trace import Trace

from . import sassflow
from .common import provenance, row_weights

LOST_PATH = 16.0  # a warp's SASS stream this many times its PTX instructions, or this many times fewer, has lost
# the path (math's inline slow paths: ~10x more)
AGREE = 0.005  # an unpredicated line's issues in the walk and in the trace agree within this share


def lost(sass: int, ptx: int) -> bool:
    """Whether a warp's SASS stream of `sass` instructions for `ptx` PTX ones left the warp's path (a loop it
    skipped would make a confident answer many times too short)."""
    return sass > LOST_PATH * max(ptx, 8) or (ptx > 8 * LOST_PATH and LOST_PATH * sass < ptx)


def walked(walker: sassflow.Walker, followed: dict[int, list], weights: dict[int, float],
           warps: int, parts: dict[int, dict[int, int]] | None = None) -> np.ndarray | None:
    """Warp instructions issued at each SASS instruction over the grid: the walk of every warp of each followed
    block ({block: [(pc, warp bits), ...]}, cudasim's stats["followed"]), weighted by the blocks it stands for;
    `parts`: per block, the warps each branch parted (stats["followed_parted"]; None: any may have been). None
    where a walk lost its warp's path."""
    out = np.zeros(len(walker.sg.listing.instructions))
    for block, path in followed.items():
        w = weights.get(block, 0.0)
        for warp in range(warps):
            pw = [pc for pc, bits in path if bits >> warp & 1]
            if not pw:
                continue
            stream = walker.stream(pw, parted=walker.parted(None if parts is None else parts.get(block), warp))
            if lost(len(stream), sum(walker.run_end(pc) - pc for pc in pw)):
                return None
            np.add.at(out, stream, w)
    return out


def shared(listing, program, body: list, followed: dict, follow_weights: dict[int, float], warps: int,
           trace: Trace, weights: dict[int, float], parts: dict[int, dict[int, int]] | None = None
           ) -> tuple[dict[str, float] | None, str]:
    """({"ld": LDS issued, "st": STS issued} over the grid, ""), or (None, why the trace's counts stand): calls
    ptxas did not inline, a lost path, or loads and stores the walk moves otherwise than the trace."""
    link = program.fn.linkage
    if link is not None and any(pc in link.callees for path in followed.values() for pc, _ in path):
        return None, "the kernel calls functions ptxas did not inline"
    try:
        walker = sassflow.Walker.build(sassflow.sass_graph(listing), body, program.cfg, program.fn.labels,
                                       program.run_end)
        counts = walked(walker, followed, follow_weights, warps, parts)
    except Exception as e:  # noqa: BLE001 - the walk refines the counts; without it, the trace's
        return None, f"the SASS walk failed ({type(e).__name__}: {str(e).splitlines()[0][:80] if str(e) else ''})"
    if counts is None:
        return None, "the SASS walk lost a warp's path"
    walk: dict[tuple, float] = defaultdict(float)  # (file, line, space, op) -> bytes a lane moves, summed
    predicated: set[tuple] = set()
    out = {"ld": 0.0, "st": 0.0}
    for ins, n in zip(listing.instructions, counts):
        if ins.memory is not None and ins.memory[0] in ("global", "shared"):
            key = (os.path.basename(ins.placed[0]), ins.placed[1], *ins.memory)
            walk[key] += float(n) * ins.width
            if ins.guard not in ("", "PT"):
                predicated.add(key)
            if ins.memory[0] == "shared":
                out[ins.memory[1]] += float(n)
    prov = provenance(trace, weights)
    traced: dict[tuple, float] = defaultdict(float)
    for ev in trace.events:
        if ev.space in ("global", "shared") and ev.op in ("ld", "st") and not ev.generic:
            traced[(os.path.basename(ev.file), ev.line, ev.space, ev.op)] += float(row_weights(ev, prov).sum()) * ev.size
    keys = set(walk) | set(traced)
    for key in sorted(k for k in keys if k in predicated):  # it cannot move fewer bytes than its lanes that were on
        if traced[key] - walk[key] > AGREE * max(traced[key], 1.0):
            return None, _differ(key[2:], walk[key], traced[key], f" at {key[0]}:{key[1]}")
    for kind in sorted({k[2:] for k in keys}):  # unpredicated lines, together: ptxas merges accesses across lines
        w, t = (sum(d[k] for k in keys if k[2:] == kind and k not in predicated) for d in (walk, traced))
        if abs(w - t) > AGREE * max(t, 1.0):
            return None, _differ(kind, w, t, " on its unpredicated lines")
    return out, ""


def _differ(kind: tuple[str, str], walk: float, traced: float, where: str) -> str:
    what = f"{kind[0]} {'loads' if kind[1] == 'ld' else 'stores'}"
    return f"the SASS walk's {what}{where} move {walk:,.0f} bytes a lane in all, the trace's {traced:,.0f}"
