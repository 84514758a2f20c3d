"""Straight-line code run regrouped: independent instructions of one form run as one numpy op.

A basic block's instructions up to its next control instruction form a run, built once at
decode: `schedule.regroup` orders them in groups (each thread's program order kept), and a
group of at least `_MIN_FUSED` members becomes one closure: register-only instructions run the
first member's closure over the members' registers stacked (G, lanes); loads, and adjacent
stores, of one access form run with their addresses stacked. What may move and what may be
fused comes from the opcode table (pure, fusable, access); everything else is a fence.
"""
from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from .arith import round_to_odd
from .context import DecodeContext
from .errors import MemoryFault
from .memory import HEAP_BASE
from .opcodes import OPCODES
from .operands import Op, dtype_of, reader, scatter
from .ptx import Instruction, Operand
from .schedule import Step, regroup
from .spaces import STATE_MEMORIES, read, space_of, write
from .state import Batch, Mask

Run = tuple[int, list, int]  # (end pc, steps: (closure, guard, negated), instructions)
_ORDERED = frozenset({"volatile", "relaxed", "acquire", "release", "mmio", "cv"})  # not plain accesses
_MIN_FUSED = 4  # below this, stacking the operands costs more than it saves


class _Stacked:
    """The view of a batch a fused group's first closure runs on: its registers stacked (G, lanes)."""

    __slots__ = ("regs", "L")

    def __init__(self, regs: dict, L: int):
        self.regs, self.L = regs, L


class Fusion:
    """The runs of one program's straight-line code; `run(pc)` builds (and caches) the run at pc."""

    def __init__(self, body: Sequence[Instruction], ops: Sequence[Op | None],
                 guards: Sequence[tuple[str | None, bool]], straight: Sequence[bool], leaders: set[int],
                 ctx: DecodeContext, fuse: bool, fuse_memory: bool = True):
        self.body, self.ops, self.guards, self.straight, self.leaders = body, ops, guards, straight, leaders
        self.ctx, self.reg_types, self.fuse = ctx, ctx.reg_types, fuse
        self.fuse_memory = fuse_memory  # False: loads and stores run one by one, each through layout.locate
        self.layout, self.hazards, self.recorder = ctx.layout, ctx.hazards, ctx.recorder
        self.runs: dict[int, Run] = {}

    def run(self, pc: int) -> Run:
        """(end, steps, instruction count) for the straight-line code from `pc` to the next
        control instruction or block boundary; steps are (closure, guard, negated). Cached."""
        n = len(self.straight)
        leaders = self.leaders
        end = pc
        while end < n and self.straight[end] and (end == pc or end not in leaders):
            end += 1
        pcs = list(range(pc, end))
        groups = regroup([self._step(i) for i in pcs]) if self.fuse else [[i - pc] for i in pcs]
        steps = []
        for grp in _adjacent_stores(groups, [self._store_signature(i) for i in pcs]):
            members = [pcs[i] for i in grp]
            if len(members) < _MIN_FUSED or (not self.fuse_memory and OPCODES[self.body[members[0]].base].access):
                steps.extend((self.ops[i], *self.guards[i]) for i in members)
            elif OPCODES[self.body[members[0]].base].access is not None:
                steps.append((self._fuse_memory(members), None, False))
            else:
                steps.append((self._fuse_alu(members), None, False))
        run = (end, steps, end - pc)
        self.runs[pc] = run
        return run

    def _regs_of(self, o: Operand) -> list[str]:
        if o.kind == "reg" or (o.kind == "sym" and o.name in self.reg_types):
            return [o.name]
        if o.kind in ("vec", "not"):
            return [x for it in o.items for x in self._regs_of(it)]
        if o.kind == "mem" and o.base is not None:
            return self._regs_of(o.base)
        return []

    def _step(self, pc: int) -> Step:
        """The scheduler's view of one instruction: what it reads and writes, and whether it may
        move (pure instructions, plain loads and stores) or run fused with others like it."""
        ins = self.body[pc]
        row = OPCODES.get(ins.base)
        if row is None:  # refused when it runs (cudasim.execute: an unmodelled instruction of a called function)
            return Step(None, frozenset(), frozenset(), fence=True)
        space = space_of(ins)
        plain = row.access is not None and not ins.has(*_ORDERED) and space in STATE_MEMORIES
        clock = any(o.kind == "sreg" and ("clock" in o.name or "timer" in o.name) for o in ins.operands)
        if not (row.pure or plain) or clock or not ins.operands:
            return Step(None, frozenset(), frozenset(), fence=True)
        guard = [ins.guard] if ins.guard else []
        if row.access == "store":  # a state space is a register here: stores to it stay ordered with its loads
            reads = [x for o in ins.operands for x in self._regs_of(o)] + guard
            return Step(None, frozenset(reads), frozenset(["mem:" + space]))
        writes = self._regs_of(ins.operands[0]) + ([ins.dest_pred] if ins.dest_pred else [])
        reads = [x for o in ins.operands[1:] for x in self._regs_of(o)] + guard
        if row.access == "load":
            reads.append("mem:" + space)
        return Step(self._signature(ins), frozenset(reads), frozenset(writes))

    def _signature(self, ins: Instruction):
        """Equal for instructions one closure can run stacked; None where the instruction runs alone."""
        if ins.guard or ins.dest_pred:
            return None
        d = ins.operands[0]
        row = OPCODES[ins.base]
        if row.access == "load":
            return None if space_of(ins) == "param" else self._access_form(ins, ins.operands[1], d)
        if not row.fusable or d.kind != "reg":
            return None
        names: list[str] = []
        pattern = []
        for o in ins.operands:
            if o.kind == "reg" or (o.kind == "sym" and o.name in self.reg_types):
                if o.name not in names:
                    names.append(o.name)
                pattern.append(("r", self.reg_types[o.name], names.index(o.name)))
            elif o.kind in ("imm", "fimm", "sym"):
                pattern.append((o.kind, o.value, o.size, o.name))
            else:
                return None
        return ("alu", ins.opcode, tuple(pattern))

    def _fuse_fma32(self, pcs: list[int]):
        """A group of `fma.rn.f32 d, a, b, c` (the FFMA tile of a GEMM): each product exact in
        float64, plus c, rounded once to float32 (`arith.round_to_odd` first), as
        `arith.decode_fma`; the products of the distinct a and b rows are formed by broadcasting
        where the group is their outer product, and the sum is written in place over accumulators
        that are still the rows this group wrote last time."""
        body = self.body
        a_rows, b_rows, c_rows, dests = ([body[pc].operands[i].name for pc in pcs] for i in (1, 2, 3, 0))
        A, B, C = _rows(a_rows), _rows(b_rows), _rows(c_rows)
        G = len(pcs)
        outer = _outer(A, B)
        accumulate = c_rows == dests
        generic = self._fuse_generic(pcs)
        state: dict = {"last": None, "rows": (), "t": None, "t2": None, "s": None}

        def fused(b: Batch, m: Mask) -> None:
            if not m.full:
                return generic(b, m)
            regs = b.regs
            t = state["t"]
            if t is None or t.shape != (G, b.L):
                t = state["t"] = np.empty((G, b.L))
                state["t2"], state["s"] = np.empty((G, b.L)), np.empty((G, b.L))
            x = _stack(regs, (A[0], None, len(A[0]))).astype(np.float64)
            y = _stack(regs, (B[0], None, len(B[0]))).astype(np.float64)

            def product(out: np.ndarray) -> np.ndarray:
                if outer is not None:
                    p, q, swap = outer
                    xs, ys = (x[:, None, :], y[None, :, :]) if not swap else (x[None, :, :], y[:, None, :])
                    np.multiply(xs, ys, out=out.reshape(p, q, -1))
                else:
                    np.take(x, A[1] if A[1] is not None else np.arange(G), axis=0, out=out)
                    np.multiply(out, np.take(y, B[1] if B[1] is not None else np.arange(G), axis=0, out=state["t2"]),
                                out=out)
                return out
            product(t)
            last = state["last"]
            same = (accumulate and last is not None
                    and all(map(operator.is_, map(regs.__getitem__, dests), state["rows"])))
            c = last if same else _stack(regs, C)
            np.add(t, c, out=t)
            round_to_odd(t, lambda: product(np.empty_like(t)), c, scratch=state["s"])
            if same:
                np.copyto(last, t, casting="unsafe")  # the registers are rows of `last`: updated in place
                return
            out = t.astype(np.float32)
            rows = tuple(out)
            for name, r in zip(dests, rows):
                regs[name] = r
            state["last"], state["rows"] = out, rows
        return fused

    def _store_signature(self, pc: int):
        """Equal for stores that may run as one when the schedule puts them side by side (they then
        write in their scheduled order, which keeps program order per state space)."""
        ins = self.body[pc]
        row = OPCODES.get(ins.base)
        if row is None or row.access != "store" or ins.guard or ins.has(*_ORDERED) or space_of(ins) not in (
                "shared", "global", "local"):
            return None
        return self._access_form(ins, *ins.operands[:2])

    def _access_form(self, ins: Instruction, mem: Operand, data: Operand):
        """(base, opcode, address register type, data register types) of a load or store addressed
        by a register plus an offset with registers for data; None for any other form."""
        items = data.items if data.kind == "vec" else (data,)
        if mem.kind != "mem" or mem.base is None or mem.base.kind != "reg" or any(x.kind != "reg" for x in items):
            return None
        return (ins.base, ins.opcode, self.reg_types[mem.base.name], tuple(self.reg_types[x.name] for x in items))

    def _fuse_alu(self, pcs: list[int]):
        """One closure for a group of register-only instructions: the first member's closure runs
        on the members' registers stacked row by row (a row of one where all name the same)."""
        body = self.body
        if _is_plain_fma32(body[pcs[0]]):
            return self._fuse_fma32(pcs)
        return self._fuse_generic(pcs)

    def _fuse_generic(self, pcs: list[int]):
        body = self.body
        op0 = self.ops[pcs[0]]
        ins0 = body[pcs[0]]
        slots: dict[str, list[str]] = {}
        for pos, o in enumerate(ins0.operands):
            if o.kind in ("reg", "sym") and o.name in self.reg_types and o.name not in slots:
                slots[o.name] = [body[pc].operands[pos].name for pc in pcs]
        dest = ins0.operands[0].name
        dests = slots.pop(dest)
        sources = [(k, _rows(v)) for k, v in slots.items()]
        dest_rows = _rows(dests)
        dest_read = any(o.kind == "reg" and o.name == dest for o in ins0.operands[1:])
        G = len(pcs)
        last: list = [None, ()]  # the stacked result this closure wrote last, and its rows

        def fused(b: Batch, m: Mask) -> None:
            regs = b.regs
            stacked = {}
            for k, rows in sources:
                stacked[k] = _stack(regs, rows)
            if dest_read or not m.full:
                # accumulators (an fma tile in a loop) are still the rows written last time: no copy
                same = last[0] is not None and all(map(operator.is_, map(regs.__getitem__, dests), last[1]))
                stacked[dest] = last[0] if same else _stack(regs, dest_rows)
            else:
                stacked[dest] = np.empty((G, b.L), regs[dests[0]].dtype)
            op0(_Stacked(stacked, b.L), m)
            out = stacked[dest]
            if m.full:
                rows = tuple(out)
                for x, r in zip(dests, rows):
                    regs[x] = r
                last[0], last[1] = out, rows
            else:
                for i, x in enumerate(dests):
                    regs[x][...] = out[i]
        return fused

    def _fuse_memory(self, pcs: list[int]):
        """One closure for a group of loads (or of adjacent stores) of one form: addresses stacked,
        bounds checked once, memory read or written row by row in order; the race checks and
        trace rows are done for the group, and member by member only where there is a finding."""
        body = self.body
        ins0 = body[pcs[0]]
        store = OPCODES[ins0.base].access == "store"
        space = space_of(ins0)
        dt = dtype_of(ins0.type)
        esize = dt.itemsize
        udt = np.dtype(f"u{esize}")
        regs_of = [[x.name for x in (o.items if o.kind == "vec" else (o,))]
                   for o in (body[pc].operands[1 if store else 0] for pc in pcs)]
        n = len(regs_of[0])
        size = esize * n
        addr = [body[pc].operands[0 if store else 1] for pc in pcs]
        bases = _rows([o.base.name for o in addr])
        offs = np.array([o.offset & 0xFFFFFFFFFFFFFFFF for o in addr], np.uint64)[:, None]
        readers = [[reader(Operand("reg", name=x), ins0.type, self.ctx) for x in names] for names in regs_of]
        singles = [self.ops[pc] for pc in pcs]
        G = len(pcs)
        locate, hazards, record_group = self.layout.locate, self.hazards, self.recorder.record_group

        def fused(b: Batch, m: Mask) -> None:
            regs = b.regs
            A = _stack(regs, bases)
            A = (A.view(np.uint64) if A.itemsize == 8 else A.astype(np.uint64)) + offs  # (G, lanes)
            if m.full:
                idx, lanes = _lanes(b, 1), _lanes(b, G)
            else:
                idx = m.idx
                A = A[:, idx]
                lanes = np.tile(idx, G)
            a = A.ravel()
            try:
                if space in ("global", "const"):  # each member may use its own allocation
                    b.gmem.check_rows(A, size, f"{ins0.where()} `{ins0.text}`")
                    arr, off = b.gmem.heap, (a - np.uint64(HEAP_BASE)).astype(np.int64)
                else:
                    arr, off = locate(b, ins0, space, lanes, a, size, G if m.full else 0)
            except MemoryFault:
                for op in singles:  # in order, as unfused: the first faulting member names itself
                    op(b, m)
                raise
            na = len(idx)
            if space == "shared" and hazards.state is not None:
                hazards.check_group(b, pcs, idx, lanes, off, size, store)
            if b.traced_warps is not None:
                record_group(b, pcs, space, "st" if store else "ld", size, idx, A)
            if store:
                for k in range(G):
                    vals = np.empty((na, n), udt)
                    for i, r in enumerate(readers[k]):
                        v = r(b)
                        vals[:, i] = (v if m.full else v[idx]).view(udt)
                    write(arr, off[k * na:(k + 1) * na], esize, vals)
                return
            vals = read(arr, off, esize, n).view(dt)
            for k in range(G):
                sl = slice(k * na, (k + 1) * na)
                for i, x in enumerate(regs_of[k]):
                    v = vals[sl, i]
                    if m.full and regs[x].dtype == dt:
                        regs[x] = v
                    else:
                        scatter(b, x, idx, v)
        return fused


def _is_plain_fma32(ins: Instruction) -> bool:
    return (ins.base in ("fma", "mad") and ins.type == "f32" and not ins.has("ftz", "sat", "rz", "rm", "rp")
            and all(o.kind == "reg" for o in ins.operands[:4]))


def _outer(A: tuple, B: tuple) -> tuple[int, int, bool] | None:
    """(p, q, swapped) where row g of a group multiplies distinct row g // q of one operand by
    distinct row g % q of the other (an outer product), else None."""
    (ua, ia, g), (ub, ib, _) = A, B
    ia = np.arange(g) if ia is None else ia
    ib = np.arange(g) if ib is None else ib
    p, q = len(ua), len(ub)
    if p * q != g:
        return None
    i = np.arange(g)
    if np.array_equal(ia, i // q) and np.array_equal(ib, i % q):
        return p, q, False
    if np.array_equal(ib, i // p) and np.array_equal(ia, i % p):
        return q, p, True
    return None


def _adjacent_stores(groups: list[list[int]], sigs: list) -> list[list[int]]:
    """Merge side-by-side single stores of one signature into one group (kept in order)."""
    out: list[list[int]] = []
    for g in groups:
        if len(g) == 1 and sigs[g[0]] is not None and out and all(sigs[i] == sigs[g[0]] for i in out[-1]):
            out[-1] = out[-1] + g
        else:
            out.append(list(g))
    return out


def _rows(names: list[str]) -> tuple[list[str], np.ndarray | None, int]:
    """How to stack registers `names` row by row: (distinct names, row of each name, rows)."""
    uniq = list(dict.fromkeys(names))
    index = None if len(uniq) == len(names) else np.array([uniq.index(x) for x in names])
    return uniq, index, len(names)


def _stack(regs: dict, rows: tuple[list[str], np.ndarray | None, int]) -> np.ndarray:
    """The registers stacked (G, lanes); a single (1, lanes) row, broadcast, where all are one register."""
    uniq, index, g = rows
    if len(uniq) == 1:
        return regs[uniq[0]][None]
    u = np.concatenate([regs[x] for x in uniq]).reshape(len(uniq), -1)
    return u if index is None else u[index]


def _lanes(b: Batch, g: int) -> np.ndarray:
    """Every lane index of the batch, `g` times over (cached on the batch)."""
    key = ("lanes", g)
    v = b.cache.get(key)
    if v is None:
        v = b.cache[key] = np.tile(np.arange(b.L, dtype=np.int64), g)
    return v
