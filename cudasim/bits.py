"""Bit, logic, comparison, selection, move and conversion instructions, each decoded once into a
closure over lane vectors.

Shifts clamp the shift amount to the width (a logical `shr` for unsigned and bit types,
arithmetic for signed); comparisons follow the PTX ISA's ordered and unordered forms;
conversions round as the modifier says and saturate float-to-integer results (NaN gives 0,
or 1 << (n - 1) from .f64 or to 64 bits, as the ISA says); `.ftz` concerns .f32 operands only.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from . import halfs
from .arith import flush_subnormal, refuse_half_pairs, saturate
from .halfs import HALF_TYPES
from .operands import Op, Scope, cast, dtype_of, reader, unsigned, unsupported, writer
from .ptx import Instruction, Operand
from .rounding import decode, int_pair, round_pair
from .state import Batch, Mask


def decode_logic(ins: Instruction, pc: int, ctx: Scope) -> Op:
    t = ins.type
    dt = dtype_of(t)
    d, a, bo = ins.operands[:3]
    ra, rb, put = reader(a, t, ctx), reader(bo, t, ctx), writer(d, ctx)
    if dt == np.bool_:
        f = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[ins.base]
    else:
        f = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[ins.base]
    return lambda b, m: put(b, f(ra(b), rb(b)), m)


def decode_shift(ins: Instruction, pc: int, ctx: Scope) -> Op:
    t = ins.type
    dt = dtype_of(t)
    if ins.base == "shr" and not t.startswith("s"):
        dt = unsigned(dt)  # logical shift
    d, a, bo = ins.operands[:3]
    ra, rs, put = reader(a, t, ctx), reader(bo, "u32", ctx), writer(d, ctx)  # shift amounts are .u32
    width = 8 * dt.itemsize
    left = ins.base == "shl"
    if bo.kind == "imm" and 0 <= bo.value < width:  # the common case: one numpy op
        sc = dt.type(bo.value)
        shift = np.left_shift if left else np.right_shift
        return lambda b, m: put(b, shift(cast(ra(b), dt), sc, dtype=dt), m)

    def op(b: Batch, m: Mask) -> None:
        x = cast(ra(b), dt)
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


def decode_funnel(ins: Instruction, pc: int, ctx: Scope) -> Op:
    """shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: the 64 bits b:a shifted by c (c mod 32 with .wrap, at
    most 32 with .clamp); .l keeps the high word, .r the low."""
    d, a, bo, c = ins.operands[:4]
    ra, rb, rc, put = reader(a, "u32", ctx), reader(bo, "u32", ctx), reader(c, "u32", ctx), writer(d, ctx)
    left, wrap = ins.has("l"), ins.has("wrap")

    def op(b: Batch, m: Mask) -> None:
        both = (np.asarray(rb(b), np.uint64) << np.uint64(32)) | np.asarray(ra(b), np.uint64)
        n = np.asarray(rc(b), np.uint64)
        n = n & np.uint64(31) if wrap else np.minimum(n, np.uint64(32))
        if left:
            r = (both << n) >> np.uint64(32)
        else:
            r = both >> n
        put(b, (r & np.uint64(0xFFFFFFFF)).astype(np.uint32), m)
    return op


def decode_mov(ins: Instruction, pc: int, ctx: Scope) -> Op:
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
            u = unsigned(dt)
            return lambda x, y: f(cast(x, u), cast(y, u))
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


def _operands(ins: Instruction, t: str, ctx: Scope):
    """Readers of a comparison's a and b as compared: float64 values of 16-bit floats (a leading
    axis of 2, low then high, for pairs), the values themselves otherwise; .ftz flushes f32 and f16."""
    a, bo = ins.operands[1:3]
    ftz = ins.has("ftz")
    if t in HALF_TYPES:
        fmt, n = HALF_TYPES[t]
        rtype = "b16" if n == 1 else "b32"
        ra, rb = reader(a, rtype, ctx), reader(bo, rtype, ctx)

        def half(r):
            def read(b: Batch):
                x = halfs.halves(r(b), n)
                return decode(halfs.flush(x, fmt) if ftz else x, fmt)
            return read
        return half(ra), half(rb), np.dtype(np.float64)
    dt = dtype_of(t)
    ra, rb = reader(a, t, ctx), reader(bo, t, ctx)
    if ftz and dt.kind == "f":
        return (lambda b: flush_subnormal(ra(b), dt)), (lambda b: flush_subnormal(rb(b), dt)), dt
    return ra, rb, dt


def decode_setp(ins: Instruction, pc: int, ctx: Scope) -> Op:
    """setp: a predicate from a comparison (and its complement into the second destination); for
    16-bit pairs, p from the low halves and q from the high, each combined with c."""
    t = ins.type
    pair = t in HALF_TYPES and HALF_TYPES[t][1] == 2
    cmp = ins.mods[0]
    boolop = ins.mods[1] if len(ins.mods) > 1 and ins.mods[1] in _BOOL else None
    ops = ins.operands
    ra, rb, dt = _operands(ins, t, ctx)
    f = _compare(cmp, dt)
    put = writer(ops[0], ctx)
    putq = writer(Operand("reg", name=ins.dest_pred), ctx) if ins.dest_pred else None
    rc = None
    if boolop:
        rc = reader(ops[3], "pred", ctx)
    g = _BOOL.get(boolop or "", None)

    def op(b: Batch, m: Mask) -> None:
        r = np.asarray(f(ra(b), rb(b)))
        if r.ndim == pair:  # immediate operands: one value for every lane
            r = np.broadcast_to(r[..., None], r.shape + (b.L,))
        p, q = (r[0], r[1]) if pair else (r, ~r)
        if g is not None:
            c = rc(b)
            p, q = g(p, c), g(q, c)
        put(b, p if p.base is None else np.array(p), m)  # views (a pair's halves, broadcasts) are copied
        if putq is not None:
            putq(b, q if q.base is None else np.array(q), m)
    return op


_TRUE = {"f32": 0x3F800000, "f16": 0x3C00, "bf16": 0x3F80, "f16x2": 0x3C00, "bf16x2": 0x3F80, "u32": 0xFFFFFFFF,
         "s32": 0xFFFFFFFF, "u16": 0xFFFF, "s16": 0xFFFF}


def decode_set(ins: Instruction, pc: int, ctx: Scope) -> Op:
    """set.CmpOp{.BoolOp}.dtype.stype: the comparison (combined with c) written as the dtype's
    true (1.0, or all ones for integers) or 0; for 16-bit pairs, per half (0xFFFF as the integer
    true of a half written to a .u32/.s32)."""
    dtn, stn = ins.types[0], ins.types[-1]
    pair = stn in HALF_TYPES and HALF_TYPES[stn][1] == 2
    if dtn not in _TRUE or (pair and dtn not in ("u32", "s32", stn)):
        raise unsupported(ins)
    cmp = ins.mods[0]
    boolop = ins.mods[1] if len(ins.mods) > 1 and ins.mods[1] in _BOOL else None
    ra, rb, dt = _operands(ins, stn, ctx)
    f = _compare(cmp, dt)
    g, rc = _BOOL.get(boolop or ""), reader(ins.operands[3], "pred", ctx) if boolop else None
    true = _TRUE[dtn] & (0xFFFF if pair else 0xFFFFFFFF)
    width = np.uint32 if (pair or dtn in ("f32", "u32", "s32")) else np.uint16
    put = writer(ins.operands[0], ctx)

    def op(b: Batch, m: Mask) -> None:
        r = np.asarray(f(ra(b), rb(b)))
        if g is not None:
            r = g(r, rc(b))
        v = np.where(r, true, 0).astype(np.uint32)
        if pair:
            v = v[0] | (v[1] << np.uint32(16))
        put(b, np.broadcast_to(v, (b.L,) if v.ndim == 0 else v.shape).astype(width), m)
    return op


def decode_selp(ins: Instruction, pc: int, ctx: Scope) -> Op:
    t = ins.type
    d, a, bo, c = ins.operands[:4]
    put = writer(d, ctx)
    if ins.base == "selp":
        ra, rb, rc = reader(a, t, ctx), reader(bo, t, ctx), reader(c, "pred", ctx)
        return lambda b, m: put(b, np.where(rc(b), ra(b), rb(b)), m)
    # slct.dtype.ctype: a and b are of the first type, copied unchanged; c of the last decides
    dtn, ct = ins.types[0], ins.types[-1]
    ra, rb, rc = reader(a, dtn, ctx), reader(bo, dtn, ctx), reader(c, ct, ctx)
    dt, ftz = dtype_of(dtn), ins.has("ftz") and ct == "f32"  # .ftz flushes a subnormal c to a signed zero

    def slct(b: Batch, m: Mask) -> None:
        z = np.asarray(rc(b))
        put(b, np.where((flush_subnormal(z, z.dtype) if ftz else z) >= 0, ra(b), rb(b)).astype(dt), m)
    return slct


_IRND = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}


def decode_cvt(ins: Instruction, pc: int, ctx: Scope) -> Op:
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
    if dtn in HALF_TYPES:
        return halfs.decode_cvt16(ins, pc, ctx)
    if ins.has("pack"):
        return _decode_cvt_pack(ins, ctx)
    dd, ad = dtype_of(dtn), dtype_of(atn)
    ra = reader(a, atn, ctx)
    if atn in HALF_TYPES:  # a 16-bit float source: widened by halfs, else its exact float64 value
        if dd.kind == "f":
            return halfs.decode_cvt_from16(ins, pc, ctx)
        if HALF_TYPES[atn][1] != 1:
            raise unsupported(ins)
        ra, ad = halfs.value_reader(a, atn, ctx), np.dtype(np.float64)
    irnd = next((k for k in _IRND if ins.has(k)), None)
    frnd = next((k for k in ("rn", "rz", "rm", "rp") if ins.has(k)), None)
    ftz_in, ftz_out = ftz and atn == "f32", ftz and dtn == "f32"  # .ftz concerns .f32 operands only
    if dd.kind == "f" and ad.kind == "f":
        if irnd:
            f = _IRND[irnd]

            def fround(b: Batch, m: Mask) -> None:
                x = ra(b)
                x = flush_subnormal(x, ad) if ftz_in else x
                r = f(x).astype(dd)
                if sat:
                    r = saturate(r, dd)
                put(b, r, m)
            return fround
        narrow = dd.itemsize < ad.itemsize and atn not in HALF_TYPES
        mode = frnd if narrow and frnd in ("rz", "rm", "rp") else None  # f64 -> f32, rounded by the mode
        relu, satfinite = ins.has("relu"), ins.has("satfinite")

        def fconv(b: Batch, m: Mask) -> None:
            x = ra(b)
            if ftz_in:
                x = flush_subnormal(x, ad)
            if mode:
                r = round_pair(np.asarray(x, np.float64), 0.0, dtn, mode).view(dd)
            else:
                r = np.asarray(x).astype(dd)
            if ftz_out:
                r = flush_subnormal(r, dd)
            if sat:
                r = saturate(r, dd)
            if satfinite:  # beyond the largest finite value: that value, sign kept
                r = np.where(np.isinf(r), np.copysign(np.finfo(dd).max, r), r).astype(dd)
            if relu:  # negative results (and -0.0) clamp to +0.0; NaN stays NaN
                r = np.where(np.signbit(r) & ~np.isnan(r), dd.type(0), r).astype(dd)
            put(b, r, m)
        return fconv
    if dd.kind != "f" and ad.kind == "f":  # float -> int: round, saturate; NaN as the ISA says
        f = _IRND.get(irnd or "rzi")
        lo, hi = np.iinfo(dd).min, np.iinfo(dd).max
        # NaN: 0, unless the source is .f64 or the destination 64-bit: then 1 << (n - 1)
        nan = 0 if atn != "f64" and dd.itemsize < 8 else np.array(1 << (8 * dd.itemsize - 1), np.uint64).astype(
            unsigned(dd)).view(dd)[()]

        def f2i(b: Batch, m: Mask) -> None:
            x = ra(b)
            x = np.asarray(flush_subnormal(x, ad) if ftz_in else x, np.float64)
            r = f(x)
            isnan = np.isnan(r)
            r = np.where(isnan, 0, np.clip(r, lo, hi))
            # clip in float64 can round hi up to 2^63 / 2^64: handle the top explicitly
            big = r >= float(hi)
            out = np.where(big, 0, r).astype(dd)
            out = np.where(big, dd.type(hi), out)
            put(b, np.where(isnan, dd.type(nan), out) if nan else out, m)
        return f2i
    if dd.kind == "f":  # int -> float, rounded once by the mode (to nearest by default)
        if frnd in (None, "rn"):
            return lambda b, m: put(b, np.asarray(ra(b)).astype(dd), m)
        return lambda b, m: put(b, round_pair(*int_pair(ra(b)), dtn, frnd).view(dd), m)
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


def _decode_cvt_pack(ins: Instruction, ctx: Scope) -> Op:
    """cvt.pack.sat.{u16,s16}.s32 d, a, b: a and b saturated to 16 bits, a in the high half."""
    if len(ins.operands) != 3 or ins.types[1:] != ("s32",) or ins.types[0] not in ("u16", "s16"):
        raise unsupported(ins, "cvt.pack forms")
    d, a, bo = ins.operands[:3]
    ra, rb, put = reader(a, "s32", ctx), reader(bo, "s32", ctx), writer(d, ctx)
    info = np.iinfo(dtype_of(ins.types[0]))

    def op(b: Batch, m: Mask) -> None:
        hi, lo = (np.clip(np.asarray(f(b), np.int64), info.min, info.max) & 0xFFFF for f in (ra, rb))
        put(b, np.broadcast_to((hi << 16 | lo).astype(np.uint32), (b.L,)).copy(), m)
    return op


def decode_bfe(ins: Instruction, pc: int, ctx: Scope) -> Op:
    t = ins.type
    dt = dtype_of(t)
    w = 8 * dt.itemsize
    d, a, p, ln = ins.operands[:4]
    ra, rp, rl, put = reader(a, t, ctx), reader(p, "u32", ctx), reader(ln, "u32", ctx), writer(d, ctx)
    u = np.dtype(f"u{dt.itemsize}")

    def op(b: Batch, m: Mask) -> None:
        x = cast(ra(b), u).astype(np.uint64)
        pos = np.asarray(rp(b)).astype(np.uint64) & np.uint64(0xFF)
        n = np.asarray(rl(b)).astype(np.uint64) & np.uint64(0xFF)
        pos_c = np.minimum(pos, np.uint64(w))
        shifted = np.where(pos >= w, np.uint64(0), x >> np.minimum(pos_c, np.uint64(63)))
        n_c = np.minimum(n, np.uint64(w))
        maskv = np.where(n_c >= 64, np.uint64(0xFFFFFFFFFFFFFFFF),
                         (np.uint64(1) << np.minimum(n_c, np.uint64(63))) - np.uint64(1))
        r = shifted & maskv
        if dt.kind == "i":  # sign bit: bit pos+len-1 of x (or the msb if beyond), filling every bit above
            sbit = np.minimum(pos + n_c - np.uint64(1), np.uint64(w - 1))  # the field's part below the msb
            sign = ((x >> sbit) & np.uint64(1)).astype(bool) & (n_c > 0)
            inside = np.minimum(n_c, np.uint64(w) - pos_c)
            fill = np.where(inside >= 64, np.uint64(0xFFFFFFFFFFFFFFFF),
                            (np.uint64(1) << np.minimum(inside, np.uint64(63))) - np.uint64(1))
            r = np.where(sign, r | ~fill, r)
        r = np.where(n_c == 0, np.uint64(0), r)
        put(b, r.astype(u), m)
    return op


def decode_bfi(ins: Instruction, pc: int, ctx: Scope) -> Op:
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


def decode_lop3(ins: Instruction, pc: int, ctx: Scope) -> Op:
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


def decode_prmt(ins: Instruction, pc: int, ctx: Scope) -> Op:
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


def decode_copysign(ins: Instruction, pc: int, ctx: Scope) -> Op:
    refuse_half_pairs(ins)
    t = ins.type
    d, a, bo = ins.operands[:3]
    ra, rb, put = reader(a, t, ctx), reader(bo, t, ctx), writer(d, ctx)
    return lambda b, m: put(b, np.copysign(rb(b), ra(b)), m)


def decode_testp(ins: Instruction, pc: int, ctx: Scope) -> Op:
    refuse_half_pairs(ins)
    t = ins.type
    d, a = ins.operands[:2]
    ra, put = reader(a, t, ctx), writer(d, ctx)
    kind = ins.mods[0]
    f = {"finite": np.isfinite, "infinite": np.isinf, "number": lambda x: ~np.isnan(x), "notanumber": np.isnan,
         "normal": lambda x: np.isfinite(x) & ((np.abs(x) >= np.finfo(x.dtype).tiny) | (x == 0)),  # ISA: zeros too
         "subnormal": lambda x: (np.abs(x) < np.finfo(x.dtype).tiny) & (x != 0)}[kind]
    return lambda b, m: put(b, f(np.asarray(ra(b))), m)
