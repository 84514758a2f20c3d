"""Barriers: bar.sync / barrier.sync (and their .red forms), bar.warp.sync, decoded into closures.

A block-wide barrier must be reached by every live thread of the block, all at once: the
batch runs a block's lanes as one SIMT group, so a barrier executed by only some of them is
a divergent barrier, reported rather than waited on. Lanes waiting at the kernel's exit
count as exited. Named barriers, thread counts and split arrive/wait are refused.
"""
from __future__ import annotations

import numpy as np

from .context import DecodeContext
from .errors import BarrierDivergence
from .operands import Op, reader, unsupported, writer
from .ptx import Instruction
from .state import Batch, Mask


def live_lanes(b: Batch, stack: list, arriving: np.ndarray, exits: frozenset[int]) -> np.ndarray:
    """The lanes a barrier waits for: alive, less those parked at the kernel's exit in an entry of `stack`
    (lanes that returned early count as exited), unless they are `arriving`."""
    live = b.alive.copy()
    for e in stack:
        if e.pc in exits:
            live &= ~e.m.mask | arriving
    return live


def decode_bar(ins: Instruction, pc: int, ctx: DecodeContext) -> Op:
    if ins.has("warp"):
        return lambda b, m: None
    if ins.has("arrive"):
        raise unsupported(ins, "split arrive/wait barriers")
    red = ins.has("red")
    ops_ = ins.operands
    count_o = None
    if red:
        d, bar_o, count_o, p = (ops_[0], ops_[1], ops_[2], ops_[3]) if len(ops_) == 4 else \
            (ops_[0], ops_[1], None, ops_[2])
        put, rp = writer(d, ctx), reader(p, "pred", ctx)
        kind = next(x for x in ins.mods if x in ("popc", "and", "or"))
    else:
        bar_o = ops_[0]
        count_o = ops_[1] if len(ops_) > 1 else None
    if bar_o.kind != "imm" or bar_o.value != 0 or count_o is not None:
        raise unsupported(ins, "named barriers and barriers with a thread count")
    exits, hazards = ctx.exits, ctx.hazards

    def bar(b: Batch, m: Mask) -> None:
        present = m.mask.reshape(b.nb, b.lpb).sum(1)
        alive = live_lanes(b, b.stack[:-1], m.mask, exits).reshape(b.nb, b.lpb).sum(1)
        bad = (present > 0) & (present < alive)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise BarrierDivergence(
                f"{ins.where()}: __syncthreads() reached by {int(present[i])} of the {int(alive[i])} live threads "
                f"of block {int(b.block_ids[i])}; the others are on another path, so the GPU would hang or "
                f"misbehave. Make the barrier unconditional, or the condition uniform across the block")
        if hazards.state is not None:
            hazards.barrier(b, present, alive)
        if red:
            pv = np.broadcast_to(np.asarray(rp(b)), (b.L,)) & m.mask
            per = pv.reshape(b.nb, b.lpb)
            if kind == "popc":
                r = np.repeat(per.sum(1).astype(np.uint32), b.lpb)
            elif kind == "and":
                r = np.repeat((per == m.mask.reshape(b.nb, b.lpb)).all(1), b.lpb)
            else:
                r = np.repeat(per.any(1), b.lpb)
            put(b, r, m)
    return bar
