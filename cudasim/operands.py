"""Operand access: how a decoded instruction reads and writes its operands over lane vectors.

A closure `op(b, m)` computes its result for every lane of the batch `b` (inactive lanes
included: cheaper than gathering, and harmless since only active lanes are written back)
and writes the lanes of the active mask `m`. Readers and writers are built once, at decode,
from what the operand is (register, immediate, special register, symbol, memory address).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Callable, Protocol

import numpy as np

from .errors import UnsupportedInstruction
from .ptx import TYPES, Instruction, Operand
from .state import Batch, Mask

Op = Callable[[Batch, Mask], None]
Reader = Callable[[Batch], "np.ndarray | np.generic"]
Writer = Callable[[Batch, object, Mask], None]
_CLOCKS = ("%clock", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi")
UNTIMED = _CLOCKS + ("%smid", "%nsmid", "%warpid")  # registers whose values on a GPU depend on where and when
# a warp runs, which the simulator does not know: a counter of reads for the clocks, 0 for the rest


def untimed_reads(body) -> list[tuple[str, str]]:
    """(register, source line) of each instruction that reads one of UNTIMED, first per register."""
    seen: dict[str, str] = {}
    for ins in body:
        for o in ins.operands:
            if o.kind == "sreg" and o.name in UNTIMED and o.name not in seen:
                seen[o.name] = ins.where()
    return list(seen.items())


def untimed_notes(body) -> list[str]:
    """A note on each register the kernel reads whose GPU value depends on where and when a warp runs."""
    out = []
    for reg, where in untimed_reads(body):
        what = ("advances by one per read here, not with the GPU's time, so what the kernel computes from it is "
                "no time" if reg not in ("%smid", "%nsmid", "%warpid") else "is 0 here, whichever SM or slot a "
                "GPU would run the warp on")
        out.append(f"the kernel reads {reg} ({where}): it {what}")
    return out


class Clock:
    """What `%clock` and the timers read: a counter that advances on every read, so that a kernel
    timing itself sees time pass; one per program, kept across launches."""

    def __init__(self) -> None:
        self.value = 0


class Scope(Protocol):
    """What operand readers and writers resolve names against."""

    reg_types: Mapping[str, str]
    clock: Clock

    def symbol_address(self, name: str) -> int: ...


def dtype_of(t: str) -> np.dtype:
    try:
        return np.dtype(TYPES[t][0])
    except KeyError:
        raise KeyError(f"unknown PTX type .{t}") from None


def unsigned(dt: np.dtype) -> np.dtype:
    return np.dtype(f"u{dt.itemsize}")


def unsupported(ins: Instruction, why: str = "") -> UnsupportedInstruction:
    """The one-line refusal naming the instruction and its source line."""
    extra = f" ({why})" if why else ""
    return UnsupportedInstruction(f"unsupported PTX instruction `{ins.text}` at {ins.where()}{extra}; "
                                  f"cudasim stops rather than guess its result")


def reader(o: Operand, t: str, ctx: Scope) -> Reader:
    """A function giving operand `o` read as PTX type `t` (array over lanes or a scalar)."""
    dt = dtype_of(t)
    if o.kind == "sym" and o.name in ctx.reg_types:  # inline-asm scratch registers have no %
        o = Operand("reg", name=o.name)
    if o.kind == "reg":
        name = o.name
        if name not in ctx.reg_types:
            raise KeyError(f"undeclared register {name}")
        rdt = dtype_of(ctx.reg_types[name])
        if rdt == dt:
            return lambda b: b.regs[name]
        if rdt.itemsize == dt.itemsize and dt != np.bool_ and rdt != np.bool_:
            return lambda b: b.regs[name].view(dt)
        return lambda b: b.regs[name].astype(dt)
    if o.kind == "not":  # `!%p`: only predicates can be negated
        if t != "pred":
            raise KeyError(f"negated operand {o} read as .{t}")
        rp = reader(o.items[0], "pred", ctx)
        return lambda b: np.logical_not(rp(b))
    if o.kind == "imm":
        if dt.kind == "f":
            v = dt.type(o.value)
        elif dt == np.bool_:
            v = np.bool_(o.value != 0)
        else:
            v = np.array(o.value & ((1 << (8 * dt.itemsize)) - 1), dtype=np.uint64).astype(
                np.dtype(f"u{dt.itemsize}")).view(dt)[()]
        return lambda b: v
    if o.kind == "fimm":
        v = np.array(o.value, np.dtype(f"u{o.size}")).view(np.dtype(f"f{o.size}"))[()]
        v = dt.type(v) if dt.kind == "f" else np.array(o.value, np.dtype(f"u{o.size}")).view(dt)[()] \
            if dt.itemsize == o.size else dt.type(o.value)
        return lambda b: v
    if o.kind == "sreg":
        name = o.name
        if name in _CLOCKS:
            clk = ctx.clock

            def clock(b: Batch):
                clk.value += 1
                return dt.type(clk.value)
            return clock
        if name.startswith("%envreg"):  # what the driver hands a cooperative launch: the grid group's workspace
            raise KeyError(f"{name}: a grid-wide group (cooperative_groups::this_grid, grid.sync()) is not modelled; "
                           "a block's groups are: split the kernel at grid.sync() into two launches to analyse it")
        return lambda b: cast(b.sregs[name], dt)
    if o.kind == "sym":
        v = dt.type(ctx.symbol_address(o.name))
        return lambda b: v
    raise KeyError(f"cannot read operand {o} as a value")


def cast(v: "np.ndarray | np.generic", dt: np.dtype) -> "np.ndarray | np.generic":
    """`v` (array or scalar) as `dt`: reinterpreted where the widths match, else converted."""
    v = np.asarray(v)
    if v.dtype == dt:
        return v if v.ndim else v[()]
    if v.dtype.itemsize == dt.itemsize:
        return v.view(dt) if v.ndim else v.view(dt)[()]
    return v.astype(dt) if v.ndim else v.astype(dt)[()]


def writer(o: Operand, ctx: Scope) -> Writer:
    """A function storing a value (array or scalar of any type) into register `o` for lanes `m`."""
    if o.kind == "sink":
        return lambda b, v, m: None
    if o.kind == "sym" and o.name in ctx.reg_types:
        o = Operand("reg", name=o.name)
    if o.kind != "reg":
        raise KeyError(f"cannot write to operand {o}")
    name = o.name
    rdt = dtype_of(ctx.reg_types[name])

    def put(b: Batch, v, m: Mask) -> None:
        r = b.regs[name]
        if m.full and type(v) is np.ndarray and v.base is None and v.dtype == rdt and v.shape == r.shape:
            b.regs[name] = v  # a fresh result array: adopt it instead of copying (movs copy first)
            return
        v = np.asarray(v)
        if v.dtype != rdt:
            if v.dtype.itemsize == rdt.itemsize and rdt != np.bool_ and v.dtype != np.bool_:
                v = v.view(rdt)
            else:
                v = v.astype(rdt)
        if m.full:
            r[...] = v
        else:
            np.copyto(r, v, where=m.mask)
    return put


def address(o: Operand, ctx: Scope) -> Reader:
    """Reader of a memory operand's address as uint64 (array over lanes or scalar)."""
    off = np.uint64(o.offset & 0xFFFFFFFFFFFFFFFF)
    if o.base is None:
        return lambda b: off
    if o.base.kind == "sym":
        v = np.uint64((ctx.symbol_address(o.base.name) + o.offset) & 0xFFFFFFFFFFFFFFFF)
        return lambda b: v
    r = reader(o.base, "u64", ctx)
    if o.offset == 0:
        return r
    return lambda b: r(b) + off


def scatter(b: Batch, name: str, idx: np.ndarray, v: np.ndarray) -> None:
    """Write loaded values into register `name` at lanes `idx` (reinterpreted, or extended/truncated)."""
    r = b.regs[name]
    r[idx] = v.view(r.dtype) if v.dtype.itemsize == r.dtype.itemsize else v.astype(r.dtype)
