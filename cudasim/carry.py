"""Extended-precision integer arithmetic: add/sub/mad with `.cc`, and addc, subc, madc.

PTX chains multi-word additions through a condition-code carry flag, CC.CF, that `.cc` forms write
and the `c` forms read (`d = a + b + CC.CF`; subtraction borrows: `d = a - (b + CC.CF)`). The flag
is each thread's; the parser makes it a register of its own (`ptx.CC`), the second destination of the
instructions that write it and the last source of those that read it, so that it lives in the batch's
registers and the scheduler keeps a chain in order. The math library's 128-bit argument reduction (sin/cos of huge doubles)
and multi-word integer code use these.
"""
from __future__ import annotations

import numpy as np

from .arith import _mulhi
from .context import Decoder
from .operands import Op, Scope, dtype_of, reader, unsupported, writer
from .ptx import CC, Instruction, Operand
from .state import Batch, Mask


def with_carry(decode: Decoder) -> Decoder:
    """`decode` for add, sub and mad, but their `.cc` forms to `decode_carry`."""
    def decoder(ins: Instruction, pc: int, ctx: Scope) -> Op:
        return decode_carry(ins, pc, ctx) if ins.has("cc") else decode(ins, pc, ctx)
    return decoder


def decode_carry(ins: Instruction, pc: int, ctx: Scope) -> Op:
    """add.cc, addc, sub.cc, subc, mad{.lo,.hi}.cc and madc{.lo,.hi}: the sum with the carry flag in (the
    `c` forms) and out (`.cc`)."""
    t = ins.type
    if t not in ("u32", "s32", "u64", "s64"):
        raise unsupported(ins, "carry chains take .u32, .s32, .u64 or .s64")
    base = ins.base
    op = base.rstrip("c") if base in ("addc", "subc", "madc") else base
    carry_in, carry_out = base.endswith("c"), ins.has("cc")
    dt = dtype_of(t)
    ut = np.dtype(f"u{dt.itemsize}")
    srcs = [reader(o, t, ctx) for o in ins.operands[1:4 if op == "mad" else 3]]
    put = writer(ins.operands[0], ctx)
    get_cc = reader(Operand("reg", name=CC), "u32", ctx)  # the parser names it: the last source of a c form,
    put_cc = writer(Operand("reg", name=CC), ctx)  # the second destination of a .cc one
    hi = ins.has("hi")
    if op == "mad" and not (hi or ins.has("lo")):
        raise unsupported(ins, "mad with a carry needs .lo or .hi")

    def lanes(b: Batch, m: Mask, r) -> np.ndarray:
        return np.broadcast_to(np.asarray(r(b)), (b.L,))[m.idx]

    def run(b: Batch, m: Mask) -> None:
        vals = [lanes(b, m, r) for r in srcs]
        cin = lanes(b, m, get_cc).astype(ut) & ut.type(1) if carry_in else np.zeros(m.count, ut)
        if op == "mad":
            a, bb, c = vals
            prod = _mulhi(a.astype(dt), bb.astype(dt), dt) if hi else (a.astype(dt) * bb.astype(dt))
            x, y = np.asarray(prod).astype(dt).view(ut), c.astype(dt).view(ut)
        else:
            x, y = (v.astype(dt).view(ut) for v in vals)
        if op == "sub":
            d = x - y - cin
            cout = (x < y) | ((x - y) < cin)
        else:
            s = x + y
            d = s + cin
            cout = (s < x) | (d < s)
        full = np.zeros(b.L, dt)
        full[m.idx] = d.view(dt)
        put(b, full, m)
        if carry_out:
            flag = np.zeros(b.L, np.uint32)
            flag[m.idx] = cout.astype(np.uint32)
            put_cc(b, flag, m)
    return run
