"""The kernel catalog: how to compile, launch, feed and check every kernel in kernels/.

One entry drives both backends (PyCUDA on a GPU, cudasim on a CPU) and the analysis models.
Sizes are the problem's linear size: n elements (vector add), n x n (transpose), n^3 (GEMM).

    k = get("sgemm_double_buffered")
    inputs = k.make_inputs(256)                     # every kernel argument, in order, by name
    grid, block, shared = k.launch(256, gpu.sms)    # (size, SM count of a cudasim.gpus row) -> launch
    f(*k.args(inputs), block=block, grid=grid, shared=shared)
    ok, err = verify(k, inputs[k.output], inputs_before)

Compile-time parameters are `#ifndef`-guarded macros in the .cu files; an entry's `defines`
states them and `variant(name, BK=16, ...)` makes an entry with other values (the launch
configuration follows them); `configure(name, {"WT_BK": "16"})` does the same from macro
definitions as a command line gives them.
"""
from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Mapping

import numpy as np

HERE = Path(__file__).parent
INT_MAX = 2**31 - 1  # the catalog's kernels index with int: no array may have more elements
_SHAPES = {"vector_add": "vector", "transpose": "matrix", "sgemm": "matrix", "dgemm": "matrix"}  # arrays' shapes


class CatalogError(LookupError, ValueError):
    """A name or size the catalog cannot serve; the message says what would work."""


LaunchConfig = tuple[tuple[int, int, int], tuple[int, int, int], int]  # (grid, block, dynamic shared bytes)


@dataclass(frozen=True)
class Kernel:
    name: str
    family: str  # vector_add | transpose | sgemm | dgemm
    source: str  # file name in kernels/
    entry: str  # extern "C" entry point
    teaches: str
    launch: Callable[[int, int], LaunchConfig]  # (size, SM count) -> (grid, block, dynamic shared bytes)
    inputs: Callable[[int, np.random.Generator], dict]  # every kernel argument in order; outputs NaN
    output: str  # the argument the kernel writes
    reference: Callable[[dict], np.ndarray]  # float64 expected output from the inputs
    rtol: float  # max |got - want| / max |want| allowed
    flops: Callable[[int], float]
    min_bytes: Callable[[int], float]  # the fewest bytes the kernel must move to and from DRAM
    multiple: int = 1  # sizes must be multiples of this (the tile)
    default_size: int = 1024  # the GPU benchmark's size
    sim_size: int = 128  # the simulator's size
    defines: tuple[tuple[str, int], ...] = ()  # compile-time parameters (-DNAME=VALUE)
    params: str = ""  # what the parameters and the launch are, in words
    constraint: str = ""  # the size rule, in words
    kind: str = "kernel"  # kernel | pipeline
    pipeline: str = ""  # for pipelines: pageable | pinned | streams
    factory: Callable[..., "Kernel"] | None = field(default=None, repr=False, compare=False)
    macro_prefix: str = ""  # a parameter P is the macro PREFIX_P (sgemm_warptiling: BK is WT_BK)
    min_cc: str = ""  # the compute capability its source file needs (its tensor-core kernels compile only there)

    @property
    def path(self) -> Path:
        return HERE / self.source

    def args(self, arrays: dict, size: int | None = None) -> list:
        """The kernel's arguments in order (the inputs dict is ordered as the signature)."""
        return list(arrays.values())

    def check_size(self, size: int) -> None:
        if not isinstance(size, (int, np.integer)) or size < 1 or size % self.multiple:
            ok = max(self.multiple, int(size) // self.multiple * self.multiple) if isinstance(size, (int, np.integer)) \
                else self.multiple
            raise CatalogError(f"{self.name}: size {size} is not allowed: {self.constraint or 'positive'}; "
                               f"try {ok}")
        if self.elements(size) is not None and self.elements(size) > INT_MAX:
            top = INT_MAX if self.family == "vector_add" else math.isqrt(INT_MAX)
            top -= top % self.multiple
            raise CatalogError(f"{self.name}: size {size} makes arrays of {self.elements(size):,} elements, past the "
                               f"{INT_MAX:,} its int indices reach (they would wrap); the largest size is {top:,}")

    def elements(self, size: int) -> int | None:
        """Elements of each array at `size`: n for a vector, n x n for a matrix; None for a family whose arrays
        follow no such rule (the corpus's)."""
        if self.family not in _SHAPES:
            return None
        return int(size) if _SHAPES[self.family] == "vector" else int(size) ** 2

    def array_bytes(self, size: int) -> int | None:
        """Bytes of all the kernel's arrays at `size` (what the launch must hold in memory); None where unknown."""
        if self.elements(size) is None:
            return None
        small = self.inputs(self.multiple, np.random.default_rng(0))
        per = sum(v.nbytes for v in small.values() if isinstance(v, np.ndarray) and v.ndim)
        return per * self.elements(size) // self.elements(self.multiple)

    def check_fits(self, size: int, memory_bytes: int, where: str) -> None:
        """CatalogError where the arrays at `size` do not fit in `memory_bytes` (`where`: whose memory)."""
        need = self.array_bytes(size)
        if need is not None and need > memory_bytes:
            top = self.multiple
            while self.array_bytes(top * 2) <= memory_bytes:
                top *= 2
            raise CatalogError(f"{self.name}: size {size:,} needs {need / 2**30:,.1f} GiB of arrays, more than "
                               f"{where}'s {memory_bytes / 2**30:,.1f} GiB; a smaller --size ({top:,} fits)")

    def make_inputs(self, size: int, seed: int = 0) -> dict:
        from cudasim.memory import reserve
        self.check_size(size)
        if self.elements(size) is not None:
            reserve(self.array_bytes(size) + 8 * self.elements(size), f"the arrays of {self.name} at size {size:,}")
        return self.inputs(size, np.random.default_rng(seed))

    def options(self) -> list[str]:
        return [f"-D{n}={v}" for n, v in self.defines]


# -- inputs: random, never zero; outputs poisoned with NaN ----------------------------------------
def _positive(rng, shape, dtype):
    return (rng.random(shape) + 0.5).astype(dtype)  # in [0.5, 1.5)


def _signed(rng, shape, dtype):
    """Magnitudes in [0.25, 1), random signs: never zero, mean zero (sums stay O(sqrt K))."""
    mag = rng.random(shape) * 0.75 + 0.25
    return (np.where(rng.random(shape) < 0.5, -mag, mag)).astype(dtype)


# -- vector add ------------------------------------------------------------------------------------
def _vector_inputs(n, rng):
    return {"a": _positive(rng, n, np.float32), "b": _positive(rng, n, np.float32),
            "c": np.full(n, np.nan, np.float32), "n": np.int32(n)}


def _grid_stride(n, sms):
    """8 blocks of 256 per SM (the whole chip resident), fewer if the array is small."""
    return (min(sms * 8, max(1, -(-n // 1024))), 1, 1), (256, 1, 1), 0


def _parameters(name: str, defaults: dict, over: dict) -> dict:
    """The defaults with `over` applied; a parameter the entry does not have is a CatalogError."""
    unknown = set(over) - set(defaults)
    if unknown:
        raise CatalogError(f"{name}: no parameter {', '.join(sorted(unknown))}; it has "
                           f"{', '.join(defaults) or 'none'}")
    for k, v in over.items():  # every parameter is a size or a count: 0 would divide by zero, a negative is no size
        if v < 1:
            raise CatalogError(f"{name}: {k}={v}: must be a positive integer (the default is {defaults[k]})")
    return {**defaults, **over}


def _vector(name, teaches, launch, default, params, kind="kernel", pipeline="", entry=None):
    defaults = {"VEC": 4} if (entry or name) == "vector_add_grid_stride" else {}

    def build(**over):
        p = _parameters(name, defaults, over)
        if p and p["VEC"] not in (1, 4):
            raise CatalogError(f"{name}: VEC={p['VEC']}: the kernel has a float4 path (VEC=4) and a scalar one (VEC=1)")
        text = params.replace("VEC=4 (float4)", "VEC=1 (scalar)") if p.get("VEC") == 1 else params
        return Kernel(name, "vector_add", "vector_add.cu", entry or name, teaches, launch, _vector_inputs, "c",
                      lambda d: d["a"].astype(np.float64) + d["b"], 1e-6, lambda n: float(n), lambda n: 12.0 * n,
                      default_size=default, sim_size=4096, kind=kind, pipeline=pipeline, params=text,
                      constraint="any n >= 1", defines=tuple(p.items()), factory=build if defaults else None)
    return build()


# -- transpose -------------------------------------------------------------------------------------
def _transpose_inputs(n, rng):
    return {"out": np.full((n, n), np.nan, np.float32), "inp": _positive(rng, (n, n), np.float32),
            "width": np.int32(n), "height": np.int32(n)}


def _transpose(name, teaches, is_copy=False):
    """A transpose entry: blocks of TILE x BLOCK_ROWS threads, one TILE x TILE tile each (transpose.cu)."""

    def build(**over):
        p = _parameters(name, {"TILE": 32, "BLOCK_ROWS": 8}, over)
        tile, rows = p["TILE"], p["BLOCK_ROWS"]
        if tile < 1 or rows < 1 or tile % rows:
            raise CatalogError(f"{name}: BLOCK_ROWS={rows} must divide TILE={tile} (each thread moves "
                               f"TILE / BLOCK_ROWS elements of a column)")
        return Kernel(name, "transpose", "transpose.cu", name, teaches,
                      lambda n, sms: ((-(-n // tile), -(-n // tile), 1), (tile, rows, 1), 0), _transpose_inputs,
                      "out",
                      (lambda d: d["inp"].astype(np.float64)) if is_copy else (lambda d: d["inp"].T.astype(np.float64)),
                      0.0, lambda n: 0.0, lambda n: 8.0 * n * n, default_size=8192, sim_size=256,
                      defines=(("TILE", tile), ("BLOCK_ROWS", rows)),
                      params=f"{tile}x{tile} tile, {tile}x{rows} threads, {tile // rows} elements per thread; "
                             f"grid ceil(n/{tile})^2",
                      constraint="any n >= 1 (bounds-checked)", factory=build)
    return build()


# -- GEMM ------------------------------------------------------------------------------------------
def _gemm_inputs(dtype):
    def make(n, rng):
        return {"M": np.int32(n), "N": np.int32(n), "K": np.int32(n), "alpha": dtype(1.5),
                "A": _signed(rng, (n, n), dtype), "B": _signed(rng, (n, n), dtype), "beta": dtype(0.5),
                "C": _signed(rng, (n, n), dtype)}
    return make


def _gemm_ref(d):
    f = np.float64
    return f(d["alpha"]) * (d["A"].astype(f) @ d["B"].astype(f)) + f(d["beta"]) * d["C"].astype(f)


def _gemm(family, name, teaches, rtol, threads, bm, bn, multiple=1, prefix="", defines=None, geometry=None):
    """A GEMM entry. Tile-parameterised kernels give `prefix` and `defines` ({"BM": 128, ...}, the
    macros PREFIX_BM...), and `geometry(params) -> (threads, BM, BN, multiple)`."""
    dtype = np.float32 if family == "sgemm" else np.float64
    esize = dtype().itemsize
    params_dict = dict(defines or {})

    def build(**over):
        p = _parameters(name, params_dict, over)
        t, m, n, mult = geometry(p) if geometry else (threads, bm, bn, multiple)
        desc = (", ".join(f"{k}={v}" for k, v in p.items()) + "; " if p else "") + \
            f"{t} threads per block, one block per {m}x{n} tile of C"
        return Kernel(name, family, f"{family}.cu", name, teaches,
                      lambda s, sms: ((-(-s // n), -(-s // m), 1), (t if isinstance(t, tuple) else (t, 1, 1)), 0),
                      _gemm_inputs(dtype), "C", _gemm_ref, rtol, lambda s: 2.0 * s ** 3 + 3.0 * s * s,
                      lambda s: float(esize * 4 * s * s), multiple=mult,
                      default_size=4096, sim_size=128 if mult <= 128 else mult,
                      defines=tuple((f"{prefix}_{k}", v) for k, v in p.items()), params=desc,
                      constraint=f"M = N = K = n, a multiple of {mult}" if mult > 1 else "any n >= 1",
                      factory=build, macro_prefix=prefix, min_cc="8.0")  # the file's wmma kernels: TF32, FP64
    return build()


def _warp_geometry(p):
    bm, bn, bk, wm, wn = p["BM"], p["BN"], p["BK"], p["WM"], p["WN"]
    threads = (bm // wm) * (bn // wn) * 32
    return threads, bm, bn, math.lcm(bm, bn, bk)


_WT = {"BM": 128, "BN": 128, "BK": 8, "WM": 32, "WN": 64, "WMITER": 2, "WNITER": 2, "THREADS": 256, "MINBLOCKS": 2}
_DC = {"BM": 64, "BN": 64, "BK": 16, "WM": 32, "WN": 64, "THREADS": 64, "MINBLOCKS": 4}
_TC = {"BM": 128, "BN": 128, "BK": 16, "WM": 64, "WN": 64, "THREADS": 128, "MINBLOCKS": 2}


def _wt_geometry(p):
    t, m, n, mult = _warp_geometry(p)
    if t != p["THREADS"]:
        raise CatalogError(f"THREADS={p['THREADS']} but the warp tiles need {t}")
    return t, m, n, mult


_FP32, _TF32, _FP64 = 1e-4, 5e-3, 1e-11
KERNELS: list[Kernel] = [
    _vector("vector_add_single", "<<<1,1>>>: one thread does all the work; correct and ~1000x too slow",
            lambda n, sms: ((1, 1, 1), (1, 1, 1), 0), 1 << 20, "1 block of 1 thread"),
    _vector("vector_add_block_stride", "<<<1,256>>>: coalesced, but one block uses one SM of the chip",
            lambda n, sms: ((1, 1, 1), (256, 1, 1), 0), 1 << 24, "1 block of 256 threads, block-stride loop"),
    _vector("vector_add_grid_stride", "a grid sized from the SM count, float4 loads: near copy bandwidth",
            _grid_stride, 1 << 26, "VEC=4 (float4); 256 threads, min(8 x SMs, n/1024) blocks, grid-stride loop"),
    _vector("vector_add_pageable", "host pipeline from plain (pageable) memory: the copies dominate",
            _grid_stride, 1 << 26, "host -> device copies, vector_add_grid_stride, device -> host", "pipeline",
            "pageable", "vector_add_grid_stride"),
    _vector("vector_add_pinned", "page-locked host memory: copies at full PCIe/NVLink speed",
            _grid_stride, 1 << 26, "as pageable, from page-locked buffers", "pipeline", "pinned",
            "vector_add_grid_stride"),
    _vector("vector_add_streams", "chunks over 8 streams: copies of one chunk overlap compute and copies of others",
            _grid_stride, 1 << 26, "8 chunks, one stream each: copy in, kernel, copy out", "pipeline", "streams",
            "vector_add_grid_stride"),
    _transpose("copy", "the bandwidth reference: same tiles, out = in", is_copy=True),
    _transpose("transpose_naive", "reads rows, writes columns: every store is 32 sectors"),
    _transpose("transpose_tiled", "32x32 shared tile: coalesced both ways, 32-way bank conflict on the read"),
    _transpose("transpose_padded", "tile of 32x33: one padding word removes the conflict"),
    _transpose("transpose_swizzled", "XOR-swizzled column index: conflict-free without padding"),
    _gemm("sgemm", "sgemm_uncoalesced", "threadIdx.x walks rows: strided loads, 32 sectors per request", _FP32,
          (32, 32, 1), 32, 32),
    _gemm("sgemm", "sgemm_naive", "threadIdx.x walks columns: coalesced B and C", _FP32, (32, 32, 1), 32, 32),
    _gemm("sgemm", "sgemm_smem", "32x32 shared tiles: each global element read once per block", _FP32,
          (32, 32, 1), 32, 32),
    _gemm("sgemm", "sgemm_1d_blocktiling", "8 results per thread: register reuse of B", _FP32, 512, 64, 64, 64,
          "B1", {"BM": 64, "BN": 64, "BK": 8, "TM": 8}, lambda p: (p["BM"] * p["BN"] // p["TM"], p["BM"], p["BN"],
                                                                 math.lcm(p["BM"], p["BN"]))),
    _gemm("sgemm", "sgemm_2d_blocktiling", "8x8 results per thread from 16 registers per k step", _FP32,
          256, 128, 128, 128),
    _gemm("sgemm", "sgemm_2d_blocktiling_small", "64x64 tile, 4x4 per thread: fewer registers, more blocks and waves",
          _FP32, 256, 64, 64, 64),
    _gemm("sgemm", "sgemm_vectorized", "float4 global and shared loads, A transposed in shared memory", _FP32,
          256, 128, 128, 128),
    _gemm("sgemm", "sgemm_warptiling", "warp tiles: each warp's shared reads are contiguous, registers reused",
          _FP32, 256, 128, 128, 128, "WT", _WT, _wt_geometry),
    _gemm("sgemm", "sgemm_double_buffered", "next panel fetched into registers and a second shared buffer "
          "while this one computes", _FP32, 256, 128, 128, 128, "DB", _WT, _wt_geometry),
    _gemm("sgemm", "sgemm_tf32_wmma", "tensor cores through wmma: TF32 inputs, FP32 accumulate", _TF32,
          128, 128, 128, 128, "TC", _TC, _wt_geometry),
    _gemm("dgemm", "dgemm_packed", "4x4 register blocks, double2 loads, no shared memory", _FP64, 256, 64, 64, 64),
    _gemm("dgemm", "dgemm_smem", "shared tiles read column-wise: 16-way conflicts on 8-byte loads", _FP64,
          (32, 8, 1), 32, 32, 32),
    _gemm("dgemm", "dgemm_smem_conflict_free", "one padding double per row: the conflicts are gone", _FP64,
          (32, 8, 1), 32, 32, 32),
    _gemm("dgemm", "dgemm_wmma", "FP64 tensor cores (DMMA 8x8x4) through wmma, pipelined like sgemm_double_buffered",
          _FP64, 64, 64, 64, 64, "DC", _DC, _wt_geometry),
]
BY_NAME = {k.name: k for k in KERNELS}
FAMILIES = sorted({k.family for k in KERNELS})


def names() -> list[str]:
    return [k.name for k in KERNELS]


def get(name: str) -> Kernel:
    """The catalog entry for `name`; an unknown name lists the close ones."""
    try:
        return BY_NAME[name]
    except KeyError:
        close = difflib.get_close_matches(name, names(), n=4, cutoff=0.4)
        hint = f"did you mean {', '.join(close)}?" if close else "run `python -m kernels` for the list"
        raise CatalogError(f"unknown kernel {name!r}; {hint}") from None


def variant(name: str, **params) -> Kernel:
    """The entry `name` compiled with other tile parameters (its launch follows them)."""
    k = get(name)
    if k.factory is None or not k.defines:
        raise CatalogError(f"{name} has no tile parameters to vary")
    return k.factory(**params)


def configure(name: str, defines: Mapping[str, str]) -> Kernel:
    """The entry `name` with macro definitions as a command line gives them ({"BLOCK_ROWS": "16"};
    a GEMM takes "BK" or "WT_BK"), through `variant`, so the launch follows them. No defines: the
    entry itself. A macro the entry does not take, or a value that is not an integer, is a
    CatalogError naming it."""
    k = get(name)
    if not defines:
        return k
    params = {}
    prefix = f"{k.macro_prefix}_" if k.macro_prefix else ""

    def bare(macro: str) -> str:  # WT_BK -> BK
        return macro[len(prefix):] if prefix and macro.startswith(prefix) else macro
    known = [n for n, _ in k.defines]
    for macro, value in defines.items():
        if k.defines and bare(macro) not in {bare(n) for n in known}:
            raise CatalogError(f"{name}: no parameter {macro}; it has {', '.join(known)}")
        try:
            number = int(str(value), 0)
        except ValueError:
            raise CatalogError(f"{name}: {macro}={value}: not an integer") from None
        params[bare(macro)] = number
    return variant(name, **params)


def source(k: Kernel) -> str:
    return k.path.read_text()


def options(k: Kernel) -> list[str]:
    return k.options()


def verify(k: Kernel, got: np.ndarray, inputs: dict) -> tuple[bool, float]:
    """(ok, worst error relative to the largest expected magnitude) against the float64 reference."""
    want = k.reference(inputs)
    got = np.asarray(got).astype(np.float64)
    if got.shape != want.shape or not np.isfinite(got).all():
        return False, float("inf")
    scale = max(float(np.abs(want).max()), 1e-30) if want.size else 1.0
    err = float(np.abs(got - want).max() / scale) if want.size else 0.0
    return err <= k.rtol, err
