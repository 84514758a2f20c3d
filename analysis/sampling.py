"""Which blocks of a large launch to simulate, and how many blocks each stands for.

Blocks of a grid mostly do alike work, apart from its edges (bounds checks): `plan_blocks` picks
the first, a few evenly spaced interior and the last block along each dimension and weights each
by the blocks of its class; `refine_1d` samples a 1-D grid exactly where blocks differ (grid-stride
loops), and `stratified_1d` one whose blocks differ in more places than it can locate; `uneven_work`
and `_uneven_interior` say where sampled blocks of one class did not do alike work, so that the
output can say its counts are estimates.
"""
from __future__ import annotations

from collections import deque
from itertools import product
from typing import Callable

import numpy as np

from cudasim.trace import Trace

from .args import TargetError
from .common import WORK_SPREAD, active_lanes
from .launch import Dim3

ALL_BLOCKS_THREADS = 1 << 16  # simulate every block when the launch has at most this many threads
ALL_BLOCKS_WARPS = 1 << 24  # --all-blocks beyond this many warps is refused: a minute of CPU per 2^24 warps at best
INTERIOR_SAMPLES = 2  # interior blocks sampled per grid dimension


def plan_blocks(grid: Dim3, threads_per_block: int, all_blocks: bool = False,
                interior: int = INTERIOR_SAMPLES) -> tuple[list[int] | None, dict[int, float]]:
    """Which blocks to simulate, and how many blocks each stands for.

    Every block when the launch is small (<= ALL_BLOCKS_THREADS threads) or asked for;
    otherwise along each dimension the first, `interior` evenly spaced interior and the
    last index, and their product: edges and corners behave differently (bounds checks),
    interior blocks alike. Returns (None, {}) for "all blocks".
    """
    total = grid[0] * grid[1] * grid[2]
    warps = total * -(-threads_per_block // 32)
    if all_blocks and warps > ALL_BLOCKS_WARPS:
        raise TargetError(f"--all-blocks: the launch has {warps:,} warps, past the {ALL_BLOCKS_WARPS:,} the simulator "
                          f"runs whole (hours of CPU, memory for every block's trace); leave out --all-blocks to "
                          f"simulate a sample of blocks, scaled to the grid")
    if all_blocks or total * threads_per_block <= ALL_BLOCKS_THREADS:
        return None, {}
    return _picks(grid, interior)


def _picks(grid: Dim3, interior: int) -> tuple[list[int], dict[int, float]]:
    """Along each dimension the first, `interior` evenly spaced interior and the last index, and their
    product, each weighted by the blocks of its class."""
    per_dim: list[list[tuple[int, float]]] = []
    for g in grid:
        if g <= 2 + interior:
            per_dim.append([(i, 1.0) for i in range(g)])
            continue
        inner = g - 2
        picks = sorted({1 + (k * inner) // interior + inner // (2 * interior) for k in range(interior)})
        picks = [min(max(p, 1), g - 2) for p in picks]
        w = inner / len(picks)
        per_dim.append([(0, 1.0)] + [(p, w) for p in picks] + [(g - 1, 1.0)])
    blocks, weights = [], {}
    for (x, wx), (y, wy), (z, wz) in product(*per_dim):
        lin = x + y * grid[0] + z * grid[0] * grid[1]
        blocks.append(lin)
        weights[lin] = wx * wy * wz
    return blocks, weights


def block_signature(trace: Trace, block: int) -> tuple:
    """What one block did as the trace models see it: per memory instruction, its warp-level
    accesses and active lanes. Blocks with equal signatures are counted alike."""
    sig = []
    for ev in trace.events:
        sel = ev.blocks == block
        if sel.any():
            sig.append((ev.pc, int(sel.sum()), int(active_lanes(ev.masks[sel]).sum())))
    return tuple(sig)


TRACE_BUDGET_BYTES = 2 << 30  # an every-block trace larger than this (estimated from block 0) is sampled instead
REFINE_PROBES = 48  # blocks refine_1d may simulate beyond the plan: a data-dependent grid differs everywhere


def trace_bytes(trace: Trace) -> int:
    """The memory a trace's arrays hold."""
    return sum(e.addrs.nbytes + e.masks.nbytes + e.blocks.nbytes + e.warps.nbytes for e in trace.events)


def refine_1d(g: int, blocks: list[int], signature: Callable[[int], tuple],
              probes: int = REFINE_PROBES) -> tuple[list[int], dict[int, float], bool]:
    """Sampling of a 1-D grid that stays exact where blocks differ in runs (a grid-stride loop
    gives the first blocks one trip more): between two sampled blocks that did different work,
    bisect (breadth first, at most `probes` blocks) until the change is found; each unsimulated
    block is then counted as its sampled neighbour on the interior side, which did the same work.
    Exact when a block's work is piecewise constant in its index with no change hidden between two
    alike samples. Returns (blocks, weights, whether every change was located within `probes`)."""
    edges = {1, g - 2} if g > 3 else set()  # an edge block differs by its bounds: compare inside it
    sig = {b: signature(b) for b in sorted(set(blocks) | edges)}
    gaps = deque(zip(sorted(sig), sorted(sig)[1:]))
    located = True
    while gaps:
        a, b = gaps.popleft()
        if b - a > 1 and sig[a] != sig[b]:
            if probes == 0:
                located = False
                continue
            probes -= 1
            m = (a + b) // 2
            sig[m] = signature(m)
            gaps += [(a, m), (m, b)]
    picks = sorted(sig)
    weights = {p: 1.0 for p in picks}
    for a, b in zip(picks, picks[1:]):
        if b - a > 1:  # the gap's blocks: half to each interior neighbour (exact where they are alike; where
            # the work changes in every block, as over rows sorted by length, the midpoint rule)
            gap = b - a - 1
            left = 0 if a == 0 else gap if b == g - 1 else gap // 2
            weights[a] += left
            weights[b] += gap - left
    return picks, weights, located


STRATA = 64  # interior blocks drawn where a 1-D grid's work changes in more places than refine_1d can locate


def stratified_1d(g: int, strata: int = STRATA) -> tuple[list[int], dict[int, float]]:
    """The first and last block, and one block drawn from each of `strata` equal runs of the interior, each
    standing for its run: the mean of work that changes everywhere (rows of a sparse matrix, boxes at the
    faces of a lattice) without the bias that picks at one spacing have on work periodic in the index. The
    draw is seeded: the same grid gives the same blocks."""
    inner = g - 2
    if inner <= strata:
        return list(range(g)), {b: 1.0 for b in range(g)}
    cuts = [1 + (k * inner) // strata for k in range(strata + 1)]
    rng = np.random.default_rng(g)
    picks = [int(rng.integers(a, b)) for a, b in zip(cuts, cuts[1:])]
    weights = {0: 1.0, g - 1: 1.0, **{p: float(b - a) for p, a, b in zip(picks, cuts, cuts[1:])}}
    return [0, *picks, g - 1], weights


def _uneven_interior(trace: Trace, blocks: list[int]) -> tuple[int, int] | None:
    """Two sampled blocks of one class (first, interior or last along each dimension), which the
    sampling counts alike, that did different work; None when every class is even."""
    def cls(b: int) -> tuple[str, ...]:
        return tuple("first" if c == 0 else "last" if c == g - 1 else "interior"
                     for c, g in zip(trace.block_coords(b), trace.grid))
    seen: dict[tuple[str, ...], tuple[int, tuple]] = {}
    for b in sorted(set(blocks)):
        sig = block_signature(trace, b)
        first = seen.setdefault(cls(b), (b, sig))
        if first[1] != sig:
            return first[0], b
    return None


def uneven_work(followed: dict[int, list[tuple[int, int]]], run_end: Callable[[int], int],
                interior: Callable[[int], bool]) -> tuple[int, int] | None:
    """(fewest, most) warp instructions among the followed interior blocks when they differ by more
    than WORK_SPREAD (loops whose trip counts depend on the block or the data); None when even."""
    work = [sum(bin(bits).count("1") * (run_end(pc) - pc) for pc, bits in path)
            for b, path in followed.items() if interior(b)]
    if len(work) < 2 or min(work) <= 0:
        return None
    lo, hi = min(work), max(work)
    return (lo, hi) if hi > WORK_SPREAD * lo else None


UNEVEN_BLOCKS = 128  # blocks sampled (about) where interior blocks did different work


def uneven_samples(grid: Dim3) -> int:
    """Interior blocks per dimension to sample when they did different work: about UNEVEN_BLOCKS in all."""
    dims = sum(1 for g in grid if g > 1)
    return max(INTERIOR_SAMPLES, int(UNEVEN_BLOCKS ** (1 / max(dims, 1))) - 2)
