"""The kernel catalog: how to compile, launch, feed and check every kernel in kernels/.

One entry drives both backends (PyCUDA on a GPU, cudasim on a CPU) and the analysis models.
Sizes are the problem's linear size: n elements (vector add), n x n (transpose), n^3 (GEMM).
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

HERE = Path(__file__).parent


class CatalogError(ValueError):
    """A name or size the catalog cannot serve; the message says what would work."""


@dataclass(frozen=True)
class Kernel:
    name: str
    family: str  # vector_add | transpose | sgemm | dgemm
    source: str  # file name in kernels/
    entry: str  # extern "C" entry point
    teaches: str
    launch: Callable[[int, int], tuple[tuple[int, int, int], tuple[int, int, int], int]]  # (size, SMs) -> grid, block, shared
    args: Callable[[dict, int], list]  # (arrays, size) -> kernel arguments in order
    inputs: Callable[[int, np.random.Generator], dict]  # size -> named arrays (outputs poisoned with NaN)
    output: str  # the array the kernel writes
    reference: Callable[[dict], np.ndarray]  # float64 expected output from the inputs
    rtol: float
    flops: Callable[[int], float]
    min_bytes: Callable[[int], float]  # the fewest bytes the kernel must move to and from DRAM
    multiple: int = 1  # sizes must be multiples of this
    default_size: int = 1024
    sim_size: int = 128
    defines: tuple[str, ...] = ()
    kind: str = "kernel"  # kernel | pipeline
    pipeline: str = ""  # for pipelines: pageable | pinned | streams

    @property
    def path(self) -> Path:
        return HERE / self.source

    def check_size(self, size: int) -> None:
        if size < 1 or size % self.multiple:
            raise CatalogError(f"{self.name}: size {size} must be a positive multiple of {self.multiple} "
                               f"(its tile); try {max(self.multiple, size // self.multiple * self.multiple)}")

    def make_inputs(self, size: int, seed: int = 0) -> dict:
        self.check_size(size)
        return self.inputs(size, np.random.default_rng(seed))


# -- families -----------------------------------------------------------------------------------
def _rand(rng, shape, dtype):
    return (rng.random(shape) + 0.5).astype(dtype)  # in [0.5, 1.5): never zero


def _vector_inputs(n, rng):
    return {"a": _rand(rng, n, np.float32), "b": _rand(rng, n, np.float32), "c": np.full(n, np.nan, np.float32)}


def _vector(name, teaches, launch, default, kind="kernel", pipeline="", entry=None):
    return Kernel(name, "vector_add", "vector_add.cu", entry or name, teaches, launch,
                  lambda d, n: [d["a"], d["b"], d["c"], np.int32(n)], _vector_inputs, "c",
                  lambda d: d["a"].astype(np.float64) + d["b"], 1e-6, lambda n: float(n), lambda n: 12.0 * n,
                  default_size=default, sim_size=4096, kind=kind, pipeline=pipeline)


def _grid_stride(n, sms):
    return ((min(sms * 8, max(1, (n + 1023) // 1024)), 1, 1), (256, 1, 1), 0)


def _transpose_inputs(n, rng):
    return {"inp": _rand(rng, (n, n), np.float32), "out": np.full((n, n), np.nan, np.float32)}


def _transpose(name, teaches, is_copy=False):
    return Kernel(name, "transpose", "transpose.cu", name, teaches,
                  lambda n, sms: ((-(-n // 32), -(-n // 32), 1), (32, 8, 1), 0),
                  lambda d, n: [d["out"], d["inp"], np.int32(n), np.int32(n)], _transpose_inputs, "out",
                  (lambda d: d["inp"].astype(np.float64)) if is_copy else (lambda d: d["inp"].T.astype(np.float64)),
                  0.0, lambda n: 0.0, lambda n: 8.0 * n * n, default_size=8192, sim_size=256)


def _gemm_inputs(dtype):
    def make(n, rng):
        return {"A": _rand(rng, (n, n), dtype) - dtype(1), "B": _rand(rng, (n, n), dtype) - dtype(1),
                "C": _rand(rng, (n, n), dtype), "alpha": dtype(1.5), "beta": dtype(0.5)}
    return make


def _gemm_ref(d):
    return d["alpha"].astype(np.float64) * (d["A"].astype(np.float64) @ d["B"].astype(np.float64)) \
        + d["beta"].astype(np.float64) * d["C"].astype(np.float64)


def _gemm(family, name, teaches, block, tile, multiple, rtol):
    dtype = np.float32 if family == "sgemm" else np.float64
    size = 4 if family == "sgemm" else 8
    bm, bn = tile
    return Kernel(name, family, f"{family}.cu", name, teaches,
                  lambda n, sms: ((-(-n // bn), -(-n // bm), 1), block, 0),
                  lambda d, n: [np.int32(n), np.int32(n), np.int32(n), d["alpha"], d["A"], d["B"], d["beta"], d["C"]],
                  _gemm_inputs(dtype), "C", _gemm_ref, rtol, lambda n: 2.0 * n ** 3 + 3.0 * n * n,
                  lambda n: float(size * 4 * n * n), multiple=multiple, default_size=4096 if family == "sgemm" else 2048,
                  sim_size=128)


_FP32, _TF32, _FP64 = 1e-4, 5e-3, 1e-11
KERNELS: list[Kernel] = [
    _vector("vector_add_single", "<<<1,1>>>: one thread does all the work; correct and ~1000x too slow",
            lambda n, sms: ((1, 1, 1), (1, 1, 1), 0), 1 << 20),
    _vector("vector_add_block_stride", "<<<1,256>>>: coalesced, but one block uses one SM of the chip",
            lambda n, sms: ((1, 1, 1), (256, 1, 1), 0), 1 << 24),
    _vector("vector_add_grid_stride", "a grid sized from the SM count, float4 loads: near copy bandwidth",
            _grid_stride, 1 << 26),
    _vector("vector_add_pageable", "host pipeline from plain (pageable) memory: the copies dominate",
            _grid_stride, 1 << 26, "pipeline", "pageable", "vector_add_grid_stride"),
    _vector("vector_add_pinned", "page-locked host memory: copies at full PCIe/NVLink speed",
            _grid_stride, 1 << 26, "pipeline", "pinned", "vector_add_grid_stride"),
    _vector("vector_add_streams", "chunks over 4 streams: copies of one chunk overlap compute of another",
            _grid_stride, 1 << 26, "pipeline", "streams", "vector_add_grid_stride"),
    _transpose("copy", "the bandwidth reference: same tiles, out = in", is_copy=True),
    _transpose("transpose_naive", "reads rows, writes columns: every store is 32 sectors"),
    _transpose("transpose_tiled", "32x32 shared tile: coalesced both ways, 32-way bank conflict on the read"),
    _transpose("transpose_padded", "tile of 32x33: one padding word removes the conflict"),
    _transpose("transpose_swizzled", "XOR-swizzled column index: conflict-free without padding"),
    _gemm("sgemm", "sgemm_uncoalesced", "threadIdx.x walks rows: strided loads, 32 sectors per request",
          (32, 32, 1), (32, 32), 1, _FP32),
    _gemm("sgemm", "sgemm_naive", "threadIdx.x walks columns: coalesced B and C", (32, 32, 1), (32, 32), 1, _FP32),
    _gemm("sgemm", "sgemm_smem", "32x32 shared tiles: each global element read once per block",
          (32, 32, 1), (32, 32), 1, _FP32),
    _gemm("sgemm", "sgemm_1d_blocktiling", "8 results per thread: register reuse of B", (512, 1, 1), (64, 64), 64,
          _FP32),
    _gemm("sgemm", "sgemm_2d_blocktiling", "8x8 results per thread from 16 registers per k step",
          (256, 1, 1), (128, 128), 128, _FP32),
    _gemm("sgemm", "sgemm_2d_blocktiling_small", "64x64 tile, 4x4 per thread: fewer registers, more blocks and waves",
          (256, 1, 1), (64, 64), 64, _FP32),
    _gemm("sgemm", "sgemm_vectorized", "float4 global and shared loads, A transposed in shared memory",
          (256, 1, 1), (128, 128), 128, _FP32),
    _gemm("sgemm", "sgemm_warptiling", "warp tiles: each warp's shared reads are contiguous, registers reused",
          (128, 1, 1), (128, 128), 128, _FP32),
    _gemm("sgemm", "sgemm_double_buffered", "two shared buffers: the next panel loads while this one computes",
          (128, 1, 1), (128, 128), 128, _FP32),
    _gemm("sgemm", "sgemm_tf32_wmma", "tensor cores through wmma: TF32 inputs, FP32 accumulate",
          (256, 1, 1), (128, 128), 128, _TF32),
    _gemm("dgemm", "dgemm_packed", "4x4 register blocks, double2 loads, no shared memory", (256, 1, 1), (64, 64), 64,
          _FP64),
    _gemm("dgemm", "dgemm_smem", "shared tiles read column-wise: 16-way conflicts on 8-byte loads",
          (32, 8, 1), (32, 32), 32, _FP64),
    _gemm("dgemm", "dgemm_smem_conflict_free", "one padding double per row: the conflicts are gone",
          (32, 8, 1), (32, 32), 32, _FP64),
    _gemm("dgemm", "dgemm_wmma", "FP64 tensor cores (DMMA 8x8x4) through wmma", (128, 1, 1), (64, 64), 64, _FP64),
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


def source(k: Kernel) -> str:
    return k.path.read_text()


def options(k: Kernel) -> list[str]:
    return [f"-D{d}" for d in k.defines]


def verify(k: Kernel, got: np.ndarray, inputs: dict) -> tuple[bool, float]:
    """(ok, worst relative error) of an output against the float64 reference."""
    want = k.reference(inputs)
    got = got.astype(np.float64)
    if not np.isfinite(got).all():
        return False, float("inf")
    scale = max(float(np.abs(want).max()), 1e-30)
    err = float(np.abs(got - want).max() / scale) if want.size else 0.0
    return err <= k.rtol, err
