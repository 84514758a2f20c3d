"""Extended-precision arithmetic (cudasim.carry): the carry flag through add.cc/addc, sub.cc/subc and
mad.cc/madc, checked against Python's integers, and the math library's code that uses it."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cudasim import In, Out, SourceModule
from needs import need_nvrtc

WIDE = r"""
// 128-bit sums, differences and products of four-word numbers, in the inline PTX multi-word code is written in
extern "C" __global__ void wide(unsigned *out, const unsigned *a, const unsigned *b) {
    int i = threadIdx.x;
    const unsigned *x = a + 4 * i, *y = b + 4 * i;
    unsigned s0, s1, s2, s3, d0, d1, d2, d3, p0, p1, p2, p3;
    asm("add.cc.u32 %0, %4, %8;\n\taddc.cc.u32 %1, %5, %9;\n\taddc.cc.u32 %2, %6, %10;\n\taddc.u32 %3, %7, %11;"
        : "=r"(s0), "=r"(s1), "=r"(s2), "=r"(s3)
        : "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(y[0]), "r"(y[1]), "r"(y[2]), "r"(y[3]));
    asm("sub.cc.u32 %0, %4, %8;\n\tsubc.cc.u32 %1, %5, %9;\n\tsubc.cc.u32 %2, %6, %10;\n\tsubc.u32 %3, %7, %11;"
        : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)
        : "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(y[0]), "r"(y[1]), "r"(y[2]), "r"(y[3]));
    // the low 128 bits of (x1:x0) * (y1:y0) by schoolbook partial products and carries
    asm("mul.lo.u32 %0, %4, %6;\n\t"
        "mul.hi.u32 %1, %4, %6;\n\t"
        "mad.lo.cc.u32 %1, %4, %7, %1;\n\t"
        "madc.hi.u32 %2, %4, %7, 0;\n\t"
        "mad.lo.cc.u32 %1, %5, %6, %1;\n\t"
        "madc.hi.cc.u32 %2, %5, %6, %2;\n\t"
        "addc.u32 %3, 0, 0;\n\t"
        "mad.lo.cc.u32 %2, %5, %7, %2;\n\t"
        "madc.hi.u32 %3, %5, %7, %3;"
        : "=r"(p0), "=r"(p1), "=r"(p2), "=r"(p3) : "r"(x[0]), "r"(x[1]), "r"(y[0]), "r"(y[1]));
    unsigned *o = out + 12 * i;
    o[0] = s0; o[1] = s1; o[2] = s2; o[3] = s3;
    o[4] = d0; o[5] = d1; o[6] = d2; o[7] = d3;
    o[8] = p0; o[9] = p1; o[10] = p2; o[11] = p3;
}

extern "C" __global__ void wide64(unsigned long long *out, const unsigned long long *a, const unsigned long long *b) {
    int i = threadIdx.x;
    unsigned long long lo, hi;
    asm("add.cc.u64 %0, %2, %4;\n\taddc.u64 %1, %3, %5;" : "=l"(lo), "=l"(hi)
        : "l"(a[2 * i]), "l"(a[2 * i + 1]), "l"(b[2 * i]), "l"(b[2 * i + 1]));
    out[2 * i] = lo; out[2 * i + 1] = hi;
}

extern "C" __global__ void huge_sin(double *y, const double *x) { y[threadIdx.x] = sin(x[threadIdx.x]); }
"""

MASK128 = (1 << 128) - 1


def _words(v: int, n: int, bits: int = 32) -> list[int]:
    return [(v >> (bits * k)) & ((1 << bits) - 1) for k in range(n)]


def _value(words, bits: int = 32) -> int:
    return sum(int(w) << (bits * k) for k, w in enumerate(words))


@pytest.fixture(scope="module")
def mod():
    need_nvrtc()
    return SourceModule(WIDE, no_extern_c=True)


EDGES = [0, 1, 0xFFFFFFFF, 0xFFFFFFFF_FFFFFFFF, 1 << 32, MASK128, MASK128 - 1, 1 << 127, (1 << 96) - 1, 0x1_0000_0000_0000_0001]


@settings(max_examples=10, deadline=None)
@given(st.lists(st.integers(0, MASK128), min_size=32, max_size=32), st.lists(st.integers(0, MASK128), min_size=32,
                                                                               max_size=32))
def test_carry_chains_add_subtract_and_multiply_as_integers_do(mod, xs, ys):
    xs[:len(EDGES)], ys[-len(EDGES):] = EDGES, EDGES[::-1]
    a = np.array([w for x in xs for w in _words(x, 4)], np.uint32)
    b = np.array([w for y in ys for w in _words(y, 4)], np.uint32)
    out = np.zeros(12 * 32, np.uint32)
    mod.get_function("wide")(Out(out), In(a), In(b), block=(32, 1, 1), grid=(1, 1))
    for i, (x, y) in enumerate(zip(xs, ys)):
        o = out[12 * i:12 * i + 12]
        assert _value(o[0:4]) == (x + y) & MASK128, i
        assert _value(o[4:8]) == (x - y) & MASK128, i
        assert _value(o[8:12]) == ((x & ((1 << 64) - 1)) * (y & ((1 << 64) - 1))) & MASK128, i


def test_64_bit_carries(mod):
    rng = np.random.default_rng(3)
    xs = [int(v) for v in rng.integers(0, 1 << 62, 32)] + EDGES
    ys = EDGES + [int(v) << 64 | int(v) for v in rng.integers(0, 1 << 62, 32)]
    xs, ys = [x & MASK128 for x in xs[:32]], [y & MASK128 for y in ys[:32]]
    a = np.array([w for x in xs for w in _words(x, 2, 64)], np.uint64)
    b = np.array([w for y in ys for w in _words(y, 2, 64)], np.uint64)
    out = np.zeros(64, np.uint64)
    mod.get_function("wide64")(Out(out), In(a), In(b), block=(32, 1, 1), grid=(1, 1))
    assert [_value(out[2 * i:2 * i + 2], 64) for i in range(32)] == [(x + y) & MASK128 for x, y in zip(xs, ys)]


def test_sin_of_huge_doubles_takes_the_slow_path_and_is_right(mod):
    """|x| >= 2^31 sends sin(double) to the math library's Payne-Hanek reduction, a called function full of
    madc; CUDA's sin is within 2 ulp of the true value (CUDA C++ Programming Guide, double-precision table)."""
    x = np.array([2.0 ** 31, 1e10, -3e15, 1e22, 1.7e308, 2.0 ** 100, -7.5e200, 123456789012.5] * 4)
    y = np.zeros(32)
    mod.get_function("huge_sin")(Out(y), In(x), block=(32, 1, 1), grid=(1, 1))
    ref = np.sin(x)  # numpy's (glibc's) sin is correctly rounded or within an ulp for doubles
    assert (np.abs(y - ref) <= 2 * np.spacing(np.abs(ref))).all(), (y, ref)
