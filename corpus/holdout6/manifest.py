"""The sixth held-out set: sixteen more common CUDA patterns that neither the catalog, the corpus
nor the first five held-out sets have, written as their authors write them (Rodinia, Parboil, the
CUDA samples, the SDK's radix sort, Fluids v3, flash-attention-minimal, fused-kernel and erasure-
coding libraries, HPC course codes) and kept away from the model developers, so that the timing
model can be tested out of sample once more. Five of them synchronize a block many times over
(a pyramid, a tree reduction, attention tiles, split scans, tree levels); two are FP64 (and SRAD's
double literals promote part of its float arithmetic), one fp16, five integer-only.

The same shape as corpus.manifest (CORPUS, BY_NAME, get, SMS; every entry a CorpusKernel made
by corpus.manifest.entry, sources under corpus/holdout6/): each kernel with its launch, seeded
inputs, float64 numpy reference, FLOPs and compulsory bytes (each input element read once, each
output element written once). FLOPs count floating-point +, -, *, / and each math intrinsic as
one, as the source writes them; integer and comparison work counts zero. Every size is chosen for
about 50 us - 3 ms on an H100 (~3 TB/s, ~60 TFLOP/s FP32, ~30 TFLOP/s FP64) and stated with its
reason beside the entry. corpus.measure verifies the first launch and times the later ones on the
same buffers: every kernel here does the same work again on what the first launch left (the
atomic counts add up, in-place updates update again, the b+tree's blocks start from a leaf and
walk the same number of levels).

    python -m corpus.holdout6.manifest       # the table: pattern, launch, bytes, FLOPs
"""
from __future__ import annotations

import numpy as np

from kernels.catalog import _signed

from ..manifest import SMS, CorpusKernel, _blocks, _nan, entry, index

__all__ = ["CORPUS", "BY_NAME", "get", "SMS", "CorpusKernel"]


# ---- shapes: each kernel's one size parameter n and what it implies ------------------------------
PF_ITER, PF_BLOCK = 20, 256  # Rodinia's pyramid height (run: pathfinder 100000 100 20) and BLOCK_SIZE
SRAD_THREADS = 512
BP_HID = 16  # Rodinia's backprop: 16 hidden units, 16 x 16 blocks
FA_HEADS, FA_SEQ, FA_DIM, FA_TILE = 12, 64, 64, 32  # flash-attention-minimal's bench: batch 16, 12 heads, 64 x 64
MRIQ_K = 1024  # KERNEL_Q_K_ELEMS_PER_GRID: one launch's samples


def _mriq_k(n):  # one full grid of samples; fewer at the simulator's sizes
    return MRIQ_K if n >= 1 << 14 else 64


def _cells_side(n):  # the particles sample's 128^3 grid (8^3 below 2^20 particles)
    return 128 if n >= 1 << 20 else 8


RADIX_CTA, RADIX_BITS = 256, 4  # SORT_CTA_SIZE; 4 bits per pass, 1024 keys per block
LBM_OMEGA = 1.0 / 0.6  # BGK relaxation, tau = 0.6
LBM_W = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4)
LBM_E = np.array([(0, 0), (1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1)])  # (ex, ey)
JDS_LOG_MEAN, JDS_LOG_SD, JDS_MAX_LEN = 2.5, 1.0, 4096  # row lengths 1 + floor(lognormal): mean ~21, long tail
JDS_CONST = 5000  # Parboil's __constant__ jds_ptr_int[5000]
# per row at the default size (_jds_inputs, seed 0): stored nonzeros (padded to whole warps) and real ones
JDS_PADDED, JDS_NNZ = 20.61, 20.60
RS_K, RS_M = 10, 4  # RS(14, 10)
RS_POLY = 0x11D  # x^8 + x^4 + x^3 + x^2 + 1, the usual primitive polynomial
RLE_P = 1.0 / 8  # run lengths geometric, mean 8
DROP_COLS, DROP_P, DROP_SEED = 4096, 0.1, 0x9E3779B9  # hidden size 4096 (Llama-2-7B); dropout 0.1
BF_RADIUS, BF_GAUSS_DELTA, BF_EUCLID_DELTA, BF_MAX_RADIUS = 5, 4.0, 0.1, 8  # the sample's defaults
BT_ORDER = 256  # Rodinia's DEFAULT_ORDER
BT_WORDS = 1 + 2 * (BT_ORDER + 1) + 2  # a knode in int32 words: location, indices, keys, is_leaf (padded), num_keys
INT_MAX = np.iinfo(np.int32).max


def _bt_records(n):  # 2^20 records (4096 leaves, 16 nodes, a root); 2^17 at the simulator's sizes
    return 1 << 20 if n >= 4096 else 1 << 17


SOR_OMEGA = 1.5
FL_CELL = 0.5  # Fluids v3: cells of 0.5 units (gridDelta 2)


def _fl_side(n):  # 160^3 scanned cells (about 4 particles each) inside a one-cell border; 8^3 when small
    return 160 if n >= 1 << 20 else 8


# ---- inputs and references ----------------------------------------------------------------------
def _B(n, b):  # one thread per item, b-thread blocks
    return (_blocks(n, b), 1, 1), (b, 1, 1), 0


def _pf_inputs(n, rng):
    """Rodinia's data: wall weights rand() % 10, the first row the starting costs."""
    i32 = np.int32
    return {"iteration": i32(PF_ITER), "gpuWall": rng.integers(0, 10, PF_ITER * n).astype(i32),
            "gpuSrc": rng.integers(0, 10, n).astype(i32), "gpuResults": np.full(n, -1, i32), "cols": i32(n),
            "rows": i32(PF_ITER + 1), "startStep": i32(0), "border": i32(PF_ITER)}


def _pf_ref(d):
    n = int(d["cols"])
    wall = d["gpuWall"].reshape(-1, n).astype(np.int64)
    cur = d["gpuSrc"].astype(np.int64)
    for i in range(int(d["iteration"])):
        left = np.concatenate([cur[:1], cur[:-1]])
        right = np.concatenate([cur[1:], cur[-1:]])
        cur = np.minimum(np.minimum(left, cur), right) + wall[int(d["startStep"]) + i]
    return cur.astype(np.float64)


def _srad_inputs(n, rng):
    """An n x n speckled image as Rodinia prepares it, exp(I / 255) of 8-bit pixels (column-major),
    q0^2 the image's variance over its squared mean; the clamped neighbour index arrays."""
    i32 = np.int32
    img = np.exp(rng.integers(0, 256, n * n).astype(np.float32) / np.float32(255.0)).astype(np.float32)
    mean = img.astype(np.float64).mean()
    q0sqr = np.float32(img.astype(np.float64).var() / mean ** 2)
    idx = np.arange(n)
    return {"d_lambda": np.float32(0.5), "d_Nr": i32(n), "d_Nc": i32(n), "d_Ne": np.int64(n * n),
            "d_iN": np.maximum(idx - 1, 0).astype(i32), "d_iS": np.minimum(idx + 1, n - 1).astype(i32),
            "d_jE": np.minimum(idx + 1, n - 1).astype(i32), "d_jW": np.maximum(idx - 1, 0).astype(i32),
            "d_dN": _nan(n * n), "d_dS": _nan(n * n), "d_dE": _nan(n * n), "d_dW": _nan(n * n), "d_q0sqr": q0sqr,
            "d_c": _nan(n * n), "d_I": img}


def _srad_fields(d):
    """(dN, dS, dW, dE, c) in float64 from the float32 image (column-major, as the kernel)."""
    nr, nc = int(d["d_Nr"]), int(d["d_Nc"])
    img = d["d_I"].reshape(nc, nr)  # [col, row]
    jc = img.astype(np.float64)
    dn = (img[:, d["d_iN"]] - img).astype(np.float64)  # float32 differences, as the kernel
    ds = (img[:, d["d_iS"]] - img).astype(np.float64)
    dw = (img[d["d_jW"], :] - img).astype(np.float64)
    de = (img[d["d_jE"], :] - img).astype(np.float64)
    g2 = (dn * dn + ds * ds + dw * dw + de * de) / (jc * jc)
    lap = (dn + ds + dw + de) / jc
    num = 0.5 * g2 - (1.0 / 16.0) * lap * lap
    den = 1 + 0.25 * lap
    qsqr = num / (den * den)
    q0 = float(d["d_q0sqr"])
    c = np.clip(1.0 / (1.0 + (qsqr - q0) / (q0 * (1 + q0))), 0.0, 1.0)
    return tuple(a.ravel() for a in (dn, ds, dw, de, c))


def _bp_inputs(n, rng):
    """n input units and an (n + 1) x 17 weight matrix, uniform [0, 1) as Rodinia's bpnn_randomize."""
    f32 = np.float32
    return {"input_cuda": rng.random(n + 1, dtype=f32), "output_hidden_cuda": np.zeros(BP_HID + 1, f32),
            "input_hidden_cuda": rng.random((n + 1) * (BP_HID + 1), dtype=f32),
            "hidden_partial_sum": _nan(n // 16 * BP_HID), "in": np.int32(n), "hid": np.int32(BP_HID)}


def _bp_ref(d):
    n, hid = int(d["in"]), int(d["hid"])
    w = d["input_hidden_cuda"].reshape(n + 1, hid + 1)[1:, 1:].astype(np.float64)
    x = d["input_cuda"][1:].astype(np.float64)
    return (w * x[:, None]).reshape(n // 16, 16, hid).sum(axis=1).ravel()


def _fa_inputs(n, rng):
    """n batches x 12 heads x 64 positions x 64: Q, K, V standard normal; O and l zeroed, m -inf."""
    size = n * FA_HEADS * FA_SEQ * FA_DIM
    rows = n * FA_HEADS * FA_SEQ
    i32 = np.int32
    tiles = _blocks(FA_SEQ, FA_TILE)
    return {"Q": rng.standard_normal(size, dtype=np.float32), "K": rng.standard_normal(size, dtype=np.float32),
            "V": rng.standard_normal(size, dtype=np.float32), "N": i32(FA_SEQ), "d": i32(FA_DIM), "Tc": i32(tiles),
            "Tr": i32(tiles), "Bc": i32(FA_TILE), "Br": i32(FA_TILE),
            "softmax_scale": np.float32(1.0 / np.sqrt(FA_DIM)), "l": np.zeros(rows, np.float32),
            "m": np.full(rows, -np.inf, np.float32), "O": np.zeros(size, np.float32)}


def _fa_ref(d):
    shape = (-1, int(d["N"]), int(d["d"]))
    q, k, v = (d[a].astype(np.float64).reshape(shape) for a in "QKV")
    s = np.einsum("bid,bjd->bij", q, k) * float(d["softmax_scale"])
    p = np.exp(s - s.max(axis=2, keepdims=True))
    return (np.einsum("bij,bjd->bid", p / p.sum(axis=2, keepdims=True), v)).ravel()


def _fa_flops(n):
    """Per (batch, head) as the source writes it: S (d multiply-adds and a scale per element), P
    (a subtraction, an exp and an add per element), P V (d multiply-adds per output), the output
    update (7 per output element and K tile) and the statistics (7 per row and K tile)."""
    N, dim, tiles = FA_SEQ, FA_DIM, _blocks(FA_SEQ, FA_TILE)
    return float(n * FA_HEADS * (N * N * (2 * dim + 1) + 3 * N * N + 2 * N * N * dim + 7 * tiles * N * dim
                                 + 7 * tiles * N))


def _mriq_inputs(n, rng):
    """n voxels uniform in [-0.5, 0.5)^3; k-space samples uniform in [-16, 16)^3 (cycles per field
    of view), |phi|^2 in [0.5, 1.5); Qr and Qi zeroed (the first grid of samples)."""
    k = _mriq_k(n)
    ck = np.empty((MRIQ_K, 4), np.float32)
    ck[:, :3] = rng.uniform(-16.0, 16.0, (MRIQ_K, 3))
    ck[:, 3] = rng.random(MRIQ_K) + 0.5
    f32 = np.float32
    return {"numK": np.int32(k), "kGlobalIndex": np.int32(0), "x": rng.uniform(-0.5, 0.5, n).astype(f32),
            "y": rng.uniform(-0.5, 0.5, n).astype(f32), "z": rng.uniform(-0.5, 0.5, n).astype(f32),
            "Qr": np.zeros(n, f32), "Qi": np.zeros(n, f32), "ck": ck.ravel()}


def _mriq_q(d):
    """(Qr, Qi) in float64, the phase from the float32 coordinates."""
    k = int(d["numK"])
    ck = d["ck"].reshape(-1, 4)[:k].astype(np.float64)
    pos = np.stack([d["x"], d["y"], d["z"]], axis=1).astype(np.float64)
    qr, qi = d["Qr"].astype(np.float64).copy(), d["Qi"].astype(np.float64).copy()
    for s in range(0, len(pos), 4096):  # in voxel chunks
        arg = 2 * np.pi * (pos[s:s + 4096] @ ck[:, :3].T)
        qr[s:s + 4096] += np.cos(arg) @ ck[:, 3]
        qi[s:s + 4096] += np.sin(arg) @ ck[:, 3]
    return qr, qi


def _pr_inputs(n, rng):
    """n particles uniform in the sample's world [-1, 1)^3 on a side^3 grid of cells, velocities
    signed; hashed (z, y, x) and sorted (stably) by hash as the sample's calcHash and sort leave
    them; cellStart 0xffffffff, cellEnd zeroed."""
    side = _cells_side(n)
    pos = np.ones((n, 4), np.float32)
    pos[:, :3] = rng.uniform(-1.0, 1.0, (n, 3))
    vel = np.zeros((n, 4), np.float32)
    vel[:, :3] = 0.1 * _signed(rng, (n, 3), np.float32)
    cell = np.minimum(np.floor((pos[:, :3].astype(np.float64) + 1.0) * (side / 2.0)).astype(np.int64), side - 1)
    h = (cell[:, 2] * side + cell[:, 1]) * side + cell[:, 0]
    order = np.argsort(h, kind="stable")
    u32 = np.uint32
    return {"cellStart": np.full(side ** 3, 0xFFFFFFFF, u32), "cellEnd": np.zeros(side ** 3, u32),
            "sortedPos": _nan(4 * n), "sortedVel": _nan(4 * n), "gridParticleHash": h[order].astype(u32),
            "gridParticleIndex": order.astype(u32), "oldPos": pos.ravel(), "oldVel": vel.ravel(),
            "numParticles": u32(n)}


def _pr_cells(d):
    """(cellStart, cellEnd) in float64."""
    h = d["gridParticleHash"].astype(np.int64)
    first = np.flatnonzero(np.r_[True, h[1:] != h[:-1]])
    last = np.r_[first[1:], len(h)]
    start, end = d["cellStart"].astype(np.float64).copy(), d["cellEnd"].astype(np.float64).copy()
    start[h[first]] = first
    end[h[first]] = last
    return start, end


def _radix_inputs(n, rng):
    u32 = np.uint32
    return {"keysOut": np.full(n, 0xFFFFFFFF, u32), "valuesOut": np.full(n, 0xFFFFFFFF, u32),
            "keysIn": rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(u32),
            "valuesIn": np.arange(n, dtype=u32), "numElements": u32(n), "startBlock": u32(0)}


def _radix_order(d):
    """Each 1024-key block's stable order by the low 4 bits."""
    keys = d["keysIn"].reshape(-1, 4 * RADIX_CTA)
    order = np.argsort(keys & ((1 << RADIX_BITS) - 1), axis=1, kind="stable")
    return keys, order


def _radix_ref(d):
    keys, order = _radix_order(d)
    return np.take_along_axis(keys, order, axis=1).astype(np.float64).ravel()


def _lbm_feq(rho, ux, uy):
    usq = 1.5 * (ux * ux + uy * uy)
    cu = 3.0 * (LBM_E[:, 0, None, None] * ux + LBM_E[:, 1, None, None] * uy)
    return LBM_W[:, None, None] * rho * (1.0 + cu + 0.5 * cu * cu - usq)


def _lbm_inputs(n, rng):
    """An n x n periodic domain near rest: density 1 + 0.01 x signed, velocities 0.05 x signed per
    axis, the populations at their equilibrium plus 1% noise."""
    rho = 1.0 + 0.01 * _signed(rng, (n, n), np.float64)
    ux, uy = (0.05 * _signed(rng, (n, n), np.float64) for _ in range(2))
    f = _lbm_feq(rho, ux, uy) * (1.0 + 0.01 * _signed(rng, (9, n, n), np.float64))
    return {"f_in": f.ravel(), "f_out": _nan(9 * n * n, np.float64), "nx": np.int32(n), "ny": np.int32(n),
            "omega": np.float64(LBM_OMEGA)}


def _lbm_ref(d):
    nx, ny = int(d["nx"]), int(d["ny"])
    f = d["f_in"].reshape(9, ny, nx)
    g = np.stack([np.roll(f[q], (LBM_E[q, 1], LBM_E[q, 0]), axis=(0, 1)) for q in range(9)])  # pulled
    rho = g.sum(axis=0)
    ux = (g * LBM_E[:, 0, None, None]).sum(axis=0) / rho
    uy = (g * LBM_E[:, 1, None, None]).sum(axis=0) / rho
    return (g - float(d["omega"]) * (g - _lbm_feq(rho, ux, uy))).ravel()


def _lbm_flops(n):
    """Per node as the source writes it: the moments (8 + 5 + 5 adds, a division, 2 multiplies),
    usq (4), the weights (3), the cu terms (6), the rest population (5) and 9 per moving one."""
    return float((21 + 4 + 3 + 6 + 5 + 8 * 9) * n * n)


def _jds_inputs(n, rng):
    """n rows, lengths 1 + floor(lognormal(2.5, 1)) (at most 4096), uniform random columns; rows
    sorted longest first (stably: perm), diagonals padded to whole warps with zeros (column 0)."""
    lengths = np.minimum(1 + np.floor(rng.lognormal(JDS_LOG_MEAN, JDS_LOG_SD, n)).astype(np.int64), JDS_MAX_LEN)
    perm = np.argsort(-lengths, kind="stable")
    L = lengths[perm]  # sorted row ix has L[ix] nonzeros
    zcnt = L[::32]  # the longest row of each warp's 32
    slices_with = np.searchsorted(-zcnt, -np.arange(L[0]), side="right")  # slices whose longest row passes k
    diag_len = 32 * slices_with
    ptr = np.zeros(JDS_CONST, np.int64)
    ptr[1:L[0]] = np.cumsum(diag_len)[:-1]
    nnz = int(L.sum())
    starts = np.repeat(np.cumsum(L) - L, L)
    k = np.arange(nnz) - starts
    ix = np.repeat(np.arange(n), L)
    dest = ptr[k] + ix
    total = int(diag_len.sum())
    data = np.zeros(total, np.float32)
    index = np.zeros(total, np.int32)
    data[dest] = _signed(rng, nnz, np.float32)
    index[dest] = rng.integers(0, n, nnz)
    return {"dst_vector": _nan(n), "d_data": data, "d_index": index, "d_perm": perm.astype(np.int32),
            "x_vec": _signed(rng, n, np.float32), "dim": np.int32(n), "sh_zcnt_int": zcnt.astype(np.int32),
            "jds_ptr_int": ptr.astype(np.int32)}


def _jds_ref(d):
    n = int(d["dim"])
    zcnt, ptr = d["sh_zcnt_int"].astype(np.int64), d["jds_ptr_int"].astype(np.int64)
    y = np.zeros(n)
    x = d["x_vec"].astype(np.float64)
    for k in range(int(zcnt[0])):  # a diagonal at a time, its padding included
        rows = 32 * int((zcnt > k).sum())
        j = ptr[k] + np.arange(min(rows, n))
        y[:len(j)] += d["d_data"][j].astype(np.float64) * x[d["d_index"][j]]
    out = np.empty(n)
    out[d["d_perm"]] = y
    return out


def _jds_counts(d):
    """(stored, real) nonzeros per row: what the kernel loops over and what the matrix holds."""
    n = int(d["dim"])
    zcnt = d["sh_zcnt_int"].astype(np.int64)
    rows_in_slice = np.minimum(32, n - 32 * np.arange(len(zcnt)))
    return float((zcnt * rows_in_slice).sum()) / n, float(np.count_nonzero(d["d_data"])) / n


def _gf_tables():
    """GF(2^8) log and exp (doubled: 510 entries) over x^8 + x^4 + x^3 + x^2 + 1, generator 2."""
    exp = np.zeros(510, np.uint8)
    log = np.zeros(256, np.uint8)
    v = 1
    for i in range(255):
        exp[i] = exp[i + 255] = v
        log[v] = i
        v <<= 1
        if v & 0x100:
            v ^= RS_POLY
    return log, exp


def _gf_matrix():
    """The 4 x 10 Cauchy encoding matrix 1 / (x_i + y_j), x_i = i, y_j = 4 + j (all distinct)."""
    log, exp = _gf_tables()
    x = np.arange(RS_M)[:, None]
    y = RS_M + np.arange(RS_K)[None, :]
    return exp[(255 - log[x ^ y].astype(np.int64)) % 255].astype(np.uint8)


def _gf_mul_table():
    log, exp = _gf_tables()
    a = np.arange(256)
    t = exp[log[a][:, None].astype(np.int64) + log[a][None, :]]
    t[0, :] = 0
    t[:, 0] = 0
    return t


def _rs_inputs(n, rng):
    log, exp = _gf_tables()
    return {"data": rng.integers(0, 1 << 32, RS_K * n, dtype=np.uint64).astype(np.uint32),
            "parity": np.full(RS_M * n, 0xDEADBEEF, np.uint32), "gf_log": log, "gf_exp": exp,
            "words": np.int32(n), "c_matrix": _gf_matrix().ravel()}


def _rs_ref(d):
    n = int(d["words"])
    mul = _gf_mul_table()
    data = d["data"].reshape(RS_K, n).view(np.uint8).reshape(RS_K, 4 * n)  # little-endian bytes
    coef = d["c_matrix"].reshape(RS_M, RS_K)
    out = np.zeros((RS_M, 4 * n), np.uint8)
    for p in range(RS_M):
        for j in range(RS_K):
            out[p] ^= mul[coef[p, j]][data[j]]
    return out.view(np.uint32).astype(np.float64).ravel()


def _rle_inputs(n, rng):
    """n runs of geometric lengths (mean 8), random values, offsets by an exclusive scan."""
    lengths = rng.geometric(RLE_P, n)
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return {"run_values": rng.integers(-(1 << 30), 1 << 30, n).astype(np.int32),
            "run_offsets": offsets.astype(np.int32), "out": np.full(int(offsets[-1]), -1, np.int32),
            "num_runs": np.int32(n)}


def _rle_ref(d):
    return np.repeat(d["run_values"], np.diff(d["run_offsets"])).astype(np.float64)


def _lowbias32(x):
    x = x.astype(np.uint32)
    x ^= x >> np.uint32(16)
    x *= np.uint32(0x7FEB352D)
    x ^= x >> np.uint32(15)
    x *= np.uint32(0x846CA68B)
    x ^= x >> np.uint32(16)
    return x


def _drop_keep(d):
    """The keep flags per element: the hash's top 24 bits as a float in [0, 1), compared with p in float32."""
    size = int(d["rows"]) * int(d["cols"])
    h = _lowbias32(np.uint32(d["seed"]) ^ _lowbias32(np.arange(size, dtype=np.uint32)))
    u = (h >> np.uint32(8)).astype(np.float32) * np.float32(1.0 / 16777216.0)
    return u >= np.float32(d["p"])


def _drop_inputs(n, rng):
    size = n * DROP_COLS
    h = np.float16
    return {"x": rng.standard_normal(size, dtype=np.float32).astype(h),
            "bias": (0.1 * rng.standard_normal(DROP_COLS)).astype(h),
            "residual": rng.standard_normal(size, dtype=np.float32).astype(h), "out": np.full(size, np.nan, h),
            "mask": np.full(size, 2, np.uint8), "rows": np.int32(n), "cols": np.int32(DROP_COLS),
            "p": np.float32(DROP_P), "seed": np.uint32(DROP_SEED)}


def _drop_ref(d):
    cols = int(d["cols"])
    x = d["x"].astype(np.float64).reshape(-1, cols) + d["bias"].astype(np.float64)
    scale = 1.0 / (1.0 - float(d["p"]))
    keep = _drop_keep(d).reshape(x.shape)
    return (d["residual"].astype(np.float64).reshape(x.shape) + np.where(keep, x * scale, 0.0)).ravel()


def _bf_gaussian():
    g = np.zeros(2 * BF_MAX_RADIUS + 1, np.float32)
    x = np.arange(-BF_RADIUS, BF_RADIUS + 1, dtype=np.float32)
    g[:2 * BF_RADIUS + 1] = np.exp(-(x * x) / (2 * BF_GAUSS_DELTA ** 2))
    return g


def _bf_inputs(n, rng):
    """An n x n grayscale image in [0, 1]: a smooth pattern of sinusoids, 5% noise, clipped."""
    yy, xx = np.meshgrid(np.arange(n) / n, np.arange(n) / n, indexing="ij")
    img = (0.5 + 0.25 * np.sin(2 * np.pi * 3 * xx) * np.cos(2 * np.pi * 5 * yy)
           + 0.15 * np.sin(2 * np.pi * 11 * (xx + yy)))
    img = np.clip(img + 0.05 * rng.standard_normal((n, n)), 0.0, 1.0).astype(np.float32)
    i32 = np.int32
    return {"in": img.ravel(), "od": _nan(n * n), "w": i32(n), "h": i32(n), "e_d": np.float32(BF_EUCLID_DELTA),
            "r": i32(BF_RADIUS), "cGaussian": _bf_gaussian()}


def _bf_ref(d):
    w, h, r = int(d["w"]), int(d["h"]), int(d["r"])
    img = d["in"].reshape(h, w).astype(np.float64)
    g = d["cGaussian"].astype(np.float64)
    e = float(d["e_d"])
    p = np.pad(img, r, mode="edge")
    t = np.zeros_like(img)
    s = np.zeros_like(img)
    for i in range(-r, r + 1):
        for j in range(-r, r + 1):
            cur = p[r + i:r + i + h, r + j:r + j + w]
            f = g[i + r] * g[j + r] * np.exp(-(cur - img) ** 2 / (2 * e * e))
            t += f * cur
            s += f
    return (t / s).ravel()


def _bt_tree(records, rng):
    """A B+ tree of order 256 over `records` distinct sorted keys, Rodinia's knode layout: full
    leaves (256 keys, the record index of each in indices), inner nodes of up to 256 children
    (keys[t] the least key under child t, INT_MAX past the last), root first, level by level."""
    keys = np.sort(rng.choice(1 << 30, records, replace=False)).astype(np.int64)
    levels = [keys.reshape(-1, BT_ORDER)]  # the leaves' keys
    while len(levels[-1]) > 1:
        mins = levels[-1][:, 0]
        levels.append(np.full((_blocks(len(mins), BT_ORDER), BT_ORDER), INT_MAX, np.int64))
        levels[-1].ravel()[:len(mins)] = mins
    levels = levels[::-1]  # root first
    first = np.cumsum([0] + [len(lv) for lv in levels])
    nodes = np.zeros((first[-1], BT_WORDS), np.int32)
    nodes[:, 0] = np.arange(first[-1])  # location
    for depth, lv in enumerate(levels):
        rows = slice(first[depth], first[depth + 1])
        leaf = depth == len(levels) - 1
        kk = np.full((len(lv), BT_ORDER + 1), INT_MAX, np.int64)
        kk[:, :BT_ORDER] = lv
        children = np.arange(len(lv) * BT_ORDER).reshape(len(lv), BT_ORDER)
        idx = np.zeros((len(lv), BT_ORDER + 1), np.int64)
        idx[:, :BT_ORDER] = children if leaf else first[depth + 1] + children
        nodes[rows, 1:BT_ORDER + 2] = idx
        nodes[rows, BT_ORDER + 2:2 * BT_ORDER + 3] = kk
        nodes[rows, 2 * BT_ORDER + 3] = int(leaf)  # is_leaf: the bool's byte and its padding
        nodes[rows, 2 * BT_ORDER + 4] = (lv != INT_MAX).sum(axis=1)  # num_keys
    return keys, nodes, len(levels) - 1


def _bt_inputs(n, rng):
    """n queries (90% keys present, 10% absent) on a tree of 2^20 records (2^17 when small), the
    records' values random; the walk starts at the root (node 0), ans -1."""
    keys, nodes, height = _bt_tree(_bt_records(n), rng)
    q = keys[rng.integers(0, len(keys), n)]
    absent = rng.random(n) < 0.1
    q[absent] = rng.integers(0, 1 << 30, int(absent.sum()))
    i64 = np.int64
    return {"height": i64(height), "knodesD": nodes.ravel(), "knodes_elem": i64(len(nodes)),
            "recordsD": rng.integers(0, 1 << 30, len(keys)).astype(np.int32), "currKnodeD": np.zeros(n, i64),
            "offsetD": np.zeros(n, i64), "keysD": q.astype(np.int32), "ansD": np.full(n, -1, np.int32)}


def _bt_ref(d):
    nodes = d["knodesD"].reshape(-1, BT_WORDS)
    leaf = nodes[:, 2 * BT_ORDER + 3] == 1
    keys = nodes[leaf, BT_ORDER + 2:2 * BT_ORDER + 2].ravel().astype(np.int64)  # the leaves' keys, in order
    q = d["keysD"].astype(np.int64)
    at = np.minimum(np.searchsorted(keys, q), len(keys) - 1)
    hit = keys[at] == q
    return np.where(hit, d["recordsD"][at], d["ansD"]).astype(np.float64)


def _sor_inputs(n, rng):
    u = _signed(rng, (n, n), np.float64)
    u[0, :], u[-1, :], u[:, 0], u[:, -1] = 0.0, 0.0, 0.0, 0.0
    return {"u": u.ravel(), "f": _signed(rng, n * n, np.float64), "nx": np.int32(n), "ny": np.int32(n),
            "h2": np.float64(1.0 / (n - 1) ** 2), "omega": np.float64(SOR_OMEGA), "color": np.int32(0)}


def _sor_ref(d):
    nx, ny = int(d["nx"]), int(d["ny"])
    u = d["u"].reshape(ny, nx).copy()
    f = d["f"].reshape(ny, nx)
    j, i = np.meshgrid(np.arange(1, ny - 1), np.arange(1, nx - 1), indexing="ij")
    red = (i + j) % 2 == int(d["color"])
    c = (slice(1, -1), slice(1, -1))
    gs = 0.25 * (u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1] + float(d["h2"]) * f[c])
    u[c] = np.where(red, u[c] + float(d["omega"]) * (gs - u[c]), u[c])
    return u.ravel()


def _fl_inputs(n, rng):
    """n particles uniform over a (side + 2)^3 grid of 0.5-unit cells (the scanned side^3 inside a
    one-cell border, where particles get GRID_UNDEF): gridMin 0, gridDelta 2 (exact cell coordinates)."""
    side = _fl_side(n)
    res = side + 2
    f32, i32, u32 = np.float32, np.int32, np.uint32
    pos = rng.uniform(0.0, res * FL_CELL, (n, 3)).astype(f32)
    return {"mpos": pos.ravel(), "mgcell": np.full(n, 0xAAAAAAAA, u32), "mgndx": np.full(n, 0xAAAAAAAA, u32),
            "mgridcnt": np.zeros(res ** 3, i32), "pnum": i32(n), "gridMin_x": f32(0), "gridMin_y": f32(0),
            "gridMin_z": f32(0), "gridDelta_x": f32(1 / FL_CELL), "gridDelta_y": f32(1 / FL_CELL),
            "gridDelta_z": f32(1 / FL_CELL), "gridRes_x": i32(res), "gridRes_y": i32(res), "gridRes_z": i32(res),
            "gridScan_x": i32(side), "gridScan_y": i32(side), "gridScan_z": i32(side)}


def _fl_cells(d):
    """Each particle's cell (y, z, x order, as Fluids v3 indexes it), -1 outside the scanned interior."""
    res, side = int(d["gridRes_x"]), int(d["gridScan_x"])
    gc = (d["mpos"].reshape(-1, 3) * np.float32(d["gridDelta_x"])).astype(np.int64)  # float32 product, truncated
    inside = ((gc >= 1) & (gc <= side)).all(axis=1)
    return np.where(inside, (gc[:, 1] * res + gc[:, 2]) * res + gc[:, 0], -1)


def _fl_ref(d):
    cells = _fl_cells(d)
    return d["mgridcnt"].astype(np.float64) + np.bincount(cells[cells >= 0], minlength=len(d["mgridcnt"]))


# ---- the sixth held-out set ---------------------------------------------------------------------
CORPUS: list[CorpusKernel] = [
    # 2^22 columns x a 20-row pyramid: 335 MB of wall, >= 115 us at 3 TB/s; 19.4K blocks of 256, each 20 rows with
    # two barriers per row and a valid region that shrinks by a column per side per row
    entry("pathfinder_pyramid", "holdout6/pathfinder.cu", "dynproc_kernel",
          "Rodinia pathfinder: DP rows, shared-memory pyramid with halo", 1 << 22,
          lambda n, sms: _B(n, PF_BLOCK - 2 * PF_ITER)[:1] + ((PF_BLOCK, 1, 1), 0), _pf_inputs, "gpuResults",
          _pf_ref, lambda n: 0.0, lambda n: 4.0 * PF_ITER * n + 8.0 * n, rtol=0.0,
          inputs_desc="n columns: 20 rows of wall weights and the starting row, rand() % 10; one launch advances "
                      "all 20 rows (pyramid height 20, border 20)"),
    # 8192 x 8192: 268 MB in, 5 x 268 MB out, >= 540 us at 3 TB/s; four gathers through index arrays, three float
    # divisions and double-promoted arithmetic per pixel
    entry("srad_v1", "holdout6/srad.cu", "srad",
          "Rodinia SRAD v1: diffusion coefficient, neighbours via index arrays", 8192,
          lambda n, sms: _B(n * n, SRAD_THREADS), _srad_inputs, "d_c", lambda d: _srad_fields(d)[4],
          lambda n: 31.0 * n * n, lambda n: 24.0 * n * n + 16.0 * n, rtol=1e-5,
          inputs_desc="n x n image exp(I / 255) of uniform random bytes, column-major; q0^2 its variance over its "
                      "squared mean; the entry checks c (the derivatives are checked by the tests)"),
    # 65535 x 16 inputs (Rodinia's grid is (1, inputs / 16): grid.y's limit, 65535 blocks) x 16 hidden units: 71 MB of
    # weights read and written in place, >= 47 us at 3 TB/s; blocks of 16 x 16, seven barriers each, a 4-step shared
    # tree with __powf strides
    entry("backprop_layerforward", "holdout6/backprop_layerforward.cu", "bpnn_layerforward_CUDA",
          "Rodinia backprop forward: 16x16 shared tile, column tree reduction", 65535 * 16,
          lambda n, sms: ((1, n // 16, 1), (16, 16, 1), 0), _bp_inputs, "hidden_partial_sum", _bp_ref,
          lambda n: 31.0 * n, lambda n: 4.0 * n + 8.0 * BP_HID * n + 4.0 * n, rtol=1e-5,
          inputs_desc="n input units (a multiple of 16) and an (n + 1) x 17 weight matrix, uniform [0, 1); the "
                      "weights are left holding the products, as Rodinia's kernel leaves them"),
    # flash-attention-minimal's own benchmark: 16 x 12 heads x 64 x 64, 3.1 MB; 192 one-warp blocks whose shared
    # reads of Qi and S stride by 64 and 32 floats (32-way bank conflicts): ~0.3-1 ms
    entry("flash_attn_minimal_fwd", "holdout6/flash_attn_minimal.cu", "forward_kernel",
          "FlashAttention-1 forward, minimal: fp32, thread per query row", 16,
          lambda n, sms: ((n, FA_HEADS, 1), (FA_TILE, 1, 1), 4 * (3 * FA_TILE * FA_DIM + FA_TILE * FA_TILE)),
          _fa_inputs, "O", _fa_ref, _fa_flops,
          lambda n: 16.0 * n * FA_HEADS * FA_SEQ * FA_DIM + 12.0 * n * FA_HEADS * FA_SEQ, rtol=1e-4,
          inputs_desc="n batches x 12 heads x 64 positions x 64 dims, Q, K, V standard normal; Br = Bc = 32, scale "
                      "1/8; O and l zeroed, m -inf"),
    # 2^18 voxels (Parboil's 64^3) x 1024 samples: 268M phase evaluations with a full-precision sinf and cosf each
    # (12 FLOPs as written), ~3.2 GFLOP plus range reduction: ~0.3-0.8 ms; 7 MB of traffic
    entry("mri_q", "holdout6/mri_q.cu", "ComputeQ_GPU",
          "Parboil MRI-Q: sin/cos over k-space samples in __constant__", 1 << 18,
          lambda n, sms: _B(n, 256), _mriq_inputs, "Qr", lambda d: _mriq_q(d)[0],
          lambda n: 12.0 * n * _mriq_k(n), lambda n: 28.0 * n + 16.0 * MRIQ_K, rtol=1e-4, constants=("ck",),
          inputs_desc="n voxels uniform in [-0.5, 0.5)^3 (n a multiple of 256); 1024 k-space samples uniform in "
                      "[-16, 16)^3 with |phi|^2 in [0.5, 1.5) in __constant__ (64 used below 2^14 voxels); Qr, Qi "
                      "zeroed; the entry checks Qr"),
    # 2^23 particles in 128^3 cells: 67 MB of hashes and indices, 268 MB of float4s gathered through the sorted
    # index and 268 MB written, 16 MB of cell bounds, >= 205 us at 3 TB/s
    entry("particles_cell_start", "holdout6/particles_reorder.cu", "reorderDataAndFindCellStartD",
          "cell start/end from sorted hashes (CUDA particles), float4 gathers", 1 << 23,
          lambda n, sms: ((_blocks(n, 256), 1, 1), (256, 1, 1), 4 * (256 + 1)), _pr_inputs, "cellStart",
          lambda d: _pr_cells(d)[0], lambda n: 0.0, lambda n: 72.0 * n + 8.0 * _cells_side(n) ** 3, rtol=0.0,
          inputs_desc="n particles uniform in [-1, 1)^3, a 128^3 grid (8^3 below 2^20), hashes (z, y, x) sorted "
                      "stably with their indices; the entry checks cellStart (the tests the rest)"),
    # 2^24 keys and values: 134 MB in, 134 MB out, >= 90 us at 3 TB/s; 16384 blocks, each 4 split passes of a block
    # scan (7 __syncthreads, 9 __syncwarp) and two shared-memory scatters
    entry("radix_sort_blocks", "holdout6/radix_sort_blocks.cu", "radixSortBlocks<4, 0>",
          "SDK radix sort local pass: 1-bit splits by block scan, 4 bits", 1 << 24,
          lambda n, sms: ((n // (4 * RADIX_CTA), 1, 1), (RADIX_CTA, 1, 1), 4 * 4 * RADIX_CTA), _radix_inputs,
          "keysOut", _radix_ref, lambda n: 0.0, lambda n: 16.0 * n, rtol=0.0,
          inputs_desc="n uniform random 32-bit keys (n a multiple of 1024), values 0..n-1; each 1024-key block sorted "
                      "stably by bits 0-3; the entry checks the keys, the tests the values"),
    # 4096 x 4096 nodes x 9 doubles in and out: 2.4 GB, >= 805 us at 3 TB/s; 111 FP64 FLOPs per node (1.9 GFLOP)
    entry("lbm_d2q9_f64", "holdout6/lbm_d2q9.cu", "lbm_d2q9_pull_bgk",
          "lattice Boltzmann D2Q9 pull stream + BGK collide, FP64 SoA", 4096,
          lambda n, sms: ((_blocks(n, 128), n, 1), (128, 1, 1), 0), _lbm_inputs, "f_out", _lbm_ref, _lbm_flops,
          lambda n: 144.0 * n * n, rtol=1e-12,
          inputs_desc="n x n periodic, density 1 + 0.01 x signed, velocities 0.05 x signed, populations at "
                      "equilibrium plus 1% noise; tau 0.6"),
    # 2^21 rows, ~43M stored nonzeros (lognormal rows, mean ~21, padded to warps): 389 MB, >= 130 us at 3 TB/s;
    # x (8 MB) gathered from L2
    entry("spmv_jds", "holdout6/spmv_jds.cu", "spmv_jds",
          "SpMV in JDS format (Parboil), sorted rows, diagonals in __constant__", 1 << 21,
          lambda n, sms: _B(n, 128), _jds_inputs, "dst_vector", _jds_ref,
          lambda n: 2.0 * JDS_PADDED * n, lambda n: 8.0 * JDS_PADDED * n + 16.0 * n + 4.0 * JDS_CONST, rtol=1e-5,
          constants=("jds_ptr_int",),
          inputs_desc="n x n, row lengths 1 + floor(lognormal(2.5, 1)) (at most 4096), uniform random columns and "
                      "signed values; JDS with warp-padded diagonals, starts in __constant__ jds_ptr_int[5000]"),
    # RS(14, 10) over 2^22-word (16 MB) chunks: 168 MB read, 67 MB written, >= 80 us at 3 TB/s; 160 shared-memory
    # table lookups per word (random bytes: bank conflicts): ~0.2-0.6 ms
    entry("rs_encode_gf256", "holdout6/rs_encode_gf256.cu", "rs_encode_gf256",
          "Reed-Solomon encode GF(2^8), log/exp tables in shared memory", 1 << 22,
          lambda n, sms: _B(n, 256), _rs_inputs, "parity", _rs_ref, lambda n: 0.0,
          lambda n: 4.0 * (RS_K + RS_M) * n + 766.0 + RS_K * RS_M, rtol=0.0, constants=("c_matrix",),
          inputs_desc="10 data chunks of n uniform random 32-bit words; a 4 x 10 Cauchy matrix over GF(2^8) "
                      "(x^8 + x^4 + x^3 + x^2 + 1) in __constant__; the log and exp tables as arguments"),
    # 2^22 runs of mean 8: 34 MB read, 134 MB written, >= 55 us at 3 TB/s; a warp's store instructions spread over
    # 32 runs (32 sectors each) and a warp runs as long as its longest run (~25): store-issue bound, ~0.1-0.5 ms
    entry("rle_decode_runs", "holdout6/rle_decode.cu", "rle_decode_runs",
          "run-length decode, thread per run, scanned offsets", 1 << 22,
          lambda n, sms: _B(n, 256), _rle_inputs, "out", _rle_ref, lambda n: 0.0,
          lambda n: 8.0 * n + 4.0 + 4.0 * n / RLE_P, rtol=0.0,
          inputs_desc="n runs, lengths geometric with mean 8 (at least 1), random 31-bit signed values, offsets "
                      "by an exclusive scan"),
    # 16384 tokens x 4096 halves: x and residual read, out written (134 MB each), a byte mask (67 MB), >= 155 us at
    # 3 TB/s; two 32-bit hashes per thread
    entry("bias_dropout_residual", "holdout6/bias_dropout_residual.cu", "bias_dropout_residual_half2",
          "fused bias + dropout + residual, fp16 half2, hash RNG, byte mask", 16384,
          lambda n, sms: _B(n * DROP_COLS // 2, 256), _drop_inputs, "out", _drop_ref,
          lambda n: 5.0 * n * DROP_COLS, lambda n: 7.0 * n * DROP_COLS + 2.0 * DROP_COLS, rtol=1e-3,
          inputs_desc="x, residual: n x 4096 standard normal halves; bias N(0, 0.1^2) halves; p = 0.1, a fixed "
                      "seed; half rounding of the output; the entry checks out, the tests the mask"),
    # 3072 x 3072 pixels x 121 taps: 1.1G taps of ~25 instructions (a division, an __expf, clamps): ~0.6-1.5 ms;
    # 75 MB of traffic
    entry("bilateral_filter", "holdout6/bilateral_filter.cu", "d_bilateral_filter",
          "bilateral filter (CUDA sample), 11x11 window, range weights by __expf", 3072,
          lambda n, sms: ((_blocks(n, 16), _blocks(n, 16), 1), (16, 16, 1), 0), _bf_inputs, "od", _bf_ref,
          lambda n: (12.0 * (2 * BF_RADIUS + 1) ** 2 + 1.0) * n * n,
          lambda n: 8.0 * n * n + 4.0 * (2 * BF_MAX_RADIUS + 1),
          rtol=1e-4, constants=("cGaussian",),
          inputs_desc="n x n grayscale in [0, 1] (sinusoids + 5% noise, clipped); radius 5, spatial delta 4, range "
                      "delta 0.1 (the sample's defaults); the 1-D Gaussian in __constant__"),
    # 65536 queries on a 2^20-record tree (4113 nodes of 2 KB, 8.5 MB, L2-resident): a block of 256 per query, three
    # nodes read and 5 barriers each, dependent loads level to level: latency-bound, ~0.1-0.5 ms
    entry("btree_findk", "holdout6/btree_findk.cu", "findK",
          "Rodinia b+tree findK: block per query, level-by-level node search", 1 << 16,
          lambda n, sms: ((n, 1, 1), (BT_ORDER, 1, 1), 0), _bt_inputs, "ansD", _bt_ref, lambda n: 0.0,
          lambda n: 4.0 * BT_WORDS * _blocks(_bt_records(n), BT_ORDER) * (1.0 + 1.0 / BT_ORDER) + 4.0 * _bt_records(n)
          + 28.0 * n, rtol=0.0,
          inputs_desc="a B+ tree of order 256 over 2^20 distinct random keys (2^17 below 4096 queries), full leaves, "
                      "records random; n queries, 90% present, 10% absent (ans stays -1)"),
    # 8192 x 8192 doubles, one colour: u read (537 MB), half of it written, f read at half its points, >= 360 us at
    # 3 TB/s; half the threads return at once (the other colour)
    entry("sor_red_black_f64", "holdout6/sor_red_black.cu", "sor_red_black",
          "red-black SOR sweep, one colour, FP64, thread per point in place", 8192,
          lambda n, sms: ((_blocks(n, 32), _blocks(n, 8), 1), (32, 8, 1), 0), _sor_inputs, "u", _sor_ref,
          lambda n: 4.5 * (n - 2) ** 2, lambda n: 16.0 * n * n, rtol=1e-12,
          inputs_desc="u: n x n signed, boundary 0; f signed; h = 1/(n-1), omega 1.5; the red points ((i + j) even) "
                      "relaxed in place"),
    # 2^24 particles over 162^3 cells (160^3 scanned): 201 MB of float3s, 134 MB of cell and rank written, >= 110 us
    # at 3 TB/s; 16M integer atomics on a 17 MB count array (L2), about 4 per cell
    entry("insert_particles_atomic", "holdout6/insert_particles.cu", "insertParticles",
          "particle grid insert (Fluids v3): cell + atomicAdd rank", 1 << 24,
          lambda n, sms: _B(n, 256), _fl_inputs, "mgridcnt", _fl_ref, lambda n: 6.0 * n,
          lambda n: 20.0 * n + 4.0 * (_fl_side(n) + 2) ** 3, rtol=0.0,
          inputs_desc="n particles uniform over (side + 2)^3 cells of 0.5 (side 160; 8 below 2^20), the outer "
                      "layer unscanned (GRID_UNDEF); counts zeroed; the entry checks the counts, the tests the cells "
                      "and the ranks"),
]

BY_NAME, get = index(CORPUS)

if __name__ == "__main__":
    from cudasim.console import run

    from ..manifest import main
    run(main, CORPUS)
