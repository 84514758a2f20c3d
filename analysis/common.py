"""What every model shares: how a model declares itself (Model, Metric), provenance words,
per-row block weights (sampling), the warp kept for a picture (Example), lane math.

Why weights: a large launch is simulated on a few representative blocks; each traced
block then stands for the blocks of its class, so every total is a weighted sum and says
it was "sampled and scaled (blocks ...)". With every block traced, all weights are 1.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from cudasim.gpus import GPU
from cudasim.trace import MemEvent, Trace

SECTOR, LINE = 32, 128  # bytes: L1TEX sector and cache line
BANKS, WORD = 32, 4  # shared memory: banks of 4-byte words


def phases(size: int) -> int:
    """How many groups of lanes a shared access width is served in: 8-byte accesses by
    half-warps, 16-byte ones by quarter-warps (two of which a load may serve together: see bank_rows
    in the shared-memory model)."""
    return {8: 2, 16: 4}.get(int(size), 1)


# ---- how a model declares itself ----------------------------------------------------------

RULES = ("exact", "rel", "abs", "info", "context")


@dataclass(frozen=True)
class Metric:
    """One Nsight Compute metric, declared once by the model that predicts it.

    `rule` is how analysis.compare judges a prediction: "exact", "rel" (relative error within
    `tolerance`), "abs" (absolute), "info" (shown, not judged), or "context" (measured beside
    the predictions to explain them, not predicted).
    """

    name: str  # as ncu names it
    unit: str  # what one count is, as printed next to a value
    label: str  # short name for tables
    rule: str
    tolerance: float = 0.0

    def __post_init__(self) -> None:
        if self.rule not in RULES:
            raise ValueError(f"{self.name}: rule {self.rule!r} is not one of {', '.join(RULES)}")

    @property
    def predicted(self) -> bool:
        return self.rule != "context"


@dataclass(frozen=True)
class View:
    """What a model's report may read besides its own result: the target with the options that
    shape its launch (as a command line), the GPU row, and the command's options."""

    spec: str
    gpu: GPU
    options: argparse.Namespace


def _no_arguments(parser: argparse.ArgumentParser) -> None:
    return None


def _success(result: dict) -> int:
    return 0


@dataclass(frozen=True)
class Model:
    """A model: what it needs, the ncu metrics it predicts, how it reports.

    needs "trace": `analyze(trace, weights, issued) -> dict`; every trace model runs over the one
    simulation of a launch (analysis.pipeline); `issued` is what the SASS issues of shared loads and stores
    ({"ld": n, "st": n}, analysis.issues), None where unknown. needs "launch": `analyze(launch, resources,
    options) -> dict` from the resolved launch, ptxas's resources and the GPU row, with no
    simulation. needs "simulation": `analyze(Simulation) -> dict`, the simulations of a launch
    (perhaps at smaller sizes, to be scaled) with their instruction counts (analysis.simulation). `render(result, view)` is the text report, `predictions(result)` the values
    by metric name; `pointer(results, view)` is a line a trace model adds to the other trace
    models' reports (None: nothing to say). `order` places the model in reports and tables.
    `refusal(result)` says, in one line, why a result is no answer (None where it is one): the command
    then ends as for any unusable input, on stderr with exit status 2.
    """

    name: str
    summary: str
    order: int
    needs: str
    metrics: tuple[Metric, ...]
    analyze: Callable[..., dict]
    render: Callable[[dict, View], str]
    predictions: Callable[[dict], dict[str, float]]
    add_arguments: Callable[[argparse.ArgumentParser], None] = _no_arguments
    catalog_size: str = "sim_size"  # the catalog size a target without --size gets: sim_size | default_size
    pointer: Callable[[dict, View], str | None] | None = None
    exit_status: Callable[[dict], int] = _success
    refusal: Callable[[dict], str | None] | None = None  # why a result is no answer: one line, exit 2
    check: Callable[[GPU], None] | None = None  # raises ValueError (one line) for a GPU the model cannot serve

    def __post_init__(self) -> None:
        if self.needs not in ("trace", "launch", "simulation"):
            raise ValueError(f"model {self.name}: needs {self.needs!r}, not 'trace', 'launch' or 'simulation'")


MADE_UP = "made-up data: "  # how the notes on made-up buffer contents begin (analysis.dataflow; timing shows them first)
WORK_SPREAD = 1.25  # sampled interior blocks whose warp instructions differ more than this did uneven work


def longest_warp(path: list[tuple[int, int]], run_end: Callable[[int], int]) -> int:
    """The PTX instructions the longest-running warp of a followed block executed: `path` is the block's
    [(pc of a run or control instruction, bit mask of the warps entering it)] (cudasim's stats["followed"])."""
    warps = max((bits.bit_length() for _, bits in path), default=0)
    return max((sum((bits >> w & 1) * (run_end(pc) - pc) for pc, bits in path) for w in range(warps)), default=0)


def interior(trace: Trace, block: int) -> bool:
    """Whether a block is inside the grid along every dimension longer than two (edges do bounds checks)."""
    return all(0 < c < n - 1 for c, n in zip(trace.block_coords(block), trace.grid) if n > 2)


@dataclass
class Sample:
    """One simulation of a launch: its size, grid, sampled blocks, trace, the warp instructions
    executed at each PTX pc (over the blocks run), and the trace models' shared wavefronts."""

    size: int | None
    grid: tuple[int, int, int]
    blocks_total: int
    blocks_run: int
    trace: Trace
    weights: dict[int, float]
    pc_warps: np.ndarray
    shared_wavefronts: float
    provenance: str
    program: Any = None  # cudasim's decoded kernel: control-flow graph, straight-line runs
    listing: Any = None  # the kernel's SASS (analysis.sass.Listing); None without nvdisasm
    followed: dict = field(default_factory=dict)  # block -> the path its warps took (cudasim stats["followed"])
    compulsory_bytes: float | None = None  # the catalog's fewest DRAM bytes at this size, if known
    buffers: list = field(default_factory=list)  # (address, bytes) of each array the launch was passed
    follow_weights: dict = field(default_factory=dict)  # followed block -> blocks it stands for ({}: `weights`)
    parted: dict = field(default_factory=dict)  # followed block -> {branch pc: warps it parted} (stats["followed_parted"])


@dataclass
class Simulation:
    """What a simulation model reads: the launch as asked for (size, blocks, GPU row, resources,
    occupancy), the PTX body it ran, and one or two Samples. With two, the samples are smaller
    sizes of the same kernel, and per-block counts are extrapolated linearly in the size."""

    target: str
    gpu: GPU
    size: int | None
    blocks: int
    threads_per_block: int
    grid: tuple[int, int, int]
    body: list  # cudasim.ptx.Instruction per pc
    occupancy: dict  # blocks_per_sm, warps_per_sm, occupancy_pct, limiters
    registers: int
    samples: list[Sample]
    compulsory_bytes: float | None = None  # the catalog's fewest DRAM bytes at `size`, if known
    flops: float | None = None  # the catalog's FLOP count at `size`, if known
    notes: list[str] = field(default_factory=list)


# ---- provenance and weights ---------------------------------------------------------------


@dataclass
class Provenance:
    """Where the numbers come from: every printed total carries `label`."""

    kind: str  # "simulated" | "sampled"
    total_blocks: int
    traced_blocks: list[tuple[int, int, int]] = field(default_factory=list)
    weights: dict[int, float] = field(default_factory=dict)  # linear block -> blocks it stands for

    @property
    def label(self) -> str:
        if self.kind == "simulated":
            return f"simulated (all {self.total_blocks} blocks)"
        shown = ", ".join(f"({x},{y},{z})" for x, y, z in self.traced_blocks[:6])
        more = f", ... {len(self.traced_blocks)} in all" if len(self.traced_blocks) > 6 else ""
        return f"sampled and scaled (blocks {shown}{more} of {self.total_blocks})"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "label": self.label, "total_blocks": self.total_blocks,
                "traced_blocks": [list(b) for b in self.traced_blocks]}


@dataclass
class Example:
    """One warp of an instruction, kept for its picture (analysis.draw)."""

    block: tuple[int, int, int]
    warp: int
    mask: int
    addrs: list[int]
    size: int

    @classmethod
    def from_row(cls, ev: MemEvent, i: int, trace: Trace | None) -> "Example":
        """Row `i` of an event (its block in coordinates when the trace is known)."""
        blk = trace.block_coords(int(ev.blocks[i])) if trace is not None else (int(ev.blocks[i]), 0, 0)
        return cls(blk, int(ev.warps[i]), int(ev.masks[i]), [int(a) for a in ev.addrs[i]], ev.size)

    @classmethod
    def of(cls, data: Any) -> "Example | None":
        """An Example from its JSON form (a dict, as the result cache keeps it), or as it is."""
        if isinstance(data, dict):
            return cls(**{**data, "block": tuple(data["block"])})  # JSON keeps the coordinates as a list
        return data


def grid_blocks(grid: tuple[int, ...]) -> int:
    g = tuple(grid) + (1,) * (3 - len(grid))
    return int(g[0] * g[1] * g[2])


def provenance(trace: Trace, weights: dict[int, float] | None = None) -> Provenance:
    """Provenance of a trace: all blocks, or the traced ones with their weights.

    Without explicit weights, a partial trace is scaled uniformly (total / traced).
    """
    total = grid_blocks(trace.grid)
    if trace.traced_blocks is None or (len(set(trace.traced_blocks)) >= total and not weights):
        return Provenance("simulated", total)
    traced = sorted(set(int(b) for b in trace.traced_blocks))
    if not weights:
        weights = {b: total / len(traced) for b in traced}
    return Provenance("sampled", total, [trace.block_coords(b) for b in traced], dict(weights))


def row_weights(ev: MemEvent, prov: Provenance | None) -> np.ndarray:
    """(n,) float: how many real warps each traced row stands for."""
    if prov is None or prov.kind == "simulated" or not prov.weights:
        return np.ones(len(ev), dtype=np.float64)
    keys = np.array(sorted(prov.weights), dtype=np.int64)
    vals = np.array([prov.weights[k] for k in keys], dtype=np.float64)
    idx = np.clip(np.searchsorted(keys, ev.blocks.astype(np.int64)), 0, len(keys) - 1)
    return np.where(keys[idx] == ev.blocks, vals[idx], 1.0)


def active_lanes(masks: np.ndarray) -> np.ndarray:
    """(n, 32) bool from (n,) uint32 masks."""
    m = np.asarray(masks, dtype=np.uint32)
    return ((m[:, None] >> np.arange(32, dtype=np.uint32)) & 1).astype(bool)


def count_distinct(keys: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """(n,) number of distinct values per row of `keys` among `valid` entries."""
    if keys.shape[1] == 0:
        return np.zeros(len(keys), dtype=np.int64)
    k = keys.astype(np.int64)
    big = np.iinfo(np.int64).max
    k = np.where(valid, k, big)
    k.sort(axis=1)
    new = np.ones_like(k, dtype=bool)
    new[:, 1:] = k[:, 1:] != k[:, :-1]
    return (new & (k != big)).sum(axis=1)


def lane_strides(addrs: np.ndarray, act: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per row: the common byte stride between active lanes (if any), its validity, break count.

    Returns (stride (n,) int64, constant (n,) bool, breaks (n,) int64, usual (n,) int64) where `breaks`
    counts consecutive active pairs whose stride differs from `usual`, the row's first pair's stride
    (used to spot rows made of runs, as with blockDim.x = 16).
    """
    n = len(addrs)
    a = addrs.astype(np.int64)
    lanes = np.arange(32)
    idx = np.where(act, lanes, -1)
    prev = np.maximum.accumulate(np.concatenate([np.full((n, 1), -1), idx[:, :-1]], axis=1), axis=1)
    pair = act & (prev >= 0)
    pv = np.clip(prev, 0, 31)
    num = a - np.take_along_axis(a, pv, axis=1)
    den = np.where(pair, lanes[None, :] - prev, 1)
    exact = (num % den) == 0
    s = np.where(pair, num // den, 0)
    any_pair = pair.any(axis=1)
    big = np.iinfo(np.int64).max
    smin = np.where(pair, s, big).min(axis=1)
    smax = np.where(pair, s, -big).max(axis=1)
    constant = any_pair & (smin == smax) & np.where(pair, exact, True).all(axis=1)
    stride = np.where(any_pair, np.where(constant, smin, 0), 0)
    # the most common stride per row, for the run analysis: the first pair's stride is a good proxy
    first = np.argmax(pair, axis=1)
    s0 = s[np.arange(n), first]
    breaks = (pair & (s != s0[:, None])).sum(axis=1)
    return stride, constant, breaks, np.where(any_pair, s0, 0)
