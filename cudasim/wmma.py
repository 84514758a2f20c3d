"""Tensor-core fragments: wmma.load, wmma.store and wmma.mma (TF32 m16n16k8, FP64 m8n8k4).

A fragment lives in the lanes of one warp in the tensor cores' own layout, so a wmma.load or
store touches, and is traced at, the addresses the hardware touches, run by contiguous run
as it moves them. wmma is .aligned: every lane of a warp that runs it must be active.
"""
from __future__ import annotations

import numpy as np

from .context import DecodeContext
from .errors import SimulationError
from .operands import Op, address, dtype_of, reader, scatter, unsupported, writer
from .ptx import Instruction
from .spaces import gather_addr, read, space_of, split, write
from .state import Batch, Mask

_WMMA_SHAPES = {"m16n16k8": (16, 16, 8), "m8n8k4": (8, 8, 4)}
_WMMA_TYPES = {"tf32": "b32", "f32": "f32", "f64": "f64"}


def fragment_layout(shape: str, frag: str) -> tuple[np.ndarray, np.ndarray]:
    """(row, col) of the element k that lane l holds, both (32, elements): the tensor cores' own
    layouts (the PTX ISA's mma.m16n8k8 .tf32 fragments, m16n16k8 being two n-halves; mma.m8n8k4
    .f64), so that a wmma.load or store touches the addresses the hardware touches."""
    lane = np.arange(32)[:, None]
    g, t = lane >> 2, lane & 3  # group of four lanes, thread in group
    if shape == "m8n8k4":
        if frag == "a":
            return g, t
        if frag == "b":
            return t, g
        return np.broadcast_to(g, (32, 2)), 2 * t + np.arange(2)
    if frag == "a":  # 16x8
        return g + np.array([0, 8, 0, 8]), t + np.array([0, 0, 4, 4])
    if frag == "b":  # 8x16
        return t + np.array([0, 4, 0, 4]), g + np.array([0, 0, 8, 8])
    return g + np.array([0, 0, 8, 8, 0, 0, 8, 8]), 2 * t + np.array([0, 1, 0, 1, 8, 9, 8, 9])  # 16x16


def fragment_runs(er: np.ndarray, ec: np.ndarray, layout: str, esize: int) -> list[list[int]]:
    """The fragment's elements grouped as one lane moves them in one access: consecutive
    elements adjacent in memory, up to 16 bytes, aligned to the run's size (wmma's pointer is
    32-byte aligned and its stride a multiple of 16 bytes)."""
    minor, major = (ec, er) if layout == "row" else (er, ec)
    runs: list[list[int]] = []
    for k in range(er.shape[1]):
        r = runs[-1] if runs else None
        if (r is not None and (len(r) + 1) * esize <= 16 and np.array_equal(major[:, k], major[:, r[0]])
                and np.array_equal(minor[:, k], minor[:, r[-1]] + 1)):
            r.append(k)
        else:
            runs.append([k])
    out = []
    for r in runs:  # split a run whose start is not aligned to its size
        while r:
            n = len(r)
            while n > 1 and ((minor[:, r[0]] * esize) % (n * esize)).any():
                n //= 2
            out.append(r[:n])
            r = r[n:]
    return out


def decode_wmma(ins: Instruction, pc: int, ctx: DecodeContext) -> Op:
    kind = ins.mods[0]
    shape = next((x for x in ins.mods if x in _WMMA_SHAPES), None)
    if shape is None:
        raise unsupported(ins, "only the TF32 m16n16k8 and FP64 m8n8k4 shapes are modelled")
    if kind in ("load", "store"):
        return _decode_access(ins, pc, ctx, kind, shape)
    if kind != "mma":
        raise unsupported(ins)
    return _decode_mma(ins, ctx, shape)


def _decode_access(ins: Instruction, pc: int, ctx: DecodeContext, kind: str, shape: str) -> Op:
    """wmma.load / wmma.store of one fragment: every lane's elements, traced run by run."""
    M, N, K = _WMMA_SHAPES[shape]
    frag = ins.mods[1]
    layout = "col" if ins.has("col") else "row"
    t = ins.type
    if t not in _WMMA_TYPES:
        raise unsupported(ins)
    rows, cols = {"a": (M, K), "b": (K, N), "c": (M, N), "d": (M, N)}[frag]
    dt = dtype_of("f32" if t == "tf32" else t)
    per = rows * cols // 32
    space = space_of(ins)
    if kind == "load":
        regs_o, mem_o = ins.operands[0], ins.operands[1]
    else:
        mem_o, regs_o = ins.operands[0], ins.operands[1]
    stride_o = ins.operands[2] if len(ins.operands) > 2 else None
    items = regs_o.items if regs_o.kind == "vec" else (regs_o,)
    if len(items) != per:
        raise unsupported(ins, f"expected {per} registers per lane")
    addr = address(mem_o, ctx)
    rstride = reader(stride_o, "u32", ctx) if stride_o is not None else None
    er, ec = fragment_layout(shape, frag)
    readers = [reader(x, "f32" if t == "tf32" else t, ctx) for x in items]
    esize = dt.itemsize
    runs = fragment_runs(er, ec, layout, esize)
    locate, check, record = ctx.layout.locate, ctx.hazards.check, ctx.recorder.record

    def wmma_mem(b: Batch, m: Mask) -> None:
        act = m.mask.reshape(-1, 32)
        warps = np.flatnonzero(act.any(1))
        if not act[warps].all():
            raise SimulationError(f"{ins.where()}: wmma needs all 32 lanes of a warp active (.aligned)")
        lanes = (warps[:, None] * 32 + np.arange(32)).ravel()
        base = gather_addr(addr(b), lanes).reshape(-1, 32)[:, 0]
        ld = np.asarray(rstride(b)).astype(np.int64) if rstride is not None else np.int64(cols if layout ==
                                                                                            "row" else rows)
        ld = np.broadcast_to(ld, (b.L,))[lanes].reshape(-1, 32)[:, 0] if np.ndim(ld) else \
            np.full(len(warps), ld)
        elem = (er * ld[:, None, None] + ec) if layout == "row" else (ec * ld[:, None, None] + er)
        a = base[:, None, None] + (elem * esize).astype(np.uint64)  # (warps, 32, per)
        for k in range(per):
            ak = a[:, :, k].ravel()
            parts = split(space, ak)
            for sp, (pos, sa) in parts.items():
                sidx = lanes if pos is None else lanes[pos]
                arr, off = locate(b, ins, sp, sidx, sa, esize)
                if kind == "load":
                    scatter(b, items[k].name, sidx, read(arr, off, esize, 1)[:, 0].view(dt))
                else:
                    v = np.broadcast_to(np.asarray(readers[k](b)), (b.L,))[sidx].astype(dt)
                    write(arr, off, esize, v.view(np.dtype(f"u{esize}"))[:, None])
                if sp == "shared":
                    check(b, pc, ins, sidx, off, esize, write=kind != "load")
        for run in runs:  # traced as the hardware moves it: each contiguous run one access
            parts = split(space, a[:, :, run[0]].ravel())
            for sp, (pos, sa) in parts.items():
                sidx = lanes if pos is None else lanes[pos]
                record(b, pc, sp, "ld" if kind == "load" else "st", esize * len(run), sidx, sa)
    return wmma_mem


def _decode_mma(ins: Instruction, ctx: DecodeContext, shape: str) -> Op:
    """wmma.mma: D = A B + C per warp, in float64, rounded once to D's type."""
    M, N, K = _WMMA_SHAPES[shape]
    tys = ins.types
    if tys not in (("f32", "tf32", "tf32", "f32"), ("f64", "f64", "f64", "f64")):
        raise unsupported(ins, "only TF32 (f32 accumulate) and FP64 wmma.mma are modelled")
    tf32 = tys[1] == "tf32"
    d_o, a_o, b_o, c_o = ins.operands[:4]
    # the .row/.col layouts of wmma.mma describe how the fragments were loaded; the fragments
    # hold logical elements in the hardware's lane layout whatever the memory layout was
    lay = {f: fragment_layout(shape, f) for f in ("a", "b", "c")}
    ft = "u32" if tf32 else "f64"
    ra = [reader(x, ft, ctx) for x in a_o.items]
    rb = [reader(x, ft, ctx) for x in b_o.items]
    rc = [reader(x, tys[3], ctx) for x in c_o.items]
    puts = [writer(x, ctx) for x in d_o.items]
    out_dt = dtype_of(tys[0])

    def frag(b: Batch, rs, f: str, rows: int, cols: int, bits: bool = False) -> np.ndarray:
        """(warps, rows, cols) float64 matrices from the lanes' fragment registers."""
        x = np.stack([np.broadcast_to(np.asarray(r(b)), (b.L,)) for r in rs], axis=1)  # (L, per)
        if bits:
            x = (x.astype(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)
        X = np.zeros((b.L // 32, rows, cols))
        er, ec = lay[f]
        X[:, er, ec] = x.reshape(-1, 32, x.shape[1])
        return X

    def mma(b: Batch, m: Mask) -> None:
        act = m.mask.reshape(-1, 32)
        if not (act.all(1) | ~act.any(1)).all():
            raise SimulationError(f"{ins.where()}: wmma needs all 32 lanes of a warp active (.aligned)")
        D = np.matmul(frag(b, ra, "a", M, K, tf32), frag(b, rb, "b", K, N, tf32)) + frag(b, rc, "c", M, N)
        er, ec = lay["c"]
        D = D[:, er, ec].astype(out_dt).reshape(b.L, -1)
        for i, p in enumerate(puts):
            p(b, D[:, i], m)
    return mma
