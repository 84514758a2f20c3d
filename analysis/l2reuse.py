"""DRAM bytes when blocks reuse each other's data through an L2 of limited size.

Each array's footprint is fetched from DRAM at least once. Data that several blocks load is
fetched again only if it left L2 between their uses:

* structured reuse (a GEMM's panel, read by every block of a row or column): two sampled blocks
  that differ in one grid coordinate and load mostly the same sectors of an array share it along
  that dimension. Blocks of one wave (resident x SMs blocks in launch order, x fastest) run at
  once and share what they fetch; a later wave finds the data still in L2 only if all a wave
  touches fits in the L2 (l2_random_capacity_mb). So a sector is fetched once per wave its
  users span, or once;
* unstructured reuse: a block whose loads scatter over most of the array (a gather, a sparse
  matrix, a scatter of atomics) hits L2 beyond the footprint in the share a random reference
  finds, min(1, capacity / footprint) (measured: l2_random_*mb; the footprint of every array so
  used, since they share the L2), except for sectors that many blocks load (a pivot row
  and column, a hot embedding row: the sampled blocks share them), which stay in L2; loads that
  stay near the block's own part (halos) are shared with neighbours that run at the same time,
  and cost nothing beyond the footprint.

Pure functions over per-array facts; analysis.models.timing supplies them from the trace.
"""
from __future__ import annotations

import math
from dataclasses import dataclass


SAMPLE_SPREAD = 1.25  # a sampled estimate's spread on grids whose blocks do uneven work (as WORK_SPREAD)


@dataclass(frozen=True)
class ArrayUse:
    """One array as the launch loads it: its footprint (bytes), the bytes all blocks load from it
    (counting each block's distinct sectors once), the grid dimensions along which blocks share its
    sectors, whether one block's loads scatter over most of it (a gather) rather than stay near
    its own part (a halo shared with neighbours), and the share of the offered bytes that go to
    sectors other sampled blocks load too (hot data)."""

    footprint: float
    offered: float
    shared_dims: tuple[int, ...]
    scattered: bool = False
    hot: float = 0.0
    distinct: float = 0.0  # the sample's estimate of the distinct bytes loaded (may overshoot the footprint)

    def reused(self) -> bool:
        """Loads beyond the footprint: more than 5% over it; where the sampled blocks shared no sector
        (offered = distinct), more than a sampled estimate's spread over it (blocks sampled where the work
        changes from block to block estimate a read-once array's bytes to within SAMPLE_SPREAD)."""
        slack = 1.05 if self.offered > 1.05 * self.distinct else SAMPLE_SPREAD
        return self.offered > self.footprint * slack


def jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def shared_dims(sectors: dict[tuple[int, int, int], set], threshold: float = 0.5,
                pairs: int = 64) -> tuple[int, ...]:
    """The grid dimensions along which sampled blocks (by coordinates) load mostly the same sectors.

    Along each dimension, blocks that agree in the other two coordinates are compared with their
    next sampled neighbour along it, at most `pairs` comparisons per dimension, so a launch with
    thousands of sampled blocks costs no more than one with a few."""
    out = []
    for d in range(3):
        rows: dict[tuple, list] = {}
        for c in sorted(sectors, key=lambda c: c[d]):
            rows.setdefault(tuple(c[k] for k in range(3) if k != d), []).append(c)
        tried = 0
        for row in rows.values():
            for a, b in zip(row, row[1:]):
                if tried == pairs:
                    break
                tried += 1
                if jaccard(sectors[a], sectors[b]) >= threshold:
                    out.append(d)
                    break
            if d in out or tried == pairs:
                break
    return tuple(out)


def _covered(grid: tuple[int, int, int], blocks: int) -> tuple[float, float, float]:
    """Along each dimension, how many coordinates `blocks` consecutive blocks (x fastest) span."""
    gx, gy, gz = grid
    return (min(gx, blocks), min(gy, math.ceil(blocks / gx)), min(gz, math.ceil(blocks / (gx * gy))))


def dram_reads(arrays: list[ArrayUse], grid: tuple[int, int, int], wave: int, capacity: float) -> float:
    """DRAM bytes the launch reads: each array's footprint, plus what structured reuse refetches across
    waves when a wave's data does not fit in L2, plus unstructured reuse's misses."""
    return sum(reads_per_array(arrays, grid, wave, capacity))


def reads_per_array(arrays: list[ArrayUse], grid: tuple[int, int, int], wave: int, capacity: float) -> list[float]:
    """dram_reads array by array. Scattered arrays share the L2: a random reference hits in the share
    the capacity is of all their footprints."""
    blocks = grid[0] * grid[1] * grid[2]
    wave = max(1, min(wave, blocks))
    cover = _covered(grid, wave)
    stride = (1, grid[0], grid[0] * grid[1])
    # the bytes one wave touches: of an array shared along some dimensions, the panels its blocks span
    per_wave = 0.0
    for a in arrays:
        if a.shared_dims:
            frac = 1.0
            for d in range(3):
                if d not in a.shared_dims:
                    frac *= cover[d] / grid[d]
            per_wave += a.footprint * frac
        else:
            per_wave += min(a.footprint, a.offered * wave / blocks)
    refetch = per_wave > capacity
    scattered = sum(a.footprint for a in arrays if a.scattered and not a.shared_dims and a.reused())
    out = []
    for a in arrays:
        total = 0.0
        if not a.reused():
            total += a.footprint
        elif a.shared_dims:
            span = sum((grid[d] - 1) * stride[d] for d in a.shared_dims)
            users = 1
            for d in a.shared_dims:
                users *= grid[d]
            waves = min(users, span / wave + 1) if span >= wave else 1.0
            total += a.footprint * (waves if refetch else 1.0)
        elif a.scattered:
            hit = min(1.0, capacity / scattered) if scattered else 1.0
            cold = max(0.0, a.offered - a.footprint - a.hot * a.offered)  # what goes beyond the hot sectors
            total += a.footprint + cold * (1 - hit)
        else:  # neighbours' halos: loaded by blocks that run at about the same time
            total += a.footprint
        out.append(total)
    return out
