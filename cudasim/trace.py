"""The memory trace: one record per executed memory instruction per warp.

Records are stored in events: one event per execution of a memory instruction by a group of
warps (the simulator runs many warps in lockstep), with one row per warp that had at least
one active lane. Analysis works on the arrays directly, so a trace of millions of records
stays cheap to build and to read.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

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
