"""Runs end in bounded time and memory (issue 16 item 3, issue 14 item 2): Ctrl-C ends any command with one line
and status 130; a buffer the user gives no size grows to what the kernel touches (never a false out-of-bounds),
up to a stated limit; a large launch of such buffers takes memory in proportion to what it touches.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analysis import pipeline
from analysis.args import UNSIZED_LIMIT, UNSIZED_START
from needs import need_nvrtc

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "CUDAPERF_PROGRESS": "0"}

SPIN_CU = """extern "C" __global__ void spin(int *out, int stop) {
    int i = 0;
    while (out[0] != stop) i++;   // out stays 0, stop is 1: it never ends
    out[threadIdx.x] = i;
}
"""
STRIDED_CU = """extern "C" __global__ void strided(const float *src, float *dst, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    dst[i] = src[i * stride];
}
"""
VADD_CU = """extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""
WALK_CU = """extern "C" __global__ void walk(float *a) {
    for (long long k = 0;; k += 1 << 20) a[k] = 1.0f;   // on and on: no bound
}
"""


def _cpu_seconds(pid: int) -> float:
    """CPU seconds a process has used (Linux /proc), or wall-clock-free 0 where /proc is missing."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


@pytest.mark.parametrize("command", [
    ["analysis.coalescing", "{src}::spin", "--grid", "1", "--block", "32", "--arg", "stop=1", "--no-cache",
     "--max-steps", "1000000000000"],
    ["cudasim.check", "{src}::spin", "--grid", "1", "--block", "32", "--arg", "stop=1", "--timeout", "500",
     "--max-steps", "1000000000000"],
])
def test_ctrl_c_ends_a_long_run_with_one_line(tmp_path, command):
    """SIGINT (what Ctrl-C sends) in the middle of a run that would go on for hours: status 130, one line."""
    need_nvrtc()
    src = tmp_path / "spin.cu"
    src.write_text(SPIN_CU)
    p = subprocess.Popen([sys.executable, "-m", *[c.format(src=src) for c in command]], cwd=ROOT, env=ENV,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    while _cpu_seconds(p.pid) < 2.0 and time.monotonic() - t0 < 20 and p.poll() is None:
        time.sleep(0.1)  # past the imports and the compile: inside the simulation
    time.sleep(0.5)
    assert p.poll() is None, p.communicate()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode in (130, -signal.SIGINT), err  # exit 130, or ended by SIGINT where it came during loading
    # (a faster machine got there first): a shell shows 130 for both
    assert err == "interrupted\n", err
    assert "Traceback" not in out


def test_cudasim_check_timeout_stops_one_block_that_never_ends(tmp_path, capsys):
    """--timeout holds within a block: one warp spinning forever (and the run that sizes its unsized buffer first)
    stops at the time limit, in one line naming the line it spins on, not at 10^9 warp instructions minutes later."""
    need_nvrtc()
    src = tmp_path / "spin.cu"
    src.write_text(SPIN_CU)
    from cudasim import console
    from cudasim.check.cli import main
    t0 = time.monotonic()
    with pytest.raises(SystemExit) as ended:
        console.run(main, [f"{src}::spin", "--grid", "1", "--block", "32", "--arg", "stop=1", "--timeout", "1"])
    out, err = capsys.readouterr()
    assert ended.value.code == 2 and out == "" and err.count("\n") == 1, err
    assert "the check ran past its time limit of 1 s" in err and "spin.cu:3" in err
    assert time.monotonic() - t0 < 30


def test_an_unsized_buffer_grows_to_what_the_kernel_reads(tmp_path, capsys):
    """src[i * 64] reads 64 times further than the thread count: past the threads x 16 elements unsized buffers
    had, which gave a false out-of-bounds. Now src grows to cover it, the note says to what, and the counts are
    those of the stride (32 sectors per request)."""
    need_nvrtc()
    src = tmp_path / "strided.cu"
    src.write_text(STRIDED_CU)
    from analysis.cli import main
    threads = 4 * 256
    assert 64 * (threads - 1) + 1 > 16 * threads  # beyond the old guess
    code = main("coalescing", [f"{src}::strided", "--grid", "4", "--block", "256", "--arg", "stride=64", "--draw",
                               "none", "--no-cache", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    d = json.loads(out)
    grown = next(n for n in d["notes"] if n.startswith("src:"))
    count = int(grown.split("grown to ")[1].split(" float32")[0].replace(",", ""))
    assert 64 * (threads - 1) + 1 <= count <= 2 * (64 * (threads - 1) + 1)  # covers the reads, with headroom
    assert "dst:" in " ".join(d["notes"]) and f"{UNSIZED_START:,} float32" in next(n for n in d["notes"]
                                                                                 if n.startswith("dst:"))
    totals = d["coalescing"]["totals"]
    assert totals["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == threads // 32
    assert totals["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == threads  # one sector per lane


def test_cudasim_check_finds_no_false_out_of_bounds_in_unsized_buffers(tmp_path, capsys):
    need_nvrtc()
    src = tmp_path / "strided.cu"
    src.write_text(STRIDED_CU)
    from cudasim.check.cli import main
    assert main([f"{src}::strided", "--grid", "4", "--block", "256", "--arg", "stride=64"]) == 0
    out = capsys.readouterr().out
    assert "ERROR SUMMARY: 0 errors" in out and "src: no size or data given: zeros, grown to" in out


def test_unbounded_accesses_stop_at_the_limit_in_one_line(tmp_path):
    """A loop that writes further and further: the buffer doubles run after run up to UNSIZED_LIMIT, then one line
    names it and how to size it; in bounded time."""
    need_nvrtc()
    src = tmp_path / "walk.cu"
    src.write_text(WALK_CU)
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "analysis.coalescing", f"{src}::walk", "--grid", "1", "--block", "1",
                        "--no-cache"], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and r.stdout == "", r.stderr
    assert r.stderr.count("\n") == 1 and "a: the kernel reaches" in r.stderr, r.stderr
    assert f"{UNSIZED_LIMIT >> 20:,} MiB an unsized buffer may grow to" in r.stderr
    assert "--arg a=float32[COUNT]" in r.stderr
    assert time.monotonic() - t0 < 120


MEASURE = """
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)  # KiB on Linux: the command's peak
print(r.returncode)
sys.stdout.write(r.stdout + r.stderr)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in KiB on Linux")
def test_a_large_unsized_launch_takes_memory_in_proportion(tmp_path):
    """100,000 blocks of 256 threads over three buffers given no size: 17.1 GB peak and 54 s before (each buffer
    threads x 16 floats, copied three times); now each grows to the 25.6 M floats the kernel touches and is held
    once. The peak resident memory of the command, measured by the process that waits for it, stays under 1.5 GB."""
    need_nvrtc()
    src = tmp_path / "vadd.cu"
    src.write_text(VADD_CU)
    blocks, n = 100_000, 100_000 * 256
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-c", MEASURE, sys.executable, "-m", "analysis.coalescing", f"{src}::vadd",
                        "--grid", str(blocks), "--block", "256", "--arg", f"n={n}", "--draw", "none", "--no-cache"],
                       cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)
    peak_kib, status, report = r.stdout.split("\n", 2)
    assert status == "0", report
    assert time.monotonic() - t0 < 60
    for name in "abc":
        note = next(line for line in report.splitlines() if line.strip().startswith(f"note: {name}:"))
        count = int(note.split("grown to ")[1].split(" float32")[0].replace(",", ""))
        assert n <= count <= 2 * n, note
    assert int(peak_kib) < 1.5 * 2**20, f"peak {int(peak_kib) / 2**20:.2f} GiB"


def test_grow_refuses_what_is_not_an_unsized_buffer():
    """A fault in a buffer the user sized, or in a catalog target's, is a real out-of-bounds access: not grown."""
    from cudasim.errors import MemoryFault
    launch = pipeline.resolve_catalog("transpose_tiled")
    fault = MemoryFault("x", space="global", kind="out-of-bounds", address=1, size=4, lowest=0, reach=8)
    fault.argument, fault.argument_reach = 0, 8
    assert launch.grow(fault) is None


def test_one_warp_spinning_stops_at_the_default_limit_in_seconds(tmp_path):
    """One warp spinning: at 10^9 warp instructions counted one by one it ran over 15 minutes; an instruction run
    for few warps counts as 128 (its cost to simulate), so the default limit stops it in seconds, naming the line."""
    need_nvrtc()
    import numpy as np
    from cudasim import Runaway, SourceModule
    from cudasim.execute import MAX_STEPS
    f = SourceModule(SPIN_CU, no_extern_c=True).get_function("spin")
    t0 = time.monotonic()
    with pytest.raises(Runaway) as e:
        f(np.zeros(32, np.int32), np.int32(1), block=(32, 1, 1), grid=(1, 1))
    assert time.monotonic() - t0 < 90
    assert f"limit of {MAX_STEPS:,} warp instructions" in str(e.value) and ":3 (" in str(e.value)


def test_a_grid_of_2_31_blocks_is_run_without_a_list_of_its_blocks():
    """A 2^31 - 1 block grid: its block ids are made a batch at a time (a list of them all is 16 GiB), so the
    step limit, not memory, ends it."""
    need_nvrtc()
    import numpy as np
    from cudasim import Runaway, SourceModule
    f = SourceModule(VADD_CU, no_extern_c=True).get_function("vadd")
    a = np.zeros(64, np.float32)
    with pytest.raises(Runaway):
        f(a, a, a.copy(), np.int32(0), block=(1, 1, 1), grid=(2**31 - 1, 1), max_steps=10**6)


def test_all_blocks_past_the_bound_is_refused_in_one_line(tmp_path):
    need_nvrtc()
    src = tmp_path / "vadd.cu"
    src.write_text(VADD_CU)
    r = subprocess.run([sys.executable, "-m", "analysis.coalescing", f"{src}::vadd", "--grid", "2147483647",
                        "--block", "1", "--arg", "n=32", "--all-blocks"], cwd=ROOT, env=ENV, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1, r.stderr
    assert "--all-blocks: the launch has 2,147,483,647 warps" in r.stderr and "leave out --all-blocks" in r.stderr


LOOPBREAK_CU = """extern "C" __global__ void loopbreak(const int *flags, int *out) {
    int i = 0;
    while (true) { if (flags[i] != 0) break; i++; }   // flags given no data: zeros, so it reads on and on
    out[threadIdx.x] = i;
}
"""


@pytest.mark.parametrize("command", ["analysis.coalescing", "cudasim.check"])
def test_the_runs_that_grow_a_buffer_share_the_step_limit(tmp_path, command):
    """A loop that ends only on data an unsized buffer does not hold reads further each run: the buffer doubles
    and the kernel runs again. The runs share --max-steps (each had all of it: 2x the limit, and cudasim.check's
    checked run a third), so it stops in one line naming the buffer and the line."""
    need_nvrtc()
    src = tmp_path / "loopbreak.cu"
    src.write_text(LOOPBREAK_CU)
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", command, f"{src}::loopbreak", "--grid", "1", "--block", "32",
                        "--max-steps", "20000000"], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1, r.stderr
    assert "the runs that grew flags (given no size)" in r.stderr and "limit of 20,000,000" in r.stderr
    assert "loopbreak.cu:3" in r.stderr and "give flags its size (--arg)" in r.stderr
    assert r.stderr.count("warp instructions") == 1, r.stderr  # where the threads were, not the inner line again
    assert time.monotonic() - t0 < 60


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_output_that_cannot_be_written_is_one_line():
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "kernels"], cwd=ROOT, env=ENV, stdout=full, stderr=subprocess.PIPE,
                           text=True, timeout=120)
    assert r.returncode == 2 and r.stderr == "error: cannot write the output: No space left on device; send it " \
                                             "where there is room\n", r.stderr
    with open("/dev/full", "w") as full:  # the error line itself cannot be written: the status still says it
        r = subprocess.run([sys.executable, "-m", "analysis.coalescing", "nope_kernel"], cwd=ROOT, env=ENV,
                           stdout=subprocess.PIPE, stderr=full, text=True, timeout=120)
    assert r.returncode == 2 and r.stdout == ""


def test_a_full_cache_costs_only_the_cache(tmp_path, monkeypatch, capsys):
    """Every write to the cache fails for want of room: the answer is the same, no half-written file is left,
    and the SASS is still read (a full cache had been taken for nvdisasm missing: 'pip install ...')."""
    need_nvrtc()
    import errno
    import pathlib
    from analysis import sass
    if sass.find_nvdisasm() is None:
        pytest.skip("nvdisasm is not installed")
    cache = tmp_path / "cache"
    monkeypatch.setenv("CUDASIM_CACHE", str(cache))
    real_text, real_bytes = pathlib.Path.write_text, pathlib.Path.write_bytes

    def full(real):
        def write(self, *a, **k):
            if str(self).startswith(str(cache)):
                real(self, "")  # the file is made, then the disk is full
                raise OSError(errno.ENOSPC, "No space left on device")
            return real(self, *a, **k)
        return write
    monkeypatch.setattr(pathlib.Path, "write_text", full(real_text))
    monkeypatch.setattr(pathlib.Path, "write_bytes", full(real_bytes))
    from analysis.cli import main
    assert main("timing", ["transpose_tiled", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["time_us"] > 0
    assert not [p for p in cache.rglob("*") if p.is_file()]
