"""Hand-written PTX for the opcode tests, and the float helpers their references need.

The opcode tests reach cudasim only through its public API: each family of instructions is
one PTX module (`Ptx`) of small entries, and each entry loads its operands lane by lane
from global arrays, runs one instruction form and stores what it wrote. Register classes
follow NVRTC's habits (.b16/.b32/.b64 for integers, .f32/.f64 for floats, .pred).

PTX that cudasim accepts but ptxas rejects would prove nothing, so every module made here
is registered in MODULES and assembled by ptxas in each test file's validity test.

The references are written from the PTX ISA with Python integers and exact fractions,
rounded to nearest-even here (`round_float`), never with the simulator's own code.

Each form is checked on the cross product of its operand types' edge values (`edge_columns`)
and on warps drawn by hypothesis: a few lanes it explores and shrinks, plus a seed for more
lanes from the same mix of edge values, any bit pattern and small values (`Case.warp`).
"""
from __future__ import annotations

import itertools
import math
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
from hypothesis import strategies as st

from cudasim import In, Out, SourceModule

HEADER = ".version 8.3\n.target sm_90\n.address_size 64\n\n"
MODULES: dict[str, str] = {}  # title -> PTX text: every module the tests run, for the ptxas check

NP = {"pred": np.uint8, "b8": np.uint8, "u8": np.uint8, "s8": np.int8, "b16": np.uint16, "u16": np.uint16,
      "s16": np.int16, "f16": np.float16, "bf16": np.uint16, "b32": np.uint32, "u32": np.uint32,
      "s32": np.int32, "f32": np.float32, "b64": np.uint64, "u64": np.uint64, "s64": np.int64,
      "f64": np.float64}
BITS = {t: 8 * np.dtype(d).itemsize for t, d in NP.items()}
INT_TYPES = ("u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64")


def reg_class(t: str) -> str:
    """The register declaration NVRTC would use for a value of PTX type `t`."""
    if t == "pred":
        return ".pred"
    if t in ("f32", "f64"):
        return "." + t
    return f".b{max(16, BITS[t])}"


def mem_type(t: str) -> str:
    """The ld/st type that moves a value of type `t` (ld has no .f16 or .pred)."""
    return {"pred": "u8", "f16": "b16", "bf16": "b16"}.get(t, t)


@dataclass(frozen=True)
class Entry:
    """One kernel: operands %a0.. of types `ins` are loaded, `body` runs and writes %d0.. of
    types `outs`; `regs` declares whatever else the body uses."""

    name: str
    body: str
    ins: tuple[str, ...]
    outs: tuple[str, ...]
    regs: str = ""

    def ptx(self) -> str:
        n = self.name
        params = [f"\t.param .u64 {n}_p{k}" for k in range(len(self.outs) + len(self.ins))]
        decl = ["\t.reg .b32 %gx, %gc, %gn, %gi;", f"\t.reg .b64 %pp<{len(params) + 1}>, %ad<{len(params) + 1}>;",
                "\t.reg .b16 %hp<4>;", "\t.reg .b32 %dp<4>;"]
        decl += [f"\t.reg {reg_class(t)} %a{i};" for i, t in enumerate(self.ins)]
        decl += [f"\t.reg {reg_class(t)} %d{j};" for j, t in enumerate(self.outs)]
        if self.regs:
            decl.append("\t" + self.regs)
        code = ["\tmov.u32 %gx, %tid.x;", "\tmov.u32 %gc, %ctaid.x;", "\tmov.u32 %gn, %ntid.x;",
                "\tmad.lo.s32 %gi, %gc, %gn, %gx;"]
        for k in range(len(params)):
            code += [f"\tld.param.u64 %pp{k}, [{n}_p{k}];", f"\tcvta.to.global.u64 %pp{k}, %pp{k};"]
        for i, t in enumerate(self.ins):
            k = len(self.outs) + i
            code.append(f"\tmad.wide.u32 %ad{k}, %gi, {np.dtype(NP[t]).itemsize}, %pp{k};")
            if t == "pred":
                code += [f"\tld.global.u8 %hp{i}, [%ad{k}];", f"\tsetp.ne.b16 %a{i}, %hp{i}, 0;"]
            else:
                code.append(f"\tld.global.{mem_type(t)} %a{i}, [%ad{k}];")
        code += ["\t" + line.strip() for line in self.body.strip().splitlines()]
        for j, t in enumerate(self.outs):
            if t == "pred":
                code += [f"\tmad.wide.u32 %ad{j}, %gi, 4, %pp{j};", f"\tselp.u32 %dp{j}, 1, 0, %d{j};",
                         f"\tst.global.u32 [%ad{j}], %dp{j};"]
            else:
                code += [f"\tmad.wide.u32 %ad{j}, %gi, {np.dtype(NP[t]).itemsize}, %pp{j};",
                         f"\tst.global.{mem_type(t)} [%ad{j}], %d{j};"]
        return (f".visible .entry {n}(\n" + ",\n".join(params) + "\n)\n{\n" + "\n".join(decl + code)
                + "\n\tret;\n}\n")


class Ptx:
    """A module of entries, parsed by cudasim once; `run(name, *arrays)` runs one entry with
    one thread per element of the input arrays and returns its output arrays."""

    def __init__(self, title: str, entries: Sequence[Entry]):
        self.title = title
        self.entries = {e.name: e for e in entries}
        if len(self.entries) != len(entries):
            raise ValueError(f"{title}: two entries share a name")
        self.text = HEADER + "\n".join(e.ptx() for e in entries)
        MODULES[title] = self.text
        self._mod: SourceModule | None = None

    @property
    def module(self) -> SourceModule:
        if self._mod is None:
            self._mod = SourceModule.from_ptx(self.text)
        return self._mod

    def run(self, name: str, *inputs, **launch) -> list[np.ndarray]:
        """Outputs of entry `name` for one thread per input element (`launch`: extra call arguments;
        by default no trace and no race checks, which these register-only tests do not need)."""
        e = self.entries[name]
        assert len(inputs) == len(e.ins), f"{name} takes {len(e.ins)} inputs"
        arrays = [np.atleast_1d(np.asarray(x)) for x in inputs]
        n = max(len(a) for a in arrays) if arrays else 32
        block = min(256, -(-n // 32) * 32)
        total = -(-n // block) * block
        ins = []
        for a, t in zip(arrays, e.ins):
            a = np.broadcast_to(a, (n,)) if len(a) == 1 else a
            if t == "pred":
                a = a.astype(bool).astype(np.uint8)
            elif a.dtype != NP[t]:
                a = a.astype(NP[t])
            ins.append(np.concatenate([a, np.repeat(a[-1:], total - n)]))
        outs = [np.zeros(total, np.uint32 if t == "pred" else NP[t]) for t in e.outs]
        launch = {"trace": False, "check": False, **launch}
        self.module.get_function(name)(*[Out(o) for o in outs], *[In(a) for a in ins],
                                       block=(block, 1, 1), grid=(total // block, 1), **launch)
        return [o[:n] for o in outs]


def ptxas_errors(text: str) -> str:
    """ptxas's complaints about a module for sm_90 (empty when it assembles)."""
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "m.ptx"
        src.write_text(text)
        r = subprocess.run([shutil.which("ptxas") or "ptxas", "-arch=sm_90", "-o", str(Path(d) / "m.cubin"),
                            str(src)], capture_output=True, text=True)
        return "" if r.returncode == 0 else (r.stderr or r.stdout)


HAVE_PTXAS = shutil.which("ptxas") is not None


# -- integers ----------------------------------------------------------------------------
def wrap(x: int, t: str) -> int:
    """`x` reduced to PTX type `t` (two's complement for signed types)."""
    bits = BITS[t]
    x &= (1 << bits) - 1
    if t[0] == "s" and x >> (bits - 1):
        x -= 1 << bits
    return x


def int_edges(t: str) -> list[int]:
    """0, 1, -1, MIN, MAX and their neighbours, the width and its neighbours, bit patterns."""
    bits = BITS[t]
    lo = -(1 << (bits - 1)) if t[0] == "s" else 0
    hi = (1 << (bits - 1)) - 1 if t[0] == "s" else (1 << bits) - 1
    vals = {0, 1, 2, 3, 7, lo, hi, lo + 1, hi - 1, bits - 1, bits, bits + 1, 0x55, 0xFF, 1 << (bits // 2)}
    vals |= {wrap(-1, t), wrap(-2, t), wrap(0x5555555555555555, t), wrap(0xAAAAAAAAAAAAAAAA, t),
             wrap(0x8000000000000001, t), wrap(0x0123456789ABCDEF, t)}
    return sorted(wrap(v, t) for v in vals)


def ints(t: str):
    """Integers of type `t`, often an edge value."""
    bits = BITS[t]
    lo = -(1 << (bits - 1)) if t[0] == "s" else 0
    hi = lo + (1 << bits) - 1
    return st.one_of(st.sampled_from(int_edges(t)), st.integers(lo, hi),
                     st.integers(-64, 64).map(lambda v: wrap(v, t)))


# -- floats ------------------------------------------------------------------------------
FMT = {"f16": (10, -14, np.float16, np.uint16), "f32": (23, -126, np.float32, np.uint32),
       "f64": (52, -1022, np.float64, np.uint64)}


def from_bits(u: int, t: str):
    return np.array(u, FMT[t][3]).view(FMT[t][2])[()]


def bits_of(x, t: str) -> int:
    return int(np.asarray(x, FMT[t][2]).view(FMT[t][3]))


def float_edges(t: str) -> list:
    """Signed zeros and ones, infinities, NaN, MAX, the smallest normal, subnormals, 1 +- ulp."""
    p, emin, dt, _ = FMT[t]
    fi = np.finfo(dt)
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -1.5, 0.1, 1 / 3, 100.0, -7.25, math.pi, math.inf, -math.inf,
            math.nan, float(fi.max), -float(fi.max), float(fi.tiny), -float(fi.tiny), float(fi.eps)]
    out = [dt(v) for v in vals]
    out += [from_bits(1, t), from_bits((1 << (p + 1)) - 1, t), from_bits(1 << (p - 1), t),  # subnormals
            from_bits((1 << (BITS[t] - 1)) | 1, t), from_bits(bits_of(dt(1.0), t) + 1, t),
            from_bits(bits_of(dt(1.0), t) - 1, t)]
    return out


def floats(t: str):
    """Floats of type `t` as numpy scalars: edge values, ordinary values and any bit pattern."""
    p, emin, dt, ut = FMT[t]
    width = {"f16": 16, "f32": 32, "f64": 64}[t]
    return st.one_of(st.sampled_from(float_edges(t)),
                     st.floats(width=width, allow_nan=True, allow_infinity=True).map(dt),
                     st.integers(0, (1 << width) - 1).map(lambda u: from_bits(u, t)))


def finite(t: str, lo: float | None = None, hi: float | None = None):
    """Finite floats of type `t` in [lo, hi] (bounds moved inward to representable values)."""
    width = {"f16": 16, "f32": 32, "f64": 64}[t]
    dt = FMT[t][2]
    lo = None if lo is None else float(np.nextafter(dt(lo), dt(math.inf)) if float(dt(lo)) < lo else dt(lo))
    hi = None if hi is None else float(np.nextafter(dt(hi), dt(-math.inf)) if float(dt(hi)) > hi else dt(hi))
    return st.floats(lo, hi, width=width, allow_nan=False, allow_infinity=False).map(dt)


def round_value(x: Fraction, p: int, emin: int, away: bool = False, toward_zero: bool | None = None) -> Fraction | None:
    """|x| rounded to `p` fraction bits above exponent `emin` (ties to even, or away from zero; or
    directed: toward zero or away from it); None where it overflows the format (past 2^(emax+1),
    emax = 1 - emin), except that rounding toward zero stops at the largest finite value."""
    m = abs(x)
    if m == 0:
        return Fraction(0)
    e = m.numerator.bit_length() - m.denominator.bit_length()
    while Fraction(2) ** e > m:
        e -= 1
    while Fraction(2) ** (e + 1) <= m:
        e += 1
    q = Fraction(2) ** (max(e, emin) - p)
    if toward_zero is not None:
        n = math.floor(m / q) if toward_zero else math.ceil(m / q)
    else:
        n = math.floor(m / q + Fraction(1, 2)) if away else round(m / q)  # round(): half to even
    r = n * q
    top = Fraction(2) ** (2 - emin)
    if r >= top:
        return top - Fraction(2) ** (1 - emin - p) if toward_zero else None
    return r


def round_float(x: Fraction, t: str, negative_zero: bool = False, away: bool = False, mode: str = "rn"):
    """The value `x` rounded in format `t` to nearest (overflowing to infinity) or by the directed
    `mode` ('rz', 'rm', 'rp'), as numpy."""
    p, emin, dt, _ = FMT[t]
    neg = x < 0 or (x == 0 and negative_zero)
    toward_zero = None if mode == "rn" else mode == "rz" or (mode == "rm") != neg
    r = round_value(x, p, emin, away, toward_zero)
    v = math.inf if r is None else float(r)
    return dt(-v if neg else v)


def ftz(x, t: str):
    """Flush a subnormal to sign-preserving zero (the PTX .ftz rule)."""
    dt = FMT[t][2]
    x = dt(x)
    if x != 0 and abs(x) < np.finfo(dt).tiny:
        return dt(math.copysign(0.0, float(x)))
    return x


def ordinal(x, t: str) -> int:
    """A float's position on the line of representable values (+0 and -0 both 0)."""
    u = bits_of(x, t)
    sign = 1 << (BITS[t] - 1)
    return -(u & ~sign & (sign - 1)) if u & sign else u


def ulps(a, b, t: str) -> int:
    return abs(ordinal(a, t) - ordinal(b, t))


def same_float(got, want, t: str) -> bool:
    """Bit-identical, except that any NaN matches any NaN."""
    if np.isnan(want):
        return bool(np.isnan(got))
    return bits_of(got, t) == bits_of(want, t)


# -- checking ------------------------------------------------------------------------------
def mismatch(name: str, lane: int, inputs: Sequence, got, want) -> str:
    args = ", ".join(_show(x[lane]) for x in inputs)
    return f"{name}: lane {lane} ({args}): got {_show(got)}, want {_show(want)}"


def _show(v) -> str:
    a = np.asarray(v)
    if a.dtype.kind == "f":
        return f"{float(a)!r} (0x{int(a.view(f'u{a.itemsize}')):0{2 * a.itemsize}x})"
    return str(v)


def columns(rows: Sequence[tuple], types: Sequence[str]) -> list[np.ndarray]:
    """Lane tuples drawn by hypothesis -> one numpy array per operand."""
    out = []
    for k, t in enumerate(types):
        col = [r[k] for r in rows]
        if t == "pred":
            out.append(np.array([bool(v) for v in col], np.uint8))
        elif t in FMT:
            out.append(np.array(col, FMT[t][2]))
        else:
            out.append(np.array([wrap(int(v), t) for v in col], NP[t]))
    return out


def lanes(*strategies, n: int = 16):
    """`n` lanes, each a tuple of one operand per strategy."""
    return st.lists(st.tuples(*strategies), min_size=n, max_size=n)


# -- cases: an instruction form with its reference ---------------------------------------
@dataclass(frozen=True)
class Case:
    """One instruction form: its entry, a reference over Python values (ints, bools, numpy
    floats) giving one value per output (a tuple where there are several), the lanes the ISA
    leaves unspecified (`skip`), how its operands are drawn (`draw`, labelled `kind`: forms
    with the same input types and kind share their random lanes) and how float results
    compare: bit for bit (NaN matching any NaN), within `ulps`, or by `close(got, want, *args)`."""

    entry: Entry
    ref: Callable
    skip: Callable | None = None
    draw: tuple | None = None
    kind: str = ""
    ulps: int = 0
    close: Callable | None = None
    gen: tuple | None = None  # numpy generators (rng, n) -> array per input, for the seeded lanes

    def strategies(self) -> tuple:
        if self.draw is not None:
            return self.draw
        return tuple(st.booleans() if t == "pred" else floats(t) if t in FMT else ints(t) for t in self.entry.ins)

    def edges(self) -> list[list]:
        return [[False, True] if t == "pred" else float_edges(t) if t in FMT else int_edges(t)
                for t in self.entry.ins]

    def warp(self, drawn: int = 4):
        """Hypothesis' draw of a warp: `drawn` lanes it explores and shrinks, and a seed for more."""
        return st.tuples(lanes(*self.strategies(), n=drawn), st.integers(0, 2 ** 32 - 1))

    def warp_columns(self, warp, extra: int = 28) -> list[np.ndarray]:
        rows, seed = warp
        rng = np.random.default_rng(seed)
        gens = self.gen or tuple(lambda r, n, t=t: random_column(t, r, n) for t in self.entry.ins)
        return [np.concatenate([a, np.asarray(g(rng, extra)).astype(a.dtype)])
                for a, g in zip(columns(rows, self.entry.ins), gens)]


def random_column(t: str, rng: np.random.Generator, n: int) -> np.ndarray:
    """`n` operands of type `t` as `ints`/`floats` draw them: edges, any bits, small or ordinary values."""
    if t == "pred":
        return rng.integers(0, 2, n).astype(np.uint8)
    pick = rng.integers(0, 3, n)
    if t in FMT:
        dt, ut = FMT[t][2], FMT[t][3]
        edge = np.array(float_edges(t), dt)[rng.integers(0, len(float_edges(t)), n)]
        anybits = rng.integers(0, 1 << BITS[t], n, dtype=np.uint64, endpoint=False).astype(ut).view(dt)
        with np.errstate(over="ignore"):
            plain = (rng.standard_normal(n) * 2.0 ** rng.integers(-20, 20, n)).astype(dt)
        return np.where(pick == 0, edge, np.where(pick == 1, anybits, plain))
    ut = np.dtype(f"u{BITS[t] // 8}")
    edge = np.array([v & ((1 << BITS[t]) - 1) for v in int_edges(t)], np.uint64)[rng.integers(0, len(int_edges(t)), n)]
    anybits = rng.integers(0, 1 << BITS[t], n, dtype=np.uint64, endpoint=False)
    small = rng.integers(-64, 65, n).astype(np.int64).astype(np.uint64)
    u = np.where(pick == 0, edge, np.where(pick == 1, anybits, small)).astype(ut)
    return u.view(NP[t])


def add_case(cases: list, name: str, body: str, ins, outs, ref, regs: str = "", **kw) -> None:
    cases.append(Case(Entry(name, body, tuple(ins), tuple(outs), regs), ref, **kw))


def values(col: np.ndarray, t: str) -> list:
    """A column of lane operands as the references take them."""
    if t == "pred":
        return [bool(v) for v in col]
    if t in FMT:
        return list(col)
    return [wrap(int(v), t) for v in col.tolist()]


def check(mod: Ptx, c: Case, cols: list[np.ndarray]) -> None:
    """Run `c` on the lanes `cols` and compare every output with the reference."""
    e = c.entry
    outs = mod.run(e.name, *cols)
    args = list(zip(*[values(col, t) for col, t in zip(cols, e.ins)]))
    with np.errstate(all="ignore"):  # references overflow to inf or make NaN as the ISA says, silently
        skip = [bool(c.skip(*a)) for a in args] if c.skip else [False] * len(args)
        wants = [None if skip[i] else c.ref(*a) for i, a in enumerate(args)]
    if len(e.outs) == 1:
        wants = [(w,) for w in wants]
    for k, (out, t) in enumerate(zip(outs, e.outs)):
        name = e.name if len(e.outs) == 1 else f"{e.name} output {k}"
        for i, w in enumerate(wants):
            if skip[i]:
                continue
            g, w = out[i], w[k]
            if c.close is not None:
                with np.errstate(all="ignore"):
                    ok = bool(c.close(g, w, *args[i]))
            elif t == "pred":
                ok = int(g) == int(bool(w))
            elif t in FMT:
                if c.ulps and not (np.isnan(w) or np.isinf(w)):
                    ok = not np.isnan(g) and ulps(g, w, t) <= c.ulps
                else:
                    ok = same_float(g, w, t)
            else:
                ok = int(g) == wrap(w, t)
            assert ok, mismatch(name, i, cols, g, w)


def edge_columns(c: Case, limit: int = 2000) -> list[np.ndarray]:
    """Every combination of the operands' edge values (thinned to about `limit` lanes)."""
    lists = c.edges()
    while np.prod([len(x) for x in lists]) > limit:
        k = max(range(len(lists)), key=lambda i: len(lists[i]))
        lists[k] = lists[k][::2]
    return columns(list(itertools.product(*lists)), c.entry.ins)


def groups(pairs: list[tuple[Ptx, Case]]) -> list[list[tuple[Ptx, Case]]]:
    """Forms that take their operands alike, so one draw of lanes serves them all."""
    out: dict = {}
    for m, c in pairs:
        out.setdefault((c.entry.ins, c.kind), []).append((m, c))
    return list(out.values())


def group_id(group: list[tuple[Ptx, Case]]) -> str:
    c = group[0][1]
    return ",".join(c.entry.ins) + (f":{c.kind}" if c.kind else "")


class RawPtx:
    """A hand-written module of whole kernels (memory, warp and barrier tests), registered for ptxas."""

    def __init__(self, title: str, text: str):
        self.title = title
        self.text = HEADER + text
        MODULES[title] = self.text
        self._mod: SourceModule | None = None

    @property
    def module(self) -> SourceModule:
        if self._mod is None:
            self._mod = SourceModule.from_ptx(self.text)
        return self._mod

    def __call__(self, name: str):
        return self.module.get_function(name)
