"""The seventh held-out set: sixteen more common CUDA patterns that neither the catalog, the
corpus nor the first six held-out sets have, written as their authors write them (Rodinia's
hotspot, lavaMD and CFD solver, the CUDA samples' binomialOptions, fastWalshTransform, SobolQRNG,
histogram64 and particles, PolyBench-GPU, llm.c, Megatron-LM's fused softmax, OpenSSL's AES round,
ChaCha20, OpenCV's CUDA Canny, a GPU triangle counter and the median filter every tutorial copies)
and kept away from the model developers, so that the timing model can be tested out of sample once
more. Nine of them synchronize a block in shared memory (a pyramid, staged neighbour boxes, a
4096-barrier binomial tree, butterfly stages, direction numbers, byte counters, T-tables, gradient
accumulators, a block sum); three are FP64 (and hotspot's double literals promote part of its
float update), one fp16, five integer-only; two use atomics (a block's triangle count, LayerNorm's
gradient accumulation in shared and global memory); the CFD flux, the particle collisions, the
triangle merge, lavaMD's neighbour boxes and Canny's suppression branch or loop on their data;
four read __constant__ arrays (CFD's far field, the options, the AES round keys, SimParams).

The same shape as corpus.manifest (CORPUS, BY_NAME, get, SMS; every entry a CorpusKernel made
by corpus.manifest.entry, sources under corpus/holdout7/): each kernel with its launch, seeded
inputs, float64 numpy reference, FLOPs and compulsory bytes (each input element read once, each
output element written once). FLOPs count floating-point +, -, *, / and each math intrinsic as
one, as the source writes them; integer and comparison work counts zero. Every size is chosen for
about 50 us - 3 ms on an H100 (~3 TB/s, ~60 TFLOP/s FP32, ~30 TFLOP/s FP64) and stated with its
reason beside the entry. corpus.measure verifies the first launch and times the later ones on the
same buffers: every kernel here does the same work again on what the first launch left (lavaMD's
forces, LayerNorm's gradients, the triangle total and PolyBench's sums accumulate again over the
same loops; the rest write outputs they do not read).

    python -m corpus.holdout7.manifest       # the table: pattern, launch, bytes, FLOPs
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from kernels.catalog import _signed

from ..manifest import SMS, CorpusKernel, _blocks, _nan, entry, index

__all__ = ["CORPUS", "BY_NAME", "get", "SMS", "CorpusKernel"]

f32, f64, i32, u32 = np.float32, np.float64, np.int32, np.uint32


def _B(n, b):  # one thread per item, b-thread blocks
    return (_blocks(n, b), 1, 1), (b, 1, 1), 0


# ---- Rodinia hotspot ----------------------------------------------------------------------------
HS_BLOCK, HS_PYRAMID = 16, 2  # Rodinia's BLOCK_SIZE and the pyramid height of its runs (hotspot 512 2 2 ...)
HS_SMALL = HS_BLOCK - 2 * HS_PYRAMID  # 12 x 12 cells written per block
HS_AMB = 80.0
HS_CHIP, HS_T_CHIP = 0.016, 0.0005  # chip 16 mm x 16 mm, 0.5 mm thick
HS_POWER_W = 80.0  # total dissipated power
HS_STEP_GRID = 1024  # Rodinia's largest input grid: its time step is scaled from there (see _hs_params)


def _hs_params(n):
    """Cap, Rx, Ry, Rz as Rodinia's compute_tran_temp computes them for an n x n grid; the time step
    Rodinia's (PRECISION / max_slope) scaled by (1024 / n)^2. Rodinia's fixed step keeps the explicit
    scheme stable only up to about 2048 cells a side (step / Cap / R is 0.14 at 1024 and 8.7 at 8192,
    where two steps would amplify float32 rounding ~1000-fold); scaled, every grid takes the step
    Rodinia's 1024 grid takes per unit of cell capacitance."""
    gh = gw = HS_CHIP / n
    cap = 0.5 * 1.75e6 * HS_T_CHIP * gw * gh  # FACTOR_CHIP * SPEC_HEAT_SI * t_chip * width * height
    rx = gw / (2.0 * 100 * HS_T_CHIP * gh)  # K_SI = 100
    ry = gh / (2.0 * 100 * HS_T_CHIP * gw)
    rz = HS_T_CHIP / (100 * gh * gw)
    max_slope = 3.0e6 / (0.5 * HS_T_CHIP * 1.75e6)  # MAX_PD / (FACTOR_CHIP * t_chip * SPEC_HEAT_SI)
    step = 0.001 / max_slope * (HS_STEP_GRID / n) ** 2  # PRECISION / max_slope, scaled
    return tuple(f32(v) for v in (cap, rx, ry, rz, step))


def _hs_inputs(n, rng):
    """An n x n chip: a floorplan of 24 rectangular units (lognormal power densities over a low
    background) dissipating 80 W in all; the temperature 323.15 K plus 25 K of smooth hot spots
    under the hottest units, steps of up to ~2 K at the units' edges (a coarse earlier solution) and
    0.1 K of noise."""
    power = np.full((n, n), 0.05, f32)  # background density (relative)
    units = []
    for _ in range(24):
        h, w = rng.integers(n // 20 + 1, n // 4 + 2, 2)
        y0, x0 = rng.integers(0, n - h + 1), rng.integers(0, n - w + 1)
        d = f32(rng.lognormal(0.0, 1.0))
        power[y0:y0 + h, x0:x0 + w] += d
        units.append((y0 + h / 2, x0 + w / 2, d * h * w))
    temp = np.full((n, n), 323.15, f32) + f32(2.0 / power.max()) * power
    power *= f32(HS_POWER_W / float(power.sum(dtype=f64)))
    axis = np.arange(n, dtype=f64)
    total = sum(u[2] for u in units)
    for cy, cx, p in sorted(units, key=lambda u: -u[2])[:8]:
        width = n / 8.0
        gy = np.exp(-((axis - cy) / width) ** 2)
        gx = np.exp(-((axis - cx) / width) ** 2)
        temp += (25.0 * p / total * np.outer(gy, gx)).astype(f32)
    temp += (0.1 * rng.standard_normal((n, n))).astype(f32)
    cap, rx, ry, rz, step = _hs_params(n)
    return {"iteration": i32(HS_PYRAMID), "power": power.ravel(), "temp_src": temp.ravel(), "temp_dst": _nan(n * n),
            "grid_cols": i32(n), "grid_rows": i32(n), "border_cols": i32(HS_PYRAMID), "border_rows": i32(HS_PYRAMID),
            "Cap": cap, "Rx": rx, "Ry": ry, "Rz": rz, "step": step, "time_elapsed": f32(0.001)}


def _hs_ref(d):
    """`iteration` explicit steps, neighbours clamped at the chip's edges (the kernel's valid range)."""
    n = int(d["grid_cols"])
    t = d["temp_src"].reshape(n, n).astype(f64)
    p = d["power"].reshape(n, n).astype(f64)
    sdc = float(f32(d["step"]) / f32(d["Cap"]))  # float32 quotients, as the kernel
    rx1, ry1, rz1 = (float(f32(1) / f32(d[r])) for r in ("Rx", "Ry", "Rz"))
    for _ in range(int(d["iteration"])):
        q = np.pad(t, 1, mode="edge")
        t = t + sdc * (p + (q[2:, 1:-1] + q[:-2, 1:-1] - 2.0 * t) * ry1 + (q[1:-1, 2:] + q[1:-1, :-2] - 2.0 * t) * rx1
                       + (HS_AMB - t) * rz1)
    return t.ravel()


def _hs_flops(n):
    """15 per cell update as written, over each block's computed region: 14^2 then 12^2 cells."""
    per_block = sum((HS_BLOCK - 2 * (i + 1)) ** 2 for i in range(HS_PYRAMID))
    return 15.0 * per_block * _blocks(n, HS_SMALL) ** 2


# ---- Rodinia lavaMD -----------------------------------------------------------------------------
LMD_PAR, LMD_THREADS, LMD_ALPHA = 100, 128, 0.5  # NUMBER_PAR_PER_BOX, NUMBER_THREADS, par_cpu.alpha
_NEI = np.dtype([("x", "<i4"), ("y", "<i4"), ("z", "<i4"), ("number", "<i4"), ("offset", "<i8")], align=True)
_BOX = np.dtype([("x", "<i4"), ("y", "<i4"), ("z", "<i4"), ("number", "<i4"), ("offset", "<i8"), ("nn", "<i4"),
                 ("nei", _NEI, (26,))], align=True)
_PAR = np.dtype([("alpha", "<f8")])
_DIM = np.dtype([("cur_arg", "<i4"), ("arch_arg", "<i4"), ("cores_arg", "<i4"), ("boxes1d_arg", "<i4"),
                 ("number_boxes", "<i8"), ("box_mem", "<i8"), ("space_elem", "<i8"), ("space_mem", "<i8"),
                 ("space_mem2", "<i8")])


def _lmd_boxes(b1d):
    """Rodinia's box list: boxes numbered z, y, x (x fastest), each with its in-range neighbours
    in (l, m, n) = (dz, dy, dx) order, as main.c builds them."""
    boxes = np.zeros(b1d ** 3, _BOX)
    nh = 0
    for i in range(b1d):
        for j in range(b1d):
            for k in range(b1d):
                bx = boxes[nh]
                bx["x"], bx["y"], bx["z"], bx["number"], bx["offset"] = k, j, i, nh, nh * LMD_PAR
                nn = 0
                for dz in (-1, 0, 1):
                    for dy in (-1, 0, 1):
                        for dx in (-1, 0, 1):
                            if (dz, dy, dx) == (0, 0, 0):
                                continue
                            z, y, x = i + dz, j + dy, k + dx
                            if 0 <= z < b1d and 0 <= y < b1d and 0 <= x < b1d:
                                number = (z * b1d + y) * b1d + x
                                bx["nei"][nn] = (x, y, z, number, number * LMD_PAR)
                                nn += 1
                bx["nn"] = nn
                nh += 1
    return boxes


def _lmd_inputs(n, rng):
    """boxes1d = n: n^3 boxes of 100 particles; v, x, y, z and the charges (rand() % 10 + 1) / 10
    as Rodinia's main.c draws them; forces zeroed."""
    boxes = _lmd_boxes(n)
    nb = len(boxes)
    elem = nb * LMD_PAR
    par = np.array([(LMD_ALPHA,)], _PAR)[0]
    dim = np.array([(0, 0, 1, n, nb, nb * _BOX.itemsize, elem, elem * 32, elem * 8)], _DIM)[0]
    return {"d_par_gpu": par, "d_dim_gpu": dim, "d_box_gpu": boxes.view(i32).copy(),
            "d_rv_gpu": (rng.integers(1, 11, 4 * elem) / 10.0).astype(f64),
            "d_qv_gpu": (rng.integers(1, 11, elem) / 10.0).astype(f64), "d_fv_gpu": np.zeros(4 * elem, f64)}


def _lmd_ref(d):
    boxes = d["d_box_gpu"].view(_BOX)
    rv = d["d_rv_gpu"].reshape(-1, LMD_PAR, 4)
    qv = d["d_qv_gpu"].reshape(-1, LMD_PAR)
    fv = d["d_fv_gpu"].reshape(-1, LMD_PAR, 4).copy()
    a2 = 2.0 * float(d["d_par_gpu"]["alpha"]) ** 2
    for b, box in enumerate(boxes):
        nbrs = np.r_[b, box["nei"]["number"][:box["nn"]]]
        rB, qB = rv[nbrs].reshape(-1, 4), qv[nbrs].ravel()
        rA = rv[b]
        r2 = rA[:, None, 0] + rB[None, :, 0] - rA[:, 1:] @ rB[:, 1:].T
        vij = np.exp(-a2 * r2)
        fs = 2.0 * vij
        fv[b, :, 0] += (qB * vij).sum(axis=1)
        for c in (1, 2, 3):
            fv[b, :, c] += (qB * fs * (rA[:, None, c] - rB[None, :, c])).sum(axis=1)
    return fv.ravel()


def _lmd_pairs(n):
    per_dim = np.array([min(i + 1, n - 1) - max(i - 1, 0) + 1 for i in range(n)])  # boxes within one step
    return float(per_dim.sum() ** 3) * LMD_PAR * LMD_PAR


# ---- Rodinia CFD (euler3d_double) ----------------------------------------------------------------
CFD_GAMMA, CFD_MACH, CFD_NNB, CFD_NVAR = 1.4, 1.2, 4, 5


def _cfd_side(n):
    s = round(n ** (1 / 3))
    assert s ** 3 == n and n % 128 == 0, "nelr must be a cube and a multiple of block_length"
    return s


def _cfd_far_field():
    """ff_variable and the four far-field flux contributions, as euler3d's main computes them
    (angle of attack 0, Mach 1.2, density 1.4, pressure 1)."""
    rho, p = 1.4, 1.0
    c = math.sqrt(CFD_GAMMA * p / rho)
    speed = CFD_MACH * c
    vel = np.array([speed * math.cos(0.0), speed * math.sin(0.0), 0.0])
    mom = rho * vel
    ff = np.array([rho, *mom, rho * (0.5 * speed * speed) + p / (CFD_GAMMA - 1.0)])
    return ff, _cfd_flux_contribution(mom, ff[4], p, vel)


def _cfd_flux_contribution(mom, de, p, vel):
    """(fc_momentum_x, _y, _z, fc_density_energy), each (..., 3)."""
    fx = np.stack([vel[..., 0] * mom[..., 0] + p, vel[..., 0] * mom[..., 1], vel[..., 0] * mom[..., 2]], -1)
    fy = np.stack([fx[..., 1], vel[..., 1] * mom[..., 1] + p, vel[..., 1] * mom[..., 2]], -1)
    fz = np.stack([fx[..., 2], fy[..., 2], vel[..., 2] * mom[..., 2] + p], -1)
    de_p = de + p
    return fx, fy, fz, vel * de_p[..., None] if np.ndim(de_p) else vel * de_p


def _cfd_mesh(n):
    """An s^3 lattice of elements (x fastest), four faces each: x - 1, x + 1, and one y and one z
    face whose side alternates with the parity of x + y + z (a tetrahedral-like 4-neighbour mesh).
    Faces leaving the box are far field (-2); faces crossing the plate z = s/2 over the middle half
    of x and y are the wing (-1)."""
    s = _cfd_side(n)
    z, y, x = np.meshgrid(np.arange(s), np.arange(s), np.arange(s), indexing="ij")
    sign = np.where((x + y + z) % 2 == 0, 1, -1)
    steps = [(0, -1), (0, 1), (1, sign), (2, sign)]  # (axis, step)
    coords = [x, y, z]
    nbs, axes, dirs = [], [], []
    wing_xy = (x >= s // 4) & (x < 3 * s // 4) & (y >= s // 4) & (y < 3 * s // 4)
    for axis, step in steps:
        c = [v.copy() for v in coords]
        c[axis] = c[axis] + step
        inside = (c[axis] >= 0) & (c[axis] < s)
        nb = np.where(inside, (c[2] * s + c[1]) * s + c[0], -2)
        if axis == 2:
            crosses = wing_xy & (np.minimum(z, c[2]) == s // 2 - 1) & (np.maximum(z, c[2]) == s // 2)
            nb = np.where(crosses, -1, nb)
        nbs.append(nb.ravel())
        axes.append(axis)
        dirs.append(np.broadcast_to(step, x.shape).ravel())
    return np.stack(nbs), axes, np.stack(dirs)


def _cfd_inputs(n, rng):
    """nelr = n elements on the lattice mesh in [0, 1]^3 (s = n^(1/3) per side): face normals of
    area h^2 (+-20%) along the face's axis, tilted by 15% random components; the flow a smooth
    perturbation (+-5% density and pressure, +-10% velocity, 2% noise) of the far field."""
    s = _cfd_side(n)
    nbs, axes, dirs = _cfd_mesh(n)
    h = 1.0 / s
    normals = np.empty((3, CFD_NNB, n))
    for j, axis in enumerate(axes):
        area = h * h * (1.0 + 0.2 * rng.uniform(-1, 1, n))
        vec = 0.15 * rng.standard_normal((3, n))
        vec[axis] += dirs[j]
        normals[:, j] = vec * area
    ff, _ = _cfd_far_field()
    z, y, x = (a.ravel() * h for a in np.meshgrid(np.arange(s), np.arange(s), np.arange(s), indexing="ij"))
    wave = np.sin(2 * np.pi * x) * np.sin(2 * np.pi * y) * np.cos(2 * np.pi * z)
    rho = ff[0] * (1.0 + 0.05 * wave + 0.02 * rng.uniform(-1, 1, n))
    vel = ff[1:4] / ff[0]
    v = np.stack([vel[0] * (1.0 + 0.1 * wave) + 0.02 * rng.standard_normal(n),
                  0.1 * vel[0] * np.cos(2 * np.pi * x) * wave + 0.02 * rng.standard_normal(n),
                  0.02 * rng.standard_normal(n)])
    p = 1.0 + 0.05 * np.cos(2 * np.pi * (x + y)) + 0.02 * rng.uniform(-1, 1, n)
    energy = rho * 0.5 * (v * v).sum(axis=0) + p / (CFD_GAMMA - 1.0)
    variables = np.concatenate([rho, *(rho * v), energy])
    ff, (fx, fy, fz, fde) = _cfd_far_field()
    return {"nelr": i32(n), "elements_surrounding_elements": nbs.astype(i32).ravel(), "normals": normals.ravel(),
            "variables": variables, "fluxes": _nan(CFD_NVAR * n, f64), "ff_variable": ff,
            "ff_flux_contribution_momentum_x": fx, "ff_flux_contribution_momentum_y": fy,
            "ff_flux_contribution_momentum_z": fz, "ff_flux_contribution_density_energy": fde}


def _cfd_state(var):
    """(density, momentum (n, 3), density_energy, pressure, velocity, speed_sqd, speed_of_sound)."""
    rho, mom, de = var[0], var[1:4].T, var[4]
    vel = mom / rho[:, None]
    sq = (vel * vel).sum(axis=1)
    p = (CFD_GAMMA - 1.0) * (de - 0.5 * rho * sq)
    return rho, mom, de, p, vel, sq, np.sqrt(CFD_GAMMA * p / rho)


def _cfd_ref(d):
    n = int(d["nelr"])
    var = d["variables"].reshape(CFD_NVAR, n)
    nbs = d["elements_surrounding_elements"].reshape(CFD_NNB, n)
    normals = d["normals"].reshape(3, CFD_NNB, n)
    rho, mom, de, p, vel, sq, c = _cfd_state(var)
    fc_i = _cfd_flux_contribution(mom, de, p, vel)
    ff = d["ff_variable"]
    fc_ff = tuple(d[k] for k in ("ff_flux_contribution_momentum_x", "ff_flux_contribution_momentum_y",
                                 "ff_flux_contribution_momentum_z", "ff_flux_contribution_density_energy"))
    flux = np.zeros((CFD_NVAR, n))
    cons_i = np.concatenate([rho[None], mom.T, de[None]])
    for j in range(CFD_NNB):
        nb = nbs[j]
        normal = normals[:, j].T
        nlen = np.sqrt((normal * normal).sum(axis=1))
        inner = nb >= 0
        idx = np.where(inner, nb, 0)
        rho_n, mom_n, de_n, p_n, vel_n, sq_n, c_n = _cfd_state(var[:, idx])
        fc_n = _cfd_flux_contribution(mom_n, de_n, p_n, vel_n)
        factor = -nlen * 0.2 * 0.5 * (np.sqrt(sq) + np.sqrt(sq_n) + c + c_n)
        cons_n = np.concatenate([rho_n[None], mom_n.T, de_n[None]])
        f_in = factor * (cons_i - cons_n)
        # central flux: density by momentum, momentum x/y/z by fc_momentum_x/y/z, energy by fc_density_energy
        for dim in range(3):
            half = 0.5 * normal[:, dim]
            f_in[0] += half * (mom_n[:, dim] + mom[:, dim])
            f_in[4] += half * (fc_n[3][:, dim] + fc_i[3][:, dim])
            for m in range(3):
                f_in[1 + m] += half * (fc_n[m][:, dim] + fc_i[m][:, dim])
        f_wing = np.zeros((CFD_NVAR, n))
        f_wing[1:4] = (normal * p[:, None]).T
        f_far = np.zeros((CFD_NVAR, n))
        for dim in range(3):
            half = 0.5 * normal[:, dim]
            f_far[0] += half * (ff[1 + dim] + mom[:, dim])
            f_far[4] += half * (fc_ff[3][dim] + fc_i[3][:, dim])
            for m in range(3):
                f_far[1 + m] += half * (fc_ff[m][dim] + fc_i[m][:, dim])
        flux += np.where(inner, f_in, np.where(nb == -1, f_wing, np.where(nb == -2, f_far, 0.0)))
    return flux.ravel()


def _cfd_flops(n):
    """As written: 30 for the element's own state; per face 6 for the normal's length, then 99 for a
    neighbour element, 6 for a wing face, 48 for a far-field face."""
    nbs = _cfd_mesh(n)[0]
    return float(30 * n + 6 * nbs.size + 99 * (nbs >= 0).sum() + 6 * (nbs == -1).sum() + 48 * (nbs == -2).sum())


# ---- CUDA samples binomialOptions ---------------------------------------------------------------
BO_STEPS, BO_MAX, BO_THREADS = 2048, 1024, 128  # NUM_STEPS, MAX_OPTIONS, THREADBLOCK_SIZE
BO_R, BO_V = 0.06, 0.10  # the sample's riskless rate and volatility


def _bo_inputs(n, rng):
    """MAX_OPTIONS options as the sample draws them (S in [5, 30), X in [1, 100), T in [0.25, 10),
    R 6%, V 10%), preprocessed on the host as binomialOptionsGPU does into (S, X, vDt, puByDf,
    pdByDf) for __constant__ memory; the first n are priced."""
    S, X, T = rng.uniform(5.0, 30.0, BO_MAX), rng.uniform(1.0, 100.0, BO_MAX), rng.uniform(0.25, 10.0, BO_MAX)
    dt = T / BO_STEPS
    vDt = BO_V * np.sqrt(dt)
    rDt = BO_R * dt
    If, Df = np.exp(rDt), np.exp(-rDt)
    u, dd = np.exp(vDt), np.exp(-vDt)
    pu = (If - dd) / (u - dd)
    pd = 1.0 - pu
    data = np.stack([S, X, vDt, pu * Df, pd * Df], axis=1)
    return {"d_CallValue": _nan(n, f64), "d_OptionData": data.ravel()}


def _bo_ref(d):
    """The tree's value at the root in closed form: sum_i C(N, i) puByDf^i pdByDf^(N - i) payoff_i."""
    n = len(d["d_CallValue"])
    S, X, vDt, pu, pd = d["d_OptionData"].reshape(-1, 5)[:n].T
    i = np.arange(BO_STEPS + 1)
    lnc = np.array([math.lgamma(BO_STEPS + 1) - math.lgamma(k + 1) - math.lgamma(BO_STEPS - k + 1) for k in i])
    payoff = np.maximum(S[:, None] * np.exp(vDt[:, None] * (2.0 * i - BO_STEPS)) - X[:, None], 0.0)
    w = np.exp(lnc + i * np.log(pu)[:, None] + (BO_STEPS - i) * np.log(pd)[:, None])
    return (w * payoff).sum(axis=1)


def _bo_flops(n):
    """6 per expiry value (2049), 3 per node update: a thread's 16 nodes while the step i exceeds
    max(0, 16 tid - 1)."""
    e = BO_STEPS // BO_THREADS
    updates = sum(e * sum(1 for t in range(BO_THREADS) if i > max(0, e * t - 1)) for i in range(1, BO_STEPS + 1))
    return float(n * (6 * (BO_STEPS + 1) + 3 * updates))


# ---- CUDA samples fastWalshTransform ------------------------------------------------------------
FWT_LOG2N = 11  # ELEMENTARY_LOG2SIZE: 2048-point transforms, 512 threads, 8 KB of shared memory


def _fwt_ref(d):
    x = d["d_Input"].astype(f64).reshape((-1,) + (2,) * int(d["log2N"]))
    for axis in range(1, x.ndim):
        a, b = np.take(x, 0, axis=axis), np.take(x, 1, axis=axis)
        x = np.stack([a + b, a - b], axis=axis)
    return x.ravel()


# ---- CUDA samples SobolQRNG ---------------------------------------------------------------------
SOBOL_DIRS, SOBOL_THREADS = 32, 64  # n_directions, threadsperblock
SOBOL_K = np.float32(2.3283064E-10)  # k_2powneg32


def _sobol_dims(n):  # the sample's 100 dimensions; 4 below 2^16 vectors
    return 100 if n >= 1 << 16 else 4


def _sobol_grid(n, dims, sms):
    """sobolGPU's launch: 4 blocks per SM unless the dimensions alone fill the GPU, capped by the
    vectors, rounded up to a power of two (the stride must be one)."""
    gx = 4 * sms if dims < 4 * sms else 1
    if gx > n // SOBOL_THREADS:
        gx = _blocks(n, SOBOL_THREADS)
    return 1 << max(0, (gx - 1).bit_length())


@lru_cache(maxsize=None)
def _primitive_polys(count):
    """The first `count` primitive polynomials over GF(2) by degree, then value: (degree, a) with
    a the middle coefficients (Joe and Kuo's encoding)."""
    out = []
    deg = 1
    while len(out) < count:
        for mid in range(1 << (deg - 1)):
            poly = (1 << deg) | (mid << 1) | 1
            order, v = 0, 1
            while True:  # the multiplicative order of x modulo poly
                v <<= 1
                if v >> deg & 1:
                    v ^= poly
                order += 1
                if v == 1 or order > (1 << deg):
                    break
            if v == 1 and order == (1 << deg) - 1:
                out.append((deg, mid))
                if len(out) == count:
                    break
        deg += 1
    return out


def _sobol_directions(dims, rng):
    """32 direction numbers per dimension: the first 2^(31-k), the others by Bratley and Fox's
    recurrence on the primitive polynomials with random odd initial m_k < 2^(k+1)."""
    v = np.zeros((dims, SOBOL_DIRS), np.uint64)
    v[0] = [1 << (31 - k) for k in range(SOBOL_DIRS)]
    for dim, (s, a) in enumerate(_primitive_polys(dims - 1), start=1):
        for k in range(s):
            v[dim, k] = (2 * int(rng.integers(0, 1 << k)) + 1) << (31 - k)
        for k in range(s, SOBOL_DIRS):
            w = int(v[dim, k - s]) ^ (int(v[dim, k - s]) >> s)
            for j in range(1, s):
                w ^= ((a >> (s - 1 - j)) & 1) * int(v[dim, k - j])
            v[dim, k] = w
    return v.astype(u32)


def _sobol_inputs(n, rng):
    dims = _sobol_dims(n)
    return {"n_vectors": u32(n), "n_dimensions": u32(dims), "d_directions": _sobol_directions(dims, rng).ravel(),
            "d_output": _nan(n * dims)}


def _sobol_points(d):
    """X(i) = xor of v_k over the set bits k of i's Gray code, per dimension (uint32)."""
    n, dims = int(d["n_vectors"]), int(d["n_dimensions"])
    v = d["d_directions"].reshape(dims, SOBOL_DIRS)
    i = np.arange(n, dtype=np.uint64)
    g = (i ^ (i >> np.uint64(1))).astype(u32)
    out = np.zeros((dims, n), u32)
    for k in range(max(1, n.bit_length())):
        bit = ((g >> u32(k)) & u32(1)).astype(bool)
        out ^= np.where(bit, v[:, k:k + 1], u32(0))
    return out


def _sobol_ref(d):
    return (_sobol_points(d).astype(f32) * SOBOL_K).astype(f64).ravel()


# ---- CUDA samples histogram64 -------------------------------------------------------------------
H64_THREADS, H64_BINS = 64, 64  # HISTOGRAM64_THREADBLOCK_SIZE, HISTOGRAM64_BIN_COUNT
H64_BYTES_PER_THREAD = 240  # iSnapDown(255, sizeof(uint4)): no byte counter passes 255


def _h64_blocks(nbytes):
    return _blocks(nbytes, H64_THREADS * H64_BYTES_PER_THREAD)


def _h64_inputs(n, rng):
    """n bytes (a multiple of 16) of 8-bit image data: a bell-shaped histogram (binomial(255, 0.45))
    with 10% saturated highlights and shadows, as uint32 words read as uint4."""
    assert n % 16 == 0
    data = np.empty(n, np.uint8)
    for s in range(0, n, 1 << 24):
        m = min(1 << 24, n - s)
        chunk = rng.binomial(255, 0.45, m).astype(np.uint8)
        clip = rng.random(m)
        chunk[clip < 0.05] = 0
        chunk[clip > 0.95] = 255
        data[s:s + m] = chunk
    return {"d_PartialHistograms": np.full(_h64_blocks(n) * H64_BINS, 0xFFFFFFFF, u32), "d_Data": data.view(u32),
            "dataCount": u32(n // 16)}


def _h64_ref(d):
    """Each block's partial histogram: uint4 p goes to block (p // 64) % gridDim (the grid-stride
    loop), its 16 bytes to bins byte >> 2."""
    data = d["d_Data"].view(np.uint8)
    g = len(d["d_PartialHistograms"]) // H64_BINS
    out = np.zeros(g * H64_BINS, np.int64)
    step = 1 << 24
    for s in range(0, len(data), step):
        b = data[s:s + step]
        p = (s + np.arange(len(b))) // 16
        key = ((p // H64_THREADS) % g) * H64_BINS + (b >> 2)
        out += np.bincount(key, minlength=g * H64_BINS)
    return out.astype(f64)


# ---- triangle counting ---------------------------------------------------------------------------
TC_EDGE_FACTOR, TC_RMAT = 16, (0.57, 0.19, 0.19, 0.05)  # Graph500's R-MAT parameters
TC_BLOCK = 256


@lru_cache(maxsize=4)
def _tc_graph(n, seed):
    """An R-MAT graph on n = 2^scale vertices (16 n edges drawn, Graph500's a, b, c, d), made
    simple and undirected, relabelled by degree (ascending, ties by id) and oriented from lower to
    higher label: (row_ptr, col_idx sorted per row, edge_src)."""
    rng = np.random.default_rng(seed)
    scale = n.bit_length() - 1
    assert 1 << scale == n
    m = TC_EDGE_FACTOR * n
    src = np.zeros(m, np.int64)
    dst = np.zeros(m, np.int64)
    a, b, c, _ = TC_RMAT
    for bit in range(scale):
        r = rng.random(m)
        src |= ((r >= a + b)).astype(np.int64) << bit
        dst |= (((r >= a) & (r < a + b)) | (r >= a + b + c)).astype(np.int64) << bit
    perm = rng.permutation(n)  # scramble the vertex ids, as Graph500 does
    src, dst = perm[src], perm[dst]
    keep = src != dst
    lo, hi = np.minimum(src[keep], dst[keep]), np.maximum(src[keep], dst[keep])
    key = np.unique(lo * n + hi)
    lo, hi = key // n, key % n
    deg = np.bincount(lo, minlength=n) + np.bincount(hi, minlength=n)
    rank = np.empty(n, np.int64)
    rank[np.lexsort((np.arange(n), deg))] = np.arange(n)
    u, v = rank[lo], rank[hi]
    u, v = np.minimum(u, v), np.maximum(u, v)
    order = np.lexsort((v, u))
    u, v = u[order], v[order]
    row_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(u, minlength=n), out=row_ptr[1:])
    return row_ptr.astype(i32), v.astype(i32), u.astype(i32)


TC_SEED = 2024  # the graph depends on n only: its edge count sets the launch


def _tc_inputs(n, rng):
    row_ptr, col_idx, edge_src = _tc_graph(n, TC_SEED)
    return {"row_ptr": row_ptr, "col_idx": col_idx, "edge_src": edge_src, "num_edges": i32(len(col_idx)),
            "total": np.zeros(1, np.uint64)}


def _tc_triangles(d):
    """Triangles by wedge checking: for every u and pair v < w of N+(u), is v -> w an edge?"""
    row_ptr, col = d["row_ptr"].astype(np.int64), d["col_idx"].astype(np.int64)
    n = len(row_ptr) - 1
    keys = d["edge_src"].astype(np.int64) * n + col  # sorted, as the CSR is
    deg = np.diff(row_ptr)
    total = 0
    for k in range(1, int(deg.max(initial=0))):  # pairs (v, w) = (N+(u)[i], N+(u)[i + k])
        us = np.flatnonzero(deg > k)
        starts = row_ptr[us]
        counts = deg[us] - k
        first = np.repeat(starts, counts) + (np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts))
        q = col[first] * n + col[first + k]
        at = np.minimum(np.searchsorted(keys, q), len(keys) - 1)
        total += int((keys[at] == q).sum())
    return total


def _tc_ref(d):
    return np.array([float(d["total"][0]) + _tc_triangles(d)])


TC_EDGES_PER_VERTEX = 14.517  # oriented edges per vertex after de-duplication (scale 18, TC_SEED)


# ---- llm.c layernorm_backward --------------------------------------------------------------------
LN_C, LN_T, LN_BLOCK = 768, 1024, 512  # GPT-2 small's channels, llm.c's T, block_size


def _ln_bt(n):
    t = min(LN_T, n)
    assert n % t == 0 and n % (LN_BLOCK // 32) == 0
    return n // t, t


def _ln_inputs(n, rng):
    """n = B * T rows of GPT-2's 768 channels: activations with per-row offsets and scales, their
    mean and rstd (eps 1e-5, as the forward pass saved them), LayerNorm weights near 1, upstream
    gradients N(0, 0.02^2); dinp holds the residual stream's gradient so far, dweight and dbias 0."""
    B, T = _ln_bt(n)
    C = LN_C
    x = (rng.standard_normal((n, C)) * rng.uniform(0.5, 2.0, (n, 1)) + rng.normal(0, 0.3, (n, 1))).astype(f32)
    mean = x.astype(f64).mean(axis=1)
    rstd = 1.0 / np.sqrt(x.astype(f64).var(axis=1) + 1e-5)
    return {"dinp": (0.01 * rng.standard_normal(n * C)).astype(f32), "dweight": np.zeros(C, f32),
            "dbias": np.zeros(C, f32), "dout": (0.02 * rng.standard_normal(n * C)).astype(f32), "inp": x.ravel(),
            "weight": (1.0 + 0.1 * rng.standard_normal(C)).astype(f32), "mean": mean.astype(f32),
            "rstd": rstd.astype(f32), "B": i32(B), "T": i32(T), "C": i32(C)}


def _ln_grads(d):
    """(dinp, dweight, dbias) in float64 from the float32 inputs."""
    C = int(d["C"])
    x, dout = d["inp"].astype(f64).reshape(-1, C), d["dout"].astype(f64).reshape(-1, C)
    norm = (x - d["mean"].astype(f64)[:, None]) * d["rstd"].astype(f64)[:, None]
    dnorm = d["weight"].astype(f64) * dout
    dval = (dnorm - dnorm.mean(axis=1, keepdims=True) - norm * (dnorm * norm).mean(axis=1, keepdims=True))
    dinp = d["dinp"].astype(f64) + (dval * d["rstd"].astype(f64)[:, None]).ravel()
    return dinp, d["dweight"] + (norm * dout).sum(axis=0), d["dbias"] + dout.sum(axis=0)


# ---- Megatron causal softmax ---------------------------------------------------------------------
CS_SEQ, CS_HEADS, CS_DHEAD = 2048, 64, 128  # keys per row (log2_elements 11), attention batches, head size


def _cs_shape(n):  # n = sequence length; 64 attention batches (4 below 1024 keys)
    return (CS_HEADS if n >= 1024 else 4), n


def _cs_inputs(n, rng):
    """Raw attention scores q . k in fp16 for (batch x heads) = 64 and n queries x n keys, N(0, 128)
    as unit queries and keys of head size 128 give; scale 1/sqrt(128)."""
    b, s = _cs_shape(n)
    return {"dst": np.full(b * s * s, np.nan, np.float16),
            "src": (rng.standard_normal(b * s * s, dtype=f32) * np.sqrt(CS_DHEAD)).astype(np.float16),
            "scale": f32(1.0 / np.sqrt(CS_DHEAD)), "micro_batch_size": i32(b * s), "stride": i32(s),
            "element_count": i32(s)}


def _cs_ref(d):
    s = int(d["element_count"])
    x = d["src"].astype(f64).reshape(-1, s, s) * float(d["scale"])
    mask = np.tril(np.ones((s, s), bool))
    x = np.where(mask, x, -np.inf)
    e = np.exp(x - x.max(axis=2, keepdims=True))
    return (e / e.sum(axis=2, keepdims=True)).ravel()


# ---- AES-128 T-tables ----------------------------------------------------------------------------
def _aes_sbox():
    """The AES S-box from GF(2^8) inverses (x^8 + x^4 + x^3 + x + 1) and the affine map."""
    exp, log = [0] * 510, [0] * 256
    v = 1
    for i in range(255):
        exp[i] = exp[i + 255] = v
        log[v] = i
        v ^= (v << 1) ^ (0x11B if v & 0x80 else 0)  # times 3, the generator
        v &= 0xFF
    sbox = np.zeros(256, np.uint8)
    for x in range(256):
        inv = 0 if x == 0 else exp[255 - log[x]]
        s = inv
        for r in range(1, 5):
            s ^= ((inv << r) | (inv >> (8 - r))) & 0xFF
        sbox[x] = s ^ 0x63
    return sbox


def _xtime(b):
    b = b.astype(u32)
    return ((b << u32(1)) ^ np.where(b & u32(0x80), u32(0x11B), u32(0))) & u32(0xFF)


def _aes_tables():
    """OpenSSL's Te0..Te3 (Te0[x] = S[x].{02, 01, 01, 03}, Te1..Te3 its byte rotations), 1024 words."""
    s = _aes_sbox().astype(u32)
    s2 = _xtime(s)
    s3 = s2 ^ s
    te0 = (s2 << u32(24)) | (s << u32(16)) | (s << u32(8)) | s3
    rot = [te0]
    for _ in range(3):
        rot.append((rot[-1] >> u32(8)) | (rot[-1] << u32(24)))
    return np.concatenate(rot).astype(u32)


def _aes_key_schedule(key):
    """AES-128's 44 round-key words (big-endian words of the 16 key bytes)."""
    sbox = _aes_sbox().astype(u32)
    w = [int.from_bytes(bytes(key[4 * i:4 * i + 4]), "big") for i in range(4)]
    rcon = 1
    for i in range(4, 44):
        t = w[i - 1]
        if i % 4 == 0:
            t = ((t << 8) | (t >> 24)) & 0xFFFFFFFF
            t = (int(sbox[t >> 24]) << 24) | (int(sbox[(t >> 16) & 0xFF]) << 16) | (int(sbox[(t >> 8) & 0xFF]) << 8) \
                | int(sbox[t & 0xFF])
            t ^= rcon << 24
            rcon = ((rcon << 1) ^ (0x11B if rcon & 0x80 else 0)) & 0xFF
        w.append(w[i - 4] ^ t)
    return np.array(w, u32)


def _bswap(x):
    return x.astype(u32).byteswap()


def _aes_encrypt_words(words, rk, te):
    """ECB encryption of little-endian uint32 words (4 per block) by the T-table rounds."""
    T = [te[256 * k:256 * (k + 1)] for k in range(4)]
    s = _bswap(words.reshape(-1, 4)) ^ rk[:4]
    b = lambda x, sh: (x >> u32(sh)) & u32(0xFF)  # noqa: E731
    for r in range(1, 10):
        s = np.stack([T[0][b(s[:, c], 24)] ^ T[1][b(s[:, (c + 1) % 4], 16)] ^ T[2][b(s[:, (c + 2) % 4], 8)]
                      ^ T[3][b(s[:, (c + 3) % 4], 0)] ^ rk[4 * r + c] for c in range(4)], axis=1)
    out = np.stack([(T[2][b(s[:, c], 24)] & u32(0xFF000000)) ^ (T[3][b(s[:, (c + 1) % 4], 16)] & u32(0x00FF0000))
                    ^ (T[0][b(s[:, (c + 2) % 4], 8)] & u32(0x0000FF00)) ^ (T[1][b(s[:, (c + 3) % 4], 0)] & u32(0xFF))
                    ^ rk[40 + c] for c in range(4)], axis=1)
    return _bswap(out).ravel()


def _aes_inputs(n, rng):
    """n 16-byte blocks of random data under a random 128-bit key."""
    key = rng.integers(0, 256, 16, dtype=np.uint8)
    return {"in": rng.integers(0, 1 << 32, 4 * n, dtype=np.uint64).astype(u32), "out": np.full(4 * n, 0xDEADBEEF, u32),
            "Te": _aes_tables(), "nblocks": i32(n), "c_rk": _aes_key_schedule(key)}


def _aes_ref(d):
    return _aes_encrypt_words(d["in"], d["c_rk"], d["Te"]).astype(f64)


# ---- ChaCha20 ------------------------------------------------------------------------------------
CHACHA_CONST = np.array([0x61707865, 0x3320646E, 0x79622D32, 0x6B206574], u32)


def _chacha_blocks(key, nonce, counter, n):
    """n keystream blocks (n x 16 words) of RFC 7539's block function."""
    st = np.empty((16, n), u32)
    st[0:4] = CHACHA_CONST[:, None]
    st[4:12] = key[:, None]
    st[12] = (np.uint64(counter) + np.arange(n, dtype=np.uint64)).astype(u32)
    st[13:16] = nonce[:, None]
    x = st.copy()
    rotl = lambda v, c: (v << u32(c)) | (v >> u32(32 - c))  # noqa: E731

    def qr(a, b, c, dd):
        x[a] += x[b]
        x[dd] = rotl(x[dd] ^ x[a], 16)
        x[c] += x[dd]
        x[b] = rotl(x[b] ^ x[c], 12)
        x[a] += x[b]
        x[dd] = rotl(x[dd] ^ x[a], 8)
        x[c] += x[dd]
        x[b] = rotl(x[b] ^ x[c], 7)
    for _ in range(10):
        for q in ((0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15), (0, 5, 10, 15), (1, 6, 11, 12),
                  (2, 7, 8, 13), (3, 4, 9, 14)):
            qr(*q)
    return (x + st).T


def _chacha_inputs(n, rng):
    """n 64-byte blocks of random plaintext, a random 256-bit key and 96-bit nonce, counter 1."""
    return {"in": rng.integers(0, 1 << 32, 16 * n, dtype=np.uint64).astype(u32),
            "out": np.full(16 * n, 0xDEADBEEF, u32),
            "key": rng.integers(0, 1 << 32, 8, dtype=np.uint64).astype(u32),
            "nonce": rng.integers(0, 1 << 32, 3, dtype=np.uint64).astype(u32), "counter": u32(1), "nblocks": i32(n)}


def _chacha_ref(d):
    n = int(d["nblocks"])
    ks = _chacha_blocks(d["key"], d["nonce"], int(d["counter"]), n).ravel()
    return (d["in"] ^ ks).astype(f64)


# ---- images -------------------------------------------------------------------------------------
def _photo(n, rng, h=None):
    """An h x n 8-bit grayscale 'photograph': a smooth random field (bilinear upsampling of a
    coarse grid), a few hard-edged discs and bars, and 2% Gaussian noise."""
    h = n if h is None else h
    g = 17
    coarse = rng.uniform(40, 215, (g, g))
    ys, xs = np.linspace(0, g - 1, h), np.linspace(0, g - 1, n)
    y0, x0 = np.minimum(ys.astype(int), g - 2), np.minimum(xs.astype(int), g - 2)
    fy, fx = (ys - y0)[:, None], (xs - x0)[None, :]
    img = ((1 - fy) * ((1 - fx) * coarse[y0][:, x0] + fx * coarse[y0][:, x0 + 1])
           + fy * ((1 - fx) * coarse[y0 + 1][:, x0] + fx * coarse[y0 + 1][:, x0 + 1])).astype(f32)
    yy, xx = np.ogrid[:h, :n]
    for _ in range(12):
        cy, cx, r = rng.uniform(0, h), rng.uniform(0, n), rng.uniform(0.02, 0.12) * n
        img[(yy - cy) ** 2 + (xx - cx) ** 2 < r * r] = rng.uniform(0, 255)
    for _ in range(6):
        y0b, x0b = rng.integers(0, h), rng.integers(0, n)
        img[y0b:y0b + max(2, h // 40), x0b:x0b + n // 3] = rng.uniform(0, 255)
    img += (5.0 * rng.standard_normal((h, n))).astype(f32)
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


MED_NOISE = 0.05  # salt-and-pepper fraction


def _med_inputs(n, rng):
    """An n x n photograph (n a multiple of 16) with 5% salt-and-pepper noise."""
    img = _photo(n, rng)
    r = rng.random((n, n))
    img[r < MED_NOISE / 2] = 0
    img[r > 1 - MED_NOISE / 2] = 255
    return {"inputImageKernel": img.ravel(), "outputImagekernel": np.full(n * n, 0x55, np.uint8),
            "imageWidth": i32(n), "imageHeight": i32(n)}


def _med_ref(d):
    w, h = int(d["imageWidth"]), int(d["imageHeight"])
    img = d["inputImageKernel"].reshape(h, w)
    out = np.zeros((h, w), f64)
    win = np.stack([img[1 + dy:h - 1 + dy, 1 + dx:w - 1 + dx] for dy in (-1, 0, 1) for dx in (-1, 0, 1)])
    out[1:-1, 1:-1] = np.median(win, axis=0)
    return out.ravel()


CANNY_LOW, CANNY_HIGH, CANNY_SHIFT = 50.0, 150.0, 15  # thresholds on the L1 magnitude |dx| + |dy|


def _canny_inputs(n, rng):
    """An n x n photograph's 3x3 Sobel derivatives (int, replicated border) and their L1 magnitude
    (OpenCV's default, L2gradient false); the map poisoned with -1 (the kernel leaves the frame)."""
    img = np.pad(_photo(n, rng).astype(np.int64), 1, mode="edge")
    c = lambda dy, dx: img[1 + dy:1 + dy + n, 1 + dx:1 + dx + n]  # noqa: E731
    dx = (c(-1, 1) + 2 * c(0, 1) + c(1, 1)) - (c(-1, -1) + 2 * c(0, -1) + c(1, -1))
    dy = (c(1, -1) + 2 * c(1, 0) + c(1, 1)) - (c(-1, -1) + 2 * c(-1, 0) + c(-1, 1))
    return {"dx": dx.astype(i32).ravel(), "dy": dy.astype(i32).ravel(),
            "mag": (np.abs(dx) + np.abs(dy)).astype(f32).ravel(),
            "map": np.full(n * n, -1, i32), "cols": i32(n), "rows": i32(n), "low_thresh": f32(CANNY_LOW),
            "high_thresh": f32(CANNY_HIGH)}


def _canny_ref(d):
    w, h = int(d["cols"]), int(d["rows"])
    dx, dy = d["dx"].reshape(h, w).astype(np.int64), d["dy"].reshape(h, w).astype(np.int64)
    m = d["mag"].reshape(h, w)
    out = d["map"].reshape(h, w).astype(f64).copy()
    tg22 = int(0.4142135623730950488016887242097 * (1 << CANNY_SHIFT) + 0.5)
    ys, xs = slice(1, h - 1), slice(1, w - 1)
    ax, ay = np.abs(dx[ys, xs]), np.abs(dy[ys, xs]) << CANNY_SHIFT
    s = np.where((dx[ys, xs] ^ dy[ys, xs]) < 0, -1, 1)
    tg22x = ax * tg22
    tg67x = tg22x + ((ax + ax) << CANNY_SHIFT)
    mc = m[ys, xs]
    yy, xx = np.meshgrid(np.arange(1, h - 1), np.arange(1, w - 1), indexing="ij")
    horiz = (mc > m[yy, xx - 1]) & (mc >= m[yy, xx + 1])
    vert = (mc > m[yy - 1, xx]) & (mc >= m[yy + 1, xx])
    diag = (mc > m[yy - 1, xx - s]) & (mc >= m[yy + 1, xx + s])
    keep = np.where(ay < tg22x, horiz, np.where(ay > tg67x, vert, diag)) & (mc > f32(d["low_thresh"]))
    out[ys, xs] = np.where(keep, 1 + (mc > f32(d["high_thresh"])), 0)
    return out.ravel()


# ---- PolyBench gesummv ---------------------------------------------------------------------------
GS_ALPHA, GS_BETA = 43532.0, 12313.0


def _gs_inputs(n, rng):
    """A, B (n x n) and x signed; tmp and y zeroed (the sums start from them)."""
    return {"a": _signed(rng, n * n, f32), "b": _signed(rng, n * n, f32), "x": _signed(rng, n, f32),
            "y": np.zeros(n, f32), "tmp": np.zeros(n, f32), "n": i32(n)}


def _gs_ref(d):
    n = int(d["n"])
    x = d["x"].astype(f64)
    tmp = d["tmp"].astype(f64) + d["a"].astype(f64).reshape(n, n) @ x
    y = d["y"].astype(f64) + d["b"].astype(f64).reshape(n, n) @ x
    return GS_ALPHA * tmp + GS_BETA * y


# ---- CUDA samples particles collideD ------------------------------------------------------------
PC_SPRING, PC_DAMPING, PC_SHEAR, PC_ATTRACTION = 0.5, 0.02, 0.1, 0.0  # the sample's defaults
PC_COLLIDER, PC_COLLIDER_R = (-1.2, -0.8, 0.8), 0.2
PC_PILE = 0.8  # the share of particles settled in a packed pile; the rest fall through the space above
PC_MARGIN = 1e-4  # no pair (nor collider) distance within this relative margin of contact


def _pc_side(n):
    """Cells per side: the power of two with about one cell per particle (128 at 2^21)."""
    return 1 << max(1, round(math.log2(n) / 3))


def _pc_params(n):
    """SimParams as the sample sets them for a side^3 grid over [-1, 1]^3, radius = half a cell."""
    side = _pc_side(n)
    r = 1.0 / side
    p = np.zeros(26, f32)
    p[0:3], p[3] = PC_COLLIDER, PC_COLLIDER_R
    p[4:7], p[7], p[8] = (0.0, -0.0003, 0.0), 1.0, r  # gravity, globalDamping, particleRadius
    p[9:12] = np.array([side] * 3, u32).view(f32)  # gridSize
    p[12] = np.array([side ** 3], u32).view(f32)[0]  # numCells
    p[13:16], p[16:19] = (-1.0, -1.0, -1.0), (2 * r,) * 3  # worldOrigin, cellSize
    p[19:21] = np.array([n, 4], u32).view(f32)  # numBodies, maxParticlesPerCell
    p[21:26] = (PC_SPRING, PC_DAMPING, PC_SHEAR, PC_ATTRACTION, -0.5)
    return p


def _pc_hash(pos, side):
    """Cells and hashes as calcGridPos and calcGridHash compute them, in float32."""
    p = np.asarray(pos, f32)
    cell = np.floor((p - f32(-1.0)) / f32(2.0 / side)).astype(np.int64)
    return cell, ((cell[:, 2] & (side - 1)) * side + (cell[:, 1] & (side - 1))) * side + (cell[:, 0] & (side - 1))


def _pc_neighbours(pos, side):
    """Candidate pairs (i, j), j != i, over each particle's 27 wrapped neighbour cells, positions
    in cell-sorted order: every pair the kernel examines, as index arrays."""
    cell, h = _pc_hash(pos, side)
    assert (np.diff(h) >= 0).all(), "positions must be sorted by cell"
    count = np.bincount(h, minlength=side ** 3)
    start = np.cumsum(count) - count
    ii, jj = [], []
    for dz in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                c = (cell + np.array([dx, dy, dz])) & (side - 1)
                hh = (c[:, 2] * side + c[:, 1]) * side + c[:, 0]
                cnt = count[hh]
                for k in range(int(cnt.max(initial=0))):
                    i = np.flatnonzero(cnt > k)
                    j = start[hh[i]] + k
                    ii.append(i[j != i])
                    jj.append(j[j != i])
    return np.concatenate(ii), np.concatenate(jj)


def _pc_positions(n, rng):
    """80% of the particles on a jittered lattice (spacing 0.99 diameters) settled from the floor
    up, the rest uniform in the space above; any pair or collider distance within 1e-4 of contact
    is redrawn (so float32 rounding cannot flip a contact). Returns float32 positions in cell order
    and which of them are falling."""
    side = _pc_side(n)
    r = 1.0 / side
    sp = 0.99 * 2 * r
    per_row = int((2 - 2 * r) / sp) + 1
    pile = int(PC_PILE * n)
    k = np.arange(pile)
    lat = np.stack([k % per_row, (k // (per_row * per_row)), (k // per_row) % per_row], axis=1)
    pos = np.empty((n, 3))
    pos[:pile] = -1 + r + lat * sp + rng.uniform(-0.03, 0.03, (pile, 3)) * sp
    top = -1 + r + (lat[:, 1].max(initial=0) + 1) * sp
    pos[pile:] = rng.uniform([-1 + r, top, -1 + r], [1 - r, 1 - r, 1 - r], (n - pile, 3))
    falling = np.arange(n) >= pile
    collider = np.array(PC_COLLIDER)
    for _ in range(20):
        pos = pos.astype(f32).astype(f64)
        _, h = _pc_hash(pos, side)
        order = np.argsort(h, kind="stable")
        p = pos[order]
        i, j = _pc_neighbours(p, side)
        dist = np.linalg.norm(p[j] - p[i], axis=1)
        bad = order[i[np.abs(dist / (2 * r) - 1) < PC_MARGIN]]
        dc = np.linalg.norm(pos - collider, axis=1)
        bad = np.union1d(bad, np.flatnonzero(np.abs(dc / (r + PC_COLLIDER_R) - 1) < PC_MARGIN))
        if len(bad) == 0:
            return p.astype(f32), falling[order]
        pos[bad] += rng.uniform(-0.01, 0.01, (len(bad), 3)) * r
    raise RuntimeError("could not clear near-contacts")


def _pc_inputs(n, rng):
    """n particles (n about a power of 8) in [-1, 1]^3 (the pile at rest but for 1e-4 jitters, the
    falling ones at 3e-3 downwards, 5e-4 random), cell-sorted with the sample's hash (z, y, x) and
    permuted from a random original order; cellStart 0xffffffff for empty cells."""
    side = _pc_side(n)
    pos, falling = _pc_positions(n, rng)
    vel = rng.normal(0.0, 1e-4, (n, 3))
    vel[falling] += rng.normal(0.0, 5e-4, (int(falling.sum()), 3)) + np.array([0.0, -3e-3, 0.0])
    _, h = _pc_hash(pos, side)
    perm = rng.permutation(n)  # original index of each sorted particle
    count = np.bincount(h, minlength=side ** 3)
    start = np.where(count > 0, np.cumsum(count) - count, 0xFFFFFFFF)
    end = np.where(count > 0, np.cumsum(count), 0)
    p4, v4 = np.zeros((n, 4), f32), np.zeros((n, 4), f32)
    p4[:, :3], p4[:, 3] = pos, 1.0
    v4[:, :3] = vel
    return {"newVel": _nan(4 * n), "oldPos": p4.ravel(), "oldVel": v4.ravel(), "gridParticleIndex": perm.astype(u32),
            "cellStart": start.astype(u32), "cellEnd": end.astype(u32), "numParticles": u32(n),
            "cudaParams": _pc_params(n)}


def _pc_collide(pa, pb, va, vb, ra, rb, attraction):
    """collideSpheres in float64, rows of pairs."""
    rel = pb - pa
    dist = np.linalg.norm(rel, axis=1)
    hit = dist < ra + rb
    norm = rel / np.where(hit & (dist > 0), dist, 1.0)[:, None]
    relv = vb - va
    tan = relv - (relv * norm).sum(axis=1)[:, None] * norm
    f = (-PC_SPRING * (ra + rb - dist))[:, None] * norm + PC_DAMPING * relv + PC_SHEAR * tan + attraction * rel
    return np.where(hit[:, None], f, 0.0), hit


def _pc_ref(d, with_counts=False):
    n = int(d["numParticles"])
    side = _pc_side(n)
    r = float(f32(1.0) / f32(side))
    pos = d["oldPos"].reshape(n, 4)[:, :3].astype(f64)
    vel = d["oldVel"].reshape(n, 4)[:, :3].astype(f64)
    i, j = _pc_neighbours(pos, side)
    f, hit = _pc_collide(pos[i], pos[j], vel[i], vel[j], r, r, PC_ATTRACTION)
    force = np.zeros((n, 3))
    np.add.at(force, i, f)
    fc, hit_c = _pc_collide(pos, np.broadcast_to(PC_COLLIDER, pos.shape), vel, np.zeros_like(vel), r, PC_COLLIDER_R,
                            0.0)
    force += fc
    out = np.zeros((n, 4))
    out[d["gridParticleIndex"].astype(np.int64), :3] = vel + force
    if with_counts:
        return out.ravel(), len(i), int(hit.sum()), int(hit_c.sum())
    return out.ravel()


# per particle at 2^21 (seed 0): pairs examined and pairs in contact
PC_PAIRS, PC_CONTACTS = 26.40, 3.863


def _pc_flops(n):
    """As written: per particle 6 (grid position) + 81 (27 force sums) + 3 (vel + force) + 13 (the
    collider); per pair examined 13, 40 more per contact."""
    return float(n * (6 + 81 + 3 + 13) + n * (13 * PC_PAIRS + 40 * PC_CONTACTS))


# ---- the seventh held-out set ---------------------------------------------------------------------
CORPUS: list[CorpusKernel] = [
    # 8192 x 8192 cells: power and temperature read (537 MB), 268 MB written, >= 270 us at 3 TB/s; 683 x 683 blocks of
    # 16 x 16, each loading its 16 x 16 tile for 12 x 12 results (1.8x the reads, mostly L2), 4 barriers, and the update
    # in FP64 (the 2.0 literals): 2.4 GFLOP, ~0.3-1.5 ms
    entry("hotspot_pyramid", "holdout7/hotspot.cu", "calculate_temp",
          "Rodinia hotspot: thermal stencil, shared-memory pyramid of 2 steps", 8192,
          lambda n, sms: ((_blocks(n, HS_SMALL), _blocks(n, HS_SMALL), 1), (HS_BLOCK, HS_BLOCK, 1), 0),
          _hs_inputs, "temp_dst", _hs_ref, _hs_flops, lambda n: 12.0 * n * n, rtol=1e-5,
          inputs_desc="n x n chip (16 mm square): 24 floorplan units with lognormal power densities, 80 W in all; "
                      "temperature 323.15 K plus 25 K of smooth hot spots, ~2 K steps at unit edges and 0.1 K noise; "
                      "Cap, Rx, Ry, Rz as Rodinia computes them for the grid, its time step scaled by (1024 / n)^2 "
                      "(stable); pyramid height 2"),
    # boxes1d 10 (Rodinia's run): 1000 boxes x 100 particles, 220M pair interactions with a double exp each (~50 FP64
    # instructions a pair, ~11 G): ~0.5-1.5 ms; 10 MB of traffic
    entry("lavamd_f64", "holdout7/lavamd.cu", "kernel_gpu_cuda",
          "Rodinia lavaMD: box-neighbour forces, FP64 exp, shared staging", 10,
          lambda n, sms: ((n ** 3, 1, 1), (LMD_THREADS, 1, 1), 0), _lmd_inputs, "d_fv_gpu", _lmd_ref,
          lambda n: 24.0 * _lmd_pairs(n) + 2.0 * LMD_THREADS * n ** 3,
          lambda n: _BOX.itemsize * n ** 3 + 104.0 * LMD_PAR * n ** 3, rtol=1e-9,
          inputs_desc="boxes1d = n: n^3 boxes of 100 particles, v, x, y, z and charge (rand() % 10 + 1) / 10 as "
                      "Rodinia draws them, alpha 0.5; the parameter and dimension structs passed by value; forces "
                      "zeroed (and accumulated again by every launch)"),
    # 2^21 elements (a 128^3 mesh): 192 B per element (4 neighbour indices, 12 normal components, 5 variables in, 5
    # fluxes out), 403 MB, >= 135 us at 3 TB/s; ~450 FP64 FLOPs an element with ~20 divisions and ~14 square roots
    entry("cfd_flux_f64", "holdout7/cfd_flux.cu", "cuda_compute_flux",
          "Rodinia CFD euler3d: FP64 unstructured flux, neighbour gathers", 1 << 21,
          lambda n, sms: _B(n, 128), _cfd_inputs, "fluxes", _cfd_ref, _cfd_flops, lambda n: 192.0 * n + 136.0,
          rtol=1e-8, constants=("ff_variable", "ff_flux_contribution_momentum_x", "ff_flux_contribution_momentum_y",
                                 "ff_flux_contribution_momentum_z", "ff_flux_contribution_density_energy"),
          inputs_desc="nelr = n = s^3 elements on a lattice, four faces each (x - 1, x + 1, and y and z faces "
                      "alternating with parity); far-field faces (-2) at the box, a wing plate (-1) across z = s/2; "
                      "normals of area h^2 +-20%, tilted 15%; the flow a smooth +-5-10% perturbation of Mach 1.2 "
                      "far field; the far-field state and flux contributions in __constant__"),
    # 1024 options (MAX_OPTIONS) x 2048 steps: 4096 barriers per block, 2.2G node updates (two FP64 multiplies and an
    # add each, 6.5 GFLOP): ~0.2-0.8 ms; 40 KB of __constant__ options, 8 KB out
    entry("binomial_options_f64", "holdout7/binomial_options.cu", "binomialOptionsKernel",
          "CUDA samples binomialOptions: FP64 tree, barriers every time step", BO_MAX,
          lambda n, sms: ((n, 1, 1), (BO_THREADS, 1, 1), 0), _bo_inputs, "d_CallValue", _bo_ref, _bo_flops,
          lambda n: 48.0 * n, rtol=1e-9, constants=("d_OptionData",),
          inputs_desc="1024 European calls as the sample draws them (S 5-30, X 1-100, T 0.25-10 years, R 6%, V 10%), "
                      "preprocessed into (S, X, vDt, puByDf, pdByDf) in __constant__; the first n priced"),
    # 2^26 floats (32768 transforms of 2048): 268 MB in, 268 MB out, >= 180 us at 3 TB/s; 7 barriers and 11 butterfly
    # adds per element in shared memory
    entry("fwt_batch1_shared", "holdout7/fwt_batch1.cu", "fwtBatch1Kernel",
          "CUDA samples fastWalshTransform: 2048-point WHT in shared memory", 1 << 26,
          lambda n, sms: ((n >> FWT_LOG2N, 1, 1), ((1 << FWT_LOG2N) // 4, 1, 1), 4 << FWT_LOG2N),
          lambda n, rng: {"d_Output": _nan(n), "d_Input": _signed(rng, n, f32), "log2N": i32(FWT_LOG2N)},
          "d_Output", _fwt_ref, lambda n: float(FWT_LOG2N * n), lambda n: 8.0 * n, rtol=1e-5,
          inputs_desc="n signed floats (n a multiple of 2048), 2048-point transforms in natural (Hadamard) order"),
    # 2^20 vectors x 100 dimensions (the sample's dimensions): 419 MB of floats written, >= 140 us at 3 TB/s; grid
    # 1024 x 100 of 64 threads, 16 points per thread, two XORs and a shared lookup each
    entry("sobol_qrng", "holdout7/sobol_qrng.cu", "sobolGPU_kernel",
          "CUDA samples SobolQRNG: Gray-code Sobol points, shared directions", 1 << 20,
          lambda n, sms: ((_sobol_grid(n, _sobol_dims(n), sms), _sobol_dims(n), 1), (SOBOL_THREADS, 1, 1), 0),
          _sobol_inputs, "d_output", _sobol_ref, lambda n: float(n * _sobol_dims(n)),
          lambda n: 4.0 * n * _sobol_dims(n) + 128.0 * _sobol_dims(n), rtol=0.0,
          inputs_desc="n vectors in 100 dimensions (4 below 2^16): the first dimension's direction numbers 2^(31-k), "
                      "the others by the primitive polynomials over GF(2) in order with random odd initial m_k"),
    # 2^28 bytes (268 MB), >= 90 us at 3 TB/s; 17477 blocks of 64, each thread 15 uint4s and 240 shared byte
    # read-modify-writes; 4.5 MB of partial histograms
    entry("histogram64_bytes", "holdout7/histogram64.cu", "histogram64Kernel",
          "CUDA samples histogram64: per-thread shared byte counters", 1 << 28,
          lambda n, sms: ((_h64_blocks(n), 1, 1), (H64_THREADS, 1, 1), 0), _h64_inputs, "d_PartialHistograms",
          _h64_ref, lambda n: 0.0, lambda n: float(n) + 4.0 * H64_BINS * _h64_blocks(n), rtol=0.0,
          inputs_desc="n bytes of 8-bit image data: binomial(255, 0.45) with 5% black and 5% white; one partial "
                      "histogram of the top six bits per block"),
    # R-MAT scale 18: 3.8M oriented edges (31 MB of CSR), 83M triangles; the merges take up to 1.07G list steps
    # (282 an edge) and 50M warp iterations at each warp's longest lane, dependent loads mostly from L2: ~0.5-2 ms
    # (scale 20 would be ~5x that)
    entry("triangle_count_csr", "holdout7/triangle_count.cu", "triangle_count_edge",
          "triangle counting: edge-parallel sorted-list merge on CSR, atomic",
          1 << 18, lambda n, sms: _B(len(_tc_graph(n, TC_SEED)[1]), TC_BLOCK),
          _tc_inputs, "total", _tc_ref, lambda n: 0.0,
          lambda n: 4.0 * (n + 1) + 8.0 * TC_EDGES_PER_VERTEX * n + 8.0, rtol=0.0,
          inputs_desc="an R-MAT graph on n = 2^scale vertices (Graph500's a, b, c = 0.57, 0.19, 0.19; 16 n edges "
                      "drawn, ids scrambled), simple and undirected, relabelled by degree and oriented upward; the "
                      "64-bit total zeroed (and added to again by every launch)"),
    # 32 x 1024 rows of 768 channels (GPT-2 small, llm.c's B x T at batch 32): dout and inp read, dinp read and
    # written (403 MB), >= 135 us at 3 TB/s; 50M shared float atomics and 3.1M global ones on 1536 addresses
    entry("layernorm_backward_llmc", "holdout7/layernorm_backward.cu", "layernorm_backward_kernel2",
          "llm.c LayerNorm backward: warp per row, shared + global atomicAdd", 32 * LN_T,
          lambda n, sms: ((_blocks(32 * n, LN_BLOCK), 1, 1), (LN_BLOCK, 1, 1), 8 * LN_C), _ln_inputs, "dinp",
          lambda d: _ln_grads(d)[0], lambda n: 18.0 * n * LN_C + 2.0 * n + 2.0 * LN_C * _blocks(32 * n, LN_BLOCK),
          lambda n: 16.0 * n * LN_C + 8.0 * n + 20.0 * LN_C, rtol=1e-5,
          inputs_desc="n = B x T rows (T = 1024, fewer when small) of 768 channels: activations N(offset, scale^2) "
                      "per row, their float32 mean and rstd (eps 1e-5), weights 1 + N(0, 0.1^2), dout N(0, 0.02^2), "
                      "dinp N(0, 0.01^2); dweight and dbias zeroed; the entry checks dinp, the tests the rest"),
    # 64 attention batches x 2048 x 2048 fp16 scores: the lower triangle read (269 MB), every element written (537 MB),
    # >= 270 us at 3 TB/s; 4 warps per block, 64 unrolled elements per lane
    entry("causal_softmax_f16", "holdout7/causal_softmax.cu",
          "scaled_upper_triang_masked_softmax_warp_forward<__half, __half, float, 11>",
          "Megatron fused causal softmax: fp16, warp per row, index-masked", CS_SEQ,
          lambda n, sms: ((n, _cs_shape(n)[0] // 4, 1), (32, 4, 1), 0), _cs_inputs, "dst", _cs_ref,
          lambda n: 5.0 * _cs_shape(n)[0] * n * (n + 1) / 2,
          lambda n: 2.0 * _cs_shape(n)[0] * n * (n + 1) / 2 + 2.0 * _cs_shape(n)[0] * n * n, rtol=1e-3,
          inputs_desc="64 (batch x heads) x n x n raw fp16 scores N(0, 128) (head size 128), scale 1/sqrt(128); "
                      "queries attend to keys 0..i; half rounding of the output"),
    # 2^23 16-byte blocks (134 MB in, 134 MB out, >= 90 us at 3 TB/s); 160 data-dependent shared-memory table lookups
    # per block (1.3G lookups, ~3.5-way bank conflicts at random indices): ~0.5-1 ms
    entry("aes128_ttable", "holdout7/aes128_ttable.cu", "aes128_encrypt_ecb",
          "AES-128 ECB: OpenSSL T-table rounds, tables in shared memory", 1 << 23,
          lambda n, sms: _B(n, 256), _aes_inputs, "out", _aes_ref, lambda n: 0.0,
          lambda n: 32.0 * n + 4096.0 + 176.0, rtol=0.0, constants=("c_rk",),
          inputs_desc="n random 16-byte blocks, a random 128-bit key (its 44-word schedule in __constant__), "
                      "OpenSSL's Te0..Te3 as an argument staged by every block"),
    # 2^22 64-byte blocks: 268 MB in, 268 MB out (>= 180 us at 3 TB/s) and ~1000 integer ALU operations a block
    # (4.2 G: ~0.3 ms at the integer issue rate)
    entry("chacha20_xor", "holdout7/chacha20.cu", "chacha20_xor",
          "ChaCha20 stream cipher: 20 ARX rounds per 64-byte block", 1 << 22,
          lambda n, sms: _B(n, 256), _chacha_inputs, "out", _chacha_ref, lambda n: 0.0, lambda n: 128.0 * n + 48.0,
          rtol=0.0, inputs_desc="n random 64-byte blocks, a random 256-bit key and 96-bit nonce, counter from 1"),
    # 8192 x 8192 bytes: 67 MB in, 67 MB out (>= 45 us at 3 TB/s); nine byte loads and 36 compare-and-swaps per pixel
    # (~150 instructions, 10 G): ~0.1-0.4 ms
    entry("median3x3_u8", "holdout7/median3x3.cu", "medianFilterKernel",
          "3x3 median filter on 8-bit pixels, exchange sort of the window", 8192,
          lambda n, sms: ((_blocks(n, 16), _blocks(n, 16), 1), (16, 16, 1), 0), _med_inputs, "outputImagekernel",
          _med_ref, lambda n: 0.0, lambda n: 2.0 * n * n, rtol=0.0,
          inputs_desc="an n x n 8-bit photograph (smooth field, discs, bars, noise) with 5% salt-and-pepper; "
                      "n a multiple of 16"),
    # 8192 x 8192: dx, dy, magnitude read (805 MB) and the map written (268 MB), >= 360 us at 3 TB/s; the neighbour
    # pair read depends on the direction (mostly L1 hits)
    entry("canny_nms", "holdout7/canny_nms.cu", "calcMapKernel",
          "Canny non-max suppression (OpenCV CUDA): branches on direction", 8192,
          lambda n, sms: ((_blocks(n, 16), _blocks(n, 16), 1), (16, 16, 1), 0), _canny_inputs, "map", _canny_ref,
          lambda n: 0.0, lambda n: 16.0 * n * n, rtol=0.0,
          inputs_desc="the Sobel derivatives (int) of an n x n 8-bit photograph and their L1 magnitude (float); "
                      "thresholds 50 and 150; the frame left as it was (-1)"),
    # PolyBench-GPU's N = 4096: 134 MB of A and B, >= 45 us at 3 TB/s, but only 16 blocks of 256 threads (16 SMs),
    # each thread 4096 serial iterations of global read-modify-writes to tmp[i] and y[i]: latency-bound, ~0.5-3 ms
    entry("gesummv_polybench", "holdout7/gesummv.cu", "gesummv_kernel",
          "PolyBench gesummv: thread per row, sums kept in global memory", 4096,
          lambda n, sms: _B(n, 256), _gs_inputs, "y", _gs_ref, lambda n: 4.0 * n * n + 3.0 * n,
          lambda n: 8.0 * n * n + 16.0 * n, rtol=1e-5,
          inputs_desc="A, B (n x n) and x signed; tmp and y zeroed (every launch adds to them again)"),
    # 2^21 particles on a 128^3 grid (16 MB of cell bounds): 109 MB of particle data, >= 40 us at 3 TB/s; 27 cell
    # lookups and ~26 candidate pairs (~4 in contact) per particle, dependent gathers mostly from L2: ~0.1-0.5 ms
    entry("particles_collide_cells", "holdout7/particles_collide.cu", "collideD",
          "CUDA samples particles collideD: 27-cell loops, DEM forces", 1 << 21,
          lambda n, sms: _B(n, 64), _pc_inputs, "newVel", _pc_ref, _pc_flops,
          lambda n: 52.0 * n + 8.0 * _pc_side(n) ** 3 + 104.0, rtol=1e-5, constants=("cudaParams",),
          inputs_desc="n particles (about a power of 8) on a side^3 grid (one cell a particle): 80% a jittered "
                      "packed pile, 20% falling above it, no contact within 1e-4 of touching; cell-sorted, original "
                      "order random; the sample's spring, damping, shear and collider"),
]

BY_NAME, get = index(CORPUS)

if __name__ == "__main__":
    from cudasim.console import run

    from ..manifest import main
    run(main, CORPUS)
