"""dp4a and dp2a against references written from the PTX ISA with Python integers.

ISA: dp4a.atype.btype d, a, b, c: d = c + the sum over i of a's byte i times b's byte i;
dp2a.mode.atype.btype d, a, b, c: d = c + a's half i times b's byte (2 * .hi + i), i = 0, 1.
A byte or half is sign-extended where its operand's type is .s32; the sum wraps at 32 bits.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptxkit import HAVE_PTXAS, MODULES, Entry, Ptx, ptxas_errors

TYPES = ("u32", "s32")
EDGES = [0, 1, 0xFF, 0x80, 0x7F, 0xFFFF, 0x8000, 0x7FFF, 0xFFFFFFFF, 0x80808080, 0x7F7F7F7F, 0x01FF80FE, 0x12345678,
         0x80000000, 0x7FFFFFFF]


def parts(x: int, width: int, count: int, signed: bool, first: int = 0) -> list[int]:
    out = []
    for k in range(first, first + count):
        v = (x >> (width * k)) & ((1 << width) - 1)
        out.append(v - (1 << width) if signed and v >> (width - 1) else v)
    return out


def dp4a(ta: str, tb: str):
    return lambda a, b, c: (c + sum(x * y for x, y in zip(parts(a, 8, 4, ta == "s32"),
                                                          parts(b, 8, 4, tb == "s32")))) & 0xFFFFFFFF


def dp2a(mode: str, ta: str, tb: str):
    first = 2 if mode == "hi" else 0
    return lambda a, b, c: (c + sum(x * y for x, y in zip(parts(a, 16, 2, ta == "s32"),
                                                          parts(b, 8, 2, tb == "s32", first)))) & 0xFFFFFFFF


CASES = []
for ta, tb in itertools.product(TYPES, repeat=2):
    CASES.append((Entry(f"dp4a_{ta}_{tb}", f"dp4a.{ta}.{tb} %d0, %a0, %a1, %a2;", ("u32",) * 3, ("u32",)),
                  dp4a(ta, tb)))
    for mode in ("lo", "hi"):
        CASES.append((Entry(f"dp2a_{mode}_{ta}_{tb}", f"dp2a.{mode}.{ta}.{tb} %d0, %a0, %a1, %a2;", ("u32",) * 3,
                            ("u32",)), dp2a(mode, ta, tb)))
MODULE = Ptx("dot", [e for e, _ in CASES])


def check(entry: Entry, ref, a, b, c) -> None:
    (d,) = MODULE.run(entry.name, np.uint32(a), np.uint32(b), np.uint32(c))
    for i, got in enumerate(d.tolist()):
        assert got == ref(a[i], b[i], c[i]), f"{entry.name}: lane {i} ({a[i]:#x}, {b[i]:#x}, {c[i]:#x}): got {got:#x}"


@pytest.mark.skipif(not HAVE_PTXAS, reason="ptxas is not installed")
def test_the_hand_written_ptx_assembles_with_ptxas():
    assert ptxas_errors(MODULES["dot"]) == ""


@pytest.mark.parametrize("entry, ref", CASES, ids=[e.name for e, _ in CASES])
def test_edge_operands(entry, ref):
    rows = list(itertools.product(EDGES, EDGES, [0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000]))
    check(entry, ref, *(list(col) for col in zip(*rows)))


@pytest.mark.parametrize("entry, ref", CASES, ids=[e.name for e, _ in CASES])
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lanes=st.lists(st.tuples(*[st.integers(0, 0xFFFFFFFF)] * 3), min_size=32, max_size=32))
def test_random_operands(entry, ref, lanes):
    check(entry, ref, *(list(col) for col in zip(*lanes)))


def test_intrinsics_end_to_end():
    """__dp4a and __dp2a_lo/_hi (signed and unsigned) through NVRTC and cudasim."""
    from cudasim import In, Out, SourceModule

    src = r'''
    extern "C" __global__ void dots(int *o, unsigned *u, const int *a, const int *b, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i >= n) return;
        o[i] = __dp4a(a[i], b[i], 5);
        o[n + i] = __dp2a_lo(a[i], b[i], -7);
        o[2 * n + i] = __dp2a_hi(a[i], b[i], 0);
        u[i] = __dp4a((unsigned)a[i], (unsigned)b[i], 3u);
        u[n + i] = __dp2a_hi((unsigned)a[i], (unsigned)b[i], 1u);
    }'''
    rng = np.random.default_rng(5)
    n = 256
    a, b = (rng.integers(-(1 << 31), 1 << 31, n).astype(np.int32) for _ in range(2))
    o, u = np.zeros(3 * n, np.int32), np.zeros(2 * n, np.uint32)
    SourceModule(src, no_extern_c=True).get_function("dots")(Out(o), Out(u), In(a), In(b), np.int32(n),
                                                             block=(128, 1, 1), grid=(2, 1))
    ua, ub = a.view(np.uint32).tolist(), b.view(np.uint32).tolist()
    for i in range(n):
        want = [dp4a("s32", "s32")(ua[i], ub[i], 5), dp2a("lo", "s32", "s32")(ua[i], ub[i], (-7) & 0xFFFFFFFF),
                dp2a("hi", "s32", "s32")(ua[i], ub[i], 0)]
        assert o[i::n].view(np.uint32).tolist() == want, i
        assert u[i::n].tolist() == [dp4a("u32", "u32")(ua[i], ub[i], 3), dp2a("hi", "u32", "u32")(ua[i], ub[i], 1)], i
