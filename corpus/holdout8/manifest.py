"""The eighth held-out set: twelve more common CUDA patterns that neither the catalog, the corpus,
the first seven held-out sets nor the wild set have, written as their authors write them (the CUDA
samples' MersenneTwister and dct8x8, CUB's onesweep histogram pass and a CUB-style block scan,
llm.c's register-tiled matmul, llama.cpp's Mamba selective scan, torchvision's RoIAlign, cuDF's
valid_if, SHOC's MD5Hash, XSBench's cross-section lookup, a BSR SpMV and a naive transpose-and-add)
and kept away from the model developers, so that the timing model can be tested out of sample once
more. Five synchronize a block through shared memory (operand slices, the Mamba state, a DCT
macroblock, scan exchanges, digit histograms); one is FP64 with 64-bit integer math and dependent
binary searches (XSBench), three integer-only (MD5, the digit histograms, the Mersenne Twister,
whose indexed state array lives in local memory); RoIAlign's double literals promote part of its
float arithmetic; two use atomics (the digit histograms in shared and global memory, cuDF's valid
count), two warp votes or shuffles (cuDF's ballot, the scan's shfl_up); five are templates reached
by their name expressions.

The same shape as corpus.manifest (CORPUS, BY_NAME, get, SMS; every entry a CorpusKernel made
by corpus.manifest.entry, sources under corpus/holdout8/): each kernel with its launch, seeded
inputs, float64 numpy reference, FLOPs and compulsory bytes (each input element read once, each
output element written once). FLOPs count floating-point +, -, *, / and each math intrinsic as
one, as the source writes them; integer and comparison work counts zero. Every size is chosen for
about 50 us - 3 ms on an H100 (~3 TB/s, ~60 TFLOP/s FP32, ~30 TFLOP/s FP64) and stated with its
reason beside the entry. corpus.measure verifies the first launch and times the later ones on the
same buffers: every kernel here does the same work again on what the first launch left (the
histogram and the valid count add up again, the BSR product updates y in place again; the rest
write outputs they do not read).

    python -m corpus.holdout8.manifest       # the table: pattern, launch, bytes, FLOPs
"""
from __future__ import annotations

import hashlib
import math

import numpy as np

from kernels.catalog import _positive, _signed

from ..manifest import SMS, CorpusKernel, _blocks, _nan, entry, index

__all__ = ["CORPUS", "BY_NAME", "get", "SMS", "CorpusKernel"]

f32, f64, i32, u32, u64 = np.float32, np.float64, np.int32, np.uint32, np.uint64


def _B(n, b):  # one thread per item, b-thread blocks
    return (_blocks(n, b), 1, 1), (b, 1, 1), 0


# ---- CUDA samples MersenneTwister (MT607) --------------------------------------------------------
MT_RNG_COUNT, MT_MM, MT_NN = 4096, 9, 19


def _mt_inputs(n, rng):
    """n = nPerRng; 4096 parameter sets (matrix_a with its top bit set, random tempering masks and
    seeds) in place of the dynamic creator's MersenneTwister.dat."""
    params = rng.integers(0, 1 << 32, (MT_RNG_COUNT, 4), dtype=np.uint64).astype(u32)
    params[:, 0] |= u32(0x80000000)
    return {"d_Random": _nan(MT_RNG_COUNT * n), "nPerRng": i32(n), "ds_MT": params.ravel()}


def _mt_ref(d):
    n = int(d["nPerRng"])
    p = d["ds_MT"].reshape(-1, 4).astype(np.uint64)
    M32 = np.uint64(0xFFFFFFFF)
    mt = np.zeros((MT_NN, MT_RNG_COUNT), np.uint64)
    mt[0] = p[:, 3]
    for s in range(1, MT_NN):
        mt[s] = (np.uint64(1812433253) * (mt[s - 1] ^ (mt[s - 1] >> np.uint64(30))) + np.uint64(s)) & M32
    out = np.empty((n, MT_RNG_COUNT), f32)
    state, mti1 = 0, mt[0].copy()
    for it in range(n):
        s1, sm = (state + 1) % MT_NN, (state + MT_MM) % MT_NN
        mti, mti1, mtim = mti1, mt[s1].copy(), mt[sm]
        x = (mti & np.uint64(0xFFFFFFFE)) | (mti1 & np.uint64(1))
        x = mtim ^ (x >> np.uint64(1)) ^ np.where(x & np.uint64(1), p[:, 0], np.uint64(0))
        mt[state] = x
        state = s1
        x = x ^ (x >> np.uint64(12))
        x = x ^ ((x << np.uint64(7)) & p[:, 1] & M32)
        x = x ^ ((x << np.uint64(15)) & p[:, 2] & M32)
        x = x ^ (x >> np.uint64(18))
        out[it] = (x.astype(f32) + f32(1.0)) / f32(4294967296.0)
    return out.ravel().astype(f64)


# ---- CUB onesweep radix histogram ----------------------------------------------------------------
RH_THREADS, RH_ITEMS = 128, 16
RH_BLOCKS_PER_SM = 16  # 128 threads and 4 KB of shared memory a block: 16 resident per SM


def _rh_launch(n, sms):
    return (min(RH_BLOCKS_PER_SM * sms, _blocks(n, RH_THREADS * RH_ITEMS)), 1, 1), (RH_THREADS, 1, 1), 0


def _rh_inputs(n, rng):
    return {"d_bins_out": np.zeros(4 * 256, u32), "d_keys_in": rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(u32),
            "num_items": i32(n), "begin_bit": i32(0), "end_bit": i32(32)}


def _rh_ref(d):
    k = d["d_keys_in"]
    return np.concatenate([np.bincount((k >> u32(8 * p)) & u32(0xFF), minlength=256) for p in range(4)]).astype(f64)


# ---- llm.c matmul_forward_kernel4 ----------------------------------------------------------------
def _mm_dims(n):
    """(C, OC): GPT-2 small's MLP up-projection (768 -> 3072); 64 -> 256 for the simulator's sizes."""
    return (768, 3072) if n >= 1024 else (64, 256)


def _mm_inputs(n, rng):
    C, OC = _mm_dims(n)
    return {"out": _nan(n * OC), "inp": _signed(rng, n * C, f32), "weight": (0.02 * _signed(rng, OC * C, f32)),
            "bias": _signed(rng, OC, f32), "C": i32(C), "OC": i32(OC)}


def _mm_ref(d):
    C, OC = int(d["C"]), int(d["OC"])
    x = d["inp"].astype(f64).reshape(-1, C)
    return (x @ d["weight"].astype(f64).reshape(OC, C).T + d["bias"].astype(f64)).ravel()


# ---- llama.cpp ssm_scan_f32 (Mamba) --------------------------------------------------------------
SSM_N, SSM_SPLIT = 16, 128  # d_state and splitD


def _ssm_dims(L):
    """(sequences, d_inner): 16 sequences of Mamba-130m's 1536 channels; 2 x 256 when small."""
    return (16, 1536) if L >= 64 else (2, 256)


def _ssm_inputs(L, rng):
    """x, B, C standard normal; dt before softplus log(expm1(u)) for u log-uniform in [1e-3, 1e-1]
    (Mamba's dt_bias init) plus N(0, 0.5^2) and one in a thousand at 25 (over the softplus cut);
    A = -(1..16) per channel (S4D-real), times 1 +- 10%; the initial state N(0, 0.1^2)."""
    S, D, N = *_ssm_dims(L), SSM_N
    u = np.exp(rng.uniform(np.log(1e-3), np.log(1e-1), S * L * D))
    dt = np.log(np.expm1(u)) + 0.5 * rng.standard_normal(S * L * D)
    dt[rng.random(S * L * D) < 1e-3] = 25.0
    A = -np.arange(1, N + 1)[None, :] * rng.uniform(0.9, 1.1, (D, N))
    nb = lambda *dims: [i32(4 * math.prod(dims[:k])) for k in range(1, len(dims) + 1)]  # noqa: E731
    s0_nb = nb(N, D, S)  # s: {d_state, d_inner, n_seqs}: nb1, nb2
    x_nb = nb(D, L, S)  # x, dt: {d_inner, n_seq_tokens, n_seqs}: nb1, nb2, nb3
    bc_nb = nb(N, L, S)  # B, C: {d_state, n_seq_tokens, n_seqs}
    return {"src0": (0.1 * rng.standard_normal(S * D * N)).astype(f32),
            "src1": rng.standard_normal(S * L * D).astype(f32),
            "src2": dt.astype(f32), "src3": A.astype(f32).ravel(), "src4": rng.standard_normal(S * L * N).astype(f32),
            "src5": rng.standard_normal(S * L * N).astype(f32),
            "src0_nb1": s0_nb[0], "src0_nb2": s0_nb[1], "src1_nb0": i32(4), "src1_nb1": x_nb[0], "src1_nb2": x_nb[1],
            "src1_nb3": x_nb[2], "src2_nb0": i32(4), "src2_nb1": x_nb[0], "src2_nb2": x_nb[1], "src3_nb1": s0_nb[0],
            "src4_nb1": bc_nb[0], "src4_nb2": bc_nb[1], "src5_nb1": bc_nb[0], "src5_nb2": bc_nb[1],
            "dst": _nan(S * L * D + S * D * N), "L": np.int64(L)}


def _ssm_ref(d):
    L = int(d["L"])
    S, D, N = *_ssm_dims(L), SSM_N
    h = d["src0"].astype(f64).reshape(S, D, N)
    x = d["src1"].astype(f64).reshape(S, L, D)
    dt = d["src2"].astype(f64).reshape(S, L, D)
    A = d["src3"].astype(f64).reshape(D, N)
    B = d["src4"].astype(f64).reshape(S, L, N)
    C = d["src5"].astype(f64).reshape(S, L, N)
    y = np.empty((S, L, D))
    for t in range(L):
        sp = np.where(dt[:, t] <= 20.0, np.log1p(np.exp(np.minimum(dt[:, t], 20.0))), dt[:, t])  # (S, D)
        h = h * np.exp(sp[:, :, None] * A[None]) + B[:, t, None, :] * (x[:, t] * sp)[:, :, None]
        y[:, t] = (h * C[:, t, None, :]).sum(axis=2)
    return np.concatenate([y.ravel(), h.ravel()])


def _ssm_flops(L):
    S, D = _ssm_dims(L)
    return float(S * L * D * (3 + 7 * SSM_N))  # softplus (exp, log1p), x * dt; per state 2 mul, exp, 2 mul, 2 add


def _ssm_bytes(L):
    S, D = _ssm_dims(L)
    return 4.0 * (2 * S * D * SSM_N + D * SSM_N + 3 * S * L * D + 2 * S * L * SSM_N)


# ---- torchvision RoIAlign ------------------------------------------------------------------------
RA_POOL, RA_RATIO, RA_SCALE = 7, 2, 0.25  # the box head's 7 x 7 bins, sampling_ratio 2, P2's stride 4


def _ra_dims(R):
    """(images, channels, height, width) of the feature map: FPN's P2 (256 channels, 200 x 200 for
    800 x 800 images) for two images; 16 channels of 50 x 50 when small."""
    return (2, 256, 200, 200) if R >= 64 else (2, 16, 50, 50)


def _ra_inputs(R, rng):
    """R proposals, half on each image (in order), centres uniform over the image, sides
    log-uniform 16-160 pixels (the sizes FPN sends to P2) with aspect ratios 0.5-2, clipped to the
    image; features signed."""
    N, C, H, W = _ra_dims(R)
    size = H / RA_SCALE
    side = np.exp(rng.uniform(np.log(16), np.log(160), R)) * size / 800.0
    ar = np.exp(rng.uniform(np.log(0.5), np.log(2.0), R))
    w, h = side * np.sqrt(ar), side / np.sqrt(ar)
    cx, cy = rng.uniform(0, size, R), rng.uniform(0, size, R)
    boxes = np.stack([np.clip(cx - w / 2, 0, size), np.clip(cy - h / 2, 0, size), np.clip(cx + w / 2, 0, size),
                      np.clip(cy + h / 2, 0, size)], 1)
    rois = np.concatenate([(np.arange(R) * N // R)[:, None], boxes], 1).astype(f32)
    total = R * C * RA_POOL * RA_POOL
    return {"nthreads": i32(total), "input": _signed(rng, N * C * H * W, f32), "spatial_scale": f32(RA_SCALE),
            "channels": i32(C), "height": i32(H), "width": i32(W), "pooled_height": i32(RA_POOL),
            "pooled_width": i32(RA_POOL), "sampling_ratio": i32(RA_RATIO),
            "aligned": np.uint8(1),  # the bool true, as a one-byte number (pycuda packs numbers, not np.bool_)
            "rois": rois.ravel(), "output": _nan(total)}


def _ra_ref(d):
    C, H, W = int(d["channels"]), int(d["height"]), int(d["width"])
    P, g = RA_POOL, RA_RATIO
    rois = d["rois"].astype(f64).reshape(-1, 5)
    R = len(rois)
    feat = d["input"].reshape(-1, H * W)  # (image, channel) planes
    off = 0.5 if bool(d["aligned"]) else 0.0
    sc = float(d["spatial_scale"])
    x0, y0, x1, y1 = (rois[:, k] * sc - off for k in (1, 2, 3, 4))
    bw, bh = (x1 - x0) / P, (y1 - y0) / P
    b = rois[:, 0].astype(np.int64)
    out = np.zeros((R, C, P, P))
    p = np.arange(P)
    for iy in range(g):
        for ix in range(g):
            y = y0[:, None] + p[None, :] * bh[:, None] + (iy + 0.5) * bh[:, None] / g  # (R, P) over ph
            x = x0[:, None] + p[None, :] * bw[:, None] + (ix + 0.5) * bw[:, None] / g  # (R, P) over pw
            Y, X = np.broadcast_arrays(y[:, :, None], x[:, None, :])  # (R, ph, pw)
            empty = (Y < -1.0) | (Y > H) | (X < -1.0) | (X > W)
            Y, X = np.maximum(Y, 0.0), np.maximum(X, 0.0)
            ylo, xlo = Y.astype(np.int64), X.astype(np.int64)
            ytop, xtop = ylo >= H - 1, xlo >= W - 1
            ylo, xlo = np.where(ytop, H - 1, ylo), np.where(xtop, W - 1, xlo)
            yhi, xhi = np.where(ytop, H - 1, ylo + 1), np.where(xtop, W - 1, xlo + 1)
            Y, X = np.where(ytop, ylo, Y), np.where(xtop, xlo, X)
            ly, lx = Y - ylo, X - xlo
            hy, hx = 1.0 - ly, 1.0 - lx
            for wgt, yy, xx in ((hy * hx, ylo, xlo), (hy * lx, ylo, xhi), (ly * hx, yhi, xlo), (ly * lx, yhi, xhi)):
                idx = (yy * W + xx).reshape(R, 1, P, P)  # the pixel in each RoI's image plane
                gathered = feat[(b * C)[:, None, None, None] + np.arange(C)[None, :, None, None], idx]
                out += np.where(empty, 0.0, wgt)[:, None] * gathered
    return (out / (g * g)).ravel()


def _ra_flops(R):
    """As written, per output: 4 bins' coordinates (2 x 5), interpolation weights and sum (15) and the
    accumulation (1) per sample, 4 samples; 13 for the RoI's box, bins and the average."""
    N, C, H, W = _ra_dims(R)
    return float(R * C * RA_POOL * RA_POOL * (RA_RATIO * RA_RATIO * 26 + 13))


# ---- CUB-style block segmented scan --------------------------------------------------------------
SS_THREADS, SS_ITEMS = 128, 16
SS_TILE = SS_THREADS * SS_ITEMS
SS_HEAD_P = 1.0 / 64  # segments average 64 items


def _ss_inputs(n, rng):
    return {"d_in": _positive(rng, n, f32), "d_flags": (rng.random(n) < SS_HEAD_P).astype(i32), "d_out": _nan(n),
            "num_items": i32(n)}


def _ss_ref(d):
    x = d["d_in"].astype(f64)
    n = len(x)
    head = d["d_flags"].astype(bool).copy()
    head[::SS_TILE] = True  # tiles are scanned independently
    c = np.cumsum(x)
    starts = np.flatnonzero(head)
    seg = np.cumsum(head) - 1  # the segment of each item
    before = np.r_[0.0, c][starts]  # the running sum before each segment
    return c - before[seg] if n else c


# ---- BSR SpMV (4 x 4 blocks) ---------------------------------------------------------------------
BSR = 4


def _bsr_pattern(s):
    """A 27-point (3 x 3 x 3 neighbourhood) FEM connectivity on an s^3 grid of nodes: block row =
    node, its block columns the neighbours (sorted)."""
    idx = np.arange(s ** 3).reshape(s, s, s)
    cols = []
    for dz in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                shifted = np.full((s, s, s), -1)
                zs, ys, xs = (slice(max(0, -t), s - max(0, t)) for t in (dz, dy, dx))
                zd, yd, xd = (slice(max(0, t), s - max(0, -t)) for t in (dz, dy, dx))
                shifted[zs, ys, xs] = idx[zd, yd, xd]
                cols.append(shifted.ravel())
    cols = np.stack(cols, 1)  # (mb, 27), ascending within a row (dz, dy, dx order), -1 where missing
    valid = cols >= 0
    rowptr = np.r_[0, np.cumsum(valid.sum(1))].astype(i32)
    return rowptr, cols[valid].astype(i32)


def _bsr_nnzb(s):
    return (3 * s - 2) ** 3


def _bsr_inputs(s, rng):
    """s^3 nodes, 4 unknowns each; blocks signed; x and y signed, alpha 1, beta 0.5."""
    rowptr, colind = _bsr_pattern(s)
    mb = s ** 3
    return {"mb": i32(mb), "alpha": f32(1.0), "bsrRowPtr": rowptr, "bsrColInd": colind,
            "bsrVal": _signed(rng, len(colind) * BSR * BSR, f32), "x": _signed(rng, mb * BSR, f32), "beta": f32(0.5),
            "y": _signed(rng, mb * BSR, f32)}


def _bsr_ref(d):
    mb = int(d["mb"])
    rowptr, colind = d["bsrRowPtr"], d["bsrColInd"]
    V = d["bsrVal"].astype(f64).reshape(-1, BSR, BSR)
    X = d["x"].astype(f64).reshape(-1, BSR)
    contrib = np.einsum("kij,kj->ki", V, X[colind])
    rows = np.repeat(np.arange(mb), np.diff(rowptr))
    acc = np.zeros((mb, BSR))
    np.add.at(acc, rows, contrib)
    return float(d["alpha"]) * acc.ravel() + float(d["beta"]) * d["y"].astype(f64)


# ---- cuDF valid_if (nans_to_nulls) ----------------------------------------------------------------
VI_BLOCK, VI_NAN_P = 256, 0.1
_NOT_NAN = np.dtype([("_", "u1")])  # the predicate: an empty struct (one byte), passed by value


def _vi_inputs(n, rng):
    x = _signed(rng, n, f32)
    x[rng.random(n) < VI_NAN_P] = np.nan
    return {"output": np.full(_blocks(n, 32), 0xAAAAAAAA, u32), "begin": x, "size": i32(n),
            "p": np.zeros((), _NOT_NAN)[()], "valid_count": np.zeros(1, i32)}


def _vi_ref(d):
    valid = ~np.isnan(d["begin"])
    bits = np.packbits(np.r_[valid, np.zeros(-len(valid) % 32, bool)], bitorder="little")
    return bits.view("<u4").astype(f64)


# ---- CUDA samples dct8x8 ------------------------------------------------------------------------
def _dct_matrix():
    k = np.arange(8)
    m = np.sqrt(2 / 8) * np.cos((2 * k[None, :] + 1) * k[:, None] * np.pi / 16)
    m[0] /= np.sqrt(2)
    return m


def _dct_inputs(n, rng):
    """An n x n 8-bit-like image (smooth gradients, discs, texture, noise) as floats level-shifted
    by -128, as the sample prepares its planes; n a multiple of 32."""
    yy, xx = np.mgrid[0:n, 0:n] / n
    img = 128 + 60 * np.sin(6 * xx + 2 * yy) * np.cos(5 * yy) + 30 * np.sin(40 * xx * yy)
    for _ in range(12):
        cx, cy, r = rng.uniform(0, 1, 3) * (1, 1, 0.15)
        img += np.where((xx - cx) ** 2 + (yy - cy) ** 2 < r * r, rng.uniform(-60, 60), 0.0)
    img += rng.normal(0, 4, (n, n))
    img = np.clip(np.round(img), 0, 255) - 128.0
    return {"dst": _nan(n * n), "src": img.astype(f32).ravel(), "ImgStride": i32(n)}


def _dct_ref(d):
    n = int(d["ImgStride"])
    m = _dct_matrix()
    blocks = d["src"].astype(f64).reshape(n // 8, 8, n // 8, 8)
    return np.einsum("ia,xayb,jb->xiyj", m, blocks, m, optimize=True).ravel()


# ---- SHOC MD5Hash --------------------------------------------------------------------------------
MD5_BYTES, MD5_VALS = 7, 16  # byteLength (SHOC's largest) and valsPerByte: a key space of up to 16^7
MD5_THREADS = 256


def _md5_key(index):
    return bytes((index // MD5_VALS ** k) % MD5_VALS for k in range(MD5_BYTES))


def _md5_target(n):
    return (5 * n) // 7


def _md5_inputs(n, rng):
    """Keys 0..n-1 of 7 bytes (base-16 digits, lowest first); the digest searched for is the key at
    5n/7's, found by exactly one thread."""
    digest = np.frombuffer(hashlib.md5(_md5_key(_md5_target(n))).digest(), "<u4").astype(u32)
    return {"searchDigest0": digest[0], "searchDigest1": digest[1], "searchDigest2": digest[2],
            "searchDigest3": digest[3], "keyspace": i32(n), "byteLength": i32(MD5_BYTES), "valsPerByte": i32(MD5_VALS),
            "foundIndex": np.full(1, -1, i32), "foundKey": np.zeros(8, np.uint8), "foundDigest": np.zeros(4, u32)}


def _md5_ref(d):
    n = int(d["keyspace"])
    want = np.array([d[f"searchDigest{k}"] for k in range(4)], u32)
    hits = [i for i in (_md5_target(n),)
            if np.array_equal(np.frombuffer(hashlib.md5(_md5_key(i)).digest(), "<u4"), want)]
    return np.array([hits[0] if hits else -1], f64)


# ---- XSBench (event-based, nuclide grid) ----------------------------------------------------------
XS_SEED = 1070  # STARTING_SEED
XS_DIST = (0.140, 0.052, 0.275, 0.134, 0.154, 0.064, 0.066, 0.055, 0.008, 0.015, 0.025, 0.013)
XS_NUM_NUCS = (34, 5, 4, 4, 27, 21, 21, 21, 21, 21, 9, 9)  # XSBench's "small" problem: 68 isotopes
XS_ISOTOPES = 68
XS_M63 = (1 << 63) - 1


def _xs_gridpoints(n):
    return 11303 if n >= 4096 else 1000  # XSBench's default n_gridpoints


def _xs_mat_probs():
    """pick_mat as written: material i >= 1 when the roll falls in [sum dist[1..i-1], sum dist[1..i]),
    material 0 (fuel) past sum dist[1..11] = 0.86."""
    p = np.array(XS_DIST)
    p[0] = 1.0 - p[1:].sum()
    return p


XS_MEAN_NUCS = float(_xs_mat_probs() @ np.array(XS_NUM_NUCS))  # nuclides a lookup visits: 15.5


def _xs_inputs(n, rng):
    """n lookups; 68 isotopes of n_gridpoints sorted uniform energies with uniform cross sections
    (as XSBench generates them); fuel the first 34 isotopes, every other material distinct random
    isotopes; concentrations uniform."""
    G = _xs_gridpoints(n)
    grid = rng.random((XS_ISOTOPES, G, 6))
    grid[:, :, 0].sort(axis=1)
    mx = max(XS_NUM_NUCS)
    mats = np.zeros((12, mx), i32)
    mats[0, :XS_NUM_NUCS[0]] = np.arange(XS_NUM_NUCS[0])
    for m in range(1, 12):
        mats[m, :XS_NUM_NUCS[m]] = rng.choice(XS_ISOTOPES, XS_NUM_NUCS[m], replace=False)
    concs = np.where(np.arange(mx)[None, :] < np.array(XS_NUM_NUCS)[:, None], rng.random((12, mx)), 0.0)
    return {"lookups": i32(n), "n_isotopes": i32(XS_ISOTOPES), "n_gridpoints": i32(G),
            "num_nucs": np.array(XS_NUM_NUCS, i32), "concs": concs.ravel(), "nuclide_grid": grid.ravel(),
            "mats": mats.ravel(), "max_num_nucs": i32(mx), "verification": np.zeros(n, np.uint64)}


def _lcg_forward(seed, steps):
    """fast_forward_LCG, vectorized over steps (uint64 arithmetic wraps as the kernel's does)."""
    a0, c0 = np.uint64(2806196910506780709), np.uint64(1)
    steps = steps.astype(np.uint64)
    a_new, c_new = np.ones_like(steps), np.zeros_like(steps)
    a, c = a0, c0
    with np.errstate(over="ignore"):
        while steps.any():
            odd = (steps & np.uint64(1)).astype(bool)
            a_new = np.where(odd, a_new * a, a_new)
            c_new = np.where(odd, c_new * a + c, c_new)
            c = c * (a + np.uint64(1))
            a = a * a
            steps = steps >> np.uint64(1)
        return (a_new * np.uint64(seed) + c_new) & np.uint64(XS_M63)


def _lcg_next(seed):
    with np.errstate(over="ignore"):
        seed = (np.uint64(2806196910506780709) * seed + np.uint64(1)) & np.uint64(XS_M63)
    return seed, seed.astype(f64) / 9223372036854775808.0


def _xs_samples(n):
    seed = _lcg_forward(XS_SEED, 2 * np.arange(n))
    seed, energy = _lcg_next(seed)
    seed, roll = _lcg_next(seed)
    mat = np.zeros(n, np.int64)
    for i in range(11, 0, -1):  # the first i whose running sum dist[1..i] exceeds the roll
        running = 0.0
        for j in range(i, 0, -1):
            running += XS_DIST[j]
        mat = np.where(roll < running, i, mat)
    return energy, mat


def _xs_macro(d):
    n, G = int(d["lookups"]), int(d["n_gridpoints"])
    mx = int(d["max_num_nucs"])
    grid = d["nuclide_grid"].reshape(-1, G, 6)
    mats, concs = d["mats"].reshape(12, mx), d["concs"].reshape(12, mx)
    energy, mat = _xs_samples(n)
    macro = np.zeros((n, 5))
    for m in range(12):
        sel = np.flatnonzero(mat == m)
        e = energy[sel]
        for j in range(int(d["num_nucs"][m])):
            g = grid[mats[m, j]]
            idx = np.clip(np.searchsorted(g[:, 0], e, side="right") - 1, 0, G - 2)
            lo, hi = g[idx], g[idx + 1]
            f = (hi[:, 0] - e) / (hi[:, 0] - lo[:, 0])
            macro[sel] += (hi[:, 1:] - f[:, None] * (hi[:, 1:] - lo[:, 1:])) * concs[m, j]
    return macro


def _xs_ref(d):
    return (np.argmax(_xs_macro(d), axis=1) + 1).astype(f64)


def _xs_flops(n):
    """Per lookup: 2 LCG doubles (a division each), pick_mat's running sums (i (i + 1) / 2 adds for
    material i >= 1, all 66 for the fuel), and 28 per nuclide (3 for the factor, 3 per cross section,
    2 per accumulation)."""
    p = _xs_mat_probs()
    adds = sum(p[i] * i * (i + 1) / 2 for i in range(1, 12)) + p[0] * 66
    return float(n * (2 + adds + 28 * XS_MEAN_NUCS))


# ---- the eighth held-out set ----------------------------------------------------------------------
CORPUS: list[CorpusKernel] = [
    # nPerRng 5860 (the sample's 24M numbers: iAlignUp(iDivUp(24000000, 4096), 2)): 96 MB written, >= 32 us at 3 TB/s,
    # but only 32 blocks of 128 threads (32 SMs, 4 warps each), each thread 5860 serial steps with two local-memory
    # loads and a store of its state: latency-bound, ~0.2-1 ms
    entry("mt607_random", "holdout8/mt607_random.cu", "RandomGPU",
          "CUDA samples MersenneTwister: MT607 per thread, state in local", 5860,
          lambda n, sms: ((32, 1, 1), (128, 1, 1), 0), _mt_inputs, "d_Random", _mt_ref,
          lambda n: 2.0 * MT_RNG_COUNT * n, lambda n: 4.0 * MT_RNG_COUNT * n + 16.0 * MT_RNG_COUNT, rtol=0.0,
          constants=("ds_MT",),
          inputs_desc="n = nPerRng numbers from each of 4096 twisters; parameters (matrix_a with its top bit set, "
                      "tempering masks, seeds) random in place of the dynamic creator's file, copied to the "
                      "__device__ array ds_MT"),
    # 2^27 uniform 32-bit keys (537 MB), >= 180 us at 3 TB/s; 4 shared atomicAdds a key (537M, random bins) and
    # 2112 blocks x 1024 global atomicAdds at the end: ~0.2-0.6 ms
    entry("radix_histogram_onesweep", "holdout8/radix_histogram_onesweep.cu",
          "DeviceRadixSortHistogramKernel<128, 16>",
          "CUB onesweep digit histograms: 4 passes, shared atomics", 1 << 27,
          _rh_launch, _rh_inputs, "d_bins_out", _rh_ref, lambda n: 0.0, lambda n: 4.0 * n + 8.0 * 1024, rtol=0.0,
          inputs_desc="n uniform random 32-bit keys, all 32 bits (4 passes of 8); the 4 x 256 global bins zeroed "
                      "(and added to again by every launch)"),
    # llm.c's GPT-2 small MLP up-projection at B x T = 8 x 1024: 8192 x 768 @ 768 x 3072, 38.7 GFLOP: ~1-3 ms at the
    # ~15-35 TFLOP/s such a CUDA-core kernel reaches; 139 MB of traffic
    entry("matmul_forward_llmc", "holdout8/matmul_forward_llmc.cu", "matmul_forward_kernel4",
          "llm.c matmul_forward_kernel4: 128x128 tiles, 8x8 a thread, float4", 8192,
          lambda n, sms: ((n // 128, _mm_dims(n)[1] // 128, 1), (16, 16, 1), 0), _mm_inputs, "out", _mm_ref,
          lambda n: 2.0 * n * _mm_dims(n)[0] * _mm_dims(n)[1] + n * _mm_dims(n)[1],
          lambda n: 4.0 * (n * _mm_dims(n)[0] + _mm_dims(n)[0] * _mm_dims(n)[1] + _mm_dims(n)[1] + n * _mm_dims(n)[1]),
          rtol=1e-5,
          inputs_desc="n = B x T rows (a multiple of 128); C = 768, OC = 3072 (64, 256 below 1024 rows); inp and "
                      "bias signed, weight signed x 0.02"),
    # 16 sequences x 2048 tokens x 1536 channels (Mamba-130m's d_inner), d_state 16: x, dt, y 604 MB (>= 200 us at
    # 3 TB/s), 805M expf, but 192 blocks of 128 threads (~6 warps an SM) walking 2048 dependent steps: ~0.4-2 ms
    entry("ssm_scan_llamacpp", "holdout8/ssm_scan_llamacpp.cu", "ssm_scan_f32<128, 16>",
          "llama.cpp Mamba ssm_scan: serial tokens, state in shared, expf", 2048,
          lambda n, sms: ((_ssm_dims(n)[0], _ssm_dims(n)[1] // SSM_SPLIT, 1), (SSM_SPLIT, 1, 1),
                          2 * SSM_SPLIT * (SSM_N + 1) * 4),
          _ssm_inputs, "dst", _ssm_ref, _ssm_flops, _ssm_bytes, rtol=1e-5,
          inputs_desc="n = L tokens for 16 sequences of 1536 channels (2 x 256 below 64 tokens), d_state 16; x, B, "
                      "C standard normal; dt Mamba-like before softplus (0.1% at 25, past the cut); A = -(1..16) "
                      "+-10%; initial state N(0, 0.01); dst holds y then the final states"),
    # 2000 RoIs (1000 proposals on each of two images) x 256 channels x 7 x 7 bins: 25M outputs (100 MB), 4 samples
    # x 4 gathers each (400M, mostly L1/L2 hits in an 82 MB feature map); grid capped at 4096 blocks of 512, ~12
    # grid-stride iterations a thread: ~0.3-1 ms
    entry("roi_align_torchvision", "holdout8/roi_align_torchvision.cu", "roi_align_forward_kernel_impl<float>",
          "torchvision RoIAlign: bilinear samples per bin, data-dependent", 2000,
          lambda n, sms: ((min(_blocks(n * _ra_dims(n)[1] * RA_POOL * RA_POOL, 512), 4096), 1, 1), (512, 1, 1), 0),
          _ra_inputs, "output", _ra_ref, _ra_flops,
          lambda n: 4.0 * math.prod(_ra_dims(n)) + 20.0 * n + 4.0 * n * _ra_dims(n)[1] * RA_POOL * RA_POOL,
          rtol=2e-4,  # float32 sample coordinates on a 200-pixel map: up to a few 1e-5 in the weights
          inputs_desc="FPN P2 features (2 images x 256 x 200 x 200, signed; 2 x 16 x 50 x 50 below 64 RoIs); n "
                      "RoIs, half per image, sides log-uniform 16-160 px, aspect 0.5-2, clipped to the 800 x 800 "
                      "image; spatial_scale 1/4, 7 x 7 bins, sampling_ratio 2, aligned"),
    # 2^25 floats and int head flags in, floats out: 403 MB, >= 135 us at 3 TB/s; 16 items a thread through two
    # shared-memory exchanges, 7 shuffles per scan step pair, 2 barriers
    entry("segmented_scan_cub", "holdout8/segmented_scan_cub.cu", "BlockSegmentedScanKernel<128, 16>",
          "CUB-style block segmented scan: head flags, exchange, shfl_up", 1 << 25,
          lambda n, sms: ((_blocks(n, SS_TILE), 1, 1), (SS_THREADS, 1, 1), 0), _ss_inputs, "d_out", _ss_ref,
          lambda n: 2.0 * n + 6.0 * n / SS_ITEMS, lambda n: 12.0 * n, rtol=1e-5,
          inputs_desc="n values uniform [0.5, 1.5); head flags (int) set with probability 1/64; segments also "
                      "restart at every 2048-item tile"),
    # a 64^3 node grid, 27-point connectivity, 4 x 4 blocks: 6.6M blocks (423 MB of values, 26 MB of column
    # indices), >= 150 us at 3 TB/s; x gathered by block (mostly L1/L2 hits)
    entry("bsr_spmv_4x4", "holdout8/bsr_spmv.cu", "bsrmv_4x4_scalar",
          "SpMV, BSR 4x4 row-major blocks, thread per row, float4 loads", 64,
          lambda n, sms: _B(BSR * n ** 3, 256), _bsr_inputs, "y", _bsr_ref,
          lambda n: 32.0 * _bsr_nnzb(n) + 3.0 * BSR * n ** 3,
          lambda n: 68.0 * _bsr_nnzb(n) + 4.0 * (n ** 3 + 1) + 16.0 * n ** 3 + 32.0 * n ** 3, rtol=1e-5,
          inputs_desc="n^3 nodes of 4 unknowns (n = grid side), a block for each of the up to 27 neighbours "
                      "(sorted); block values, x and y signed; alpha 1, beta 0.5 (y updated in place)"),
    # 2^27 floats (537 MB), >= 180 us at 3 TB/s; a ballot per warp, one 4-byte word written per 32 rows (17 MB),
    # one atomicAdd per block (524288)
    entry("valid_if_cudf", "holdout8/valid_if_cudf.cu", "valid_if_kernel<256, const float*, not_nan>",
          "cuDF valid_if (nans_to_nulls): ballot bitmask, count + atomicAdd", 1 << 27,
          lambda n, sms: _B(n, VI_BLOCK), _vi_inputs, "output", _vi_ref, lambda n: 0.0,
          lambda n: 4.0 * n + 4.0 * _blocks(n, 32) + 4.0, rtol=0.0,
          inputs_desc="a FLOAT32 column of n signed values, 10% NaN at random; the mask words pre-filled with "
                      "0xAAAAAAAA; valid_count zeroed (and added to again by every launch)"),
    # 8192 x 8192 floats: 268 MB in, 268 MB out, >= 180 us at 3 TB/s; 64-thread blocks of 8 x 4 x 2, 3 barriers,
    # 15 FLOPs a pixel
    entry("dct8x8_samples", "holdout8/dct8x8_samples.cu", "CUDAkernel2DCT",
          "CUDA samples dct8x8: 8-point DCT butterflies, shared macroblock", 8192,
          lambda n, sms: ((n // 32, n // 16, 1), (8, 4, 2), 0), _dct_inputs, "dst", _dct_ref,
          lambda n: 15.0 * n * n, lambda n: 8.0 * n * n, rtol=1e-5,
          inputs_desc="an n x n image (smooth field, discs, texture, noise; 0-255 level-shifted by -128), n a "
                      "multiple of 32; ImgStride = n floats"),
    # 8192 x 8192: 268 MB read along rows, the same 268 MB read down columns (32 B sectors per lane, reuse only
    # through L1/L2), 268 MB written: >= 180 us at 3 TB/s, ~0.3-1 ms
    entry("transpose_add_naive", "holdout8/transpose_add.cu", "transpose_add",
          "transpose-and-add B = A + A^T, 16x16 blocks, column read strided", 8192,
          lambda n, sms: ((_blocks(n, 16), _blocks(n, 16), 1), (16, 16, 1), 0),
          lambda n, rng: {"A": _signed(rng, n * n, f32), "B": _nan(n * n), "n": i32(n)}, "B",
          lambda d: (d["A"].astype(f64).reshape(int(d["n"]), -1) + d["A"].astype(f64).reshape(int(d["n"]), -1).T
                     ).ravel(),
          lambda n: float(n * n), lambda n: 8.0 * n * n, rtol=1e-6, inputs_desc="A: n x n signed"),
    # 2^25 keys of 7 bytes, 16 a thread (2M threads): 64 MD5 rounds each (~400 integer instructions a key, 1.3e10
    # in all): integer-ALU-bound, ~0.3-1 ms; 28 bytes written
    entry("md5hash_shoc", "holdout8/md5hash_shoc.cu", "FindKeyWithDigest_Kernel",
          "SHOC MD5Hash: brute-force key search, 64 unrolled MD5 rounds a key", 1 << 25,
          lambda n, sms: _B(_blocks(n, MD5_VALS), MD5_THREADS), _md5_inputs, "foundIndex", _md5_ref,
          lambda n: 0.0, lambda n: 28.0, rtol=0.0,
          inputs_desc="key space 0..n-1 of 7-byte keys, 16 values a byte (16 keys a thread); the digest searched "
                      "for is MD5 of key 5n/7; foundIndex -1, foundKey and foundDigest zeroed"),
    # 2^20 lookups (XSBench's default is 17M) in the small problem: 68 isotopes x 11303 grid points (37 MB of
    # 48-byte points, L2-resident); ~15.5 nuclides a lookup, each a 14-step dependent binary search and two
    # point reads, FP64: latency-bound, ~0.3-1.5 ms
    entry("xsbench_lookup", "holdout8/xsbench_lookup.cu", "xs_lookup_kernel_baseline",
          "XSBench lookup: LCG sampling, per-nuclide binary search, FP64", 1 << 20,
          lambda n, sms: _B(n, 256), _xs_inputs, "verification", _xs_ref, _xs_flops,
          lambda n: 48.0 * XS_ISOTOPES * _xs_gridpoints(n) + 8.0 * n + 12 * 4 * (1 + 3 * max(XS_NUM_NUCS)), rtol=0.0,
          inputs_desc="n lookups, energies and materials from XSBench's LCG (seed 1070, 2 draws a lookup); 68 "
                      "isotopes x 11303 points (1000 below 4096 lookups) of sorted uniform energies and uniform "
                      "cross sections; fuel = isotopes 0-33, the other 11 materials random distinct isotopes "
                      "(XSBench's small-problem counts); concentrations uniform"),
]

BY_NAME, get = index(CORPUS)

if __name__ == "__main__":
    from cudasim.console import run

    from ..manifest import main
    run(main, CORPUS)
