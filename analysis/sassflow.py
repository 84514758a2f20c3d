"""What each warp issues in SASS, from the path it took through the PTX.

cudasim runs NVRTC's PTX, but the GPU issues ptxas's SASS: loads merged into wider ones,
short branches turned into predicated instructions that every warp issues, loops unrolled
further, address arithmetic folded. The timing model needs the SASS instructions a warp
issues, in order, so this module replays each simulated warp's PTX path on the SASS graph:

* anchors (analysis.sassanchors): what ptxas keeps of a block whatever it does to it, by source
  line; each SASS block is matched to the PTX block whose anchors it repeats U times (U > 1: ptxas
  unrolled that loop by U).
* the walk: the warp's PTX path, reduced to the anchored PTX blocks that have a SASS match, is
  a list of runs (block, times in a row). From the entry, the walk goes at every branch towards
  the nearest SASS block that can take the current run (the largest U that fits what is left of
  its work in the trip of its innermost PTX loop first, as ptxas's unrolled code checks the trips
  left; a loop's remainder first where it comes first),
  through blocks matched to nothing else; each visit of such a block takes U executions off the
  run. With no run left it goes to an exit. A branch to a divergent-warp fallback (BRA.DIV) is not
  taken; other sides are walked only for branches where cudasim saw the warp's lanes part.

Checked on kernels with known answers (tests/test_sassflow.py) and against Nsight Compute's count
of executed warp instructions on the catalog and the corpus (analysis/results/timing_h100.md).
"""
from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass

import networkx as nx
import numpy as np

from .predication import folded_branches
from .sassanchors import Match, match_blocks, ptx_where
from .sassgraph import SassGraph, loop_depths, sass_graph  # noqa: F401 - sass_graph: callers build the walk's graph here

_AVOID = 1000  # the cost of walking through a block matched to other PTX code
CALL_COST = 0.5  # what a block with a CALL costs the walk beyond a step


# ---- the walk ---------------------------------------------------------------------------------------

@dataclass
class Walker:
    """What walking a kernel's SASS needs, computed once: the graph, the matches, and for every matched
    block the cost of reaching it from every block."""

    sg: SassGraph
    matches: list[Match]  # per SASS block
    ptx: list[list[Match]]  # per PTX block
    consumers: dict[tuple, list[int]]  # key anchor -> SASS blocks known by it
    trip: dict[int, int]  # matched block -> its key's units per trip of its innermost loop (else its own)
    dist: dict[int, dict[int, float]]  # SASS block -> {from block: cost}
    to_exit: dict[int, int]  # block -> steps to the nearest exit
    block_of_pc: np.ndarray  # PTX pc -> PTX block
    leaders: list[int]  # PTX block -> its first pc
    run_end: object  # callable: PTX pc -> one past the last pc of its run
    folded: frozenset = frozenset()  # PTX branches around code ptxas makes predicated (folded_branches)
    body: list = None  # the PTX instructions
    ptx_graph: nx.DiGraph = None  # PTX block -> block ("exit": the kernel's end)
    ipdom: dict = None  # PTX branch pc -> the pc where its two ways meet (-1: at the exit)

    def __post_init__(self) -> None:
        self._entered: dict[int, list[int]] = {}
        self._ptx_loops: dict[int, tuple[int, ...]] | None = None  # PTX block -> headers of its loops, innermost first
        self._around: dict[tuple[int, int], set[int]] = {}  # (barrier, side) -> what the side reaches around it
        self._below: dict[int, set[int]] = {}  # block -> the blocks it reaches
        self._fwd: dict[tuple, set[int]] = {}  # (block, avoided) -> what it reaches short of a back edge
        self._back = {(u, h) for h, body in self.sg.loops for u in body if self.sg.graph.has_edge(u, h)}
        self._looped = set().union(*(body for _, body in self.sg.loops))  # blocks inside some loop
        self._side_cache: dict[frozenset, tuple[set[int], set[int]]] = {}
        self._doers: dict[tuple, list[int]] = defaultdict(list)  # key -> blocks that do its work, known by it or not
        for bi, m in enumerate(self.matches):
            for k in {m.key, *(k for k, _ in m.also)} - {None}:
                self._doers[k].append(bi)

    @classmethod
    def build(cls, sg: SassGraph, body: list, cfg, labels: dict, run_end) -> "Walker":
        matches, ptx = match_blocks(sg, body, cfg, labels)
        consumers: dict[tuple, list[int]] = {}
        for bi, m in enumerate(matches):
            if m.key is not None:
                consumers.setdefault(m.key, []).append(bi)
        anchored = {bi for bi, m in enumerate(matches) if m.key is not None}
        trip = cls._trip_units(sg, matches, anchored)
        rev = sg.graph.reverse(copy=False)
        ins = sg.listing.instructions
        # a block that calls a routine is ptxas's slow path (a 64-bit division's when an operand needs the
        # high word): of two ways alike, the one without the call
        calls = {bi for bi, (s, e) in enumerate(sg.blocks) if any(ins[i].op == "CALL" for i in range(s, e))}
        dist = {}
        for a in anchored:  # Dijkstra to `a`, entering another matched block costs _AVOID
            d = {a: 0.0}
            heap = [(0.0, a)]
            while heap:
                c, v = heapq.heappop(heap)
                if c > d.get(v, np.inf):
                    continue
                step = 1.0 if (v == a or v not in anchored) else _AVOID
                for u in rev.successors(v):
                    nc = c + step + (CALL_COST if u in calls else 0.0)
                    if nc < d.get(u, np.inf):
                        d[u] = nc
                        heapq.heappush(heap, (nc, u))
            dist[a] = d
        to_exit = {}
        for x in sg.exits:
            for u, k in nx.single_source_shortest_path_length(rev, x).items():
                to_exit[u] = min(k, to_exit.get(u, k))
        return cls(sg, matches, ptx, consumers, trip, dist, to_exit, np.asarray(cfg.block_of),
                   [b.start for b in cfg.blocks], run_end, folded_branches(body, labels), body, cfg.graph, cfg.ipdom)

    def parted(self, splits: dict[int, int] | None, warp: int) -> bool | frozenset:
        """The PTX branches the SASS keeps where the warp's lanes went both ways (empty: none), or True where
        any branch may have parted them. `splits` is its block's {PTX branch pc (-1: a spin-wait's yield): bit
        mask of the warps it parted} (cudasim's stats["followed_parted"]); None: not known."""
        if splits is None or splits.get(-1, 0) >> warp & 1:
            return True
        return frozenset(pc for pc, bits in splits.items() if bits >> warp & 1 and pc not in self.folded)

    def _sides_of(self, pcs: frozenset) -> tuple[set[int], set[int]]:
        """(the source lines of the PTX branches `pcs`, the PTX blocks on their sides: reached from the
        branch short of where its two ways meet)."""
        if pcs not in self._side_cache:
            g = self.ptx_graph
            lines, region = set(), set()
            for pc in pcs:
                lines.update(line for line in ptx_where(self.body[pc]) if line)
                meet = self.ipdom.get(pc, -1)
                stop = "exit" if meet < 0 else int(self.block_of_pc[meet])
                h = nx.restricted_view(g, [stop], [])
                for s in g.successors(int(self.block_of_pc[pc])):
                    if s != stop:
                        region |= nx.descendants(h, s) | {s}
            self._side_cache[pcs] = (lines, {b for b in region if b != "exit"})
        return self._side_cache[pcs]

    @staticmethod
    def _trip_units(sg: SassGraph, matches: list[Match], anchored: set[int]) -> dict[int, int]:
        """Per matched block, the units of its key that one trip of its innermost loop does where every
        trip passes the block (an unrolled body split by an if-converted call: the sum of its parts);
        elsewhere its own units."""
        g = sg.graph
        idom = nx.immediate_dominators(g.subgraph(nx.descendants(g, 0) | {0}), 0)

        def dominators(b: int) -> set[int]:
            out = {b}
            while idom.get(b, b) != b:
                b = idom[b]
                out.add(b)
            return out

        trip = {}
        for a in anchored:
            header, inner = min(((h, body) for h, body in sg.loops if a in body), key=lambda hb: len(hb[1]),
                                default=(None, None))
            if inner is None:
                trip[a] = matches[a].units
                continue
            every = set.intersection(*(dominators(u) for u in inner if g.has_edge(u, header)))
            trip[a] = (sum(matches[x].units for x in inner & every if matches[x].key == matches[a].key)
                       if a in every else matches[a].units)
        return trip

    def runs(self, path: list[int]) -> list[list]:
        """A warp's PTX path (pcs where it entered a run or control instruction) as the work it did, in
        order: [[key anchor, units in a row, the PTX blocks they are of, one past the last run of the same
        trip of its innermost PTX loop], ...]; a PTX block executes when its first instruction does."""
        out: list[list] = []
        bounds: dict[int, list[int]] = defaultdict(list)  # loop header -> runs where a trip began or the path left
        loops = self._loops_of()
        prev = -1
        for pc in path:
            blocks = self._entered.get(pc)
            if blocks is None:
                end = self.run_end(pc)
                blocks = self._entered[pc] = [pb for pb in range(int(self.block_of_pc[pc]),
                                                                 int(self.block_of_pc[end - 1]) + 1)
                                              if pc <= self.leaders[pb] < end]
            for pb in blocks:
                if prev >= 0:
                    was, now = loops.get(prev, ()), loops.get(pb, ())
                    if was != now:
                        for h in set(was) ^ set(now):  # the path entered or left loop h
                            bounds[h].append(len(out))
                    if pb in was and pb in now:  # a back edge to the header pb: a new trip
                        bounds[pb].append(len(out))
                prev = pb
                for m in self.ptx[pb]:
                    if out and out[-1][0] == m.key:
                        out[-1][1] += m.units
                        out[-1][2].add(pb)
                    else:
                        out.append([m.key, m.units, {pb}, 0])
        for j, run in enumerate(out):
            inner = loops.get(min(run[2]), ())
            if not inner:  # in no loop: its trip is itself
                run[3] = j + 1
                continue
            b = bounds.get(inner[0], [])
            k = bisect_right(b, j)
            run[3] = b[k] if k < len(b) else len(out)
        return out

    def _loops_of(self) -> dict[int, tuple[int, ...]]:
        """Per PTX block in a loop, the headers of the natural loops around it, innermost first."""
        if self._ptx_loops is None:
            merged: dict[int, set[int]] = defaultdict(set)  # back edges to one header: one loop
            for h, body in loop_depths(self.ptx_graph, 0)[1]:
                merged[h] |= body
            around: dict[int, list[int]] = defaultdict(list)
            for h, body in sorted(merged.items(), key=lambda hb: len(hb[1])):
                for b in body:
                    around[b].append(h)
            self._ptx_loops = {b: tuple(hs) for b, hs in around.items()}
        return self._ptx_loops

    def stream(self, path: list[int], limit: int = 50_000_000, window: int = 6,
               parted: bool | frozenset = True) -> np.ndarray:
        """The SASS instruction indices one warp issues, in order, for its PTX path.

        ptxas may order the work of one iteration differently from the PTX (a split loop body around a
        guarded store), so a visited block takes from the first of the next `window` runs with its key.
        A warp whose lanes went both ways at a branch runs one side to its exit, then the other: at an
        exit with work left the walk resumes at the other side of the latest branch that leads to it.
        Lanes that reach a convergence barrier (BSYNC) while the other side still has work that does not
        pass the barrier wait there: the code after it runs once, for all of them, when no side has
        such work left (cudasim's PTX has no barrier: a `return` inside a loop runs its tail for each
        group of lanes that leaves, as they leave). Other sides are those of the branches that `parted` the
        warp's lanes (True: any; else the source lines of those cudasim saw part them, Walker.parted): at
        an exit with no such side left the warp is done, whatever work its runs still count (PTX operations
        ptxas folded away)."""
        sg, matches = self.sg, self.matches
        todo = self.runs(path)
        full = [t[1] for t in todo]  # each run's units before the walk takes any
        keyed: dict[tuple, tuple[list[int], list[int]]] = defaultdict(lambda: ([], [0]))
        for q, t in enumerate(todo):  # per key, its runs and their units summed: the work left in a loop's trip
            at, units = keyed[t[0]]
            at.append(q)
            units.append(units[-1] + t[1])

        def left(j: int) -> int:
            """What is left of run j's key in the rest of its trip of its innermost PTX loop (NVVM's unrolled
            copies of a body do other work between theirs)."""
            at, units = keyed[todo[j][0]]
            return todo[j][1] + units[bisect_left(at, todo[j][3])] - units[bisect_right(at, j)]
        lines, split = (None, None) if parted is True else self._sides_of(parted)
        r = 0
        seq: list[int] = []
        sides: list[int] = []  # the other successor of every two-way branch passed
        bi = 0
        waiting: list[int] = []  # convergence barriers with lanes waiting at them
        merged: list[int] = []  # and those passed after lanes waited there
        guard = 4 * (len(todo) + 1) * max(1, len(sg.blocks)) + 4 * sum(t[1] for t in todo)
        prev, fresh = -1, False  # fresh: a back edge was taken and the new trip has taken no work yet
        for _ in range(guard):
            fresh = fresh or (prev, bi) in self._back
            prev = bi
            s, e = sg.blocks[bi]
            if bi in sg.syncs:
                side = self._wait(bi, sides, todo, r, window)  # other lanes have work that does not pass here
                held = None if side is not None else next(  # or lanes wait at a barrier whose code leads here
                    (w for w in reversed(waiting) if w != bi and bi in self._after(w)), None)
                if side is not None or held is not None:
                    seq.append(s)  # this group's BSYNC; what follows runs once, when the last group arrives
                    if bi not in waiting:
                        waiting.append(bi)
                    if r < len(todo) and self._reaches([bi], todo[r]):
                        todo[r][1] = 0  # the group's tail work, done by the last group's pass
                    while r < len(todo) and todo[r][1] <= 0:
                        r += 1
                    if side is None:
                        waiting.remove(held)
                    bi = side if side is not None else held
                    continue
                side = self._other_side(bi, sides, todo, r, full)  # the next work is other lanes', before here
                if side is not None:
                    seq.append(s)  # this group's BSYNC; the other group passes the barrier for both
                    bi = side
                    continue
            if bi in waiting:
                waiting.remove(bi)
                merged.append(bi)
            seq.extend(range(s, e))
            m = matches[bi]
            # past a barrier where groups of lanes waited, the code after it runs once for all of them: it
            # takes the whole run, which cudasim's PTX ran once per group
            once = any(bi in self._after(b) and b not in self._after(bi) for b in merged)
            for key, units in ((m.key, m.units), *m.also):
                if key is None:
                    continue
                for j in range(r, min(r + window, len(todo))):
                    if todo[j][0] == key and todo[j][1] > 0:
                        if fresh:
                            # a new trip's first work is a later run's: what the last trip left of the
                            # runs before it, ptxas did with less (hoisted, shared, kept in registers)
                            for q in range(r, j):
                                todo[q][1] = 0
                        fresh = False
                        todo[j][1] = 0 if once else todo[j][1] - units
                        break
            for key, units in m.maybe:  # predicated trips: the last of the current run's work, where they can do it
                if r < len(todo) and todo[r][0] == key and 0 < todo[r][1] <= units and not once:
                    todo[r][1] = 0
            while r < len(todo) and todo[r][1] <= 0:
                r += 1
            succ = list(sg.graph.successors(bi))
            if len(seq) > limit:
                break
            if r >= len(todo):
                if bi in sg.exits or not succ:
                    if not waiting:
                        break
                    bi = waiting.pop()
                    continue
                bi = min(succ, key=lambda b: (self.to_exit.get(b, 1 << 30), b))
                continue
            ahead = [t for t in todo[r:r + window] if t[1] > 0]
            if not succ or (bi in sg.exits and not any(self._reaches(succ, t) for t in ahead)):
                if split is not None and not any(t[1] > 0 and t[2] & split for t in todo[r:]):
                    break  # what is left is no other lanes' side: work ptxas folded away
                resume = self._resume(sides, ahead)  # these lanes are done; others still have work
                if resume is None:
                    if not waiting:
                        break
                    resume = waiting.pop()
                bi = resume
                continue
            if len(succ) == 1:
                bi = succ[0]
                continue
            nxt = None
            while nxt is None and r < len(todo):
                for j in range(r, min(r + window, len(todo))):
                    after = next((t for t in todo[j + 1:j + window] if t[1] > 0), None)
                    if todo[j][1] > 0 and (nxt := self._toward(bi, succ, todo[j], left(j), after, not parted)) is not None:
                        break
                if nxt is None:  # the next run is out of reach from here: leave it
                    todo[r][1] = 0
                    while r < len(todo) and todo[r][1] <= 0:
                        r += 1
            if nxt is None:
                if bi in sg.exits:
                    break
                nxt = min(succ, key=lambda b: (self.to_exit.get(b, 1 << 30), b))
            if lines is None or self._branch_lines(bi) & lines:
                sides.extend(b for b in succ if b != nxt)
            bi = nxt
        return np.asarray(seq, dtype=np.int32)

    def _branch_lines(self, b: int) -> set[int]:
        """The source lines of the branch that ends SASS block `b` (as written, and where it was inlined)."""
        x = self.sg.listing.instructions[self.sg.blocks[b][1] - 1]
        return {x.line, x.placed[1]}

    def _reaches(self, succ: list[int], run: list) -> bool:
        return any(a in self.dist and s in self.dist[a] for a in self.consumers.get(run[0], []) for s in succ)

    def _around_of(self, b: int, x: int) -> set[int]:
        """The blocks `x` reaches without passing `b` (`x` itself included, unless it is `b`)."""
        if (b, x) not in self._around:
            g = self.sg.graph
            self._around[(b, x)] = nx.descendants(nx.restricted_view(g, [b], []), x) | {x} if x != b else set()
        return self._around[(b, x)]

    def _after(self, b: int) -> set[int]:
        if b not in self._below:
            self._below[b] = nx.descendants(self.sg.graph, b)
        return self._below[b]

    def _wait(self, b: int, sides: list[int], todo: list, r: int, window: int) -> int | None:
        """The side to resume at if lanes arriving at the convergence barrier `b` wait there: where this
        group's next work is the code after `b` (which does not lead back to it), a branch's other side
        (the latest first) inside the barrier's region (it leads to `b` too) that reaches work of the
        runs after this group's that the code after `b` cannot do, without passing `b`."""
        rest = [t for t in todo[r + 1:r + window] if t[1] > 0]
        if not rest or not sides or r >= len(todo):
            return None
        after = self._after(b)
        tail = [a for a in self.consumers.get(todo[r][0], []) if a in after]
        if not tail or any(b in self._after(a) for a in tail):
            return None  # this group's next work is not the code after the barrier, or loops back to it
        rest = [t for t in rest if not any(a in after for a in self._doers.get(t[0], []))]
        if not rest:
            return None  # what comes next, the code after the barrier does too: no other lanes' work
        for i in range(len(sides) - 1, -1, -1):
            around = self._around_of(b, sides[i])
            if b in self._after(sides[i]) and any(a in around for t in rest for a in self.consumers.get(t[0], [])):
                return sides.pop(i)
        return None

    def _other_side(self, b: int, sides: list[int], todo: list, r: int, full: list[int]) -> int | None:
        """The side to resume at when the next run is the other lanes' work before the barrier `b`: the
        walk has taken none of it (what a trip leaves of a run it took from, ptxas did with less), no
        block after `b` takes it short of a back edge (a new trip), and a branch's other side (the
        latest first) inside the barrier's region (after its BSSY, in the same trip) reaches a block
        that does without passing `b`."""
        if r >= len(todo) or not sides or todo[r][1] < full[r]:
            return None
        cons = self.consumers.get(todo[r][0], [])
        if not cons or any(a in self._ahead(b) for a in cons):
            return None
        region = set().union(*(self._ahead(o, b) for o in self.sg.opened.get(b, [])))
        for i in range(len(sides) - 1, -1, -1):
            x = sides[i]
            if x in region and any(a in self._ahead(x, b) for a in cons):
                return sides.pop(i)
        return None

    def _ahead(self, x: int, avoid: int | None = None) -> set[int]:
        """The blocks `x` reaches short of a back edge (and of the block `avoid`): in the same trip."""
        if (x, avoid) not in self._fwd:
            g = nx.restricted_view(self.sg.graph, [] if avoid is None else [avoid], list(self._back))
            self._fwd[(x, avoid)] = nx.descendants(g, x) | {x} if x != avoid else set()
        return self._fwd[(x, avoid)]

    def _resume(self, sides: list[int], runs: list[list]) -> int | None:
        while sides:
            b = sides.pop()
            if any(self._reaches([b], t) for t in runs):
                return b
        return None

    def _toward(self, bi: int, succ: list[int], run: list, left: int, after: list | None = None,
                together: bool = False) -> int | None:
        """The successor on the way to a SASS block that can take `run`, of whose key `left` units are left in
        this trip of its loop: one that does no other work on the way first, then the largest U that fits
        (ptxas's unrolled code checks the trips left) -
        but for a warp whose lanes go `together` (none parted: every lane the same trips), while the work
        left is no whole number of the smallest unrolled body's trips, one that fits in what is over
        (ptxas runs a loop's remainder trips first, then its unrolled bodies) - then one that
        also passes a block for the run `after` (ptxas moved a store of the next step before the end of
        this one), then the cheapest, then the loop's back edge."""
        key = run[0]
        cands = self.consumers.get(key, [])
        fit = [a for a in cands if self.trip[a] <= left] or cands
        trips = sorted({self.trip[a] for a in fit})
        big = max(fit, key=lambda a: self.trip[a]) if fit else None  # the largest: an unrolled body, in a loop
        over = left % trips[1] if together and big in self._looped and len(trips) > 1 and left > 0 else 0
        first = {a for a in fit if self.trip[a] <= over and big in self._ahead(a)}  # remainder code before it
        nxt = self.consumers.get(after[0], []) if after else []
        best, best_key = None, None
        for s in succ:
            covers = any(self.dist[a].get(s, _AVOID) < _AVOID for a in nxt)
            ks = self.matches[s].key
            for a in fit:
                c = self.dist[a].get(s)
                if c is None:
                    continue
                if s != bi and ks not in (None, key) and a not in self._around_of(bi, s):
                    c += _AVOID  # s does other work and its way to `a` comes back here: another trip first
                k = (c >= _AVOID, bool(first) and a not in first, -self.trip[a], not covers, c, s > bi, s)
                if best_key is None or k < best_key:
                    best, best_key = s, k
        return best
