"""Reference arithmetic for the 16-bit float and rounding tests, written from the PTX ISA and
IEEE 754 with Python integers and exact fractions, never with the simulator's code; and the
lanes those tests run (edge operands, drawn bit patterns) and their bit-for-bit check.

A value is a pair (x, neg): x a Fraction, or math.inf or math.nan, and neg its sign bit (which
tells -0 from +0). Results are bit patterns: the tests compare bits, NaN payloads included.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

from ptxkit import NP, Entry, Ptx, round_value

# format -> (fraction bits, smallest normal exponent, width)
FMTS = {"f16": (10, -14, 16), "bf16": (7, -126, 16), "f32": (23, -126, 32), "f64": (52, -1022, 64)}
NAN16 = 0x7FFF
NAN32 = 0x7FFFFFFF


def exp_bits(fmt: str) -> int:
    p, emin, w = FMTS[fmt]
    return w - 1 - p


def value(u: int, fmt: str):
    """(x, neg) of the bits u."""
    p, emin, w = FMTS[fmt]
    e_bits = w - 1 - p
    neg = bool(u >> (w - 1))
    e = (u >> p) & ((1 << e_bits) - 1)
    m = u & ((1 << p) - 1)
    if e == (1 << e_bits) - 1:
        return (math.nan if m else -math.inf if neg else math.inf), neg
    x = Fraction(m, 1 << p) * Fraction(2) ** emin if e == 0 else \
        (1 + Fraction(m, 1 << p)) * Fraction(2) ** (e - (1 << (e_bits - 1)) + 1)
    return (-x if neg else x), neg


def is_nan(u: int, fmt: str) -> bool:
    return isinstance(value(u, fmt)[0], float) and math.isnan(value(u, fmt)[0])


def encode(x, neg: bool, fmt: str, mode: str = "rn") -> int:
    """Bits of x (Fraction, or +-inf) rounded in `fmt` by `mode` (zero results take the sign `neg`);
    overflow to infinity, or to the largest finite value where the mode rounds toward zero."""
    p, emin, w = FMTS[fmt]
    sign = 1 << (w - 1)
    e_bits = w - 1 - p
    inf = ((1 << e_bits) - 1) << p
    if isinstance(x, float):
        assert math.isinf(x)
        return inf | (sign if x < 0 else 0)
    negative = x < 0 or (x == 0 and neg)
    toward_zero = None if mode == "rn" else (mode == "rz" or (mode == "rm") != negative)
    r = round_value(x, p, emin, False, toward_zero)
    if r is None:
        return inf | (sign if negative else 0)
    if r == 0:
        return sign if negative else 0
    e = r.numerator.bit_length() - r.denominator.bit_length()
    while Fraction(2) ** e > r:
        e -= 1
    while Fraction(2) ** (e + 1) <= r:
        e += 1
    if e < emin:  # subnormal
        bits = int(r / Fraction(2) ** (emin - p))
    else:
        bits = ((e - emin + 1) << p) | int((r / Fraction(2) ** e - 1) * (1 << p))
    return bits | (sign if negative else 0)


def tiny_after_rounding(x: Fraction, fmt: str) -> bool:
    """IEEE's tininess after rounding: x rounded to the format's precision with the exponent
    unbounded lies below the smallest normal number (the H100's f16 .ftz test)."""
    p, emin, _ = FMTS[fmt]
    m = abs(x)
    if m == 0 or m >= Fraction(2) ** emin:
        return False
    e = m.numerator.bit_length() - m.denominator.bit_length()
    while Fraction(2) ** e > m:
        e -= 1
    while Fraction(2) ** (e + 1) <= m:
        e += 1
    q = Fraction(2) ** (e - p)
    return round(m / q) * q < Fraction(2) ** emin  # round(): half to even


def flush(u: int, fmt: str) -> int:
    """.ftz on an operand: a subnormal becomes a zero of its sign."""
    p, _, w = FMTS[fmt]
    return u & (1 << (w - 1)) if (u >> p) & ((1 << exp_bits(fmt)) - 1) == 0 else u


# -- IEEE operations on values -----------------------------------------------------------------
def add(a, b, fmt: str, mode: str = "rn", ftz: bool = False) -> int:
    """a + b rounded once; NaN results as the format's canonical NaN (16-bit) or any NaN marker -1."""
    (x, nx), (y, ny) = a, b
    if _nan(x) or _nan(y):
        return -1
    if _inf(x) or _inf(y):
        if _inf(x) and _inf(y) and (x > 0) != (y > 0):
            return -1
        return encode(x if _inf(x) else y, False, fmt)
    s = x + y
    neg = (nx or ny) if mode == "rm" else (nx and ny)
    return _result(s, neg, fmt, mode, ftz)


def mul(a, b, fmt: str, mode: str = "rn", ftz: bool = False) -> int:
    (x, nx), (y, ny) = a, b
    if _nan(x) or _nan(y):
        return -1
    n = nx != ny
    if _inf(x) or _inf(y):
        if x == 0 or y == 0:
            return -1
        return encode(-math.inf if n else math.inf, False, fmt)
    return _result(x * y, n, fmt, mode, ftz)


def fma(a, b, c, fmt: str, mode: str = "rn", ftz: bool = False) -> int:
    (x, nx), (y, ny), (z, nz) = a, b, c
    if _nan(x) or _nan(y) or _nan(z):
        return -1
    pn = nx != ny
    if _inf(x) or _inf(y):
        if x == 0 or y == 0 or (_inf(z) and (z < 0) != pn):
            return -1
        return encode(-math.inf if pn else math.inf, False, fmt)
    if _inf(z):
        return encode(z, False, fmt)
    p = x * y
    s = p + z
    if s == 0 and p == 0 and z == 0:
        neg = (pn or nz) if mode == "rm" else (pn and nz)
    else:
        neg = mode == "rm"
    return _result(s, neg, fmt, mode, ftz)


def div(a, b, fmt: str, mode: str = "rn") -> int:
    (x, nx), (y, ny) = a, b
    if _nan(x) or _nan(y):
        return -1
    n = nx != ny
    if _inf(x):
        return -1 if _inf(y) else encode(-math.inf if n else math.inf, False, fmt)
    if _inf(y):
        return encode(Fraction(0), n, fmt)
    if y == 0:
        return -1 if x == 0 else encode(-math.inf if n else math.inf, False, fmt)
    return encode(x / y, n, fmt, mode)


def sqrt(a, fmt: str, mode: str = "rn") -> int:
    """The root rounded by `mode`: floor and ceiling of the exact root on the format's grid found with
    integer square roots, then the ISA's rounding between them."""
    x, nx = a
    if _nan(x) or (x < 0):
        return -1
    if x == 0 or _inf(x):
        return encode(x, nx, fmt)
    p, emin, _ = FMTS[fmt]
    k = 2 * (p + 1200)  # fraction bits of the root kept: far past the format's, never a false tie
    n = x.numerator * x.denominator << (2 * k)
    r = math.isqrt(n)
    exact = r * r == n
    root = Fraction(2 * r + (0 if exact else 1), 2 * x.denominator << k)  # floor + half a unit if inexact
    return encode(root, False, fmt, mode)


def _nan(x) -> bool:
    return isinstance(x, float) and math.isnan(x)


def _inf(x) -> bool:
    return isinstance(x, float) and math.isinf(x)


def _result(s: Fraction, neg: bool, fmt: str, mode: str, ftz: bool) -> int:
    if ftz and tiny_after_rounding(s, fmt):
        return (1 << (FMTS[fmt][2] - 1)) if s < 0 else 0
    return encode(s, neg, fmt, mode)


# -- hypothesis strategies and numpy columns of bits ----------------------------------------------
F16_EDGES = [0x0000, 0x8000, 0x0001, 0x8001, 0x0200, 0x03FF, 0x83FF, 0x0400, 0x8400, 0x0401, 0x3C00, 0xBC00, 0x3C01,
             0x3BFF, 0x3BFE, 0x3800, 0x4000, 0x3555, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0x7FFF,
             0x1400, 0x4900, 0xC900, 0x2E66]
BF16_EDGES = [0x0000, 0x8000, 0x0001, 0x8001, 0x0040, 0x007F, 0x807F, 0x0080, 0x8080, 0x0081, 0x3F80, 0xBF80, 0x3F81,
              0x3F7F, 0x3F00, 0x4000, 0x3EAB, 0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81, 0x7FFF, 0x4B00,
              0x4120, 0xC120]
EDGES = {"f16": F16_EDGES, "bf16": BF16_EDGES}


def bits16(fmt: str):
    """16-bit float bit patterns: edges, any bits, small magnitudes, ordinary values."""
    lo_mask = 0x83FF if fmt == "f16" else 0x80FF
    ordinary = 0x3000 if fmt == "f16" else 0x3C00
    return st.one_of(st.sampled_from(EDGES[fmt]), st.integers(0, 0xFFFF),
                     st.integers(0, 0xFFFF).map(lambda u: u & lo_mask),
                     st.integers(-0x400, 0x400).map(lambda d: (ordinary + d) & 0xFFFF))


def random16(fmt: str, rng: np.random.Generator, n: int) -> np.ndarray:
    pick = rng.integers(0, 3, n)
    edges = np.array(EDGES[fmt], np.uint16)[rng.integers(0, len(EDGES[fmt]), n)]
    anybits = rng.integers(0, 1 << 16, n).astype(np.uint16)
    low = (anybits & np.uint16(0x83FF if fmt == "f16" else 0x80FF)).astype(np.uint16)
    return np.where(pick == 0, edges, np.where(pick == 1, anybits, low)).astype(np.uint16)


def column(kind: str, rng: np.random.Generator, n: int) -> np.ndarray:
    """`n` drawn operands of `kind` as bits (16-bit floats, pairs, f32, f64) or integers."""
    if kind in ("f16", "bf16"):
        return random16(kind, rng, n)
    if kind in ("f16x2", "bf16x2"):
        return random16(kind[:-2], rng, n).astype(np.uint32) | (random16(kind[:-2], rng, n).astype(np.uint32) << 16)
    if kind == "pred":
        return rng.integers(0, 2, n).astype(np.uint8)
    if kind == "f32":
        return np.concatenate([rng.integers(0, 1 << 32, n // 2, dtype=np.uint64).astype(np.uint32),
                               np.float32(rng.standard_normal(n - n // 2)).view(np.uint32)])
    if kind == "f64":
        half = n // 2
        with np.errstate(over="ignore"):
            scaled = rng.standard_normal(n - half) * 2.0 ** rng.integers(-1074, 1024, n - half)
        return np.concatenate([rng.integers(0, 1 << 63, half, dtype=np.uint64) * np.uint64(2)
                               + rng.integers(0, 2, half).astype(np.uint64), scaled.view(np.uint64)])
    bits = int(kind[1:])
    u = rng.integers(0, 1 << 63, n, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, n).astype(np.uint64)
    small = rng.integers(-70000, 70000, n).astype(np.int64).astype(np.uint64)
    u = np.where(rng.integers(0, 2, n) == 0, u, small) & np.uint64((1 << bits) - 1)
    return u.astype(np.dtype(f"u{bits // 8}")).view(np.dtype(f"{kind[0] if kind[0] == 'u' else 'i'}{bits // 8}"))


def edges(kind: str) -> list:
    """Edge operands of `kind` (as bits for floats)."""
    if kind in ("f16", "bf16"):
        return EDGES[kind]
    if kind in ("f16x2", "bf16x2"):  # the edges paired with shifted copies: each half sees them all
        e = EDGES[kind[:-2]]
        return [lo | (hi << 16) for lo, hi in zip(e, e[3:] + e[:3])]
    if kind == "pred":
        return [0, 1]
    if kind == "f32":
        return [0, 0x80000000, 1, 0x80000001, 0x000116C2, 0x00800000, 0x3F800000, 0xBF800000, 0x3F801000, 0x3F803000,
                0x3F800FFF, 0x3F808000, 0x3F818000, 0x477FE000, 0x477FF000, 0x477FEFFF, 0x33800000, 0x33000000,
                0x7F7FFFFF, 0x7F7F8000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001, 0x38800000]
    if kind == "f64":
        return [0, 1 << 63, 1, (1 << 63) | 1, 0x0010000000000000, 0x3FF0000000000000, 0xBFF0000000000000,
                0x3FF0000010000000, 0x3FF0000030000000, 0x3FF000000FFFFFFF, 0x3FF0020000000000, 0x3FF0010000000001,
                0x40EFFE0000000000, 0x40EFFE0000000001, 0x47EFFFFFF0000000, 0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000,
                0xFFF0000000000000, 0x7FF8000000000000, 0xFFF8000000000001, 0x7FF0000000000001, 0x36A0000000000000,
                0x3690000000000000, 0x3E70000000000000, 0xC000000000000000]
    bits = int(kind[1:])
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if kind[0] == "s" else (0, (1 << bits) - 1)
    vals = {0, 1, -1, 2, 7, 255, 2049, 2051, 4097, 65504, 65519, 65520, 65536, -65520, 16777217, 16777219,
            (1 << 53) + 1, (1 << 62) + 1, lo, hi, lo + 1, hi - 1, 0x12345678}
    return sorted(v for v in vals if lo <= v <= hi)


def as_input(values, t: str) -> np.ndarray:
    """Operands (bits for floats, integers otherwise) as the numpy array an input of PTX type `t` takes."""
    dt = np.dtype(NP[t])
    u = np.array([int(v) & ((1 << (8 * dt.itemsize)) - 1) for v in values], np.uint64).astype(f"u{dt.itemsize}")
    return u.view(dt)


def edge_columns(kinds, ins) -> list[np.ndarray]:
    """Every combination of the kinds' edge operands (thinned to about 1500 lanes), as the entry's inputs."""
    lists = [edges(k) for k in kinds]
    while np.prod([len(x) for x in lists]) > 1500:
        i = max(range(len(lists)), key=lambda j: len(lists[j]))
        lists[i] = lists[i][::2]
    rows = list(itertools.product(*lists))
    return [as_input([r[i] for r in rows], t) for i, t in enumerate(ins)]


def lane_values(c: np.ndarray) -> list[int]:
    """A column as the references take it: float bits, or the integers."""
    return [int(v) for v in (c.view(f"u{c.itemsize}") if c.dtype.kind == "f" else c)]


def check(mod: Ptx, entry: Entry, ref, cols, close=None) -> None:
    """Run `entry` on the lanes `cols`; every output bit for bit equal to `ref(*lane)` (or `close`)."""
    outs = [lane_values(o) for o in mod.run(entry.name, *cols)]
    ints = [lane_values(c) for c in cols]
    for i in range(len(cols[0])):
        args = [c[i] for c in ints]
        want = ref(*args)
        want = want if isinstance(want, tuple) else (want,)
        for k, (o, w, width) in enumerate(zip(outs, want, (8 * np.dtype(NP[t]).itemsize for t in entry.outs))):
            g = o[i] & ((1 << width) - 1)
            w = int(w) & ((1 << width) - 1)
            ok = close(g, w) if close else g == w
            assert ok, f"{entry.name} output {k}: lane {i} ({', '.join(hex(a) for a in args)}): got {g:#x}, want {w:#x}"
