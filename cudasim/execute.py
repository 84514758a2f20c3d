"""SIMT execution of a PTX entry function over whole batches of blocks at once.

Every lane of every block in a batch is one element of the register arrays, and the batch
runs as one wide SIMT group: the divergence stack holds (pc, mask, reconvergence pc)
entries; a branch that splits the active lanes pushes both sides and reconverges at the
branch's immediate post-dominator. Seen from any one warp this is exactly the warp-level
IPDOM stack (the same instructions, in the same order, with the same lane masks); only
the interleaving between warps differs, which a race-free kernel cannot observe (between
barriers, the race checker looks for exactly the accesses whose order would matter).

A spin-wait on another block (a lock, a flag a block before it sets) would run forever in
one SIMT group, since the waiters run first. So a loop that talks to memory other blocks
write (atomics, volatile or acquire loads), once it has gone round `_SPIN` times with the
same lanes, yields: the blocks with no lane in it run to their end first, each of their
warps on the same path as before, so only the order between blocks changes, as on a GPU.

Blocks are independent, so a large grid is cut into batches that fit in memory. Every
instruction is decoded once, through the opcode table, into a closure; straight-line code
runs regrouped (`fusion`); branches and exits are executed here.
"""
from __future__ import annotations

import hashlib
import time
from contextlib import contextmanager

import numpy as np

from . import progress
from .barrier import live_lanes
from .calls import MAX_DEPTH, Runtime
from .cfg import EXIT, build_cfg
from .context import DecodeContext
from .errors import LaunchError, Runaway, SimulationError, Stalled, UnsupportedInstruction
from .fusion import Fusion
from .hazards import Finding, Hazards
from .memory import GlobalMemory
from .opcodes import OPCODES, decode
from .operands import Clock
from .ptx import Function, Module
from .spaces import Layout
from .state import Batch, Entry, Mask, new_batch
from .trace import Recorder, Trace

__all__ = ["Program", "Finding", "FUSE", "MAX_STEPS"]

_NORMAL, _BRA, _EXIT, _CALL, _RET, _BAR = 0, 1, 2, 3, 4, 5
_RETURN = -2  # the reconvergence pc of a call's frame: it ends when its lanes have returned
MAX_STEPS = 1_000_000_000  # warp instructions one launch may simulate unless told otherwise (max_steps)
_FLOOR = 128  # an instruction counts against max_steps as every warp simulated beside it, at least this many,
# however few it runs for: its cost to simulate (numpy over the batch's lanes, after a fixed cost) has that shape,
# so one spinning warp stops in seconds, not in the hour 10^9 steps of it took, and so does one lane among many
_SPIN = 16  # times a communicating loop goes round with the same lanes before the blocks not in it run first
_POLL = 1 << 16  # warp instructions between two looks at the clock, within a time_limit
_DEADLINE: list[tuple[float, float, str]] = []  # (perf_counter deadline, seconds, what is limited): time_limit's


class TimeLimit(SimulationError):
    """A run inside `time_limit` went past it."""


@contextmanager
def time_limit(seconds: float, what: str = "the run"):
    """Every launch simulated inside stops (TimeLimit, naming the line its warps are at) once `seconds` have passed
    since entering, even within one block that never ends (cudasim.check --timeout); looked at every _POLL warp
    instructions."""
    _DEADLINE.append((time.perf_counter() + seconds, seconds, what))
    try:
        yield
    finally:
        _DEADLINE.pop()


def _past_time_limit(ins) -> None:
    if _DEADLINE and time.perf_counter() > _DEADLINE[-1][0]:
        _, seconds, what = _DEADLINE[-1]
        raise TimeLimit(f"{what} ran past its time limit of {seconds:g} s with warps still at {ins.where()} "
                        f"(`{ins.text}`): an endless loop, a spin-wait on another block or warp (the simulator may run "
                        f"the waiter first), or a launch too large (try a smaller one); --max-steps N stops a loop "
                        f"sooner, naming its line")
FUSE = True  # run straight-line code regrouped (cudasim.fusion); read when a Program is built; tests turn it off


class Program:
    """An entry function decoded for execution: layout, CFG, one closure per instruction, the
    regrouped straight-line runs; `launch` runs a grid of it."""

    def __init__(self, module: Module, fn: Function, gmem: GlobalMemory, symbols: dict[str, int],
                 checked: bool = False):
        self.module, self.fn, self.gmem = module, fn, gmem
        self.reg_types = dict(fn.regs)
        self.checker = None
        if checked:  # cudasim.check sees every access and sync; a separate program, so the plain one pays nothing
            from .check.engine import Checker
            self.checker = Checker(module, fn, symbols)
            self.layout = self.checker.layout
        else:
            self.layout = Layout(module, fn, symbols)
        self.cfg = build_cfg(fn)
        body = fn.body
        link = fn.linkage
        rows = [OPCODES.get(ins.base) for ins in body]
        returns = frozenset(pc for pc, ins in enumerate(body) if ins.base == "ret" and link and not link.in_entry(pc))
        exits = frozenset(pc for pc, (ins, r) in enumerate(zip(body, rows))
                          if r is not None and r.exits and not r.refused and ins.guard is None and pc not in returns)
        self.hazards = Hazards(body)
        self.recorder = Recorder()
        self.runtime = Runtime(gmem)
        self.ctx = DecodeContext(self.reg_types, self.layout, Clock(), self.hazards, self.recorder, exits, link,
                                 self.runtime)
        self.ops: list = []
        self.kinds: list[int] = []
        self.guards: list[tuple[str | None, bool]] = [(ins.guard, ins.guard_neg) for ins in body]
        self.targets: list[int] = []
        for pc, ins in enumerate(body):
            self.ops.append(_decode(ins, pc, self.ctx, link))
            r = rows[pc]
            if r is not None and r.calls:  # a function of the body: the run loop pushes its frame; the runtime's: a closure
                self.kinds.append(_CALL)
                self.targets.append(-1 if self.ops[-1] is not None else link.start(link.callees[pc]))
                continue
            if self.checker is not None and ins.base == "trap":  # a finding: its lanes end, as a call's may
                self.kinds.append(_CALL)
                self.targets.append(-1)
                continue
            runs_here = r is None or r.refused or r.decode is not None  # None: refused when it runs
            if runs_here and ins.base in ("bar", "barrier") and not ins.has("warp") and self.ops[-1] is not None:
                self.kinds.append(_BAR)  # a block barrier: where threads of a block run apart, some wait
                self.targets.append(-1)
                continue
            self.kinds.append(_NORMAL if runs_here else _BRA if r.branch else _RET if pc in returns else _EXIT)
            self.targets.append(fn.labels[ins.operands[0].name] if self.kinds[-1] == _BRA else -1)
        self.saves = {pc: self._saved(link.saves[link.callees[pc]]) for pc, t in enumerate(self.targets)
                      if self.kinds[pc] == _CALL and t >= 0 and link.callees[pc] in link.saves}
        if self.checker is not None:
            self.checker.instrument(self.ops, self.ctx)
        self.spins = _spin_loops(body, self.kinds, self.targets)
        self.leaders = {blk.start for blk in self.cfg.blocks}
        self.fusion = Fusion(body, self.ops, self.guards, [k == _NORMAL for k in self.kinds], self.leaders,
                             self.ctx, FUSE, fuse_memory=self.checker is None)
        self.runs = self.fusion.runs  # pc -> (end pc, steps, instructions): straight-line code from pc
        self._straight = self.fusion.run
        for blk in self.cfg.blocks:  # scheduled at decode, like the closures
            if self.kinds[blk.start] == _NORMAL:
                self._straight(blk.start)

    def _saved(self, owned: tuple[tuple[str, ...], tuple[str, ...]]) -> tuple[tuple[str, ...], np.ndarray]:
        """What a call into a recursive function saves: its registers, and the byte offsets of its locals and
        parameters in a lane's local memory."""
        regs, syms = owned
        lay = self.layout
        sizes = {d.name: d.size for d in self.fn.locals + (self.fn.linkage.slots if self.fn.linkage else [])}
        offs = [np.arange(lay.local_offsets.get(s, lay.slot_offsets.get(s, 0)), lay.local_offsets.get(
            s, lay.slot_offsets.get(s, 0)) + sizes[s]) for s in syms if s in sizes]
        return regs, np.concatenate(offs) if offs else np.zeros(0, np.int64)

    def _call(self, b: Batch, stack: list[Entry], pc: int, m: Mask) -> None:
        """Lanes `m` call the function at the call `pc`: a frame that ends when they have all returned."""
        depth = sum(1 for e in stack if e.frame is not None)
        if depth >= MAX_DEPTH:
            raise SimulationError(f"{self.fn.body[pc].where()}: calls nested {MAX_DEPTH} deep: runaway recursion? "
                                  f"(the GPU's stack, cudaLimitStackSize, would overflow first)")
        frame = (m.mask.copy(), None)
        save = self.saves.get(pc)
        if save is not None:
            regs, offs = save
            local = _lanes_local(b)[:, offs].copy() if len(offs) else None
            frame = (m.mask.copy(), ({r: b.regs[r].copy() for r in regs}, offs, local))
        stack.append(Entry(self.targets[pc], m, _RETURN, frame))

    @staticmethod
    def _returned(b: Batch, e: Entry) -> None:
        """A frame's lanes are back in the caller: a recursive function's activation is restored for them."""
        mask, saved = e.frame
        if saved is None:
            return
        regs, offs, local = saved
        for r, v in regs.items():
            b.regs[r][mask] = v[mask]
        if local is not None:
            view = _lanes_local(b)
            rows = np.flatnonzero(mask)
            view[rows[:, None], offs] = local[rows]

    @staticmethod
    def _return(stack: list[Entry], lanes: np.ndarray) -> None:
        """`lanes` return: they leave every entry of the innermost frame, the frame included."""
        i = len(stack) - 1
        while stack[i].frame is None:
            i -= 1
        for e in stack[i:]:
            if (e.m.mask & lanes).any():
                e.m = Mask.of(e.m.mask & ~lanes)

    @property
    def static_shared(self) -> int:
        return self.layout.static_shared

    @property
    def local_size(self) -> int:
        return self.layout.local_size

    def run_batch(self, b: Batch, stats: dict) -> None:
        body = self.fn.body
        n = len(body)
        kinds, guards, targets, ipdom, runs = self.kinds, self.guards, self.targets, self.cfg.ipdom, self.runs
        stack = [Entry(0, Mask.of(b.valid), EXIT)]
        b.stack = stack
        regs = b.regs
        ti = wi = ci = 0  # thread and warp instructions; ci: steps counted against the limit (_FLOOR)
        W = b.L // 32
        cost = max(W, _FLOOR)  # what one instruction counts against the limit
        counts = stats["pc_runs"]  # warps entering each straight-line run or control instruction, by its pc
        watch = b.profiled  # [(batch block index, path)] for the blocks whose warps are followed
        limit = stats["max_steps"] - stats["steps"]
        shown = progress.shown()  # a progress line counts the warp instructions, every _POLL steps
        look = min(_POLL, limit) if _DEADLINE or shown else limit  # the next step count to look at the limits at
        told = 0  # warp instructions the progress line has been told of
        spins, spun, rounds, seen = self.spins, None, 0, None  # the entry going round a communicating loop, how
        # often, and its lanes' registers the last time round
        per_warp, every = np.zeros(W, np.int64), 0  # warp instructions each warp issued: apart, and all together
        turns: set[bytes] = set()  # the waiting lanes and their registers at each yield
        try:
            while stack:
                e = stack[-1]
                if ci > look:
                    if ci > limit:
                        self._runaway(b, e, stats["max_steps"])
                    _past_time_limit(self.fn.body[min(max(e.pc, 0), n - 1)])  # a block that runs long
                    if shown:
                        progress.pulse(wi - told)
                        told = wi
                    look = min(ci + _POLL, limit)
                if e.parked and e.m.count:
                    self._parked_top(b, stack)
                    continue
                pc = e.pc
                m = e.m
                reconv = e.reconv
                if pc == reconv or m.count == 0:
                    stack.pop()
                    if e.frame is not None:
                        self._returned(b, e)
                    continue
                if pc >= n or pc < 0:
                    if reconv == _RETURN:
                        raise SimulationError(f"lanes of a call reached no `ret` ({self.fn.name})")
                    self._kill(b, stack, m.mask)
                    continue
                cnt, wc = m.count, _warps(m, W)
                bits = None if m.full else _warp_bits(m, W)  # the warps with an active lane
                while kinds[pc] == _NORMAL:  # straight-line code: no stack work between instructions
                    run = runs.get(pc) or self._straight(pc)
                    end, steps, k = run
                    counts[pc] = counts.get(pc, 0) + wc
                    if watch:
                        _follow(watch, m, b.lpb, pc)
                    ti += cnt * k
                    wi += wc * k
                    ci += cost * k
                    if bits is None:
                        every += k
                    else:
                        np.add(per_warp, k, out=per_warp, where=bits)
                    for op, g, neg in steps:
                        if g is None:
                            op(b, m)
                        else:
                            p = regs[g]
                            gm = m.mask & ~p if neg else m.mask & p
                            if gm.any():
                                op(b, Mask.of(gm))
                    pc = end
                    if pc == reconv or pc >= n:
                        break
                e.pc = pc
                if pc == reconv or pc >= n:
                    continue
                ti += cnt
                wi += wc
                ci += cost
                if bits is None:
                    every += 1
                else:
                    np.add(per_warp, 1, out=per_warp, where=bits)
                counts[pc] = counts.get(pc, 0) + wc
                if watch:
                    _follow(watch, m, b.lpb, pc)
                k = kinds[pc]
                g, neg = guards[pc]
                if k == _BRA:
                    tgt = targets[pc]
                    if g is None:
                        e.pc = tgt
                    else:
                        p = regs[g]
                        taken = m.mask & ~p if neg else m.mask & p
                        nt = m.mask & ~taken
                        if not taken.any():
                            e.pc = pc + 1
                            continue
                        if nt.any():
                            if watch:
                                _parted(b, watch, taken, nt, pc)
                            r = ipdom[pc]
                            e.pc = r
                            stack.append(Entry(pc + 1, Mask.of(nt), r))
                            stack.append(Entry(tgt, Mask.of(taken), r))
                            continue
                        e.pc = tgt
                    if pc in spins:
                        if spun is not e:
                            spun, rounds, seen = e, 0, None
                        rounds += 1
                        if rounds == _SPIN:
                            turn = hashlib.blake2b(np.packbits(e.m.mask).tobytes() + _state(b, e.m) +
                                                   pc.to_bytes(4, "little")).digest()
                            if turn in turns:  # waiting as it waited before: blocks that take turns, none going on
                                self._stalled(b, e, pc, stats)
                            turns.add(turn)
                            moved = _yield(b, stack)
                            if moved:
                                stats["yields"] += 1
                                spun = None
                                if moved == _WITHIN and b.waiting is None:  # from now, lanes may park at barriers
                                    b.waiting = np.zeros(b.L, dtype=bool)
                                if moved == _WITHIN:  # warps or threads of a block went apart: each may be parted
                                    for j, _ in watch:
                                        b.parted.setdefault(j, {})[-1] = (1 << (b.lpb // 32)) - 1
                            elif moved is None:  # inside a call: left to the step limit
                                rounds = -(1 << 62)
                        elif rounds > _SPIN and (seen is not None or (rounds & (rounds - 1)) == 0):
                            # nothing else can run: the same registers two rounds running are the same for ever
                            # (looked at from round 32, then 64, 128, ...: a loop that goes on has its cost)
                            now = _state(b, e.m)
                            if now == seen:
                                self._stalled(b, e, pc, stats)
                            seen = None if seen is not None else now
                    continue
                if k != _EXIT:  # a barrier, a call or a return, for the lanes its guard lets through
                    lanes = m.mask if g is None else (m.mask & ~regs[g] if neg else m.mask & regs[g])
                    e.pc = pc + 1
                    if not lanes.any():
                        continue
                    if k == _BAR and b.waiting is not None:  # threads of a block apart: some may wait
                        self._arrive(b, stack, pc, lanes)
                    elif k == _RET:
                        self._return(stack, lanes.copy())
                    elif k == _CALL and self.targets[pc] >= 0:
                        self._call(b, stack, pc, m if g is None else Mask.of(lanes))
                    else:  # a barrier all of a block reaches at once, a call into the runtime
                        ended = self.ops[pc](b, m if g is None else Mask.of(lanes))
                        if ended is not None:  # lanes the runtime stopped (cudasim.check: a failed assert)
                            self._kill(b, stack, ended)
                    continue
                # exit
                if g is None:
                    self._kill(b, stack, m.mask)
                else:
                    p = regs[g]
                    dead = m.mask & ~p if neg else m.mask & p
                    e.pc = pc + 1
                    if dead.any():
                        self._kill(b, stack, dead)
        finally:  # counted even where the batch stops (a fault, the limit): what it ran is spent
            if shown:
                progress.pulse(wi - told)
            stats["thread_instructions"] += ti
            stats["warp_instructions"] += wi
            stats["steps"] += ci
            longest = (per_warp + every).reshape(b.nb, W // b.nb).max(1)  # each block's longest warp
            j = int(longest.argmax())
            if longest[j] > stats["heaviest_block"][1]:
                stats["heaviest_block"] = (int(b.block_ids[j]), int(longest[j]))

    def pc_counts(self, run_counts: dict[int, int]) -> np.ndarray:
        """(n,) int64 warp instructions executed at each pc (a guarded-off instruction still issues),
        from the counts kept per straight-line run: counting runs, not instructions, keeps the loop fast."""
        out = np.zeros(len(self.fn.body), dtype=np.int64)
        for pc, w in run_counts.items():
            end = self.runs[pc][0] if self.kinds[pc] == _NORMAL else pc + 1
            out[pc:end] += w
        return out

    def run_end(self, pc: int) -> int:
        """One past the last instruction of the straight-line run (or control instruction) at `pc`."""
        return self.runs[pc][0] if self.kinds[pc] == _NORMAL else pc + 1

    def _arrive(self, b: Batch, stack: list[Entry], pc: int, lanes: np.ndarray) -> None:
        """`lanes` (of the top entry) reach the block barrier at `pc` while threads of a block run apart: those
        of a block whose every live thread is here or parked at a barrier pass it, with the parked ones;
        those of a block with threads still running elsewhere park, their stack moved below the others. A
        block's threads apart within one stack are a divergent barrier, which the barrier's closure reports."""
        parked = b.waiting
        live = live_lanes(b, stack[:-1], lanes, self.ctx.exits)
        missing = live & ~lanes & ~parked & _blocks_with(b, lanes)
        if missing.any():
            together = np.zeros(b.L, dtype=bool)  # the lanes of the stack `lanes` are in (its entries hold them)
            for x in stack[:-1]:
                if (x.m.mask & lanes).any():
                    together |= x.m.mask
            if (missing & together).any() or any(x.frame is not None for x in stack):
                self.ops[pc](b, Mask.of(lanes))
                return
        short = _blocks_with(b, missing)
        go, wait = lanes & ~short, lanes & short
        if go.any():
            freed = parked & _blocks_with(b, go)
            self.ops[pc](b, Mask.of(go | freed))
            self._unpark(stack, freed, parked)
        if wait.any():
            moved = _take(stack, wait)
            moved[-1].pc, moved[-1].parked = pc, True
            stack[0:0] = moved
            parked |= wait

    def _parked_top(self, b: Batch, stack: list[Entry]) -> None:
        """The top entry waits at a barrier: the blocks whose live threads are all parked (the others have
        exited) pass it; otherwise its stack goes below the others, whose threads have yet to arrive."""
        parked, e = b.waiting, stack[-1]
        live = live_lanes(b, stack, np.zeros(b.L, dtype=bool), self.ctx.exits)
        done = parked & ~_blocks_with(b, live & ~parked)
        if done.any():
            self.ops[e.pc](b, Mask.of(done))
            self._unpark(stack, done, parked)
            return
        moved = _take(stack, e.m.mask.copy())
        stack[0:0] = moved

    @staticmethod
    def _unpark(stack: list[Entry], freed: np.ndarray, parked: np.ndarray) -> None:
        """The parked lanes `freed` have passed their barrier: they go on from the instruction after it."""
        if not freed.any():
            return
        parked &= ~freed
        for x in [x for x in stack if x.parked and (x.m.mask & freed).any()]:
            if (x.m.mask & ~freed).any():  # some of its lanes go on: a stack of their own
                moved = _take(stack, x.m.mask & freed)
                x = moved[-1]
                stack[0:0] = moved
            x.parked = False
            x.pc += 1

    def _runaway(self, b: Batch, e: Entry, max_steps: int) -> None:
        at = self._where(b, e)
        raise Runaway(f"the launch passed its limit of {max_steps:,} warp instructions (an instruction counts as "
                      f"every warp simulated beside it, at least {_FLOOR}, its cost to simulate): an endless loop, or "
                      f"a spin-wait that nothing simulated will end? {at}; a kernel that needs more takes a higher "
                      f"limit (max_steps=, --max-steps)", at=at)

    def _where(self, b: Batch, e: Entry) -> str:
        ins = self.fn.body[min(max(e.pc, 0), len(self.fn.body) - 1)]
        lane = int(e.m.idx[0]) if e.m.count else 0
        t, blk = lane % b.lpb, int(b.block_ids[lane // b.lpb])
        bx, by, _ = b.block
        gx, gy, _ = b.grid
        return (f"{e.m.count:,} thread{' was' if e.m.count == 1 else 's were'} at {ins.where()} (`{ins.text}`), "
                f"first thread ({t % bx},{t // bx % by},{t // (bx * by)}) of block ({blk % gx},{blk // gx % gy},"
                f"{blk // (gx * gy)})")

    def _stalled(self, b: Batch, e: Entry, pc: int, stats: dict) -> None:
        at = self._where(b, e)
        run, total = stats["blocks_run"], stats["blocks_total"]
        which = (f"only {run:,} of the grid's {total:,} blocks are simulated here, so it may wait on one that is not"
                 if run < total else f"it may wait on a block of a later batch (blocks run {b.nb:,} at a time, in "
                 f"order), or in a deadlock" if b.nb < total else "a deadlock: no thread simulated can end it")
        if b.waiting is not None and b.waiting.any():
            x = next(x for x in b.stack if x.parked and x.m.count)
            which += (f"; {int(b.waiting.sum()):,} threads wait at the barrier at {self.fn.body[x.pc].where()}, which a "
                      f"thread of their block must reach first")
        raise Stalled(f"a spin-wait that nothing simulated will end: {at}, going round the loop ending at "
                      f"{self.fn.body[pc].where()} with the same registers as before, while the other blocks of "
                      f"their batch wait too; {which}", at=at)

    @staticmethod
    def _kill(b: Batch, stack: list[Entry], dead: np.ndarray) -> None:
        dead = dead.copy()
        b.alive &= ~dead
        for e in stack:
            if (e.m.mask & dead).any():
                e.m = Mask.of(e.m.mask & ~dead)

    def launch(self, params: np.ndarray, grid: tuple[int, int, int], block: tuple[int, int, int],
               dynamic_shared: int, run_blocks=None, trace_blocks=None, trace: bool = True, check: bool = True,
               lanes_per_batch: int = 1 << 15, follow_blocks=None,
               max_steps: int = MAX_STEPS) -> tuple[Trace, dict, list[Finding]]:
        """Run the grid (or the blocks `run_blocks`), tracing `trace_blocks` (default: those run); for each of
        `follow_blocks` (linear indices among those run), the path its warps took (stats["followed"]:
        {block: [(pc of a run or control instruction, bit mask of the warps entering it), ...]}) and the warps
        whose lanes a branch sent both ways (stats["followed_parted"]: {block: {branch pc: bit mask}})."""
        gx, gy, gz = grid
        total = gx * gy * gz
        ids = None if run_blocks is None else np.unique(np.asarray(run_blocks, np.int64))  # None: all, made a batch
        # at a time (a 2^31-block grid's ids alone would be 16 GiB)
        if ids is not None and len(ids) and (ids.min() < 0 or ids.max() >= total):
            raise LaunchError(f"run_blocks names block {int(ids.max())}, but the grid has {total} blocks")
        n_run = total if ids is None else len(ids)
        traced = None  # None with trace: every block run is traced
        if trace and trace_blocks is not None:
            traced = np.unique(np.asarray(trace_blocks, np.int64))
        threads = block[0] * block[1] * block[2]
        lpb = (threads + 31) // 32 * 32
        shared_size = self.layout.shared_size(dynamic_shared)
        per_batch = max(1, lanes_per_batch // lpb)
        self.recorder.reset()
        self.runtime.start_launch()
        self.hazards.start_launch()
        chk = self.checker
        if chk is not None:
            chk.start_launch(self.gmem, grid, block, lpb, n_run)
        stats = {"thread_instructions": 0, "warp_instructions": 0, "blocks_run": int(n_run),
                 "blocks_total": int(total), "pc_runs": {}, "max_steps": int(max_steps), "steps": 0,
                 "yields": 0, "heaviest_block": (-1, -1)}  # (block, its longest warp's warp instructions)
        follow = set() if follow_blocks is None else {int(x) for x in follow_blocks}
        followed: dict[int, list[tuple[int, int]]] = {}
        parted: dict[int, dict[int, int]] = {}  # followed block -> {branch pc: its warps whose lanes it parted}
        t0 = time.perf_counter()
        with np.errstate(all="ignore"):
            for s in range(0, n_run, per_batch):
                chunk = np.arange(s, min(s + per_batch, total), dtype=np.int64) if ids is None else ids[s:s + per_batch]
                b = new_batch(self.reg_types, chunk, grid, block, params, self.gmem, shared_size, self.local_size,
                              dynamic_shared)
                if trace and traced is None:
                    b.traced_warps = np.ones(len(chunk) * (lpb // 32), dtype=bool)
                elif traced is not None:
                    tw = np.isin(chunk, traced)
                    b.traced_warps = np.repeat(tw, lpb // 32) if tw.any() else None
                self.hazards.start_batch(b, check and chk is None and bool(self.static_shared or dynamic_shared))
                if chk is not None:
                    chk.start_batch(b)
                b.profiled = [(j, []) for j, bid in enumerate(chunk) if int(bid) in follow]
                try:
                    self.run_batch(b, stats)
                except SimulationError as e:
                    e.steps = stats["steps"]  # what the launch spent before it stopped (steps counted as max_steps)
                    raise
                if chk is not None:
                    chk.end_batch(b)
                for j, path in b.profiled:
                    followed[int(chunk[j])] = path
                    parted[int(chunk[j])] = b.parted.get(j, {})
        stats["wall_seconds"] = time.perf_counter() - t0
        stats["printf"] = self.runtime.output()
        stats["pc_warp_instructions"] = self.pc_counts(stats.pop("pc_runs"))
        if follow:
            stats["followed"] = followed
            stats["followed_parted"] = parted
        stats["thread_instructions_per_second"] = stats["thread_instructions"] / max(stats["wall_seconds"], 1e-9)
        traced_blocks = (None if traced is None or (run_blocks is None and trace_blocks is None)
                         else [int(x) for x in traced])
        tr = self.recorder.build(self.fn.body, grid, block, traced_blocks)
        return tr, stats, chk.end_launch() if chk is not None else list(self.hazards.findings.values())


def _spin_loops(body, kinds: list[int], targets: list[int]) -> frozenset[int]:
    """The backward branches whose loop talks to memory that other blocks write: an atomic, or a volatile,
    relaxed or acquire load (a plain load in a spin-wait is hoisted out of it by the compiler)."""
    out = set()
    for pc, (k, t) in enumerate(zip(kinds, targets)):
        if k == _BRA and 0 <= t <= pc and any(
                ins.base == "atom" or (ins.base == "ld" and ins.has("volatile", "relaxed", "acquire"))
                for ins in body[t:pc + 1]):
            out.add(pc)
    return frozenset(out)


def _state(b: Batch, m: Mask) -> bytes:
    """The registers of lanes `m`, as bytes (NaN compares equal to itself)."""
    return b"".join(np.ascontiguousarray(v[m.idx]).tobytes() for v in b.regs.values())


_WITHIN = 2  # what _yield returns where it moved threads of a block apart from their block's waiting ones


def _yield(b: Batch, stack: list[Entry]) -> bool | int | None:
    """Threads with no lane in the stack's top entry (a loop going round) run first, to their end or to a
    barrier: the blocks with no lane in it; where every block has one, the warps with none (as a GPU schedules
    warps apart), else the threads (as Volta's independent thread scheduling lets them). Their lanes leave
    every entry for copies of the entries above the stack (`_take`), so each resumes where it was, on the same
    path. True: blocks moved; _WITHIN: threads of a block moved; False: nothing else can run; None: inside a
    call, where it does not (a frame's saved state is one per lane set)."""
    if any(x.frame is not None for x in stack):
        return None
    top = stack[-1].m.mask
    idle = b.alive & ~top if b.waiting is None else b.alive & ~top & ~b.waiting
    free = ~_blocks_with(b, top) & idle
    how = True
    if not free.any():
        free = np.repeat(~top.reshape(-1, 32).any(1), 32) & idle
        if not free.any():
            free = idle
        how = _WITHIN
    if not free.any():
        return False
    stack.extend(_take(stack, free))
    return how


def _blocks_with(b: Batch, lanes: np.ndarray) -> np.ndarray:
    """(L,) bool: the lanes of every block of the batch that has a lane among `lanes`."""
    return np.repeat(lanes.reshape(b.nb, b.lpb).any(1), b.lpb)


def _take(stack: list[Entry], lanes: np.ndarray) -> list[Entry]:
    """`lanes` leave every entry of the stack for copies of those entries, in the same order: a stack of their
    own, to be put above or below the others (the lanes of one copy never meet the others' again)."""
    out = []
    for x in stack:
        o = x.m.mask & lanes
        if o.any():
            out.append(Entry(x.pc, Mask.of(o), x.reconv, parked=x.parked))
            x.m = Mask.of(x.m.mask & ~lanes)
    return out


def _lanes_local(b: Batch) -> np.ndarray:
    """(lanes, bytes) view of the batch's local memory (the checker keeps a sink after it)."""
    return b.local[:b.L * b.local_size].reshape(b.L, b.local_size)


def _decode(ins, pc: int, ctx: DecodeContext, link) -> "Callable | None":
    """The instruction's closure; an unmodelled one refuses at decode, except in a called function, where it
    refuses when it runs: the math library's slow paths (huge arguments of sin(double)) are rarely reached."""
    if link is None or link.in_entry(pc):
        return decode(ins, pc, ctx)  # refuses an opcode with no row
    try:
        return decode(ins, pc, ctx)
    except UnsupportedInstruction as e:
        def refuse(b: Batch, m: Mask, e=e) -> None:
            raise e
        return refuse


def _follow(watch: list, m: Mask, lpb: int, pc: int) -> None:
    """For each followed block, note that its warps with an active lane enter the run (or control
    instruction) at `pc`: the path, as (pc, bit mask of warps) in execution order."""
    for j, path in watch:
        bits = m.mask[j * lpb:(j + 1) * lpb].reshape(-1, 32).any(1)
        if bits.any():
            path.append((pc, int.from_bytes(np.packbits(bits, bitorder="little").tobytes(), "little")))


def _parted(b: Batch, watch: list, taken: np.ndarray, other: np.ndarray, pc: int) -> None:
    """For each followed block, note the warps whose lanes the branch at `pc` sent both ways (b.parted:
    {block in batch: {pc: bit mask of warps}}; pc -1: warps or threads that went apart at a spin-wait)."""
    for j, _ in watch:
        sl = slice(j * b.lpb, (j + 1) * b.lpb)
        both = taken[sl].reshape(-1, 32).any(1) & other[sl].reshape(-1, 32).any(1)
        if both.any():
            at = b.parted.setdefault(j, {})
            at[pc] = at.get(pc, 0) | int.from_bytes(np.packbits(both, bitorder="little").tobytes(), "little")


def _warp_bits(m: Mask, W: int) -> np.ndarray:
    """(W,) bool: the warps with an active lane (kept on the mask, which runs many instructions)."""
    bits = getattr(m, "_wbits", None)
    if bits is None:
        bits = m._wbits = m.mask.reshape(W, 32).any(1)
    return bits


def _warps(m: Mask, W: int) -> int:
    w = getattr(m, "_warps", None)
    if w is None:
        w = W if m.full else int(_warp_bits(m, W).sum())
        m._warps = w
    return w
