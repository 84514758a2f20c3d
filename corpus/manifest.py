"""The out-of-sample corpus: common CUDA patterns beyond the catalog, written as their authors
would write them, each with its launch, seeded inputs, float64 numpy reference, FLOPs and
compulsory bytes (each input element read once, each output element written once).

Every entry is a `kernels.catalog.Kernel` (so `kernels.gpu` and `analysis.pipeline` take it as
they take a catalog entry) that is *not* in the catalog: its source lives in corpus/, it is
measured and predicted at one size (`size`, which is also its sim_size: the launch is
simulated as asked, blocks sampled by analysis.sampling.plan_blocks).

    python -m corpus.manifest          # the table: pattern, launch, bytes, FLOPs
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from kernels.catalog import Kernel, _positive, _signed

HERE = Path(__file__).resolve().parent
SMS = 132  # H100 SXM; launches that size the grid from the SM count take it as an argument


@dataclass(frozen=True)
class CorpusKernel(Kernel):
    pattern: str = ""  # the common pattern the kernel is an instance of
    size: int = 0  # the one size measured and predicted
    constants: tuple[str, ...] = ()  # inputs that are __constant__ variables, not arguments
    inputs_desc: str = ""  # how the inputs are generated, in words

    @property
    def path(self) -> Path:
        return HERE / self.source

    def args(self, arrays: dict, size: int | None = None) -> list:
        return [v for k, v in arrays.items() if k not in self.constants]

    def inputs_digest(self) -> str:
        """digest() of the inputs generated for the measured size (seed 0)."""
        return digest(self.make_inputs(self.size, 0))


def digest(inputs: dict) -> str:
    """SHA-256 of a kernel's inputs: each array's name, dtype, shape and bytes. Generators that go through
    floating point (a binomial, a normal) may draw other numbers under another numpy or libm, and a kernel
    whose addresses follow its data then counts otherwise."""
    h = hashlib.sha256()
    for name, v in sorted(inputs.items()):
        a = np.ascontiguousarray(v)
        h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _nan(n, dtype=np.float32):
    return np.full(n, np.nan, dtype)


def _blocks(n, b):
    return -(-n // b)


def entry(name, source, kernel, pattern, size, launch, inputs, output, reference, flops, min_bytes,
          rtol=1e-5, constants=(), inputs_desc="", params=""):
    return CorpusKernel(name=name, family="corpus", source=source, entry=kernel, teaches=pattern,
                        launch=launch, inputs=inputs, output=output, reference=reference, rtol=rtol,
                        flops=flops, min_bytes=min_bytes, default_size=size, sim_size=size, params=params,
                        pattern=pattern, size=size, constants=tuple(constants), inputs_desc=inputs_desc)


# ---- references ---------------------------------------------------------------------------------
def _stencil1d_ref(d):
    x = d["in"].astype(np.float64)
    p = np.pad(x, 3)
    return sum(p[k:k + len(x)] for k in range(7))


def _jacobi_ref(d):
    nx, ny = int(d["nx"]), int(d["ny"])
    a = d["in"].astype(np.float64).reshape(ny, nx)
    o = a.copy()
    o[1:-1, 1:-1] = 0.25 * (a[1:-1, :-2] + a[1:-1, 2:] + a[:-2, 1:-1] + a[2:, 1:-1])
    return o.ravel()


def _conv_ref(d):
    x = d["in"].astype(np.float64)
    f = d["c_filter"].astype(np.float64)
    r = len(f) // 2
    p = np.pad(x, r)
    return sum(f[k] * p[k:k + len(x)] for k in range(len(f)))


def _softmax_ref(d):
    cols = int(d["cols"])
    x = d["x"].astype(np.float64).reshape(-1, cols)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).ravel()


def _rms_ref(d):
    cols = int(d["cols"])
    x = d["x"].astype(np.float64).reshape(-1, cols)
    s = 1.0 / np.sqrt((x * x).mean(axis=1, keepdims=True) + float(d["eps"]))
    return (x * s * d["w"].astype(np.float64)).ravel()


def _scan_ref(d):
    x = d["in"].astype(np.float64).reshape(-1, 512)
    c = np.cumsum(x, axis=1)
    return (c - x).ravel()  # exclusive


# ---- the corpus ---------------------------------------------------------------------------------
N24 = 1 << 24
MM = (1536, 1000, 768)  # M, N, K of the matrix multiplies: non-square, N not a multiple of the tile


def _mm_inputs(n, rng):
    M, N, K = MM
    return {"A": _signed(rng, M * K, np.float32), "B": _signed(rng, K * N, np.float32), "C": _nan(M * N),
            "M": np.int32(M), "N": np.int32(N), "K": np.int32(K)}


def _mm_ref(d):
    M, N, K = (int(d[k]) for k in "MNK")
    return (d["A"].astype(np.float64).reshape(M, K) @ d["B"].astype(np.float64).reshape(K, N)).ravel()


CORPUS: list[CorpusKernel] = [
    entry("stencil1d", "stencil1d.cu", "stencil1d", "1D stencil, halo in shared memory", N24,
          lambda n, sms: ((_blocks(n, 256), 1, 1), (256, 1, 1), 0),
          lambda n, rng: {"in": _signed(rng, n, np.float32), "out": _nan(n), "n": np.int32(n)},
          "out", _stencil1d_ref, lambda n: 7.0 * n, lambda n: 8.0 * n, rtol=1e-5,
          inputs_desc="in: signed magnitudes in [0.25, 1)"),
    entry("jacobi2d", "stencil2d.cu", "jacobi2d", "2D 5-point stencil, 16x16 tile + halo in shared memory", 4096,
          lambda n, sms: ((_blocks(n, 16), _blocks(n, 16), 1), (16, 16, 1), 0),
          lambda n, rng: {"in": _signed(rng, n * n, np.float32), "out": _nan(n * n), "nx": np.int32(n),
                          "ny": np.int32(n)},
          "out", _jacobi_ref, lambda n: 4.0 * n * n, lambda n: 8.0 * n * n, rtol=1e-5,
          inputs_desc="in: signed, n x n"),
    entry("reduce_tree", "reduce_tree.cu", "reduce_tree", "tree reduction in shared memory (per-block partials)", N24,
          lambda n, sms: ((_blocks(n, 512), 1, 1), (256, 1, 1), 0),
          lambda n, rng: {"in": _positive(rng, n, np.float32), "partial": _nan(_blocks(n, 512)), "n": np.int32(n)},
          "partial", lambda d: d["in"].astype(np.float64).reshape(-1, 512).sum(axis=1), lambda n: float(n),
          lambda n: 4.0 * n + 4.0 * _blocks(n, 512), rtol=1e-5, inputs_desc="in: uniform [0.5, 1.5)"),
    entry("reduce_warp_atomic", "reduce_warp.cu", "reduce_warp_atomic", "warp-shuffle reduction + atomicAdd", N24,
          lambda n, sms: ((4 * sms, 1, 1), (256, 1, 1), 0),
          lambda n, rng: {"in": _positive(rng, n, np.float32), "result": np.zeros(1, np.float32), "n": np.int32(n)},
          "result", lambda d: np.array([d["in"].astype(np.float64).sum()]), lambda n: float(n), lambda n: 4.0 * n,
          rtol=1e-4, inputs_desc="in: uniform [0.5, 1.5); result zeroed"),
    entry("scan_blelloch", "scan_blelloch.cu", "scan_blelloch", "block-level exclusive scan (Blelloch)", N24,
          lambda n, sms: ((n // 512, 1, 1), (256, 1, 1), 0),
          lambda n, rng: {"in": _positive(rng, n, np.float32), "out": _nan(n)},
          "out", _scan_ref, lambda n: 2.0 * n, lambda n: 8.0 * n, rtol=1e-5, inputs_desc="in: uniform [0.5, 1.5)"),
    entry("softmax_rows", "softmax.cu", "softmax_rows", "row softmax (expf), block per row", 8192,
          lambda n, sms: ((n, 1, 1), (256, 1, 1), 0),
          lambda n, rng: {"x": (rng.standard_normal(n * 1024) * 3).astype(np.float32), "y": _nan(n * 1024),
                          "cols": np.int32(1024)},
          "y", _softmax_ref, lambda n: 5.0 * n * 1024, lambda n: 8.0 * n * 1024, rtol=1e-4,
          inputs_desc="x: normal, sd 3; 8192 rows x 1024 cols"),
    entry("softmax_rows_fast", "softmax.cu", "softmax_rows_fast", "row softmax (__expf), block per row", 8192,
          lambda n, sms: ((n, 1, 1), (256, 1, 1), 0),
          lambda n, rng: {"x": (rng.standard_normal(n * 1024) * 3).astype(np.float32), "y": _nan(n * 1024),
                          "cols": np.int32(1024)},
          "y", _softmax_ref, lambda n: 5.0 * n * 1024, lambda n: 8.0 * n * 1024, rtol=1e-4,
          inputs_desc="x: normal, sd 3; 8192 rows x 1024 cols"),
    entry("histogram256", "histogram.cu", "histogram256", "histogram, shared-memory atomics", 1 << 26,
          lambda n, sms: ((8 * sms, 1, 1), (256, 1, 1), 0),
          lambda n, rng: {"data": rng.integers(0, 256, n, dtype=np.uint8), "hist": np.zeros(256, np.uint32),
                          "n": np.int32(n)},
          "hist", lambda d: np.bincount(d["data"], minlength=256).astype(np.float64), lambda n: 0.0,
          lambda n: float(n) + 1024.0, rtol=0.0, inputs_desc="data: uniform random bytes; hist zeroed"),
    entry("gather", "gather.cu", "gather", "gather out[i] = src[idx[i]] (random permutation)", N24,
          lambda n, sms: ((_blocks(n, 256), 1, 1), (256, 1, 1), 0),
          lambda n, rng: {"src": _signed(rng, n, np.float32), "idx": rng.permutation(n).astype(np.int32),
                          "out": _nan(n), "n": np.int32(n)},
          "out", lambda d: d["src"][d["idx"]].astype(np.float64), lambda n: 0.0, lambda n: 12.0 * n, rtol=0.0,
          inputs_desc="idx: a random permutation of 0..n-1"),
    entry("gemv_warp_per_row", "gemv.cu", "gemv_warp_per_row", "matrix-vector, one warp per row", 16384,
          lambda n, sms: ((_blocks(n * 32, 256), 1, 1), (256, 1, 1), 0),
          lambda n, rng: {"A": _signed(rng, n * 4096, np.float32), "x": _signed(rng, 4096, np.float32),
                          "y": _nan(n), "rows": np.int32(n), "cols": np.int32(4096)},
          "y", lambda d: d["A"].astype(np.float64).reshape(-1, 4096) @ d["x"].astype(np.float64),
          lambda n: 2.0 * n * 4096, lambda n: 4.0 * (n * 4096 + 4096 + n), rtol=1e-5,
          inputs_desc="A: 16384 x 4096 signed; x: 4096 signed"),
    entry("conv1d_const", "conv1d.cu", "conv1d_const", "1D convolution, filter in __constant__", N24,
          lambda n, sms: ((_blocks(n, 256), 1, 1), (256, 1, 1), 0),
          lambda n, rng: {"in": _signed(rng, n, np.float32), "out": _nan(n), "n": np.int32(n),
                          "c_filter": _signed(rng, 17, np.float32)},
          "out", _conv_ref, lambda n: 34.0 * n, lambda n: 8.0 * n, rtol=1e-5, constants=("c_filter",),
          inputs_desc="in: signed; c_filter (17 taps, signed) copied to __constant__ before the launch"),
    entry("saxpy_grid_stride", "saxpy.cu", "saxpy", "SAXPY, grid-stride loop", 1 << 25,
          lambda n, sms: ((8 * sms, 1, 1), (256, 1, 1), 0),
          lambda n, rng: {"n": np.int32(n), "a": np.float32(1.5), "x": _signed(rng, n, np.float32),
                          "y": _signed(rng, n, np.float32)},
          "y", lambda d: 1.5 * d["x"].astype(np.float64) + d["y"].astype(np.float64), lambda n: 2.0 * n,
          lambda n: 12.0 * n, rtol=1e-6, inputs_desc="x, y: signed; a = 1.5; y updated in place"),
    entry("rmsnorm_256", "rmsnorm.cu", "rmsnorm<256>", "template + __launch_bounds__, by name expression", 8192,
          lambda n, sms: ((n, 1, 1), (256, 1, 1), 0),
          lambda n, rng: {"x": _signed(rng, n * 2048, np.float32), "w": _positive(rng, 2048, np.float32),
                          "y": _nan(n * 2048), "cols": np.int32(2048), "eps": np.float32(1e-6)},
          "y", _rms_ref, lambda n: 4.0 * n * 2048, lambda n: 8.0 * n * 2048 + 4 * 2048, rtol=1e-5,
          inputs_desc="x: 8192 x 2048 signed; w: [0.5, 1.5)"),
    entry("matmul_naive", "matmul.cu", "matmul_naive", "naive matrix multiply, non-square (1536x1000x768)", 1536,
          lambda n, sms: ((_blocks(MM[1], 16), _blocks(MM[0], 16), 1), (16, 16, 1), 0),
          _mm_inputs, "C", _mm_ref, lambda n: 2.0 * MM[0] * MM[1] * MM[2],
          lambda n: 4.0 * (MM[0] * MM[2] + MM[2] * MM[1] + MM[0] * MM[1]), rtol=1e-5,
          inputs_desc="A (M x K), B (K x N): signed"),
    entry("matmul_tiled", "matmul.cu", "matmul_tiled", "shared-memory tiled matrix multiply, non-square", 1536,
          lambda n, sms: ((_blocks(MM[1], 16), _blocks(MM[0], 16), 1), (16, 16, 1), 0),
          _mm_inputs, "C", _mm_ref, lambda n: 2.0 * MM[0] * MM[1] * MM[2],
          lambda n: 4.0 * (MM[0] * MM[2] + MM[2] * MM[1] + MM[0] * MM[1]), rtol=1e-5,
          inputs_desc="A (M x K), B (K x N): signed"),
    entry("strided_scale", "strided.cu", "strided_scale", "elementwise, strided access (stride 8 floats)", 1 << 22,
          lambda n, sms: ((_blocks(n, 256), 1, 1), (256, 1, 1), 0),
          lambda n, rng: {"in": _signed(rng, n * 8, np.float32), "out": _nan(n), "n": np.int32(n),
                          "stride": np.int32(8)},
          "out", lambda d: 2.0 * d["in"][::8].astype(np.float64) + 1.0, lambda n: 2.0 * n, lambda n: 8.0 * n,
          rtol=1e-6, inputs_desc="in: 8n signed floats, every 8th used"),
]

def index(kernels: list[CorpusKernel]) -> tuple[dict[str, CorpusKernel], Callable[[str], CorpusKernel]]:
    """A set's BY_NAME and get (name -> entry; KeyError for a name the set lacks): every manifest's."""
    by_name = {k.name: k for k in kernels}
    return by_name, by_name.__getitem__


BY_NAME, get = index(CORPUS)


def main(kernels: list[CorpusKernel] | None = None, argv: list[str] | None = None) -> int:
    """The set's kernels, one a line: pattern, launch at its size, bytes and FLOPs (no options but --help)."""
    from cudasim.console import Parser

    Parser(prog="python -m corpus.manifest", description="the kernels of a corpus set, one a line: pattern, "
           "launch, the fewest bytes moved (MB) and the work (MFLOP) at the size measured").parse_args(argv)
    print(f"{'kernel':24s} {'pattern':66s} {'grid':>14s} {'block':>10s} {'MB':>8s} {'MFLOP':>8s}")
    for k in CORPUS if kernels is None else kernels:
        g, b, s = k.launch(k.size, SMS)
        print(f"{k.name:24s} {k.pattern:66s} {'x'.join(map(str, g)):>14s} {'x'.join(map(str, b)):>10s} "
              f"{k.min_bytes(k.size) / 1e6:8.1f} {k.flops(k.size) / 1e6:8.1f}")
    return 0


if __name__ == "__main__":
    from cudasim.console import run

    run(main)
