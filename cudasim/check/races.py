"""The race check and the initialisation check of one access, against a memory's shadow.

Two accesses race when they touch a common byte, come from different threads, at least one
writes, at least one is plain (strong operations -- atomics, and in global memory volatile,
relaxed, acquire and release accesses -- do not race with each other), and nothing orders
them (`order`). Within one instruction, two threads writing one word race unless they write
the same value (the hardware keeps one of them; which one does not matter then). A plain
write over a word with the value it already holds is not reported as racing with the write
that put it there: the outcome is the same whichever comes first.

Shared memory treats volatile accesses as plain: the warp-synchronous reductions that rely
on `volatile` and lock-step lanes race since Volta, and are reported.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..memory import HEAP_BASE
from .findings import Finding, Findings, Side, site
from .order import Clocks, Visibility
from .shadow import BLOCK, BYTES, GRID, NONE, ONE, STRONG, WARP, WEAK_ANY, Shadow, relation, same_block

ATOMIC = 0x40  # write flags: the strong write was an atomic
R1_WEAK, R2_WEAK = 0x40, 0x80  # read flags: the first / latest reader's access was plain

LOG_LIMIT = 1 << 22  # logged reads folded in past this many

RELATION = {WARP: "lanes of one warp", BLOCK: "warps of one block", GRID: "different blocks"}
WHY = {WARP: "nothing synchronizes the two lanes between the accesses (no __syncwarp, shuffle, vote or barrier "
             "that names both); since Volta the lanes of a warp are not in lock step",
       BLOCK: "no __syncthreads() lies between the two accesses",
       GRID: "nothing orders the two blocks' accesses: blocks run in any order, and only atomics or a "
             "fence-and-flag handoff (__threadfence(), then an atomic or volatile flag the other block reads) "
             "orders them"}
HEAP_FIX = ("the words are in blocks malloc returned: where each thread has a block of its own, one that writes "
            "past its end writes the next one's, so keep each index below the size malloc was asked for; where "
            "threads share a block, order their accesses (__syncwarp(), __syncthreads())")
FIX = {WARP: "put __syncwarp() between the write and the read (or exchange the values with __shfl_sync)",
       BLOCK: "put __syncthreads() between the write and the read, reached by the whole block; where only some "
              "warps run that code (a producer and a consumer warp), hand the data over instead: the writer's "
              "__threadfence_block() then a flag set with an atomic, which the reader waits on with an atomic "
              "or acquire load (cuda::atomic_ref), not a volatile one",
       GRID: "give each block its own part of the output, use atomics, or hand the data over with "
             "__threadfence() and a flag (or a second kernel launch)"}

Values = Callable[[np.ndarray], np.ndarray | None]  # positions of the access's lanes -> (n, size) bytes written


class Access:
    """One memory instruction's access by some lanes, as the race check sees it."""

    __slots__ = ("pc", "ins", "space", "lanes", "flat", "size", "op", "strong", "values", "current")

    def __init__(self, pc: int, ins, space: str, lanes: np.ndarray, flat: np.ndarray, size: int, op: str,
                 strong: bool, values: Values | None = None, current: Callable | None = None):
        self.pc, self.ins, self.space, self.lanes, self.flat, self.size = pc, ins, space, lanes, flat, size
        self.op, self.strong, self.values, self.current = op, strong, values, current


class RaceCheck:
    """Checks accesses against a Shadow and updates it; reports into `findings`."""

    def __init__(self, findings: Findings, body, lpb: int, heap: Callable[[int], bool] = lambda address: False):
        """`heap(address)`: whether a global address is in the device heap (malloc's blocks)."""
        self.findings, self.body, self.lpb, self.heap = findings, body, lpb, heap
        self.validated = validated_reads(body)

    # -- one access --------------------------------------------------------------------------
    def access(self, sh: Shadow, clocks: Clocks, vis: Visibility, now: int, acc: Access) -> None:
        size = acc.size
        k = max(1, size // 4)
        n = len(acc.lanes)
        flat = acc.flat
        w0 = flat >> 2
        if size >= 4:
            mb = np.full(n, BYTES, np.uint8)
        else:
            mb = ((((1 << size) - 1) << (flat & 3)) & BYTES).astype(np.uint8)
        if k > 1:
            wd = (w0[:, None] + np.arange(k)).ravel()
            pos = np.repeat(np.arange(n), k)
            mb = np.repeat(mb, k)
        else:
            wd, pos = w0, np.arange(n)
        ln = acc.lanes[pos]
        g = clocks.gid[ln]
        if acc.op == "read":
            self._read(sh, clocks, vis, now, acc, wd, pos, ln, g, mb)
        elif acc.op == "write":
            self._write(sh, clocks, vis, now, acc, wd, pos, ln, g, mb)
        else:
            self._atomic(sh, clocks, vis, now, acc, wd, pos, ln, g, mb)

    def _settled(self, clocks: Clocks, acc: Access, c: np.ndarray, ln, g, other, t) -> np.ndarray:
        """Candidates `c` less those a full barrier of the block orders (the other thread of the same block)."""
        s = np.flatnonzero(c)
        ok = clocks.after_full_barrier(ln[s], t[s])
        if acc.space != "shared":  # shared memory is the block's own: every writer is of the same block
            ok &= same_block(other[s], g[s], self.lpb)
        c[s[ok]] = False
        return c

    def _read(self, sh, clocks, vis, now, acc, wd, pos, ln, g, mb) -> None:
        if acc.space == "shared":  # the block's own memory: a write before the last full barrier is settled
            recent = np.flatnonzero(sh.w_t[wd] >= clocks.full_bar_min)
            if len(recent):
                r = recent
                self._check_read(sh, clocks, vis, acc, wd[r], ln[r], g[r], mb[r])
        else:
            self._check_read(sh, clocks, vis, acc, wd, ln, g, mb)
        # reads are logged, and folded into the read summary only where a write needs them (shared memory:
        # most logs end at a barrier, dropped unread), or where the log grows long
        sh.log.append((wd, g, now, acc.pc, mb | np.uint8(0 if acc.strong else WEAK_ANY)))
        sh.logged += len(wd)
        if sh.logged > LOG_LIMIT:
            self.fold(sh)

    def fold(self, sh: Shadow) -> None:
        """Fold the logged reads into the per-word read summary: first and latest reader, their relation, bytes."""
        if not sh.log:
            return
        W = np.concatenate([e[0] for e in sh.log])
        G = np.concatenate([e[1] for e in sh.log])
        T = np.concatenate([np.full(len(e[0]), e[2], np.int32) for e in sh.log])
        PC = np.concatenate([np.full(len(e[0]), e[3], np.int32) for e in sh.log])
        FL = np.concatenate([e[4] for e in sh.log])
        sh.log, sh.logged = [], 0
        order = np.lexsort((T, W))
        Ws = W[order]
        starts = np.flatnonzero(np.r_[True, Ws[1:] != Ws[:-1]])
        ends = np.r_[starts[1:], len(Ws)]
        words = Ws[starts]
        first, last = order[starts], order[ends - 1]
        empty = sh.r_rel[words] == 0
        weak1 = (FL[first] & WEAK_ANY) != 0
        e = words[empty]
        sh.r1_tid[e], sh.r1_t[e], sh.r1_pc[e] = G[first][empty], T[first][empty], PC[first][empty]
        sh.r_fl[e] = np.where(weak1[empty], R1_WEAK, 0).astype(np.uint8)
        sh.r2_tid[words], sh.r2_t[words], sh.r2_pc[words] = G[last], T[last], PC[last]
        r1 = np.repeat(sh.r1_tid[words], ends - starts)
        rel = np.maximum.reduceat(relation(r1, G[order], self.lpb), starts)
        fl = np.bitwise_or.reduceat(FL[order], starts)
        weak2 = np.where((FL[last] & WEAK_ANY) != 0, R2_WEAK, 0).astype(np.uint8)
        sh.r_rel[words] = np.maximum(np.where(empty, ONE, sh.r_rel[words]), rel).astype(np.uint8)
        sh.r_fl[words] = ((sh.r_fl[words] & ~np.uint8(R2_WEAK)) | fl | weak2).astype(np.uint8)

    def _check_read(self, sh, clocks, vis, acc, wd, ln, g, mb) -> None:
        wt, wfl = sh.w_tid[wd], sh.w_fl[wd]
        c = (wt >= 0) & (wt != g) & ((wfl & mb) != 0)
        if acc.strong:
            c &= (wfl & STRONG) == 0
        if c.any():
            c = self._settled(clocks, acc, c, ln, g, wt, sh.w_t[wd])
        if c.any():
            s = np.flatnonzero(c)
            self._conflict(clocks, vis, acc, "read", wd[s], ln[s], g[s], wt[s], sh.w_t[wd[s]], sh.w_pc[wd[s]],
                           np.where(wfl[s] & ATOMIC, 1, 0))
        if not acc.strong:
            self._released(sh, clocks, vis, acc, "read", wd, ln, g, wt, wfl)

    def _released(self, sh, clocks, vis, acc, kind: str, wd, ln, g, wt, wfl) -> None:
        """A plain access (`kind`) against the first strong (atomic or volatile) writer of the word since
        its last plain write, when that writer is another thread and no atomic read-modify-write orders
        the two: the same check for reads and writes."""
        st = sh.s_tid[wd]
        c = (sh.s_rel[wd] > 0) & (st != g) & (st != wt)
        if c.any():
            c &= ~self._after_rmw(sh, clocks, wd, ln, g, wt, wfl, c)
        if c.any():
            s = np.flatnonzero(c)
            self._conflict(clocks, vis, acc, kind, wd[s], ln[s], g[s], st[s], sh.s_t[wd[s]], sh.s_pc[wd[s]],
                           np.ones(len(s), np.int8))

    def _write(self, sh, clocks, vis, now, acc, wd, pos, ln, g, mb) -> None:
        self.fold(sh)
        strong = acc.strong
        wt, wfl = sh.w_tid[wd], sh.w_fl[wd]
        c = (wt >= 0) & (wt != g) & ((wfl & mb) != 0)
        if strong:
            c &= (wfl & STRONG) == 0
        if c.any():
            c = self._settled(clocks, acc, c, ln, g, wt, sh.w_t[wd])
        if c.any() and not strong:
            c &= ~self._same_value(acc, pos, c)
        if c.any():
            s = np.flatnonzero(c)
            self._conflict(clocks, vis, acc, "write", wd[s], ln[s], g[s], wt[s], sh.w_t[wd[s]], sh.w_pc[wd[s]],
                           np.where(wfl[s] & ATOMIC, 1, 0))
        if not strong:
            self._released(sh, clocks, vis, acc, "write", wd, ln, g, wt, wfl)
        self._war(sh, clocks, vis, acc, wd, ln, g, mb, strong)
        # two threads writing one word in this very instruction
        sh.w_tid[wd] = g
        win = sh.w_tid[wd]
        dup = win != g
        if dup.any() and not strong and acc.size < 4:  # lanes writing different bytes of one word do not collide
            d = np.flatnonzero(dup)
            dup[d[~self._byte_overlap(acc.flat[pos[d]], acc.flat[pos])]] = False
        if dup.any() and not strong:
            d = np.flatnonzero(dup)
            if acc.values is not None:
                d = d[~self._same_as_winner(acc, pos, d, wd, win)]
            if len(d):
                self._report(acc, "write", 0, wd[d], g[d], win[d], acc.pc, np.full(len(d), now, np.int32),
                             relation(win[d], g[d], self.lpb), same_instruction=True)
        sh.w_t[wd] = now
        sh.w_pc[wd] = acc.pc
        sh.w_fl[wd] = mb | (STRONG if strong else 0)
        if not strong:  # a plain write ordered after every earlier access stands for them all
            sh.s_rel[wd] = 0
            sh.s_tid[wd] = NONE
            sh.r_rel[wd] = 0
            sh.r_fl[wd] = 0
        else:
            self._note_strong(sh, now, acc, wd, g)

    def _atomic(self, sh, clocks, vis, now, acc, wd, pos, ln, g, mb) -> None:
        self.fold(sh)
        wt, wfl = sh.w_tid[wd], sh.w_fl[wd]
        c = (wt >= 0) & (wt != g) & ((wfl & mb) != 0) & ((wfl & STRONG) == 0)
        if c.any():
            c = self._settled(clocks, acc, c, ln, g, wt, sh.w_t[wd])
        if c.any():
            s = np.flatnonzero(c)
            self._conflict(clocks, vis, acc, "atomic", wd[s], ln[s], g[s], wt[s], sh.w_t[wd[s]], sh.w_pc[wd[s]],
                           np.zeros(len(s), np.int8))
        self._war(sh, clocks, vis, acc, wd, ln, g, mb, True)
        sh.w_tid[wd] = g
        sh.w_t[wd] = now
        sh.w_pc[wd] = acc.pc
        sh.w_fl[wd] = mb | STRONG | ATOMIC
        self._note_strong(sh, now, acc, wd, g)

    def _note_strong(self, sh: Shadow, now: int, acc: Access, wd, g) -> None:
        """Add this instruction's threads to the strong writers since the last plain write."""
        empty = sh.s_rel[wd] == 0
        if empty.any():
            e = wd[empty]
            sh.s_tid[e] = g[empty]
            sh.s_t[e] = now
            sh.s_pc[e] = acc.pc
        rel = np.maximum(relation(sh.s_tid[wd], g, self.lpb), np.where(empty, ONE, sh.s_rel[wd])).astype(np.uint8)
        sh.s_rel[wd] = rel
        if len(wd) > 1:
            np.maximum.at(sh.s_rel, wd, rel)  # several lanes on one word: the widest relation

    def _after_rmw(self, sh: Shadow, clocks: Clocks, wd, ln, g, wt, wfl, c) -> np.ndarray:
        """Where the last write was an atomic read-modify-write ordered before this access: it came after
        every earlier atomic on the word (an RMW reads the latest value), so those need no check of their own
        (a last block resetting the ticket every block incremented)."""
        out = np.zeros(len(c), bool)
        s = np.flatnonzero(c & ((wfl & ATOMIC) != 0))
        if len(s):
            own = wt[s] == g[s]
            ok = own | clocks.ordered_local(ln[s], g[s].astype(np.int64), wt[s].astype(np.int64), sh.w_t[wd[s]])
            out[s] = ok
        return out

    def _war(self, sh, clocks, vis, acc, wd, ln, g, mb, strong: bool) -> None:
        """A write against the reads since the last plain write: the first and the latest reader."""
        rr, rfl = sh.r_rel[wd], sh.r_fl[wd]
        live = (rr > 0) & ((rfl & mb) != 0)
        if not live.any():
            return
        for tid, t, pcs, weakbit in ((sh.r1_tid, sh.r1_t, sh.r1_pc, R1_WEAK), (sh.r2_tid, sh.r2_t, sh.r2_pc, R2_WEAK)):
            other = tid[wd]
            c = live & (other != g) & (other >= 0)
            if strong:
                c &= (rfl & weakbit) != 0
            if weakbit == R2_WEAK:
                c &= other != sh.r1_tid[wd]
            if c.any():
                c = self._settled(clocks, acc, c, ln, g, other, t[wd])
            if c.any():
                s = np.flatnonzero(c)
                self._conflict(clocks, vis, acc, "write" if acc.op == "write" else "atomic", wd[s], ln[s], g[s],
                               other[s], t[wd[s]], pcs[wd[s]], np.full(len(s), 2, np.int8))

    # -- values ------------------------------------------------------------------------------
    def _same_value(self, acc: Access, pos: np.ndarray, c: np.ndarray) -> np.ndarray:
        """Where the plain write stores the bytes the word already holds (the last write's value)."""
        out = np.zeros(len(c), bool)
        if acc.values is None or acc.current is None:
            return out
        s = np.flatnonzero(c)
        p = np.unique(pos[s])
        new, old = acc.values(p), acc.current(p)
        if new is None or old is None:
            return out
        eq = (new == old).all(1)
        same = np.zeros(int(pos.max()) + 1, bool)
        same[p] = eq
        out[s] = same[pos[s]]
        return out

    @staticmethod
    def _byte_overlap(mine: np.ndarray, every: np.ndarray) -> np.ndarray:
        """For sub-word writes (aligned, of one size): whether another lane writes the byte `mine` starts at."""
        u, counts = np.unique(every, return_counts=True)
        return counts[np.searchsorted(u, mine)] > 1

    def _same_as_winner(self, acc: Access, pos, d, wd, win) -> np.ndarray:
        """For lanes whose write to a word lost to another lane's in the same instruction: same bytes?
        (numpy's scatter keeps the last lane writing a word: that lane is the winner)."""
        vals = acc.values(np.arange(len(acc.lanes)))
        if vals is None:
            return np.zeros(len(d), bool)
        u, first_rev = np.unique(wd[::-1], return_index=True)
        last = len(wd) - 1 - first_rev
        pw = last[np.searchsorted(u, wd[d])]
        return (vals[pos[d]] == vals[pos[pw]]).all(1)

    # -- reporting ---------------------------------------------------------------------------
    def _conflict(self, clocks: Clocks, vis: Visibility, acc: Access, this_op: str, wd, ln, g, g1, t1, pc1,
                  other_kind) -> None:
        """Candidates: this access by lanes `ln` (threads g) against thread g1's access at t1 (pc1);
        `other_kind` 0 write, 1 atomic or strong write, 2 read. Reports those nothing orders."""
        g1 = g1.astype(np.int64)
        ok = clocks.ordered_local(ln, g.astype(np.int64), g1, t1)
        if vis.active and not ok.all():
            rest = np.flatnonzero(~ok)
            ok[rest] = vis.ordered(g[rest].astype(np.int64), g1[rest], t1[rest])
        if ok.all():
            return
        bad = np.flatnonzero(~ok)
        self._report(acc, this_op, other_kind[bad], wd[bad], g[bad], g1[bad], pc1[bad], t1[bad],
                     relation(g1[bad], g[bad].astype(np.int64), self.lpb))

    def _report(self, acc: Access, this_op: str, other_kind, wd, g, g1, pc1, t1, rel,
                same_instruction: bool = False) -> None:
        n = len(g)
        keys = np.stack([np.broadcast_to(np.asarray(x, np.int64), (n,)) for x in (pc1, rel, other_kind)], 1)
        for pc1_, rel_, ok_ in np.unique(keys, axis=0).tolist():
            if (acc.pc, pc1_) in self.validated or (pc1_, acc.pc) in self.validated:
                continue  # an optimistic read that a compare-and-swap checks: whatever it saw, the CAS decides
            sel = (keys == (pc1_, rel_, ok_)).all(1)
            other_op = ("write", "atomic", "read")[ok_] if not same_instruction else "write"
            if other_op == "atomic" and self.body[pc1_].base not in ("atom", "red"):
                other_op = "write"  # a volatile or release store: strong, but not an atomic
            key = ("race", acc.space, site(acc.ins, acc.pc), this_op, site(self.body[pc1_], pc1_), other_op, rel_,
                   same_instruction)
            heap = acc.space == "global" and self.heap(HEAP_BASE + 4 * int(wd[np.flatnonzero(sel)[0]]))
            self.findings.add(key, lambda: self._make(acc, this_op, pc1_, other_op, rel_, same_instruction, heap),
                              g[sel], other_ids=g1[sel])

    def _make(self, acc: Access, this_op: str, pc1: int, other_op: str, rel: int, same: bool,
              heap: bool = False) -> Finding:
        ins, other = acc.ins, self.body[pc1]
        where = "shared" if acc.space == "shared" else "global"
        this_side = Side(acc.pc, str(ins.file), ins.line, ins.text, this_op)
        other_side = Side(pc1, str(other.file), other.line, other.text, other_op)
        hazard = {("read", "write"): "read-after-write", ("read", "atomic"): "read-after-write",
                  ("write", "read"): "write-after-read", ("atomic", "read"): "write-after-read",
                  ("write", "write"): "write-after-write", ("write", "atomic"): "write-after-write",
                  ("atomic", "write"): "write-after-write"}.get((this_op, other_op), "conflict")
        if same:
            msg = (f"{RELATION[rel]} write the same {where} word with different values in one instruction "
                   f"({hazard}): which value remains is undefined")
        else:
            msg = (f"{this_op} of {where} memory at line {ins.line} races with the {other_op} at line {other.line} "
                   f"by {RELATION[rel]} ({hazard}): {WHY[rel]}")
        return Finding("race", msg, this_side, space=acc.space, size=acc.size, other=other_side,
                       relation=RELATION[rel], hint=HEAP_FIX if heap else FIX[rel])


def validated_reads(body) -> set[tuple[int, int]]:
    """(load pc, CAS pc) pairs where a plain load's value is the compare operand of a compare-and-swap on the same
    address: the CAS loop's first read (`old = *addr; do { assumed = old; old = atomicCAS(addr, assumed, f(old)); }
    while (assumed != old)`). Whatever value the load races to see, the CAS only writes where it still holds, so
    the pair is no race to report (the Programming Guide's atomicMax for floats is written so)."""
    loads = [(pc, x.operands) for pc, x in enumerate(body)
             if x.base == "ld" and not x.has("param", "const", "local") and len(x.operands) == 2]
    out = set()
    for pc, x in enumerate(body):
        if x.base == "atom" and x.has("cas") and len(x.operands) == 4:
            _, addr, compare, _ = x.operands
            out |= {(lpc, pc) for lpc, (dest, src) in loads if src == addr and dest == compare}
    return out


def init_check(findings: Findings, init: np.ndarray, acc: Access, describe: Callable[[int], tuple[str, dict | None]],
               gid: np.ndarray) -> None:
    """Report the lanes of a read (or atomic) that touch bytes no one wrote; `describe(flat)` names the memory."""
    flat = acc.flat
    size = acc.size
    got = init[flat[:, None] + np.arange(size)] if size > 1 else init[flat][:, None]
    bad = ~got.all(1)
    if not bad.any():
        return
    b = np.flatnonzero(bad)
    what, alloc = describe(int(flat[b[0]]))
    ins = acc.ins
    key = ("uninitialized", acc.space, site(ins, acc.pc), what)

    def make() -> Finding:
        if acc.space == "shared":
            msg = (f"{'atomic on' if acc.op == 'atomic' else 'read of'} {acc.size} bytes of shared memory that "
                   f"no thread of the block has written")
            hint = "write every element before reading it, with __syncthreads() between the writes and the reads"
        else:
            msg = (f"{'atomic on' if acc.op == 'atomic' else 'read of'} {acc.size} bytes of {what} that neither "
                   f"the host nor the kernel has written")
            hint = "copy the data in (cudaMemcpy / In(...)), or write it in the kernel before reading it"
        return Finding("uninitialized", msg, Side(acc.pc, str(ins.file), ins.line, ins.text,
                                                  "atomic" if acc.op == "atomic" else "read"),
                       space=acc.space, size=acc.size, allocation=alloc, hint=hint)
    findings.add(key, make, gid[acc.lanes[b]])
