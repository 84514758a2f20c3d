"""The forms and inputs of the GPU differential of 16-bit float, dp4a/dp2a and directed-rounding
instructions (kernels.halfdiff): each form one PTX kernel of one instruction, the CUDA kernels of
cuda_fp16.h / cuda_bf16.h and directed-rounding intrinsics, and operands that reach the edges
(ties of the narrower formats, subnormals, overflow, infinities, NaNs of both kinds, cancellations,
fma sums a second rounding would put on a tie). Needs only numpy.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

N = 2048  # lanes per form
BLOCK = 256

# operand kind -> (register declaration, ld/st type, storage dtype)
KINDS = {"f16": (".b16", "b16", np.uint16), "bf16": (".b16", "b16", np.uint16), "u16": (".b16", "b16", np.uint16),
         "s16": (".b16", "b16", np.uint16), "f16x2": (".b32", "b32", np.uint32), "bf16x2": (".b32", "b32", np.uint32),
         "f32": (".f32", "b32", np.uint32), "u32": (".b32", "b32", np.uint32), "s32": (".b32", "b32", np.uint32),
         "f64": (".f64", "b64", np.uint64), "u64": (".b64", "b64", np.uint64), "s64": (".b64", "b64", np.uint64),
         "pred": (".pred", "u8", np.uint8)}


@dataclass(frozen=True)
class Form:
    """One instruction form: `body` reads %a0.. (kinds `ins`) and writes %d0.. (kinds `outs`);
    `ulps` > 0 for an approximate form (per 16-bit half), compared within that many ulp."""

    name: str
    body: str
    ins: tuple[str, ...]
    outs: tuple[str, ...]
    ulps: int = 0

    def ptx(self) -> str:
        n = self.name
        k = len(self.outs) + len(self.ins)
        params = [f"\t.param .u64 {n}_p{i}" for i in range(k)] + [f"\t.param .u32 {n}_n"]
        decl = ["\t.reg .b32 %gi, %gn, %gt;", "\t.reg .b64 %pp, %ad;", "\t.reg .pred %gp;", "\t.reg .b16 %hp;"]
        decl += [f"\t.reg {KINDS[t][0]} %a{i};" for i, t in enumerate(self.ins)]
        decl += [f"\t.reg {KINDS[t][0]} %d{j};" for j, t in enumerate(self.outs)]
        code = ["\tmov.u32 %gi, %ctaid.x;", "\tmov.u32 %gt, %ntid.x;", "\tmov.u32 %gn, %tid.x;",
                "\tmad.lo.s32 %gi, %gi, %gt, %gn;", f"\tld.param.u32 %gn, [{n}_n];", "\tsetp.ge.u32 %gp, %gi, %gn;",
                "\t@%gp bra DONE;"]

        def address(i: int, t: str) -> list[str]:
            size = np.dtype(out_dtype(t) if i < len(self.outs) else KINDS[t][2]).itemsize  # predicates: u8 in, u32 out
            return [f"\tld.param.u64 %pp, [{n}_p{i}];", "\tcvta.to.global.u64 %pp, %pp;",
                    f"\tmad.wide.u32 %ad, %gi, {size}, %pp;"]
        for i, t in enumerate(self.ins):
            code += address(len(self.outs) + i, t)
            if t == "pred":
                code += ["\tld.global.u8 %hp, [%ad];", f"\tsetp.ne.b16 %a{i}, %hp, 0;"]
            else:
                code.append(f"\tld.global.{KINDS[t][1]} %a{i}, [%ad];")
        code += ["\t" + line.strip() for line in self.body.strip().splitlines()]
        for j, t in enumerate(self.outs):
            code += address(j, t)
            if t == "pred":
                code += [f"\tselp.u32 %gt, 1, 0, %d{j};", "\tst.global.u32 [%ad], %gt;"]
            else:
                code.append(f"\tst.global.{KINDS[t][1]} [%ad], %d{j};")
        return (f".visible .entry {n}(\n" + ",\n".join(params) + "\n)\n{\n" + "\n".join(decl + code)
                + "\nDONE:\n\tret;\n}\n")


def out_dtype(t: str):
    return np.uint32 if t == "pred" else KINDS[t][2]


# -- the forms ----------------------------------------------------------------------------------
FCMP = ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")


def forms() -> list[Form]:
    """Every form this check covers (names are PTX entry names)."""
    out: list[Form] = []

    def add(name: str, body: str, ins, outs, ulps: int = 0) -> None:
        out.append(Form(name.replace(".", "_"), body, tuple(ins), tuple(outs), ulps))

    for t in ("f16", "f16x2", "bf16", "bf16x2"):
        bf = t.startswith("bf")
        for op in ("add", "sub", "mul"):
            for mods in (("", ".rn") if bf else ("", ".ftz", ".sat", ".rn.ftz.sat")):
                add(f"{op}{mods}.{t}", f"{op}{mods}.{t} %d0, %a0, %a1;", (t, t), (t,))
        for mods in ((".rn", ".rn.relu") if bf else (".rn", ".rn.ftz", ".rn.sat", ".rn.relu", ".rn.ftz.relu",
                                                     ".rn.ftz.sat")):
            add(f"fma{mods}.{t}", f"fma{mods}.{t} %d0, %a0, %a1, %a2;", (t, t, t), (t,))
        for op in ("neg", "abs"):
            for mods in (("",) if bf else ("", ".ftz")):
                add(f"{op}{mods}.{t}", f"{op}{mods}.{t} %d0, %a0;", (t,), (t,))
        for op in ("min", "max"):
            for mods in (("", ".NaN", ".xorsign.abs", ".NaN.xorsign.abs") if bf else
                         ("", ".ftz", ".NaN", ".xorsign.abs", ".ftz.NaN.xorsign.abs")):
                add(f"{op}{mods}.{t}", f"{op}{mods}.{t} %d0, %a0, %a1;", (t, t), (t,))
        pair = t.endswith("x2")
        for cmp in FCMP:
            dest = "%d0|%d1" if pair else "%d0"
            add(f"setp.{cmp}.{t}", f"setp.{cmp}.{t} {dest}, %a0, %a1;", (t, t), ("pred",) * (2 if pair else 1))
        dest = "%d0|%d1" if pair else "%d0"
        add(f"setp.ltu.or{'' if bf else '.ftz'}.{t}", f"setp.ltu.or{'' if bf else '.ftz'}.{t} {dest}, %a0, %a1, !%a2;",
            (t, t, "pred"), ("pred",) * (2 if pair else 1))
        for cmp in ("lt", "equ", "nan"):
            add(f"set.{cmp}.{t}.{t}", f"set.{cmp}.{t}.{t} %d0, %a0, %a1;", (t, t), (t,))
            add(f"set.{cmp}.u32.{t}", f"set.{cmp}.u32.{t} %d0, %a0, %a1;", (t, t), ("u32",))
        add(f"set.ge.and.s32.{t}", f"set.ge.and.s32.{t} %d0, %a0, %a1, %a2;", (t, t, "pred"), ("s32",))
        add(f"ex2.approx{'.ftz' if bf else ''}.{t}", f"ex2.approx{'.ftz' if bf else ''}.{t} %d0, %a0;", (t,), (t,), 2)
        add(f"tanh.approx.{t}", f"tanh.approx.{t} %d0, %a0;", (t,), (t,), 2)
    for op in ("min", "max"):
        for mods in (".NaN", ".xorsign.abs", ".NaN.xorsign.abs", ".ftz.NaN"):
            add(f"{op}{mods}.f32", f"{op}{mods}.f32 %d0, %a0, %a1;", ("f32", "f32"), ("f32",))
    for cmp in ("lt", "geu", "nan"):
        add(f"set.{cmp}.u32.f32", f"set.{cmp}.u32.f32 %d0, %a0, %a1;", ("f32", "f32"), ("u32",))
        add(f"set.{cmp}.f32.f64", f"set.{cmp}.f32.f64 %d0, %a0, %a1;", ("f64", "f64"), ("f32",))
    add("set.lo.u32.u32", "set.lo.u32.u32 %d0, %a0, %a1;", ("u32", "u32"), ("u32",))
    add("set.gt.or.f16.s32", "set.gt.or.f16.s32 %d0, %a0, %a1, %a2;", ("s32", "s32", "pred"), ("f16",))
    # conversions
    for t in ("f16", "bf16"):
        for w in ("f32", "f64"):
            add(f"cvt.{w}.{t}", f"cvt.{w}.{t} %d0, %a0;", (t,), (w,))
            for rnd in ("rn", "rz", "rm", "rp"):
                add(f"cvt.{rnd}.{t}.{w}", f"cvt.{rnd}.{t}.{w} %d0, %a0;", (w,), (t,))
        for mods in ("rn.relu", "rn.satfinite", "rz.satfinite", "rz.relu.satfinite"):
            add(f"cvt.{mods}.{t}.f32", f"cvt.{mods}.{t}.f32 %d0, %a0;", ("f32",), (t,))
        for mods in ("rn", "rz", "rn.relu", "rn.satfinite"):
            add(f"cvt.{mods}.{t}x2.f32", f"cvt.{mods}.{t}x2.f32 %d0, %a0, %a1;", ("f32", "f32"), (t + "x2",))
        for i in ("s16", "s32", "u32", "s64", "u64"):
            for rnd in ("rn", "rz", "rm", "rp"):
                add(f"cvt.{rnd}.{t}.{i}", f"cvt.{rnd}.{t}.{i} %d0, %a0;", (i,), (t,))
        for rnd in ("rni", "rzi", "rmi", "rpi"):
            add(f"cvt.{rnd}.{t}.{t}", f"cvt.{rnd}.{t}.{t} %d0, %a0;", (t,), (t,))
            for i in ("s32", "u32", "s64", "u16"):
                add(f"cvt.{rnd}.{i}.{t}", f"cvt.{rnd}.{i}.{t} %d0, %a0;", (t,), (i,))
    for mods in ("rn.ftz", "rn.sat", "rm.ftz"):
        add(f"cvt.{mods}.f16.f32", f"cvt.{mods}.f16.f32 %d0, %a0;", ("f32",), ("f16",))
    add("cvt.sat.f32.f16", "cvt.sat.f32.f16 %d0, %a0;", ("f16",), ("f32",))
    add("cvt.sat.f64.f16", "cvt.sat.f64.f16 %d0, %a0;", ("f16",), ("f64",))
    add("cvt.ftz.f32.bf16", "cvt.ftz.f32.bf16 %d0, %a0;", ("bf16",), ("f32",))
    add("cvt.rn.ftz.bf16.f32", "cvt.rn.ftz.bf16.f32 %d0, %a0;", ("f32",), ("bf16",))
    add("cvt.rp.ftz.bf16.f32", "cvt.rp.ftz.bf16.f32 %d0, %a0;", ("f32",), ("bf16",))
    for mods in ("add.sat", "mul.sat", "sub.rz.sat", "mul.rp.sat"):  # the sign of a saturated zero
        add(f"{mods}.f32", f"{mods}.f32 %d0, %a0, %a1;", ("f32", "f32"), ("f32",))
    add("fma.rn.sat.f32", "fma.rn.sat.f32 %d0, %a0, %a1, %a2;", ("f32",) * 3, ("f32",))
    add("cvt.sat.f32.f32", "cvt.sat.f32.f32 %d0, %a0;", ("f32",), ("f32",))
    add("cvt.rzi.sat.f32.f32", "cvt.rzi.sat.f32.f32 %d0, %a0;", ("f32",), ("f32",))
    for rnd in ("rn", "rz", "rm", "rp"):
        add(f"cvt.{rnd}.f16.bf16", f"cvt.{rnd}.f16.bf16 %d0, %a0;", ("bf16",), ("f16",))
        add(f"cvt.{rnd}.bf16.f16", f"cvt.{rnd}.bf16.f16 %d0, %a0;", ("f16",), ("bf16",))
    for rnd in ("rz", "rm", "rp"):
        add(f"cvt.{rnd}.f32.f64", f"cvt.{rnd}.f32.f64 %d0, %a0;", ("f64",), ("f32",))
        for i in ("s32", "u32", "s64", "u64"):
            add(f"cvt.{rnd}.f32.{i}", f"cvt.{rnd}.f32.{i} %d0, %a0;", (i,), ("f32",))
        for i in ("s64", "u64"):
            add(f"cvt.{rnd}.f64.{i}", f"cvt.{rnd}.f64.{i} %d0, %a0;", (i,), ("f64",))
    add("cvt.rm.ftz.f32.f64", "cvt.rm.ftz.f32.f64 %d0, %a0;", ("f64",), ("f32",))
    add("cvt.rp.sat.f32.f64", "cvt.rp.sat.f32.f64 %d0, %a0;", ("f64",), ("f32",))
    # dot products
    for ta, tb in itertools.product(("u32", "s32"), repeat=2):
        add(f"dp4a.{ta}.{tb}", f"dp4a.{ta}.{tb} %d0, %a0, %a1, %a2;", ("u32", "u32", "u32"), ("u32",))
        for half in ("lo", "hi"):
            add(f"dp2a.{half}.{ta}.{tb}", f"dp2a.{half}.{ta}.{tb} %d0, %a0, %a1, %a2;", ("u32", "u32", "u32"), ("u32",))
    # directed rounding of f64 (and nearest, now rounded once), f32 div/sqrt/rcp
    for rnd in ("rn", "rz", "rm", "rp"):
        for op in ("add", "sub", "mul", "div"):
            if rnd != "rn" or op == "div":
                add(f"{op}.{rnd}.f64", f"{op}.{rnd}.f64 %d0, %a0, %a1;", ("f64", "f64"), ("f64",))
        add(f"fma.{rnd}.f64", f"fma.{rnd}.f64 %d0, %a0, %a1, %a2;", ("f64",) * 3, ("f64",))
        for op in ("sqrt", "rcp"):
            add(f"{op}.{rnd}.f64", f"{op}.{rnd}.f64 %d0, %a0;", ("f64",), ("f64",))
        if rnd != "rn":
            for mods in (f".{rnd}", f".{rnd}.ftz"):
                add(f"div{mods}.f32", f"div{mods}.f32 %d0, %a0, %a1;", ("f32", "f32"), ("f32",))
                add(f"sqrt{mods}.f32", f"sqrt{mods}.f32 %d0, %a0;", ("f32",), ("f32",))
                add(f"rcp{mods}.f32", f"rcp{mods}.f32 %d0, %a0;", ("f32",), ("f32",))
    return out


def module_ptx(fs: list[Form], arch: str) -> str:
    """The forms as one PTX module for `arch` (the GPU table's, read by the caller)."""
    return f".version 8.3\n.target {arch}\n.address_size 64\n\n" + "\n".join(f.ptx() for f in fs)


# -- inputs -------------------------------------------------------------------------------------
def _f16_edges() -> list[int]:
    v = [0x0000, 0x8000, 0x0001, 0x8001, 0x0200, 0x03FF, 0x83FF, 0x0400, 0x8400, 0x0401, 0x3C00, 0xBC00, 0x3C01,
         0x3BFF, 0x3800, 0x4000, 0x3555, 0x7BFF, 0xFBFF, 0x7BFE, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0x7FFF,
         0x5BFF, 0x1400, 0x0C00, 0x4900, 0xC900, 0x2E66, 0x3BFE, 0x0402]
    return v


def _bf16_edges() -> list[int]:
    return [0x0000, 0x8000, 0x0001, 0x8001, 0x0040, 0x007F, 0x807F, 0x0080, 0x8080, 0x0081, 0x3F80, 0xBF80, 0x3F81,
            0x3F7F, 0x3F00, 0x4000, 0x3EAB, 0x7F7F, 0xFF7F, 0x7F7E, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81, 0x7FFF,
            0x4B00, 0x3400, 0x4120, 0xC120]


def _f32_edges() -> np.ndarray:
    v = [0.0, -0.0, 1.0, -1.0, 0.5, 1 / 3, 2.0, 65504.0, 65520.0, 65519.996, -65520.0, 2.0 ** -14, 2.0 ** -24,
         2.0 ** -25, 3 * 2.0 ** -26, 2.0 ** -15, 1e-40, -1e-40, 3.4e38, -3.4e38, math.inf, -math.inf, math.nan,
         1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, 1 + 2.0 ** -11 + 2.0 ** -23, 0.1, 1e10]
    bits = np.float32(v).view(np.uint32).tolist() + [0x7F7FFFFF, 0x00000001, 0x80000001, 0x7FFFFFFF, 0xFFC00001,
                                                     0x7F800001, 0x3F808000, 0x3F818000, 0x3F807FFF, 0x7F7F8000]
    return np.array(bits, np.uint32)


def _f64_edges() -> np.ndarray:
    v = [0.0, -0.0, 1.0, -1.0, 0.5, 1 / 3, 2.0, 3.0, 0.1, 1e300, -1e300, 1e-300, 2.0 ** -1022, 2.0 ** -1074,
         -2.0 ** -1074, 5e-324 * 3, 1.7976931348623157e308, -1.7976931348623157e308, math.inf, -math.inf, math.nan,
         1 + 2.0 ** -24, 1 + 2.0 ** -52, 2.0 ** 1023, 65520.0, 2.0 ** -25, 3.4028235677973366e38, 2.0 ** -150,
         2.0 ** -149 * 1.5, 1 + 2.0 ** -11 + 2.0 ** -40]
    bits = np.float64(v).view(np.uint64).tolist() + [0x7FF0000000000001, 0xFFF8000000000001, 0x3FF0000010000000,
                                                     0x3FF0000030000000, 0x3FF000000FFFFFFF, 0x000FFFFFFFFFFFFF]
    return np.array(bits, np.uint64)


def _int_edges(t: str) -> np.ndarray:
    bits = int(t[1:])
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if t[0] == "s" else (0, (1 << bits) - 1)
    vals = {0, 1, 2, 3, 7, 255, 256, lo, hi, lo + 1, hi - 1, 65504, 65519, 65520, 65536, 2049, 2051, 4097, 16777217,
            (1 << 53) + 1, (1 << 24) + 3, -1, -2, -65520, -2049, 0x7F7F7F7F, 0x80808080, 0x12345678}
    mask = (1 << bits) - 1
    return np.array(sorted({v & mask for v in vals}), np.uint64).astype(KINDS[t][2] if bits <= 32 else np.uint64)


def column(kind: str, rng: np.random.Generator, n: int) -> np.ndarray:
    """`n` operands of `kind` as stored bits: edges, random bits, ordinary values and values on or
    beside the rounding boundaries of the narrower formats."""
    pick = rng.integers(0, 4, n)
    if kind in ("f16", "bf16"):
        edges = np.array(_f16_edges() if kind == "f16" else _bf16_edges(), np.uint16)
        with np.errstate(over="ignore"):
            plain = (rng.standard_normal(n) * 2.0 ** rng.integers(-16 if kind == "f16" else -130,
                                                                   16 if kind == "f16" else 128, n))
        plain = plain.astype(np.float16).view(np.uint16) if kind == "f16" else \
            (plain.astype(np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
        anybits = rng.integers(0, 1 << 16, n).astype(np.uint16)
        low = (rng.integers(0, 1 << 16, n) & (0x83FF if kind == "f16" else 0x80FF)).astype(np.uint16)  # subnormals
        return np.choose(pick, [edges[rng.integers(0, len(edges), n)], anybits, plain, low]).astype(np.uint16)
    if kind in ("f16x2", "bf16x2"):
        lo, hi = column(kind[:-2], rng, n), column(kind[:-2], rng, n)
        return lo.astype(np.uint32) | (hi.astype(np.uint32) << np.uint32(16))
    if kind == "f32":
        edges = _f32_edges()
        h = column("f16", rng, n).view(np.float16).astype(np.float32).view(np.uint32)
        tie = (h + np.uint32(0x1000) + rng.integers(-1, 2, n).astype(np.uint32))  # f16 ties and their neighbours
        b = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
        btie = (b & np.uint32(0xFFFF0000)) | np.array([0x8000, 0x7FFF, 0x8001, 0], np.uint32)[rng.integers(0, 4, n)]
        return np.choose(pick, [edges[rng.integers(0, len(edges), n)], b, tie, btie]).astype(np.uint32)
    if kind == "f64":
        edges = _f64_edges()
        with np.errstate(over="ignore"):
            plain = (rng.standard_normal(n) * 2.0 ** rng.integers(-1070, 1020, n)).view(np.uint64)
        b = rng.integers(0, 1 << 63, n, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, n).astype(np.uint64)
        f = column("f32", rng, n).view(np.float32).astype(np.float64).view(np.uint64)
        step = rng.integers(-1, 2, n).astype(np.uint64)  # f32 values, their neighbours, the f32 ties between them
        tie = f + step + np.uint64(1 << 28) * rng.integers(0, 2, n).astype(np.uint64)
        mid = np.where(pick == 3, np.choose(rng.integers(0, 2, n), [plain, tie]), plain)
        return np.choose(pick, [edges[rng.integers(0, len(edges), n)], b, mid, tie]).astype(np.uint64)
    if kind == "pred":
        return rng.integers(0, 2, n).astype(np.uint8)
    dt = KINDS[kind][2]
    bits = int(kind[1:])
    edges = _int_edges(kind)
    anybits = rng.integers(0, 1 << 63, n, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, n).astype(np.uint64)
    small = rng.integers(-70000, 70000, n).astype(np.int64).astype(np.uint64)
    v = np.choose(pick % 3, [edges[rng.integers(0, len(edges), n)].astype(np.uint64), anybits, small])
    return (v & np.uint64((1 << bits) - 1)).astype(dt)


def _adversarial_fma(kind: str, rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """a, b, c with a*b just beside half an ulp of c: a second rounding would land on a tie."""
    base = kind[:-2] if kind.endswith("x2") else kind
    c = column(base, rng, n)
    cv = c.view(np.float16).astype(np.float64) if base == "f16" else \
        (c.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    mant = 10 if base == "f16" else 7
    e = np.floor(np.log2(np.where(np.isfinite(cv) & (cv != 0), np.abs(cv), 1.0)))
    a = 2.0 ** (e - mant - 1) * (1 + rng.integers(-3, 4, n) * 2.0 ** -mant)
    b = 1 + rng.integers(-3, 4, n) * 2.0 ** -mant
    def enc(x):
        return x.astype(np.float16).view(np.uint16) if base == "f16" else \
            (x.astype(np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
    out = [enc(a), enc(b), c]
    if kind.endswith("x2"):
        out = [(x.astype(np.uint32) | (np.roll(x, 1).astype(np.uint32) << np.uint32(16))) for x in out]
    return out


def inputs(form: Form, rng: np.random.Generator, n: int = N) -> list[np.ndarray]:
    """The form's operand columns: the cross product of edge values first, then drawn lanes."""
    cols = [column(k, rng, n) for k in form.ins]
    edge = {"f16": _f16_edges(), "bf16": _bf16_edges(), "f32": _f32_edges().tolist(), "f64": _f64_edges().tolist()}
    lists = [edge.get(k) for k in form.ins]
    if all(x is not None for x in lists) and len(lists) <= 3:
        while np.prod([len(x) for x in lists]) > n // 2:
            i = max(range(len(lists)), key=lambda j: len(lists[j]))
            lists[i] = lists[i][::2]
        rows = list(itertools.product(*lists))
        for i, col in enumerate(cols):
            col[:len(rows)] = [r[i] for r in rows]
    if form.name.startswith("fma") and form.ins[0] != "f64":
        q = n // 4
        for col, adv in zip(cols, _adversarial_fma(form.ins[0], rng, q)):
            col[-q:] = adv
    if form.ins and form.ins[0] == "f64" and len(form.ins) >= 2:  # sums that cancel, products near a tie
        q = n // 8
        a = cols[0][-q:].view(np.float64)
        cols[1][-q:] = (-a * (1 + rng.integers(-4, 5, q) * 2.0 ** -52)).view(np.uint64) if "fma" not in form.name \
            else cols[1][-q:]
    return cols


# -- the CUDA kernels ----------------------------------------------------------------------------
CUDA = r'''
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define I (blockIdx.x * blockDim.x + threadIdx.x)
#define H(v) __half_as_ushort(v)
#define B(v) __bfloat16_as_ushort(v)
extern "C" __global__ void cu_half(unsigned short *o, const __half *a, const __half *b, const __half *c, unsigned n) {
    unsigned i = I; if (i >= n) return; __half x = a[i], y = b[i], z = c[i];
    __half r[] = {__hadd(x, y), x - y, x * y, __hfma(x, y, z), __hfma_sat(x, y, z), __hfma_relu(x, y, z), __hneg(x),
                  __habs(x), __hmax(x, y), __hmin_nan(x, y), __hsub_sat(x, y), __hmul_sat(x, y), __hadd_rn(x, y),
                  __hmax_nan(x, y), __hle(x, y) ? x : y, __hgtu(x, z) ? z : y};
    for (int k = 0; k < 16; ++k) o[k * n + i] = H(r[k]);
}
extern "C" __global__ void cu_half2(unsigned *o, const __half2 *a, const __half2 *b, const __half2 *c, unsigned n) {
    unsigned i = I; if (i >= n) return; __half2 x = a[i], y = b[i], z = c[i];
    __half2 r[] = {__hadd2(x, y), __hsub2(x, y), __hmul2(x, y), __hfma2(x, y, z), __hfma2_sat(x, y, z),
                   __hfma2_relu(x, y, z), __hadd2_sat(x, y), __hneg2(x), __habs2(x), __hmax2(x, y), __hmin2(x, y),
                   __hmax2_nan(x, y), __hmin2_nan(x, y), __hgt2(x, y), __hequ2(x, y), __hadd2_rn(__hmul2_rn(x, y), z),
                   __hcmadd(x, y, z)};
    for (int k = 0; k < 17; ++k) o[k * n + i] = *(unsigned *)&r[k];
    o[17 * n + i] = __hgt2_mask(x, y); o[18 * n + i] = __hbgt2(x, y) + 2 * __hble2(y, z);
}
extern "C" __global__ void cu_bf16(unsigned short *o, unsigned *o2, const __nv_bfloat16 *a, const __nv_bfloat16 *b,
                                   const __nv_bfloat162 *u, const __nv_bfloat162 *v, unsigned n) {
    unsigned i = I; if (i >= n) return; __nv_bfloat16 x = a[i], y = b[i]; __nv_bfloat162 p = u[i], q = v[i];
    __nv_bfloat16 r[] = {__hadd(x, y), x - y, x * y, __hfma(x, y, x), __hfma_relu(x, y, y), __hneg(x), __habs(x),
                         __hmax(x, y), __hmin_nan(x, y), __hadd_sat(x, y), __hfma_sat(x, y, x), __hmul_sat(x, y)};
    for (int k = 0; k < 12; ++k) o[k * n + i] = B(r[k]);
    __nv_bfloat162 s[] = {__hadd2(p, q), __hmul2(p, q), __hfma2(p, q, p), __hfma2_relu(p, q, q), __hmax2(p, q),
                          __hmin2_nan(p, q), __hneg2(p), __habs2(p), __hgt2(p, q), __hsub2(p, q), __hfma2_sat(p, q, p)};
    for (int k = 0; k < 11; ++k) o2[k * n + i] = *(unsigned *)&s[k];
    o2[11 * n + i] = __hle2_mask(p, q);
}
extern "C" __global__ void cu_convert(unsigned short *o, unsigned *o2, const float *f, const double *d, const int *k,
                                      const long long *l, unsigned n) {
    unsigned i = I; if (i >= n) return; float x = f[i]; double y = d[i]; int z = k[i]; long long w = l[i];
    unsigned short r[] = {H(__float2half_rn(x)), H(__float2half_rz(x)), H(__float2half_rd(x)), H(__float2half_ru(x)),
        H(__double2half(y)), H(__int2half_rd(z)), H(__ll2half_rz(w)), H(__uint2half_rn((unsigned)z)),
        H(__short2half_rz((short)z)), B(__float2bfloat16(x)), B(__float2bfloat16_rz(x)), B(__float2bfloat16_rd(x)),
        B(__float2bfloat16_ru(x)), B(__double2bfloat16(y)), B(__int2bfloat16_rn(z)), B(__int2bfloat16_rz(z)),
        B(__ull2bfloat16_rd((unsigned long long)w)), B(__short2bfloat16_rn((short)z)),
        B(__float2bfloat16_rn(__half2float(__float2half(x))))};
    for (int j = 0; j < 19; ++j) o[j * n + i] = r[j];
    __half h = __ushort_as_half((unsigned short)z); __nv_bfloat16 g = __ushort_as_bfloat16((unsigned short)z);
    float fs[] = {__half2float(h), __bfloat162float(g)};
    o2[i] = __float_as_uint(fs[0]); o2[n + i] = __float_as_uint(fs[1]);
    o2[2 * n + i] = (unsigned)__half2int_rd(h); o2[3 * n + i] = (unsigned)__bfloat162int_rn(g);
    __half2 h2 = __floats2half2_rn(x, (float)y); __nv_bfloat162 b2 = __floats2bfloat162_rn(x, (float)y);
    o2[4 * n + i] = *(unsigned *)&h2; o2[5 * n + i] = *(unsigned *)&b2;
}
extern "C" __global__ void cu_dot(int *o, const int *a, const int *b, const int *c, unsigned n) {
    unsigned i = I; if (i >= n) return;
    o[i] = __dp4a(a[i], b[i], c[i]); o[n + i] = (int)__dp4a((unsigned)a[i], (unsigned)b[i], (unsigned)c[i]);
    o[2 * n + i] = __dp2a_lo(a[i], b[i], c[i]); o[3 * n + i] = __dp2a_hi(a[i], b[i], c[i]);
    o[4 * n + i] = (int)__dp2a_lo((unsigned)a[i], (unsigned)b[i], (unsigned)c[i]);
    o[5 * n + i] = (int)__dp2a_hi((unsigned)a[i], (unsigned)b[i], (unsigned)c[i]);
}
extern "C" __global__ void cu_round(double *o, float *o2, const double *a, const double *b, const double *c,
                                    const float *x, const float *y, const long long *l, unsigned n) {
    unsigned i = I; if (i >= n) return; double p = a[i], q = b[i], s = c[i]; float u = x[i], v = y[i];
    long long w = l[i];
    double r[] = {__dadd_rd(p, q), __dadd_ru(p, q), __dadd_rz(p, q), __dsub_rd(p, q), __dmul_ru(p, q),
                  __dmul_rz(p, q), __fma_rd(p, q, s), __fma_ru(p, q, s), __fma_rz(p, q, s), __fma_rn(p, q, s),
                  __ddiv_rd(p, q), __ddiv_ru(p, q), __ddiv_rz(p, q), __dsqrt_rd(p), __dsqrt_ru(p), __dsqrt_rz(p),
                  __drcp_rd(p), __drcp_ru(p), __drcp_rz(p), __ll2double_rd(w), __ull2double_ru((unsigned long long)w)};
    for (int k = 0; k < 21; ++k) o[k * n + i] = r[k];
    float f[] = {__double2float_rd(p), __double2float_ru(p), __double2float_rz(p), __int2float_rd((int)w),
                 __uint2float_ru((unsigned)w), __ll2float_rz(w), __ull2float_rd((unsigned long long)w), __fdiv_rd(u, v),
                 __fdiv_ru(u, v), __fdiv_rz(u, v), __fsqrt_rd(u), __fsqrt_ru(u), __fsqrt_rz(u), __frcp_rd(u),
                 __frcp_ru(u), __frcp_rz(u)};
    for (int k = 0; k < 16; ++k) o2[k * n + i] = f[k];
}
'''


@dataclass(frozen=True)
class Cuda:
    """A CUDA kernel of `CUDA`: its outputs (dtype, values per lane) and inputs (operand kinds)."""

    name: str
    outs: tuple[tuple[str, int], ...]
    ins: tuple[str, ...]


CUDA_KERNELS = [
    Cuda("cu_half", (("u16", 16),), ("f16", "f16", "f16")),
    Cuda("cu_half2", (("u32", 19),), ("f16x2", "f16x2", "f16x2")),
    Cuda("cu_bf16", (("u16", 12), ("u32", 12)), ("bf16", "bf16", "bf16x2", "bf16x2")),
    Cuda("cu_convert", (("u16", 19), ("u32", 6)), ("f32", "f64", "s32", "s64")),
    Cuda("cu_dot", (("u32", 6),), ("s32", "s32", "s32")),
    Cuda("cu_round", (("u64", 21), ("u32", 16)), ("f64", "f64", "f64", "f32", "f32", "s64")),
]
STORE = {"u16": np.uint16, "u32": np.uint32, "u64": np.uint64}
