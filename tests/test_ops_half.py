"""16-bit float instructions (.f16, .bf16, .f16x2, .bf16x2) against references written from the
PTX ISA with exact fractions (tests/halfkit.py), compared bit for bit, NaNs included.

What the ISA leaves to the hardware is pinned to what an H100 does (kernels.halfdiff measured it,
`kernels/results/differential_halfs_h100.json`): a NaN result is the canonical NaN 0x7FFF;
f16 `.ftz` flushes a result that is tiny after rounding (at an unbounded exponent); `.sat` and
`.relu` write +0 for -0. Every form runs on the cross product of edge operands (zeros of both
signs, subnormals, the smallest normal, 1 +- ulp, MAX, infinities, NaNs of both kinds) and on
drawn lanes; an end-to-end test runs cuda_fp16.h / cuda_bf16.h intrinsics compiled by NVRTC.
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

PROPS = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FCMP = ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")
ONE = {"f16": 0x3C00, "bf16": 0x3F80}


def neg_value(v):
    x, n = v
    return (x if isinstance(x, float) and math.isnan(x) else -x), not n


def modifiers(r: int, fmt: str, sat: bool = False, relu: bool = False) -> int:
    """A result's .sat ([0, 1]; NaN, negatives and -0 to +0) and .relu (negatives and -0 to +0, NaN kept)."""
    nan = r == -1 or H.is_nan(r, fmt)
    if sat:
        if nan or r & 0x8000:
            return 0
        return ONE[fmt] if H.value(r, fmt)[0] > 1 else r
    if nan:
        return H.NAN16
    if relu and r & 0x8000:
        return 0
    return r


def arith(op: str, fmt: str, ftz=False, sat=False, relu=False):
    def ref(*us):
        if ftz:
            us = [H.flush(u, fmt) for u in us]
        v = [H.value(u, fmt) for u in us]
        r = {"add": lambda: H.add(v[0], v[1], fmt, ftz=ftz), "sub": lambda: H.add(v[0], neg_value(v[1]), fmt, ftz=ftz),
             "mul": lambda: H.mul(v[0], v[1], fmt, ftz=ftz), "fma": lambda: H.fma(v[0], v[1], v[2], fmt, ftz=ftz)}[op]()
        return modifiers(r, fmt, sat, relu)
    return ref


def neg_abs(op: str, fmt: str, ftz=False):
    def ref(u):
        u = H.flush(u, fmt) if ftz else u
        if H.is_nan(u, fmt):
            return H.NAN16
        return u ^ 0x8000 if op == "neg" else u & 0x7FFF
    return ref


def minmax(op: str, fmt: str, nan_wins=False, xorsign=False, ftz=False):
    """The ISA's pseudo-code: .xorsign takes the signs' xor and .abs the magnitudes first; NaN only
    if both are (either, with .NaN), the canonical NaN; -0 < +0."""
    sign = 1 << (H.FMTS[fmt][2] - 1)
    canon = H.NAN16 if fmt != "f32" else H.NAN32

    def ref(a, b):
        if ftz:
            a, b = H.flush(a, fmt), H.flush(b, fmt)
        xs = (a ^ b) & sign
        if xorsign:
            a, b = a & ~sign, b & ~sign
        na, nb = H.is_nan(a, fmt), H.is_nan(b, fmt)
        if (na and nb) or (nan_wins and (na or nb)):
            return canon
        if na or nb:
            d = b if na else a
        else:
            (x, sx), (y, sy) = H.value(a, fmt), H.value(b, fmt)
            kx, ky = (x, not sx), (y, not sy)  # -0 orders below +0
            d = a if ((kx < ky) if op == "min" else (kx > ky)) or kx == ky else b
        return (d & ~sign) | xs if xorsign else d
    return ref


def compare(cmp: str):
    base = {"equ": "eq", "neu": "ne", "ltu": "lt", "leu": "le", "gtu": "gt", "geu": "ge"}.get(cmp, cmp)
    rel = {"eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "lt": lambda x, y: x < y, "le": lambda x, y: x <= y,
           "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y}

    def f(a, b, fmt, ftz=False) -> bool:
        if ftz:
            a, b = H.flush(a, fmt), H.flush(b, fmt)
        x, y = H.value(a, fmt)[0], H.value(b, fmt)[0]
        nan = H._nan(x) or H._nan(y)
        if cmp == "num":
            return not nan
        if cmp == "nan":
            return nan
        if nan:
            return cmp != base  # the unordered forms hold where either is NaN
        return rel[base](x, y)
    return f


def pair(f, n_out: int = 1):
    """A scalar 16-bit reference applied to both halves of .b32 operands (low half first)."""
    def ref(*us):
        lo = f(*(u & 0xFFFF for u in us))
        hi = f(*(u >> 16 for u in us))
        return lo | (hi << 16) if n_out == 1 else (lo, hi)
    return ref


CASES: list = []  # (entry, reference, input kinds)


def case(name: str, body: str, ins, outs, ref, kinds=None) -> None:
    CASES.append((Entry(name.replace(".", "_"), body, tuple(ins), tuple(outs)), ref, tuple(kinds or ins)))


for fmt in ("f16", "bf16"):
    bf = fmt == "bf16"
    for t, wrap, reg in ((fmt, lambda f: f, "b16"), (fmt + "x2", pair, "b32")):
        k = (t,)
        for op in ("add", "sub", "mul"):
            for mods in (("", ".rn") if bf else ("", ".ftz", ".sat", ".rn.ftz.sat")):
                case(f"{op}{mods}.{t}", f"{op}{mods}.{t} %d0, %a0, %a1;", (reg, reg), (reg,),
                     wrap(arith(op, fmt, "ftz" in mods, "sat" in mods)), k * 2)
        fma_mods = (".rn", ".rn.ftz", ".rn.sat", ".rn.relu", ".rn.ftz.relu", ".rn.ftz.sat")
        for mods in ((".rn", ".rn.relu") if bf else fma_mods):
            case(f"fma{mods}.{t}", f"fma{mods}.{t} %d0, %a0, %a1, %a2;", (reg,) * 3, (reg,),
                 wrap(arith("fma", fmt, "ftz" in mods, "sat" in mods, "relu" in mods)), k * 3)
        for op in ("neg", "abs"):
            for mods in (("",) if bf else ("", ".ftz")):
                case(f"{op}{mods}.{t}", f"{op}{mods}.{t} %d0, %a0;", (reg,), (reg,),
                     wrap(neg_abs(op, fmt, bool(mods))), k)
        for op in ("min", "max"):
            for mods in (("", ".NaN", ".xorsign.abs", ".NaN.xorsign.abs") if bf else
                         ("", ".ftz", ".NaN", ".xorsign.abs", ".ftz.NaN.xorsign.abs")):
                case(f"{op}{mods}.{t}", f"{op}{mods}.{t} %d0, %a0, %a1;", (reg, reg), (reg,),
                     wrap(minmax(op, fmt, "NaN" in mods, "xorsign" in mods, "ftz" in mods)), k * 2)
    for cmp in FCMP:
        f = compare(cmp)
        case(f"setp.{cmp}.{fmt}", f"setp.{cmp}.{fmt} %d0, %a0, %a1;", ("b16", "b16"), ("pred",),
             lambda a, b, f=f, fmt=fmt: f(a, b, fmt), (fmt, fmt))
        case(f"setp.{cmp}.{fmt}x2", f"setp.{cmp}.{fmt}x2 %d0|%d1, %a0, %a1;", ("b32", "b32"), ("pred", "pred"),
             lambda a, b, f=f, fmt=fmt: (f(a & 0xFFFF, b & 0xFFFF, fmt), f(a >> 16, b >> 16, fmt)), (fmt + "x2",) * 2)
    lt = compare("ltu")
    ftz = "" if bf else ".ftz"
    case(f"setp.ltu.and{ftz}.{fmt}x2", f"setp.ltu.and{ftz}.{fmt}x2 %d0|%d1, %a0, %a1, !%a2;", ("b32", "b32", "pred"),
         ("pred", "pred"), lambda a, b, c, fmt=fmt, z=bool(ftz): (lt(a & 0xFFFF, b & 0xFFFF, fmt, z) and not c,
                                                                lt(a >> 16, b >> 16, fmt, z) and not c),
         (fmt + "x2", fmt + "x2", "pred"))
    for cmp in ("lt", "equ", "nan"):
        f = compare(cmp)
        case(f"set.{cmp}.{fmt}.{fmt}", f"set.{cmp}.{fmt}.{fmt} %d0, %a0, %a1;", ("b16", "b16"), ("b16",),
             lambda a, b, f=f, fmt=fmt: ONE[fmt] if f(a, b, fmt) else 0, (fmt, fmt))
        case(f"set.{cmp}.u32.{fmt}", f"set.{cmp}.u32.{fmt} %d0, %a0, %a1;", ("b16", "b16"), ("u32",),
             lambda a, b, f=f, fmt=fmt: 0xFFFFFFFF if f(a, b, fmt) else 0, (fmt, fmt))
        case(f"set.{cmp}.{fmt}x2.{fmt}x2", f"set.{cmp}.{fmt}x2.{fmt}x2 %d0, %a0, %a1;", ("b32", "b32"), ("b32",),
             pair(lambda a, b, f=f, fmt=fmt: ONE[fmt] if f(a, b, fmt) else 0), (fmt + "x2",) * 2)
        case(f"set.{cmp}.s32.{fmt}x2", f"set.{cmp}.s32.{fmt}x2 %d0, %a0, %a1;", ("b32", "b32"), ("b32",),
             pair(lambda a, b, f=f, fmt=fmt: 0xFFFF if f(a, b, fmt) else 0), (fmt + "x2",) * 2)
    ge = compare("ge")
    case(f"set.ge.and.u32.{fmt}x2", f"set.ge.and.u32.{fmt}x2 %d0, %a0, %a1, %a2;", ("b32", "b32", "pred"), ("b32",),
         lambda a, b, c, fmt=fmt: pair(lambda x, y: 0xFFFF if ge(x, y, fmt) and c else 0)(a, b),
         (fmt + "x2",) * 2 + ("pred",))
for op in ("min", "max"):
    for mods in (".NaN", ".xorsign.abs", ".ftz.NaN.xorsign.abs"):
        case(f"{op}{mods}.f32", f"{op}{mods}.f32 %d0, %a0, %a1;", ("b32", "b32"), ("b32",),
             minmax(op, "f32", "NaN" in mods, "xorsign" in mods, "ftz" in mods), ("f32", "f32"))
case("set.gt.or.f16.s32", "set.gt.or.f16.s32 %d0, %a0, %a1, %a2;", ("s32", "s32", "pred"), ("b16",),
     lambda a, b, c: 0x3C00 if (a > b) or c else 0, ("s32", "s32", "pred"))
case("set.lo.u32.u32", "set.lo.u32.u32 %d0, %a0, %a1;", ("u32", "u32"), ("u32",),
     lambda a, b: 0xFFFFFFFF if a < b else 0, ("u32", "u32"))


# -- approximate ex2 and tanh: within 2 ulp of the exact value, special values exact ---------------------
def approx(fn, fmt: str, ftz: bool, table: dict):
    """(reference giving the correctly rounded value, closeness per 16-bit half)."""
    def ref(u):
        u = H.flush(u, fmt) if ftz else u
        x, n = H.value(u, fmt)
        if H._nan(x):
            return H.NAN16
        key = "inf" if x == math.inf else "-inf" if x == -math.inf else None
        if key:
            return table[key]
        r = H.encode(Fraction(fn(float(x))) if math.isfinite(fn(float(x))) else math.inf, n, fmt)
        return H.flush(r, fmt) if ftz else r
    return ref


def ordinal(u: int) -> int:
    return -(u & 0x7FFF) if u & 0x8000 else u


APPROX = []
for fmt in ("f16", "bf16"):
    inf = 0x7C00 if fmt == "f16" else 0x7F80
    for name, fn, table in (("ex2", lambda x: 2.0 ** x if x < 1024 else math.inf, {"inf": inf, "-inf": 0}),
                            ("tanh", math.tanh, {"inf": ONE[fmt], "-inf": ONE[fmt] | 0x8000})):
        ftz = fmt == "bf16" and name == "ex2"  # ex2.approx of bf16 exists only with .ftz; tanh without
        for t, reg, w in ((fmt, "b16", lambda f: f), (fmt + "x2", "b32", pair)):
            body = f"{name}.approx{'.ftz' if ftz else ''}.{t} %d0, %a0;"
            entry = Entry(body.split()[0].replace(".", "_"), body, (reg,), (reg,))
            APPROX.append((entry, w(approx(fn, fmt, ftz, table)), (t,)))

MODULE = Ptx("half_ops", [c[0] for c in CASES] + [c[0] for c in APPROX])


# -- running -------------------------------------------------------------------------------------
def run(entry: Entry, ref, cols, close=None) -> None:
    H.check(MODULE, entry, ref, cols, close)


def within_2ulp(g: int, w: int) -> bool:
    halves = [(g, w)] if g < 0x10000 and w < 0x10000 else [(g & 0xFFFF, w & 0xFFFF), (g >> 16, w >> 16)]
    return all(gh == wh if (wh & 0x7FFF) > 0x7C00 or (gh & 0x7FFF) > 0x7C00 else abs(ordinal(gh) - ordinal(wh)) <= 2
               for gh, wh in halves)


ALL = [(e, r, k, None) for e, r, k in CASES] + [(e, r, k, within_2ulp) for e, r, k in APPROX]


@pytest.mark.skipif(not HAVE_PTXAS, reason="ptxas is not installed")
def test_the_hand_written_ptx_assembles_with_ptxas():
    assert ptxas_errors(MODULES["half_ops"]) == ""
    assert ptxas_errors(MODULES["half_fused"]) == ""


@pytest.mark.parametrize("entry, ref, kinds, close", ALL, ids=[c[0].name for c in ALL])
def test_edge_operands(entry, ref, kinds, close):
    """Every combination of edge operands (thinned where three operands make too many)."""
    run(entry, ref, H.edge_columns(kinds, entry.ins), close)


@pytest.mark.parametrize("entry, ref, kinds, close", ALL, ids=[c[0].name for c in ALL])
def test_seeded_random_operands(entry, ref, kinds, close):
    rng = np.random.default_rng(sum(map(ord, entry.name)))
    run(entry, ref, [H.as_input(H.column(k, rng, 256), t) for k, t in zip(kinds, entry.ins)], close)


BY_KINDS: dict = {}
for e, r, k, c in ALL:
    BY_KINDS.setdefault(k, []).append((e, r, c))


@pytest.mark.parametrize("kinds", list(BY_KINDS), ids=[",".join(k) for k in BY_KINDS])
@PROPS
@given(data=st.data())
def test_random_operands(kinds, data):
    """Lanes hypothesis draws and shrinks, through every form that takes such operands."""
    def draw(kind):
        if kind in ("f16", "bf16"):
            return H.bits16(kind)
        if kind in ("f16x2", "bf16x2"):
            return st.tuples(H.bits16(kind[:-2]), H.bits16(kind[:-2])).map(lambda p: p[0] | (p[1] << 16))
        if kind == "pred":
            return st.integers(0, 1)
        return st.integers(0, 0xFFFFFFFF)
    rows = data.draw(st.lists(st.tuples(*(draw(k) for k in kinds)), min_size=8, max_size=8))
    for e, r, c in BY_KINDS[kinds]:
        cols = [H.as_input([row[i] for row in rows], t) for i, t in enumerate(e.ins)]
        run(e, r, cols, c)


# -- the H100's measured choices and the traps ------------------------------------------------------
def test_fma_f16_rounds_once():
    """fma.rn.f16 rounds a*b + c once. Here a*b = 2^-11 (1 - 2^-8)(1 + 2^-8) = 2^-11 - 2^-27 and c =
    1 + 13 * 2^-10 (odd): the sum lies just below the midpoint c + 2^-11, so the answer is c; rounded
    first to float32 (whose last bit at 1 is 2^-23) it lands on that midpoint and rounds to even, c + ulp."""
    a, b, c = 0x3C04, 0x0FF8, 0x3C0D
    exact = H.value(a, "f16")[0] * H.value(b, "f16")[0] + H.value(c, "f16")[0]
    assert exact == H.value(c, "f16")[0] + Fraction(1, 2 ** 11) - Fraction(1, 2 ** 27)
    assert np.float32(exact.numerator / exact.denominator).astype(np.float16).view(np.uint16) == 0x3C0E
    (d,) = MODULE.run("fma_rn_f16", np.uint16([a]), np.uint16([b]), np.uint16([c]))
    assert int(d[0]) == 0x3C0D, hex(int(d[0]))


@pytest.mark.parametrize("a, b, want", [(0x3BFE, 0x0401, 0x0400),  # 2^-14 (1 - 2^-20): rounds to 2^-14, kept
                                        (0x0400, 0x3BFF, 0x0000),  # 2^-14 (1 - 2^-11): tiny after rounding
                                        (0x8400, 0x3BFF, 0x8000)])
def test_f16_ftz_flushes_what_is_tiny_after_rounding(a, b, want):
    """The H100's mul.ftz.f16 flushes a result whose 11-bit rounding at an unbounded exponent is
    below 2^-14, keeping one that rounds up to 2^-14 (tininess after rounding)."""
    (d,) = MODULE.run("mul_ftz_f16", np.uint16([a]), np.uint16([b]))
    assert int(d[0]) == want, hex(int(d[0]))


def test_half_nan_results_are_canonical():
    """NaN operands and invalid operations give 0x7FFF, whatever the payload or sign in."""
    nans = np.uint16([0x7E01, 0xFE00, 0x7C01, 0x7C00])
    (d,) = MODULE.run("add_f16", nans, np.uint16([0x3C00, 0x3C00, 0x3C00, 0xFC00]))
    assert d.tolist() == [0x7FFF] * 4
    (d,) = MODULE.run("neg_bf16", np.uint16([0xFFC1, 0x7F81]))
    assert d.tolist() == [0x7FFF] * 2


def test_half_pairs_compute_each_half_apart():
    """add.f16x2: the low halves and the high halves add separately (1 + 1 = 2, 2 + 0.5 = 2.5)."""
    (d,) = MODULE.run("add_f16x2", np.uint32([0x40003C00]), np.uint32([0x38003C00]))
    assert int(d[0]) == 0x41004000


@pytest.mark.parametrize("line", ["fma.rn.oob.f16 %rs1, %rs2, %rs3, %rs4;", "add.rz.f16 %rs1, %rs2, %rs3;",
                                  "min.f32 %f1, %f2, %f3, %f4;", "mul.rn.sat.bf16 %rs1, %rs2, %rs3;",
                                  "cvt.rn.f16x2.e4m3x2 %r1, %rs2;", "copysign.f16 %rs1, %rs2, %rs3;",
                                  "add.rn.f32.f16 %f1, %rs2, %f3;", "fma.rn.f32.bf16 %f1, %rs2, %rs3, %f4;"])
def test_unmodelled_forms_are_refused_by_name(line):
    """What is not modelled stops the run naming the instruction and its line, never a guess."""
    from cudasim import SourceModule, UnsupportedInstruction

    ptx = (".version 8.3\n.target sm_90\n.address_size 64\n.file 1 \"h.cu\"\n.visible .entry k(.param .u64 p)\n{\n"
           "  .reg .b16 %rs<5>; .reg .b32 %r<3>; .reg .f32 %f<5>;\n  .loc 1 7 0\n  " + line + "\n  ret;\n}\n")
    opcode = line.split()[0].replace(".", r"\.")
    with pytest.raises(UnsupportedInstruction, match=r"unsupported PTX instruction `" + opcode + r" .*` at h\.cu:7"):
        SourceModule.from_ptx(ptx).get_function("k")(np.zeros(1, np.uint64), block=(1, 1, 1), grid=(1, 1))


FUSED = Ptx("half_fused", [Entry("fused", "\n".join(
    [f"mov.b32 %fx{i}, %a{i};" for i in range(8)] + [f"add.f16x2 %d{i}, %a{i}, %a{4 + i};" for i in range(4)]
    + [f"fma.rn.relu.bf16x2 %d{4 + i}, %a{i}, %a{4 + i}, %a{i};" for i in range(4)]
    + [f"setp.ltu.f16x2 %qq{2 * i}|%qq{2 * i + 1}, %a{i}, %a{4 + i};" for i in range(4)]
    + [f"selp.u32 %d{8 + j}, 1, 0, %qq{j};" for j in range(8)]
    + [f"cvt.rn.f16x2.f32 %d{16 + i}, %fx{i}, %fx{4 + i};" for i in range(4)]),
    ("b32",) * 8, ("b32",) * 20, ".reg .f32 %fx<8>; .reg .pred %qq<8>;")])


def test_fused_groups_of_half_instructions():
    """Four independent instructions of one form in a row run as one fused numpy op over stacked
    registers (cudasim.fusion): pairs, setp's two predicates and cvt's two sources stay per lane."""
    from test_ops_convert16 import to16

    rng = np.random.default_rng(1)
    cols = [H.column("f16x2", rng, 128) for _ in range(8)]
    res = FUSED.run("fused", *cols)
    add, fma = pair(arith("add", "f16")), pair(arith("fma", "bf16", relu=True))
    lt, cv = compare("ltu"), to16("f16", "f32")
    for lane in range(128):
        a = [int(c[lane]) for c in cols]
        for i in range(4):
            assert int(res[i][lane]) == add(a[i], a[4 + i])
            assert int(res[4 + i][lane]) == fma(a[i], a[4 + i], a[i])
            assert int(res[8 + 2 * i][lane]) == lt(a[i] & 0xFFFF, a[4 + i] & 0xFFFF, "f16")
            assert int(res[9 + 2 * i][lane]) == lt(a[i] >> 16, a[4 + i] >> 16, "f16")
            assert int(res[16 + i][lane]) == (cv(a[i]) << 16) | cv(a[4 + i])


# -- end to end: intrinsics compiled by NVRTC ---------------------------------------------------------
E2E = r'''
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void halves(unsigned short *o, unsigned *o2, const __half *a, const __half *b,
                                  const __nv_bfloat16 *c, const __nv_bfloat16 *d, const __half2 *p, const __half2 *q,
                                  const float *f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    o[i] = __half_as_ushort(__hfma(a[i], b[i], a[i]));
    o[n + i] = __half_as_ushort(__hadd(a[i], b[i]));
    o[2 * n + i] = __bfloat16_as_ushort(__hmul(c[i], d[i]));
    o[3 * n + i] = __bfloat16_as_ushort(__float2bfloat16_rz(f[i]));
    o[4 * n + i] = __half_as_ushort(__hmax_nan(a[i], b[i]));
    __half2 r = __hfma2_relu(p[i], q[i], p[i]);
    o2[i] = *(unsigned *)&r;
    o2[n + i] = __hgt2_mask(p[i], q[i]);
}
'''


def test_intrinsics_end_to_end():
    """cuda_fp16.h / cuda_bf16.h intrinsics through NVRTC and cudasim, against the references."""
    from cudasim import In, Out, SourceModule

    rng = np.random.default_rng(7)
    n = 512
    a, b = H.random16("f16", rng, n), H.random16("f16", rng, n)
    c, d = H.random16("bf16", rng, n), H.random16("bf16", rng, n)
    p, q = (H.column("f16x2", rng, n) for _ in range(2))
    f = H.column("f32", rng, n).view(np.float32)
    o, o2 = np.zeros(5 * n, np.uint16), np.zeros(2 * n, np.uint32)
    SourceModule(E2E, no_extern_c=True).get_function("halves")(
        Out(o), Out(o2), In(a), In(b), In(c), In(d), In(p), In(q), In(f), np.int32(n),
        block=(128, 1, 1), grid=(n // 128, 1))
    fma16, add16, mul_bf = arith("fma", "f16"), arith("add", "f16"), arith("mul", "bf16")
    relu2 = pair(arith("fma", "f16", relu=True))
    gt = compare("gt")
    mx = minmax("max", "f16", nan_wins=True)
    for i in range(n):
        ai, bi, ci, di, pi, qi = int(a[i]), int(b[i]), int(c[i]), int(d[i]), int(p[i]), int(q[i])
        x, neg = Fraction(float(f[i])) if np.isfinite(f[i]) else float(f[i]), bool(f[i].view(np.uint32) >> 31)
        bf_rz = H.NAN16 if isinstance(x, float) and math.isnan(x) else H.encode(x, neg, "bf16", "rz")
        want = [fma16(ai, bi, ai), add16(ai, bi), mul_bf(ci, di), bf_rz, mx(ai, bi)]
        assert [int(o[k * n + i]) for k in range(5)] == want, i
        assert int(o2[i]) == relu2(pi, qi, pi), i
        mask = (0xFFFF if gt(pi & 0xFFFF, qi & 0xFFFF, "f16") else 0) \
            | (0xFFFF0000 if gt(pi >> 16, qi >> 16, "f16") else 0)
        assert int(o2[n + i]) == mask, i

