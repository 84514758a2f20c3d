"""Random kernels nobody tuned the simulator for: index arithmetic and float math.

A hypothesis strategy writes a CUDA kernel whose every thread evaluates a random expression
over its indices and over values it loads, and stores the result to `out[gid]`. Each kernel
comes with a Python model of the same expression under C's rules (unsigned wrap-around,
truncating division, masked shifts), so the simulator can be checked on the CPU against an
independent model, and against a real GPU running the very same PTX.

Only well-defined C is generated (unsigned arithmetic, shifts by `& 31`, divisors forced
odd or positive), so any difference is the simulator's, not undefined behaviour's.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import numpy as np
from hypothesis import strategies as st

M32 = 0xFFFFFFFF


def _s32(v: int) -> int:
    v &= M32
    return v - (1 << 32) if v >> 31 else v


@dataclass(frozen=True)
class Expr:
    c: str  # C text
    ev: Callable[[dict], int | float]  # Python model over one thread's environment


# ---- unsigned 32-bit index arithmetic -------------------------------------------------

_LEAVES_U = [
    Expr("tid", lambda e: e["tid"]),
    Expr("bid", lambda e: e["bid"]),
    Expr("gid", lambda e: e["gid"]),
    Expr("a[gid]", lambda e: e["a"]),
    Expr("b[gid]", lambda e: e["b"]),
    Expr("a[(gid * 7u + 3u) % n]", lambda e: e["a_perm"]),
    Expr("n", lambda e: e["n"]),
]


def _u_binary(op: str, x: Expr, y: Expr) -> Expr:
    X, Y = x.ev, y.ev
    table = {
        "+": (f"({x.c} + {y.c})", lambda e: (X(e) + Y(e)) & M32),
        "-": (f"({x.c} - {y.c})", lambda e: (X(e) - Y(e)) & M32),
        "*": (f"({x.c} * {y.c})", lambda e: (X(e) * Y(e)) & M32),
        "/": (f"({x.c} / ({y.c} | 1u))", lambda e: X(e) // (Y(e) | 1)),
        "%": (f"({x.c} % ({y.c} | 1u))", lambda e: X(e) % (Y(e) | 1)),
        "&": (f"({x.c} & {y.c})", lambda e: X(e) & Y(e)),
        "|": (f"({x.c} | {y.c})", lambda e: X(e) | Y(e)),
        "^": (f"({x.c} ^ {y.c})", lambda e: X(e) ^ Y(e)),
        "<<": (f"({x.c} << ({y.c} & 31u))", lambda e: (X(e) << (Y(e) & 31)) & M32),
        ">>": (f"({x.c} >> ({y.c} & 31u))", lambda e: X(e) >> (Y(e) & 31)),
        "min": (f"min({x.c}, {y.c})", lambda e: min(X(e), Y(e))),
        "max": (f"max({x.c}, {y.c})", lambda e: max(X(e), Y(e))),
        "<": (f"({x.c} < {y.c} ? {x.c} : {y.c} + 1u)", lambda e: X(e) if X(e) < Y(e) else (Y(e) + 1) & M32),
        "sdiv": (f"(unsigned)((int){x.c} / (int)(({y.c} & 0xffffu) | 1u))",
                 lambda e: _c_sdiv(_s32(X(e)), (Y(e) & 0xFFFF) | 1) & M32),
        "srem": (f"(unsigned)((int){x.c} % (int)(({y.c} & 0xffffu) | 1u))",
                 lambda e: _c_srem(_s32(X(e)), (Y(e) & 0xFFFF) | 1) & M32),
        "sshr": (f"(unsigned)((int){x.c} >> ({y.c} & 31u))", lambda e: (_s32(X(e)) >> (Y(e) & 31)) & M32),
        "mulhi": (f"__umulhi({x.c}, {y.c})", lambda e: (X(e) * Y(e)) >> 32),
        "wide": (f"(unsigned)(((unsigned long long){x.c} * {y.c}) >> 17)", lambda e: ((X(e) * Y(e)) >> 17) & M32),
        "funnel_l": (f"__funnelshift_l({x.c}, {y.c}, {x.c} ^ {y.c})",
                     lambda e: ((Y(e) << 32 | X(e)) << ((X(e) ^ Y(e)) & 31)) >> 32 & M32),
        "funnel_rc": (f"__funnelshift_rc({x.c}, {y.c}, ({y.c} & 63u))",
                      lambda e: ((Y(e) << 32 | X(e)) >> min(Y(e) & 63, 32)) & M32),
        "usad": (f"__usad({x.c}, {y.c}, 7u)", lambda e: (abs(X(e) - Y(e)) + 7) & M32),
        "ffs": (f"(unsigned)__ffs((int)({x.c} ^ {y.c}))",
                lambda e: ((X(e) ^ Y(e)) & -(X(e) ^ Y(e))).bit_length()),
    }
    c, ev = table[op]
    return Expr(c, ev)


def _c_sdiv(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


def _c_srem(x: int, y: int) -> int:
    return x - _c_sdiv(x, y) * y


U_OPS = ["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "min", "max", "<", "sdiv", "srem", "sshr", "mulhi", "wide",
         "funnel_l", "funnel_rc", "usad", "ffs"]


def _u_const() -> st.SearchStrategy[Expr]:
    return st.integers(0, M32).map(lambda v: Expr(f"{v}u", lambda e, v=v: v))


def u_expr(max_leaves: int = 8) -> st.SearchStrategy[Expr]:
    leaves = st.one_of(st.sampled_from(_LEAVES_U), _u_const())
    return st.recursive(leaves, lambda kids: st.builds(_u_binary, st.sampled_from(U_OPS), kids, kids),
                        max_leaves=max_leaves)


# ---- float32 arithmetic ----------------------------------------------------------------

F = np.float32


def _directed(exact: Fraction, mode: str) -> np.float32:
    """The float32 that rounding `exact` toward zero ('rz'), down ('rd') or up ('ru') gives: the
    nearest float32 is within one step of it."""
    f = F(float(exact))
    if mode == "rz":
        mode = "rd" if exact > 0 else "ru"
    if mode == "rd" and Fraction(float(f)) > exact:
        f = np.nextafter(f, F(-np.inf))
    if mode == "ru" and Fraction(float(f)) < exact:
        f = np.nextafter(f, F(np.inf))
    return F(f)


def _q(v) -> Fraction:
    return Fraction(float(F(v)))

_LEAVES_F = [
    Expr("x[gid]", lambda e: e["x"]),
    Expr("y[gid]", lambda e: e["y"]),
    Expr("(float)tid", lambda e: F(e["tid"])),
    Expr("x[(gid + 1u) % n]", lambda e: e["x_next"]),
]


def _f_binary(op: str, x: Expr, y: Expr) -> Expr:
    X, Y = x.ev, y.ev
    table = {
        "+": (f"({x.c} + {y.c})", lambda e: F(X(e)) + F(Y(e))),
        "-": (f"({x.c} - {y.c})", lambda e: F(X(e)) - F(Y(e))),
        "*": (f"({x.c} * {y.c})", lambda e: F(X(e)) * F(Y(e))),
        "/": (f"({x.c} / (fabsf({y.c}) + 1.0f))", lambda e: F(X(e)) / (np.abs(F(Y(e))) + F(1))),
        "fma": (f"fmaf({x.c}, {y.c}, 0.5f)", lambda e: F(np.float64(F(X(e))) * np.float64(F(Y(e))) + 0.5)),
        "min": (f"fminf({x.c}, {y.c})", lambda e: np.fmin(F(X(e)), F(Y(e)))),
        "max": (f"fmaxf({x.c}, {y.c})", lambda e: np.fmax(F(X(e)), F(Y(e)))),
        "sqrt": (f"sqrtf(fabsf({x.c}))", lambda e: np.sqrt(np.abs(F(X(e))))),
        "sel": (f"({x.c} < {y.c} ? {y.c} : -({x.c}))", lambda e: F(Y(e)) if F(X(e)) < F(Y(e)) else -F(X(e))),
        "add_rd": (f"__fadd_rd({x.c}, {y.c})", lambda e: _directed(_q(X(e)) + _q(Y(e)), "rd")),
        "mul_ru": (f"__fmul_ru({x.c}, {y.c})", lambda e: _directed(_q(X(e)) * _q(Y(e)), "ru")),
        "fma_rz": (f"__fmaf_rz({x.c}, {y.c}, -0.75f)", lambda e: _directed(_q(X(e)) * _q(Y(e)) - Fraction(3, 4), "rz")),
    }
    c, ev = table[op]
    return Expr(c, ev)


F_OPS = ["+", "-", "*", "/", "fma", "min", "max", "sqrt", "sel", "add_rd", "mul_ru", "fma_rz"]


def f_expr(max_leaves: int = 6) -> st.SearchStrategy[Expr]:
    consts = st.floats(-8, 8, width=32, allow_nan=False).map(lambda v: Expr(f"{float(v)!r}f", lambda e, v=v: F(v)))
    leaves = st.one_of(st.sampled_from(_LEAVES_F), consts)
    return st.recursive(leaves, lambda kids: st.builds(_f_binary, st.sampled_from(F_OPS), kids, kids),
                        max_leaves=max_leaves)


# ---- whole kernels ---------------------------------------------------------------------

@dataclass(frozen=True)
class GeneratedKernel:
    """A kernel source, how to launch it, and its expected output for given inputs."""

    source: str
    name: str
    kind: str  # "u32" or "f32"
    block: int
    grid: int
    expr: Expr

    @property
    def n(self) -> int:
        return self.block * self.grid

    # Kernels compile with -fmad=false so the Python model's separate multiply and add
    # round as the GPU's; the differential test against a GPU uses the same options.
    options: tuple[str, ...] = ("-fmad=false",)

    def inputs(self, rng: np.random.Generator) -> dict[str, np.ndarray]:
        n = self.n
        if self.kind == "u32":
            return {"a": rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32),
                    "b": rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)}
        return {"x": rng.uniform(-4, 4, n).astype(np.float32), "y": rng.uniform(-4, 4, n).astype(np.float32)}

    def expected(self, inputs: dict[str, np.ndarray]) -> np.ndarray:
        n = self.n
        out = np.zeros(n, np.uint32 if self.kind == "u32" else np.float32)
        with np.errstate(all="ignore"):
            for g in range(n):
                env = {"tid": g % self.block, "bid": g // self.block, "gid": g, "n": n}
                if self.kind == "u32":
                    env.update(a=int(inputs["a"][g]), b=int(inputs["b"][g]), a_perm=int(inputs["a"][(g * 7 + 3) % n]))
                else:
                    env.update(x=inputs["x"][g], y=inputs["y"][g], x_next=inputs["x"][(g + 1) % n])
                out[g] = self.expr.ev(env)
        return out


def _source(kind: str, expr: Expr, name: str) -> str:
    if kind == "u32":
        params = "unsigned* out, const unsigned* a, const unsigned* b, unsigned n"
    else:
        params = "float* out, const float* x, const float* y, unsigned n"
    return (f'extern "C" __global__ void {name}({params}) {{\n'
            f"    unsigned tid = threadIdx.x, bid = blockIdx.x;\n"
            f"    unsigned gid = bid * blockDim.x + tid;\n"
            f"    if (gid >= n) return;\n"
            f"    out[gid] = {expr.c};\n"
            f"}}\n")


@st.composite
def kernels(draw, kinds=("u32", "f32")) -> GeneratedKernel:
    """A random kernel: u32 index arithmetic or f32 math, over one to four blocks."""
    kind = draw(st.sampled_from(kinds))
    expr = draw(u_expr() if kind == "u32" else f_expr())
    block = draw(st.sampled_from([32, 64, 96, 128]))
    grid = draw(st.integers(1, 4))
    name = "generated"
    return GeneratedKernel(_source(kind, expr, name), name, kind, block, grid, expr)
