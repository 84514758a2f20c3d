"""Shared-memory bank conflicts: wavefronts per request, conflict degree, who collides where.

    python -m analysis.banks TARGET [--size N] [--gpu NAME] [--json] [--draw text|mermaid|svg|none] [--mermaid] [--svg DIR]
    (TARGET: a catalog name, or path/to/file.cu::kernel --grid X,Y --block X,Y --arg NAME=VALUE ...)

32 banks of 4 bytes; bank = (byte offset / 4) mod 32. Lanes reading the same word are
served together (broadcast, multicast); distinct words in one bank serialize. 8-byte
accesses run as two half-warp phases, 16-byte ones as four quarter-warp phases, so the
wavefronts of a request are the sum over its phases of the largest number of distinct
words any bank is asked for, except that two phases of a load share a wavefront where
they fit in one (bank_rows). ncu counts bank conflicts as wavefronts beyond the ideal
(one per phase that has an active lane), which is what the totals predict.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from cudasim.trace import MemEvent, Trace

from ..common import (BANKS, WORD, Example, Metric, Model, Provenance, View, active_lanes, lane_strides, phases,
                      provenance, row_weights)
from ..draw import BANK_PICTURES, add_draw_arguments, collisions
from ..present import details, group_rows, picture, short, where

LOAD_INSTRUCTIONS = Metric("smsp__inst_executed_op_shared_ld.sum", "instructions", "lds instructions", "rel", 0.05)
LOAD_WAVEFRONTS = Metric("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "wavefronts", "lds wavefronts",
                         "rel", 0.05)
LOAD_CONFLICTS = Metric("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                        "conflicts (wavefronts beyond the ideal)", "lds conflicts", "info")
STORE_INSTRUCTIONS = Metric("smsp__inst_executed_op_shared_st.sum", "instructions", "sts instructions", "rel", 0.05)
STORE_WAVEFRONTS = Metric("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "wavefronts", "sts wavefronts",
                          "rel", 0.05)
STORE_CONFLICTS = Metric("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                         "conflicts (wavefronts beyond the ideal)", "sts conflicts", "info")
BY_OP = {"ld": (LOAD_INSTRUCTIONS, LOAD_WAVEFRONTS, LOAD_CONFLICTS),
         "st": (STORE_INSTRUCTIONS, STORE_WAVEFRONTS, STORE_CONFLICTS)}
SASS_OPS = {"ld": "LDS", "st": "STS"}
# Bank conflicts are shown, not judged: ncu adds a little arbitration noise on conflict-free kernels (DESIGN.md).


def _words(addrs: np.ndarray, size: int) -> tuple[np.ndarray, int]:
    """(n, 32, k) word indices each lane touches, and k."""
    k = max(1, int(size) // WORD)
    w = (addrs.astype(np.int64) // WORD)[:, :, None] + np.arange(k)[None, None, :]
    return w, k


@dataclass
class BankRows:
    wavefronts: np.ndarray  # (n,)
    ideal: np.ndarray  # (n,) the wavefronts the request needs without bank conflicts
    degree: np.ndarray  # (n,) worst distinct words in one bank within a phase
    lanes: np.ndarray  # (n,)
    distinct_words: np.ndarray  # (n,)


def _phase(words: np.ndarray, act: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(max distinct words in one bank, distinct words) per row for one group of lanes."""
    n = len(words)
    big = np.iinfo(np.int64).max
    w = np.where(np.repeat(act, k, axis=1), words.reshape(n, -1), big)
    w.sort(axis=1)
    new = np.ones_like(w, dtype=bool)
    new[:, 1:] = w[:, 1:] != w[:, :-1]
    new &= w != big
    rows = np.broadcast_to(np.arange(n)[:, None], w.shape)
    bank = np.where(new, w % BANKS, 0)
    counts = np.bincount((rows * BANKS + bank)[new], minlength=n * BANKS).reshape(n, BANKS)
    return counts.max(axis=1), new.sum(axis=1)


def _chunk_bytes(addrs: np.ndarray, act: np.ndarray, size: int) -> np.ndarray:
    """Per row, the bytes the crossbar carries: over each group of four lanes, its distinct chunks (the
    access's width, a word at least) times the chunk's bytes."""
    unit = max(int(size), WORD)
    big = np.iinfo(np.int64).max
    c = np.where(act, addrs.astype(np.int64) // unit, big).reshape(len(addrs), -1, 4)
    c.sort(axis=2)
    new = np.ones_like(c, dtype=bool)
    new[:, :, 1:] = c[:, :, 1:] != c[:, :, :-1]
    new &= c != big
    return new.sum(axis=(1, 2)) * unit


def bank_rows(addrs: np.ndarray, masks: np.ndarray, size: int, op: str = "ld") -> BankRows:
    """Wavefronts, ideal and conflict degree of each warp row (vectorized).

    The lanes are served in groups (32 lanes for 4-byte accesses, half-warps for 8-byte, quarter-warps
    for 16-byte); a group costs the most distinct words any one bank is asked for. A load's two groups
    of one merge domain (16-byte: the quarters of a half-warp; 8-byte: the two half-warps) share one
    wavefront when together they fit in it: no bank asked for two words, and at most 128 bytes counted
    as each four lanes' distinct chunks. Stores never share. Measured on the H100 over 372 lane
    patterns of each width, load and store (tests/banks_gpu.py, tests/banks_h100.json): every one
    equals this rule. The ideal counts, per group, one wavefront per 128 bytes of distinct words (at
    least one per group with an active lane; a shared wavefront, one for both).
    """
    addrs = np.asarray(addrs).reshape(-1, 32)
    n = len(addrs)
    act = active_lanes(masks)
    words, k = _words(addrs, size)
    nph = phases(size)
    per = 32 // nph
    d_group = np.zeros((n, nph), dtype=np.int64)
    need = np.zeros((n, nph), dtype=np.int64)
    for p in range(nph):
        sl = slice(p * per, (p + 1) * per)
        d, nd = _phase(words[:, sl], act[:, sl], k)
        d_group[:, p] = d
        need[:, p] = np.maximum(act[:, sl].any(axis=1), -(-nd // BANKS))
    wav, ideal = d_group.sum(axis=1), need.sum(axis=1)
    degree = d_group.max(axis=1)
    if op == "ld" and nph > 1:
        dom = 2 * per  # a merge domain: two groups
        for lo in range(0, 32, dom):
            sl = slice(lo, lo + dom)
            d, _ = _phase(words[:, sl], act[:, sl], k)
            shared = (d <= 1) & act[:, sl].any(axis=1) & (_chunk_bytes(addrs[:, sl], act[:, sl], size) <= 128)
            g = slice(lo // per, lo // per + 2)
            wav = wav - np.where(shared, d_group[:, g].sum(axis=1) - 1, 0)
            ideal = ideal - np.where(shared, need[:, g].sum(axis=1) - 1, 0)
    _, distinct_all = _phase(words, act, k)
    return BankRows(wav, ideal, degree, act.sum(axis=1), distinct_all)


@dataclass
class SharedInstruction:
    """One shared-memory instruction (by PC), summed over the warps that ran it."""

    pc: int
    line: int
    file: str
    text: str
    op: str
    size: int
    requests: float = 0.0
    wavefronts: float = 0.0
    ideal_wavefronts: float = 0.0
    max_degree: int = 0
    broadcast_requests: float = 0.0
    multicast_requests: float = 0.0
    generic: bool = False  # a generic-address load/store (SASS LD/ST): ncu counts its wavefronts, not it
    degrees: dict[int, float] = field(default_factory=dict)
    strides: dict[int, float] = field(default_factory=dict)  # word stride between lanes -> requests
    example: Example | None = None
    diagnosis: str = ""
    fix: str = ""
    site: str = ""  # "file:line" of the call an inlined helper's access was inlined into

    @property
    def conflicts(self) -> float:
        return self.wavefronts - self.ideal_wavefronts

    @property
    def wavefronts_per_request(self) -> float:
        return self.wavefronts / self.requests if self.requests else 0.0

    def to_dict(self) -> dict:
        d = asdict(self)
        d.update(conflicts=self.conflicts, wavefronts_per_request=self.wavefronts_per_request)
        d["degrees"] = {str(k): v for k, v in self.degrees.items()}
        d["strides"] = {str(k): v for k, v in self.strides.items()}
        return d


def analyze_events(events: list[MemEvent], prov: Provenance | None = None,
                   trace: Trace | None = None) -> list[SharedInstruction]:
    """Per-instruction bank statistics over the shared-memory events, by PC and operation (an atomic that ptxas
    writes as a compare-and-swap loop has its loop's load beside it, analysis.sass)."""
    out: dict[tuple[int, str], SharedInstruction] = {}
    for ev in events:
        if ev.space != "shared" or len(ev) == 0:
            continue
        br = bank_rows(ev.addrs, ev.masks, ev.size, ev.op)
        w = row_weights(ev, prov)
        si = out.get((ev.pc, ev.op))
        if si is None:
            si = out[(ev.pc, ev.op)] = SharedInstruction(ev.pc, ev.line, ev.file, ev.text, ev.op, ev.size,
                                                          generic=ev.generic, site=ev.site)
        si.requests += float(w.sum())
        si.wavefronts += float((br.wavefronts * w).sum())
        si.ideal_wavefronts += float((br.ideal * w).sum())
        si.max_degree = max(si.max_degree, int(br.degree.max()))
        si.broadcast_requests += float(w[(br.distinct_words <= max(1, ev.size // WORD)) & (br.lanes > 1)].sum())
        si.multicast_requests += float(w[(br.distinct_words < br.lanes * max(1, ev.size // WORD))
                                         & (br.distinct_words > max(1, ev.size // WORD))].sum())
        for d in np.unique(br.degree):
            si.degrees[int(d)] = si.degrees.get(int(d), 0.0) + float(w[br.degree == d].sum())
        stride, constant, *_ = lane_strides(np.asarray(ev.addrs), active_lanes(ev.masks))
        for s in np.unique(stride[constant]):
            if s % WORD == 0:
                si.strides[int(s // WORD)] = si.strides.get(int(s // WORD), 0.0) + float(w[constant & (stride == s)].sum())
        if si.example is None or br.degree.max() > _degree_of(si.example):
            si.example = Example.from_row(ev, int(np.argmax(br.degree)), trace)
    result = sorted(out.values(), key=lambda s: (s.line, s.pc, s.op))
    for si in result:
        si.diagnosis, si.fix = diagnose(si)
    return result


def _degree_of(ex: Example) -> int:
    return int(bank_rows(np.array([ex.addrs], dtype=np.uint64), np.array([ex.mask], dtype=np.uint32), ex.size).degree[0])


def pad_for(pitch_words: int) -> int:
    """Smallest padding (words) that makes a column walk over `pitch_words` conflict-free."""
    for pad in range(0, BANKS):
        if math.gcd(pitch_words + pad, BANKS) == 1:
            return pad
    return 1


def diagnose(si: SharedInstruction) -> tuple[str, str]:
    """Plain words for the bank behaviour of an instruction, and the fix where one applies."""
    wpr = si.wavefronts_per_request
    ideal = si.ideal_wavefronts / si.requests if si.requests else 0
    split = f" ({si.size}-byte accesses run in {phases(si.size)} phases)" if phases(si.size) > 1 else ""
    cost = f"{wpr:.2f} wavefronts/request vs ideal {ideal:.0f}{split}"
    if si.conflicts <= 1e-9:
        if si.broadcast_requests >= 0.5 * si.requests:
            return f"conflict-free: broadcast, every lane reads one word; {cost}", ""
        if si.multicast_requests >= 0.5 * si.requests:
            return f"conflict-free with multicast (lanes sharing words are served together); {cost}", ""
        return f"conflict-free; {cost}", ""
    worst = max(si.degrees.items(), key=lambda kv: kv[1])[0] if si.degrees else si.max_degree
    text = f"{worst}-way bank conflict (worst {si.max_degree}-way); {cost}"
    if si.strides:
        p = max(si.strides.items(), key=lambda kv: kv[1])[0]
        if p and si.size <= WORD and abs(p) < BANKS:  # lanes a few words apart: a strided index, not a tile's column
            text += f"; neighbouring lanes are {abs(p)} words apart: gcd({abs(p)}, 32) = {math.gcd(abs(p), 32)}"
            return text, ("give neighbouring lanes neighbouring words: in a tree reduction, sequential addressing "
                          "(s[tid] += s[tid + stride]); for an array of structs, a struct of arrays")
        if p and si.size <= WORD:
            pad = pad_for(abs(p))
            text += f"; lanes walk a column with a row pitch of {abs(p)} words: gcd({abs(p)}, 32) = {math.gcd(abs(p), 32)}"
            return text, (f"pad each row by {pad} word{'s' if pad > 1 else ''} (pitch {abs(p)} -> {abs(p) + pad}, e.g. "
                          f"__shared__ float tile[N][{abs(p) + pad}]) or XOR-swizzle the column (tile[r][c ^ r])")
    return text, ("spread the lanes over the banks: give neighbouring lanes neighbouring words, "
                  "pad rows to an odd number of words, or swizzle the index (word ^ row)")


def totals(instrs: list[SharedInstruction], issued: dict[str, float] | None = None) -> dict[str, float]:
    """Launch totals named by the ncu metrics they predict (shared ld and st). Instructions are what the SASS
    issues where that is known (`issued`, analysis.issues: a predicated LDS issues in every warp that reaches it,
    with its lanes on or off), else the requests of the trace, where some lane was on."""
    out: dict[str, float] = {}
    for op, (inst, wav, conf) in BY_OP.items():
        sel = [s for s in instrs if s.op == op]
        out[inst.name] = (issued[op] if issued is not None else
                          sum(s.requests for s in sel if not s.generic))  # ncu: a generic LD/ST is no LDS/STS
        out[wav.name] = sum(s.wavefronts for s in sel)
        out[conf.name] = sum(s.conflicts for s in sel)
    return out


# What ncu adds to the addresses' wavefronts (measured, not modelled: the collisions depend on timing)
CONTENTION = ("ncu counts shared wavefronts beyond what the addresses need where many warps of an SM store to "
              "shared memory what they just loaded from global memory: on the H100 +4% to +10% on such stores with "
              "32 to 64 warps an SM, about +1% on loads, none with 8 warps an SM (tests/contention_h100.json); "
              "the totals here are the addresses' own")


def analyze(trace: Trace, weights: dict[int, float] | None = None, issued: dict[str, float] | None = None) -> dict:
    """Everything the report prints, as plain data: instructions, totals, provenance, and the shared instructions
    issued with every lane off (`idle`, by op: the totals count them, the rows do not)."""
    prov = provenance(trace, weights)
    instrs = analyze_events(trace.events, prov, trace)
    tot = totals(instrs, issued)
    idle = {op: tot[inst.name] - sum(s.requests for s in instrs if s.op == op and not s.generic)
            for op, (inst, _, _) in BY_OP.items()}
    stores = any(ev.space == "shared" and ev.op == "st" for ev in trace.events)
    loads = any(ev.space == "global" and ev.op == "ld" for ev in trace.events)
    return {"provenance": prov.to_dict(), "instructions": [s.to_dict() for s in instrs], "totals": tot,
            "idle": idle, "contention": CONTENTION if stores and loads else None}


def render(r: dict, view: View) -> str:
    """The report: one row per source line (wavefronts, worst degree, diagnosis, fix), for a
    conflicting row which lanes collide and its bank map unless --draw none, and the totals."""
    prov = r["provenance"]["label"]
    draw = view.options.draw
    out = ["", f"Shared memory per source line ({prov}; requests = warp-level instructions, wavefronts = "
           f"passes through the 32 banks; 'xN' = N instructions on the line):",
           f"{'line':>16} {'op':3} {'B/lane':>6} {'requests':>10} {'wavefronts':>11} {'wf/req':>7} {'ideal':>6} "
           f"{'worst':>6}  diagnosis"]
    drawn = set()
    if not r["instructions"]:
        out.append("  (no shared-memory accesses)")
    for s in group_rows(r["instructions"], ("requests", "wavefronts", "ideal_wavefronts")):
        key = (s["line"], s["op"], s["diagnosis"])
        req = max(s["requests"], 1e-9)
        out.append(f"{where(s):>16} {s['op']:3} {s['size']:6d} {s['requests']:10,.0f} {s['wavefronts']:11,.0f} "
                   f"{s['wavefronts'] / req:7.2f} {s['ideal_wavefronts'] / req:6.2f} "
                   f"{str(s['max_degree']) + '-way':>6}  {s['diagnosis']}")
        out += details(s)
        ex = Example.of(s.get("example"))
        if draw != "none" and ex is not None and s.get("max_degree", 1) > 1 and key not in drawn:
            drawn.add(key)
            out += [f"{'':>16}     collide: {c}" for c in collisions(ex, limit=3)]
            out += picture(ex, BANK_PICTURES[draw])
    idle = {op: n for op, n in r.get("idle", {}).items() if abs(n) >= 0.5}
    if idle:
        said = " and ".join(f"{abs(n):,.0f} {'more' if n > 0 else 'fewer'} {SASS_OPS[op]}" for op, n in idle.items())
        out += ["", f"The SASS issues {said} than the requests above, and the totals count what it issues, as ncu "
                    "does: ptxas made short branches predicated code, which every warp that reaches it issues with "
                    "its lanes off; from the SASS walk of the simulated warps' paths"]
    out += ["", f"Predicted totals ({prov}), named by the Nsight Compute metric each predicts:"]
    for op in BY_OP.values():
        for m in op:
            out.append(f"  {m.name:60s} {r['totals'][m.name]:14,.0f} {m.unit}")
    if r.get("contention"):
        out.append(f"  note: {r['contention']}")
    return "\n".join(out)


def pointer(results: dict, view: View) -> str | None:
    """For the other reports of a launch: the bank conflicts predicted and where the worst is."""
    r = results["banks"]
    conflicts = sum(r["totals"][m.name] for m in (LOAD_CONFLICTS, STORE_CONFLICTS))
    if not conflicts:
        return None
    worst = max(r["instructions"], key=lambda s: s.get("max_degree", 1))
    return (f"Shared memory: {int(conflicts):,} bank conflicts predicted, worst {worst['max_degree']}-way at "
            f"{short(worst['file'])}:{worst['line']}: run `python -m analysis.banks {view.spec}` for the banks.")


MODEL = Model(
    name="banks", summary="shared-memory bank conflicts per source line", order=20, needs="trace",
    metrics=(LOAD_INSTRUCTIONS, LOAD_WAVEFRONTS, LOAD_CONFLICTS, STORE_INSTRUCTIONS, STORE_WAVEFRONTS, STORE_CONFLICTS),
    analyze=analyze, render=render, predictions=lambda r: dict(r["totals"]), add_arguments=add_draw_arguments,
    pointer=pointer)
