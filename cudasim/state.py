"""The machine state of one batch of blocks: registers over lanes, masks, memories, trace.

A batch runs `nb` blocks of the grid at once. Every block gets `lpb` lane slots (its thread
count rounded up to whole warps); lane `l` is thread `l % lpb` of batch block `l // lpb`.
Padding lanes exist only to keep warps 32 wide and are never active.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .memory import GlobalMemory
from .ptx import TYPES


@dataclass
class Mask:
    """An active mask over the batch's lanes, with what the executor asks of it often."""

    mask: np.ndarray  # (L,) bool
    full: bool = False  # every lane of the batch is active (padding included)
    _idx: np.ndarray | None = None
    _count: int | None = None

    @classmethod
    def of(cls, mask: np.ndarray) -> "Mask":
        return cls(mask, bool(mask.all()))

    @property
    def idx(self) -> np.ndarray:
        if self._idx is None:
            self._idx = np.flatnonzero(self.mask)
        return self._idx

    @property
    def count(self) -> int:
        if self._count is None:
            self._count = len(self.idx)
        return self._count


@dataclass
class Entry:
    """One entry of the divergence stack: lanes `mask` run from `pc` until they reach `reconv`; a call's
    frame (cudasim.calls) runs until its lanes return, and `frame` holds what to restore then. A parked
    entry waits at a barrier (cudasim.execute: threads of one block apart after a spin-wait)."""

    pc: int
    m: Mask
    reconv: int
    frame: object = None
    parked: bool = False  # its lanes wait at the block barrier at `pc` for their block's other threads


@dataclass
class Batch:
    L: int  # lanes
    lpb: int  # lanes per block (a multiple of 32)
    nb: int  # blocks in the batch
    block_ids: np.ndarray  # (nb,) linear block indices in the grid
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    params: np.ndarray  # uint8 parameter buffer
    gmem: GlobalMemory
    shared_size: int  # bytes per block, padded to 16
    local_size: int  # bytes per lane, padded to 16
    dynamic_shared: int
    regs: dict[str, np.ndarray] = field(default_factory=dict)
    sregs: dict[str, np.ndarray | np.generic] = field(default_factory=dict)
    valid: np.ndarray = None  # (L,) bool: a real thread, not padding
    alive: np.ndarray = None  # (L,) bool: not exited
    shared: np.ndarray = None  # (nb * shared_size,) uint8
    local: np.ndarray = None  # (L * local_size,) uint8
    lane_block: np.ndarray = None  # (L,) int64 batch block of each lane
    traced_warps: np.ndarray | None = None  # (W,) bool, None: trace nothing
    warp_block: np.ndarray = None  # (W,) linear grid index of each warp's block
    warp_in_block: np.ndarray = None  # (W,) int32 warp index within its block
    cache: dict = field(default_factory=dict)  # derived arrays the executor reuses
    stack: list[Entry] = field(default_factory=list)  # the divergence stack, top last, while the batch runs
    waiting: np.ndarray | None = None  # lanes parked at a barrier, once threads of a block run apart (execute)
    profiled: list = field(default_factory=list)  # (block in batch, path) of the blocks whose warps' paths are followed
    parted: dict = field(default_factory=dict)  # block in batch -> {branch pc: its followed warps the branch parted}

    @property
    def W(self) -> int:
        return self.L // 32


def new_batch(reg_types: dict[str, str], block_ids: np.ndarray, grid: tuple[int, int, int],
              block: tuple[int, int, int], params: np.ndarray, gmem: GlobalMemory, shared_size: int,
              local_size: int, dynamic_shared: int) -> Batch:
    """Allocate registers (zero), memories and special registers for `block_ids`."""
    threads = block[0] * block[1] * block[2]
    lpb = (threads + 31) // 32 * 32
    nb = len(block_ids)
    L = nb * lpb
    b = Batch(L, lpb, nb, block_ids, grid, block, params, gmem, shared_size, local_size, dynamic_shared)
    for name, t in reg_types.items():
        b.regs[name] = np.zeros(L, TYPES[t][0])
    t = np.tile(np.arange(lpb, dtype=np.uint32), nb)
    b.valid = t < threads
    b.alive = b.valid.copy()
    b.lane_block = np.repeat(np.arange(nb, dtype=np.int64), lpb)
    b.warp_block = np.repeat(np.asarray(block_ids, np.int64), lpb // 32)
    b.warp_in_block = np.tile(np.arange(lpb // 32, dtype=np.int32), nb)
    bx, by, bz = block
    gx, gy, gz = grid
    lin = np.repeat(np.asarray(block_ids, np.int64), lpb)
    u32 = np.uint32
    s = b.sregs
    s["%tid.x"] = (t % bx).astype(u32)
    s["%tid.y"] = (t // bx % by).astype(u32)
    s["%tid.z"] = (t // (bx * by)).astype(u32)
    s["%ntid.x"], s["%ntid.y"], s["%ntid.z"] = u32(bx), u32(by), u32(bz)
    s["%ctaid.x"] = (lin % gx).astype(u32)
    s["%ctaid.y"] = (lin // gx % gy).astype(u32)
    s["%ctaid.z"] = (lin // (gx * gy)).astype(u32)
    s["%nctaid.x"], s["%nctaid.y"], s["%nctaid.z"] = u32(gx), u32(gy), u32(gz)
    lane = (t % 32).astype(u32)
    s["%laneid"] = lane
    s["%warpid"] = (t // 32).astype(u32)
    s["%nwarpid"] = u32(lpb // 32)
    s["%smid"] = u32(0)
    s["%nsmid"] = u32(1)
    s["%gridid"] = np.uint64(0)
    one = np.uint32(1)
    s["%lanemask_eq"] = (one << lane).astype(u32)
    s["%lanemask_lt"] = ((one << lane) - one).astype(u32)
    s["%lanemask_le"] = ((((one << lane) - one) << one) | one).astype(u32)
    s["%lanemask_ge"] = (~s["%lanemask_lt"]).astype(u32)
    s["%lanemask_gt"] = (~s["%lanemask_le"]).astype(u32)
    s["%dynamic_smem_size"] = u32(dynamic_shared)
    s["%total_smem_size"] = u32(shared_size)
    b.shared = np.zeros(nb * shared_size, np.uint8)
    b.local = np.zeros(L * local_size, np.uint8)
    return b
