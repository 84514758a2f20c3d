"""The measuring tools' default files: the committed measurements of one GPU, which another GPU's must never
overwrite (they would be compared as that GPU's)."""
from __future__ import annotations

from pathlib import Path

from cudasim.console import fail
from cudasim.gpus import of_device

COMMITTED_GPU = "H100-SXM"  # the GPU whose measurements the committed results files (*_h100.json) hold


def own_results(out: str | None, default: Path, device: str) -> Path:
    """Where a measuring tool writes: `out`, or its default file of committed measurements where this machine's
    GPU (`device`, as nvidia-smi names it) is the one they were measured on; one line otherwise, before anything
    is measured (another GPU's counters under the committed file's name would be compared as the H100's)."""
    if out:
        return Path(out)
    name = (device or "").split(",")[0].strip()
    row = of_device(name) if name and name != "?" else None
    if row is None or row.key != COMMITTED_GPU:
        fail(f"this GPU is {name or 'not named by nvidia-smi'}"
             f"{f' ({row.key})' if row else ''}: {default} holds the {COMMITTED_GPU}'s measurements; give --out "
             f"{default.with_name(default.name.replace('_h100', '_' + (row.key if row else 'gpu').lower()))} "
             f"(a file of this GPU's own)")
    return default
