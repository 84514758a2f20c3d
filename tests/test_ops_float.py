"""Floating-point instructions and conversions against references written from the PTX ISA.

IEEE operations (add, sub, mul, div, fma, sqrt, rounding conversions) are checked bit for bit
against exact rational arithmetic rounded to nearest-even; `.ftz` and `.sat` are applied as
the ISA words them; the approximate functions must stay within the error the ISA allows the
GPU and give its table of special values exactly. Every form runs on the cross product of
edge values (zeros of both signs, subnormals, infinities, NaN, MAX, 1 +- ulp) and on
hypothesis-drawn lanes.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptxkit import (BITS, FMT, HAVE_PTXAS, INT_TYPES, MODULES, NP, Entry, Ptx, add_case, bits_of, check, edge_columns,
                    finite, floats, from_bits, ftz, group_id, groups, ptxas_errors, round_float, round_value,
                    same_float, ulps)

PROPS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAN = math.nan


def dt(t):
    return FMT[t][2]


def neg(x) -> bool:
    """The sign bit."""
    return math.copysign(1.0, float(x)) < 0


def signed_inf(negative: bool, t: str):
    return dt(t)(-math.inf if negative else math.inf)


# -- IEEE reference arithmetic over exact rationals -------------------------------------------
def ieee_add(x, y, t, subtract=False, mode="rn"):
    x, y = float(x), float(y)
    y = -y if subtract else y
    if math.isnan(x) or math.isnan(y):
        return dt(t)(NAN)
    if math.isinf(x) or math.isinf(y):
        if math.isinf(x) and math.isinf(y) and (x > 0) != (y > 0):
            return dt(t)(NAN)
        return dt(t)(x if math.isinf(x) else y)
    # an exact zero is +0 unless both addends are -0; rounding down, -0 unless both are +0
    zero = (neg(x) or neg(y)) if mode == "rm" else neg(x) and neg(y)
    return round_float(Fraction(x) + Fraction(y), t, negative_zero=zero, mode=mode)


def ieee_mul(x, y, t, mode="rn"):
    x, y = float(x), float(y)
    if math.isnan(x) or math.isnan(y):
        return dt(t)(NAN)
    n = neg(x) != neg(y)
    if math.isinf(x) or math.isinf(y):
        return dt(t)(NAN) if x == 0 or y == 0 else signed_inf(n, t)
    return round_float(Fraction(x) * Fraction(y), t, negative_zero=n, mode=mode)


def ieee_div(x, y, t):
    x, y = float(x), float(y)
    if math.isnan(x) or math.isnan(y):
        return dt(t)(NAN)
    n = neg(x) != neg(y)
    if math.isinf(x):
        return dt(t)(NAN) if math.isinf(y) else signed_inf(n, t)
    if math.isinf(y):
        return dt(t)(-0.0 if n else 0.0)
    if y == 0:
        return dt(t)(NAN) if x == 0 else signed_inf(n, t)
    return round_float(Fraction(x) / Fraction(y), t, negative_zero=n)


def ieee_fma(x, y, z, t, mode="rn"):
    x, y, z = float(x), float(y), float(z)
    if math.isnan(x) or math.isnan(y) or math.isnan(z):
        return dt(t)(NAN)
    pn = neg(x) != neg(y)
    if math.isinf(x) or math.isinf(y):
        if x == 0 or y == 0 or (math.isinf(z) and (z < 0) != pn):
            return dt(t)(NAN)
        return signed_inf(pn, t)
    if math.isinf(z):
        return dt(t)(z)
    p = Fraction(x) * Fraction(y)
    s = p + Fraction(z)
    if s == 0:  # an exact zero is +0 unless both addends are -0; rounding down, -0 unless both are +0
        if mode == "rm":
            return dt(t)(0.0 if p == 0 and z == 0 and not pn and not neg(z) else -0.0)
        return dt(t)(-0.0 if p == 0 and z == 0 and pn and neg(z) else 0.0)
    return round_float(s, t, mode=mode)


def ieee_sqrt(x, t):
    x = float(x)
    if math.isnan(x) or x < 0:
        return dt(t)(NAN)
    if x == 0 or math.isinf(x):
        return dt(t)(x)
    m = Fraction(x)
    k = 2 * (FMT[t][0] + 8)
    n = m.numerator * m.denominator << (2 * k)
    r = math.isqrt(n)
    # floor of the root to k extra bits, plus half a unit if inexact: never a tie, rounds as the root
    root = Fraction(2 * r + (0 if r * r == n else 1), 2 * m.denominator << k)
    return round_float(root, t)


def flush_args(t, args):
    return [ftz(a, t) if np.dtype(type(a)).kind == "f" else a for a in args]


def arith(op, t, flush=False, sat=False):
    """A reference with the ISA's .ftz (subnormal inputs and result to signed zero) and .sat
    (clamp to [0, 1], NaN to +0)."""
    def ref(*args):
        r = op(*(flush_args(t, args) if flush else args))
        if flush:
            r = ftz(r, t)
        if sat:
            r = dt(t)(0.0) if np.isnan(r) else dt(t)(min(max(float(r), 0.0), 1.0))
        return r
    return ref


def equal_or_zeros(g, w, *args) -> bool:
    """Equal, where the sign of a zero is not pinned down (a saturated -0)."""
    return (g == 0 and w == 0) or same_float(g, w, type_name(w))


def zeros_or_one_ulp(g, w, *args) -> bool:
    """`equal_or_zeros`, or one ulp off (cudasim's promise for fma)."""
    t = type_name(w)
    return equal_or_zeros(g, w) or (np.isfinite(w) and not np.isnan(g) and ulps(g, w, t) <= 1)


def type_name(x) -> str:
    return {np.float16: "f16", np.float32: "f32", np.float64: "f64"}[type(x)]


# -- arithmetic -------------------------------------------------------------------------------
ARITH: list = []
for t in ("f32", "f64", "f16"):
    for mods in ("", ".rn", ".ftz", ".sat", ".rn.ftz.sat") if t == "f32" else ("", ".rn"):
        fl, sat = "ftz" in mods, "sat" in mods
        tag = mods.replace(".", "_")
        close = equal_or_zeros if sat else None
        add_case(ARITH, f"add{tag}_{t}", f"add{mods}.{t} %d0, %a0, %a1;", (t, t), (t,),
                 arith(lambda x, y, t=t: ieee_add(x, y, t), t, fl, sat), close=close)
        add_case(ARITH, f"sub{tag}_{t}", f"sub{mods}.{t} %d0, %a0, %a1;", (t, t), (t,),
                 arith(lambda x, y, t=t: ieee_add(x, y, t, True), t, fl, sat), close=close)
        add_case(ARITH, f"mul{tag}_{t}", f"mul{mods}.{t} %d0, %a0, %a1;", (t, t), (t,),
                 arith(lambda x, y, t=t: ieee_mul(x, y, t), t, fl, sat), close=close)
    if t != "f16":
        for mods in ("", ".ftz") if t == "f32" else ("",):
            add_case(ARITH, f"div_rn{mods.replace('.', '_')}_{t}", f"div.rn{mods}.{t} %d0, %a0, %a1;", (t, t), (t,),
                     arith(lambda x, y, t=t: ieee_div(x, y, t), t, bool(mods)))
            add_case(ARITH, f"sqrt_rn{mods.replace('.', '_')}_{t}", f"sqrt.rn{mods}.{t} %d0, %a0;", (t,), (t,),
                     arith(lambda x, t=t: ieee_sqrt(x, t), t, bool(mods)))
            add_case(ARITH, f"rcp_rn{mods.replace('.', '_')}_{t}", f"rcp.rn{mods}.{t} %d0, %a0;", (t,), (t,),
                     arith(lambda x, t=t: ieee_div(dt(t)(1.0), x, t), t, bool(mods)))
    add_case(ARITH, f"neg_{t}", f"neg.{t} %d0, %a0;", (t,), (t,), lambda x: -x)
    add_case(ARITH, f"abs_{t}", f"abs.{t} %d0, %a0;", (t,), (t,), lambda x: abs(x))
# fma is exact then rounded once: cudasim's f32 path rounds once too (round-to-odd where the float64
# sum sits on a float32 midpoint, test_fma_f32_rounds_once), and so does its f64 path (round-to-odd
# emulation; exact rationals where the product leaves its range, test_fma_f64_is_fused_...)
FMA_F64 = finite("f64", -2.0 ** 500, 2.0 ** 500)
for name, body, t, fl, sat in [("fma_rn_f32", "fma.rn.f32", "f32", False, False),
                               ("fma_rn_ftz_f32", "fma.rn.ftz.f32", "f32", True, False),
                               ("fma_rn_sat_f32", "fma.rn.sat.f32", "f32", False, True),
                               ("mad_rn_f32", "mad.rn.f32", "f32", False, False),
                               ("fma_rn_f64", "fma.rn.f64", "f64", False, False),
                               ("mad_rn_f64", "mad.rn.f64", "f64", False, False)]:
    draw = (st.one_of(st.sampled_from([0.0, -0.0, 1.0, math.inf, -math.inf, NAN, 5e-324]).map(np.float64),
                      FMA_F64),) * 3 if t == "f64" else None
    gen = (lambda r, n: r.standard_normal(n) * 2.0 ** r.integers(-60, 60, n),) * 3 if t == "f64" else None
    add_case(ARITH, name, f"{body} %d0, %a0, %a1, %a2;", (t, t, t), (t,),
             arith(lambda x, y, z, t=t: ieee_fma(x, y, z, t), t, fl, sat),
             close=zeros_or_one_ulp if sat else None, draw=draw, gen=gen, kind="fma")
# float32's directed roundings: rounded once from the exact result, as the ISA asks
for mode in ("rz", "rm", "rp"):
    for mods in (f".{mode}", f".{mode}.ftz"):
        fl, tag = "ftz" in mods, mods.replace(".", "_")
        add_case(ARITH, f"add{tag}_f32", f"add{mods}.f32 %d0, %a0, %a1;", ("f32", "f32"), ("f32",),
                 arith(lambda x, y, m=mode: ieee_add(x, y, "f32", mode=m), "f32", fl))
        add_case(ARITH, f"sub{tag}_f32", f"sub{mods}.f32 %d0, %a0, %a1;", ("f32", "f32"), ("f32",),
                 arith(lambda x, y, m=mode: ieee_add(x, y, "f32", True, mode=m), "f32", fl))
        add_case(ARITH, f"mul{tag}_f32", f"mul{mods}.f32 %d0, %a0, %a1;", ("f32", "f32"), ("f32",),
                 arith(lambda x, y, m=mode: ieee_mul(x, y, "f32", mode=m), "f32", fl))
        add_case(ARITH, f"fma{tag}_f32", f"fma{mods}.f32 %d0, %a0, %a1, %a2;", ("f32",) * 3, ("f32",),
                 arith(lambda x, y, z, m=mode: ieee_fma(x, y, z, "f32", mode=m), "f32", fl), kind="fma")
FLOAT_ARITH = Ptx("float_arith", [c.entry for c in ARITH])


# -- min, max, copysign, testp, setp ------------------------------------------------------------
def min_num(x, y, t, largest=False):
    """ISA min/max: NaN only if both are; otherwise the smaller (larger), -0.0 < +0.0."""
    if np.isnan(x) and np.isnan(y):
        return dt(t)(NAN)
    if np.isnan(x) or np.isnan(y):
        return y if np.isnan(x) else x
    kx, ky = (float(x), neg(x)), (float(y), neg(y))
    key = lambda k: (k[0], not k[1])  # noqa: E731 - -0.0 orders below +0.0
    pick = max if largest else min
    return x if pick(kx, ky, key=key) is kx else y


TESTP = {"finite": lambda x: np.isfinite(x), "infinite": lambda x: np.isinf(x), "number": lambda x: not np.isnan(x),
         "notanumber": lambda x: np.isnan(x),
         "normal": lambda x: np.isfinite(x) and (x == 0 or abs(x) >= np.finfo(type(x)).tiny),
         "subnormal": lambda x: np.isfinite(x) and x != 0 and abs(x) < np.finfo(type(x)).tiny}


def fcmp(op: str):
    unordered = op.endswith("u") and op not in ("num",)
    base = {"equ": "eq", "neu": "ne", "ltu": "lt", "leu": "le", "gtu": "gt", "geu": "ge"}.get(op, op)
    rel = {"eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "lt": lambda x, y: x < y, "le": lambda x, y: x <= y,
           "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y}

    def f(x, y):
        nan = bool(np.isnan(x) or np.isnan(y))
        if op == "num":
            return not nan
        if op == "nan":
            return nan
        return True if (nan and unordered) else False if nan else bool(rel[base](float(x), float(y)))
    return f


FCMP = ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")
COMPARE: list = []
for t in ("f32", "f64", "f16"):
    for op in ("min", "max"):
        add_case(COMPARE, f"{op}_{t}", f"{op}.{t} %d0, %a0, %a1;", (t, t), (t,),
                 lambda x, y, t=t, op=op: min_num(x, y, t, op == "max"))
    if t != "f16":
        add_case(COMPARE, f"copysign_{t}", f"copysign.{t} %d0, %a0, %a1;", (t, t), (t,),
                 lambda a, b, t=t: dt(t)(math.copysign(abs(float(b)), -1.0 if neg(a) else 1.0)) if not np.isnan(b)
                 else b)
        for p, f in TESTP.items():
            add_case(COMPARE, f"testp_{p}_{t}", f"testp.{p}.{t} %d0, %a0;", (t,), ("pred",), f)
    for op in FCMP if t != "f16" else ("eq", "ltu", "nan"):
        add_case(COMPARE, f"setp_{op}_{t}", f"setp.{op}.{t} %d0, %a0, %a1;", (t, t), ("pred",), fcmp(op))
for op in ("lt", "geu"):
    f = fcmp(op)
    add_case(COMPARE, f"setp_{op}_ftz_f32", f"setp.{op}.ftz.f32 %d0, %a0, %a1;", ("f32", "f32"), ("pred",),
             lambda x, y, f=f: f(ftz(x, "f32"), ftz(y, "f32")))
    for bop, g in (("and", lambda p, c: p and c), ("or", lambda p, c: p or c), ("xor", lambda p, c: p != c)):
        add_case(COMPARE, f"setp_{op}_{bop}_f64", f"setp.{op}.{bop}.f64 %d0|%d1, %a0, %a1, %a2;",
                 ("f64", "f64", "pred"), ("pred", "pred"), lambda x, y, c, f=f, g=g: (g(f(x, y), c), g(not f(x, y), c)))
FLOAT_COMPARE = Ptx("float_compare", [c.entry for c in COMPARE])


# -- approximate functions: within the ISA's error bound, its special values exact ----------------
def special(table: dict):
    """The ISA's table of results for special inputs (keys: 'nan', 'inf', '-inf', '0', '-0')."""
    def look(x):
        if np.isnan(x):
            return table.get("nan")
        if np.isinf(x):
            return table.get("-inf" if x < 0 else "inf")
        if x == 0:
            return table.get("-0" if neg(x) else "0")
        return None
    return look


def approx(t, f, table, bound, flush=False, overrides=None):
    """(reference, closeness): the exact value f(x) in float64; `bound(got, exact, x)` says how far
    the GPU may be; special inputs must give the table's value."""
    look = special(table)

    def ref(x):
        x = ftz(x, t) if flush else x
        s = look(x)
        if s is not None:
            return dt(t)(s)
        if overrides is not None and overrides(x) is not None:
            return dt(t)(overrides(x))
        with np.errstate(all="ignore"):
            r = dt(t)(f(float(x)))
        return ftz(r, t) if flush else r

    def close(g, w, x):
        x = ftz(x, t) if flush else x
        if look(x) is not None or np.isnan(w) or np.isinf(w):
            return same_float(g, w, t)
        if flush and w == 0:
            return g == 0
        with np.errstate(all="ignore"):
            return not np.isnan(g) and bound(float(g), f(float(x)), float(x))
    return ref, close


def rel(limit):
    return lambda g, e, x: abs(g - e) <= limit * abs(e)


def within_ulps(t, n):
    return lambda g, e, x: ulps(dt(t)(g), round_float(Fraction(e), t), t) <= n if math.isfinite(e) else g == e


def negative_nan(x):
    return NAN if x < 0 else None


SIN_BOUND = lambda g, e, x: abs(g - e) <= (2 ** -20.5 if abs(x) <= 2 * math.pi else 2 ** -14.7)  # noqa: E731
LG2_BOUND = lambda g, e, x: abs(g - e) <= (2 ** -22 if 0.5 < x < 2 else 2 ** -22 * abs(e))  # noqa: E731
TRIG = st.one_of(st.sampled_from([0.0, -0.0, math.inf, -math.inf, NAN, 1e-40, -1e-40]), finite("f32", -100 * math.pi,
                                                                                              100 * math.pi))
TRIG_GEN = (lambda r, n: r.uniform(-100 * math.pi, 100 * math.pi, n),)
FUNCS: list = []
for fl in (False, True):
    m = ".ftz" if fl else ""
    tag = "_ftz" if fl else ""
    for name, f, table, bound, extra in [
            ("rcp", lambda x: 1.0 / x, {"nan": NAN, "inf": 0.0, "-inf": -0.0, "0": math.inf, "-0": -math.inf},
             within_ulps("f32", 1), None),
            ("sqrt", math.sqrt, {"nan": NAN, "inf": math.inf, "-inf": NAN, "0": 0.0, "-0": -0.0}, rel(2 ** -23),
             negative_nan),
            ("rsqrt", lambda x: 1.0 / math.sqrt(x), {"nan": NAN, "inf": 0.0, "-inf": NAN, "0": math.inf,
                                                     "-0": -math.inf}, rel(2 ** -22.9), negative_nan),
            ("sin", math.sin, {"nan": NAN, "inf": NAN, "-inf": NAN, "0": 0.0, "-0": -0.0}, SIN_BOUND, None),
            ("cos", math.cos, {"nan": NAN, "inf": NAN, "-inf": NAN, "0": 1.0, "-0": 1.0}, SIN_BOUND, None),
            ("lg2", math.log2, {"nan": NAN, "inf": math.inf, "-inf": NAN, "0": -math.inf, "-0": -math.inf}, LG2_BOUND,
             negative_nan),
            ("ex2", lambda x: 2.0 ** x if x < 1024 else math.inf, {"nan": NAN, "inf": math.inf, "-inf": 0.0, "0": 1.0,
                                                                   "-0": 1.0}, within_ulps("f32", 2), None)]:
        ref, close = approx("f32", f, table, bound, fl, extra)
        trig = name in ("sin", "cos")
        add_case(FUNCS, f"{name}_approx{tag}_f32", f"{name}.approx{m}.f32 %d0, %a0;", ("f32",), ("f32",), ref,
                 close=close, draw=(TRIG,) if trig else None, gen=TRIG_GEN if trig else None,
                 kind="trig" if trig else "")
tanh_ref, tanh_close = approx("f32", math.tanh, {"nan": NAN, "inf": 1.0, "-inf": -1.0, "0": 0.0, "-0": -0.0},
                              lambda g, e, x: abs(g - e) <= 2 ** -11 * abs(e) or (abs(x) < 1e-30 and g == x))
add_case(FUNCS, "tanh_approx_f32", "tanh.approx.f32 %d0, %a0;", ("f32",), ("f32",), tanh_ref, close=tanh_close)
r64, c64 = approx("f64", lambda x: 1.0 / math.sqrt(x), {"nan": NAN, "inf": 0.0, "-inf": NAN, "0": math.inf,
                                                        "-0": -math.inf}, rel(2 ** -22.9), overrides=negative_nan)
add_case(FUNCS, "rsqrt_approx_f64", "rsqrt.approx.f64 %d0, %a0;", ("f64",), ("f64",), r64, close=c64)
for name, f, table in [("ex2", lambda x: 2.0 ** x if x < 64 else math.inf,
                        {"nan": NAN, "inf": math.inf, "-inf": 0.0, "0": 1.0, "-0": 1.0}),
                       ("tanh", math.tanh, {"nan": NAN, "inf": 1.0, "-inf": -1.0, "0": 0.0, "-0": -0.0})]:
    r16, c16 = approx("f16", f, table, within_ulps("f16", 2))
    add_case(FUNCS, f"{name}_approx_f16", f"{name}.approx.f16 %d0, %a0;", ("f16",), ("f16",), r16, close=c16)
# div.full: 2 ulp over the full range; div.approx: 2 ulp for |b| in [2^-126, 2^126] (larger |b|: the test below)
for name, fl in (("div_full_f32", ""), ("div_full_ftz_f32", ".ftz"), ("div_approx_f32", ""),
                 ("div_approx_ftz_f32", ".ftz")):
    approx_div = "approx" in name
    add_case(FUNCS, name, f"div.{'approx' if approx_div else 'full'}{fl}.f32 %d0, %a0, %a1;", ("f32", "f32"), ("f32",),
             arith(lambda x, y: ieee_div(x, y, "f32"), "f32", bool(fl)), ulps=2,
             skip=(lambda x, y: not (2.0 ** -126 <= abs(float(y)) <= 2.0 ** 126) and not (np.isnan(x) or np.isnan(y)))
             if approx_div else None)
FLOAT_FUNCS = Ptx("float_funcs", [c.entry for c in FUNCS])


# -- conversions ----------------------------------------------------------------------------------
def int_range(t):
    n = BITS[t]
    return (-(1 << (n - 1)), (1 << (n - 1)) - 1) if t[0] == "s" else (0, (1 << n) - 1)


IRND = {"rni": round, "rzi": math.trunc, "rmi": math.floor, "rpi": math.ceil}


def f2i(rnd, d, f):
    lo, hi = int_range(d)

    def ref(x):
        if np.isnan(x):
            return 0 if f2i_nan_is_zero(f, d) else (lo if d[0] == "s" else 1 << (BITS[d] - 1))
        if np.isinf(x):
            return hi if x > 0 else lo
        return max(lo, min(hi, IRND[rnd](Fraction(float(x)))))
    return ref


def f2i_nan_is_zero(a, d):
    """ISA: NaN converts to 0 unless the source is .f64 or the destination 64-bit (then 1 << (n-1))."""
    return a != "f64" and BITS[d] != 64


def round_to_integral(rnd, t):
    def ref(x):
        if np.isnan(x) or np.isinf(x) or x == 0:
            return x
        n = IRND[rnd](Fraction(float(x)))
        return dt(t)(math.copysign(float(n), float(x))) if n == 0 else dt(t)(n)
    return ref


def tf32(x, away):
    """cvt.{rna,rn}.tf32.f32: the f32 rounded to 10 fraction bits, in a 32-bit container."""
    if not np.isfinite(x):
        return bits_of(x, "f32")
    r = round_value(Fraction(float(x)), 10, -126, away)
    v = math.inf if r is None else float(r)
    return bits_of(np.float32(-v if neg(x) else v), "f32")


CVT: list = []
for a in INT_TYPES:
    alo, ahi = int_range(a)
    for d in INT_TYPES:
        dlo, dhi = int_range(d)
        add_case(CVT, f"cvt_{d}_{a}", f"cvt.{d}.{a} %d0, %a0;", (a,), (d,), lambda x: x)
        if not (dlo <= alo and ahi <= dhi):  # .sat is legal only where saturation can happen
            add_case(CVT, f"cvt_sat_{d}_{a}", f"cvt.sat.{d}.{a} %d0, %a0;", (a,), (d,),
                     lambda x, lo=dlo, hi=dhi: max(lo, min(hi, x)))
    for f in ("f16", "f32", "f64"):
        add_case(CVT, f"cvt_rn_{f}_{a}", f"cvt.rn.{f}.{a} %d0, %a0;", (a,), (f,),
                 lambda x, f=f: round_float(Fraction(x), f))
for f in ("f16", "f32", "f64"):
    for d in INT_TYPES:
        for rnd in IRND:
            add_case(CVT, f"cvt_{rnd}_{d}_{f}", f"cvt.{rnd}.{d}.{f} %d0, %a0;", (f,), (d,), f2i(rnd, d, f))
    for rnd in IRND:
        add_case(CVT, f"cvt_{rnd}_{f}_{f}", f"cvt.{rnd}.{f}.{f} %d0, %a0;", (f,), (f,), round_to_integral(rnd, f))
    for g in ("f16", "f32", "f64"):
        if g == f:
            continue
        widen = FMT[g][0] > FMT[f][0]
        add_case(CVT, f"cvt_{g}_{f}", f"cvt{'' if widen else '.rn'}.{g}.{f} %d0, %a0;", (f,), (g,),
                 lambda x, g=g: dt(g)(x) if not np.isfinite(x) else round_float(Fraction(float(x)), g,
                                                                                negative_zero=neg(x)))
for rnd in IRND:
    add_case(CVT, f"cvt_{rnd}_ftz_f32_f32", f"cvt.{rnd}.ftz.f32.f32 %d0, %a0;", ("f32",), ("f32",),
             lambda x, rnd=rnd: round_to_integral(rnd, "f32")(ftz(x, "f32")))
add_case(CVT, "cvt_rn_ftz_f32_f64", "cvt.rn.ftz.f32.f64 %d0, %a0;", ("f64",), ("f32",),
         lambda x: ftz(dt("f32")(x) if not np.isfinite(x) else round_float(Fraction(float(x)), "f32", neg(x)), "f32"))
add_case(CVT, "cvt_ftz_f32_f32", "cvt.ftz.f32.f32 %d0, %a0;", ("f32",), ("f32",), lambda x: ftz(x, "f32"))
add_case(CVT, "cvt_sat_f32_f32", "cvt.sat.f32.f32 %d0, %a0;", ("f32",), ("f32",),
         arith(lambda x: x, "f32", sat=True), close=equal_or_zeros)
add_case(CVT, "cvt_rni_sat_f32_f32", "cvt.rni.sat.f32.f32 %d0, %a0;", ("f32",), ("f32",),
         arith(round_to_integral("rni", "f32"), "f32", sat=True), close=equal_or_zeros)
add_case(CVT, "cvt_rn_sat_f32_f64", "cvt.rn.sat.f32.f64 %d0, %a0;", ("f64",), ("f32",),
         arith(lambda x: dt("f32")(x) if not np.isfinite(x) else round_float(Fraction(float(x)), "f32", neg(x)),
               "f32", sat=True), close=equal_or_zeros)
TF32_LOW = [0, 0x1000, 0xFFF, 0x1001, 0x1FFF]  # the 13 bits rounded away: ties, and either side of one
TF32 = st.one_of(floats("f32"), st.tuples(st.integers(0, 2 ** 19 - 1), st.sampled_from(TF32_LOW)).map(
    lambda hl: from_bits(hl[0] << 13 | hl[1], "f32")))
TF32_GEN = (lambda r, n: ((r.integers(0, 2 ** 19, n).astype(np.uint32) << np.uint32(13))
                          | np.array(TF32_LOW, np.uint32)[r.integers(0, len(TF32_LOW), n)]).view(np.float32),)
for name, away in (("rna", True), ("rn", False)):
    add_case(CVT, f"cvt_{name}_tf32_f32", f"cvt.{name}.tf32.f32 %d0, %a0;", ("f32",), ("b32",),
             lambda x, away=away: tf32(x, away), draw=(TF32,), gen=TF32_GEN, kind="tf32")
CONVERT = Ptx("convert", [c.entry for c in CVT])

FAMILIES = [(FLOAT_ARITH, ARITH), (FLOAT_COMPARE, COMPARE), (FLOAT_FUNCS, FUNCS), (CONVERT, CVT)]
ALL = [(m, c) for m, cs in FAMILIES for c in cs]


@pytest.mark.skipif(not HAVE_PTXAS, reason="ptxas is not installed")
@pytest.mark.parametrize("title", ["float_arith", "float_compare", "float_funcs", "convert", "float_bugs"])
def test_the_hand_written_ptx_assembles_with_ptxas(title):
    """PTX only ptxas's grammar vouches for: cudasim accepting invalid PTX would prove nothing."""
    assert ptxas_errors(MODULES[title]) == ""


@pytest.mark.parametrize("mod, c", ALL, ids=[c.entry.name for _, c in ALL])
def test_edge_operands(mod, c):
    """Every combination of edge operands: signed zeros, subnormals, infinities, NaN, MAX."""
    check(mod, c, edge_columns(c))


@pytest.mark.parametrize("group", groups(ALL), ids=group_id)
@PROPS
@given(data=st.data())
def test_random_operands(group, data):
    """Drawn lanes, edge values mixed in, through every form that takes such operands."""
    c0 = group[0][1]
    cols = c0.warp_columns(data.draw(c0.warp()))
    for mod, c in group:
        check(mod, c, cols)


# -- disagreements with the ISA ------------------------------------------------------------
BUGS = Ptx("float_bugs", [
    Entry("neg_ftz_f32", "neg.ftz.f32 %d0, %a0;", ("f32",), ("f32",)),
    Entry("abs_ftz_f32", "abs.ftz.f32 %d0, %a0;", ("f32",), ("f32",)),
    Entry("min_ftz_f32", "min.ftz.f32 %d0, %a0, %a1;", ("f32", "f32"), ("f32",)),
    Entry("max_ftz_f32", "max.ftz.f32 %d0, %a0, %a1;", ("f32", "f32"), ("f32",)),
    Entry("rcp_approx_ftz_f64", "rcp.approx.ftz.f64 %d0, %a0;", ("f64",), ("f64",)),
    Entry("rsqrt_approx_ftz_f64", "rsqrt.approx.ftz.f64 %d0, %a0;", ("f64",), ("f64",)),
    Entry("cvt_rpi_ftz_s32_f32", "cvt.rpi.ftz.s32.f32 %d0, %a0;", ("f32",), ("s32",)),
    Entry("cvt_rmi_ftz_s32_f32", "cvt.rmi.ftz.s32.f32 %d0, %a0;", ("f32",), ("s32",)),
    Entry("cvt_rn_relu_f16_f32", "cvt.rn.relu.f16.f32 %d0, %a0;", ("f32",), ("f16",)),
    Entry("cvt_rn_satfinite_f16_f32", "cvt.rn.satfinite.f16.f32 %d0, %a0;", ("f32",), ("f16",)),
    Entry("cvt_ftz_f64_f32", "cvt.ftz.f64.f32 %d0, %a0;", ("f32",), ("f64",)),
    Entry("cvt_rn_ftz_f16_f32", "cvt.rn.ftz.f16.f32 %d0, %a0;", ("f32",), ("f16",)),
    Entry("add_rn_f16x2", "add.rn.f16x2 %d0, %a0, %a1;", ("b32", "b32"), ("b32",)),
    Entry("mul_rn_bf16", "mul.rn.bf16 %d0, %a0, %a1;", ("bf16", "bf16"), ("bf16",)),
])


@pytest.mark.parametrize("op", ["neg", "abs"])
def test_neg_abs_ftz_flush_subnormals(op):
    """ISA: {neg,abs}.ftz.f32 flush subnormal inputs and results to sign-preserving zero."""
    (d,) = BUGS.run(f"{op}_ftz_f32", np.float32([1e-40, -1e-40]))
    want = [-0.0, 0.0] if op == "neg" else [0.0, 0.0]
    assert [bits_of(x, "f32") for x in d] == [bits_of(np.float32(w), "f32") for w in want], d


@pytest.mark.parametrize("op, t", [("min", "f32"), ("max", "f32"), ("min", "f64"), ("max", "f64")])
def test_min_max_order_negative_zero_below_positive_zero(op, t):
    """ISA: if both inputs are 0.0, +0.0 > -0.0, whichever operand holds which."""
    x, y = np.array([0.0, -0.0], NP[t]), np.array([-0.0, 0.0], NP[t])
    (d,) = FLOAT_COMPARE.run(f"{op}_{t}", x, y)
    assert [neg(v) for v in d] == [op == "min"] * 2, d


@pytest.mark.parametrize("op", ["min", "max"])
def test_min_max_ftz_flush_subnormals(op):
    """ISA: {min,max}.ftz.f32 flush subnormal inputs and results to sign-preserving zero."""
    (d,) = BUGS.run(f"{op}_ftz_f32", np.float32([1e-40]), np.float32([1.0 if op == "min" else -1.0]))
    assert d[0] == 0 and not neg(d[0]), d


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_testp_normal_counts_zeros_as_normal(t):
    """ISA: "As a special case, positive and negative zero are considered normal numbers"."""
    (d,) = FLOAT_COMPARE.run(f"testp_normal_{t}", np.array([0.0, -0.0], NP[t]))
    assert d.tolist() == [1, 1]


def test_div_approx_by_a_huge_divisor_gives_zero():
    """ISA: for 2^126 < |b| < 2^128, div.approx.f32 returns NaN if a is infinite, else sign-preserving zero."""
    (d,) = FLOAT_FUNCS.run("div_approx_f32", np.float32([1.0, -3.0, math.inf]), np.float32([2.0 ** 127] * 3))
    assert bits_of(d[0], "f32") == 0 and bits_of(d[1], "f32") == 0x80000000 and np.isnan(d[2]), d


@pytest.mark.parametrize("op", ["rcp", "rsqrt"])
def test_gross_f64_approximations_zero_the_low_word(op):
    """ISA: {rcp,rsqrt}.approx.ftz.f64 compute from the upper word and zero the low 32 bits of d."""
    (d,) = BUGS.run(f"{op}_approx_ftz_f64", np.float64([3.0, 7.0]))
    assert [bits_of(v, "f64") & 0xFFFFFFFF for v in d] == [0, 0], [hex(bits_of(v, "f64")) for v in d]


def test_fma_f32_rounds_once():
    """ISA: fma.rn computes a*b+c in infinite precision, then rounds once. Here a*b = 2^-24 (1 + e),
    0 < e < 2^-29: 1 + a*b lies above the midpoint 1 + 2^-24, so the answer is 1 + 2^-23; rounded
    to float64 first it lands on the midpoint and then rounds to even, 1.0."""
    a, b = np.float32(0xFFF01F * 2.0 ** -23), np.float32(0x8007F1 * 2.0 ** -48)
    want = ieee_fma(a, b, np.float32(1.0), "f32")
    assert want == np.float32(1 + 2.0 ** -23)
    (d,) = FLOAT_ARITH.run("fma_rn_f32", np.float32([a]), np.float32([b]), np.float32([1.0]))
    assert bits_of(d[0], "f32") == bits_of(want, "f32"), d


FMA_GROUP = Ptx("fma_group", [Entry("fma4", "\n".join(f"fma.rn.f32 %d{i}, %a{i}, %a4, %a5;" for i in range(4)),
                                    ("f32",) * 6, ("f32",) * 4)])


@PROPS
@given(e=st.lists(st.integers(-20, 20), min_size=32, max_size=32), sign=st.lists(st.sampled_from([1, -1]), min_size=32,
                                                                              max_size=32),
       nudge=st.lists(st.sampled_from([0, 0, 1, -1]), min_size=32, max_size=32))
def test_fused_fma_group_rounds_once(e, sign, nudge):
    """Four fma.rn.f32 in a row run as one fused group (the FFMA tile path): each lane is the case of
    test_fma_f32_rounds_once scaled by a power of two and a sign (just off a midpoint), or b one ulp away."""
    a0, b0 = np.float32(0xFFF01F * 2.0 ** -23), np.float32(0x8007F1 * 2.0 ** -48)
    b = np.float32([(b0 + np.float32(n * 2.0 ** -47)) * np.float32(s * 2.0 ** x) for x, s, n in zip(e, sign, nudge)])
    c = np.float32([s * 2.0 ** x for x, s in zip(e, sign)])
    ins = [np.full(32, a0, np.float32)] * 4 + [b, c]
    outs = FMA_GROUP.run("fma4", *ins)
    want = [bits_of(ieee_fma(a0, b[j], c[j], "f32"), "f32") for j in range(32)]
    for d in outs:
        assert [bits_of(x, "f32") for x in d] == want


HUGE = np.float64(2.0 ** 1000 * (1 + 2.0 ** -52))
MAX64 = np.finfo(np.float64).max


@pytest.mark.parametrize("a, b, c", [(HUGE, 1 + 2.0 ** -52, -(HUGE * (1 + 2.0 ** -52))),  # exactly 2^896; unfused: 0
                                     (MAX64, 1.5, -MAX64),  # 0.5 MAX; unfused: inf
                                     (3.0, MAX64, -math.inf)])  # -inf; unfused: inf - inf = NaN
def test_fma_f64_is_fused_when_the_product_overflows(a, b, c):
    """ISA: fma.rn.f64 computes a*b+c in infinite precision, then rounds once: an intermediate
    product beyond the float64 range (or beyond what the splitting constant can scale) changes nothing."""
    want = ieee_fma(np.float64(a), np.float64(b), np.float64(c), "f64")
    (d,) = FLOAT_ARITH.run("fma_rn_f64", np.float64([a]), np.float64([b]), np.float64([c]))
    assert same_float(d[0], want, "f64"), (d[0], want)


@pytest.mark.parametrize("form, src, want", [("cvt_rzi_s64_f64", np.float64, -2 ** 63),
                                             ("cvt_rni_u64_f32", np.float32, 2 ** 63),
                                             ("cvt_rzi_s32_f64", np.float64, -2 ** 31),
                                             ("cvt_rmi_u16_f64", np.float64, 2 ** 15)])
def test_float_to_int_of_nan_from_f64_or_to_64_bits(form, src, want):
    """ISA: NaN converts to 0 if the source is not .f64 and the destination not 64-bit, otherwise to
    1 << (n - 1): MININT for signed types, (MAXINT >> 1) + 1 for unsigned."""
    (d,) = CONVERT.run(form, src([NAN]))
    assert int(d[0]) == want


@pytest.mark.parametrize("form, x", [("cvt_rpi_ftz_s32_f32", 1e-40), ("cvt_rmi_ftz_s32_f32", -1e-40)])
def test_float_to_int_ftz_flushes_the_input(form, x):
    """ISA: for cvt.ftz.dtype.f32 float-to-integer conversions, subnormal inputs are flushed to zero."""
    (d,) = BUGS.run(form, np.float32([x]))
    assert d.tolist() == [0]


def test_cvt_relu_clamps_negative_results_to_zero():
    """ISA: for .f16 destinations, .relu clamps the result to 0 if negative; NaN stays NaN."""
    (d,) = BUGS.run("cvt_rn_relu_f16_f32", np.float32([-1.0, 2.5, NAN]))
    assert d[0] == 0 and d[1] == 2.5 and np.isnan(d[2]), d


def test_cvt_satfinite_clamps_to_the_largest_finite_value():
    """ISA: .satfinite: beyond MAX_NORM (65504 for .f16) the result is sign-preserved MAX_NORM; NaN stays NaN."""
    (d,) = BUGS.run("cvt_rn_satfinite_f16_f32", np.float32([math.inf, 1e6, -1e6, NAN]))
    assert d[:3].tolist() == [65504.0, 65504.0, -65504.0] and np.isnan(d[3]), d


@pytest.mark.parametrize("form, x, want", [("cvt_ftz_f64_f32", 1e-40, 0.0),
                                           ("cvt_rn_ftz_f16_f32", 1e-5, float(np.float16(1e-5)))])
def test_cvt_ftz_applies_to_the_f32_operand_only(form, x, want):
    """ISA: .ftz applies only to single-precision inputs and results: cvt.ftz.f64.f32 flushes its
    subnormal f32 input; cvt.rn.ftz.f16.f32 keeps a subnormal f16 result."""
    assert want == 0 or np.float16(want) != 0
    (d,) = BUGS.run(form, np.float32([x]))
    assert float(d[0]) == want, d


@pytest.mark.parametrize("form, a, b, want", [("add_rn_f16x2", np.uint32([0x3C003C00]), np.uint32([0x3C003C00]),
                                               0x40004000),
                                              ("mul_rn_bf16", np.uint16([0x3F80]), np.uint16([0x4000]), 0x4000)])
def test_half_pair_and_bf16_arithmetic_is_float_or_refused(form, a, b, want):
    """1.0 + 1.0 in each half is 2.0 (0x4000 twice); bf16 1.0 * 2.0 is 2.0 (0x4000). cudasim models
    neither, so it must compute them as floats or refuse them, not add or multiply the bit patterns."""
    from cudasim import UnsupportedInstruction
    try:
        (d,) = BUGS.run(form, a, b)
    except UnsupportedInstruction:
        return
    assert int(d[0]) == want, hex(int(d[0]))
