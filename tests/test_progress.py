"""Feedback on long work (issue 16 item 4): progress on stderr only when stderr is a terminal, never in
pipes, files or tests; and analysis.compare ends with its verdict on stdout.
"""
from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from needs import need_nvrtc

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
ENV.pop("CUDAPERF_PROGRESS", None)


def run_with_terminal_stderr(argv: list[str], env: dict | None = None, timeout: float = 120) -> tuple[int, str, str]:
    """(status, stdout, what the terminal on stderr showed): stdout a pipe, stderr a pseudo-terminal."""
    master, slave = pty.openpty()
    p = subprocess.Popen(argv, cwd=ROOT, env=env or ENV, stdout=subprocess.PIPE, stderr=slave, text=True)
    os.close(slave)
    shown = b""
    while True:
        ready, _, _ = select.select([master], [], [], timeout)
        if not ready:
            p.kill()
            raise TimeoutError(argv)
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal closed: the process is gone
            break
        if not chunk:
            break
        shown += chunk
    out = p.stdout.read()
    p.wait(timeout)
    os.close(master)
    return p.returncode, out, shown.decode(errors="replace")


TRACK = """
import time
from cudasim import progress
for _ in progress.track(range(3), "outer work", unit="steps"):
    for _ in progress.track(range(4), "inner work"):
        time.sleep(0.15)
print("done")
"""


def test_progress_shows_on_a_terminal_and_nowhere_else():
    code, out, shown = run_with_terminal_stderr([sys.executable, "-c", TRACK])
    assert code == 0 and out == "done\n"
    assert "outer work (steps)" in shown and "inner work" in shown  # nested: two lines of one display
    assert re.search(r"\d/3", shown) and re.search(r"\d/4", shown)
    code, out, shown = run_with_terminal_stderr([sys.executable, "-c", TRACK], {**ENV, "CUDAPERF_PROGRESS": "0"})
    assert code == 0 and out == "done\n" and shown == ""
    r = subprocess.run([sys.executable, "-c", TRACK], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout == "done\n" and r.stderr == ""


PULSED = """
import numpy as np
from cudasim import SourceModule, InOut, progress
mod = SourceModule('extern "C" __global__ void spin(int *a, int n) '
                   '{ int s = 0; for (int i = 0; i < n; i++) s += i ^ a[0]; a[threadIdx.x + 1] = s; }')
a = np.zeros(33, np.int32)
with progress.task("simulating spin", None, "warp instructions", pulsed=True):
    ran = mod.get_function("spin")(InOut(a), np.int32(60000), grid=(1, 1), block=(32, 1, 1))
print(ran.stats["warp_instructions"])
"""


def test_a_long_block_counts_its_warp_instructions_on_the_line():
    """One block that runs long (the sweep's kd-tree sat at 0/? for 11 minutes): the simulation's progress line
    counts the warp instructions simulated as they go."""
    need_nvrtc()
    code, out, shown = run_with_terminal_stderr([sys.executable, "-c", PULSED], timeout=300)
    assert code == 0, shown
    total = int(out)
    counts = [int(x.replace(",", "")) for x in re.findall(r"(\d[\d,]*)/\?", shown)]
    assert any(0 < c < total for c in counts) or total in counts, shown[-500:]
    assert max(counts) <= total


def _table_counts(text: str) -> tuple[int, int]:
    """(ok, MISS) rows of compare's table, counted from the rows themselves."""
    rows = [line for line in text.splitlines() if line.endswith(("  ok", "  MISS"))]
    return sum(r.endswith("  ok") for r in rows), sum(r.endswith("  MISS") for r in rows)


def test_compare_ends_with_its_verdict_and_is_silent_on_stderr_off_a_terminal():
    """The verdict is the last thing on stdout: judged metrics within tolerance (as the table's rows count
    them), the misses, and the kernel time's error as the timing run's file gives it; stderr holds nothing."""
    need_nvrtc()
    names = ["copy", "transpose_tiled", "vector_add_grid_stride"]
    r = subprocess.run([sys.executable, "-m", "analysis.compare", "--kernels", ",".join(names)], cwd=ROOT,
                       env=ENV, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    ok, miss = _table_counts(r.stdout)
    tail = r.stdout.rstrip("\n").split("\n\n")[-1].splitlines()
    assert tail[0] == f"verdict: {ok} of {ok + miss} judged metrics within tolerance", tail
    assert ok + miss >= 3 * 14
    assert (tail[1] == "  misses: none") == (miss == 0)
    assert sum(line.startswith("  miss: ") for line in tail) == miss
    timing = json.loads((ROOT / "analysis" / "results" / "timing_h100.json").read_text())
    errs = np.array([abs(t["error_pct"]) for t in timing["rows"] if t["kernel"] in names])
    worst = max((t for t in timing["rows"] if t["kernel"] in names), key=lambda t: abs(t["error_pct"]))
    assert tail[-1] == (f"  kernel time, timing model vs CUDA events ({timing['device']}, {len(errs)} kernels): "
                        f"|error| median {np.median(errs):.1f}%, 90th percentile {np.percentile(errs, 90):.1f}%, "
                        f"worst {abs(worst['error_pct']):.1f}% ({worst['kernel']})")


def test_compare_on_a_terminal_shows_progress_there_and_the_same_stdout():
    need_nvrtc()
    argv = [sys.executable, "-m", "analysis.compare", "--kernels", "copy,transpose_naive"]
    plain = subprocess.run(argv, cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=600)
    code, out, shown = run_with_terminal_stderr(argv)
    assert code == plain.returncode == 0
    assert out == plain.stdout
    assert "predicting" in shown and "every block simulated" in shown


@pytest.mark.parametrize("module", ["kernels.simbench", "corpus.compare", "kernels.bench", "kernels.tune",
                                    "kernels.differential", "analysis.report", "analysis.timing_accuracy"])
def test_long_loops_go_through_the_shared_progress(module):
    """Each long loop shows its progress through cudasim.progress (one helper, no copy per command)."""
    text = (ROOT / Path(*module.split("."))).with_suffix(".py").read_text()
    assert "progress.track(" in text or "progress.task(" in text
    assert "rich.progress" not in text  # the bars are cudasim.progress's business
