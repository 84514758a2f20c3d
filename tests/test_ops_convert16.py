"""Conversions to and from 16-bit floats (.f16, .bf16, the pairs .f16x2 / .bf16x2 from two f32)
against references written from the PTX ISA with exact fractions (tests/halfkit.py), bit for bit.

Rounded once from the exact source by .rn/.rz/.rm/.rp (integers and f64 included); .relu,
.satfinite and .sat as the ISA words them. Where the ISA leaves the bits to the hardware, the
H100's measured choice (kernels.halfdiff, `kernels/results/differential_halfs_h100.json`): NaN
results are the canonical 0x7FFF, except from f64, whose NaN keeps its sign and top payload bits,
quieted (F2F); f16 to f32 gives 0x7FFFFFFF (an add on the GPU), bf16 to f32 its bits shifted
(bf16 with .ftz: 0x7FFFFFFF); to f64, sign and payload quieted. `.ftz` flushes a subnormal f32
source to bf16 but not to f16 (the H100 rounds it by .rm to the f16 beside zero).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import halfkit as H
from ptxkit import HAVE_PTXAS, MODULES, Entry, Ptx, ptxas_errors

PROPS = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAXF = {"f16": 0x7BFF, "bf16": 0x7F7F}
ONE = {"f16": 0x3C00, "bf16": 0x3F80}
INTS = {"s16": 16, "s32": 32, "u32": 32, "s64": 64, "u64": 64, "u16": 16}
IRND = {"rni": round, "rzi": math.trunc, "rmi": math.floor, "rpi": math.ceil}  # round(): half to even
REG = {"f32": "f32", "f64": "f64", "f16": "b16", "bf16": "b16"}


def source(u: int, src: str):
    """(x, neg) of an operand: an integer, or float bits."""
    if src in INTS:
        return Fraction(u), False
    return H.value(u, src)


def nan_from_f64(u: int, fmt: str) -> int:
    """What the H100's F2F writes for an f64 NaN: the sign, the quiet bit and the payload's top bits."""
    shift, exp, quiet = (42, 0x7C00, 0x200) if fmt == "f16" else (45, 0x7F80, 0x40)
    return ((u >> 48) & 0x8000) | exp | quiet | ((u >> shift) & (exp ^ 0x7FFF))


def to16(fmt: str, src: str, mode: str = "rn", relu=False, satfinite=False, sat=False, ftz=False, integral=None):
    def ref(u: int) -> int:
        if ftz and fmt == "bf16":
            u = H.flush(u, "f32")
        x, neg = source(u, src)
        if H._nan(x):
            r = nan_from_f64(u, fmt) if src == "f64" else H.NAN16
        else:
            if integral and not H._inf(x):
                x = Fraction(IRND[integral](x))
            r = H.encode(x, neg, fmt, mode)
            if satfinite and (r & 0x7FFF) == (0x7C00 if fmt == "f16" else 0x7F80):
                r = (r & 0x8000) | MAXF[fmt]
        nan = H.is_nan(r, fmt)
        if sat:
            return 0 if nan or r & 0x8000 else ONE[fmt] if H.value(r, fmt)[0] > 1 else r
        if relu:
            return H.NAN16 if nan else 0 if r & 0x8000 else r
        return r
    return ref


def from16(fmt: str, dst: str, sat=False, ftz=False):
    def ref(u: int) -> int:
        x, neg = H.value(u, fmt)
        if dst == "f32":
            if H._nan(x):
                r = (u << 16) if fmt == "bf16" and not ftz else H.NAN32
            else:
                r = H.encode(x, neg, "f32")
                if ftz and x != 0 and not H._inf(x) and abs(x) < Fraction(2) ** -126:
                    r = r & 0x80000000
        else:
            shift, mant = (42, 0x3FF) if fmt == "f16" else (45, 0x7F)
            quiet = ((u & 0x8000) << 48) | 0x7FF8000000000000 | ((u & mant) << shift)
            r = quiet if H._nan(x) else H.encode(x, neg, "f64")
        if sat:
            v = H.value(r, dst)[0]
            one = H.encode(Fraction(1), False, dst)
            r = 0 if H._nan(v) or r >> (31 if dst == "f32" else 63) else one if v > 1 else r
        return r
    return ref


def to_int(rnd: str, dst: str, fmt: str):
    bits = INTS[dst]
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if dst[0] == "s" else (0, (1 << bits) - 1)

    def ref(u: int) -> int:
        x, _ = H.value(u, fmt)
        if H._nan(x):  # ISA: 0, unless the destination is 64 bits wide: then 1 << 63
            return 1 << 63 if bits == 64 else 0
        if H._inf(x):
            return hi if x > 0 else lo
        return max(lo, min(hi, IRND[rnd](x)))
    return ref


CASES: list = []


def case(body: str, ins, outs, ref, kinds) -> None:
    CASES.append((Entry(body.split()[0].replace(".", "_"), body, tuple(ins), tuple(outs)), ref, tuple(kinds)))


for fmt in ("f16", "bf16"):
    other = "bf16" if fmt == "f16" else "f16"
    for src in ("f32", "f64"):
        for mode in ("rn", "rz", "rm", "rp"):
            case(f"cvt.{mode}.{fmt}.{src} %d0, %a0;", (src,), ("b16",), to16(fmt, src, mode), (src,))
    for mods in ("rn.relu", "rn.satfinite", "rz.satfinite", "rz.relu.satfinite", "rn.ftz", "rz.ftz"):
        case(f"cvt.{mods}.{fmt}.f32 %d0, %a0;", ("f32",), ("b16",),
             to16(fmt, "f32", mods[:2], "relu" in mods, "satfinite" in mods, ftz="ftz" in mods), ("f32",))
    for mods in ("rn", "rz", "rn.relu", "rz.satfinite"):
        one = to16(fmt, "f32", mods[:2], "relu" in mods, "satfinite" in mods)
        case(f"cvt.{mods}.{fmt}x2.f32 %d0, %a0, %a1;", ("f32", "f32"), ("b32",),
             lambda a, b, one=one: (one(a) << 16) | one(b), ("f32", "f32"))
    for src in ("s16", "s32", "u32", "s64", "u64"):
        for mode in ("rn", "rz", "rm", "rp"):
            case(f"cvt.{mode}.{fmt}.{src} %d0, %a0;", (src,), ("b16",), to16(fmt, src, mode), (src,))
    for mode in ("rn", "rz", "rm", "rp"):
        case(f"cvt.{mode}.{fmt}.{other} %d0, %a0;", ("b16",), ("b16",), to16(fmt, other, mode), (other,))
    for rnd in IRND:
        case(f"cvt.{rnd}.{fmt}.{fmt} %d0, %a0;", ("b16",), ("b16",), to16(fmt, fmt, integral=rnd), (fmt,))
        for dst in ("s32", "u32", "s64", "u16"):
            case(f"cvt.{rnd}.{dst}.{fmt} %d0, %a0;", ("b16",), (dst,), to_int(rnd, dst, fmt), (fmt,))
    for dst in ("f32", "f64"):
        case(f"cvt.{dst}.{fmt} %d0, %a0;", ("b16",), (dst,), from16(fmt, dst), (fmt,))
case("cvt.ftz.f32.bf16 %d0, %a0;", ("b16",), ("f32",), from16("bf16", "f32", ftz=True), ("bf16",))
case("cvt.sat.f32.f16 %d0, %a0;", ("b16",), ("f32",), from16("f16", "f32", sat=True), ("f16",))
case("cvt.sat.f64.f16 %d0, %a0;", ("b16",), ("f64",), from16("f16", "f64", sat=True), ("f16",))
case("cvt.rn.sat.f16.f32 %d0, %a0;", ("f32",), ("b16",), to16("f16", "f32", sat=True), ("f32",))
case("cvt.rm.ftz.f16.f32 %d0, %a0;", ("f32",), ("b16",), to16("f16", "f32", "rm"), ("f32",))
case("cvt.rp.ftz.bf16.f32 %d0, %a0;", ("f32",), ("b16",), to16("bf16", "f32", "rp", ftz=True), ("f32",))

MODULE = Ptx("convert16", [c[0] for c in CASES])


@pytest.mark.skipif(not HAVE_PTXAS, reason="ptxas is not installed")
def test_the_hand_written_ptx_assembles_with_ptxas():
    assert ptxas_errors(MODULES["convert16"]) == ""


@pytest.mark.parametrize("entry, ref, kinds", CASES, ids=[c[0].name for c in CASES])
def test_edge_operands(entry, ref, kinds):
    H.check(MODULE, entry, ref, H.edge_columns(kinds, entry.ins))


@pytest.mark.parametrize("entry, ref, kinds", CASES, ids=[c[0].name for c in CASES])
@PROPS
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_drawn_operands(entry, ref, kinds, seed):
    rng = np.random.default_rng(seed)
    H.check(MODULE, entry, ref, [H.as_input(H.column(k, rng, 128), t) for k, t in zip(kinds, entry.ins)])


@pytest.mark.parametrize("form, x, want", [("cvt_rn_f16_f32", 1 + 2.0 ** -11, 0x3C00),  # a tie: to even
                                           ("cvt_rn_f16_f32", 1 + 3 * 2.0 ** -11, 0x3C02),
                                           ("cvt_rn_f16_f32", 65520.0, 0x7C00),  # the tie above MAX: infinity
                                           ("cvt_rz_f16_f32", 65520.0, 0x7BFF),
                                           ("cvt_rm_f16_f32", -2.0 ** -30, 0x8001),  # below zero: the next f16 down
                                           ("cvt_rp_f16_f32", 2.0 ** -30, 0x0001),
                                           ("cvt_rn_bf16_f32", 1 + 2.0 ** -8, 0x3F80),
                                           ("cvt_rn_bf16_f32", 1 + 3 * 2.0 ** -8, 0x3F82)])
def test_ties_and_overflow(form, x, want):
    (d,) = MODULE.run(form, np.float32([x]))
    assert int(d[0]) == want, hex(int(d[0]))


def test_f64_to_f16_rounds_once():
    """1 + 2^-11 + 2^-40 lies above the tie between 1 and 1 + 2^-10: rounded once it is 1 + 2^-10;
    through float32 (1 + 2^-11, the tie) it would round to even, 1.0."""
    (d,) = MODULE.run("cvt_rn_f16_f64", np.float64([1 + 2.0 ** -11 + 2.0 ** -40]))
    assert int(d[0]) == 0x3C01


def test_pairs_put_a_in_the_high_half():
    """ISA: cvt.f16x2.f32 d, a, b converts a into the upper half of d and b into the lower."""
    (d,) = MODULE.run("cvt_rn_f16x2_f32", np.float32([1.0]), np.float32([2.0]))
    assert int(d[0]) == 0x3C004000
