"""Happens-before: what orders two accesses of different threads, as the checker tracks it.

Time is the checker's event counter; the simulator's order of execution is one legal
interleaving, so an access at time t1 and a later one at t2 are ordered when something
that both threads took part in lies between them:

- a block barrier (`bar.sync`): both threads passed one after t1 (`bar_t`, per lane);
- a warp-level sync (`__syncwarp`, shuffles, votes, `redux`): a sync after t1 that named
  both lanes (`full_t` per warp where every live lane took part; `pair_t` per lane pair
  for partial masks, kept only once such a sync happens);
- release and acquire through memory: a thread fences (`__threadfence`, `membar`, `fence`)
  and then writes a flag with a strong operation (atomic, volatile, release); a thread that
  reads that flag strongly (an atomic that returns it, a volatile or acquire load) knows
  what was released: the releasing thread's accesses before its fence, its block's before
  the barrier it last passed, its warp's before the full warp sync it last took part in,
  and whatever it knew itself. Knowledge spreads through a block at its next barrier.

Acquire is taken without the fence C++ would ask for after a relaxed read (the last-block
pattern of CUDA's threadFenceReduction sample has none): the checker errs towards "ordered"
where the memory model is stricter than practice, so what it reports is a real hazard.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..state import Batch

NEVER = -1


class Clocks:
    """Per lane of a batch: its global thread id and when it last took part in each kind of sync."""

    def __init__(self, b: Batch):
        L, lpb = b.L, b.lpb
        t = np.arange(L, dtype=np.int64)
        self.gid = (np.repeat(np.asarray(b.block_ids, np.int64), lpb) * lpb + t % lpb).astype(np.int32)
        self.bar_t = np.full(L, NEVER, np.int32)  # last block barrier the lane passed
        self.sync_t = np.full(L, NEVER, np.int32)  # last warp-level sync the lane took part in
        self.full_t = np.full(b.W, NEVER, np.int32)  # last warp sync every live lane of the warp took part in
        self.pair_t: np.ndarray | None = None  # (W, 32, 32): last warp sync naming both lanes (partial masks)
        self.fence_t = np.full(L, NEVER, np.int32)  # last fence of gpu or system scope
        self.full_bar = np.full(b.nb, NEVER, np.int32)  # last barrier every live thread of the block passed
        self.full_bar_min = NEVER  # the earliest of them over the blocks with live threads
        self.block_of = (t // lpb).astype(np.int32)  # batch block of each lane
        self.lpb = lpb

    def after_full_barrier(self, lane2: np.ndarray, t1: np.ndarray) -> np.ndarray:
        """Whether a barrier that every live thread of lane2's block passed came after time t1 (for an
        access of a thread of the same block: the quick test that settles nearly every pair)."""
        return t1 < self.full_bar[self.block_of[lane2]]

    def warp_sync(self, now: int, part: np.ndarray, live: np.ndarray) -> None:
        """Lanes `part` (bool over the batch) synchronized as a warp at time `now` (`live`: not exited)."""
        self.sync_t[part] = now
        P = part.reshape(-1, 32)
        Lv = live.reshape(-1, 32)
        full = P.any(1) & ((P | ~Lv) .all(1))
        self.full_t[full] = now
        partial = P.any(1) & ~full
        if partial.any():
            if self.pair_t is None:
                self.pair_t = np.full((len(self.full_t), 32, 32), NEVER, np.int32)
            w = np.flatnonzero(partial)
            pp = P[w]
            both = pp[:, :, None] & pp[:, None, :]
            self.pair_t[w] = np.where(both, now, self.pair_t[w])

    def ordered_local(self, lane2: np.ndarray, g2: np.ndarray, g1: np.ndarray, t1: np.ndarray) -> np.ndarray:
        """Whether thread g1's access at time t1 is ordered before lane2's (thread g2's) access now,
        by a barrier or warp sync both took part in (threads of one block only; False elsewhere)."""
        lpb = self.lpb
        same = (g1 // lpb) == (g2 // lpb)
        out = np.zeros(len(g1), bool)
        if not same.any():
            return out
        s = np.flatnonzero(same)
        l2 = lane2[s]
        l1 = l2 - (g2[s] % lpb) + (g1[s] % lpb)
        t = t1[s]
        ok = (self.bar_t[l1] > t) & (self.bar_t[l2] > t)
        warp = ((g1[s] >> 5) == (g2[s] >> 5)) & ~ok
        if warp.any():
            w = np.flatnonzero(warp)
            a, c, tw = l1[w], l2[w], t[w]
            wi = c // 32
            ft = self.full_t[wi]
            sync = (ft > tw) & (self.sync_t[a] >= ft) & (self.sync_t[c] >= ft)
            if self.pair_t is not None:
                sync |= self.pair_t[wi, a % 32, c % 32] > tw
            ok[w] = sync
        out[s] = ok
        return out


@dataclass
class Release:
    """What a block's release made visible: accesses before `bar` by its threads, before a thread's
    own fence (`thread`), before its warp's full sync (`warp`)."""

    bar: int = NEVER
    thread: dict[int, int] = field(default_factory=dict)
    warp: dict[int, int] = field(default_factory=dict)

    def join(self, o: "Release") -> None:
        self.bar = max(self.bar, o.bar)
        for k, v in o.thread.items():
            if v > self.thread.get(k, NEVER):
                self.thread[k] = v
        for k, v in o.warp.items():
            if v > self.warp.get(k, NEVER):
                self.warp[k] = v

    def covers(self, g: int, t: int) -> bool:
        return t < self.bar or t < self.thread.get(g, NEVER) or t < self.warp.get(g >> 5, NEVER)


Knowledge = dict[int, Release]  # block id -> what is known released by it


def join(into: Knowledge, other: Knowledge) -> None:
    for blk, r in other.items():
        mine = into.get(blk)
        if mine is None:
            into[blk] = Release(r.bar, dict(r.thread), dict(r.warp))
        else:
            mine.join(r)


class Visibility:
    """Release/acquire through memory, for one launch: what each flag word carries, what each thread
    and each block knows. Empty until the first release, and then only touched at strong accesses."""

    def __init__(self, lpb: int):
        self.lpb = lpb
        self.flags: dict[tuple[int, int], Knowledge] = {}  # (memory, word) -> knowledge released there
        self.thread: dict[int, Knowledge] = {}  # global thread id -> knowledge acquired since its block's barrier
        self.block: dict[int, Knowledge] = {}  # block id -> knowledge every thread of it has

    @property
    def active(self) -> bool:
        return bool(self.flags)

    def known(self, g: int) -> Knowledge:
        """What thread g knows: its block's knowledge and what it acquired since (not to be modified)."""
        blk, mine = self.block.get(g // self.lpb, {}), self.thread.get(g)
        if not mine:
            return blk
        k: Knowledge = {}
        join(k, blk)
        join(k, mine)
        return k

    def release(self, key: tuple[int, int], g: int, fence: int, bar: int, warp_sync: int) -> None:
        """Thread g writes flag `key` strongly after fencing at time `fence`."""
        k = self.flags.setdefault(key, {})
        join(k, self.known(g))
        join(k, {g // self.lpb: Release(bar, {g: fence}, {g >> 5: warp_sync} if warp_sync > NEVER else {})})

    def acquire(self, key: tuple[int, int], g: int) -> None:
        k = self.flags.get(key)
        if k:
            join(self.thread.setdefault(g, {}), k)

    def barrier(self, gids: np.ndarray) -> None:
        """The threads `gids` of one block passed a barrier: they now know what any of them knew."""
        if not self.thread:
            return
        blk = int(gids[0]) // self.lpb
        mine = [self.thread.pop(int(g)) for g in gids if int(g) in self.thread]
        if mine:
            k = self.block.setdefault(blk, {})
            for m in mine:
                join(k, m)

    def ordered(self, g2: np.ndarray, g1: np.ndarray, t1: np.ndarray) -> np.ndarray:
        """Whether thread g1's access at t1 is made visible to thread g2 by what g2 acquired."""
        out = np.zeros(len(g1), bool)
        cache: dict[int, Knowledge] = {}
        for i, (a, b, t) in enumerate(zip(g2.tolist(), g1.tolist(), t1.tolist())):
            k = cache.get(a)
            if k is None:
                k = cache[a] = self.known(a)
            r = k.get(b // self.lpb)
            out[i] = r is not None and r.covers(b, t)
        return out
