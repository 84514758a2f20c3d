"""Integer, bit, logic and select instructions against references written from the PTX ISA.

NVRTC emits few of these forms (never `bfe.s64`, `prmt` with a run-time selector, `lop3`
with an arbitrary LUT, `slct`, `mul.hi.s64` with an immediate...), so each form is an entry
of a hand-written PTX module run by cudasim lane by lane. Every form gets the cross product
of its operand types' edge values (0, 1, -1, MIN, MAX, shift amounts at and past the width)
and hypothesis-drawn lanes. Lanes the ISA leaves unspecified (division by zero) are skipped.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptxkit import (BITS, HAVE_PTXAS, MODULES, Entry, Ptx, add_case, check, columns, edge_columns, group_id, groups,
                    ints, lanes, mismatch, ptxas_errors)

PROPS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SINT, UINT, BTYPES = ("s16", "s32", "s64"), ("u16", "u32", "u64"), ("b16", "b32", "b64")
WIDE = {"s16": "s32", "u16": "u32", "s32": "s64", "u32": "u64"}


def tdiv(x: int, y: int) -> int:
    """Integer division truncating toward zero (C, and the GPU)."""
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def sat32(x: int) -> int:
    return max(-2 ** 31, min(2 ** 31 - 1, x))


# -- arithmetic ---------------------------------------------------------------------------
ARITH: list = []
for t in SINT + UINT:
    n = BITS[t]
    add_case(ARITH, f"add_{t}", f"add.{t} %d0, %a0, %a1;", (t, t), (t,), lambda x, y: x + y)
    add_case(ARITH, f"sub_{t}", f"sub.{t} %d0, %a0, %a1;", (t, t), (t,), lambda x, y: x - y)
    add_case(ARITH, f"mul_lo_{t}", f"mul.lo.{t} %d0, %a0, %a1;", (t, t), (t,), lambda x, y: x * y)
    add_case(ARITH, f"mul_hi_{t}", f"mul.hi.{t} %d0, %a0, %a1;", (t, t), (t,), lambda x, y, n=n: (x * y) >> n)
    add_case(ARITH, f"mad_lo_{t}", f"mad.lo.{t} %d0, %a0, %a1, %a2;", (t, t, t), (t,), lambda x, y, z: x * y + z)
    add_case(ARITH, f"mad_hi_{t}", f"mad.hi.{t} %d0, %a0, %a1, %a2;", (t, t, t), (t,),
         lambda x, y, z, n=n: ((x * y) >> n) + z)
    add_case(ARITH, f"min_{t}", f"min.{t} %d0, %a0, %a1;", (t, t), (t,), min)
    add_case(ARITH, f"max_{t}", f"max.{t} %d0, %a0, %a1;", (t, t), (t,), max)
    add_case(ARITH, f"div_{t}", f"div.{t} %d0, %a0, %a1;", (t, t), (t,), lambda x, y: tdiv(x, y),
         skip=lambda x, y: y == 0)
    add_case(ARITH, f"rem_{t}", f"rem.{t} %d0, %a0, %a1;", (t, t), (t,), lambda x, y: x - y * tdiv(x, y),
         skip=lambda x, y: y == 0)
    if t in SINT:
        add_case(ARITH, f"neg_{t}", f"neg.{t} %d0, %a0;", (t,), (t,), lambda x: -x)
        add_case(ARITH, f"abs_{t}", f"abs.{t} %d0, %a0;", (t,), (t,), abs)
    if t in WIDE:
        w = WIDE[t]
        add_case(ARITH, f"mul_wide_{t}", f"mul.wide.{t} %d0, %a0, %a1;", (t, t), (w,), lambda x, y: x * y)
        add_case(ARITH, f"mad_wide_{t}", f"mad.wide.{t} %d0, %a0, %a1, %a2;", (t, t, w), (w,),
                 lambda x, y, z: x * y + z)
add_case(ARITH, "add_sat_s32", "add.sat.s32 %d0, %a0, %a1;", ("s32", "s32"), ("s32",), lambda x, y: sat32(x + y))
add_case(ARITH, "sub_sat_s32", "sub.sat.s32 %d0, %a0, %a1;", ("s32", "s32"), ("s32",), lambda x, y: sat32(x - y))
# immediate operands take the scalar paths
add_case(ARITH, "add_s32_imm", "add.s32 %d0, %a0, -5;", ("s32",), ("s32",), lambda x: x - 5)
add_case(ARITH, "mul_lo_s32_imm_first", "mul.lo.s32 %d0, 3, %a0;", ("s32",), ("s32",), lambda x: 3 * x)
add_case(ARITH, "mul_hi_u64_imm", "mul.hi.u64 %d0, %a0, 0xFEDCBA9876543210;", ("u64",), ("u64",),
     lambda x: (x * 0xFEDCBA9876543210) >> 64)
add_case(ARITH, "mul_hi_s64_imm", "mul.hi.s64 %d0, %a0, -3;", ("s64",), ("s64",), lambda x: (x * -3) >> 64)
add_case(ARITH, "mul_hi_u32_imm", "mul.hi.u32 %d0, %a0, 0x9E3779B9;", ("u32",), ("u32",),
     lambda x: (x * 0x9E3779B9) >> 32)
add_case(ARITH, "mul_wide_s32_imm", "mul.wide.s32 %d0, %a0, -7;", ("s32",), ("s64",), lambda x: -7 * x)
add_case(ARITH, "div_s32_imm", "div.s32 %d0, %a0, -7;", ("s32",), ("s32",), lambda x: tdiv(x, -7))
add_case(ARITH, "rem_u64_imm", "rem.u64 %d0, %a0, 10;", ("u64",), ("u64",), lambda x: x % 10)
add_case(ARITH, "mad_lo_s32_imm", "mad.lo.s32 %d0, %a0, 3, %a1;", ("s32", "s32"), ("s32",), lambda x, z: 3 * x + z)
INT_ARITH = Ptx("int_arith", [c.entry for c in ARITH])


# -- bits, logic, shifts ------------------------------------------------------------------
def bfe_ref(a: int, pos: int, ln: int, t: str) -> int:
    """PTX ISA bfe: msb, pos and len restricted to 0..255, the sign bit of the field replicated."""
    msb = BITS[t] - 1
    pos, ln = pos & 0xFF, ln & 0xFF
    sbit = 0 if t[0] == "u" or ln == 0 else (a >> min(pos + ln - 1, msb)) & 1
    d = 0
    for i in range(msb + 1):
        bit = (a >> (pos + i)) & 1 if (i < ln and pos + i <= msb) else sbit
        d |= bit << i
    return d


def bfi_ref(a: int, b: int, pos: int, ln: int, t: str) -> int:
    msb = BITS[t] - 1
    pos, ln = pos & 0xFF, ln & 0xFF
    f = b
    i = 0
    while i < ln and pos + i <= msb:
        f = (f & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
        i += 1
    return f


def prmt_ref(a: int, b: int, c: int) -> int:
    """prmt.b32 default mode: bytes of {b, a} picked by the selector nibbles, msb set: sign-replicate."""
    src = (b << 32) | a
    d = 0
    for k in range(4):
        sel = (c >> (4 * k)) & 0xF
        byte = (src >> (8 * (sel & 7))) & 0xFF
        if sel & 8:
            byte = 0xFF if byte & 0x80 else 0
        d |= byte << (8 * k)
    return d


def shift_amounts(w: int):
    return st.one_of(st.integers(0, 2 * w + 2), ints("u32"))


def unsigned(x: int, t: str) -> int:
    return x & ((1 << BITS[t]) - 1)


BITOPS: list = []
for t in BTYPES:
    n = BITS[t]
    add_case(BITOPS, f"and_{t}", f"and.{t} %d0, %a0, %a1;", (t, t), (t,), lambda x, y: x & y)
    add_case(BITOPS, f"or_{t}", f"or.{t} %d0, %a0, %a1;", (t, t), (t,), lambda x, y: x | y)
    add_case(BITOPS, f"xor_{t}", f"xor.{t} %d0, %a0, %a1;", (t, t), (t,), lambda x, y: x ^ y)
    add_case(BITOPS, f"not_{t}", f"not.{t} %d0, %a0;", (t,), (t,), lambda x: ~x)
    add_case(BITOPS, f"cnot_{t}", f"cnot.{t} %d0, %a0;", (t,), (t,), lambda x: int(x == 0))
    add_case(BITOPS, f"shl_{t}", f"shl.{t} %d0, %a0, %a1;", (t, "u32"), (t,), lambda x, s, n=n: x << s if s < n else 0,
         draw=(ints(t), shift_amounts(n)), kind="shift")
    for k in (0, 1, n - 1, n, n + 9):  # immediate amounts, at and past the width
        add_case(BITOPS, f"shl_{t}_imm{k}", f"shl.{t} %d0, %a0, {k};", (t,), (t,),
                 lambda x, k=k, n=n: x << k if k < n else 0)
        add_case(BITOPS, f"shr_{t}_imm{k}", f"shr.{t} %d0, %a0, {k};", (t,), (t,),
                 lambda x, k=k, n=n: x >> k if k < n else 0)
for t in BTYPES + UINT + SINT:
    n = BITS[t]
    add_case(BITOPS, f"shr_{t}", f"shr.{t} %d0, %a0, %a1;", (t, "u32"), (t,),
         lambda x, s, n=n: x >> min(s, n - 1) if x < 0 else (x >> s if s < n else 0),
             draw=(ints(t), shift_amounts(n)), kind="shift")
add_case(BITOPS, "shr_s32_imm40", "shr.s32 %d0, %a0, 40;", ("s32",), ("s32",), lambda x: x >> 31)
for t in ("b32", "b64"):
    n = BITS[t]
    add_case(BITOPS, f"popc_{t}", f"popc.{t} %d0, %a0;", (t,), ("u32",), lambda x: bin(x).count("1"))
    add_case(BITOPS, f"clz_{t}", f"clz.{t} %d0, %a0;", (t,), ("u32",), lambda x, n=n: n - x.bit_length())
    add_case(BITOPS, f"brev_{t}", f"brev.{t} %d0, %a0;", (t,), (t,), lambda x, n=n: int(f"{x:0{n}b}"[::-1], 2))
    add_case(BITOPS, f"bfi_{t}", f"bfi.{t} %d0, %a0, %a1, %a2, %a3;", (t, t, "u32", "u32"), (t,),
         lambda a, b, p, ln, t=t: bfi_ref(a, b, p, ln, t),
             draw=(ints(t), ints(t), shift_amounts(n), shift_amounts(n)), kind="field")
for t in ("u32", "s32", "u64", "s64"):
    n = BITS[t]
    add_case(BITOPS, f"bfe_{t}", f"bfe.{t} %d0, %a0, %a1, %a2;", (t, "u32", "u32"), (t,),
         lambda a, p, ln, t=t: bfe_ref(unsigned(a, t), p, ln, t),
             draw=(ints(t), shift_amounts(n), shift_amounts(n)), kind="field")
for t in ("u32", "s32", "u64", "s64"):
    n = BITS[t]

    def bfind_ref(x: int, shiftamt: bool, n: int = n) -> int:
        """The highest bit unlike the sign (signed: of ~x where negative); 0xFFFFFFFF if none."""
        v = ~x if x < 0 else x
        if v == 0:
            return 0xFFFFFFFF
        return n - v.bit_length() if shiftamt else v.bit_length() - 1
    add_case(BITOPS, f"bfind_{t}", f"bfind.{t} %d0, %a0;", (t,), ("u32",), lambda x, f=bfind_ref: f(x, False))
    add_case(BITOPS, f"bfind_shiftamt_{t}", f"bfind.shiftamt.{t} %d0, %a0;", (t,), ("u32",),
             lambda x, f=bfind_ref: f(x, True))
for mode in ("wrap", "clamp"):
    for side in ("l", "r"):
        def shf_ref(a: int, b: int, c: int, side: str = side, mode: str = mode) -> int:
            k = c & 31 if mode == "wrap" else min(c, 32)
            both = b << 32 | a
            return (both << k >> 32 if side == "l" else both >> k) & 0xFFFFFFFF
        add_case(BITOPS, f"shf_{side}_{mode}", f"shf.{side}.{mode}.b32 %d0, %a0, %a1, %a2;", ("b32", "b32", "u32"),
                 ("b32",), shf_ref, draw=(ints("b32"), ints("b32"), shift_amounts(32)), kind="shift")
for t in ("u32", "s32", "u64", "s64"):
    add_case(BITOPS, f"sad_{t}", f"sad.{t} %d0, %a0, %a1, %a2;", (t, t, t), (t,), lambda a, b, c: abs(a - b) + c)
add_case(BITOPS, "bfe_u32_imm", "bfe.u32 %d0, %a0, 8, 12;", ("u32",), ("u32",), lambda a: (a >> 8) & 0xFFF)
add_case(BITOPS, "prmt_b32", "prmt.b32 %d0, %a0, %a1, %a2;", ("b32", "b32", "b32"), ("b32",), prmt_ref)
add_case(BITOPS, "prmt_b32_imm", "prmt.b32 %d0, %a0, %a1, 0x9C40;", ("b32", "b32"), ("b32",),
     lambda a, b: prmt_ref(a, b, 0x9C40))
for op, f in (("and", lambda p, q: p and q), ("or", lambda p, q: p or q), ("xor", lambda p, q: p != q)):
    add_case(BITOPS, f"{op}_pred", f"{op}.pred %d0, %a0, %a1;", ("pred", "pred"), ("pred",), f)
add_case(BITOPS, "not_pred", "not.pred %d0, %a0;", ("pred",), ("pred",), lambda p: not p)
INT_BITS = Ptx("int_bits", [c.entry for c in BITOPS])
LOP3 = Ptx("lop3", [Entry(f"lop3_{lut}", f"lop3.b32 %d0, %a0, %a1, %a2, {lut};", ("b32", "b32", "b32"), ("b32",))
                    for lut in range(256)])


# -- compare and select ---------------------------------------------------------------------
CMP = {"eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "lt": lambda x, y: x < y, "le": lambda x, y: x <= y,
       "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y}
UCMP = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}
BOOL = {"and": lambda p, c: p and c, "or": lambda p, c: p or c, "xor": lambda p, c: p != c}

SELECT: list = []
for t in BTYPES + UINT + SINT:
    ops = ("eq", "ne") if t in BTYPES else tuple(CMP) + (tuple(UCMP) if t in UINT else ())
    for c in ops:
        f = CMP[UCMP.get(c, c)]
        add_case(SELECT, f"setp_{c}_{t}", f"setp.{c}.{t} %d0, %a0, %a1;", (t, t), ("pred",), f)
for bop, g in BOOL.items():
    for c, t in (("lt", "s32"), ("hs", "u64"), ("ne", "b16")):
        f = CMP[UCMP.get(c, c)]
        add_case(SELECT, f"setp_{c}_{bop}_{t}", f"setp.{c}.{bop}.{t} %d0|%d1, %a0, %a1, %a2;", (t, t, "pred"),
             ("pred", "pred"), lambda x, y, p, f=f, g=g: (g(f(x, y), p), g(not f(x, y), p)))
add_case(SELECT, "setp_gt_s32_pq", "setp.gt.s32 %d0|%d1, %a0, %a1;", ("s32", "s32"), ("pred", "pred"),
     lambda x, y: (x > y, not x > y))
for t in BTYPES + UINT + SINT + ("f32", "f64"):
    add_case(SELECT, f"selp_{t}", f"selp.{t} %d0, %a0, %a1, %a2;", (t, t, "pred"), (t,), lambda a, b, p: a if p else b)
add_case(SELECT, "selp_s32_imm", "selp.s32 %d0, -9, %a0, %a1;", ("s32", "pred"), ("s32",), lambda b, p: -9 if p else b)
SLCT_TYPES = ("b16", "u16", "s16", "b32", "u32", "s32", "f32", "b64", "u64", "s64", "f64")
for dt in SLCT_TYPES:
    add_case(SELECT, f"slct_{dt}_s32", f"slct.{dt}.s32 %d0, %a0, %a1, %a2;", (dt, dt, "s32"), (dt,),
         lambda a, b, c: a if c >= 0 else b)
    add_case(SELECT, f"slct_{dt}_f32", f"slct.{dt}.f32 %d0, %a0, %a1, %a2;", (dt, dt, "f32"), (dt,),
         lambda a, b, c: a if c >= 0 else b)  # NaN >= 0 is false: b, as the ISA says
INT_SELECT = Ptx("int_select", [c.entry for c in SELECT])

FAMILIES = [(INT_ARITH, ARITH), (INT_BITS, BITOPS), (INT_SELECT, SELECT)]
ALL = [(m, c) for m, cs in FAMILIES for c in cs]


@pytest.mark.skipif(not HAVE_PTXAS, reason="ptxas is not installed")
@pytest.mark.parametrize("title", ["int_arith", "int_bits", "int_select", "lop3", "int_bugs"])
def test_the_hand_written_ptx_assembles_with_ptxas(title):
    """PTX only ptxas's grammar vouches for: cudasim accepting invalid PTX would prove nothing."""
    assert ptxas_errors(MODULES[title]) == ""


@pytest.mark.parametrize("mod, c", ALL, ids=[c.entry.name for _, c in ALL])
def test_edge_operands(mod, c):
    """Every combination of edge operands (wraps, MIN / -1, shifts at and past the width)."""
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


def test_lop3_lut_is_the_function_of_the_canonical_operands():
    """The ISA defines immLut as F(0xF0, 0xCC, 0xAA): every LUT must give itself back in each byte."""
    a, b, c = (np.full(1, v, np.uint32) for v in (0xF0F0F0F0, 0xCCCCCCCC, 0xAAAAAAAA))
    for lut in range(256):
        (d,) = LOP3.run(f"lop3_{lut}", a, b, c)
        assert int(d[0]) == lut * 0x01010101, lut


@PROPS
@given(lut=st.integers(0, 255), rows=lanes(ints("b32"), ints("b32"), ints("b32")))
def test_lop3_applies_the_lut_bit_by_bit(lut, rows):
    a, b, c = columns(rows, ("b32",) * 3)
    (d,) = LOP3.run(f"lop3_{lut}", a, b, c)
    for i, (x, y, z) in enumerate(rows):
        x, y, z = (v & 0xFFFFFFFF for v in (x, y, z))
        want = sum(((lut >> ((((x >> k) & 1) << 2) | (((y >> k) & 1) << 1) | ((z >> k) & 1))) & 1) << k
                   for k in range(32))
        assert int(d[i]) == want, mismatch(f"lop3 {lut:#x}", i, [a, b, c], d[i], want)


# -- disagreements with the ISA ------------------------------------------------------------
BUGS = Ptx("int_bugs", [
    Entry("bfe_s32", "bfe.s32 %d0, %a0, %a1, %a2;", ("b32", "u32", "u32"), ("b32",)),
    Entry("bfe_s64", "bfe.s64 %d0, %a0, %a1, %a2;", ("b64", "u32", "u32"), ("b64",)),
    Entry("mad_hi_sat_s32", "mad.hi.sat.s32 %d0, %a0, %a1, %a2;", ("s32", "s32", "s32"), ("s32",)),
    Entry("slct_b64_s32", "slct.b64.s32 %d0, %a0, %a1, %a2;", ("b64", "b64", "s32"), ("b64",)),
    Entry("slct_u32_f32", "slct.u32.f32 %d0, %a0, %a1, %a2;", ("u32", "u32", "f32"), ("u32",)),
    Entry("slct_f32_s32", "slct.f32.s32 %d0, %a0, %a1, %a2;", ("f32", "f32", "s32"), ("f32",)),
    Entry("slct_f64_f32", "slct.f64.f32 %d0, %a0, %a1, %a2;", ("f64", "f64", "f32"), ("f64",)),
    Entry("slct_ftz_s32_f32", "slct.ftz.s32.f32 %d0, %a0, %a1, %a2;", ("s32", "s32", "f32"), ("s32",)),
])


@pytest.mark.parametrize("t, a, pos, ln", [("s32", 0x80000000, 28, 8), ("s32", 0xF0000000, 40, 4),
                                           ("s64", 1 << 63, 60, 8)])
def test_signed_bfe_past_the_msb_fills_with_the_sign_bit(t, a, pos, ln):
    """ISA: d[i] = (i < len && pos+i <= msb) ? a[pos+i] : sbit, sbit = a[min(pos+len-1, msb)]."""
    (d,) = BUGS.run(f"bfe_{t}", np.array([a], np.dtype(f"u{BITS[t] // 8}")), np.uint32([pos]), np.uint32([ln]))
    assert int(d[0]) == bfe_ref(a, pos, ln, t), f"{int(d[0]):#x}"


def test_mad_hi_sat_saturates():
    """ISA: .sat limits the 32-bit signed addition of mad.hi.s32 to MININT..MAXINT."""
    big = np.int32([2 ** 31 - 1, -2 ** 31])
    (d,) = BUGS.run("mad_hi_sat_s32", big, np.int32([2 ** 31 - 1, 2 ** 31 - 1]), big)
    assert d.tolist() == [2 ** 31 - 1, -2 ** 31]


@pytest.mark.parametrize("form, a, c", [("slct_b64_s32", np.uint64([0x0123456789ABCDEF]), np.int32([1])),
                                         ("slct_u32_f32", np.uint32([0x01234567]), np.float32([1])),
                                         ("slct_f32_s32", np.float32([1.5]), np.int32([1])),
                                         ("slct_f64_f32", np.float64([0.1]), np.float32([1]))])
def test_slct_copies_the_selected_operand_bits_unchanged(form, a, c):
    """ISA: a and b are treated as bit-size values of the first type; the selected one is copied unchanged."""
    (d,) = BUGS.run(form, a, np.zeros_like(a), c)
    assert d.tobytes() == a.tobytes(), f"{d.view(np.dtype(f'u{a.itemsize}'))[0]:#x}"


def test_slct_ftz_flushes_c_and_selects_a():
    """ISA: slct.ftz.dtype.f32 flushes a subnormal c to sign-preserving zero, and a is selected."""
    (d,) = BUGS.run("slct_ftz_s32_f32", np.int32([1]), np.int32([2]), np.float32([-1e-40]))
    assert d.tolist() == [1]
