"""The planted-bug suite: its manifest read, and each kernel's arguments made (numpy only, so the
GPU side can use it without cudasim)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def load() -> list[dict]:
    """The manifest's kernels, each with its source text and the line marked `// BUG` (0 if none)."""
    out = []
    for e in json.loads((HERE / "manifest.json").read_text())["kernels"]:
        src = (HERE / e["file"]).read_text()
        lines = [i + 1 for i, line in enumerate(src.splitlines()) if re.search(r"//\s*BUG\b", line)]
        out.append({**e, "path": str(HERE / e["file"]), "source": src, "line": lines[0] if lines else 0})
    return out


def arguments(e: dict, seed: int = 0) -> list[tuple[dict, object]]:
    """(spec, value) per argument: numpy arrays for buffers (random in [0, 1), zeros, or zeros standing
    for memory the host leaves unwritten: spec["init"] == "none"), numpy scalars for the rest."""
    rng = np.random.default_rng(seed)
    out = []
    for a in e["args"]:
        dt = np.dtype(a["dtype"])
        if "count" in a:
            v = (rng.random(a["count"]).astype(dt) if a["init"] == "random" and dt.kind == "f"
                 else rng.integers(0, 1000, a["count"]).astype(dt) if a["init"] == "random"
                 else np.zeros(a["count"], dt))
        else:
            v = dt.type(a["value"])
        out.append((a, v))
    return out
