"""Warp-level instructions: shfl.sync, vote.sync, redux.sync and activemask, decoded into closures.

A warp is 32 consecutive lanes of the batch. shfl reads its source lane whether or not that
lane is active (PTX leaves the value undefined; here it is the register as it stands); vote,
redux and match combine, for each lane, the lanes of its member mask that run the instruction
(tiles of a warp, cooperative groups' tiled_partition, run it together with masks of their own);
activemask sees the active lanes.
"""
from __future__ import annotations

import numpy as np

from .context import DecodeContext
from .operands import Op, dtype_of, reader, writer
from .ptx import Instruction, Operand
from .state import Batch, Mask


def ballot(pred: np.ndarray, act: np.ndarray) -> np.ndarray:
    """(W,) uint32: bit l set where lane l of the warp has `pred`."""
    bits = np.packbits((pred & act).reshape(-1, 32), axis=1, bitorder="little")
    return bits.view("<u4").ravel().astype(np.uint32)


_BIT = np.uint32(1) << np.arange(32, dtype=np.uint32)


def members(mm: np.ndarray, act: np.ndarray) -> np.ndarray | None:
    """(W, 32, 32) bool: for each lane, the lanes of its warp it combines with, those of its member mask `mm`
    that are active; None where every active lane's mask holds all its warp's active lanes (the common case,
    a warp as a whole: the caller combines the active lanes)."""
    actb = np.repeat(ballot(act, act), 32)
    if ((mm & actb) == actb)[act].all():
        return None
    return ((mm.reshape(-1, 32)[:, :, None] & _BIT) != 0) & act.reshape(-1, 32)[:, None, :]


def _pack(sel: np.ndarray) -> np.ndarray:
    """(W, 32, 32) bool -> (W * 32,) uint32: each lane's set of lanes as a ballot packs it."""
    return ballot(sel.ravel(), sel.ravel())


MEMBER_MASK = {"shfl": 4, "vote": 2, "redux": 2, "match": 2, "bar": 0, "barrier": 0}  # the operand of a warp-level
# instruction (bar: bar.warp.sync) that holds its member mask


def member_mask(ins: Instruction, ctx: DecodeContext):
    """The reader of the instruction's member mask operand, or None (no such operand: the legacy forms)."""
    at = MEMBER_MASK.get(ins.base)
    return reader(ins.operands[at], "u32", ctx) if at is not None and len(ins.operands) > at else None


def _lane_sets(rm, b: Batch, act: np.ndarray) -> np.ndarray | None:
    """`members` of the member masks reader `rm` gives (None where there is none, or the warp acts whole)."""
    return None if rm is None else members(np.broadcast_to(np.asarray(rm(b)), (b.L,)).astype(np.uint32), act)


def shfl_source(mode: str, lane: np.ndarray, bval: np.ndarray, cv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """shfl.sync's source lane per lane and whether it is in range (PTX ISA: b the lane or offset, c the
    clamp and segment mask); out of range, a lane reads its own value."""
    seg = (cv >> 8) & 31
    maxl = (lane & seg) | (cv & 31 & ~seg)
    minl = lane & seg
    if mode == "up":
        j = lane - bval
        p = j >= maxl
    elif mode == "down":
        j = lane + bval
        p = j <= maxl
    elif mode == "bfly":
        j = lane ^ bval
        p = j <= maxl
    else:
        j = minl | (bval & ~seg)
        p = j <= maxl
    return np.where(p, j, lane), p


def decode_shfl(ins: Instruction, pc: int, ctx: DecodeContext) -> Op:
    mode = next(x for x in ins.mods if x in ("up", "down", "bfly", "idx"))
    d, a, bo, c = ins.operands[:4]
    put = writer(d, ctx)
    putp = writer(Operand("reg", name=ins.dest_pred), ctx) if ins.dest_pred else None
    ra, rb, rc = reader(a, "b32", ctx), reader(bo, "u32", ctx), reader(c, "u32", ctx)

    def shfl(b: Batch, m: Mask) -> None:
        lane = b.sregs["%laneid"].astype(np.int64)
        j, p = shfl_source(mode, lane, np.asarray(rb(b)).astype(np.int64) & 31, np.asarray(rc(b)).astype(np.int64))
        src = np.arange(b.L) // 32 * 32 + j
        v = np.broadcast_to(np.asarray(ra(b)), (b.L,))
        put(b, v[src], m)
        if putp is not None:
            putp(b, np.broadcast_to(p, (b.L,)), m)
    return shfl


def decode_vote(ins: Instruction, pc: int, ctx: DecodeContext) -> Op:
    mode = next(x for x in ins.mods if x in ("all", "any", "uni", "ballot"))
    d, p = ins.operands[:2]
    neg = False
    put, rp = writer(d, ctx), reader(p, "pred", ctx)
    rm = member_mask(ins, ctx)

    def vote(b: Batch, m: Mask) -> None:
        pv = np.broadcast_to(np.asarray(rp(b)), (b.L,)) ^ neg
        act = m.mask
        sel = _lane_sets(rm, b, act)
        if sel is not None:  # lanes with member masks of their own (tiles of the warp)
            on = sel & (pv & act).reshape(-1, 32)[:, None, :]
            r = (_pack(on) if mode == "ballot" else on.any(2) if mode == "any" else (on == sel).all(2)
                 if mode == "all" else (on == sel).all(2) | ~on.any(2))
            put(b, r.ravel(), m)
            return
        ball = ballot(pv & act, act)
        if mode == "ballot":
            put(b, np.repeat(ball, 32), m)
            return
        actb = ballot(act, act)
        if mode == "any":
            r = ball != 0
        elif mode == "all":
            r = ball == actb
        else:
            r = (ball == 0) | (ball == actb)
        put(b, np.repeat(r, 32), m)
    return vote


def decode_match(ins: Instruction, pc: int, ctx: DecodeContext) -> Op:
    """match.any.sync (__match_any_sync): each lane gets the mask of the active lanes holding its value;
    match.all.sync (__match_all_sync): the active lanes' mask where all hold one value, else 0, and whether
    they do (d|p)."""
    every = ins.has("all")
    d, a = ins.operands[:2]
    put = writer(d, ctx)
    putp = writer(Operand("reg", name=ins.dest_pred), ctx) if ins.dest_pred else None
    ra = reader(a, ins.type, ctx)
    rm = member_mask(ins, ctx)

    def match(b: Batch, m: Mask) -> None:
        v = np.broadcast_to(np.asarray(ra(b)), (b.L,)).reshape(-1, 32)
        sel = _lane_sets(rm, b, m.mask)
        if sel is None:
            sel = np.broadcast_to(m.mask.reshape(-1, 32)[:, None, :], (v.shape[0], 32, 32))
        same = (v[:, :, None] == v[:, None, :]) & sel  # (warps, lane, other lane)
        if not every:
            put(b, _pack(same), m)
            return
        alike = same.sum(2) == sel.sum(2)
        put(b, np.where(alike.ravel(), _pack(sel), 0).astype(np.uint32), m)
        if putp is not None:
            putp(b, alike.ravel(), m)
    return match


def decode_redux(ins: Instruction, pc: int, ctx: DecodeContext) -> Op:
    opn = next(x for x in ins.mods if x in ("add", "min", "max", "and", "or", "xor"))
    t = ins.type
    dt = dtype_of(t)
    d, a = ins.operands[:2]
    put, ra = writer(d, ctx), reader(a, t, ctx)
    ident = {"add": 0, "or": 0, "xor": 0, "and": np.iinfo(dt).max if dt.kind == "u" else -1,
             "min": np.iinfo(dt).max, "max": np.iinfo(dt).min}[opn]
    f = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or,
         "xor": np.bitwise_xor}[opn]

    rm = member_mask(ins, ctx)

    def redux(b: Batch, m: Mask) -> None:
        v = np.broadcast_to(np.asarray(ra(b)), (b.L,)).astype(dt)
        sel = _lane_sets(rm, b, m.mask)
        if sel is not None:  # each lane over its own members
            r = f.reduce(np.where(sel, v.reshape(-1, 32)[:, None, :], dt.type(ident)), axis=2, dtype=dt)
            put(b, r.ravel(), m)
            return
        v = np.where(m.mask, v, dt.type(ident)).astype(dt)
        r = f.reduce(v.reshape(-1, 32), axis=1, dtype=dt)
        put(b, np.repeat(r, 32), m)
    return redux


def decode_activemask(ins: Instruction, pc: int, ctx: DecodeContext) -> Op:
    put = writer(ins.operands[0], ctx)
    return lambda b, m: put(b, np.repeat(ballot(m.mask, m.mask), 32), m)
