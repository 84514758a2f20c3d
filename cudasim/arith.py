"""Arithmetic instructions: integer and floating-point add, multiply, divide, fused multiply-add,
dot products, min/max and the unary functions, each decoded once into a closure over lane vectors.

Arithmetic follows the PTX ISA: integers wrap at their width; float32 arithmetic is done in
float32 (IEEE round-to-nearest, as `.rn`); `fma.rn.f32` is one float64 multiply-add (the
product exact) rounded to float32, the rare sums that land on a float32 midpoint first made
round-to-odd so that the two roundings give the single one the ISA asks for; `fma.rn.f64` is
rounded once (Boldo and Melquiond's round-to-odd emulation over an exact product, exact
rationals on the lanes whose product leaves its range). Approximate functions (`rcp.approx`,
`sqrt.approx`, `ex2.approx`, ...) are computed to full precision, which is within the few
ulp the ISA allows the GPU. float32 add, sub, mul and fma take the directed roundings (`.rz`,
`.rm`, `.rp`) from the float64 result and its exact error; float64 add, sub, mul and fma and
both widths' div, sqrt and rcp round the exact result's pair (`rounding`) once. 16-bit floats
are `halfs`'; the `.cc` forms of add, sub and mad go to `carry` (the opcode table routes them).
"""
from __future__ import annotations

import numpy as np

from . import halfs
from .operands import Op, Scope, dtype_of, reader, unsigned, unsupported, writer
from .ptx import Instruction
from .rounding import fma_pair, overflowed, product_pair, propagate_nan, quotient_pair, round_pair, sqrt_pair
from .state import Batch, Mask


def _wide(dt: np.dtype) -> np.dtype:
    return np.dtype(f"{'i' if dt.kind == 'i' else 'u'}{dt.itemsize * 2}")


def flush_subnormal(x: "np.ndarray | np.generic", dt: np.dtype) -> np.ndarray:
    """`.ftz`: subnormal values become zero of the same sign."""
    tiny = np.finfo(dt).tiny
    return np.where(np.abs(x) < tiny, np.copysign(dt.type(0), x), x).astype(dt)


def saturate(x: "np.ndarray | np.generic", dt: np.dtype) -> np.ndarray:
    """`.sat` on floats: clamp to [0, 1], NaN and -0 to +0 (as the H100 writes them)."""
    return (np.clip(np.nan_to_num(x, nan=0.0), 0, 1) + dt.type(0)).astype(dt)


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


def _fma64(a, b, c, mode: str | None):
    """fma.f64 rounded once, to nearest or by the directed `mode`; a NaN result is the GPU's
    (DFMA: b's NaN, else c's, else a's, quieted; else the default NaN)."""
    s, e = fma_pair(a, b, c, mode or "rn", sign=mode is not None)
    r = s if mode is None else round_pair(s, e, "f64", mode).view(np.float64)
    r = propagate_nan(r, b, c, a)
    return r if r.ndim else r[()]


def _sum_error(p, c, mode: str):
    """The float64 sum p + c and its exact error (Knuth's TwoSum): p + c == sum + error. An exact
    zero is +0 unless both addends are -0, or, rounding down (`mode` 'rm'), -0 unless both are +0."""
    p, c = np.asarray(p, np.float64), np.asarray(c, np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        s = p + c
        bb = s - p
        e = (p - (s - bb)) + (c - bb)
        if mode == "rm":
            s = np.where(s == 0, -(np.negative(p) + np.negative(c)), s)
        return s, e


def round_directed_f32(s, e, mode: str) -> np.ndarray:
    """The float32 that `mode` ('rz', 'rm', 'rp') rounds the exact value s + e to, where s is a
    float64 and e its exact error: a float32 can equal s, so the nearest float32 of s steps at
    most once, by the side the exact value lies on."""
    s = np.atleast_1d(np.asarray(s, np.float64))
    e = np.broadcast_to(np.asarray(e, np.float64), s.shape)
    f = s.astype(np.float32)
    wide = f.astype(np.float64)
    with np.errstate(invalid="ignore"):
        above = (wide > s) | ((wide == s) & (e < 0))  # f lies above the exact value
        below = (wide < s) | ((wide == s) & (e > 0))
        down = {"rm": above, "rp": np.zeros_like(above), "rz": above & (s > 0)}[mode]
        up = {"rm": np.zeros_like(below), "rp": below, "rz": below & (s < 0)}[mode]
    f = np.where(down, np.nextafter(f, np.float32(-np.inf)), f)
    return np.where(up, np.nextafter(f, np.float32(np.inf)), f).astype(np.float32)


def round_to_odd(s: np.ndarray, product, c, scratch: "np.ndarray | None" = None) -> None:
    """In place: make the float64 sums `s` = product + c round-to-odd where they may sit on a
    float32 rounding midpoint, so that rounding them to float32 rounds the exact sum once. A
    midpoint has its low 28 bits zero: one masked pass (into `scratch`, a float64 array of s's
    shape that may be overwritten, if given) nearly always finds none. `product()` gives the
    exact products (shape of s), asked for only when there are candidates."""
    u = s.view(np.uint64)
    low = np.bitwise_and(u, np.uint64(0x0FFFFFFF), out=None if scratch is None else scratch.view(np.uint64))
    if low.size == 0 or low.min() != 0:
        return
    idx = np.flatnonzero(low == 0)
    ui = u.flat[idx]
    # a midpoint has bit 28 set, or lies below float32's normal range (0x3810... is 2^-126)
    tiny = (ui & np.uint64(0x7FFFFFFFFFFFFFFF)) < np.uint64(0x3810000000000000)
    keep = ((ui & np.uint64(0x10000000)) != 0) | tiny
    idx, ui = idx[keep], ui[keep]
    if not idx.size:
        return
    si = s.flat[idx]
    p = np.broadcast_to(product(), s.shape).flat[idx]
    ci = np.broadcast_to(np.asarray(c, np.float64), s.shape).flat[idx]
    with np.errstate(invalid="ignore", over="ignore"):
        bb = si - p
        e = (p - (si - bb)) + (ci - bb)  # the exact error of the float64 sum (TwoSum)
    fix = np.isfinite(si) & (e != 0) & ((ui & np.uint64(1)) == 0)
    if fix.any():
        s.flat[idx[fix]] = np.nextafter(si[fix], np.copysign(np.inf, e[fix]))


def _popc(x):
    x = np.asarray(x)
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x).astype(np.uint32)
    u = x.view(unsigned(x.dtype)) if x.ndim else x.astype(unsigned(x.dtype))
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


_HALVES = frozenset({"f16", "f16x2", "bf16", "bf16x2"})


def refuse_half_pairs(ins: Instruction) -> None:
    """16-bit floats live in integer registers here: an opcode with no 16-bit float model would
    compute on their bits, so refuse."""
    if _HALVES.intersection(ins.types):
        raise unsupported(ins, f".{ins.type} is not modelled for {ins.base}")


def _directed(ins: Instruction, ctx: Scope, mode: str, pair, nan_order: tuple[int, ...] = ()) -> Op:
    """An f32 or f64 instruction rounding the exact result's pair `pair(*float64 operands)` by `mode`
    (.ftz for f32 flushes subnormal operands and results). NaN results are the GPU's: f32 the
    canonical NaN (its division and root routines write it); f64 the first NaN operand in
    `nan_order` quieted (DADD, DMUL), or the float64 operation's own NaN where it is empty."""
    t = ins.type
    dt = dtype_of(t)
    d, *srcs = ins.operands
    rs, put = [reader(o, t, ctx) for o in srcs], writer(d, ctx)
    ftz = ins.has("ftz") and t == "f32"

    def op(b: Batch, m: Mask) -> None:
        xs = [np.asarray(r(b), dt) for r in rs]
        if ftz:
            xs = [flush_subnormal(x, dt) for x in xs]
        s, e = pair(*(x.astype(np.float64) for x in xs))
        r = round_pair(s, e, t, mode).view(dt)
        if t == "f32":
            r = np.where(np.isnan(r), np.uint32(0x7FFFFFFF).view(np.float32), flush_subnormal(r, dt) if ftz else r)
        elif nan_order:
            r = propagate_nan(r, *(xs[i] for i in nan_order))
        put(b, r, m)
    return op


def _add_pair(mode: str, negate: bool):
    def pair(x, y):
        y = np.negative(y) if negate else y
        s, e = _sum_error(x, y, mode)
        return s, overflowed(s, e, np.isfinite(x) & np.isfinite(y))
    return pair


def decode_binary(ins: Instruction, pc: int, ctx: Scope) -> Op:
    if halfs.is_half(ins):
        return halfs.decode_half(ins, pc, ctx)
    base, t = ins.base, ins.type
    dt = dtype_of(t)
    d, a, bo = ins.operands[:3]
    ra, rb, put = reader(a, t, ctx), reader(bo, t, ctx), writer(d, ctx)
    if dt.kind == "f":
        mode = next((k for k in ("rz", "rm", "rp") if ins.has(k)), None)
        if mode and t == "f64":  # DADD and DMUL: b's NaN first
            return _directed(ins, ctx, mode, product_pair if base == "mul" else _add_pair(mode, base == "sub"), (1, 0))
        sat, ftz = ins.has("sat"), ins.has("ftz")
        f = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[base]

        def op(b: Batch, m: Mask) -> None:
            x, y = ra(b), rb(b)
            if ftz:
                x, y = flush_subnormal(x, dt), flush_subnormal(y, dt)
            if mode is None:
                r = f(x, y, dtype=dt)
            elif base == "mul":  # the float64 product of two float32 is exact
                r = round_directed_f32(np.multiply(x, y, dtype=np.float64), 0.0, mode)
            else:
                r = round_directed_f32(*_sum_error(x, y if base == "add" else np.negative(y), mode), mode)
            if ftz:
                r = flush_subnormal(r, dt)
            if sat:
                r = saturate(r, dt)
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
    f = {"add": np.add, "sub": np.subtract}[base]
    return lambda b, m: put(b, f(ra(b), rb(b), dtype=dt), m)


def decode_sad(ins: Instruction, pc: int, ctx: Scope) -> Op:
    """sad: c + |a - b|, the difference taken without wrapping, the sum at the type's width."""
    t = ins.type
    dt = dtype_of(t)
    d, a, bo, c = ins.operands[:4]
    ra, rb, rc, put = reader(a, t, ctx), reader(bo, t, ctx), reader(c, t, ctx), writer(d, ctx)

    def op(b: Batch, m: Mask) -> None:
        x, y = np.asarray(ra(b), dt), np.asarray(rb(b), dt)
        ux, uy = x.astype(unsigned(dt)), y.astype(unsigned(dt))  # the difference fits unsigned
        diff = np.where(x >= y, ux - uy, uy - ux).astype(dt)
        put(b, np.add(diff, rc(b), dtype=dt), m)
    return op


def decode_mad(ins: Instruction, pc: int, ctx: Scope) -> Op:
    refuse_half_pairs(ins)  # no mad of 16-bit floats in the ISA (fma is)
    t = ins.type
    dt = dtype_of(t)
    if dt.kind == "f":
        return decode_fma(ins, pc, ctx)
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
    if ins.has("hi") and ins.has("sat"):  # .sat (.s32 only): the addition clamps to MININT..MAXINT
        if t != "s32":
            raise unsupported(ins)
        return lambda b, m: put(b, np.clip(np.asarray(_mulhi(ra(b), rb(b), dt), np.int64) + np.asarray(rc(b), np.int64),
                                           -2 ** 31, 2 ** 31 - 1).astype(np.int32), m)
    if ins.has("hi"):
        return lambda b, m: put(b, np.add(_mulhi(ra(b), rb(b), dt), rc(b), dtype=dt), m)
    return lambda b, m: put(b, np.add(np.multiply(ra(b), rb(b), dtype=dt), rc(b), dtype=dt), m)


def decode_fma(ins: Instruction, pc: int, ctx: Scope) -> Op:
    if halfs.is_half(ins):
        return halfs.decode_half(ins, pc, ctx)
    t = ins.type
    dt = dtype_of(t)
    mode = next((k for k in ("rz", "rm", "rp") if ins.has(k)), None)
    d, a, bo, c = ins.operands[:4]
    ra, rb, rc, put = reader(a, t, ctx), reader(bo, t, ctx), reader(c, t, ctx), writer(d, ctx)
    sat, ftz = ins.has("sat"), ins.has("ftz")
    if t == "f32":
        def op(b: Batch, m: Mask) -> None:
            x, y, z = ra(b), rb(b), rc(b)
            if ftz:
                x, y, z = flush_subnormal(x, dt), flush_subnormal(y, dt), flush_subnormal(z, dt)
            if mode:  # the float64 product is exact; the sum's error is known exactly
                r = round_directed_f32(*_sum_error(np.multiply(x, y, dtype=np.float64), z, mode), mode)
            else:
                r = np.multiply(x, y, dtype=np.float64)
                r = np.atleast_1d(np.add(r, z, out=r if type(r) is np.ndarray else None))
                round_to_odd(r, lambda: np.multiply(x, y, dtype=np.float64), z)
                r = r.astype(np.float32)
            if ftz:
                r = flush_subnormal(r, dt)
            if sat:
                r = saturate(r, dt)
            put(b, r, m)
        return op
    if t == "f64":
        return lambda b, m: put(b, _fma64(ra(b), rb(b), rc(b), mode), m)
    raise unsupported(ins, f"fma of .{t}")


def decode_div(ins: Instruction, pc: int, ctx: Scope) -> Op:
    refuse_half_pairs(ins)
    t = ins.type
    dt = dtype_of(t)
    d, a, bo = ins.operands[:3]
    ra, rb, put = reader(a, t, ctx), reader(bo, t, ctx), writer(d, ctx)
    if dt.kind == "f":
        mode = next((k for k in ("rz", "rm", "rp") if ins.has(k)), None)
        if mode:
            return _directed(ins, ctx, mode, quotient_pair)
        ftz = ins.has("ftz")
        approx = ins.has("approx") and t == "f32"

        def fdiv(b: Batch, m: Mask) -> None:
            x, y = ra(b), rb(b)
            if ftz:
                x, y = flush_subnormal(x, dt), flush_subnormal(y, dt)
            r = np.divide(x, y, dtype=dt)
            if approx:  # ISA: for 2^126 < |b| < 2^128, NaN if a is infinite, else a signed zero
                huge = (np.abs(y) > dt.type(2.0 ** 126)) & np.isfinite(y) & ~np.isnan(x)
                r = np.where(huge, np.where(np.isinf(x), dt.type(np.nan), r * dt.type(0)), r).astype(dt)
            put(b, flush_subnormal(r, dt) if ftz else r, m)
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


def decode_unary(ins: Instruction, pc: int, ctx: Scope) -> Op:
    if halfs.is_half(ins):
        return halfs.decode_half(ins, pc, ctx)
    base, t = ins.base, ins.type
    dt = dtype_of(t)
    d, a = ins.operands[:2]
    ra, put = reader(a, t, ctx), writer(d, ctx)
    ftz = ins.has("ftz")
    if base in ("neg", "abs") and ftz and t == "f32":  # subnormal inputs flush to a same-signed zero first
        f = np.negative if base == "neg" else np.abs
        return lambda b, m: put(b, f(flush_subnormal(ra(b), dt)).astype(dt), m)
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
    if base == "bfind":  # the highest bit unlike the sign (signed types), or 0xFFFFFFFF if none
        width = 8 * dt.itemsize

        def bfind(b: Batch, m: Mask) -> None:
            x = np.asarray(ra(b), dt)
            if dt.kind == "i":
                x = np.where(x < 0, np.invert(x), x)
            z = _clz(x, width)
            r = z if ins.has("shiftamt") else np.uint32(width - 1) - z
            put(b, np.where(z == width, np.uint32(0xFFFFFFFF), r).astype(np.uint32), m)
        return bfind
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
    mode = next((k for k in ("rz", "rm", "rp") if ins.has(k)), None)
    if mode and base in ("sqrt", "rcp"):
        return _directed(ins, ctx, mode, sqrt_pair if base == "sqrt" else lambda x: quotient_pair(1.0, x))
    if mode:
        raise unsupported(ins, "directed rounding")
    f = fns[base]
    exact_f32 = base == "sqrt" and not ins.has("approx") and t == "f32"
    if base in ("rcp", "rsqrt") and ins.has("approx") and ftz and t == "f64":
        return _gross_f64(f, ra, put)

    def fop(b: Batch, m: Mask) -> None:
        x = ra(b)
        if ftz:
            x = flush_subnormal(x, dt)
        if exact_f32 or t == "f64":
            r = f(np.asarray(x, dt)).astype(dt)
        else:
            r = f(np.asarray(x, np.float64)).astype(dt)
        put(b, flush_subnormal(r, dt) if ftz else r, m)
    return fop


def _gross_f64(f, ra, put) -> Op:
    """{rcp,rsqrt}.approx.ftz.f64: the ISA computes from the upper word of a and zeroes the low
    32 bits of d (subnormals flushed; NaN stays NaN)."""
    hi = np.uint64(0xFFFFFFFF00000000)

    def op(b: Batch, m: Mask) -> None:
        x = flush_subnormal(np.asarray(ra(b), np.float64), np.dtype(np.float64))
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.asarray(flush_subnormal(f((x.view(np.uint64) & hi).view(np.float64)), np.dtype(np.float64)))
        r = (r.view(np.uint64) & hi).view(np.float64)
        put(b, np.where(np.isnan(x), x, r), m)
    return op


def decode_minmax(ins: Instruction, pc: int, ctx: Scope) -> Op:
    if halfs.is_half(ins) or (ins.type == "f32" and ins.has("NaN", "xorsign")):
        return halfs.decode_minmax(ins, pc, ctx)
    t = ins.type
    dt = dtype_of(t)
    d, a, bo = ins.operands[:3]
    ra, rb, put = reader(a, t, ctx), reader(bo, t, ctx), writer(d, ctx)
    if ins.has("NaN", "xorsign", "relu") or len(ins.operands) != 3:
        raise unsupported(ins)
    if dt.kind == "f":
        f = np.fmin if ins.base == "min" else np.fmax
        zeros = np.bitwise_or if ins.base == "min" else np.bitwise_and  # -0.0 < +0.0: by the sign bit
        u, ftz = unsigned(dt), ins.has("ftz") and t == "f32"

        def fminmax(b: Batch, m: Mask) -> None:
            x, y = np.asarray(ra(b), dt), np.asarray(rb(b), dt)
            if ftz:
                x, y = flush_subnormal(x, dt), flush_subnormal(y, dt)
            put(b, np.where(x == y, zeros(x.view(u), y.view(u)).view(dt), f(x, y)).astype(dt), m)
        return fminmax
    f = np.minimum if ins.base == "min" else np.maximum
    return lambda b, m: put(b, f(ra(b), rb(b)).astype(dt), m)


def decode_dot(ins: Instruction, pc: int, ctx: Scope) -> Op:
    """dp4a.atype.btype d, a, b, c: c plus the products of a's and b's four bytes; dp2a.{lo,hi}:
    c plus a's two 16-bit halves times b's bytes 0-1 (.lo) or 2-3 (.hi). A part is signed where
    its operand's type is .s32; the sum wraps at 32 bits (d is .u32 only if both types are)."""
    ta, tb = ins.types[-2:]
    if ins.base == "dp4a":
        a_width, count, first = 8, 4, 0
    elif ins.has("lo", "hi"):
        a_width, count, first = 16, 2, 2 if ins.has("hi") else 0
    else:
        raise unsupported(ins, "dp2a needs .lo or .hi")
    d, a, bo, c = ins.operands[:4]
    ra, rb, rc, put = reader(a, "b32", ctx), reader(bo, "b32", ctx), reader(c, "b32", ctx), writer(d, ctx)

    def parts(x, width: int, signed: bool, k0: int) -> list[np.ndarray]:
        u = np.asarray(x).astype(np.int64)
        out = []
        for k in range(k0, k0 + count):
            v = (u >> (width * k)) & ((1 << width) - 1)
            out.append(v - ((v >> (width - 1)) << width) if signed else v)
        return out

    def op(b: Batch, m: Mask) -> None:
        total = np.asarray(rc(b)).astype(np.int64)
        for x, y in zip(parts(ra(b), a_width, ta == "s32", 0), parts(rb(b), 8, tb == "s32", first)):
            total = total + x * y
        put(b, (total & 0xFFFFFFFF).astype(np.uint32), m)
    return op
