"""A sample's global traffic as the timing model reads it: requests, sectors and lines over the grid;
per array passed, the distinct bytes loaded and stored and the loads offered to L2 (each traced block
weighted by the blocks it stands for); the DRAM bytes those imply through an L2 of limited size
(analysis.l2reuse); DRAM's byte rate for a mix of reads and writes."""
from __future__ import annotations

import math

import numpy as np

from . import l2reuse
from .common import SECTOR, Sample, active_lanes, provenance, row_weights


def _distinct(ev, act, shift: int) -> np.ndarray:
    """Per row, the distinct 2**shift-byte units (5: sectors, 7: lines) its active lanes' bytes touch."""
    first = ev.addrs.astype(np.uint64)
    last = first + np.uint64(max(int(ev.size), 1) - 1)
    both = np.concatenate([act, act], axis=1)
    k = np.concatenate([first >> np.uint64(shift), last >> np.uint64(shift)], axis=1).astype(np.int64)
    k = np.where(both, k, np.iinfo(np.int64).max)
    k.sort(axis=1)
    new = np.ones_like(k, dtype=bool)
    new[:, 1:] = k[:, 1:] != k[:, :-1]
    return (new & (k != np.iinfo(np.int64).max)).sum(axis=1)


def _array_of(starts: np.ndarray, sec: np.ndarray) -> np.ndarray:
    """Per 32-byte sector, which array (by start address, ascending) holds it; -1 before the first."""
    return np.searchsorted(starts, sec << 5, side="right") - 1 if len(starts) else np.full(len(sec), -1)


def memory_totals(s: Sample) -> dict:
    """Global requests, sectors and lines over the sample's grid, and per array passed (in argument
    order): its bytes and the distinct bytes the simulated blocks load and store in it, scaled to the
    grid (the DRAM bytes are those, at most the array: blocks that share data fetch it once)."""
    prov = provenance(s.trace, s.weights)
    traced = len(s.weights) if s.weights else s.blocks_run
    scale = s.blocks_total / max(traced, 1)
    c = {k: 0.0 for k in ("ld_requests", "ld_sectors", "ld_lines", "st_requests", "st_sectors", "st_lines")}
    keys: dict[str, list] = {"ld": [], "st": [], "atom": []}
    blocks_of: dict[str, dict[int, list]] = {"ld": {}, "st": {}}
    for ev in s.trace.events:
        if ev.space != "global" or len(ev) == 0:
            continue
        atomic = ev.op in ("red", "atom")
        op = "st" if ev.op == "st" or atomic else "ld"
        rw = row_weights(ev, prov)
        act = active_lanes(ev.masks)
        c[f"{op}_requests"] += float(rw.sum())
        c[f"{op}_sectors"] += float((_distinct(ev, act, 5) * rw).sum())
        c[f"{op}_lines"] += float((_distinct(ev, act, 7) * rw).sum())
        sec = (ev.addrs.astype(np.uint64) >> np.uint64(5)).astype(np.int64)
        # an atomic reads its line into L2 as a load does (DRAM reads and L2 reuse), and writes it
        for side in ("st", "ld") if atomic else (op,):
            keys[side].append(sec[act])
            for blk in np.unique(ev.blocks):
                rows = ev.blocks == blk
                blocks_of[side].setdefault(int(blk), []).append(sec[rows][act[rows]])
        if atomic:
            keys["atom"].append(sec[act])
    order = sorted(range(len(s.buffers)), key=lambda i: s.buffers[i][0])
    starts = np.array([s.buffers[i][0] for i in order], dtype=np.int64)
    # per array: bytes, distinct bytes loaded, stored (over the grid), loads offered to L2 (each block's
    # distinct sectors, summed over the grid), the dimensions along which blocks share what they load,
    # whether a block's loads span most of it, the share of its loads other sampled blocks load too,
    # whether atomics update it
    arrays = [[float(n), 0.0, 0.0, 0.0, (), False, 0.0, False] for _, n in s.buffers]
    unplaced = {"ld": 0.0, "st": 0.0}
    # each traced block stands for weight(b) blocks (sampling that follows where the work is, as refine_1d
    # does, places blocks unevenly); the grid's distinct sectors are the weighted sum of the blocks' own,
    # times the sharing the sample shows (its distinct sectors over the sum of its blocks' own)
    def weight(b: int) -> float:
        return s.weights.get(b, 0.0) if s.weights else scale
    # per side and block: its distinct sectors and the array (by start) each is in
    mine: dict[str, dict[int, tuple[np.ndarray, np.ndarray]]] = {}
    for op, by_block in blocks_of.items():
        mine[op] = {}
        for blk, secs in by_block.items():
            sec = np.unique(np.concatenate(secs))
            mine[op][blk] = (sec, _array_of(starts, sec))
    for j, op in enumerate(("ld", "st")):
        if not keys[op]:
            continue
        sec = np.unique(np.concatenate(keys[op]))
        which = _array_of(starts, sec)
        own = np.zeros(len(starts) + 1)  # per array (last: unplaced), the sum of blocks' distinct sectors
        weighted = np.zeros(len(starts) + 1)
        for blk, (_, got) in mine[op].items():
            n_of = np.bincount(np.where(got < 0, len(starts), got), minlength=len(starts) + 1)
            own += n_of
            weighted += n_of * weight(blk)
        factor = np.divide(weighted, own, out=np.full(len(own), scale), where=own > 0)
        for b, n in zip(*np.unique(which, return_counts=True)):
            if b < 0:
                unplaced[op] += float(n) * SECTOR * float(factor[-1])
            else:
                arrays[order[b]][1 + j] = float(n) * SECTOR * float(factor[b])
    if len(starts) and keys["atom"]:
        sec = np.unique(np.concatenate(keys["atom"]))
        for b in np.unique(_array_of(starts, sec)):
            if b >= 0:
                arrays[order[b]][7] = True
    if len(starts) and blocks_of["ld"]:
        per_block: dict[int, dict[int, set]] = {}  # array -> block -> sectors
        for blk, (sec, which) in mine["ld"].items():
            for b in np.unique(which[which >= 0]):
                per_block.setdefault(order[b], {})[blk] = set(sec[which == b].tolist())
        for a, by_block in per_block.items():
            arrays[a][3] = sum(len(v) * weight(blk) for blk, v in by_block.items()) * SECTOR
            arrays[a][4] = l2reuse.shared_dims({s.trace.block_coords(blk): v for blk, v in by_block.items()})
            span = np.median([(max(v) - min(v) + 1) * SECTOR for v in by_block.values()])
            arrays[a][5] = bool(span > 0.25 * s.buffers[a][1])
            seen: dict[int, int] = {}
            for v in by_block.values():
                for x in v:
                    seen[x] = seen.get(x, 0) + 1
            offered = sum(len(v) for v in by_block.values())
            arrays[a][6] = sum(1 for v in by_block.values() for x in v if seen[x] > 1) / offered if offered else 0.0
    c["arrays"] = arrays
    c["unplaced_ld"], c["unplaced_st"] = unplaced["ld"], unplaced["st"]
    return c


def dram_bytes(arrays: list, unplaced_ld: float, unplaced_st: float, grid: tuple[int, int, int], wave: int,
               capacity: float) -> tuple[float, float]:
    """(DRAM bytes read, written): stores, per array the distinct bytes, at most the array; loads and
    atomics, the footprints plus what L2 does not keep between the blocks that reuse them
    (analysis.l2reuse); atomics write back what they fetched again."""
    read = [a for a in arrays if a[1] > 0]
    uses = [l2reuse.ArrayUse(min(n, ld), max(off, min(n, ld)), dims, sc, hot, ld) for n, ld, _, off, dims, sc, hot, _
            in read]
    per = l2reuse.reads_per_array(uses, grid, wave, capacity)
    # an atomic leaves its line dirty in L2: what an updated array's lines are fetched again, they are
    # written back again
    again = sum(r - u.footprint for r, u, a in zip(per, uses, read) if a[7])
    return sum(per) + unplaced_ld, sum(min(n, st) for n, _, st, *_ in arrays) + again + unplaced_st


DRAM_SOURCE = ("per array passed, the distinct 32-B sectors the simulated blocks touch, scaled to the grid, at most the "
               "array; loads reused across blocks refetched as far as L2 does not keep them (analysis.l2reuse)")


def grow(a: float, b: float, s1: float, s2: float, s: float) -> float:
    """a at size s1 and b at s2, at size s: a power of the size (an array's bytes grow as n, n^2 ...)."""
    if a <= 0 or b <= 0 or b == a:
        return b
    return b * (s / s2) ** (math.log(b / a) / math.log(s2 / s1))


def dram_byte_rate(r: dict[str, float], rd: float, wr: float) -> float:
    """Bytes per second DRAM moves for this mix: reads and writes at their measured rates, the part
    that pairs a read with a write at the measured copy rate."""
    pair = min(rd, wr)
    t = (rd - pair) / (r["dram_read_gbs"] * 1e9) + (wr - pair) / (r["dram_write_gbs"] * 1e9) + \
        2 * pair / (r["dram_copy_gbs"] * 1e9)
    return (rd + wr) / t if t > 0 else r["dram_read_gbs"] * 1e9
