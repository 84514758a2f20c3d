"""Shared-memory bank conflicts: wavefronts per request, conflict degree, who collides where.

    python -m analysis.banks TARGET [--size N] [--gpu NAME] [--json] [--draw text|mermaid|svg|none] [--mermaid] [--svg]
    (TARGET: a catalog name, or path/to/file.cu::kernel --grid X,Y --block X,Y --arg NAME=VALUE ...)

32 banks of 4 bytes; bank = (byte offset / 4) mod 32. Lanes reading the same word are
served together (broadcast, multicast); distinct words in one bank serialize. 8-byte
accesses run as two half-warp phases, 16-byte ones as four quarter-warp phases, so the
wavefronts of a request are the sum over its phases of the largest number of distinct
words any bank is asked for. ncu counts bank conflicts as wavefronts beyond the ideal
(one per phase that has an active lane), which is what the totals predict.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from cudasim.trace import MemEvent, Trace

from .common import Provenance, active_lanes, lane_strides, provenance, row_weights

BANKS, WORD = 32, 4
METRICS = {
    "ld": ("smsp__inst_executed_op_shared_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
    "st": ("smsp__inst_executed_op_shared_st.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
}


def phases(size: int) -> int:
    """How many groups of lanes an access width is served in: 8-byte accesses by half-warps,
    16-byte ones by quarter-warps (of which a quarter that asks only for words the other
    quarter of its half-warp asks for rides along: see `bank_rows`)."""
    return {8: 2, 16: 4}.get(int(size), 1)


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


def bank_rows(addrs: np.ndarray, masks: np.ndarray, size: int) -> BankRows:
    """Wavefronts, ideal and conflict degree of each warp row (vectorized).

    4-byte (and narrower) accesses: one group of 32 lanes; wavefronts = the most distinct
    words any bank is asked for. 8-byte: two half-warps, summed. 16-byte: four quarter-
    warps, summed, except that the second quarter of a half-warp is free when every word
    it asks for is one the first quarter asks for. Fitted on the H100 (ncu, SASS-level):
    a 16-byte broadcast is 2 wavefronts; 16 consecutive float4 read by lanes l and l+8
    alike cost 2 per warp, while 4 float4 each read by 8 consecutive lanes cost 4
    (sgemm_smem, sgemm_vectorized, sgemm_2d_blocktiling, sgemm_warptiling, dgemm_smem:
    wavefronts equal ncu's). The ideal counts, per group, one wavefront per 128 bytes of
    distinct words (at least one per group with an active lane; a free quarter none).
    """
    addrs = np.asarray(addrs).reshape(-1, 32)
    n = len(addrs)
    act = active_lanes(masks)
    words, k = _words(addrs, size)
    nph = phases(size)
    per = 32 // nph
    wav = np.zeros(n, dtype=np.int64)
    ideal = np.zeros(n, dtype=np.int64)
    degree = np.zeros(n, dtype=np.int64)
    distinct = np.zeros(n, dtype=np.int64)
    d_all, distinct_all = _phase(words, act, k)
    for p in range(nph):
        sl = slice(p * per, (p + 1) * per)
        a = act[:, sl]
        d, nd = _phase(words[:, sl], a, k)
        need = np.maximum(a.any(axis=1), -(-nd // BANKS))
        if nph == 4 and p % 2 == 1:
            # the quarter rides along with its half-warp's first quarter when it adds no word
            hs = slice((p - 1) * per, (p + 1) * per)
            _, nd_half = _phase(words[:, hs], act[:, hs], k)
            _, nd_first = _phase(words[:, (p - 1) * per:p * per], act[:, (p - 1) * per:p * per], k)
            free = (nd_half == nd_first) & act[:, (p - 1) * per:p * per].any(axis=1)
            d = np.where(free, 0, d)
            need = np.where(free, 0, need)
        wav += d
        ideal += need
        degree = np.maximum(degree, d)
    return BankRows(wav, ideal, degree, act.sum(axis=1), distinct_all)


@dataclass
class Example:
    block: tuple[int, int, int]
    warp: int
    mask: int
    addrs: list[int]
    size: int


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
    """Per-instruction bank statistics over the shared-memory events, by PC."""
    out: dict[int, SharedInstruction] = {}
    for ev in events:
        if ev.space != "shared" or len(ev) == 0:
            continue
        br = bank_rows(ev.addrs, ev.masks, ev.size)
        w = row_weights(ev, prov)
        si = out.get(ev.pc)
        if si is None:
            si = out[ev.pc] = SharedInstruction(ev.pc, ev.line, ev.file, ev.text, ev.op, ev.size, generic=ev.generic)
        si.requests += float(w.sum())
        si.wavefronts += float((br.wavefronts * w).sum())
        si.ideal_wavefronts += float((br.ideal * w).sum())
        si.max_degree = max(si.max_degree, int(br.degree.max()))
        si.broadcast_requests += float(w[(br.distinct_words <= max(1, ev.size // WORD)) & (br.lanes > 1)].sum())
        si.multicast_requests += float(w[(br.distinct_words < br.lanes * max(1, ev.size // WORD))
                                         & (br.distinct_words > max(1, ev.size // WORD))].sum())
        for d in np.unique(br.degree):
            si.degrees[int(d)] = si.degrees.get(int(d), 0.0) + float(w[br.degree == d].sum())
        stride, constant, _ = lane_strides(np.asarray(ev.addrs), active_lanes(ev.masks))
        for s in np.unique(stride[constant]):
            if s % WORD == 0:
                si.strides[int(s // WORD)] = si.strides.get(int(s // WORD), 0.0) + float(w[constant & (stride == s)].sum())
        if si.example is None or br.degree.max() > _degree_of(si.example):
            i = int(np.argmax(br.degree))
            blk = trace.block_coords(int(ev.blocks[i])) if trace is not None else (int(ev.blocks[i]), 0, 0)
            si.example = Example(blk, int(ev.warps[i]), int(ev.masks[i]), [int(a) for a in ev.addrs[i]], ev.size)
    result = sorted(out.values(), key=lambda s: (s.line, s.pc))
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
        if p and si.size <= WORD:
            pad = pad_for(abs(p))
            text += f"; lanes walk a column with a row pitch of {abs(p)} words: gcd({abs(p)}, 32) = {math.gcd(abs(p), 32)}"
            return text, (f"pad each row by {pad} word{'s' if pad > 1 else ''} (pitch {abs(p)} -> {abs(p) + pad}, e.g. "
                          f"__shared__ float tile[N][{abs(p) + pad}]) or XOR-swizzle the column (tile[r][c ^ r])")
    return text, ("spread the lanes over the banks: give neighbouring lanes neighbouring words, "
                  "pad rows to an odd number of words, or swizzle the index (word ^ row)")


def totals(instrs: list[SharedInstruction]) -> dict[str, float]:
    """Launch totals named by the ncu metrics they predict (shared ld and st)."""
    out: dict[str, float] = {}
    for op, (inst, wav, conf) in METRICS.items():
        sel = [s for s in instrs if s.op == op]
        out[inst] = sum(s.requests for s in sel if not s.generic)  # ncu: LD/ST through a generic pointer are not LDS/STS
        out[wav] = sum(s.wavefronts for s in sel)
        out[conf] = sum(s.conflicts for s in sel)
    return out


def analyze(trace: Trace, weights: dict[int, float] | None = None) -> dict:
    prov = provenance(trace, weights)
    instrs = analyze_events(trace.events, prov, trace)
    return {"provenance": prov.to_dict(), "instructions": [s.to_dict() for s in instrs], "totals": totals(instrs)}


# ---- drawings ---------------------------------------------------------------------------

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


def draw_text(ex: Example, max_rounds: int = 8) -> str:
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


def draw_mermaid(ex: Example) -> str:
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


def draw_svg(ex: Example) -> str:
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


if __name__ == "__main__":
    import sys

    from .cli import main

    sys.exit(main("banks"))
