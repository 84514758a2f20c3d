"""The fourth held-out set: sixteen more common CUDA patterns that neither the catalog, the corpus
nor the first three held-out sets have, written as their authors write them (textbooks, CUDA
samples, papers, framework and library code) and kept away from the model developers, so that the
timing model can be tested out of sample once more.

The same shape as corpus.manifest (CORPUS, BY_NAME, get, SMS; every entry a CorpusKernel made
by corpus.manifest.entry, sources under corpus/holdout4/): each kernel with its launch, seeded
inputs, float64 numpy reference, FLOPs and compulsory bytes (each input element read once, each
output element written once). FLOPs count floating-point +, -, *, / and each math intrinsic as
one, as the source writes them; integer and comparison work counts zero. Every size is chosen for
about 50 us - 3 ms on an H100 (~3 TB/s, ~60 TFLOP/s FP32, ~30 TFLOP/s FP64) and stated with its
reason beside the entry.

    python -m corpus.holdout4.manifest       # the table: pattern, launch, bytes, FLOPs
"""
from __future__ import annotations

import zlib

import numpy as np

from kernels.catalog import _positive, _signed

from ..manifest import SMS, CorpusKernel, _blocks, _nan, entry, index

__all__ = ["CORPUS", "BY_NAME", "get", "SMS", "CorpusKernel"]


# ---- shapes: each kernel's one size parameter n and what it implies ------------------------------
ADAM = dict(lr=1e-3, b1=0.9, b2=0.999, eps=1e-8, step=10, grad_scale=1024.0, decay=0.01)
ROPE_HEADS, ROPE_DIM, ROPE_SEQ = 32, 128, 2048  # Llama-2-7B's query: 32 heads of 128; sequences of 2048 tokens
ROPE_BLOCK = 256  # llama.cpp's CUDA_ROPE_BLOCK_SIZE


def _nv12_height(n):  # n wide, 9/16 n high (7680 -> an 8K UHD frame, 4320 rows)
    return n * 9 // 16


FOCAL_CLASSES = 80  # COCO's classes; label 80 is the background
FOCAL_GAMMA, FOCAL_ALPHA = 2.0, 0.25  # RetinaNet's
FFT_NS = 1 << 12  # the stage: butterflies span 2 Ns = 8192 points (stage 13 of 25 for n = 2^25)
SOFTMAX_COLS = 1024  # attention probabilities over 1024 keys
COULOMB_MAX_ATOMS = 4000  # cionize's MAXATOMS: one chunk of atoms fills the 64 KB of __constant__
COULOMB_SPACING = 0.5  # angstrom, VMD cionize's default grid spacing


def _coulomb_atoms(n):  # a full chunk; fewer at the simulator's sizes
    return COULOMB_MAX_ATOMS if n >= 256 else max(8, n // 2)


CDIST_DIM = 64  # 64-dimensional embeddings
PHILOX_SEED, PHILOX_OFFSET = 0x2545F4914F6CDD1D, 12


def _philox_threads(n):
    """PyTorch's launch for n uniforms drawn as float4s: blocks of 256, at most 2048 / 256 = 8 per
    SM of the H100 (132 SMs): the grid-stride loop's stride, which the reference needs, so the grid
    does not follow the SM count a simulation is given."""
    return min(_blocks(n // 4, 256), 8 * SMS) * 256


THOMAS_SIZE = 512  # equations per system (a line of a 512 x 512 ADI sweep)
CRC_WORDS = 1024  # 4 KB records (pages)
ATTN_HEADS, ATTN_HEAD_SIZE = 32, 128  # Llama-2-7B: 32 heads of 128, kv_dim 4096, no grouped-query sharing
SPMV_NNZ_PER_ROW = 16  # on average
KEPLER_TIMES, KEPLER_SPAN = 1024, 3000.0  # observation epochs over ~8 years (days)
KEPLER_MEAN_ITERS = 2.838  # Newton steps per (orbit, time) at the default size (_kepler_iterations; 1139
#                            of the 16.8M stop at the cap of 20, stalled by float32 rounding near periastron)
CHEB_COEFFS, CHEB_A, CHEB_B = 64, -1.0, 3.0


# ---- inputs and references ----------------------------------------------------------------------
def _adam_step_size():
    a = ADAM
    return a["lr"] * np.sqrt(1 - a["b2"] ** a["step"]) / (1 - a["b1"] ** a["step"])


def _adam_inputs(n, rng):
    a = ADAM
    return {"p": _signed(rng, n, np.float32), "m": (0.01 * _signed(rng, n, np.float64)).astype(np.float32),
            "v": (1e-4 * _positive(rng, n, np.float64)).astype(np.float32),
            "g": (a["grad_scale"] * 0.01 * _signed(rng, n, np.float64)).astype(np.float32),
            "b1": np.float32(a["b1"]), "b2": np.float32(a["b2"]), "eps": np.float32(a["eps"]),
            "grad_scale": np.float32(a["grad_scale"]), "step_size": np.float32(_adam_step_size()),
            "tsize": np.uint64(n), "mode": np.int32(1), "decay": np.float32(a["decay"])}


def _adam_ref(d):
    f = {k: float(d[k]) for k in ("b1", "b2", "eps", "grad_scale", "step_size", "decay")}
    p, m, v = (d[k].astype(np.float64) for k in "pmv")
    s = d["g"].astype(np.float64) / f["grad_scale"]
    m = f["b1"] * m + (1 - f["b1"]) * s
    v = f["b2"] * v + (1 - f["b2"]) * s * s
    return p - f["step_size"] * (m / (np.sqrt(v) + f["eps"]) + f["decay"] * p)


def _rope_launch(n):  # llama.cpp: block (1, 256), grid (rows, ceil(ne0 / 512))
    return (n * ROPE_HEADS, _blocks(ROPE_DIM, 2 * ROPE_BLOCK), 1), (1, ROPE_BLOCK, 1), 0


def _rope_inputs(n, rng):
    rows = n * ROPE_HEADS * ROPE_DIM
    i32 = np.int32
    return {"x": _signed(rng, rows, np.float32), "dst": _nan(rows), "ne0": i32(ROPE_DIM), "ne1": i32(ROPE_HEADS),
            "s1": i32(ROPE_DIM), "s2": i32(ROPE_HEADS * ROPE_DIM), "n_dims": i32(ROPE_DIM),
            "pos": (np.arange(n) % ROPE_SEQ).astype(np.int32), "freq_scale": np.float32(1.0),
            "ext_factor": np.float32(0.0), "attn_factor": np.float32(1.0), "corr_low": np.float32(0.0),
            "corr_high": np.float32(0.0), "theta_scale": np.float32(10000.0 ** (-2.0 / ROPE_DIM))}


def _rope_ref(d):
    """theta = pos * theta_scale^i rounded to float32 as the kernel rounds it (powf, then the
    product), its cosine and sine in float64."""
    half = int(d["n_dims"]) // 2
    x = d["x"].astype(np.float64).reshape(len(d["pos"]), -1, 2, half)
    powers = np.power(d["theta_scale"], np.arange(half, dtype=np.float32))
    theta = (d["pos"].astype(np.float32)[:, None] * powers[None, :]).astype(np.float64)[:, None, :]
    c, s = np.cos(theta), np.sin(theta)
    x0, x1 = x[:, :, 0, :], x[:, :, 1, :]
    return np.stack([x0 * c - x1 * s, x0 * s + x1 * c], axis=2).ravel()


def _nv12_matrix():
    """The Video Codec SDK's SetMatYuv2Rgb for BT.709 in float32: every coefficient scaled by
    255 / (235 - 16), the luma range's factor (the chroma terms too, as the SDK scales them)."""
    wr, wb, black, white, top = 0.2126, 0.0722, 16, 235, 255
    wr, wb = np.float32(wr), np.float32(wb)
    one, half = np.float32(1), np.float32(0.5)
    mat = np.array([[one, 0, (one - wr) / half],
                    [one, -wb * (one - wb) / half / (one - wb - wr), -wr * (one - wr) / half / (one - wb - wr)],
                    [one, (one - wb) / half, 0]], np.float32)
    return (1.0 * top / (white - black) * mat.astype(np.float64)).astype(np.float32)


def _nv12_inputs(n, rng):
    h = _nv12_height(n)
    return {"dpNv12": rng.integers(0, 256, n * h * 3 // 2, dtype=np.uint8), "nNv12Pitch": np.int32(n),
            "dpBgra": np.full(4 * n * h, 0xAA, np.uint8), "nBgraPitch": np.int32(4 * n), "nWidth": np.int32(n),
            "nHeight": np.int32(h), "matYuv2Rgb": _nv12_matrix().ravel()}


def _nv12_ref(d):
    w, h = int(d["nWidth"]), int(d["nHeight"])
    src = d["dpNv12"]
    y = src[:w * h].reshape(h, w).astype(np.float64) - 16
    uv = src[w * h:].reshape(h // 2, w // 2, 2).astype(np.float64) - 128
    uv = uv.repeat(2, axis=0).repeat(2, axis=1)
    m = d["matYuv2Rgb"].astype(np.float64).reshape(3, 3)
    yuv = np.stack([y, uv[:, :, 0], uv[:, :, 1]], axis=2)
    rgb = np.trunc(np.clip(yuv @ m.T, 0.0, 255.0))
    return np.stack([rgb[:, :, 2], rgb[:, :, 1], rgb[:, :, 0], np.zeros((h, w))], axis=2).ravel()  # B, G, R, 0


def _focal_launch(n):  # mmcv: GET_BLOCKS(N) = min(ceil(N / 512), 4096) blocks of 512
    return (min(4096, _blocks(n * FOCAL_CLASSES, 512)), 1, 1), (512, 1, 1), 0


def _focal_inputs(n, rng):
    total = n * FOCAL_CLASSES
    labels = rng.integers(0, FOCAL_CLASSES, n)
    target = np.where(rng.random(n) < 0.9, FOCAL_CLASSES, labels).astype(np.int64)  # 90% background anchors
    return {"nthreads": np.int32(total), "input": (rng.standard_normal(total, dtype=np.float32) * 2.0 - 3.0),
            "target": target, "output": _nan(total), "gamma": np.float32(FOCAL_GAMMA),
            "alpha": np.float32(FOCAL_ALPHA), "num_classes": np.int32(FOCAL_CLASSES)}


def _focal_ref(d):
    c = int(d["num_classes"])
    tiny = float(np.finfo(np.float32).tiny)
    gamma, alpha = float(d["gamma"]), float(d["alpha"])
    out = np.empty(len(d["input"]))
    rows = len(d["target"])
    for s in range(0, rows, 65536):  # in anchor chunks: no float64 copy of the whole tensor
        x = d["input"][s * c:(s + 65536) * c].astype(np.float64).reshape(-1, c)
        hit = d["target"][s:s + 65536, None] == np.arange(c)[None, :]
        p = 1.0 / (1.0 + np.exp(-x))
        term_p = (1.0 - p) ** gamma * np.log(np.maximum(p, tiny))
        term_n = p ** gamma * np.log(np.maximum(1.0 - p, tiny))
        out[s * c:(s + 65536) * c] = np.where(hit, -alpha * term_p, -(1.0 - alpha) * term_n).ravel()
    return out


def _fft_stage_ref(d):
    n, ns = int(d["N"]), int(d["Ns"])
    x = d["data0"].astype(np.float64).reshape(-1, 2)
    z = x[:, 0] + 1j * x[:, 1]
    j = np.arange(n // 2)
    v0 = z[:n // 2]
    v1 = z[n // 2:] * np.exp(-2j * np.pi * (j % ns) / (2 * ns))
    dst = (j // ns) * ns * 2 + j % ns
    out = np.empty(n, complex)
    out[dst], out[dst + ns] = v0 + v1, v0 - v1
    return np.stack([out.real, out.imag], axis=1).ravel()


def _softmax_bwd_inputs(n, rng):
    cols = SOFTMAX_COLS
    y = np.empty(n * cols, np.float32)
    for s in range(0, n, 8192):  # softmax of N(0, 2^2) logits, in row chunks
        x = (2.0 * rng.standard_normal((min(8192, n - s), cols))).astype(np.float64)
        e = np.exp(x - x.max(axis=1, keepdims=True))
        y[s * cols:(s + len(x)) * cols] = (e / e.sum(axis=1, keepdims=True)).ravel()
    return {"output": y, "grad_output": _signed(rng, n * cols, np.float32), "grad_input": _nan(n * cols),
            "classes": np.int32(cols)}


def _softmax_bwd_ref(d):
    cols = int(d["classes"])
    out = np.empty(len(d["output"]))
    for s in range(0, len(out), 8192 * cols):  # in row chunks
        y = d["output"][s:s + 8192 * cols].astype(np.float64).reshape(-1, cols)
        dy = d["grad_output"][s:s + 8192 * cols].astype(np.float64).reshape(-1, cols)
        out[s:s + 8192 * cols] = (y * (dy - (dy * y).sum(axis=1, keepdims=True))).ravel()
    return out


def _coulomb_inputs(n, rng):
    """Atoms uniform over the slice's n x n footprint, 1 - 20 angstrom above or below it (x, y, dz^2,
    q: the host's layout), charges signed in [0.25, 1); the map holds the previous chunks' sums."""
    atoms = _coulomb_atoms(n)
    side = n * COULOMB_SPACING
    info = np.zeros((COULOMB_MAX_ATOMS, 4), np.float32)
    info[:atoms, 0:2] = rng.random((atoms, 2)) * side
    info[:atoms, 2] = rng.uniform(1.0, 20.0, atoms) ** 2
    info[:atoms, 3] = _signed(rng, atoms, np.float32)
    return {"numatoms": np.int32(atoms), "gridspacing": np.float32(COULOMB_SPACING),
            "energygrid": _signed(rng, n * n, np.float32), "atominfo": info.ravel()}


def _coulomb_ref(d):
    atoms = int(d["numatoms"])
    info = d["atominfo"].reshape(-1, 4)[:atoms].astype(np.float64)
    n = int(round(np.sqrt(len(d["energygrid"]))))
    coord = np.arange(n) * float(d["gridspacing"])
    dx2 = (coord[:, None] - info[None, :, 0]) ** 2  # (x, atom)
    dyz2 = (coord[:, None] - info[None, :, 1]) ** 2 + info[None, :, 2]  # (y, atom)
    out = d["energygrid"].astype(np.float64).reshape(n, n).copy()
    for y in range(n):
        out[y] += (info[:, 3] / np.sqrt(dx2 + dyz2[y])).sum(axis=1)
    return out.ravel()


def _cdist_ref(d):
    m, n, k = int(d["m"]), int(d["n"]), int(d["d"])
    x = d["X"].astype(np.float64).reshape(m, k)
    y = d["Y"].astype(np.float64).reshape(n, k)
    y2 = (y * y).sum(axis=1)
    out = np.empty((m, n))
    for s in range(0, m, 1024):  # ||x||^2 + ||y||^2 - 2 x.y in float64, in row chunks
        xs = x[s:s + 1024]
        out[s:s + 1024] = np.sqrt(np.maximum((xs * xs).sum(axis=1)[:, None] + y2[None, :] - 2.0 * xs @ y.T, 0.0))
    return out.ravel()


def _philox(ctr, key):
    """Philox4x32-10 on uint32 arrays (Random123's rounds; the multiplies done in uint64)."""
    m0, m1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    w0, w1 = np.uint32(0x9E3779B9), np.uint32(0xBB67AE85)
    c0, c1, c2, c3 = (c.astype(np.uint32) for c in ctr)
    k0, k1 = np.uint32(key[0]), np.uint32(key[1])
    for r in range(10):
        if r:
            with np.errstate(over="ignore"):  # the Weyl bumps wrap
                k0, k1 = k0 + w0, k1 + w1
        p0 = m0 * c0.astype(np.uint64)
        p1 = m1 * c2.astype(np.uint64)
        hi0, lo0 = (p0 >> np.uint64(32)).astype(np.uint32), p0.astype(np.uint32)
        hi1, lo1 = (p1 >> np.uint64(32)).astype(np.uint32), p1.astype(np.uint32)
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    return c0, c1, c2, c3


def _philox_ref(d):
    """Float4 i is drawn by thread i mod T on its (i div T)-th pass, T the launch's thread count."""
    n4 = int(d["n4"])
    seed, offset = int(d["seed"]), int(d["offset"])
    threads = _philox_threads(4 * n4)
    i = np.arange(n4, dtype=np.int64)
    counter = offset + i // threads
    words = _philox((counter & 0xFFFFFFFF, counter >> 32, i % threads, np.zeros(n4, np.int64)),
                    (seed & 0xFFFFFFFF, seed >> 32))
    scale = float(np.float32(2.3283064e-10))
    half = float(np.float32(np.float32(2.3283064e-10) / np.float32(2.0)))
    u = [(w.astype(np.float32).astype(np.float64) * scale + half).astype(np.float32) for w in words]
    return np.stack(u, axis=1).astype(np.float64).ravel()


def _thomas_inputs(n, rng):
    size = THOMAS_SIZE * n
    return {"a": _signed(rng, size, np.float64), "b": 4.0 + _positive(rng, size, np.float64),
            "c": _signed(rng, size, np.float64), "d": _signed(rng, size, np.float64),
            "x": np.full(size, np.nan), "system_size": np.int32(THOMAS_SIZE), "num_systems": np.int32(n)}


def _thomas_ref(d):
    m, ns = int(d["system_size"]), int(d["num_systems"])
    a, b = d["a"].reshape(m, ns), d["b"].reshape(m, ns)
    c, r = d["c"].reshape(m, ns).copy(), d["d"].reshape(m, ns).copy()
    c[0] /= b[0]
    r[0] /= b[0]
    for i in range(1, m):
        tmp = b[i] - a[i] * c[i - 1]
        c[i] /= tmp
        r[i] = (r[i] - a[i] * r[i - 1]) / tmp
    x = np.empty((m, ns))
    x[-1] = r[-1]
    for i in range(m - 2, -1, -1):
        x[i] = r[i] - c[i] * x[i + 1]
    return x.ravel()


def _crc_table():
    t = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        t = np.where(t & 1, (t >> np.uint32(1)) ^ np.uint32(0xEDB88320), t >> np.uint32(1)).astype(np.uint32)
    return t


def _crc_ref(d):
    recs = d["data"].astype("<u4").reshape(int(d["num_records"]), -1)
    return np.array([zlib.crc32(r.tobytes()) for r in recs], np.float64)


def _attn_inputs(n, rng):
    dim = ATTN_HEADS * ATTN_HEAD_SIZE
    i32 = np.int32
    return {"pos": i32(n - 1), "seq_len": i32(n), "sq": _signed(rng, dim, np.float32),
            "satt": _nan(ATTN_HEADS * n), "sxb": _nan(dim), "key_cache": _signed(rng, n * dim, np.float32),
            "value_cache": _signed(rng, n * dim, np.float32), "kv_dim": i32(dim), "kv_mul": i32(1),
            "head_size": i32(ATTN_HEAD_SIZE), "loff": i32(0)}


def _attn_ref(d):
    n, hs = int(d["pos"]) + 1, int(d["head_size"])
    q = d["sq"].astype(np.float64).reshape(-1, hs)  # (head, i)
    k = d["key_cache"][:n * len(d["sq"])].astype(np.float64).reshape(n, -1, hs)  # (t, head, i)
    v = d["value_cache"][:n * len(d["sq"])].astype(np.float64).reshape(n, -1, hs)
    score = np.einsum("hi,thi->ht", q, k) / np.sqrt(hs)
    a = np.exp(score - score.max(axis=1, keepdims=True))
    a /= a.sum(axis=1, keepdims=True)
    return np.einsum("ht,thi->hi", a, v).ravel()


def _coo_inputs(n, rng):
    """An n x n matrix with 16n nonzeros, each in a uniform random row and column (row lengths
    Poisson(16)), sorted by row as a COO matrix converted from CSR is; y zeroed."""
    nnz = SPMV_NNZ_PER_ROW * n
    return {"rowIdx": np.sort(rng.integers(0, n, nnz)).astype(np.uint32),
            "colIdx": rng.integers(0, n, nnz).astype(np.uint32), "value": _signed(rng, nnz, np.float32),
            "numNonzeros": np.uint32(nnz), "x": _signed(rng, n, np.float32), "y": np.zeros(n, np.float32)}


def _coo_ref(d):
    prod = d["value"].astype(np.float64) * d["x"].astype(np.float64)[d["colIdx"]]
    return d["y"].astype(np.float64) + np.bincount(d["rowIdx"], weights=prod, minlength=len(d["y"]))


def _kepler_inputs(n, rng):
    """n posterior samples of one planet: periods log-uniform in 5 - 500 days, times of periastron
    within a period, eccentricities from Kipping's (2013) Beta(0.867, 3.03) below 0.95, arguments of
    periastron uniform, semi-amplitudes 1 - 100 m/s; 1024 sorted observation times over 3000 days."""
    f32 = np.float32
    period = np.exp(rng.uniform(np.log(5.0), np.log(500.0), n))
    return {"t": np.sort(rng.uniform(0.0, KEPLER_SPAN, KEPLER_TIMES)).astype(f32), "period": period.astype(f32),
            "tp": (rng.random(n) * period).astype(f32), "ecc": np.minimum(rng.beta(0.867, 3.03, n), 0.95).astype(f32),
            "omega": rng.uniform(-np.pi, np.pi, n).astype(f32), "K": rng.uniform(1.0, 100.0, n).astype(f32),
            "rv": _nan(n * KEPLER_TIMES), "n_times": np.int32(KEPLER_TIMES), "n_orbits": np.int32(n)}


def _kepler_mean_anomaly(d):
    """M as the kernel rounds it in float32 (IEEE subtraction and division, floorf, one product)."""
    t, tp, per = d["t"][None, :], d["tp"][:, None], d["period"][:, None]
    phase = ((t - tp) / per).astype(np.float32)
    return np.float32(6.28318530717958647692) * (phase - np.floor(phase))


def _kepler_eccentric_anomaly(d):
    """Kepler's equation solved to float64 precision from the kernel's float32 mean anomaly."""
    M = _kepler_mean_anomaly(d).astype(np.float64)
    e = d["ecc"].astype(np.float64)[:, None]
    E = np.where(e > 0.8, np.pi, M)
    for _ in range(50):  # Newton from M (or pi for e > 0.8) converges for every e < 1
        step = (E - e * np.sin(E) - M) / (1.0 - e * np.cos(E))
        E = E - step
        if np.abs(step).max() < 1e-9:  # quadratic convergence: one more step reaches float64's precision
            return E - (E - e * np.sin(E) - M) / (1.0 - e * np.cos(E))
    return E


def _kepler_ref(d):
    E = _kepler_eccentric_anomaly(d)
    e = d["ecc"].astype(np.float64)[:, None]
    f = 2.0 * np.arctan2(np.sqrt(1.0 + e) * np.sin(0.5 * E), np.sqrt(1.0 - e) * np.cos(0.5 * E))
    w = d["omega"].astype(np.float64)[:, None]
    return (d["K"].astype(np.float64)[:, None] * (np.cos(f + w) + e * np.cos(w))).ravel()


def _kepler_iterations(d):
    """The kernel's Newton steps per (orbit, time), by the same loop in float32 (numpy's sine and
    cosine for sincosf): how FLOP counts are weighted."""
    M = _kepler_mean_anomaly(d)
    e = np.broadcast_to(d["ecc"][:, None], M.shape).astype(np.float32)
    E = M + np.copysign(np.float32(0.85) * e, np.sin(M))
    steps = np.zeros(M.shape, np.int32)
    live = np.ones(M.shape, bool)
    for _ in range(20):
        dE = (E - e * np.sin(E) - M) / (np.float32(1) - e * np.cos(E))
        E = np.where(live, E - dE, E)
        steps += live
        live &= np.abs(dE) >= np.float32(1e-6)
    return steps


def _sort32_ref(d):
    k = d["keys"].astype(np.float64)
    whole = len(k) // 32 * 32
    return np.concatenate([np.sort(k[:whole].reshape(-1, 32), axis=1).ravel(), np.sort(k[whole:])])


def _cheb_inputs(n, rng):
    return {"x": rng.uniform(CHEB_A, CHEB_B, n).astype(np.float32), "y": _nan(n), "n": np.int32(n),
            "m": np.int32(CHEB_COEFFS), "a": np.float64(CHEB_A), "b": np.float64(CHEB_B),
            "c_cheb": np.concatenate([rng.standard_normal(CHEB_COEFFS) * 0.8 ** np.arange(CHEB_COEFFS),
                                      np.zeros(128 - CHEB_COEFFS)])}


def _cheb_ref(d):
    m, a, b = int(d["m"]), float(d["a"]), float(d["b"])
    c = d["c_cheb"]
    out = np.empty(len(d["x"]))
    for s in range(0, len(out), 1 << 16):  # in cache-sized chunks
        t = (2.0 * d["x"][s:s + (1 << 16)].astype(np.float64) - a - b) / (b - a)
        dd, dv = np.zeros_like(t), np.zeros_like(t)
        for j in range(m - 1, 0, -1):
            dv, dd = 2.0 * t * dv - dd + c[j], dv
        out[s:s + (1 << 16)] = t * dv - dd + 0.5 * c[0]
    return out


# ---- the fourth held-out set --------------------------------------------------------------------
def _B(n, b):  # one thread per item, b-thread blocks
    return (_blocks(n, b), 1, 1), (b, 1, 1), 0


CORPUS: list[CorpusKernel] = [
    # 2^25 parameters (a 33M-parameter model): p, m, v, g read, p, m, v written, 28 bytes each: 940 MB, >= 310 us
    entry("adam_fused_step", "holdout4/adam_fused.cu", "adam_cuda_kernel",
          "fused Adam optimizer step (apex), moments in place, grid stride", 1 << 25,
          lambda n, sms: _B(n, 512), _adam_inputs, "p", _adam_ref,
          lambda n: 17.0 * n, lambda n: 28.0 * n, rtol=1e-6,
          inputs_desc="p: signed; m: 0.01 x signed; v: 1e-4 x [0.5, 1.5); g: scaled by 1024 (grad_scale), "
                      "0.01 x signed; lr 1e-3 at step 10 (bias-corrected step size); eps outside the root; "
                      "decay 0.01"),
    # 8192 tokens x 32 heads x 128: 134 MB in, 134 MB out, >= 90 us at 3 TB/s; a powf, cosf and sinf per pair,
    # and 262144 blocks of which each runs 64 of its 256 threads (a head of 128 is 64 pairs)
    entry("rope_neox", "holdout4/rope_neox.cu", "rope_neox_f32",
          "rotary position embedding, NeoX pairs (llama.cpp), powf + sincos", 8192,
          lambda n, sms: _rope_launch(n), _rope_inputs, "dst", _rope_ref,
          lambda n: 13.0 * n * ROPE_HEADS * ROPE_DIM / 2, lambda n: 8.0 * n * ROPE_HEADS * ROPE_DIM + 4.0 * n,
          rtol=1e-3,
          inputs_desc="x: n tokens x 32 heads x 128, signed; positions 0..2047 (sequences of 2048); base 10000, "
                      "no YaRN; powf's few-ulp error times positions up to 2047 (tolerance 1e-3)"),
    # an 8K UHD frame (7680 x 4320): 50 MB of NV12 in, 133 MB of BGRA out, >= 60 us at 3 TB/s
    entry("nv12_to_bgra", "holdout4/nv12_to_bgra.cu", "Nv12ToBgra32",
          "NV12 to BGRA32 color conversion, 2x2 pixels per thread (Video SDK)", 7680,
          lambda n, sms: ((_blocks(n, 64), _blocks(_nv12_height(n), 4), 1), (32, 2, 1), 0),
          _nv12_inputs, "dpBgra", _nv12_ref,
          lambda n: 15.0 * n * _nv12_height(n), lambda n: 5.5 * n * _nv12_height(n) + 36.0, rtol=0.004,
          constants=("matYuv2Rgb",),
          inputs_desc="an n x 9/16 n NV12 frame of uniform random bytes, pitch = width; BT.709 limited-range "
                      "matrix in __constant__; a channel at an integer boundary may truncate one lower "
                      "(tolerance 1/255)"),
    # 2^20 anchors x 80 classes: 336 MB of logits in, 336 MB of losses out, >= 225 us at 3 TB/s; an expf, two
    # powf and two logf per element (84M)
    entry("sigmoid_focal_loss", "holdout4/sigmoid_focal_loss.cu", "sigmoid_focal_loss_forward_cuda_kernel",
          "sigmoid focal loss forward (mmcv), powf + logf per element", 1 << 20,
          lambda n, sms: _focal_launch(n), _focal_inputs, "output", _focal_ref,
          lambda n: 18.0 * n * FOCAL_CLASSES, lambda n: 8.0 * n * FOCAL_CLASSES + 8.0 * n, rtol=1e-4,
          inputs_desc="input: n x 80 logits, N(-3, 2^2); target: int64, 90% background (80), else uniform "
                      "0..79; gamma 2, alpha 0.25; 1 - p in float32 loses digits at the largest logits "
                      "(tolerance 1e-4)"),
    # 2^25 complex points: 268 MB in, 268 MB out, >= 180 us at 3 TB/s; one sincosf per point
    entry("fft_stockham_radix2", "holdout4/fft_stockham_radix2.cu", "FftIteration",
          "one radix-2 Stockham FFT stage, out of place, sincosf twiddles", 1 << 25,
          lambda n, sms: _B(n // 2, 256),
          lambda n, rng: {"data0": _signed(rng, 2 * n, np.float32), "data1": _nan(2 * n), "N": np.int32(n),
                          "Ns": np.int32(min(FFT_NS, n // 8))},
          "data1", _fft_stage_ref, lambda n: 12.0 * n, lambda n: 16.0 * n, rtol=1e-5,
          inputs_desc="data0: n complex floats (interleaved), signed parts; the stage Ns = 4096 (n / 8 below "
                      "n = 32768)"),
    # 65536 rows x 1024 (4 x 16 heads x 1024 queries): y, dy read, dx written: 805 MB, >= 270 us at 3 TB/s
    entry("softmax_backward", "holdout4/softmax_backward.cu", "softmax_backward_rows",
          "softmax backward, block per row, dot(dy, y) by block reduction", 1 << 16,
          lambda n, sms: ((n, 1, 1), (256, 1, 1), 0), _softmax_bwd_inputs, "grad_input", _softmax_bwd_ref,
          lambda n: 4.0 * n * SOFTMAX_COLS, lambda n: 12.0 * n * SOFTMAX_COLS, rtol=1e-5,
          inputs_desc="output: row softmax of N(0, 2^2) logits; grad_output: signed; n rows x 1024"),
    # a 512 x 512 slice and 4000 atoms: 1.05G rsqrtf (16 per SM per clock on the H100), >= 250 us
    entry("coulomb_dcs", "holdout4/coulomb_dcs.cu", "cenergy",
          "direct Coulomb summation, atoms in __constant__, 4 points per thread", 512,
          lambda n, sms: ((n // 64, n // 16, 1), (16, 16, 1), 0), _coulomb_inputs, "energygrid", _coulomb_ref,
          lambda n: 6.75 * _coulomb_atoms(n) * n * n, lambda n: 8.0 * n * n + 16.0 * _coulomb_atoms(n), rtol=1e-4,
          constants=("atominfo",),
          inputs_desc="n x n slice at 0.5 A, n a multiple of 64; 4000 atoms (n/2 below n = 256) uniform over "
                      "it, 1-20 A off the plane, charges signed; energygrid: signed (the previous chunks')"),
    # 8192 x 8192 distances over 64 features: 4.3G squared differences, two shared loads each; 268 MB written
    entry("cdist_tiled", "holdout4/cdist_tiled.cu", "cdist_tiled",
          "pairwise Euclidean distances (cdist), 16x16 shared tiles, sqrtf", 8192,
          lambda n, sms: ((_blocks(n, 16), _blocks(n, 16), 1), (16, 16, 1), 0),
          lambda n, rng: {"X": _signed(rng, n * CDIST_DIM, np.float32), "Y": _signed(rng, n * CDIST_DIM, np.float32),
                          "D": _nan(n * n), "m": np.int32(n), "n": np.int32(n), "d": np.int32(CDIST_DIM)},
          "D", _cdist_ref, lambda n: 3.0 * n * n * CDIST_DIM + n * n, lambda n: 8.0 * n * CDIST_DIM + 4.0 * n * n,
          rtol=1e-5, inputs_desc="X, Y: n x 64 signed"),
    # 2^26 uniforms: 268 MB written, >= 90 us at 3 TB/s; ten rounds of 2 IMAD.HI + 2 IMAD per 4 floats
    entry("philox_uniform", "holdout4/philox_uniform.cu", "philox_uniform4",
          "Philox4x32-10 counter RNG, uniform float4 fill, grid stride", 1 << 26,
          lambda n, sms: ((_philox_threads(n) // 256, 1, 1), (256, 1, 1), 0),
          lambda n, rng: {"out": _nan(n), "n4": np.int32(n // 4), "seed": np.uint64(PHILOX_SEED),
                          "offset": np.uint64(PHILOX_OFFSET)},
          "out", _philox_ref, lambda n: 2.0 * n, lambda n: 4.0 * n, rtol=1e-6,
          inputs_desc="n a multiple of 4; seed and offset fixed; the grid PyTorch's launch gives an H100 "
                      "(at most 1056 blocks of 256) whatever the simulated SM count"),
    # 32768 systems of 512 in double: 940 MB (a, b, c, d in; c, d, x out), but only 32768 threads (8 warps per SM)
    # walking 2 x 512 dependent steps, with two double divisions per forward step: latency-bound, ~1 ms
    entry("thomas_batched_f64", "holdout4/thomas_batched.cu", "thomas_batched",
          "batched tridiagonal solve (Thomas), thread per system, FP64", 1 << 15,
          lambda n, sms: _B(n, 128), _thomas_inputs, "x", _thomas_ref,
          lambda n: 8.0 * THOMAS_SIZE * n, lambda n: 56.0 * THOMAS_SIZE * n, rtol=1e-10,
          inputs_desc="n systems of 512, interleaved; a, c, d signed; b in [4.5, 5.5) (diagonally dominant); "
                      "c and d overwritten"),
    # 65536 records of 4 KB: 268 MB, >= 90 us at 3 TB/s; 4 dependent shared-table lookups per word on 256 blocks
    entry("crc32_records", "holdout4/crc32_records.cu", "crc32_records",
          "CRC-32 per record, byte table in shared memory (Sarwate)", 1 << 16,
          lambda n, sms: _B(n, 256),
          lambda n, rng: {"data": rng.integers(0, 1 << 32, n * CRC_WORDS, dtype=np.uint32), "table": _crc_table(),
                          "crc_out": np.zeros(n, np.uint32), "num_records": np.int32(n),
                          "words_per_record": np.int32(CRC_WORDS)},
          "crc_out", _crc_ref, lambda n: 0.0, lambda n: 4.0 * CRC_WORDS * n + 1024.0 + 4.0 * n, rtol=0.0,
          inputs_desc="n records of 4096 uniform random bytes; the zlib polynomial's table; against zlib.crc32"),
    # 2^25 floats sorted in place in runs of 32: 268 MB, >= 90 us at 3 TB/s; 15 shuffles per key
    entry("warp_bitonic_sort32", "holdout4/warp_bitonic_sort.cu", "warp_bitonic_sort32",
          "bitonic sort of 32 keys per warp, __shfl_xor_sync, in registers", 1 << 25,
          lambda n, sms: _B(n, 256), lambda n, rng: {"keys": _signed(rng, n, np.float32), "n": np.int32(n)},
          "keys", _sort32_ref,
          lambda n: 0.0, lambda n: 8.0 * n, rtol=0.0,
          inputs_desc="keys: signed, sorted in place in runs of 32 (a last partial run among itself)"),
    # Llama-2-7B decoding at position 4095: one layer's K and V caches, 134 MB, read by only 32 blocks (one per
    # head): each key row by one thread, then each value column walked by 128 threads over 4096 steps:
    # latency-bound, hundreds of us
    entry("attention_decode_llama2c", "holdout4/attention_decode.cu", "multi_head_attention_kernel",
          "single-token attention decode, block per head, KV cache (llama2.c)", 4096,
          lambda n, sms: ((ATTN_HEADS, 1, 1), (1024, 1, 1), 0), _attn_inputs, "sxb", _attn_ref,
          lambda n: (2.0 * ATTN_HEAD_SIZE + 2 + 4 + 2.0 * ATTN_HEAD_SIZE) * ATTN_HEADS * n,
          lambda n: 8.0 * n * ATTN_HEADS * ATTN_HEAD_SIZE + 8.0 * ATTN_HEADS * ATTN_HEAD_SIZE + 4.0 * ATTN_HEADS * n,
          rtol=1e-4,
          inputs_desc="q, K and V caches (n timesteps x 4096): signed; pos = n - 1, seq_len = n; satt (the "
                      "scores) and sxb poisoned"),
    # 2^21 rows, 2^25 nonzeros: 403 MB of (row, col, value) triples, >= 135 us at 3 TB/s; 33.5M float atomics into
    # an 8 MB y (in L2), the 32 lanes of a warp on 2 - 3 rows
    entry("spmv_coo_atomic", "holdout4/spmv_coo_atomic.cu", "spmv_coo_kernel",
          "SpMV, COO sorted by row, thread per nonzero, atomicAdd (PMPP)", 1 << 21,
          lambda n, sms: _B(SPMV_NNZ_PER_ROW * n, 256), _coo_inputs, "y", _coo_ref,
          lambda n: 2.0 * SPMV_NNZ_PER_ROW * n, lambda n: 12.0 * SPMV_NNZ_PER_ROW * n + 8.0 * n, rtol=1e-5,
          inputs_desc="n x n, 16n nonzeros in uniform random rows (sorted) and columns, values and x signed; "
                      "y zeroed"),
    # 16384 posterior samples x 1024 epochs: 16.8M Kepler solves, ~2.8 Newton steps each (a sincosf and a
    # division per step; a warp waits for its slowest lane) and atan2f, sinf and three cosf after: ~200 us;
    # 67 MB written
    entry("kepler_rv_newton", "holdout4/kepler_rv.cu", "kepler_rv",
          "Kepler's equation by Newton per (orbit, time), divergent, 2-D grid", 16384,
          lambda n, sms: ((_blocks(KEPLER_TIMES, 256), n, 1), (256, 1, 1), 0), _kepler_inputs, "rv", _kepler_ref,
          lambda n: (26.0 + 9.0 * KEPLER_MEAN_ITERS) * KEPLER_TIMES * n,
          lambda n: 4.0 * KEPLER_TIMES * n + 4.0 * KEPLER_TIMES + 20.0 * n, rtol=1e-4,
          inputs_desc="n orbit samples (periods 5-500 d log-uniform, e ~ Beta(0.867, 3.03) below 0.95, K 1-100 m/s) "
                      "x 1024 sorted epochs over 3000 d; the reference solves to float64 from the kernel's float32 "
                      "mean anomaly (tolerance 1e-4: the kernel stops at a step below 1e-6)"),
    # 2^25 points, 64 coefficients: 63 steps of a DFMA and a DADD each per point (4.2G FP64 instructions) and a
    # double division, >= 250 us at the H100's FP64 rate (64 per SM per clock); 268 MB of float traffic
    entry("chebyshev_clenshaw_f64", "holdout4/chebyshev_clenshaw.cu", "chebev_f64",
          "Chebyshev series by Clenshaw's recurrence, FP64, __constant__", 1 << 25,
          lambda n, sms: _B(n, 256), _cheb_inputs, "y", _cheb_ref,
          lambda n: (10.0 + 3.0 * (CHEB_COEFFS - 1)) * n, lambda n: 8.0 * n + 8.0 * CHEB_COEFFS, rtol=1e-6,
          constants=("c_cheb",),
          inputs_desc="x: uniform in [-1, 3]; 64 coefficients N(0, 1) x 0.8^k in __constant__ (128 slots); "
                      "float output"),
]

BY_NAME, get = index(CORPUS)

if __name__ == "__main__":
    from cudasim.console import run

    from ..manifest import main
    run(main, CORPUS)
