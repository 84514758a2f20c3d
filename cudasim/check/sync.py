"""Barriers and warp-level syncs, checked: divergent barriers and warp-sync misuse.

A `__syncthreads()` must be reached by every thread of the block (CUDA defines it only then):
reached by part of a block -- the rest on another path, or exited -- it is reported with the
counts, and the run goes on with the threads that reached it passing.

A shuffle, vote, `redux` or `__syncwarp` names its lanes in a mask. Each caller must be in
its own mask; the lanes the mask names that are live but not executing it must execute a
matching one (same operation and mask; sm_70+ allows another call site) before the warp
ends, else the GPU waits for them or the result is undefined: such a wait is kept pending,
matched when they arrive, and reported at the end of the block if they never do. A shuffle
that reads a lane outside its mask (or one that has exited or does not exist) reads an
undefined value. Each sync orders the memory accesses of the lanes that took part in it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..barrier import live_lanes
from ..operands import reader
from ..state import Batch, Mask
from ..warp import member_mask, shfl_source
from .findings import Finding, Side, site

if TYPE_CHECKING:
    from .engine import Checker

FULL = 0xFFFFFFFF


def bits(mask: np.ndarray) -> np.ndarray:
    """(W,) uint32 per warp: bit l set where lane l of the warp is in `mask`."""
    return np.packbits(mask.reshape(-1, 32), axis=1, bitorder="little").view("<u4").ravel().astype(np.int64)


def lanes_text(v: int) -> str:
    """'0-15, 20' for a lane bit mask."""
    out, l = [], 0
    while l < 32:
        if v >> l & 1:
            h = l
            while h + 1 < 32 and v >> (h + 1) & 1:
                h += 1
            out.append(f"{l}" if h == l else f"{l}-{h}")
            l = h + 1
        else:
            l += 1
    return ", ".join(out) or "none"


def intrinsic(ins) -> str:
    """The CUDA intrinsic a warp-level PTX instruction comes from, for messages."""
    if ins.base == "shfl":
        mode = next((x for x in ins.mods if x in ("up", "down", "bfly", "idx")), "idx")
        return {"up": "__shfl_up_sync", "down": "__shfl_down_sync", "bfly": "__shfl_xor_sync", "idx": "__shfl_sync"}[mode]
    if ins.base == "vote":
        mode = next((x for x in ins.mods if x in ("all", "any", "uni", "ballot")), "any")
        return {"all": "__all_sync", "any": "__any_sync", "uni": "__uni_sync", "ballot": "__ballot_sync"}[mode]
    if ins.base == "redux":
        return "__reduce_" + next((x for x in ins.mods if x in ("add", "min", "max", "and", "or", "xor")), "") + "_sync"
    return "__syncwarp"


@dataclass
class Pending:
    """Lanes a warp-level sync waits for that have not executed a matching one yet."""

    pc: int
    arrived: int  # lanes that executed it
    missing: int  # lanes named, live, that have not
    mask: int
    gids: list = field(default_factory=list)  # global ids of the lanes that executed it (first time)
    times: int = 1


def wrap_barrier(op, ins, pc: int, chk: "Checker"):
    """`bar.sync` checked: divergence reported (not raised), then the barrier for those present."""
    exits = chk.exits

    def bar(b: Batch, m: Mask) -> None:
        now = chk.tick()
        nb, lpb = b.nb, b.lpb
        present = m.mask.reshape(nb, lpb)
        pcount = present.sum(1)
        live = live_lanes(b, b.stack[:-1], m.mask, exits)
        alive = live.reshape(nb, lpb).sum(1)
        valid = b.valid.reshape(nb, lpb).sum(1)
        hit = pcount > 0
        elsewhere = np.where(hit, alive - pcount, 0)
        exited = np.where(hit, valid - alive, 0)
        bad = hit & ((elsewhere > 0) | (exited > 0))
        if bad.any():
            _divergent(chk, ins, pc, b, present, pcount, elsewhere, exited, valid, bad)
        clocks = chk.clocks
        clocks.bar_t[m.mask] = now
        full = hit & (pcount >= alive)
        clocks.full_bar[full] = now
        busy = alive > 0
        clocks.full_bar_min = int(clocks.full_bar[busy].min()) if busy.any() else now
        if chk.vis.thread:
            for j in np.flatnonzero(hit):
                chk.vis.barrier(clocks.gid[j * lpb:(j + 1) * lpb][present[j]])
        chk.barrier_passed(b, bool((full | ~busy).all()))
        away = hit & (elsewhere > 0)
        if away.any():  # let the simulator's barrier pass those present: the others are reported, not waited for
            hold = live & ~m.mask & np.repeat(away, lpb)
            b.alive[hold] = False
            try:
                op(b, m)
            finally:
                b.alive[hold] = True
        else:
            op(b, m)
    return bar


def _divergent(chk: "Checker", ins, pc: int, b: Batch, present, pcount, elsewhere, exited, valid, bad) -> None:
    j = int(np.flatnonzero(bad)[0])
    blk = chk.findings.coords(int(b.block_ids[j]) * b.lpb)[0]
    e, x = int(elsewhere[j]), int(exited[j])
    parts = []
    if e:
        parts.append(f"{e} are live on another path (waiting at another barrier, or past this one)")
    if x:
        parts.append(f"{x} had exited (returned early)")
    kind_of = ("exited" if not elsewhere[bad].any() else "elsewhere" if not exited[bad].any() else "both")

    def make() -> Finding:
        msg = (f"__syncthreads() reached by {int(pcount[j])} of the {int(valid[j])} threads of block {blk}: "
               f"{' and '.join(parts)}; CUDA defines the barrier only when every thread of the block reaches it")
        hint = ("make the barrier unconditional: no `return` before it, and a condition the whole block "
                "evaluates alike around it")
        return Finding("divergent-barrier", msg, Side(pc, str(ins.file), ins.line, ins.text, "barrier"), hint=hint)
    ids = chk.clocks.gid[(present & np.repeat(bad, b.lpb).reshape(present.shape)).ravel()]
    chk.findings.add(("divergent-barrier", site(ins, pc), kind_of), make, ids, count=int(bad.sum()))


def wrap_warp(op, ins, pc: int, chk: "Checker", ctx):
    """A warp-level sync checked: masks, pending waits, shuffle sources; then the sync's ordering."""
    exits = chk.exits
    rmask = member_mask(ins, ctx)
    if rmask is None:
        return op
    opkey = ins.opcode if ins.base != "barrier" else "bar.warp.sync"
    name = intrinsic(ins)
    shfl = None
    if ins.base == "shfl":
        mode = next(x for x in ins.mods if x in ("up", "down", "bfly", "idx"))
        rb, rc = reader(ins.operands[2], "u32", ctx), reader(ins.operands[3], "u32", ctx)
        shfl = (mode, rb, rc)

    def warp_op(b: Batch, m: Mask) -> None:
        now = chk.tick()
        act = m.mask
        idx = m.idx
        mv = np.broadcast_to(np.asarray(rmask(b)).astype(np.int64) & FULL, (b.L,))
        lane = idx % 32
        own = (mv[idx] >> lane) & 1
        if not own.all():
            bad = idx[own == 0]
            chk.findings.add(("warp-sync", site(ins, pc), "self"), lambda: Finding(
                "warp-sync", f"{name} is called by lanes that its mask 0x{int(mv[bad[0]]):08x} does not name: "
                f"each calling lane must be in the mask", Side(pc, str(ins.file), ins.line, ins.text, "warp-sync"),
                hint="pass __activemask() or the mask of the lanes that take this path"), chk.clocks.gid[bad])
        live = live_lanes(b, b.stack[:-1], m.mask, exits) & b.valid
        actb, liveb = bits(act), bits(live)
        A, M = act.reshape(-1, 32), mv.reshape(-1, 32)
        any_act = A.any(1)
        hi = np.where(A, M, -1).max(1)
        gone = np.where(any_act, hi & bits(b.valid & ~live) & FULL, 0)  # named lanes that have exited
        if gone.any():
            w = int(np.flatnonzero(gone)[0])
            g0, m0 = int(gone[w]), int(hi[w])
            callers = idx[(idx // 32 == w)]
            chk.findings.add(("warp-sync", site(ins, pc), "exited"), lambda: Finding(
                "warp-sync", f"{name} with mask 0x{m0:08x} names lanes {lanes_text(g0)} of the warp, which have "
                f"exited (returned): the result is undefined (they can never arrive)",
                Side(pc, str(ins.file), ins.line, ins.text, "warp-sync"),
                hint="name only the lanes that reach this call: __activemask() before the early return, or "
                     "__ballot_sync of the condition"), chk.clocks.gid[callers])
        uniform = hi == np.where(A, M, 1 << 40).min(1)
        missing_w = np.where(any_act, hi & liveb & ~actb & FULL, 0)
        todo = np.flatnonzero(any_act & (~uniform | (missing_w != 0) | bool(chk.pending)))
        joined = []  # (warp, lanes): waits completed now, by lanes that reached matching syncs at other sites
        for w in todo.tolist():  # lanes of a warp nearly always pass one mask; otherwise group by it
            aw, wm = A[w], M[w]
            for mval in ([int(hi[w])] if uniform[w] else np.unique(wm[aw]).tolist()):
                callers = int(bits(aw & (wm == mval))[0])
                done = chk.arrive(b, w, opkey, int(mval), pc, callers, int(mval) & int(liveb[w]) & ~int(actb[w]) & FULL)
                if done:
                    joined.append((w, done))
        if shfl is not None:
            _shuffle_sources(chk, ins, pc, b, idx, mv, live, shfl, name)
        chk.clocks.warp_sync(now, act, live)
        if joined:
            part = np.zeros(b.L, bool)
            for w, lanes in joined:
                part[w * 32:(w + 1) * 32] = (lanes >> np.arange(32)) & 1 != 0
            chk.clocks.warp_sync(now, part, live)
        op(b, m)
    return warp_op


def _shuffle_sources(chk: "Checker", ins, pc: int, b: Batch, idx, mv, live, shfl, name: str) -> None:
    """Lanes whose shuffle source is in range but outside the mask, exited, or not a thread."""
    mode, rb, rc = shfl
    lane = (idx % 32).astype(np.int64)
    bval = np.broadcast_to(np.asarray(rb(b)).astype(np.int64), (b.L,))[idx] & 31
    cv = np.broadcast_to(np.asarray(rc(b)).astype(np.int64), (b.L,))[idx]
    j, p = shfl_source(mode, lane, bval, cv)
    src = idx - lane + j
    outside = p & (((mv[idx] >> j) & 1) == 0)
    gone = p & ~outside & ~live[src]
    for sel, why in ((outside, "outside its mask"), (gone, "that has exited or is not a thread of the block")):
        if sel.any():
            s = np.flatnonzero(sel)
            l0, j0, m0 = int(lane[s[0]]), int(j[s[0]]), int(mv[idx[s[0]]])

            def make(l0=l0, j0=j0, m0=m0, why=why) -> Finding:
                return Finding("warp-sync", f"{name} in lane {l0} reads lane {j0}, {why} (mask 0x{m0:08x}): the value "
                               f"it gets is undefined", Side(pc, str(ins.file), ins.line, ins.text, "warp-sync"),
                               hint="name every source lane in the mask, or keep the offset within the lanes taking "
                                    "part (a width argument, or a bounds check on the lane)")
            chk.findings.add(("warp-sync", site(ins, pc), "source", why), make, chk.clocks.gid[idx[s]])


def report_pending(chk: "Checker", p: Pending, ins, name: str) -> None:
    def make() -> Finding:
        return Finding("warp-sync", f"{name} with mask 0x{p.mask:08x} was executed by lanes {lanes_text(p.arrived)} of "
                       f"the warp; the mask also names lanes {lanes_text(p.missing)}, which are live but never "
                       f"execute a matching {name}: the GPU waits for them (a hang) or the result is undefined",
                       Side(p.pc, str(ins.file), ins.line, ins.text, "warp-sync"),
                       hint="use the mask of the lanes that actually reach this call (__activemask() before the "
                            "branch, or __ballot_sync of the condition)")
    chk.findings.add(("warp-sync", site(ins, p.pc), "inactive"), make, np.asarray(p.gids, np.int64), count=p.times)


def wrap_fence(op, ins, pc: int, chk: "Checker"):
    """`membar` / `fence`: the lanes' earlier accesses may now be released by a strong write."""
    if ins.has("proxy"):
        return op

    def fence(b: Batch, m: Mask) -> None:  # a block-scope fence counts too: the checker errs towards "ordered"
        chk.clocks.fence_t[m.mask] = chk.tick()
        op(b, m)
    return fence
