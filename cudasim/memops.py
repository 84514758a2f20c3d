"""Memory instructions: ld, ldu, st, atom, red, cvta and cp.async, decoded into closures.

Every access gathers its lanes' addresses, splits generic ones by window into state spaces,
checks bounds in its space, and only then touches memory; shared accesses go through the
race checker and every access of a traced warp is recorded. Atomics apply lane by lane in
lane order, one legal serialization; cp.async copies complete at issue, which is one legal
ordering of the asynchronous copy and its wait.
"""
from __future__ import annotations

import numpy as np

from .context import DecodeContext
from .errors import UnsupportedInstruction
from .memory import LOCAL_WINDOW, SHARED_WINDOW
from .operands import Op, address, dtype_of, reader, scatter, unsupported, writer
from .ptx import STATE_SPACES, Instruction
from .spaces import gather_addr, read, space_of, split, write
from .state import Batch, Mask

_ATOMIC_OPS = ("add", "min", "max", "inc", "dec", "exch", "cas", "and", "or", "xor")


def decode_ld(ins: Instruction, pc: int, ctx: DecodeContext) -> Op:
    space = space_of(ins)
    t = ins.type
    dt = dtype_of(t)
    dest, src = ins.operands[:2]
    items = dest.items if dest.kind == "vec" else (dest,)
    n = len(items)
    if ins.has("v8") or t == "b128":
        raise unsupported(ins)
    esize = dt.itemsize
    for x in items:
        if x.kind != "sink" and x.name not in ctx.reg_types:
            raise unsupported(ins, f"{x} is not a register")
    if space == "param" and _slot(src, ctx) is not None:
        get = _slot_access(_slot(src, ctx), dt, n)

        def ldslot(b: Batch, m: Mask) -> None:
            vals = get(b, m.idx).view(dt)
            for i, item in enumerate(items):
                if item.kind != "sink":
                    scatter(b, item.name, m.idx, vals[:, i])
        return ldslot
    if space == "param":
        puts = [writer(x, ctx) for x in items]
        if src.base is None or src.base.kind != "sym" or src.base.name not in ctx.layout.param_offsets:
            raise unsupported(ins, "parameter access through a pointer")
        off = ctx.layout.param_offsets[src.base.name].offset + src.offset

        def ldparam(b: Batch, m: Mask) -> None:
            raw = b.params[off:off + esize * n].view(dt)
            for i, p in enumerate(puts):
                p(b, raw[i], m)
        return ldparam
    addr = address(src, ctx)
    locate, check, record = ctx.layout.locate, ctx.hazards.check, ctx.recorder.record

    def ld(b: Batch, m: Mask) -> None:
        idx = m.idx
        a = gather_addr(addr(b), idx)
        parts = split(space, a)
        vals = np.empty((len(idx), n), np.dtype(f"u{esize}"))
        for sp, (pos, sa) in parts.items():
            sidx = idx if pos is None else idx[pos]
            arr, off = locate(b, ins, sp, sidx, sa, esize * n)
            v = read(arr, off, esize, n)
            if sp == "shared":
                check(b, pc, ins, sidx, off, esize * n, write=False)
            if pos is None:
                vals = v
            else:
                vals[pos] = v
            record(b, pc, sp, "ld", esize * n, sidx, sa)
        typed = vals.view(dt)
        for i, item in enumerate(items):
            if item.kind != "sink":
                scatter(b, item.name, idx, typed[:, i])
    return ld


def decode_st(ins: Instruction, pc: int, ctx: DecodeContext) -> Op:
    space = space_of(ins)
    t = ins.type
    dt = dtype_of(t)
    dst, src = ins.operands[:2]
    items = src.items if src.kind == "vec" else (src,)
    n = len(items)
    esize = dt.itemsize
    if ins.has("v8") or (space == "param" and _slot(dst, ctx) is None):
        raise unsupported(ins)
    rs = [reader(x, t, ctx) for x in items]
    if space == "param":
        off = _slot(dst, ctx)
        udt = np.dtype(f"u{esize}")

        def stslot(b: Batch, m: Mask) -> None:
            idx = m.idx
            vals = np.empty((len(idx), n), udt)
            for i, r in enumerate(rs):
                v = np.asarray(r(b))
                v = v.view(udt) if v.dtype.itemsize == esize else v.astype(dt).view(udt)
                vals[:, i] = v[idx] if v.ndim else v
            pos = idx.astype(np.int64)[:, None] * b.local_size + off + np.arange(n * esize)
            b.local[pos] = vals.view(np.uint8).reshape(len(idx), n * esize)
        return stslot
    addr = address(dst, ctx)
    udt = np.dtype(f"u{esize}")
    locate, check, record = ctx.layout.locate, ctx.hazards.check, ctx.recorder.record

    def st(b: Batch, m: Mask) -> None:
        idx = m.idx
        a = gather_addr(addr(b), idx)
        vals = np.empty((len(idx), n), udt)
        for i, r in enumerate(rs):
            v = np.asarray(r(b))
            v = v.view(udt) if v.dtype.itemsize == esize else v.astype(dt).view(udt)
            vals[:, i] = v[idx] if v.ndim else v
        parts = split(space, a)
        for sp, (pos, sa) in parts.items():
            sidx = idx if pos is None else idx[pos]
            arr, off = locate(b, ins, sp, sidx, sa, esize * n)
            if sp == "shared":
                check(b, pc, ins, sidx, off, esize * n, write=True)
            write(arr, off, esize, vals if pos is None else vals[pos])
            record(b, pc, sp, "st", esize * n, sidx, sa)
    return st


def _slot(a, ctx: DecodeContext) -> int | None:
    """The byte offset in each lane's local memory of a call parameter `[slot+k]` (cudasim.calls), or None."""
    if a.kind != "mem" or a.base is None or a.base.kind != "sym":
        return None
    off = ctx.layout.slot_offsets.get(a.base.name)
    return None if off is None else off + a.offset


def _slot_access(off: int, dt: np.dtype, n: int):
    """Each lane's `n` elements of `dt` at `off` in its local memory: call parameters, which ptxas keeps in
    registers, so the trace does not see them."""
    size = dt.itemsize * n

    def get(b: Batch, idx: np.ndarray) -> np.ndarray:
        pos = idx.astype(np.int64)[:, None] * b.local_size + off + np.arange(size)
        return b.local[pos].view(np.dtype(f"u{dt.itemsize}")).reshape(len(idx), n)
    return get


def decode_atom(ins: Instruction, pc: int, ctx: DecodeContext) -> Op:
    space = space_of(ins)
    t = ins.type
    dt = dtype_of(t)
    red = ins.base == "red"
    opn = next((x for x in ins.mods if x in _ATOMIC_OPS), None)
    if opn is None or ins.has("v2", "v4", "v8", "noftz") or t in ("f16", "bf16", "f16x2", "bf16x2"):
        raise unsupported(ins)
    ops_ = ins.operands
    if red:
        dst, vals_o = ops_[0], ops_[1:]
        put = None
    else:
        put, dst, vals_o = writer(ops_[0], ctx), ops_[1], ops_[2:]
    rv = [reader(x, t, ctx) for x in vals_o]
    addr = address(dst, ctx)
    esize = dt.itemsize
    locate, check, record = ctx.layout.locate, ctx.hazards.check, ctx.recorder.record

    def atom(b: Batch, m: Mask) -> None:
        idx = m.idx
        a = gather_addr(addr(b), idx)
        operand = [np.broadcast_to(np.asarray(r(b)), (b.L,))[idx].astype(dt) for r in rv]
        parts = split(space, a)
        old = np.empty(len(idx), dt)
        for sp, (pos, sa) in parts.items():
            sidx = idx if pos is None else idx[pos]
            arr, off = locate(b, ins, sp, sidx, sa, esize)
            args = [x if pos is None else x[pos] for x in operand]
            o = _atomic(arr.view(dt), off // esize, opn, args, dt)
            if sp == "shared":
                check(b, pc, ins, sidx, off, esize, write=True, atomic=True)
            if pos is None:
                old = o
            else:
                old[pos] = o
            record(b, pc, sp, "red" if red else "atom", esize, sidx, sa)
        if put is not None:
            full = np.zeros(b.L, dt)
            full[idx] = old
            put(b, full, m)
    return atom


def decode_cvta(ins: Instruction, pc: int, ctx: DecodeContext) -> Op:
    d, a = ins.operands[:2]
    t = ins.type
    put, ra = writer(d, ctx), reader(a, t, ctx)
    dt = dtype_of(t)
    to = ins.has("to")
    sp = next(x for x in ins.mods if x in STATE_SPACES)
    base = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW}.get(sp, 0)
    if base == 0:
        return lambda b, m: put(b, np.array(ra(b)), m)
    off = dt.type(base & ((1 << (8 * dt.itemsize)) - 1))
    if to:
        return lambda b, m: put(b, np.subtract(ra(b), off, dtype=dt), m)
    return lambda b, m: put(b, np.add(ra(b), off, dtype=dt), m)


def decode_cp(ins: Instruction, pc: int, ctx: DecodeContext) -> Op:
    if not ins.mods or ins.mods[0] != "async" or ins.has("bulk", "mbarrier"):
        raise unsupported(ins)
    if ins.has("commit_group", "wait_group", "wait_all"):
        return lambda b, m: None  # copies complete at issue, which is one legal ordering
    dst, src, size_o = ins.operands[:3]
    src_size_o = ins.operands[3] if len(ins.operands) > 3 and ins.operands[3].kind in ("imm", "reg") else None
    if size_o.kind != "imm":
        raise unsupported(ins)
    size = size_o.value
    rs = reader(src_size_o, "u32", ctx) if src_size_o is not None else None
    ad, as_ = address(dst, ctx), address(src, ctx)
    locate, check, record = ctx.layout.locate, ctx.hazards.check, ctx.recorder.record

    def cp(b: Batch, m: Mask) -> None:
        idx = m.idx
        d = gather_addr(ad(b), idx)
        s = gather_addr(as_(b), idx)
        sarr, soff = locate(b, ins, "global", idx, s, size)
        darr, doff = locate(b, ins, "shared", idx, d, size)
        data = sarr[soff[:, None] + np.arange(size)]
        if rs is not None:
            keep = np.broadcast_to(np.asarray(rs(b)), (b.L,))[idx].astype(np.int64)
            data = np.where(np.arange(size) < keep[:, None], data, 0).astype(np.uint8)
        darr[doff[:, None] + np.arange(size)] = data
        check(b, pc, ins, idx, doff, size, write=True)
        record(b, pc, "global", "ld", size, idx, s)
        record(b, pc, "shared", "st", size, idx, d)
    return cp


def _atomic(view: np.ndarray, e: np.ndarray, opn: str, args: list[np.ndarray], dt: np.dtype) -> np.ndarray:
    """Apply an atomic op for lanes in order (a legal serialization); returns each lane's old value."""
    if opn == "add":
        order = np.argsort(e, kind="stable")
        es, vs = e[order], args[0][order]
        start = np.r_[True, es[1:] != es[:-1]]
        grp = np.cumsum(start) - 1
        firsts = np.flatnonzero(start)
        base = view[es[firsts]]
        if dt.kind == "f":  # the running sums, accumulated in the element type, in lane order
            old_s = np.empty(len(es), dt)
            acc = base.copy()
            ends = np.r_[firsts[1:], len(es)]
            for gi, (s0, s1) in enumerate(zip(firsts, ends)):
                run = np.cumsum(np.r_[acc[gi], vs[s0:s1]].astype(dt), dtype=dt)
                old_s[s0:s1] = run[:-1]
                acc[gi] = run[-1]
            view[es[firsts]] = acc
        else:
            cs = np.cumsum(vs, dtype=dt)
            before = np.r_[dt.type(0), cs[:-1]].astype(dt)
            gstart = before[firsts]
            old_s = (base[grp] + (before - gstart[grp])).astype(dt)
            view[es[firsts]] = (base + (np.r_[cs[firsts[1:] - 1], cs[-1]] - gstart)).astype(dt)
        old = np.empty(len(e), dt)
        old[order] = old_s
        return old
    old = np.empty(len(e), dt)
    remaining = np.arange(len(e))
    while len(remaining):
        _, first = np.unique(e[remaining], return_index=True)
        sel = remaining[first]
        ei = e[sel]
        cur = view[ei].copy()
        old[sel] = cur
        a0 = args[0][sel]
        if opn == "exch":
            new = a0
        elif opn == "cas":
            new = np.where(cur == a0, args[1][sel], cur)
        elif opn == "min":
            new = np.minimum(cur, a0)
        elif opn == "max":
            new = np.maximum(cur, a0)
        elif opn == "and":
            new = cur & a0
        elif opn == "or":
            new = cur | a0
        elif opn == "xor":
            new = cur ^ a0
        elif opn == "inc":
            new = np.where(cur >= a0, dt.type(0), cur + dt.type(1))
        elif opn == "dec":
            new = np.where((cur == 0) | (cur > a0), a0, cur - dt.type(1))
        else:
            raise UnsupportedInstruction(f"atomic .{opn}")
        view[ei] = new
        remaining = np.delete(remaining, first)
    return old
