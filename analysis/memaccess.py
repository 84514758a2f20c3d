"""Each warp's memory instructions as the SM simulation charges them (analysis.smsim.Access).

The trace (regrouped to SASS widths) says what every warp of a block accessed; the SASS stream
says in which order the warp issues its memory instructions. Per source line, the warp's
accesses are taken in PTX order (occurrence, then pc) as its SASS memory instructions on that
line issue; a SASS instruction with no trace row left ran with every lane predicated off (one
wavefront, no data).

* shared memory: the wavefronts of the bank model (analysis.models.banks), after the shared
  latency; atomics (ATOMS) cost their bank-conflict degree too: the H100's shared atomics
  serve lanes on one word together (kernels.microbench smem_atomics);
* global memory: one data-stage wavefront per 128-byte line the active lanes touch; a sector
  the block loaded before (in lockstep order: occurrence, pc, warp) is an L1 hit, unless the
  load bypasses L1 (.STRONG: ld.global.cg and kin); the lines with a missing sector go to
  L2, and a share `dram_read` of the missing sectors' bytes to DRAM (the kernel's DRAM bytes
  over its L2-bound bytes); stores send every line to L2 and `dram_write` of their bytes to
  DRAM.
"""
from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from cudasim.trace import MemEvent, Trace

from .common import SECTOR, active_lanes
from .models.banks import bank_rows
from .sass import Listing, SassInstruction
from .smsim import Access

_KEY = {"LDS": ("shared", "ld"), "STS": ("shared", "st"), "ATOMS": ("shared", "atom"), "LDG": ("global", "ld"),
        "STG": ("global", "st"), "LD": ("generic", "ld"), "ST": ("generic", "st"), "RED": ("global", "red"),
        "REDG": ("global", "red"), "ATOMG": ("global", "atom"), "ATOM": ("generic", "atom"),
        "LDL": ("local", "ld"), "STL": ("local", "st")}


def bypass_keys(listing: Listing) -> frozenset[tuple]:
    """The (line, space, op) keys of loads that skip L1 (ld.global.cg, volatile ...: SASS .STRONG)."""
    return frozenset(sass_key(x) for x in listing.instructions if x.op in ("LDG", "LD") and "STRONG" in x.mods)


def sass_key(ins: SassInstruction) -> tuple[int, str, str] | None:
    k = _KEY.get(ins.op)
    return None if k is None else (ins.line, *k)


def _event_key(ev: MemEvent) -> tuple[int, str, str]:
    return ev.line, "generic" if ev.generic else ev.space, ev.op


def _lines_sectors(addrs: np.ndarray, act: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Per lane, the first and last 32-byte sector it touches (int64, -1 for inactive lanes)."""
    a = addrs.astype(np.int64)
    first = np.where(act, a >> 5, -1)
    last = np.where(act, (a + max(int(size), 1) - 1) >> 5, -1)
    return first, last


class BlockAccesses:
    """The memory accesses of one block's warps, grouped for the SASS streams to take in order."""

    def __init__(self, trace: Trace, block: int, smem_latency: float, atoms_latency: float,
                 generic_smem_latency: float, bypass: frozenset[tuple] = frozenset()):
        """`bypass`: the (line, space, op) keys whose loads skip L1 (ld.global.cg and kin: SASS .STRONG);
        shared memory reached through a generic pointer (LD) takes `generic_smem_latency`."""
        # per (line, space, op) and warp: Access (shared) or (op, lines, L1-missing sectors, their lines, sectors)
        self.rows: dict[tuple, dict[int, list]] = defaultdict(lambda: defaultdict(list))
        self.carry = 0.5  # rounds the DRAM share of requests to the nearest whole request
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
                br = bank_rows(ev.addrs[sel], ev.masks[sel], ev.size)
                lat = atoms_latency if ev.op == "atom" else generic_smem_latency if ev.generic else smem_latency
                for j in range(len(sel)):
                    keyed.append((int(occ[j]), ev.pc, int(warps[j]), key,
                                  Access(float(max(br.wavefronts[j], 1)), latency=lat)))
            else:
                act = active_lanes(ev.masks[sel])
                first, last = _lines_sectors(ev.addrs[sel], act, ev.size)
                for j in range(len(sel)):
                    secs = np.unique(np.concatenate([first[j][act[j]], last[j][act[j]]]))
                    keyed.append((int(occ[j]), ev.pc, int(warps[j]), key, (ev.op, secs)))
        keyed.sort(key=lambda x: (x[0], x[1], x[2]))
        resident: set[int] = set()
        for occ, pc, w, key, item in keyed:
            if isinstance(item, Access):
                self.rows[key][w].append(item)
                continue
            op, secs = item
            lines = len(np.unique(secs >> 2)) if len(secs) else 0
            if op == "ld":
                miss = secs.tolist() if key in bypass else [s for s in secs.tolist() if s not in resident]
                resident.update(secs.tolist())
                self.load_miss_bytes += len(miss) * SECTOR
                self.rows[key][w].append(("ld", lines, len(miss), len({s >> 2 for s in miss}), len(secs)))
            else:
                self.store_bytes += len(secs) * SECTOR
                self.rows[key][w].append((op, lines, 0, lines, len(secs)))

    def for_warp(self, listing: Listing, stream: list[int], warp: int, dram_read: float, dram_write: float,
                 shfl_latency: float) -> list[Access]:
        """The Access of each memory instruction (and shuffle) in `stream`, in order: a share `dram_read` of
        the loads that miss in L1, and `dram_write` of the stores, go to DRAM (whole requests, the share
        carried from one to the next)."""
        ins = listing.instructions
        taken: dict[tuple, int] = defaultdict(int)
        carry = self.carry  # the DRAM share carried from one request to the next, across the block's warps
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
            op, lines, miss, miss_lines, sectors = row
            # whole requests go to DRAM, in the share the kernel's DRAM bytes call for (a request waits for
            # its slowest sector: spreading a fraction over every request would make each one a DRAM trip)
            share = dram_read if op == "ld" else dram_write
            carry += share
            to_dram = carry >= 1.0 - 1e-9 and (miss if op == "ld" else sectors) > 0
            if to_dram:
                carry -= 1.0
            if op == "ld":
                dram = miss * SECTOR if to_dram else 0.0
                level = 1 if miss == 0 else (3 if to_dram else 2)
                out.append(Access(float(max(lines, 1)), float(miss_lines), float(dram), level,
                                  l2_bytes=float(miss * SECTOR)))
            else:
                dram = sectors * SECTOR if to_dram else 0.0
                out.append(Access(float(max(lines, 1)), float(lines), float(dram), 2 if op == "atom" else 0,
                                  l2_bytes=float(sectors * SECTOR)))
        self.carry = carry
        return out
