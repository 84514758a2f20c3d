"""Straight-line code regrouped so that independent instructions of one form run as one numpy op.

Simulating a warp instruction costs a few microseconds of numpy overhead whatever its width,
so an unrolled inner loop (64 independent `fma` of an SGEMM thread tile, 16 shared loads) is
dominated by overhead. Within one basic block, an instruction may run as soon as the
instructions it depends on have run, so each thread still sees its own program order:
reads after the writes they need (RAW), writes after the reads and writes they would clobber
(WAR, WAW). A fence (a store, an atomic, a barrier, a shuffle: anything with effects beyond
the thread's registers or with an order other threads can observe) keeps its place: all
before it run before it, all after it after.

`regroup` is a greedy list scheduler over that dependency graph.
"""
from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    """What the scheduler needs to know of one instruction."""

    sig: Hashable | None  # instructions with equal signatures may run as one op; None: alone
    reads: frozenset[str]
    writes: frozenset[str]
    fence: bool = False


def dependencies(steps: Sequence[Step]) -> list[set[int]]:
    """For each instruction, the earlier instructions it must follow."""
    preds: list[set[int]] = []
    last_write: dict[str, int] = {}
    readers: dict[str, list[int]] = {}
    since_fence: list[int] = []
    last_fence = -1
    for j, s in enumerate(steps):
        p: set[int] = set()
        if s.fence:
            p.update(since_fence)
            if last_fence >= 0:
                p.add(last_fence)
            since_fence, last_fence = [], j
        else:
            if last_fence >= 0:
                p.add(last_fence)
            for r in s.reads:
                if r in last_write:
                    p.add(last_write[r])
            for w in s.writes:
                if w in last_write:
                    p.add(last_write[w])
                p.update(readers.get(w, ()))
            since_fence.append(j)
        p.discard(j)
        preds.append(p)
        for r in s.reads:
            readers.setdefault(r, []).append(j)
        for w in s.writes:
            last_write[w] = j
            readers[w] = []
    return preds


def regroup(steps: Sequence[Step]) -> list[list[int]]:
    """An execution order of `steps` in groups; the members of a group share a signature and
    do not depend on one another, and every group follows the groups it depends on.

    Greedy: the earliest ready instruction goes first, with every ready instruction of its
    signature. But a signature waits while some instruction of it is not ready yet and does
    not depend on the ready ones (it could join them later) and something else can run: so
    address arithmetic finishes before the loads it feeds, and the loads run as one."""
    preds = dependencies(steps)
    waiting = [len(p) for p in preds]
    succs: list[list[int]] = [[] for _ in steps]
    ancestors: list[int] = []  # bit i set: instruction i must run before this one
    for j, p in enumerate(preds):
        bits = 0
        for i in p:
            succs[i].append(j)
            bits |= ancestors[i] | (1 << i)
        ancestors.append(bits)
    unscheduled: dict = {}
    for j, s in enumerate(steps):
        if s.sig is not None:
            unscheduled.setdefault(s.sig, set()).add(j)
    ready = [j for j, w in enumerate(waiting) if w == 0]
    groups: list[list[int]] = []
    while ready:
        ready.sort()
        by_sig: dict = {}
        for j in ready:
            if steps[j].sig is not None:
                by_sig.setdefault(steps[j].sig, []).append(j)

        def complete(sig) -> bool:
            on = by_sig[sig]
            bits = 0
            for j in on:
                bits |= 1 << j
            return all(ancestors[j] & bits for j in unscheduled[sig].difference(on))

        first = next((j for j in ready if steps[j].sig is None or complete(steps[j].sig)), ready[0])
        sig = steps[first].sig
        group = by_sig[sig] if sig is not None else [first]
        members = set(group)
        ready = [j for j in ready if j not in members]
        if sig is not None:
            unscheduled[sig] -= members
        groups.append(group)
        for i in group:
            for j in succs[i]:
                waiting[j] -= 1
                if waiting[j] == 0:
                    ready.append(j)
    return groups
