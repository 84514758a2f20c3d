"""16-bit floating point (.f16, .bf16, and the pairs .f16x2, .bf16x2 that a .b32 register holds,
the low half first), each instruction decoded once into a closure over lane vectors.

Registers hold 16-bit floats as their bits. An operation decodes them to float64 (exact), forms
the exact result as a rounding pair (sums by TwoSum, products exactly, a*b + c as an exact
product plus TwoSum) and rounds it once (`rounding.round_pair`), so no result is rounded twice.
As the ISA says and the H100 does: a NaN result is the canonical NaN 0x7FFF; `.ftz` (f16 only)
flushes subnormal operands and results to zeros of the same sign (f16 keeps subnormals
otherwise); `.sat` clamps to [0, 1] with NaN to +0; `.relu` clamps negative results to +0 and
keeps NaN as the canonical NaN. neg and abs are the GPU's adds of a signed zero: the sign bit
changes and a NaN becomes the canonical NaN. min and max order -0 below +0, return the other
operand where one is NaN, the canonical NaN where both are (or either, with `.NaN`), and set the
sign to the operands' exclusive or with `.xorsign.abs`; the f32 forms with `.NaN` or `.xorsign`
follow the same rules and are decoded here too. The approximate ex2 and tanh are computed to
full precision and rounded once, within the ulp the ISA allows the GPU.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .operands import Op, Scope, reader, unsupported, writer
from .ptx import Instruction
from .rounding import FORMATS, decode, int_pair, round_pair, two_sum
from .state import Batch, Mask

# type -> (format, halves in the register)
HALF_TYPES = {"f16": ("f16", 1), "f16x2": ("f16", 2), "bf16": ("bf16", 1), "bf16x2": ("bf16", 2)}
NAN16 = np.uint16(0x7FFF)
ONE = {"f16": 0x3C00, "bf16": 0x3F80, "f32": 0x3F800000}
_EXP = {"f16": 0x7C00, "bf16": 0x7F80, "f32": 0x7F800000}
Bits = Callable[..., np.ndarray]


def is_half(ins: Instruction) -> bool:
    """Whether the instruction computes on 16-bit floats."""
    return ins.type in HALF_TYPES


def flush(bits, fmt: str) -> np.ndarray:
    """`.ftz`: subnormals (exponent field zero) become zeros of the same sign."""
    u = np.asarray(bits)
    f = FORMATS[fmt]
    sign = u.dtype.type(f.sign)
    return np.where((u & u.dtype.type(_EXP[fmt])) == 0, u & sign, u).astype(f.uint)


def halves(x, n: int) -> np.ndarray:
    """A register's 16-bit floats: its bits as uint16, with a leading axis of 2 (low, high) for a pair."""
    u = np.asarray(x)
    if n == 1:
        return u.astype(np.uint16)
    u = u.astype(np.uint32)
    return np.stack([u & np.uint32(0xFFFF), u >> np.uint32(16)]).astype(np.uint16)


def join(r: np.ndarray, n: int) -> np.ndarray:
    """The register value of `halves`' result."""
    if n == 1:
        return r.astype(np.uint16)
    return r[0].astype(np.uint32) | (r[1].astype(np.uint32) << np.uint32(16))


def packed(ins: Instruction, ctx: Scope, f: Bits, n_in: int) -> Op:
    """A closure applying `f` (uint16 bits in, uint16 bits out) to the halves of `n_in` operands."""
    fmt, n = HALF_TYPES[ins.type]
    rtype = "b16" if n == 1 else "b32"
    d, *srcs = ins.operands[:n_in + 1]
    rs, put = [reader(o, rtype, ctx) for o in srcs], writer(d, ctx)

    def op(b: Batch, m: Mask) -> None:
        vals = np.broadcast_arrays(*(np.asarray(r(b)) for r in rs))
        put(b, join(f(*(halves(v, n) for v in vals)), n), m)
    return op


def _round(s, e, fmt: str) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        e = np.where(np.isfinite(s), e, 0.0)
    return np.where(np.isnan(s), NAN16, round_pair(s, e, fmt)).astype(np.uint16)


_TINY = 2.0 ** -14 - 2.0 ** -26  # below this, f16's 11 bits at an unbounded exponent round under 2^-14


def flush_tiny(r: np.ndarray, s, e) -> np.ndarray:
    """f16 `.ftz` on a result: zero (of its sign) where the exact value s + e is tiny after
    rounding, as the H100 decides: rounded to 11 bits with the exponent unbounded, below 2^-14
    (so 2^-14 (1 - 2^-20) rounds to 2^-14 and stays, 2^-14 (1 - 2^-11) flushes)."""
    with np.errstate(invalid="ignore"):
        m = np.abs(s)
        tiny = (m < _TINY) | ((m == _TINY) & (np.sign(e) * np.sign(s) < 0))
    return np.where(tiny & (m != 0), r & np.uint16(0x8000), r).astype(np.uint16)


def finish(r: np.ndarray, fmt: str, ftz: bool = False, sat: bool = False, relu: bool = False) -> np.ndarray:
    """The result modifiers on rounded bits: .ftz (subnormal bits to zero; arithmetic flushes by
    `flush_tiny` first), then .sat ([0, 1], NaN and -0 to +0) or .relu (negatives and -0 to +0,
    NaN stays the canonical NaN)."""
    if ftz:
        r = flush(r, fmt)
    nan = (r & np.uint16(0x7FFF)) > np.uint16(_EXP[fmt])
    neg = (r & np.uint16(0x8000)) != 0
    if sat:
        over = ~neg & ~nan & (r > np.uint16(ONE[fmt]))
        r = np.where(nan | neg, np.uint16(0), np.where(over, np.uint16(ONE[fmt]), r))
    if relu:
        r = np.where(nan, NAN16, np.where(neg, np.uint16(0), r))
    return r.astype(np.uint16)


def decode_arith(ins: Instruction, pc: int, ctx: Scope) -> Op:
    """add, sub, mul (.rn), fma.rn and mad.rn on 16-bit floats and pairs."""
    fmt, _ = HALF_TYPES[ins.type]
    base = ins.base
    if ins.has("rz", "rm", "rp", "oob"):
        raise unsupported(ins, "only .rn is modelled for 16-bit floats (.oob is not)")
    ftz, sat, relu = ins.has("ftz"), ins.has("sat"), ins.has("relu")
    if fmt == "bf16" and (ftz or sat):
        raise unsupported(ins, ".ftz and .sat are not bf16 modifiers")
    n_in = 3 if base in ("fma", "mad") else 2

    def f(*ops):
        if ftz:
            ops = [flush(o, fmt) for o in ops]
        x = [decode(o, fmt) for o in ops]
        with np.errstate(invalid="ignore"):
            if base == "mul":
                s, e = x[0] * x[1], 0.0  # a product of two 16-bit floats is exact in float64
            elif n_in == 3:
                s, e = two_sum(x[0] * x[1], x[2])
            else:
                s, e = two_sum(x[0], -x[1] if base == "sub" else x[1])
        r = _round(s, e, fmt)
        return finish(flush_tiny(r, s, e) if ftz else r, fmt, ftz, sat, relu)
    return packed(ins, ctx, f, n_in)


def decode_neg_abs(ins: Instruction, pc: int, ctx: Scope) -> Op:
    """neg, abs: the sign bit flipped or cleared; NaN becomes the canonical NaN (the GPU adds -0)."""
    fmt, _ = HALF_TYPES[ins.type]
    ftz = ins.has("ftz")
    mask, flip = (np.uint16(0xFFFF), np.uint16(0x8000)) if ins.base == "neg" else (np.uint16(0x7FFF), np.uint16(0))

    def f(x):
        if ftz:
            x = flush(x, fmt)
        nan = (x & np.uint16(0x7FFF)) > np.uint16(_EXP[fmt])
        return np.where(nan, NAN16, (x & mask) ^ flip).astype(np.uint16)
    return packed(ins, ctx, f, 1)


def minmax_bits(fmt: str, largest: bool, nan_wins: bool, xorsign: bool, ftz: bool) -> Bits:
    """The ISA's min/max on bits of `fmt` (f16, bf16 or f32)."""
    f = FORMATS[fmt]
    sign, nan_bits = f.uint(f.sign), f.uint(f.nan)

    def op(a, b):
        if ftz:
            a, b = flush(a, fmt), flush(b, fmt)
        a, b = np.asarray(a).astype(f.uint), np.asarray(b).astype(f.uint)
        xs = (a ^ b) & sign
        if xorsign:  # .xorsign.abs: compare magnitudes, then sign the result with the signs' xor
            a, b = a & ~sign, b & ~sign
        x, y = decode(a, fmt), decode(b, fmt)
        na, nb = np.isnan(x), np.isnan(y)
        with np.errstate(invalid="ignore"):
            # -0 orders below +0: on equal values the one with the sign bit set is the smaller
            first = (x > y) | ((x == y) & ((a & sign) == 0)) if largest else (x < y) | ((x == y) & ((a & sign) != 0))
        r = np.where(first, a, b)
        r = np.where(na, b, np.where(nb, a, r))
        if xorsign:
            r = (r & ~sign) | xs
        bad = (na & nb) | ((na | nb) if nan_wins else False)
        return np.where(bad, nan_bits, r).astype(f.uint)
    return op


def decode_minmax(ins: Instruction, pc: int, ctx: Scope) -> Op:
    """min, max {.ftz}{.NaN}{.xorsign.abs} on 16-bit floats and pairs, and the f32 forms with
    .NaN or .xorsign.abs."""
    if ins.has("relu") or (ins.has("xorsign") != ins.has("abs")):
        raise unsupported(ins)
    if len(ins.operands) != 3:
        raise unsupported(ins, "three-operand min/max is not modelled")
    t = ins.type
    fmt = HALF_TYPES[t][0] if t in HALF_TYPES else t
    if fmt not in ("f16", "bf16", "f32") or (ins.has("ftz") and fmt == "bf16"):
        raise unsupported(ins)
    f = minmax_bits(fmt, ins.base == "max", ins.has("NaN"), ins.has("xorsign"), ins.has("ftz"))
    if fmt != "f32":
        return packed(ins, ctx, f, 2)
    d, a, bo = ins.operands[:3]
    ra, rb, put = reader(a, "b32", ctx), reader(bo, "b32", ctx), writer(d, ctx)
    return lambda b, m: put(b, f(ra(b), rb(b)).view(np.float32), m)


_APPROX = {"ex2": np.exp2, "tanh": np.tanh}


def decode_approx(ins: Instruction, pc: int, ctx: Scope) -> Op:
    """ex2.approx (.f16, .f16x2; .ftz.bf16, .ftz.bf16x2) and tanh.approx on 16-bit floats: the
    function in float64, rounded once (the ISA allows the GPU a few ulp)."""
    fmt, _ = HALF_TYPES[ins.type]
    if ins.base not in _APPROX or not ins.has("approx"):
        raise unsupported(ins)
    fn, ftz = _APPROX[ins.base], ins.has("ftz") and fmt == "bf16"

    def f(x):
        if ftz:
            x = flush(x, fmt)
        with np.errstate(over="ignore", invalid="ignore"):
            r = _round(fn(decode(x, fmt)), 0.0, fmt)
        return flush(r, fmt) if ftz else r
    return packed(ins, ctx, f, 1)


def decode_half(ins: Instruction, pc: int, ctx: Scope) -> Op:
    """The 16-bit float form of an arithmetic opcode (called by arith's decoders)."""
    base = ins.base
    if len(set(ins.types)) != 1:  # add.f32.f16, fma.rn.f32.bf16 (sm_100): not these
        raise unsupported(ins, "mixed-precision forms are not modelled")
    if base in ("add", "sub", "mul", "fma", "mad"):
        return decode_arith(ins, pc, ctx)
    if base in ("neg", "abs"):
        return decode_neg_abs(ins, pc, ctx)
    if base in ("min", "max"):
        return decode_minmax(ins, pc, ctx)
    if base in _APPROX:
        return decode_approx(ins, pc, ctx)
    raise unsupported(ins, f"{base}.{ins.type} is not modelled")


def value_reader(o, t: str, ctx: Scope) -> Callable[[Batch], np.ndarray]:
    """A scalar 16-bit float operand's values as float64 (exact)."""
    r, fmt = reader(o, "b16", ctx), HALF_TYPES[t][0]
    return lambda b: decode(r(b), fmt)


_INT = {"u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64"}
_INTEGRAL = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}
MAX16 = {"f16": 0x7BFF, "bf16": 0x7F7F}


def _nan_from_f64(u64, fmt: str) -> np.ndarray:
    """The NaN F2F writes for an f64 NaN: its sign and top payload bits, quieted."""
    u = np.asarray(u64).astype(np.uint64)
    shift, exp, quiet = (42, 0x7C00, 0x200) if fmt == "f16" else (45, 0x7F80, 0x40)
    mant = (u >> np.uint64(shift)).astype(np.uint16) & np.uint16(exp ^ 0x7FFF)
    sign = (u >> np.uint64(48)).astype(np.uint16) & np.uint16(0x8000)
    return sign | np.uint16(exp | quiet) | mant


def decode_cvt16(ins: Instruction, pc: int, ctx: Scope) -> Op:
    """cvt to a 16-bit float or pair: from an integer, f32, f64 or the other 16-bit format,
    rounded once by .rn/.rz/.rm/.rp; to integral values in the same format by
    .rni/.rzi/.rmi/.rpi; .relu, .satfinite (beyond the largest finite value: it, sign kept) and
    .sat. A pair converts a into the high half and b into the low. NaN: the canonical NaN, except
    from f64 (F2F keeps the sign and top payload bits, quieted). `.ftz` flushes a subnormal f32
    source to bf16, not to f16: the H100 rounds it by .rm to the f16 beside zero."""
    dtn, atn = ins.types[0], ins.types[-1]
    fmt, n = HALF_TYPES[dtn]
    if atn not in _INT | {"f32", "f64", "f16", "bf16"} or ins.has("rna", "rs", "e4m3", "e5m2"):
        raise unsupported(ins, "this conversion is not modelled")
    mode = next((k for k in ("rn", "rz", "rm", "rp") if ins.has(k)), None)
    integral = next((k for k in _INTEGRAL if ins.has(k)), None)
    if integral and atn != dtn:
        raise unsupported(ins)
    if mode is None and not integral and atn != dtn and atn not in HALF_TYPES:
        raise unsupported(ins, "a conversion to a narrower float needs a rounding modifier")
    relu, satfinite, sat = ins.has("relu"), ins.has("satfinite"), ins.has("sat")
    ftz = ins.has("ftz") and atn == "f32" and fmt == "bf16"
    d, *srcs = ins.operands[:1 + n]
    rtype = {"f32": "b32", "f64": "b64", "f16": "b16", "bf16": "b16"}.get(atn, atn)
    rs, put = [reader(o, rtype, ctx) for o in srcs], writer(d, ctx)

    def one(x) -> np.ndarray:
        x = flush(x, "f32") if ftz else np.asarray(x)
        if atn in _INT:
            s, e = int_pair(x)
        else:
            s, e = decode(x, atn), 0.0
            if integral:
                s = _INTEGRAL[integral](s)
        nan = _nan_from_f64(x, fmt) if atn == "f64" else NAN16
        r = np.where(np.isnan(s), nan, round_pair(s, e, fmt, mode or "rn")).astype(np.uint16)
        if satfinite:
            inf = (r & np.uint16(0x7FFF)) == np.uint16(_EXP[fmt])
            r = np.where(inf, (r & np.uint16(0x8000)) | np.uint16(MAX16[fmt]), r).astype(np.uint16)
        return finish(r, fmt, sat=sat, relu=relu)

    def op(b: Batch, m: Mask) -> None:
        vals = [one(r(b)) for r in rs]
        if n == 1:
            put(b, vals[0], m)
        else:  # a (the first source) into the high half
            hi, lo = np.broadcast_arrays(*vals)
            put(b, lo.astype(np.uint32) | (hi.astype(np.uint32) << np.uint32(16)), m)
    return op


def decode_cvt_from16(ins: Instruction, pc: int, ctx: Scope) -> Op:
    """cvt.f32 / cvt.f64 of an f16 or bf16: exact. NaN as the GPU writes it: f16 to f32 (an add,
    HADD2.F32) and bf16 to f32 with .ftz the canonical 0x7FFFFFFF; bf16 to f32 otherwise (a
    shift) its bits unchanged; to f64 (F2F) its sign and payload, quieted. .sat clamps to [0, 1]
    (NaN and -0 to +0); .ftz flushes a subnormal f32 result."""
    dtn, atn = ins.types[0], ins.types[-1]
    if dtn not in ("f32", "f64") or HALF_TYPES[atn][1] != 1 or any(ins.has(k) for k in _INTEGRAL):
        raise unsupported(ins)
    fmt = HALF_TYPES[atn][0]
    d, a = ins.operands[:2]
    ra, put = reader(a, "b16", ctx), writer(d, ctx)
    sat, ftz = ins.has("sat"), ins.has("ftz") and dtn == "f32"
    shift, mant = (42, 0x3FF) if fmt == "f16" else (45, 0x7F)

    def op(b: Batch, m: Mask) -> None:
        u = np.asarray(ra(b)).astype(np.uint16)
        v = decode(u, fmt)
        nan = np.isnan(v)
        if dtn == "f32":
            r = (u.astype(np.uint32) << np.uint32(16)) if fmt == "bf16" and not ftz else \
                np.where(nan, np.uint32(0x7FFFFFFF), v.astype(np.float32).view(np.uint32))
            r = np.asarray(r, np.uint32).view(np.float32)
            if ftz:
                r = np.where(np.abs(r) < np.finfo(np.float32).tiny, np.copysign(np.float32(0), r), r)
        else:
            payload = ((u & np.uint16(0x8000)).astype(np.uint64) << np.uint64(48)) | np.uint64(0x7FF8000000000000) \
                | ((u & np.uint16(mant)).astype(np.uint64) << np.uint64(shift))
            r = np.where(nan, payload, v.view(np.uint64)).view(np.float64)
        if sat:
            with np.errstate(invalid="ignore"):
                r = np.clip(np.where(np.isnan(r), 0, r), 0, 1) + r.dtype.type(0)  # + 0: -0 becomes +0
        put(b, np.asarray(r, np.float32 if dtn == "f32" else np.float64), m)
    return op
