"""Directed rounding (.rz, .rm, .rp) of float64 add, sub, mul, fma, div, sqrt and rcp, of float32
div, sqrt and rcp, of f64-to-f32 and integer-to-float conversions, and fma.rn.f64 rounded once:
against references written from the PTX ISA with exact fractions (tests/halfkit.py), bit for bit.

A NaN result's bits are what the H100 writes (measured by kernels.halfdiff,
`kernels/results/differential_halfs_h100.json`): DADD and DMUL return b's NaN, else a's, quieted;
DFMA b's, else c's, else a's; float64 div, sqrt and rcp a's, else b's; an invalid operation the
default NaN 0xFFF8000000000000; float32 div, sqrt and rcp the canonical 0x7FFFFFFF; f64 to f32
keeps the sign and top payload bits, quieted.
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
DEFAULT_NAN = 0xFFF8000000000000
QUIET = {"f64": 1 << 51, "f32": 1 << 22}


def nan_of(us, order, fmt: str = "f64") -> int:
    """The first NaN operand in `order`, quieted; the default NaN where none is."""
    for i in order:
        if H.is_nan(us[i], fmt):
            return us[i] | QUIET[fmt]
    return DEFAULT_NAN if fmt == "f64" else H.NAN32


def flush32(r: int) -> int:
    """.ftz on an f32 result: a subnormal becomes a zero of its sign."""
    return r & 0x80000000 if (r >> 23) & 0xFF == 0 else r


def op(name: str, fmt: str, mode: str, ftz: bool = False):
    """The ISA's operation rounded once by `mode` (f32's .ftz flushing operands and result)."""
    order = {"add": (1, 0), "sub": (1, 0), "mul": (1, 0), "fma": (1, 2, 0), "div": (0, 1), "sqrt": (0,),
             "rcp": (0,)}[name]

    def ref(*us):
        if ftz:
            us = tuple(H.flush(u, fmt) for u in us)
        v = [H.value(u, fmt) for u in us]
        r = {"add": lambda: H.add(v[0], v[1], fmt, mode),
             "sub": lambda: H.add(v[0], (-v[1][0], not v[1][1]) if not H._nan(v[1][0]) else v[1], fmt, mode),
             "mul": lambda: H.mul(v[0], v[1], fmt, mode), "fma": lambda: H.fma(v[0], v[1], v[2], fmt, mode),
             "div": lambda: H.div(v[0], v[1], fmt, mode), "sqrt": lambda: H.sqrt(v[0], fmt, mode),
             "rcp": lambda: H.div((Fraction(1), False), v[0], fmt, mode)}[name]()
        if r == -1:
            return nan_of(us, order) if fmt == "f64" else H.NAN32
        return flush32(r) if ftz else r
    return ref


def nan_f64_to_f32(u: int) -> int:
    return ((u >> 32) & 0x80000000) | 0x7FC00000 | ((u >> 29) & 0x3FFFFF)


def f64_to_f32(mode: str, ftz: bool = False, sat: bool = False):
    def ref(u):
        x, neg = H.value(u, "f64")
        if H._nan(x):
            return 0 if sat else nan_f64_to_f32(u)
        r = H.encode(x, neg, "f32", mode)
        r = flush32(r) if ftz else r
        if sat:
            v = H.value(r, "f32")[0]
            r = 0 if r >> 31 else 0x3F800000 if v > 1 else r
        return r
    return ref


def int_to_float(fmt: str, mode: str):
    return lambda u: H.encode(Fraction(u), False, fmt, mode)


CASES: list = []


def case(body: str, ins, outs, ref, kinds) -> None:
    CASES.append((Entry(body.split()[0].replace(".", "_"), body, tuple(ins), tuple(outs)), ref, tuple(kinds)))


for mode in ("rz", "rm", "rp"):
    for name in ("add", "sub", "mul", "div"):
        case(f"{name}.{mode}.f64 %d0, %a0, %a1;", ("f64",) * 2, ("f64",), op(name, "f64", mode), ("f64",) * 2)
    case(f"fma.{mode}.f64 %d0, %a0, %a1, %a2;", ("f64",) * 3, ("f64",), op("fma", "f64", mode), ("f64",) * 3)
    for name in ("sqrt", "rcp"):
        case(f"{name}.{mode}.f64 %d0, %a0;", ("f64",), ("f64",), op(name, "f64", mode), ("f64",))
    for mods in (f".{mode}", f".{mode}.ftz"):
        ftz = "ftz" in mods
        case(f"div{mods}.f32 %d0, %a0, %a1;", ("f32",) * 2, ("f32",), op("div", "f32", mode, ftz), ("f32",) * 2)
        case(f"sqrt{mods}.f32 %d0, %a0;", ("f32",), ("f32",), op("sqrt", "f32", mode, ftz), ("f32",))
        case(f"rcp{mods}.f32 %d0, %a0;", ("f32",), ("f32",), op("rcp", "f32", mode, ftz), ("f32",))
    case(f"cvt.{mode}.f32.f64 %d0, %a0;", ("f64",), ("f32",), f64_to_f32(mode), ("f64",))
    for src in ("s32", "u32", "s64", "u64"):
        case(f"cvt.{mode}.f32.{src} %d0, %a0;", (src,), ("f32",), int_to_float("f32", mode), (src,))
    for src in ("s64", "u64"):
        case(f"cvt.{mode}.f64.{src} %d0, %a0;", (src,), ("f64",), int_to_float("f64", mode), (src,))
case("fma.rn.f64 %d0, %a0, %a1, %a2;", ("f64",) * 3, ("f64",), op("fma", "f64", "rn"), ("f64",) * 3)
case("cvt.rm.ftz.f32.f64 %d0, %a0;", ("f64",), ("f32",), f64_to_f32("rm", ftz=True), ("f64",))
case("cvt.rp.sat.f32.f64 %d0, %a0;", ("f64",), ("f32",), f64_to_f32("rp", sat=True), ("f64",))

MODULE = Ptx("rounding", [c[0] for c in CASES])


@pytest.mark.skipif(not HAVE_PTXAS, reason="ptxas is not installed")
def test_the_hand_written_ptx_assembles_with_ptxas():
    assert ptxas_errors(MODULES["rounding"]) == ""


@pytest.mark.parametrize("entry, ref, kinds", CASES, ids=[c[0].name for c in CASES])
def test_edge_operands(entry, ref, kinds):
    H.check(MODULE, entry, ref, H.edge_columns(kinds, entry.ins))


def near_ties(kind: str, rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """Operands whose exact results sit on or beside rounding boundaries: sums that cancel, products
    of values with short significands (exact or one bit past), quotients of near-equal values."""
    a = rng.standard_normal(n) * 2.0 ** rng.integers(-60, 60, n)
    short = np.round(rng.standard_normal(n) * 2 ** 20) * 2.0 ** rng.integers(-40, 0, n)
    b = np.where(rng.integers(0, 2, n) == 0, -a * (1 + rng.integers(-3, 4, n) * 2.0 ** -52), short)
    c = -(a * b) * (1 + rng.integers(-2, 3, n) * 2.0 ** -52)
    if kind == "f32":
        return [x.astype(np.float32) for x in (a, b, c)]
    return [a, b, c]


@pytest.mark.parametrize("entry, ref, kinds", CASES, ids=[c[0].name for c in CASES])
@PROPS
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_drawn_operands(entry, ref, kinds, seed):
    """Drawn bit patterns and scaled values, and for float operands lanes near ties and cancellations."""
    rng = np.random.default_rng(seed)
    cols = [H.as_input(H.column(k, rng, 96), t) for k, t in zip(kinds, entry.ins)]
    if kinds[0] in ("f32", "f64"):
        cols = [np.concatenate([c, t.astype(c.dtype)]) for c, t in zip(cols, near_ties(kinds[0], rng, 96))]
    H.check(MODULE, entry, ref, cols)


@pytest.mark.parametrize("form, a, b, want", [
    ("add_rm_f64", 1.0, -1.0, -0.0),  # an exact zero rounding down is -0
    ("add_rp_f64", 1.0, -1.0, 0.0),
    ("add_rz_f64", 1.0, 2.0 ** -60, 1.0),
    ("add_rp_f64", 1.0, 2.0 ** -60, 1 + 2.0 ** -52),
    ("sub_rm_f64", -1.0, 2.0 ** -60, -1 - 2.0 ** -52),
    ("mul_rz_f64", 1.7976931348623157e308, 2.0, 1.7976931348623157e308),  # overflow toward zero: MAX
    ("mul_rp_f64", 1.7976931348623157e308, 2.0, math.inf),
    ("mul_rm_f64", 5e-324, 0.5, 0.0),  # underflow: the subnormal below, or zero
    ("mul_rp_f64", 5e-324, 0.5, 5e-324),
    ("div_rz_f64", 1.0, 3.0, 0.3333333333333333),
    ("div_rp_f64", 1.0, 3.0, 0.33333333333333337)])
def test_directed_f64_examples(form, a, b, want):
    (d,) = MODULE.run(form, np.float64([a]), np.float64([b]))
    assert d.view(np.uint64)[0] == np.float64(want).view(np.uint64), (d[0], want)


def test_fma_rn_f64_rounds_once():
    """fma.rn.f64: a*b + c rounded once, where a float64 product first would round twice. With
    a = b = 1 + 2^-27 and c = -(1 + 2^-26): a*b + c = 2^-54 exactly (the product's rounding loses it)."""
    a = 1 + 2.0 ** -27
    (d,) = MODULE.run("fma_rn_f64", np.float64([a]), np.float64([a]), np.float64([-(1 + 2.0 ** -26)]))
    assert d[0] == 2.0 ** -54


def test_nan_operands_give_the_gpus_nan():
    """DADD returns b's NaN quieted, not a's; sub does not flip a NaN's sign; DFMA prefers b, then c."""
    qa, sb = np.uint64([0x7FF8000000000005]).view(np.float64), np.uint64([0x7FF0000000000003]).view(np.float64)
    (d,) = MODULE.run("add_rz_f64", qa, sb)
    assert d.view(np.uint64)[0] == 0x7FF8000000000003
    (d,) = MODULE.run("sub_rm_f64", np.float64([1.0]), qa)
    assert d.view(np.uint64)[0] == 0x7FF8000000000005
    (d,) = MODULE.run("fma_rp_f64", qa, np.float64([2.0]), sb)
    assert d.view(np.uint64)[0] == 0x7FF8000000000003
    (d,) = MODULE.run("sqrt_rz_f32", np.float32([-1.0]))
    assert d.view(np.uint32)[0] == 0x7FFFFFFF


E2E = r'''
extern "C" __global__ void rounding(double *o, float *f, const double *a, const double *b, const long long *l, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    o[i] = __dadd_rd(a[i], b[i]);
    o[n + i] = __dmul_ru(a[i], b[i]);
    o[2 * n + i] = __fma_rz(a[i], b[i], 1.0);
    o[3 * n + i] = __ddiv_ru(a[i], b[i]);
    o[4 * n + i] = __dsqrt_rd(fabs(a[i]));
    o[5 * n + i] = __drcp_rz(b[i]);
    f[i] = __double2float_rd(a[i]);
    f[n + i] = __ll2float_rz(l[i]);
    f[2 * n + i] = __fdiv_ru((float)a[i], (float)b[i]);
}
'''


def test_intrinsics_end_to_end():
    """The directed-rounding intrinsics through NVRTC and cudasim, against the references."""
    from cudasim import In, Out, SourceModule

    rng = np.random.default_rng(11)
    n = 256
    a, b = (rng.standard_normal(n) * 2.0 ** rng.integers(-30, 30, n) for _ in range(2))
    l = rng.integers(-(1 << 62), 1 << 62, n)
    o, f = np.zeros(6 * n), np.zeros(3 * n, np.float32)
    SourceModule(E2E, no_extern_c=True).get_function("rounding")(Out(o), Out(f), In(a), In(b), In(l), np.int32(n),
                                                                 block=(128, 1, 1), grid=(2, 1))
    bits = lambda x: int(np.float64(x).view(np.uint64))  # noqa: E731
    one = bits(1.0)
    for i in range(n):
        ua, ub = bits(a[i]), bits(b[i])
        want = [op("add", "f64", "rm")(ua, ub), op("mul", "f64", "rp")(ua, ub), op("fma", "f64", "rz")(ua, ub, one),
                op("div", "f64", "rp")(ua, ub), op("sqrt", "f64", "rm")(ua & ~(1 << 63)), op("rcp", "f64", "rz")(ub)]
        assert [int(v) for v in o[i::n].view(np.uint64)] == want, i
        fa, fb = int(np.float32(a[i]).view(np.uint32)), int(np.float32(b[i]).view(np.uint32))
        wf = [f64_to_f32("rm")(ua), int_to_float("f32", "rz")(int(l[i])), op("div", "f32", "rp")(fa, fb)]
        assert [int(v) for v in f[i::n].view(np.uint32)] == wf, i
