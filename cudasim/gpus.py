"""The hardware table (cudasim/gpus.json) as typed rows, and lookup by name or architecture.

Hardware facts live in data, not in branches: the launch checks, the compiler's default
architecture, the catalog's SM count and every analysis model read them from a `GPU` row,
so a new chip is one JSON row with its sources. It lives in cudasim, the lowest layer,
so that every layer above can read the same table.
"""
from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

DEFAULT_GPU = "H100-SXM"
_TABLE = Path(__file__).with_name("gpus.json")


class UnknownGPU(KeyError):
    """A --gpu name that matches no row; `close` holds the nearest names."""

    def __init__(self, name: str, close: list[str]):
        super().__init__(name)
        self.name, self.close = name, close

    def __str__(self) -> str:
        hint = f"; did you mean {', '.join(self.close)}?" if self.close else ""
        return f"unknown GPU {self.name!r}{hint} (known: {', '.join(sorted(_rows()))})"


@dataclass(frozen=True)
class GPU:
    key: str
    name: str
    cc: str
    sms: int
    max_threads_per_block: int
    max_block_dims: tuple[int, int, int]
    max_grid_dims: tuple[int, int, int]
    max_threads_per_sm: int
    max_warps_per_sm: int
    max_blocks_per_sm: int
    regs_per_sm: int
    regs_per_block: int
    max_regs_per_thread: int
    reg_alloc_unit: int  # registers, allocated per warp
    sub_partitions: int
    smem_per_sm: int  # bytes, the largest carveout
    smem_per_block_default: int  # bytes a block may use without the opt-in attribute
    smem_per_block_optin: int
    smem_reserved_per_block: int  # driver reservation per block (cc >= 8.0)
    smem_alloc_unit: int
    carveouts_kb: tuple[int, ...]
    sm_clock_mhz: float
    mem_clock_mhz: float
    bus_bits: int
    dram_gbps: float
    l2_bytes: int
    memory_bytes: int  # device memory: what the arrays of one launch must fit in
    fp32_tflops: float
    fp64_tflops: float
    fp16_tensor_tflops: float
    aliases: tuple[str, ...] = ()
    # the driver's carveout choice, fitted to measured launches (analysis.occupancy.driver_carveout)
    driver_carveout_cap_kb: int = 0  # where its 2x headroom stops; 0 = none
    driver_carveout_single_from: int = 0  # block size (threads) from which it leaves no headroom; 0 = the largest
    driver_carveout_no_smem_kb: tuple[tuple[int, int], ...] = ()  # (up to N threads, KB) with no shared memory
    # rates the timing model reads, each {"value", "unit", "source"}; a row without them is refused by it
    timing: dict = field(default_factory=dict, compare=False, hash=False)
    # the host link (copy bandwidths, copy engines), each {"value", "unit", "source"}: analysis.transfers
    host_link: dict = field(default_factory=dict, compare=False, hash=False)
    sources: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def warp_size(self) -> int:
        return 32

    @property
    def arch(self) -> str:
        """The compiler's target for this chip: compute capability 9.0 -> "sm_90"."""
        return "sm_" + self.cc.replace(".", "")

    def launch_problem(self, grid: tuple[int, int, int], block: tuple[int, int, int]) -> str | None:
        """Why the driver would refuse a launch of these dimensions on this chip, or None."""
        threads = block[0] * block[1] * block[2]
        if min(block) < 1 or min(grid) < 1:
            return f"grid {grid} and block {block} must be at least 1 in every dimension"
        if threads > self.max_threads_per_block:
            return (f"block {block} has {threads} threads; a block may have at most {self.max_threads_per_block}: "
                    f"smaller blocks, and more of them")
        for what, dims, limits in (("block", block, self.max_block_dims), ("grid", grid, self.max_grid_dims)):
            for i, (v, lim) in enumerate(zip(dims, limits)):
                if v > lim:
                    fix = (f"put the rest in another dimension" if what == "block" or i == 0 else
                           f"x goes to {limits[0]:,}: put the rest there, or loop over it in the kernel")
                    return f"{what} dimension {'xyz'[i]} = {v:,} exceeds the limit {lim:,}: {fix}"
        return None

    @property
    def carveouts(self) -> tuple[int, ...]:
        """Supported shared-memory capacities per SM in bytes, ascending."""
        return tuple(sorted(kb * 1024 for kb in self.carveouts_kb))


@lru_cache(maxsize=1)
def _rows() -> dict[str, dict]:
    return json.loads(_TABLE.read_text())["gpus"]


def _norm(s: str) -> str:
    return "".join(ch for ch in s.lower() if ch.isalnum())


def gpu_names() -> list[str]:
    return sorted(_rows())


def get_gpu(name: str | None = None) -> GPU:
    """The row for `name` (key, alias or marketing name, any case/punctuation).

    Raises UnknownGPU with the closest names when nothing matches.
    """
    name = name or DEFAULT_GPU
    rows = _rows()
    index: dict[str, str] = {}
    for key, row in rows.items():
        for n in (key, row["name"], *row.get("aliases", [])):
            index.setdefault(_norm(n), key)
    key = index.get(_norm(name))
    if key is None:
        close = difflib.get_close_matches(_norm(name), list(index), n=5, cutoff=0.5)
        raise UnknownGPU(name, sorted({index[c] for c in close}))
    row = dict(rows[key])
    row["carveouts_kb"] = tuple(row["carveouts_kb"])
    row["aliases"] = tuple(row.get("aliases", ()))
    row["max_block_dims"] = tuple(row["max_block_dims"])
    row["max_grid_dims"] = tuple(row["max_grid_dims"])
    row["driver_carveout_no_smem_kb"] = tuple(map(tuple, row.get("driver_carveout_no_smem_kb", ())))
    return GPU(key=key, **row)


def of_device(device: str) -> GPU | None:
    """The row of a device as nvidia-smi or a results file names it ("NVIDIA H100 80GB HBM3", maybe followed by
    ", DRIVER"); None where no row has that name."""
    try:
        return get_gpu(device.split(",")[0].strip()) if device.strip() else None
    except UnknownGPU:
        return None


def for_arch(arch: str) -> GPU | None:
    """The first row (in table order) whose compute capability `arch` ("sm_80", "sm_90a") targets.

    Launch limits are per compute capability, so any row of that capability gives the same ones.
    """
    digits = "".join(ch for ch in arch if ch.isdigit())
    if len(digits) < 2:
        return None
    cc = f"{digits[:-1]}.{digits[-1]}"
    key = next((k for k, row in _rows().items() if row["cc"] == cc), None)
    return get_gpu(key) if key else None
