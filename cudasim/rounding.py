"""Exact results rounded once, to float64, float32, f16 or bf16, in any PTX rounding mode.

An exact result x is carried as a float64 pair (s, e): s is x rounded to the nearest float64
(ties to even) and e has the sign of x - s (zero where s is exact). Error-free transformations
give such pairs for sums and products (TwoSum, Dekker's TwoProduct), and a residual computed
exactly gives the sign for quotients and square roots; the few lanes outside their range
(products that overflow or underflow, results near the ends of float64) are computed with
exact rationals.

From a pair every rounding is exact. To nearest: s is made round-to-odd (its last bit set where
x lies between two floats), which keeps what a second rounding to at most 51 bits needs, so
converting it rounds x once. Directed: r, the target's nearest value, moves one step toward the
mode's direction where x lies on the wrong side of it; sign(x - r) is sign(s - r) where those
differ (rounding to nearest is monotone), else the sign of e.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Format:
    """A binary floating-point format as registers hold it."""

    name: str
    width: int  # bits
    uint: type  # the unsigned integer dtype of its bits
    nan: int  # the NaN the GPU writes for an invalid operation (the canonical NaN; f64: the default NaN)

    @property
    def sign(self) -> int:
        return 1 << (self.width - 1)


FORMATS = {"f64": Format("f64", 64, np.uint64, 0xFFF8000000000000), "f32": Format("f32", 32, np.uint32, 0x7FFFFFFF),
           "f16": Format("f16", 16, np.uint16, 0x7FFF), "bf16": Format("bf16", 16, np.uint16, 0x7FFF)}


def decode(bits, fmt: str) -> np.ndarray:
    """Register bits (any shape) of format `fmt` as exact float64 values."""
    u = np.asarray(bits).astype(FORMATS[fmt].uint)
    if fmt == "f16":
        return u.view(np.float16).astype(np.float64)
    if fmt == "bf16":
        return (u.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    return u.view({"f32": np.float32, "f64": np.float64}[fmt]).astype(np.float64)


# -- error-free transformations ------------------------------------------------------------------
def two_sum(a, b) -> tuple[np.ndarray, np.ndarray]:
    """(s, e) with s = fl(a + b) and a + b = s + e exactly (Knuth), where a + b does not overflow."""
    with np.errstate(invalid="ignore", over="ignore"):
        s = np.add(a, b)
        bb = s - a
        return s, (a - (s - bb)) + (b - bb)


def _split(a):
    t = a * 134217729.0  # 2^27 + 1
    hi = t - (t - a)
    return hi, a - hi


def two_prod(a, b) -> tuple[np.ndarray, np.ndarray]:
    """(p, e) with p = fl(a * b) and a * b = p + e exactly (Dekker), for |a|, |b| < 2^995 and
    |a * b| at least 2^-969 (or zero); callers route other lanes elsewhere."""
    with np.errstate(invalid="ignore", over="ignore"):
        p = np.multiply(a, b)
        ah, al = _split(a)
        bh, bl = _split(b)
        return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def sum_sign(*terms) -> np.ndarray:
    """The exact sign (-1, 0, 1) of a sum of float64 arrays, by growing a nonoverlapping expansion
    (Shewchuk's Grow-Expansion): its largest nonzero component carries the sign. No overflow."""
    exp = [np.asarray(terms[0], np.float64)]
    for t in terms[1:]:
        q, grown = np.asarray(t, np.float64), []
        for c in exp:
            q, h = two_sum(q, c)
            grown.append(h)
        exp = grown + [q]
    sign = np.zeros(np.broadcast(*exp).shape)
    for c in exp:  # smallest to largest: the last nonzero wins
        sign = np.where(c != 0, np.sign(c), sign)
    return sign


# -- rounding a pair ------------------------------------------------------------------------------
def _odd(s, e):
    """Round-to-odd float64 of s + e: s where exact or odd, else its neighbour toward x."""
    fix = (e != 0) & ((s.view(np.uint64) & np.uint64(1)) == 0) & np.isfinite(s)
    return np.where(fix, np.nextafter(s, np.copysign(np.inf, e)), s)


def _odd32(v):
    """Round-to-odd float32 of float64 values (float32's largest value where they overflow it)."""
    with np.errstate(over="ignore", invalid="ignore"):
        f = v.astype(np.float32)
        back = f.astype(np.float64)
        fix = (back != v) & ~np.isnan(v) & ((f.view(np.uint32) & np.uint32(1)) == 0)
        return np.where(fix, np.nextafter(f, np.where(back < v, np.float32(np.inf), np.float32(-np.inf))), f)


def _nearest_bits(s, e, fmt: str) -> np.ndarray:
    """Bits of s + e rounded to nearest-even in `fmt` (NaN as the float64 conversion gives it)."""
    if fmt == "f64":
        return s.view(np.uint64)
    o = _odd(s, e)
    with np.errstate(over="ignore", invalid="ignore"):
        if fmt == "f32":
            return o.astype(np.float32).view(np.uint32)
        if fmt == "f16":
            return o.astype(np.float16).view(np.uint16)
    u = _odd32(o).view(np.uint32)  # bf16: the top half of a float32, rounded to nearest-even
    r = (u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    return np.where(np.isnan(o), np.uint32(FORMATS["bf16"].nan), r).astype(np.uint16)


def _ordinal(bits, f: Format) -> np.ndarray:
    u = bits.astype(np.uint64)
    mag = (u & np.uint64(f.sign - 1)).astype(np.int64)
    return np.where((u & np.uint64(f.sign)) != 0, -mag, mag)


def _from_ordinal(o, negative_zero, f: Format) -> np.ndarray:
    mag = np.abs(o).astype(np.uint64)
    neg = (o < 0) | ((o == 0) & negative_zero)
    return np.where(neg, mag | np.uint64(f.sign), mag).astype(f.uint)


def round_pair(s, e, fmt: str, mode: str = "rn") -> np.ndarray:
    """The bits, in format `fmt`, of the exact value s + e rounded by `mode`: s is its nearest
    float64 and e has the sign of the remainder (0 where exact; -s where s overflowed to an
    infinity from finite operands). NaN lanes give a NaN (not canonicalized here)."""
    s = np.asarray(s, np.float64)
    e = np.broadcast_to(np.asarray(e, np.float64), s.shape)
    f = FORMATS[fmt]
    r = _nearest_bits(s, e, fmt)
    if mode == "rn":
        return r
    with np.errstate(invalid="ignore"):
        d = s - decode(r, fmt)
        side = np.where((d != 0) & ~np.isnan(d), np.sign(d), np.sign(np.nan_to_num(e)))  # sign of x - r
    rneg = (r.astype(np.uint64) & np.uint64(f.sign)) != 0
    if mode == "rm":
        step = np.where(side < 0, -1, 0)
    elif mode == "rp":
        step = np.where(side > 0, 1, 0)
    else:  # toward zero: only where r lies farther out than x
        step = np.where(rneg & (side > 0), 1, np.where(~rneg & (side < 0), -1, 0))
    nan = np.isnan(s)
    step = np.where(nan, 0, step)
    if not step.any():
        return r
    return np.where(step != 0, _from_ordinal(_ordinal(r, f) + step, rneg, f), r)


def propagate_nan(r, *operands) -> np.ndarray:
    """float64 results with the GPU's NaNs (DADD, DMUL, DFMA): where r is NaN, the first NaN
    operand in the order given, quieted; the default NaN 0xFFF8000000000000 where none is."""
    r = np.asarray(r, np.float64)
    nan = np.isnan(r)
    if not nan.any():
        return r
    out = np.where(nan, np.uint64(0xFFF8000000000000), r.view(np.uint64))
    for o in reversed(operands):  # the first in order is written last
        o = np.broadcast_to(np.asarray(o, np.float64), r.shape)
        out = np.where(nan & np.isnan(o), o.view(np.uint64) | np.uint64(1 << 51), out)
    return out.view(np.float64)


# -- exact pairs for the operations ---------------------------------------------------------------
def overflowed(s, e, finite) -> np.ndarray:
    """e patched for the lanes whose float64 result is not finite: an infinity from finite operands
    lies past x (e = -s); infinities and NaNs from the operands are exact (e = 0)."""
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(s), e, np.where(finite & np.isinf(s), -s, 0.0))


def _fallback(s, e, lanes, exact: Callable[..., tuple[float, int]], *ops) -> None:
    """In place: (s, e) on `lanes` (flat indices) from exact rational arithmetic."""
    flat = [np.broadcast_to(np.asarray(o, np.float64), s.shape).ravel() for o in ops]
    for i in lanes:
        s.flat[i], e.flat[i] = exact(*(float(o[i]) for o in flat))


def _nearest(x: Fraction) -> tuple[float, int]:
    """x to the nearest float64 (Python's int division rounds correctly) and the sign of x - it."""
    try:
        v = x.numerator / x.denominator
    except OverflowError:
        v = math.inf if x > 0 else -math.inf
    if math.isinf(v):
        return v, -1 if v > 0 else 1
    d = x - Fraction(v)
    return v, (d > 0) - (d < 0)


def _range_ok(*xs, lo: float = 2.0 ** -960, hi: float = 2.0 ** 990) -> np.ndarray:
    """Lanes whose values are zero or within [lo, hi] in magnitude (where the transformations are exact)."""
    ok = True
    for x in xs:
        m = np.abs(x)
        ok = ok & ((m == 0) | ((m >= lo) & (m <= hi)))
    return ok


def product_pair(a, b) -> tuple[np.ndarray, np.ndarray]:
    """The pair of the exact product of float64 arrays."""
    a, b = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64))
    p, e = two_prod(a, b)
    p, e = np.array(p, np.float64), np.array(e, np.float64)
    finite = np.isfinite(a) & np.isfinite(b)
    e = overflowed(p, e, finite)
    underflow = (p == 0) & (a != 0) & (b != 0)
    bad = finite & (a != 0) & (b != 0) & (underflow | ~(_range_ok(a, b) & _range_ok(p, hi=2.0 ** 1020)))
    _fallback(p, e, np.flatnonzero(bad), lambda x, y: _nearest(Fraction(x) * Fraction(y)), a, b)
    return p, e


def quotient_pair(a, b) -> tuple[np.ndarray, np.ndarray]:
    """The pair of a / b: the correctly rounded float64 quotient, the sign from the exact residual
    a - q*b (Dekker's product; a - its head is exact by Sterbenz's lemma)."""
    a, b = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        q = np.array(np.divide(a, b), np.float64)
    ph, pl = two_prod(q, b)
    with np.errstate(invalid="ignore"):
        e = np.sign((a - ph) - pl) * np.sign(b)
    finite = np.isfinite(a) & np.isfinite(b) & (b != 0)
    e = np.where(finite & (a != 0), overflowed(q, e, finite), 0.0)
    bad = finite & (a != 0) & ~(_range_ok(a, b, q) & (q != 0))

    def exact(x, y):
        return _nearest(Fraction(x) / Fraction(y))
    _fallback(q, e, np.flatnonzero(bad), exact, a, b)
    return q, e


def sqrt_pair(a) -> tuple[np.ndarray, np.ndarray]:
    """The pair of sqrt(a): the correctly rounded float64 root, the sign of a - r*r exactly."""
    a = np.asarray(a, np.float64)
    with np.errstate(invalid="ignore"):
        r = np.array(np.sqrt(a), np.float64)
    ph, pl = two_prod(r, r)
    with np.errstate(invalid="ignore"):
        e = np.where(np.isfinite(a) & (a > 0), np.sign((a - ph) - pl), 0.0)
    bad = np.isfinite(a) & (a > 0) & ~_range_ok(a)

    def exact(x):
        root = math.sqrt(x)
        d = Fraction(x) - Fraction(root) ** 2
        return root, (d > 0) - (d < 0)
    _fallback(r, e, np.flatnonzero(bad), exact, a)
    return r, e


def fma_pair(a, b, c, mode: str = "rn", sign: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The pair of a*b + c. The nearest float64 by Boldo and Melquiond's emulation (the product
    exact by Dekker, the low parts summed round-to-odd, one final sum), the sign of the remainder
    by an exact expansion (skipped, e = 0, where `sign` is false: rounding to nearest needs only
    s); lanes where the emulation is not exact (a non-finite result or operand, a product too
    small for Dekker's error term) by IEEE's rules or exact rationals. An exact zero takes IEEE's
    sign for `mode`."""
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    if not a.shape == b.shape == c.shape:
        a, b, c = np.broadcast_arrays(a, b, c)
    with np.errstate(invalid="ignore", over="ignore"):
        uh, ul = two_prod(a, b)
        th, tl = two_sum(c, uh)
        v, ve = two_sum(tl, ul)
        s = np.array(th + _odd(np.asarray(v), np.asarray(ve)), np.float64)
        e = sum_sign(ul, tl, th, -s) if sign else np.zeros(s.shape)
    bad = ~np.isfinite(s)  # an operand not finite, an overflow, or a split that overflowed
    small = np.abs(uh) < 2.0 ** -960
    if small.any():
        bad |= small & (a != 0) & (b != 0)  # the product's error would underflow
    zero = s == 0  # only an exact zero rounds to zero here (every term is a multiple of 2^-1074)
    if zero.any():  # +0 unless both addends are -0; rounding down, -0 unless both are +0
        z = -(np.negative(uh) + np.negative(c)) if mode == "rm" else uh + c
        s = np.where(zero & ~bad, z, s)
    if not bad.any():
        return s, e
    finite = np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
    with np.errstate(invalid="ignore", over="ignore"):  # an infinite or NaN operand: IEEE's unfused result,
        special = np.where(np.isfinite(a) & np.isfinite(b) & np.isinf(c), c, a * b + c)  # but c beside a finite product
    s = np.where(finite, s, special)
    e = np.where(finite, e, 0.0)

    def exact(x, y, z):
        v = Fraction(x) * Fraction(y) + Fraction(z)
        if v == 0:
            p = x * y  # the product is an exact zero here only if an operand is (else it is tiny)
            if p == 0 and z == 0:
                return (-(-p + -z) if mode == "rm" else p + z), 0
            return (-0.0 if mode == "rm" else 0.0), 0
        return _nearest(v)
    s, e = np.array(s, np.float64), np.array(e, np.float64)
    _fallback(s, e, np.flatnonzero(bad & finite), exact, a, b, c)
    return s, e


def int_pair(x) -> tuple[np.ndarray, np.ndarray]:
    """The pair of integers (any integer dtype): exact below 2^53; 64-bit values as two exact halves summed."""
    x = np.asarray(x)
    if x.dtype.itemsize < 8:
        return x.astype(np.float64), np.zeros(x.shape)
    hi = (x >> np.array(32, x.dtype)).astype(np.float64) * 4294967296.0  # arithmetic shift for signed types
    lo = (x & np.array(0xFFFFFFFF, x.dtype)).astype(np.float64)
    return two_sum(hi, lo)
