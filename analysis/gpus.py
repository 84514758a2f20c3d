"""The hardware table (analysis/gpus.json) as typed rows, and lookup by name.

Hardware facts live in data, not in branches: every model takes a `GPU` and reads its
limits from it, so a new chip is one JSON row with its sources.
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
    fp32_tflops: float
    fp64_tflops: float
    fp16_tensor_tflops: float
    aliases: tuple[str, ...] = ()
    # the driver's carveout choice, fitted to measured launches (analysis.occupancy.driver_carveout)
    driver_carveout_cap_kb: int = 0  # where its 2x headroom stops; 0 = none
    driver_carveout_single_from: int = 0  # block size (threads) from which it leaves no headroom; 0 = the largest
    driver_carveout_no_smem_kb: tuple[tuple[int, int], ...] = ()  # (up to N threads, KB) with no shared memory
    sources: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def warp_size(self) -> int:
        return 32

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
    row["driver_carveout_no_smem_kb"] = tuple(map(tuple, row.get("driver_carveout_no_smem_kb", ())))
    return GPU(key=key, **row)
