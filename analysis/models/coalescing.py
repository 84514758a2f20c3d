"""Global-memory coalescing: requests, 32-byte sectors and 128-byte lines per warp instruction.

    python -m analysis.coalescing TARGET [--size N] [--gpu NAME] [--json] [--draw text|mermaid|none] [--mermaid] [--svg DIR]
    (TARGET: a catalog name, or path/to/file.cu::kernel --grid X,Y --block X,Y --arg NAME=VALUE ...)

L1TEX counts one request per warp-level global load/store with an active lane, and one
sector per distinct 32-byte segment the active lanes' bytes touch (shared/hardware.md).
So sectors per request against the ideal (distinct bytes / 32, rounded up) is the cost of
the access pattern, independent of timing; totals are named by the ncu metrics they predict.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from cudasim.trace import MemEvent, Trace

from ..common import (SECTOR, Example, Metric, Model, Provenance, View, active_lanes, count_distinct, lane_strides,
                      provenance, row_weights)
from ..draw import SECTOR_PICTURES, add_draw_arguments
from ..present import details, group_rows, picture, where

LOAD_REQUESTS = Metric("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "requests", "gld requests", "exact")
LOAD_SECTORS = Metric("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sectors", "gld sectors", "exact")
STORE_REQUESTS = Metric("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "requests", "gst requests", "exact")
STORE_SECTORS = Metric("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "sectors", "gst sectors", "exact")
LOAD_INSTRUCTIONS = Metric("smsp__inst_executed_op_global_ld.sum", "instructions", "gld instructions", "context")
STORE_INSTRUCTIONS = Metric("smsp__inst_executed_op_global_st.sum", "instructions", "gst instructions", "context")
BY_OP = {"ld": (LOAD_REQUESTS, LOAD_SECTORS), "st": (STORE_REQUESTS, STORE_SECTORS)}
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
    stride: np.ndarray  # (n,) float: elements between consecutive lanes where constant
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
    stride, constant, breaks, usual = lane_strides(addrs, act)
    pattern = np.full(len(addrs), "scattered", dtype=object)
    few_jumps = ~constant & (lanes > 2) & (breaks * 4 <= lanes)  # runs of one stride, a few jumps between them
    stride = np.where(few_jumps & (usual != 0) & (np.abs(usual) != size), usual, stride)  # the runs' stride
    unit = constant & (np.abs(stride) == size)
    pattern[constant & (stride == 0)] = "broadcast"
    pattern[unit] = "unit"
    strided = (constant | few_jumps) & (stride != 0) & ~unit
    pattern[strided] = "stride"
    runs = few_jumps & (np.abs(usual) == size)  # unit stride in short runs (a warp over rows of blockDim.x < 32)
    pattern[runs] = "runs"
    pattern[few_jumps & (usual == 0)] = "scattered"  # several broadcasts: no one stride describes them
    pattern[lanes == 1] = "single"
    # elements between consecutive lanes; a fraction where only some lanes are active (lanes 0, 8, 16
    # and 24 of a row 150 B long step 37.5 floats per lane)
    elem_stride = np.where(strided, stride / size, np.where(unit, np.sign(stride), 0.0))
    return RowStats(lanes, sectors, lines, ideal, lanes * size, pattern, elem_stride, breaks)


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
    strides: dict[float, float] = field(default_factory=dict)
    misaligned_requests: float = 0.0
    example: Example | None = None
    diagnosis: str = ""
    fix: str = ""
    site: str = ""  # "file:line" of the call an inlined helper's access was inlined into

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
            gi = out[ev.pc] = GlobalInstruction(ev.pc, ev.line, ev.file, ev.text, ev.op, ev.size, site=ev.site)
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
                    key = int(k) if float(k).is_integer() else float(k)
                    gi.strides[key] = gi.strides.get(key, 0.0) + float(w[sel & (rs.stride == k)].sum())
        if gi.example is None:
            gi.example = Example.from_row(ev, 0, trace)
    result = sorted(out.values(), key=lambda g: (g.line, g.pc))
    for gi in result:
        gi.diagnosis, gi.fix = diagnose(gi)
    return result


def diagnose(gi: GlobalInstruction) -> tuple[str, str]:
    """Plain words for the dominant pattern of an instruction, and the fix where one applies. The words
    rest on the instruction's own counts (lanes, sectors, ideal), so they cannot contradict them: no fix
    where no sector is wasted, and what a sector serves is what it served."""
    if not gi.patterns:
        return "no active lanes", ""
    pat, share = max(gi.patterns.items(), key=lambda kv: kv[1])
    part = "" if share >= 0.999 * gi.requests else f" ({100 * share / gi.requests:.0f}% of requests)"
    spr, ideal, lanes = gi.sectors_per_request, gi.ideal_per_request, gi.lanes_per_request
    cost = f"{spr:.1f} sectors/request vs ideal {ideal:.1f}"
    per_sector = f"{lanes / spr:.1f} active lanes per sector" if spr else ""
    wasted = gi.efficiency < 0.999
    sparse = f"{lanes:.1f} of 32 lanes active per request, " if lanes <= 16 and pat not in ("single", "broadcast") \
        else ""
    if pat == "broadcast":
        return f"broadcast: every active lane reads the same address{part}; {cost}", ""
    if pat == "single":
        return (f"one active lane per request{part}: a request for every lane's access; {cost}",
                "let the warp's lanes share this work (neighbouring lanes, neighbouring addresses)")
    if pat == "unit":
        if gi.misaligned_requests > 0.5 * share:
            return (f"unit stride but misaligned{part}: the warp's bytes start inside a sector; {cost}",
                    "align the base (or the row pitch) to 32 B, ideally 128 B; pad rows to a multiple of 32 elements")
        return f"unit stride, coalesced{part}: {cost}", ""
    if not wasted:
        words = {"stride": "strided", "runs": "unit stride in short runs", "scattered": "lanes in no common order"}[pat]
        return f"{sparse}{words}{part}, but every byte of every sector fetched is used; {cost}", ""
    if sparse:  # a guard left a few lanes of each warp (halo or edge loads on a 2-D block): the lanes are far apart
        return (f"{sparse}{per_sector}{part}: the active lanes are far apart; {cost}",
                "let neighbouring lanes do this access (e.g. one warp loads a whole halo column, one lane per "
                "row), or keep it if these requests are few")
    if pat == "stride":
        k = max(gi.strides.items(), key=lambda kv: kv[1])[0] if gi.strides else 0
        step = round(abs(k) * gi.size)
        if step >= SECTOR:
            return (f"stride {k:g} elements ({step} B between lanes){part}: {per_sector}; {cost}",
                    FIX_THREADIDX + ", or stage the tile through shared memory and transpose there")
        return (f"stride {k:g} elements ({step} B between lanes){part}: {per_sector}; {cost}",
                "interleaved data (array of structs?): load whole elements with vector loads (float2/float4) "
                "or store a structure of arrays; or " + FIX_THREADIDX)
    if pat == "runs":
        return (f"unit stride in short runs{part}: one warp spans several rows (blockDim.x < 32 or not a "
                f"multiple of 32); {cost}", "make blockDim.x a multiple of 32 so a warp reads one contiguous row")
    return (f"scattered{part}: no common stride between lanes (indirect or gathered index); {per_sector}; {cost}",
            "sort or bucket the indices so neighbouring lanes read neighbouring addresses, or stage through shared memory")


def totals(instrs: list[GlobalInstruction]) -> dict[str, float]:
    """Launch totals named by the ncu metrics they predict (global ld and st only)."""
    out: dict[str, float] = {}
    for op, (req, sec) in BY_OP.items():
        out[req.name] = sum(g.requests for g in instrs if g.op == op)
        out[sec.name] = sum(g.sectors for g in instrs if g.op == op)
    return out


def analyze(trace: Trace, weights: dict[int, float] | None = None, issued: dict[str, float] | None = None) -> dict:
    """Everything the CLI prints, as plain data: instructions, totals, provenance. (`issued`, what the SASS
    issues, changes nothing here: a global request is made for lanes that are on.)"""
    prov = provenance(trace, weights)
    instrs = analyze_events(trace.events, prov, trace)
    return {"provenance": prov.to_dict(), "instructions": [g.to_dict() for g in instrs], "totals": totals(instrs)}


def render(r: dict, view: View) -> str:
    """The report: one row per source line (requests, sectors, diagnosis, fix), a picture of one
    warp per row unless --draw none, and the totals by metric."""
    prov = r["provenance"]["label"]
    draw = view.options.draw
    out = ["", f"Global memory per source line ({prov}; requests = warp-level instructions, sectors = 32-byte "
           f"segments; 'xN' = N instructions on the line):",
           f"{'line':>16} {'op':3} {'B/lane':>6} {'requests':>10} {'sectors':>10} {'sect/req':>8} {'ideal':>6} "
           f"{'effic.':>6}  diagnosis"]
    drawn = set()
    for g in group_rows(r["instructions"], ("requests", "sectors", "ideal_sectors", "lines", "lanes")):
        key = (g["line"], g["op"], g["diagnosis"])
        req = max(g["requests"], 1e-9)
        eff = g["ideal_sectors"] / g["sectors"] if g["sectors"] else 1.0
        out.append(f"{where(g):>16} {g['op']:3} {g['size']:6d} {g['requests']:10,.0f} {g['sectors']:10,.0f} "
                   f"{g['sectors'] / req:8.2f} {g['ideal_sectors'] / req:6.2f} {100 * eff:5.0f}%  {g['diagnosis']}")
        out += details(g)
        ex = Example.of(g.get("example"))
        if draw != "none" and ex is not None and key not in drawn:
            drawn.add(key)
            out += picture(ex, SECTOR_PICTURES[draw])
    out += ["", f"Predicted totals ({prov}), named by the Nsight Compute metric each predicts:"]
    for op in BY_OP.values():
        for m in op:
            out.append(f"  {m.name:55s} {r['totals'][m.name]:14,.0f} {m.unit}")
    return "\n".join(out)


MODEL = Model(
    name="coalescing", summary="coalescing of global accesses per source line", order=10, needs="trace",
    metrics=(LOAD_REQUESTS, LOAD_SECTORS, STORE_REQUESTS, STORE_SECTORS, LOAD_INSTRUCTIONS, STORE_INSTRUCTIONS),
    analyze=analyze, render=render, predictions=lambda r: dict(r["totals"]), add_arguments=add_draw_arguments)
