"""The memory trace: one record per executed memory instruction per warp, and its recorder.

Records are stored in events: one event per execution of a memory instruction by a group of
warps (the simulator runs many warps in lockstep), with one row per warp that had at least
one active lane. Analysis works on the arrays directly, so a trace of millions of records
stays cheap to build and to read.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from .memory import host_free_bytes
from .ptx import Instruction
from .spaces import space_of
from .state import Batch

SPACES = ("global", "shared", "local", "const", "param")
OPS = ("ld", "st", "atom", "red")


@dataclass
class MemEvent:
    """One memory instruction executed by `len(warps)` warps at once.

    `size` is the bytes each lane moves (a `ld.global.v4.f32` is 16). `addrs` holds each
    lane's byte address (global: the simulated virtual address; shared: the offset in the
    block's shared window); rows for inactive lanes hold 0 and are masked out by `masks`.
    """

    pc: int
    line: int
    file: str
    text: str
    space: str
    op: str
    size: int
    blocks: np.ndarray  # (n,) int64, linear block index: x + y*gx + z*gx*gy
    warps: np.ndarray  # (n,) int32, warp index within the block
    masks: np.ndarray  # (n,) uint32, active lanes
    addrs: np.ndarray  # (n, 32) uint64
    generic: bool = False  # addressed through a generic pointer (SASS LD/ST, not LDS/STS or LDG/STG)
    site: str = ""  # "file:line" of the call an inlined function's access was inlined into ("": not inlined)

    def __len__(self) -> int:
        return len(self.warps)

    def lane_active(self) -> np.ndarray:
        """(n, 32) bool: which lanes of each row were active."""
        return ((self.masks[:, None] >> np.arange(32, dtype=np.uint32)) & 1).astype(bool)


@dataclass(frozen=True)
class Access:
    """One record: what one warp did at one memory instruction."""

    block: tuple[int, int, int]
    warp: int
    pc: int
    line: int
    file: str
    text: str
    space: str
    op: str
    size: int
    mask: int
    addrs: np.ndarray  # (32,) uint64


@dataclass
class Trace:
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    events: list[MemEvent] = field(default_factory=list)
    traced_blocks: list[int] | None = None  # linear indices; None means every block

    def block_coords(self, linear: int) -> tuple[int, int, int]:
        gx, gy, _ = self.grid
        return (int(linear % gx), int(linear // gx % gy), int(linear // (gx * gy)))

    def records(self) -> Iterator[Access]:
        for ev in self.events:
            for i in range(len(ev)):
                yield Access(self.block_coords(int(ev.blocks[i])), int(ev.warps[i]), ev.pc, ev.line, ev.file,
                             ev.text, ev.space, ev.op, ev.size, int(ev.masks[i]), ev.addrs[i])

    def __len__(self) -> int:
        return sum(len(ev) for ev in self.events)

    def select(self, space: str | None = None, op: str | None = None) -> list[MemEvent]:
        return [ev for ev in self.events if (space is None or ev.space == space) and (op is None or ev.op == op)]


class Recorder:
    """Collects trace rows while a launch runs; `build` turns them into the Trace.

    Rows are kept per (pc, space, op, size) as (blocks, warps, masks, addresses) arrays of the
    traced warps that had an active lane; nothing is recorded where the batch traces no warp.
    """

    ROW_BYTES = 32 * 8 + 16  # a row's addresses, and its block, warp and mask

    def __init__(self) -> None:
        self.rows: dict[tuple, list] = {}
        self.bytes, self.limit = 0, None

    def reset(self) -> None:
        """A launch starts: no rows, and room for a third of the memory free now (building the trace copies
        the rows once; the trace grows with the accesses simulated, not with the memory they touch)."""
        self.rows = {}
        free = host_free_bytes()
        self.bytes, self.limit = 0, None if free is None else free // 3

    def _grew(self, rows: int) -> None:
        self.bytes += rows * self.ROW_BYTES
        if self.limit is not None and self.bytes > self.limit:
            raise MemoryError(f"the trace of the warps' memory accesses passed {self.limit / 2 ** 30:.1f} GiB, a "
                              f"third of the memory free at launch")

    def record(self, b: Batch, pc: int, space: str, op: str, size: int, idx: np.ndarray, a: np.ndarray) -> None:
        """Append one trace row per traced warp that has an active lane among `idx` (addresses `a`)."""
        tw = b.traced_warps
        if tw is None or len(idx) == 0:
            return
        if space == "local":  # local memory is interleaved word by word across a warp's lanes
            lane = (idx % 32).astype(np.uint64)
            a = (a // np.uint64(4)) * np.uint64(128) + lane * np.uint64(4) + (a % np.uint64(4))
        rows = self.rows.setdefault((pc, space, op, size), [])
        if len(idx) == b.L:  # every lane (padding included) is active: no scatter needed
            every, head = self._traced_full(b)
            A = a.reshape(-1, 32)
            rows.append((*head, A if every else A[tw]))
            self._grew(len(rows[-1][3]))
            return
        A = np.zeros(b.L, np.uint64)
        A[idx] = a
        A = A.reshape(-1, 32)
        act = np.zeros(b.L, np.bool_)
        act[idx] = True
        masks = np.packbits(act.reshape(-1, 32), axis=1, bitorder="little").view("<u4").ravel()
        sel = tw & (masks != 0)
        if sel.all():
            rows.append((b.warp_block, b.warp_in_block, masks, A))
        else:
            rows.append((b.warp_block[sel], b.warp_in_block[sel], masks[sel], A[sel]))
        self._grew(len(rows[-1][3]))

    def record_group(self, b: Batch, pcs: list[int], space: str, op: str, size: int, idx: np.ndarray,
                     A: np.ndarray) -> None:
        """`record` for a fused group: A holds each member's addresses for lanes `idx`, row by row."""
        if b.traced_warps is None or len(idx) == 0:
            return
        if len(idx) != b.L or space == "local":
            for k, pc in enumerate(pcs):
                self.record(b, pc, space, op, size, idx, A[k])
            return
        every, head = self._traced_full(b)
        A3 = A.reshape(len(pcs), -1, 32)
        if not every:
            A3 = A3[:, b.traced_warps]
        tr = self.rows
        for k, pc in enumerate(pcs):
            tr.setdefault((pc, space, op, size), []).append((*head, A3[k]))
        self._grew(len(pcs) * A3.shape[1])

    @staticmethod
    def _traced_full(b: Batch) -> tuple[bool, tuple]:
        """(every warp traced, trace row heads: blocks, warps, masks) for an instruction with every lane active."""
        full = b.cache.get("traced full")
        if full is None:
            tw = b.traced_warps
            masks = np.full(b.W, 0xFFFFFFFF, np.uint32)
            every = bool(tw.all())
            full = b.cache["traced full"] = (every, (b.warp_block, b.warp_in_block, masks) if every else
                                             (b.warp_block[tw], b.warp_in_block[tw], masks[tw]))
        return full

    def build(self, body: Sequence[Instruction], grid: tuple[int, int, int], block: tuple[int, int, int],
              traced_blocks: list[int] | None) -> Trace:
        """The trace of the rows recorded since `reset`, one event per (pc, space, op, size), in pc order."""
        events = []
        # every event's addresses in one allocation: one large block is mapped with huge pages,
        # where a block per event pays a page fault per 4 KB (3x slower for a 40 MB trace)
        counts = {key: sum(len(r[3]) for r in rows) for key, rows in self.rows.items()}
        arena = np.empty((sum(counts.values()), 32), np.uint64)
        at = 0
        for (pc, space, op, size), rows in self.rows.items():
            ins = body[pc]
            n = counts[pc, space, op, size]
            addrs = np.concatenate([r[3] for r in rows], out=arena[at:at + n])
            at += n
            if all(r[2] is rows[0][2] and r[0] is rows[0][0] for r in rows):  # one set of warps and masks
                blocks, warps, masks = (np.tile(x, len(rows)) for x in rows[0][:3])
            else:
                blocks, warps, masks = (np.concatenate([r[i] for r in rows]) for i in range(3))
            site = ins.inlined_at and (ins.inlined_at[0], ins.inlined_at[1]) != (ins.file, ins.line)
            events.append(MemEvent(pc, ins.line, str(ins.file), ins.text, space, op, size,
                                   blocks.astype(np.int64, copy=False), warps, masks, addrs,
                                   space_of(ins) == "generic",
                                   f"{ins.inlined_at[0]}:{ins.inlined_at[1]}" if site else ""))
        events.sort(key=lambda e: (e.pc, e.space))
        self.rows = {}
        return Trace(grid, block, events, traced_blocks)
