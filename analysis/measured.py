"""Which GPU measurements are of: the GPU a results file's device field names, and the measuring tools' default
files, the committed measurements of one GPU, which another GPU's must never overwrite (they would be compared as
that GPU's)."""
from __future__ import annotations

import platform
import subprocess
import time
from pathlib import Path

from cudasim.console import fail
from cudasim.gpus import GPU, of_device

COMMITTED_GPU = "H100-SXM"  # the GPU whose measurements the committed results files (*_h100.json) hold


def device_name(device) -> str | None:
    """The GPU a results file's `device` names (a dict with "name", or nvidia-smi's "NAME, DRIVER, ..."); None
    where it names none ("?": nvidia-smi could not be asked)."""
    name = device.get("name") if isinstance(device, dict) else device
    name = str(name or "").split(",")[0].strip()
    return name if name and name != "?" else None


def device_row(device) -> GPU | None:
    """The gpus.json row of the GPU `device` names; None where it names none or the table has no row for it."""
    name = device_name(device)
    return of_device(name) if name else None


def committed(device) -> bool:
    """Whether `device` is the GPU the committed results files were measured on."""
    row = device_row(device)
    return row is not None and row.key == COMMITTED_GPU


def own_results(out: str | None, default: Path, device) -> Path:
    """Where a measuring tool writes: `out`, or its default file of committed measurements where this machine's
    GPU (`device`, as nvidia-smi names it) is the one they were measured on; one line otherwise, before anything
    is measured (another GPU's counters under the committed file's name would be compared as the H100's)."""
    if out:
        return Path(out)
    if not committed(device):
        row = device_row(device)
        fail(f"this GPU is {device_name(device) or 'not named by nvidia-smi'}"
             f"{f' ({row.key})' if row else ''}: {default} holds the {COMMITTED_GPU}'s measurements; give --out "
             f"{default.with_name(default.name.replace('_h100', '_' + (row.key if row else 'gpu').lower()))} "
             f"(a file of this GPU's own)")
    return default


# what makes a results file's figures: the packages' code and data, not the results and notes kept in them
CODE = ("analysis", "cudasim", "kernels", "corpus", ":(exclude)*/results/*", ":(exclude)*.md")


def run_line(root: Path) -> str:
    """Where a results file's figures came from: the commit, and whether the code differed from it (a
    working tree copied to another machine keeps an older HEAD), the UTC time and the host."""
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    rev = git("rev-parse", "--short", "HEAD") or "?"
    changed = git("status", "--porcelain", "--untracked-files=no", "--", *CODE) if rev != "?" else ""
    mark = " with uncommitted changes to the code" if changed else ""
    return f"git {rev}{mark}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, host {platform.node()}"
