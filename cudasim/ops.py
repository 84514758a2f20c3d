"""Instruction semantics: each PTX instruction decodes once into a closure over lane vectors.

A closure `op(b, m)` computes its result for every lane of the batch `b` (inactive lanes
included: cheaper than gathering, and harmless since only active lanes are written back)
and writes the lanes of the active mask `m`. Memory, control flow and warp-wide operations
are handed to the executor (`ctx`), which owns the memories, the trace and the checks.

Arithmetic follows the PTX ISA: integers wrap at their width; shifts clamp the shift amount
to the width; float32 arithmetic is done in float32 (IEEE round-to-nearest, as `.rn`);
`fma.rn.f32` is computed as one float64 multiply-add rounded to float32, which is exact for
the product and rounds twice only in rare ties (at most 1 ulp from the GPU); `fma.rn.f64`
uses an error-free product and sum (at most 1 ulp). Approximate functions (`rcp.approx`,
`sqrt.approx`, `ex2.approx`, ...) are computed to full precision, which is within the few
ulp the ISA allows the GPU.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .errors import UnsupportedInstruction
from .ptx import TYPES, Instruction, Operand
from .state import Batch, Mask

Op = Callable[[Batch, Mask], None]
Reader = Callable[[Batch], "np.ndarray | np.generic"]

def dtype_of(t: str) -> np.dtype:
    try:
        return np.dtype(TYPES[t][0])
    except KeyError:
        raise KeyError(f"unknown PTX type .{t}") from None


def unsupported(ins: Instruction, why: str = "") -> UnsupportedInstruction:
    extra = f" ({why})" if why else ""
    return UnsupportedInstruction(f"unsupported PTX instruction `{ins.text}` at {ins.where()}{extra}; "
                                  f"cudasim stops rather than guess its result")


# -- operand access ----------------------------------------------------------------------
def reader(o: Operand, t: str, ctx) -> Reader:
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
        if name in ("%clock", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi"):
            def clock(b: Batch):
                ctx.clock += 1
                return dt.type(ctx.clock)
            return clock
        return lambda b: _cast(b.sregs[name], dt)
    if o.kind == "sym":
        v = dt.type(ctx.symbol_address(o.name))
        return lambda b: v
    raise KeyError(f"cannot read operand {o} as a value")


def _cast(v, dt: np.dtype):
    v = np.asarray(v)
    if v.dtype == dt:
        return v if v.ndim else v[()]
    if v.dtype.itemsize == dt.itemsize:
        return v.view(dt) if v.ndim else v.view(dt)[()]
    return v.astype(dt) if v.ndim else v.astype(dt)[()]


def writer(o: Operand, ctx) -> Callable[[Batch, object, Mask], None]:
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


# -- helpers -----------------------------------------------------------------------------
def _signed(dt: np.dtype) -> np.dtype:
    return np.dtype(f"i{dt.itemsize}")


def _unsigned(dt: np.dtype) -> np.dtype:
    return np.dtype(f"u{dt.itemsize}")


def _wide(dt: np.dtype) -> np.dtype:
    return np.dtype(f"{'i' if dt.kind == 'i' else 'u'}{dt.itemsize * 2}")


def _ftz(x, dt):
    tiny = np.finfo(dt).tiny
    return np.where(np.abs(x) < tiny, np.copysign(dt.type(0), x), x).astype(dt)


def _sat(x, dt):
    """`.sat` on floats: clamp to [0, 1], NaN to 0."""
    return np.clip(np.nan_to_num(x, nan=0.0), 0, 1).astype(dt)


def _mulhi(a, b, dt: np.dtype):
    """High half of the full product, at the width of `dt`."""
    if dt.itemsize <= 4:
        w = _wide(dt)
        return (np.asarray(a).astype(w) * np.asarray(b).astype(w) >> (8 * dt.itemsize)).astype(dt)
    ua = np.asarray(a).view(np.uint64) if np.ndim(a) else np.uint64(np.asarray(a).view(np.uint64))
    ub = np.asarray(b).view(np.uint64) if np.ndim(b) else np.uint64(np.asarray(b).view(np.uint64))
    m32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    al, ah, bl, bh = ua & m32, ua >> s32, ub & m32, ub >> s32
    ll = al * bl
    lh = al * bh
    hl = ah * bl
    hh = ah * bh
    mid = (ll >> s32) + (lh & m32) + (hl & m32)
    hi = hh + (lh >> s32) + (hl >> s32) + (mid >> s32)
    if dt.kind == "i":  # signed: subtract the wrapped operands where the other is negative
        hi = hi - np.where(np.asarray(a) < 0, ub, np.uint64(0)) - np.where(np.asarray(b) < 0, ua, np.uint64(0))
    return np.asarray(hi).view(dt) if np.ndim(hi) else np.asarray(hi).view(dt)[()]


def _two_prod_fma64(a, b, c):
    """fma in float64 via error-free transformations (Dekker product, Knuth sum): <= 1 ulp."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    c = np.asarray(c, np.float64)
    p = a * b
    split = 134217729.0
    ta = a * split
    ah = ta - (ta - a)
    al = a - ah
    tb = b * split
    bh = tb - (tb - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    r = s + (t + e)
    return np.where(np.isfinite(r) & np.isfinite(p), r, a * b + c)


def _popc(x):
    x = np.asarray(x)
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x).astype(np.uint32)
    u = x.view(_unsigned(x.dtype)) if x.ndim else x.astype(_unsigned(x.dtype))
    bits = np.unpackbits(np.atleast_1d(u).view(np.uint8).reshape(-1, u.dtype.itemsize), axis=1)
    return bits.sum(1).astype(np.uint32).reshape(u.shape)


def _clz(x, width: int):
    u = np.asarray(x).astype(np.uint64)
    n = np.full(u.shape, width, np.uint32)
    nz = u != 0
    # position of the highest set bit, exactly (float log2 is inexact near 2^53)
    hb = np.zeros(u.shape, np.int64)
    v = u.copy()
    for s in (32, 16, 8, 4, 2, 1):
        big = v >= (np.uint64(1) << np.uint64(s))
        hb += np.where(big, s, 0)
        v = np.where(big, v >> np.uint64(s), v)
    n = np.where(nz, width - 1 - hb, n)
    return n.astype(np.uint32)


# -- the decoder -------------------------------------------------------------------------
def decode(ins: Instruction, ctx) -> Op:
    """Decode `ins` into a closure; unknown forms raise UnsupportedInstruction naming the line."""
    fn = _DECODERS.get(ins.base)
    if fn is None:
        raise unsupported(ins)
    try:
        return fn(ins, ctx)
    except UnsupportedInstruction:
        raise
    except (KeyError, IndexError, ValueError, TypeError) as e:
        raise unsupported(ins, str(e)) from None


def _d_binary(ins: Instruction, ctx) -> Op:
    base, t = ins.base, ins.type
    dt = dtype_of(t)
    d, a, bo = ins.operands[:3]
    ra, rb, put = reader(a, t, ctx), reader(bo, t, ctx), writer(d, ctx)
    if dt.kind == "f":
        if ins.has("rz", "rm", "rp") and base in ("add", "sub", "mul"):
            raise unsupported(ins, "directed rounding")
        sat, ftz = ins.has("sat"), ins.has("ftz")
        f = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[base]

        def op(b: Batch, m: Mask) -> None:
            x, y = ra(b), rb(b)
            if ftz:
                x, y = _ftz(x, dt), _ftz(y, dt)
            r = f(x, y, dtype=dt)
            if ftz:
                r = _ftz(r, dt)
            if sat:
                r = _sat(r, dt)
            put(b, r, m)
        return op
    if ins.has("sat"):
        if t != "s32" or base not in ("add", "sub"):
            raise unsupported(ins)

        def sat_op(b: Batch, m: Mask) -> None:
            x = np.asarray(ra(b)).astype(np.int64)
            y = np.asarray(rb(b)).astype(np.int64)
            r = x + y if base == "add" else x - y
            put(b, np.clip(r, -2 ** 31, 2 ** 31 - 1).astype(np.int32), m)
        return sat_op
    if base == "mul":
        if ins.has("wide"):
            w = _wide(dt)

            def wide(b: Batch, m: Mask) -> None:
                put(b, np.multiply(np.asarray(ra(b)).astype(w), np.asarray(rb(b)).astype(w)), m)
            return wide
        if ins.has("hi"):
            return lambda b, m: put(b, _mulhi(ra(b), rb(b), dt), m)
        return lambda b, m: put(b, np.multiply(ra(b), rb(b), dtype=dt), m)
    if ins.has("cc") or base in ("addc", "subc"):
        raise unsupported(ins, "carry chains")
    f = {"add": np.add, "sub": np.subtract}[base]
    return lambda b, m: put(b, f(ra(b), rb(b), dtype=dt), m)


def _d_mad(ins: Instruction, ctx) -> Op:
    t = ins.type
    dt = dtype_of(t)
    if dt.kind == "f":
        return _fma(ins, ctx)
    d, a, bo, c = ins.operands[:4]
    put = writer(d, ctx)
    ra, rb = reader(a, t, ctx), reader(bo, t, ctx)
    if ins.has("wide"):
        w = _wide(dt)
        rc = reader(c, {"i": "s", "u": "u"}[w.kind] + str(8 * w.itemsize), ctx)

        def wide(b: Batch, m: Mask) -> None:
            put(b, np.asarray(ra(b)).astype(w) * np.asarray(rb(b)).astype(w) + rc(b), m)
        return wide
    rc = reader(c, t, ctx)
    if ins.has("hi"):
        return lambda b, m: put(b, np.add(_mulhi(ra(b), rb(b), dt), rc(b), dtype=dt), m)
    if ins.has("cc"):
        raise unsupported(ins, "carry chains")
    return lambda b, m: put(b, np.add(np.multiply(ra(b), rb(b), dtype=dt), rc(b), dtype=dt), m)


def _fma(ins: Instruction, ctx) -> Op:
    t = ins.type
    dt = dtype_of(t)
    if ins.has("rz", "rm", "rp"):
        raise unsupported(ins, "directed rounding")
    d, a, bo, c = ins.operands[:4]
    ra, rb, rc, put = reader(a, t, ctx), reader(bo, t, ctx), reader(c, t, ctx), writer(d, ctx)
    sat, ftz = ins.has("sat"), ins.has("ftz")
    if t == "f32":
        def op(b: Batch, m: Mask) -> None:
            x, y, z = ra(b), rb(b), rc(b)
            if ftz:
                x, y, z = _ftz(x, dt), _ftz(y, dt), _ftz(z, dt)
            r = np.multiply(x, y, dtype=np.float64)
            r = np.add(r, z, out=r if type(r) is np.ndarray else None).astype(np.float32)
            if ftz:
                r = _ftz(r, dt)
            if sat:
                r = _sat(r, dt)
            put(b, r, m)
        return op
    if t == "f64":
        return lambda b, m: put(b, _two_prod_fma64(ra(b), rb(b), rc(b)), m)
    raise unsupported(ins, f"fma of .{t}")


def _d_div(ins: Instruction, ctx) -> Op:
    t = ins.type
    dt = dtype_of(t)
    d, a, bo = ins.operands[:3]
    ra, rb, put = reader(a, t, ctx), reader(bo, t, ctx), writer(d, ctx)
    if dt.kind == "f":
        if ins.has("rz", "rm", "rp"):
            raise unsupported(ins, "directed rounding")
        ftz = ins.has("ftz")

        def fdiv(b: Batch, m: Mask) -> None:
            x, y = ra(b), rb(b)
            if ftz:
                x, y = _ftz(x, dt), _ftz(y, dt)
            r = np.divide(x, y, dtype=dt)
            put(b, _ftz(r, dt) if ftz else r, m)
        return fdiv
    rem = ins.base == "rem"
    ones = dt.type(-1) if dt.kind == "i" else np.iinfo(dt).max

    def idiv(b: Batch, m: Mask) -> None:
        x, y = np.asarray(ra(b)), np.asarray(rb(b))
        zero = y == 0
        ys = np.where(zero, dt.type(1), y).astype(dt)
        if dt.kind == "i":  # C semantics: the quotient truncates toward zero; MIN / -1 wraps
            xa, ya = x.astype(np.int64), ys.astype(np.int64)
            if dt.itemsize < 8:
                q = np.abs(xa) // np.abs(ya) * np.sign(xa) * np.sign(ya)
            else:
                q = xa // ya
                q = q + ((q * ya != xa) & ((xa < 0) ^ (ya < 0)))
            r = (xa - q * ya) if rem else q
            r = r.astype(dt)
        else:
            r = (x % ys if rem else x // ys).astype(dt)
        r = np.where(zero, x if rem else ones, r).astype(dt)
        put(b, r, m)
    return idiv


def _d_unary(ins: Instruction, ctx) -> Op:
    base, t = ins.base, ins.type
    dt = dtype_of(t)
    d, a = ins.operands[:2]
    ra, put = reader(a, t, ctx), writer(d, ctx)
    ftz = ins.has("ftz")
    if base == "neg":
        return lambda b, m: put(b, np.negative(ra(b), dtype=dt), m)
    if base == "abs":
        return lambda b, m: put(b, np.abs(ra(b)).astype(dt), m)
    if base == "not":
        if dt == np.bool_:
            return lambda b, m: put(b, np.logical_not(ra(b)), m)
        return lambda b, m: put(b, np.invert(ra(b)), m)
    if base == "cnot":
        return lambda b, m: put(b, (np.asarray(ra(b)) == 0).astype(dt), m)
    if base == "popc":
        return lambda b, m: put(b, _popc(ra(b)), m)
    if base == "clz":
        return lambda b, m: put(b, _clz(ra(b), 8 * dt.itemsize), m)
    if base == "brev":
        def brev(b: Batch, m: Mask) -> None:
            x = np.atleast_1d(np.asarray(ra(b)).astype(dt))
            by = np.unpackbits(x.view(np.uint8).reshape(-1, dt.itemsize), axis=1, bitorder="little")
            put(b, np.packbits(by[:, ::-1], axis=1, bitorder="little").view(dt).reshape(x.shape), m)
        return brev
    # float functions, computed in float64 and rounded once
    fns = {
        "sqrt": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x), "rcp": lambda x: 1.0 / x,
        "ex2": np.exp2, "lg2": np.log2, "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
    }
    if base not in fns or dt.kind != "f":
        raise unsupported(ins)
    if ins.has("rz", "rm", "rp"):
        raise unsupported(ins, "directed rounding")
    f = fns[base]
    exact_f32 = base == "sqrt" and not ins.has("approx") and t == "f32"

    def fop(b: Batch, m: Mask) -> None:
        x = ra(b)
        if ftz:
            x = _ftz(x, dt)
        if exact_f32 or t == "f64":
            r = f(np.asarray(x, dt)).astype(dt)
        else:
            r = f(np.asarray(x, np.float64)).astype(dt)
        put(b, _ftz(r, dt) if ftz else r, m)
    return fop


def _d_minmax(ins: Instruction, ctx) -> Op:
    t = ins.type
    dt = dtype_of(t)
    d, a, bo = ins.operands[:3]
    ra, rb, put = reader(a, t, ctx), reader(bo, t, ctx), writer(d, ctx)
    if ins.has("NaN", "xorsign", "relu"):
        raise unsupported(ins)
    if dt.kind == "f":
        f = np.fmin if ins.base == "min" else np.fmax
    else:
        f = np.minimum if ins.base == "min" else np.maximum
    return lambda b, m: put(b, f(ra(b), rb(b)).astype(dt), m)


def _d_logic(ins: Instruction, ctx) -> Op:
    t = ins.type
    dt = dtype_of(t)
    d, a, bo = ins.operands[:3]
    ra, rb, put = reader(a, t, ctx), reader(bo, t, ctx), writer(d, ctx)
    if dt == np.bool_:
        f = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[ins.base]
    else:
        f = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[ins.base]
    return lambda b, m: put(b, f(ra(b), rb(b)), m)


def _d_shift(ins: Instruction, ctx) -> Op:
    t = ins.type
    dt = dtype_of(t)
    if ins.base == "shr" and not t.startswith("s"):
        dt = _unsigned(dt)  # logical shift
    d, a, bo = ins.operands[:3]
    ra, rs, put = reader(a, t, ctx), reader(bo, "u32", ctx), writer(d, ctx)  # shift amounts are .u32
    width = 8 * dt.itemsize
    left = ins.base == "shl"
    if bo.kind == "imm" and 0 <= bo.value < width:  # the common case: one numpy op
        sc = dt.type(bo.value)
        shift = np.left_shift if left else np.right_shift
        return lambda b, m: put(b, shift(_cast(ra(b), dt), sc, dtype=dt), m)

    def op(b: Batch, m: Mask) -> None:
        x = _cast(ra(b), dt)
        s = np.asarray(rs(b))
        big = s >= width
        sc = np.minimum(s, width - 1).astype(dt)
        if left:
            r = np.where(big, dt.type(0), np.left_shift(x, sc, dtype=dt))
        elif dt.kind == "i":
            r = np.right_shift(x, sc, dtype=dt)  # arithmetic; amounts >= width give the sign
        else:
            r = np.where(big, dt.type(0), np.right_shift(x, sc, dtype=dt))
        put(b, np.asarray(r, dt), m)
    return op


def _d_mov(ins: Instruction, ctx) -> Op:
    t = ins.type
    dt = dtype_of(t)
    d, a = ins.operands[:2]
    if d.kind == "vec":  # unpack: mov.b64 {lo, hi}, x
        n = len(d.items)
        part = np.dtype(f"u{dt.itemsize // n}")
        ra = reader(a, "b" + str(8 * dt.itemsize), ctx)
        puts = [writer(x, ctx) for x in d.items]

        def unpack(b: Batch, m: Mask) -> None:
            x = np.atleast_1d(np.asarray(ra(b)))
            parts = x.view(part).reshape(len(x), n)
            for i, p in enumerate(puts):
                p(b, parts[:, i] if x.size > 1 else parts[0, i], m)
        return unpack
    put = writer(d, ctx)
    if a.kind == "vec":  # pack: mov.b64 x, {lo, hi}
        n = len(a.items)
        ptype = "b" + str(8 * dt.itemsize // n)
        rs = [reader(x, ptype, ctx) for x in a.items]
        w = np.dtype(f"u{dt.itemsize}")

        def pack(b: Batch, m: Mask) -> None:
            r = np.zeros(b.L, w)
            for i, f in enumerate(rs):
                r |= np.asarray(f(b)).astype(w) << w.type(8 * dt.itemsize // n * i)
            put(b, r, m)
        return pack
    ra = reader(a, t, ctx)
    return lambda b, m: put(b, np.array(ra(b)), m)  # a copy: registers never share arrays


_CMP_INT = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
            "ge": np.greater_equal, "lo": np.less, "ls": np.less_equal, "hi": np.greater, "hs": np.greater_equal}


def _compare(cmp: str, dt: np.dtype) -> Callable:
    if dt.kind != "f":
        f = _CMP_INT[cmp]
        if cmp in ("lo", "ls", "hi", "hs"):
            u = _unsigned(dt)
            return lambda x, y: f(_cast(x, u), _cast(y, u))
        return f
    if cmp == "num":
        return lambda x, y: ~(np.isnan(x) | np.isnan(y))
    if cmp == "nan":
        return lambda x, y: np.isnan(x) | np.isnan(y)
    unordered = cmp.endswith("u") and cmp not in ("lu",)
    base = cmp[:-1] if unordered else cmp
    f = _CMP_INT[base]
    if unordered:
        return lambda x, y: f(x, y) | np.isnan(x) | np.isnan(y)
    if base == "ne":
        return lambda x, y: f(x, y) & ~(np.isnan(x) | np.isnan(y))
    return f


_BOOL = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}


def _d_setp(ins: Instruction, ctx) -> Op:
    t = ins.type
    dt = dtype_of(t)
    cmp = ins.mods[0]
    boolop = ins.mods[1] if len(ins.mods) > 1 and ins.mods[1] in _BOOL else None
    ops = ins.operands
    d, a, bo = ops[:3]
    ra, rb = reader(a, t, ctx), reader(bo, t, ctx)
    f = _compare(cmp, dt)
    ftz = ins.has("ftz")
    put = writer(d, ctx)
    putq = writer(Operand("reg", name=ins.dest_pred), ctx) if ins.dest_pred else None
    rc = None
    if boolop:
        rc = reader(ops[3], "pred", ctx)
    g = _BOOL.get(boolop or "", None)

    def op(b: Batch, m: Mask) -> None:
        x, y = ra(b), rb(b)
        if ftz:
            x, y = _ftz(x, dt), _ftz(y, dt)
        r = np.asarray(f(x, y))
        if r.ndim == 0:
            r = np.full(b.L, bool(r))
        if g is not None:
            c = rc(b)
            put(b, g(r, c), m)
            if putq is not None:
                putq(b, g(~r, c), m)
        else:
            put(b, r, m)
            if putq is not None:
                putq(b, ~r, m)
    return op


def _d_selp(ins: Instruction, ctx) -> Op:
    t = ins.type
    d, a, bo, c = ins.operands[:4]
    ra, rb, put = reader(a, t, ctx), reader(bo, t, ctx), writer(d, ctx)
    if ins.base == "selp":
        rc = reader(c, "pred", ctx)
        return lambda b, m: put(b, np.where(rc(b), ra(b), rb(b)), m)
    ct = ins.types[-1]
    rc = reader(c, ct, ctx)
    dt = dtype_of(ins.types[0])
    return lambda b, m: put(b, np.where(np.asarray(rc(b)) >= 0, ra(b), rb(b)).astype(dt), m)


_IRND = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}


def _d_cvt(ins: Instruction, ctx) -> Op:
    dtn, atn = ins.types[0], ins.types[1]
    d, a = ins.operands[:2]
    put = writer(d, ctx)
    sat, ftz = ins.has("sat"), ins.has("ftz")
    if dtn == "tf32":  # round to a 10-bit mantissa, kept in a 32-bit container
        ra = reader(a, "u32", ctx)
        if not ins.has("rna", "rn"):
            raise unsupported(ins)
        rna = ins.has("rna")

        def tf32(b: Batch, m: Mask) -> None:
            u = np.asarray(ra(b)).astype(np.uint32)
            finite = (u & np.uint32(0x7F800000)) != np.uint32(0x7F800000)
            if rna:
                r = (u + np.uint32(0x1000)) & np.uint32(0xFFFFE000)
            else:
                lsb = (u >> np.uint32(13)) & np.uint32(1)
                r = (u + np.uint32(0xFFF) + lsb) & np.uint32(0xFFFFE000)
            put(b, np.where(finite, r, u), m)
        return tf32
    if "bf16" in (dtn, atn) or "f16x2" in (dtn, atn) or "bf16x2" in (dtn, atn):
        raise unsupported(ins, "bf16 conversions")
    dd, ad = dtype_of(dtn), dtype_of(atn)
    ra = reader(a, atn, ctx)
    irnd = next((k for k in _IRND if ins.has(k)), None)
    frnd = next((k for k in ("rn", "rz", "rm", "rp") if ins.has(k)), None)
    if dd.kind == "f" and ad.kind == "f":
        if irnd:
            f = _IRND[irnd]

            def fround(b: Batch, m: Mask) -> None:
                x = ra(b)
                x = _ftz(x, ad) if ftz else x
                r = f(x).astype(dd)
                if sat:
                    r = _sat(r, dd)
                put(b, r, m)
            return fround
        if dd.itemsize < ad.itemsize and frnd not in (None, "rn"):
            raise unsupported(ins, "directed rounding")

        def fconv(b: Batch, m: Mask) -> None:
            x = ra(b)
            r = np.asarray(x).astype(dd)
            if ftz:
                r = _ftz(r, dd)
            if sat:
                r = _sat(r, dd)
            put(b, r, m)
        return fconv
    if dd.kind != "f" and ad.kind == "f":  # float -> int: round, saturate, NaN -> 0
        f = _IRND.get(irnd or "rzi")
        lo, hi = np.iinfo(dd).min, np.iinfo(dd).max

        def f2i(b: Batch, m: Mask) -> None:
            x = np.asarray(ra(b), np.float64)
            r = f(x)
            r = np.where(np.isnan(r), 0, np.clip(r, lo, hi))
            # clip in float64 can round hi up to 2^63 / 2^64: handle the top explicitly
            big = r >= float(hi)
            out = np.where(big, 0, r).astype(dd)
            put(b, np.where(big, dd.type(hi), out), m)
        return f2i
    if dd.kind == "f":  # int -> float, round to nearest
        if frnd not in (None, "rn"):
            raise unsupported(ins, "directed rounding")
        return lambda b, m: put(b, np.asarray(ra(b)).astype(dd), m)
    # int -> int: truncate or extend by the source's signedness; .sat clamps
    if sat:
        lo, hi = np.iinfo(dd).min, np.iinfo(dd).max

        def isat(b: Batch, m: Mask) -> None:
            x = np.asarray(ra(b))
            if x.dtype.kind == "u" and dd.kind == "i":
                r = np.minimum(x, np.uint64(hi)).astype(dd)
            elif x.dtype.kind == "i" and dd.kind == "u":
                r = np.clip(x, 0, None).astype(np.uint64)
                r = np.minimum(r, np.uint64(hi)).astype(dd)
            else:
                r = np.clip(x, lo, hi).astype(dd)
            put(b, r, m)
        return isat
    return lambda b, m: put(b, np.asarray(ra(b)).astype(dd), m)


def _d_bfe(ins: Instruction, ctx) -> Op:
    t = ins.type
    dt = dtype_of(t)
    w = 8 * dt.itemsize
    d, a, p, ln = ins.operands[:4]
    ra, rp, rl, put = reader(a, t, ctx), reader(p, "u32", ctx), reader(ln, "u32", ctx), writer(d, ctx)
    u = np.dtype(f"u{dt.itemsize}")

    def op(b: Batch, m: Mask) -> None:
        x = _cast(ra(b), u).astype(np.uint64)
        pos = np.asarray(rp(b)).astype(np.uint64) & np.uint64(0xFF)
        n = np.asarray(rl(b)).astype(np.uint64) & np.uint64(0xFF)
        pos_c = np.minimum(pos, np.uint64(w))
        shifted = np.where(pos >= w, np.uint64(0), x >> np.minimum(pos_c, np.uint64(63)))
        n_c = np.minimum(n, np.uint64(w))
        maskv = np.where(n_c >= 64, np.uint64(0xFFFFFFFFFFFFFFFF),
                         (np.uint64(1) << np.minimum(n_c, np.uint64(63))) - np.uint64(1))
        r = shifted & maskv
        if dt.kind == "i":  # sign bit: bit pos+len-1 of x (or the top bit if beyond)
            sbit = np.minimum(pos + n_c - np.uint64(1), np.uint64(w - 1))
            sign = ((x >> sbit) & np.uint64(1)).astype(bool) & (n_c > 0)
            r = np.where(sign, r | ~maskv, r)
        r = np.where(n_c == 0, np.uint64(0), r)
        put(b, r.astype(u), m)
    return op


def _d_bfi(ins: Instruction, ctx) -> Op:
    t = ins.type
    dt = dtype_of(t)
    w = 8 * dt.itemsize
    d, a, bo, p, ln = ins.operands[:5]
    ra, rb = reader(a, t, ctx), reader(bo, t, ctx)
    rp, rl, put = reader(p, "u32", ctx), reader(ln, "u32", ctx), writer(d, ctx)

    def op(b: Batch, m: Mask) -> None:
        x = np.asarray(ra(b)).astype(np.uint64)
        y = np.asarray(rb(b)).astype(np.uint64)
        pos = np.asarray(rp(b)).astype(np.uint64) & np.uint64(0xFF)
        n = np.minimum(np.asarray(rl(b)).astype(np.uint64) & np.uint64(0xFF), np.uint64(w))
        maskv = ((np.uint64(1) << np.minimum(n, np.uint64(63))) - np.uint64(1))
        maskv = np.where(n >= 64, np.uint64(0xFFFFFFFFFFFFFFFF), maskv)
        ok = pos < w
        ps = np.minimum(pos, np.uint64(63))
        r = np.where(ok, (y & ~(maskv << ps)) | ((x & maskv) << ps), y)
        put(b, r.astype(dt), m)
    return op


def _d_lop3(ins: Instruction, ctx) -> Op:
    d, a, bo, c, lut = ins.operands[:5]
    ra, rb, rc, put = (reader(a, "b32", ctx), reader(bo, "b32", ctx), reader(c, "b32", ctx), writer(d, ctx))
    table = lut.value & 0xFF

    def op(b: Batch, m: Mask) -> None:
        x, y, z = ra(b), rb(b), rc(b)
        r = np.zeros(b.L, np.uint32)
        for i in range(8):
            if table >> i & 1:
                tx = x if i & 4 else ~x
                ty = y if i & 2 else ~y
                tz = z if i & 1 else ~z
                r |= tx & ty & tz
        put(b, r, m)
    return op


def _d_prmt(ins: Instruction, ctx) -> Op:
    if ins.mods:
        raise unsupported(ins, "prmt modes")
    d, a, bo, c = ins.operands[:4]
    ra, rb, rc, put = reader(a, "b32", ctx), reader(bo, "b32", ctx), reader(c, "b32", ctx), writer(d, ctx)

    def op(b: Batch, m: Mask) -> None:
        x = np.broadcast_to(np.asarray(ra(b), np.uint32), (b.L,))
        y = np.broadcast_to(np.asarray(rb(b), np.uint32), (b.L,))
        s = np.broadcast_to(np.asarray(rc(b), np.uint32), (b.L,))
        bytes8 = np.concatenate([x.view(np.uint8).reshape(-1, 4), y.view(np.uint8).reshape(-1, 4)], axis=1)
        r = np.zeros(b.L, np.uint32)
        for k in range(4):
            sel = (s >> np.uint32(4 * k)) & np.uint32(0xF)
            byte = bytes8[np.arange(b.L), (sel & np.uint32(7)).astype(np.int64)]
            byte = np.where(sel & np.uint32(8), np.where(byte & 0x80, 0xFF, 0), byte).astype(np.uint32)
            r |= byte << np.uint32(8 * k)
        put(b, r, m)
    return op


def _d_copysign(ins: Instruction, ctx) -> Op:
    t = ins.type
    d, a, bo = ins.operands[:3]
    ra, rb, put = reader(a, t, ctx), reader(bo, t, ctx), writer(d, ctx)
    return lambda b, m: put(b, np.copysign(rb(b), ra(b)), m)


def _d_testp(ins: Instruction, ctx) -> Op:
    t = ins.type
    d, a = ins.operands[:2]
    ra, put = reader(a, t, ctx), writer(d, ctx)
    kind = ins.mods[0]
    f = {"finite": np.isfinite, "infinite": np.isinf, "number": lambda x: ~np.isnan(x), "notanumber": np.isnan,
         "normal": lambda x: np.isfinite(x) & (np.abs(x) >= np.finfo(x.dtype).tiny),
         "subnormal": lambda x: (np.abs(x) < np.finfo(x.dtype).tiny) & (x != 0)}[kind]
    return lambda b, m: put(b, f(np.asarray(ra(b))), m)


def _d_nop(ins: Instruction, ctx) -> Op:
    return lambda b, m: None


def _d_ctx(ins: Instruction, ctx) -> Op:
    """Memory, warp-wide and synchronization instructions: the executor decodes these."""
    return ctx.decode_special(ins)


_DECODERS: dict[str, Callable[[Instruction, object], Op]] = {
    "add": _d_binary, "sub": _d_binary, "mul": _d_binary,
    "mad": _d_mad, "fma": _fma, "div": _d_div, "rem": _d_div,
    "neg": _d_unary, "abs": _d_unary, "not": _d_unary, "cnot": _d_unary, "popc": _d_unary, "clz": _d_unary,
    "brev": _d_unary, "sqrt": _d_unary, "rsqrt": _d_unary, "rcp": _d_unary, "ex2": _d_unary, "lg2": _d_unary,
    "sin": _d_unary, "cos": _d_unary, "tanh": _d_unary,
    "min": _d_minmax, "max": _d_minmax, "and": _d_logic, "or": _d_logic, "xor": _d_logic,
    "shl": _d_shift, "shr": _d_shift, "mov": _d_mov, "setp": _d_setp, "selp": _d_selp, "slct": _d_selp,
    "cvt": _d_cvt, "bfe": _d_bfe, "bfi": _d_bfi, "lop3": _d_lop3, "prmt": _d_prmt, "copysign": _d_copysign,
    "testp": _d_testp,
    "membar": _d_nop, "fence": _d_nop, "prefetch": _d_nop, "prefetchu": _d_nop, "pmevent": _d_nop,
    "ld": _d_ctx, "ldu": _d_ctx, "st": _d_ctx, "atom": _d_ctx, "red": _d_ctx, "cvta": _d_ctx,
    "shfl": _d_ctx, "vote": _d_ctx, "activemask": _d_ctx, "redux": _d_ctx, "cp": _d_ctx, "wmma": _d_ctx,
    "bar": _d_ctx, "barrier": _d_ctx,
}
