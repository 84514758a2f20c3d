"""Global-memory coalescing: requests, 32-byte sectors and 128-byte lines per warp instruction.

    python -m analysis.coalescing TARGET [--size N] [--gpu NAME] [--json] [--draw text|mermaid|svg|none] [--mermaid] [--svg]
    (TARGET: a catalog name, or path/to/file.cu::kernel --grid X,Y --block X,Y --arg NAME=VALUE ...)

L1TEX counts one request per warp-level global load/store with an active lane, and one
sector per distinct 32-byte segment the active lanes' bytes touch (shared/hardware.md).
So sectors per request against the ideal (distinct bytes / 32, rounded up) is the cost of
the access pattern, independent of timing; totals are named by the ncu metrics they predict.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field

import numpy as np

from cudasim.trace import MemEvent, Trace

from .common import Provenance, active_lanes, count_distinct, lane_strides, provenance, row_weights

SECTOR, LINE = 32, 128
METRICS = {
    "ld": ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
    "st": ("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
}
FIX_THREADIDX = "bind threadIdx.x to the fastest-varying index (the one contiguous in memory)"


@dataclass
class RowStats:
    """Per warp row of one event: what the hardware would fetch."""

    lanes: np.ndarray  # (n,) active lanes
    sectors: np.ndarray  # (n,) distinct 32 B sectors
    lines: np.ndarray  # (n,) distinct 128 B lines
    ideal: np.ndarray  # (n,) ceil(distinct bytes / 32)
    bytes: np.ndarray  # (n,) bytes requested (active lanes x size)
    pattern: np.ndarray  # (n,) object: broadcast | unit | stride | runs | scattered | single
    stride: np.ndarray  # (n,) elements between consecutive lanes where constant
    breaks: np.ndarray  # (n,) stride changes inside the warp


def row_stats(addrs: np.ndarray, masks: np.ndarray, size: int) -> RowStats:
    """Sectors, lines, ideal sectors and the access pattern of each warp row (vectorized)."""
    addrs = np.asarray(addrs, dtype=np.uint64).reshape(-1, 32)
    act = active_lanes(masks)
    size = max(int(size), 1)
    first = addrs
    last = addrs + np.uint64(size - 1)
    both_act = np.concatenate([act, act], axis=1)
    sectors = count_distinct(np.concatenate([first >> np.uint64(5), last >> np.uint64(5)], axis=1), both_act)
    lines = count_distinct(np.concatenate([first >> np.uint64(7), last >> np.uint64(7)], axis=1), both_act)
    elems = count_distinct(addrs // np.uint64(size), act)  # natural alignment: one element per lane
    ideal = -(-(elems * size) // SECTOR)
    lanes = act.sum(axis=1)
    stride, constant, breaks = lane_strides(addrs, act)
    pattern = np.full(len(addrs), "scattered", dtype=object)
    unit = constant & (np.abs(stride) == size)
    pattern[constant & (stride == 0)] = "broadcast"
    pattern[unit] = "unit"
    strided = constant & (stride != 0) & ~unit
    pattern[strided] = "stride"
    runs = ~constant & (lanes > 2) & (breaks * 4 <= lanes)  # mostly unit stride, a few jumps
    pattern[runs] = "runs"
    pattern[lanes == 1] = "single"
    elem_stride = np.where(strided & (stride % size == 0), stride // size, np.where(unit, np.sign(stride), 0))
    return RowStats(lanes, sectors, lines, ideal, lanes * size, pattern, elem_stride, breaks)


@dataclass
class Example:
    """One warp of an instruction, kept for the drawing."""

    block: tuple[int, int, int]
    warp: int
    mask: int
    addrs: list[int]
    size: int


@dataclass
class GlobalInstruction:
    """One global load/store instruction (by PC), summed over the warps that ran it."""

    pc: int
    line: int
    file: str
    text: str
    op: str
    size: int
    requests: float = 0.0
    sectors: float = 0.0
    lines: float = 0.0
    ideal_sectors: float = 0.0
    lanes: float = 0.0
    bytes_requested: float = 0.0
    patterns: dict[str, float] = field(default_factory=dict)
    strides: dict[int, float] = field(default_factory=dict)
    misaligned_requests: float = 0.0
    example: Example | None = None
    diagnosis: str = ""
    fix: str = ""

    @property
    def sectors_per_request(self) -> float:
        return self.sectors / self.requests if self.requests else 0.0

    @property
    def ideal_per_request(self) -> float:
        return self.ideal_sectors / self.requests if self.requests else 0.0

    @property
    def efficiency(self) -> float:
        """Ideal sectors / fetched sectors: the share of moved bytes the warp needed."""
        return self.ideal_sectors / self.sectors if self.sectors else 1.0

    @property
    def lanes_per_request(self) -> float:
        return self.lanes / self.requests if self.requests else 0.0

    def to_dict(self) -> dict:
        d = asdict(self)
        d.update(sectors_per_request=self.sectors_per_request, ideal_per_request=self.ideal_per_request,
                 efficiency=self.efficiency, lanes_per_request=self.lanes_per_request)
        d["strides"] = {str(k): v for k, v in self.strides.items()}
        return d


def _example(ev: MemEvent, i: int, trace: Trace | None) -> Example:
    blk = trace.block_coords(int(ev.blocks[i])) if trace is not None else (int(ev.blocks[i]), 0, 0)
    return Example(blk, int(ev.warps[i]), int(ev.masks[i]), [int(a) for a in ev.addrs[i]], ev.size)


def analyze_events(events: list[MemEvent], prov: Provenance | None = None, trace: Trace | None = None,
                   space: str = "global") -> list[GlobalInstruction]:
    """Per-instruction coalescing statistics for the events of one memory space, by PC."""
    out: dict[int, GlobalInstruction] = {}
    for ev in events:
        if ev.space != space or len(ev) == 0:
            continue
        rs = row_stats(ev.addrs, ev.masks, ev.size)
        w = row_weights(ev, prov)
        gi = out.get(ev.pc)
        if gi is None:
            gi = out[ev.pc] = GlobalInstruction(ev.pc, ev.line, ev.file, ev.text, ev.op, ev.size)
        gi.requests += float(w.sum())
        gi.sectors += float((rs.sectors * w).sum())
        gi.lines += float((rs.lines * w).sum())
        gi.ideal_sectors += float((rs.ideal * w).sum())
        gi.lanes += float((rs.lanes * w).sum())
        gi.bytes_requested += float((rs.bytes * w).sum())
        gi.misaligned_requests += float((w * ((rs.pattern == "unit") & (rs.sectors > rs.ideal))).sum())
        for p in np.unique(rs.pattern):
            sel = rs.pattern == p
            gi.patterns[p] = gi.patterns.get(p, 0.0) + float(w[sel].sum())
            if p == "stride":
                for k in np.unique(rs.stride[sel]):
                    gi.strides[int(k)] = gi.strides.get(int(k), 0.0) + float(w[sel & (rs.stride == k)].sum())
        if gi.example is None:
            gi.example = _example(ev, 0, trace)
    result = sorted(out.values(), key=lambda g: (g.line, g.pc))
    for gi in result:
        gi.diagnosis, gi.fix = diagnose(gi)
    return result


def diagnose(gi: GlobalInstruction) -> tuple[str, str]:
    """Plain words for the dominant pattern of an instruction, and the fix where one applies."""
    if not gi.patterns:
        return "no active lanes", ""
    pat, share = max(gi.patterns.items(), key=lambda kv: kv[1])
    part = "" if share >= 0.999 * gi.requests else f" ({100 * share / gi.requests:.0f}% of requests)"
    spr, ideal = gi.sectors_per_request, gi.ideal_per_request
    cost = f"{spr:.1f} sectors/request vs ideal {ideal:.1f}"
    if pat == "broadcast":
        return f"broadcast: every active lane reads the same address{part}; {cost}", ""
    if pat == "single":
        return f"one active lane per request{part}; {cost}", "give neighbouring lanes neighbouring addresses"
    if pat == "unit":
        if gi.misaligned_requests > 0.5 * share:
            return (f"unit stride but misaligned{part}: the warp's bytes start inside a sector; {cost}",
                    "align the base (or the row pitch) to 32 B, ideally 128 B; pad rows to a multiple of 32 elements")
        return f"unit stride, coalesced{part}: {cost}", ""
    if pat == "stride":
        k = max(gi.strides.items(), key=lambda kv: kv[1])[0] if gi.strides else 0
        step = abs(k) * gi.size
        if step >= SECTOR:
            return (f"stride {k} elements ({step} B between lanes){part}: every lane hits its own sector; {cost}",
                    FIX_THREADIDX + ", or stage the tile through shared memory and transpose there")
        return (f"stride {k} elements ({step} B between lanes){part}: each sector serves {SECTOR // step} lanes; {cost}",
                "interleaved data (array of structs?): load whole elements with vector loads (float2/float4) "
                "or store a structure of arrays; or " + FIX_THREADIDX)
    if pat == "runs":
        return (f"unit stride in short runs{part}: one warp spans several rows (blockDim.x < 32 or not a "
                f"multiple of 32); {cost}", "make blockDim.x a multiple of 32 so a warp reads one contiguous row")
    return (f"scattered{part}: no common stride between lanes (indirect or gathered index); {cost}",
            "sort or bucket the indices so neighbouring lanes read neighbouring addresses, or stage through shared memory")


def totals(instrs: list[GlobalInstruction]) -> dict[str, float]:
    """Launch totals named by the ncu metrics they predict (global ld and st only)."""
    out: dict[str, float] = {}
    for op, (req, sec) in METRICS.items():
        out[req] = sum(g.requests for g in instrs if g.op == op)
        out[sec] = sum(g.sectors for g in instrs if g.op == op)
    return out


def analyze(trace: Trace, weights: dict[int, float] | None = None) -> dict:
    """Everything the CLI prints, as plain data: instructions, totals, provenance."""
    prov = provenance(trace, weights)
    instrs = analyze_events(trace.events, prov, trace)
    return {"provenance": prov.to_dict(), "instructions": [g.to_dict() for g in instrs], "totals": totals(instrs)}


# ---- drawings ---------------------------------------------------------------------------

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


def draw_text(ex: Example, max_rows: int = 16) -> str:
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


def draw_mermaid(ex: Example) -> str:
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


def draw_svg(ex: Example) -> str:
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


if __name__ == "__main__":
    import sys

    from .cli import main

    sys.exit(main("coalescing"))
