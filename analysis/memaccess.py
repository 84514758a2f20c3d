"""Each warp's memory instructions as the SM simulation charges them (analysis.smsim.Access).

The trace (regrouped to SASS widths) says what every warp of a block accessed; the SASS stream
says in which order the warp issues its memory instructions. Per source line, the warp's
accesses are taken in PTX order (occurrence, then pc) as its SASS memory instructions on that
line issue; a SASS instruction with no trace row left ran with every lane predicated off (one
wavefront, no data).

* shared memory: the wavefronts of the bank model (analysis.models.banks), after the shared
  latency; atomics (ATOMS) cost their bank-conflict degree too: the H100's shared atomics
  serve lanes on one word together (kernels.microbench smem_atomics);
* global memory: L1 takes a request in as many cycles as the larger of its tag stage's and its
  data stage's wavefronts (`global_wavefronts`); a sector
  the block loaded before (in lockstep order: occurrence, pc, warp) is an L1 hit while it is among
  the block's share of L1 sectors, least recently used out first (ncu: lj_force_nlist's gathers
  from a ~64 KB neighbourhood a block, eight blocks an SM, hit 42% of sectors; spmv_csr_scalar's
  rows, a line a lane beside random gathers, 47%: L1 keeps sectors, not whole lines), unless the
  load bypasses L1 (.STRONG: ld.global.cg and kin); the lines with a missing sector go to
  L2, and a share `dram_read` of the missing sectors' bytes to DRAM (the kernel's DRAM bytes
  over its L2-bound bytes); stores send every line to L2 with the bytes their lanes write, and
  `dram_write` of their sectors' bytes to DRAM; each sector a store writes in part costs the L2
  about as much again as a line (kernels.microbench l2_store_*: per line 8.1 ps + 7.9 ps per
  partial sector, within 1% over five patterns; written twice in a row, twice: l2_store_q4x2),
  unless the block loaded that sector before. DRAM charges a line's random-access cost once per
  block, to the request that first brings it (the block's warps take their sectors of a line in
  one visit: kernels.microbench grid2d_*);
* global atomics also queue at the L2's atomic units they reach (analysis.atomics).
"""
from __future__ import annotations

from collections import OrderedDict, defaultdict
from collections.abc import Callable

import numpy as np

from cudasim.trace import MemEvent, Trace

from . import atomics
from .common import SECTOR, active_lanes
from .models.banks import bank_rows
from .sass import Listing, SassInstruction
from .smsim import Access

_KEY = {"LDS": ("shared", "ld"), "STS": ("shared", "st"), "ATOMS": ("shared", "atom"), "LDG": ("global", "ld"),
        "STG": ("global", "st"), "LD": ("generic", "ld"), "ST": ("generic", "st"), "RED": ("generic", "atom"),
        "REDG": ("global", "atom"), "ATOMG": ("global", "atom"), "ATOM": ("generic", "atom"),
        "LDL": ("local", "ld"), "STL": ("local", "st")}


def bypass_keys(listing: Listing) -> frozenset[tuple]:
    """The (line, space, op) keys of loads that skip L1 (ld.global.cg, volatile ...: SASS .STRONG)."""
    return frozenset(sass_key(x) for x in listing.instructions if x.op in ("LDG", "LD") and "STRONG" in x.mods)


def leader_elected(listing: Listing, window: int = 8) -> frozenset[int]:
    """The global atomics ptxas issues from one elected lane per address: shortly before, the warp's
    active lanes voted (VOTE(U).ANY), counted (POPC) and the first found (FLO or UFLO), as ptxas
    aggregates an atomic on a uniform address (with or without its result)."""
    ins = listing.instructions

    def elected(i: int) -> bool:
        ops = {y.op for y in ins[max(0, i - window):i]}
        return bool(ops & {"VOTEU", "VOTE"}) and bool(ops & {"FLO", "UFLO"}) and "POPC" in ops
    return frozenset(i for i, x in enumerate(ins) if x.op in ("REDG", "RED", "ATOMG", "ATOM") and elected(i))


def sass_key(ins: SassInstruction) -> tuple[int, str, str] | None:
    k = _KEY.get(ins.op)
    return None if k is None else (ins.placed[1], *k)


def _event_key(ev: MemEvent) -> tuple[int, str, str]:
    """PTX red and atom are one kind here: ptxas turns an atom whose result is unused into a RED."""
    return ev.line, "generic" if ev.generic else ev.space, "atom" if ev.op == "red" else ev.op


def _lines_sectors(addrs: np.ndarray, act: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Per lane, the first and last 32-byte sector it touches (int64, -1 for inactive lanes)."""
    a = addrs.astype(np.int64)
    first = np.where(act, a >> 5, -1)
    last = np.where(act, (a + max(int(size), 1) - 1) >> 5, -1)
    return first, last


_NONE = np.zeros(0, np.int64)  # no sector written in part (loads, atomics)


def tag_groups(lines: np.ndarray, groups: int) -> np.ndarray:
    """The tag-stage group of each 128-byte line index: the XOR of its base-`groups` digits (`groups` a power of
    two). The tag stage looks up one line per group per cycle; this fold spreads consecutive lines and every
    power-of-two stride over the groups, as the H100 does (kernels.microbench l1p_hit_l8_stride*, l1p_hit_l32_*)."""
    bits = groups.bit_length() - 1
    h, x = lines.copy(), lines >> bits
    while x.any():
        h ^= x
        x >>= bits
    return h & (groups - 1)


def tag_wavefronts(lines: np.ndarray, groups: int) -> int:
    """The tag stage's wavefronts for a request touching `lines` (128-byte line indices, repeats allowed): the most
    distinct lines in one tag group, `groups` lines per cycle at best."""
    lines = np.unique(lines)
    return int(np.bincount(tag_groups(lines, groups), minlength=groups).max()) if len(lines) else 0


def global_wavefronts(addrs: np.ndarray, masks: np.ndarray, size: int, tag_lines: int) -> np.ndarray:
    """L1's cycles for each warp row of a global load or store: the larger of the tag stage's wavefronts
    (tag_wavefronts) and the data stage's (the most distinct words one bank is asked for, as for shared memory).
    Measured on the H100 (kernels.microbench l1p_hit_*): 32 lines, every lane its own bank, 8 clk; 32 lines at
    word 0, 32 clk; one line, 1 clk; 28 random lines, 10."""
    addrs = np.asarray(addrs).reshape(-1, 32)
    data = bank_rows(addrs, masks, size).wavefronts
    act = active_lanes(masks)
    first, last = _lines_sectors(addrs, act, size)
    return np.array([max(tag_wavefronts(np.concatenate([first[j][act[j]], last[j][act[j]]]) >> 2, tag_lines),
                         int(data[j]), 1) for j in range(len(addrs))], np.float64)


def atomic_words(trace: Trace) -> dict[int, np.ndarray]:
    """Each simulated block's global atomic byte addresses, every active lane of every request."""
    parts: dict[int, list[np.ndarray]] = defaultdict(list)
    for ev in trace.events:
        if ev.space != "global" or ev.op not in ("atom", "red"):
            continue
        act = active_lanes(ev.masks)
        for j, b in enumerate(ev.blocks.tolist()):
            parts[b].append(ev.addrs[j][act[j]].astype(np.int64))
    return {b: np.concatenate(p) for b, p in parts.items()}


def _l1_misses(held: OrderedDict[int, None], secs: list[int], sectors: int | None) -> list[int]:
    """The sectors `secs` of one request that L1 (`held`, updated) does not have; it keeps `sectors` sectors,
    evicting the least recently used."""
    miss = []
    for sec in secs:
        if sec in held:
            held.move_to_end(sec)
            continue
        held[sec] = None
        miss.append(sec)
        if sectors is not None and len(held) > sectors:
            held.popitem(last=False)
    return miss


class BlockAccesses:
    """The memory accesses of one block's warps, grouped for the SASS streams to take in order."""

    def __init__(self, trace: Trace, block: int, smem_latency: float, atoms_latency: float,
                 generic_smem_latency: float, bypass: frozenset[tuple] = frozenset(),
                 leaders: frozenset[int] = frozenset(), tag_lines: int = 4, l1_sectors: int | None = None):
        """`bypass`: the (line, space, op) keys whose loads skip L1 (ld.global.cg and kin: SASS .STRONG);
        `leaders`: the SASS indices of leader-elected atomics (leader_elected); shared memory reached
        through a generic pointer (LD) takes `generic_smem_latency`; L1's tag stage looks up `tag_lines`
        lines per cycle; the block keeps at most `l1_sectors` sectors in L1 (None: every sector it loads)."""
        self.leaders = leaders
        # per (line, space, op) and warp: Access (shared) or (op, L1 wavefronts, L1-missing sectors, their lines,
        # sectors, ...)
        self.rows: dict[tuple, dict[int, list]] = defaultdict(lambda: defaultdict(list))
        self.carry = {"ld": 0.5, "st": 0.5}  # rounds the DRAM share of requests to the nearest whole request
        self.pending = {"ld": 0.0, "st": 0.0}  # the DRAM share of lines first touched, for the next DRAM request
        self.load_miss_bytes = 0.0  # bytes of the block's loads that L1 does not hold
        self.store_bytes = 0.0  # bytes of the sectors its stores and atomics write
        keyed: list[tuple] = []  # (occurrence, pc, warp, key, item)
        for ev in trace.events:
            sel = np.flatnonzero(ev.blocks == block)
            if len(sel) == 0:
                continue
            key = _event_key(ev)
            warps = ev.warps[sel]
            occ = np.zeros(len(sel), np.int64)
            seen: dict[int, int] = {}
            for j, w in enumerate(warps):
                occ[j] = seen.get(int(w), 0)
                seen[int(w)] = occ[j] + 1
            if ev.space == "shared":
                br = bank_rows(ev.addrs[sel], ev.masks[sel], ev.size, ev.op)
                lat = atoms_latency if ev.op == "atom" else generic_smem_latency if ev.generic else smem_latency
                for j in range(len(sel)):
                    keyed.append((int(occ[j]), ev.pc, int(warps[j]), key,
                                  Access(float(max(br.wavefronts[j], 1)), latency=lat)))
            else:
                act = active_lanes(ev.masks[sel])
                first, last = _lines_sectors(ev.addrs[sel], act, ev.size)
                atomic = ev.op in ("atom", "red")
                # L1's cycles per request (global_wavefronts, from the sectors found here); an atomic's stay one
                # per line: the L2 does its work
                data = None if atomic else bank_rows(ev.addrs[sel], ev.masks[sel], ev.size, ev.op).wavefronts
                for j in range(len(sel)):
                    secs = np.unique(np.concatenate([first[j][act[j]], last[j][act[j]]]))
                    a = ev.addrs[sel[j]][act[j]].astype(np.int64)
                    words = a if atomic else None
                    ua = np.unique(a)
                    written = len(ua) * max(int(ev.size), 1)  # the bytes a store's lanes write
                    partial = _NONE
                    if ev.op == "st":
                        sec, per = np.unique(ua // SECTOR, return_counts=True)
                        partial = sec[per * max(int(ev.size), 1) < SECTOR]  # the sectors written in part
                    lines = secs >> 2
                    wf = float(len(np.unique(lines)) if data is None else
                               max(tag_wavefronts(lines, tag_lines), int(data[j]), 1))
                    keyed.append((int(occ[j]), ev.pc, int(warps[j]), key,
                                  (ev.op, secs, words, (written, partial), wf)))
        keyed.sort(key=lambda x: (x[0], x[1], x[2]))
        resident: set[int] = set()  # the sectors the block's loads brought (the L2 has them)
        held: OrderedDict[int, None] = OrderedDict()  # L1: the sectors held, least recently used first
        opened = {"ld": set(), "st": set()}  # the lines the block's loads / stores have reached DRAM for
        for occ, pc, w, key, item in keyed:
            if isinstance(item, Access):
                self.rows[key][w].append(item)
                continue
            op, secs, words, (written, partial), wf = item
            line_set = set((secs >> 2).tolist())
            if op == "ld":
                miss = secs.tolist() if key in bypass else _l1_misses(held, secs.tolist(), l1_sectors)
                resident.update(secs.tolist())
                self.load_miss_bytes += len(miss) * SECTOR
                miss_lines = {s >> 2 for s in miss}
                new = miss_lines - opened["ld"]
                opened["ld"] |= miss_lines
                self.rows[key][w].append(("ld", wf, len(miss), len(miss_lines), len(secs), len(new), None,
                                          (0, 0)))
            else:
                self.store_bytes += len(secs) * SECTOR
                # a line the block's loads already brought is written back with them, in their order (the
                # L2 evicts it dirty): it opens no DRAM line of its own
                new = line_set - opened["st"] - opened["ld"]
                opened["st"] |= line_set
                # a sector the block loaded before is written in part at a line's cost alone: the partial
                # cost is for sectors the L2 must merge unseen (ncu: a struct updated in place writes fewer
                # L2 sectors than its L1 sends; a scatter into a cache it never reads, more)
                fresh = sum(1 for x in partial.tolist() if x not in resident)
                self.rows[key][w].append((op, wf, 0, len(line_set), len(secs), len(new), words,
                                          (min(written, len(secs) * SECTOR), fresh)))

    def for_warp(self, listing: Listing, stream: list[int], warp: int, dram_read: float, dram_write: float,
                 shfl_latency: float, units: atomics.Units | None = None,
                 unit_clk: Callable[[int], float] | None = None) -> list[Access]:
        """The Access of each memory instruction (and shuffle) in `stream`, in order: a share `dram_read` of
        the loads that miss in L1, and `dram_write` of the stores, go to DRAM (whole requests, the share
        carried from one to the next); a global atomic also costs the L2 atomic units `units` it reaches,
        `unit_clk(unit)` cycles of this SM per ns of that unit's time (the clock times the load the chip
        puts there: atomics.sharing), and the L2 its sector operations."""
        ins = listing.instructions
        taken: dict[tuple, int] = defaultdict(int)
        carry, pending = self.carry, self.pending  # per direction, the DRAM share carried from one request to the next, across the block's warps
        out = []
        for i in stream:
            x = ins[i]
            if x.op == "SHFL":
                out.append(Access(1.0, latency=shfl_latency))
                continue
            key = sass_key(x)
            if key is None:
                continue
            rows = self.rows.get(key, {}).get(warp, [])
            k = taken[key]
            taken[key] += 1
            if k >= len(rows):  # issued with every lane predicated off
                out.append(Access(1.0))
                continue
            row = rows[k]
            if isinstance(row, Access):
                out.append(row)
                continue
            op, wf, miss, miss_lines, sectors, new_lines, words, (written, partial) = row
            # whole requests go to DRAM, in the share the kernel's DRAM bytes call for (a request waits for
            # its slowest sector: spreading a fraction over every request would make each one a DRAM trip)
            # (the share is of the loads that miss in L1 and of every store: an L1 hit takes no part)
            d = "ld" if op == "ld" else "st"
            to_dram, opened = False, 0.0
            if (miss if d == "ld" else sectors) > 0:
                share = dram_read if d == "ld" else dram_write
                carry[d] += share
                # DRAM opens a line once for the block (the sectors its warps take from one line are one visit)
                pending[d] += new_lines * share
                to_dram = carry[d] >= 1.0 - 1e-9
                if to_dram:
                    carry[d] -= 1.0
                    opened, pending[d] = pending[d], 0.0
            if op == "ld":
                dram = miss * SECTOR if to_dram else 0.0
                level = 1 if miss == 0 else (3 if to_dram else 2)
                out.append(Access(max(wf, 1.0), float(miss_lines), float(dram), level,
                                  l2_bytes=float(miss * SECTOR), dram_lines=opened))
            else:
                dram = sectors * SECTOR if to_dram else 0.0
                serial, ops = (), 0
                if words is not None:
                    # a leader-elected atomic (ptxas's VOTEU/UFLO) sends each address once
                    lanes = np.unique(words) if i in self.leaders else words
                    ops = atomics.l2_ops(lanes)
                    if units is not None and unit_clk is not None:
                        serial = tuple((u, ns * unit_clk(u)) for u, ns in atomics.costs(lanes, units))
                out.append(Access(max(wf, 1.0), float(miss_lines), float(dram), 2 if op == "atom" else 0,
                                  l2_bytes=float(written), dram_lines=opened, serial=serial, l2_ops=float(ops),
                                  l2_partial=float(partial)))
        return out
