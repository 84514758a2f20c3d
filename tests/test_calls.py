"""PTX calls (cudasim.calls): functions ptxas does not inline, recursion, printf, assert, malloc/free.

Each kernel is compiled by NVRTC as a user writes it and checked against a Python reference of the
same computation; the runtime's functions against what the GPU prints or returns.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from cudasim import In, Out, SimulationError, SourceModule, UnsupportedInstruction
from cudasim.calls import AssertionFailed, format_printf, link
from needs import need_nvrtc

pytestmark = pytest.mark.usefixtures("nvrtc")

SRC = (Path(__file__).resolve().parent.parent / "kernels" / "calls.cu").read_text()


@pytest.fixture(scope="module")
def nvrtc():
    need_nvrtc()


@pytest.fixture(scope="module")
def mod():
    return SourceModule(SRC, no_extern_c=True, filename="calls.cu")


def _collatz(x: int) -> int:
    steps = 0
    if x <= 1:
        return 0
    while x != 1:
        x = 3 * x + 1 if x & 1 else x // 2
        steps += 1
        if steps > 300:
            return -1
    return steps


def _ack(m: int, n: int) -> int:
    if m == 0:
        return n + 1
    if n == 0:
        return _ack(m - 1, 1)
    return _ack(m - 1, _ack(m, n - 1))


def _digits(x: int, depth: int) -> int:
    d = [(x >> (2 * k)) & 3 for k in range(4)]
    below = _digits(int(x / 3) + d[x & 3], depth - 1) if depth > 0 else 0
    return below * 7 + d[(x + depth) & 3] + d[depth & 3]


def test_functions_ptxas_does_not_inline_run_and_return(mod):
    n = 200
    steps, acks, dig = (np.zeros(n, np.int32) for _ in range(3))
    pairs = np.zeros(2 * n, np.float32)
    launch = mod.get_function("calls")(Out(steps), Out(acks), Out(pairs), Out(dig), np.int32(n), block=(64, 1, 1),
                                       grid=(4, 1))
    i = np.arange(n)
    assert steps.tolist() == [_collatz(int(k)) for k in i]
    assert acks.tolist() == [_ack(1 + k % 2, k % 5) if k % 3 == 0 else -7 for k in i]
    f = i.astype(np.float32)
    assert (pairs[0::2] == np.float32(0.5) * f * f).all() and (pairs[1::2] == np.float32(0.5) * f - f).all()
    assert dig.tolist() == [_digits(int(k) * 37, int(k) % 6) for k in i]
    assert launch.trace is not None and launch.stats["warp_instructions"] > 0


def test_a_kernel_without_calls_is_linked_as_it_is(mod):
    assert link(mod.module, "plain") is mod.module.functions["plain"]
    assert mod.get_function("calls").fn.linkage.saves  # ack and digits are recursive: their frames are kept


def test_printf_prints_what_c_formats_in_thread_order(mod, capfd):
    n = 64
    x = np.linspace(-3, 3, n).astype(np.float32)
    big = (np.arange(n, dtype=np.int64) - 7) * 1_000_000_007
    launch = mod.get_function("talk")(In(x), In(big), np.int32(n), block=(32, 1, 1), grid=(2, 1))
    expect = "".join(
        "b%d t%02d x=%.3f e=%e hex=%#x c=%c %s big=%d u=%d\n" % (
            i // 32, i % 32, x[i], x[i], i * 255, chr(ord("a") + i % 26), "odd" if i & 8 else "even", big[i],
            (-i) % (1 << 32)) for i in range(n) if i % 8 == 3)
    assert launch.stats["printf"] == expect  # printf returned 9 (its arguments) everywhere: nothing else printed
    assert capfd.readouterr().out == expect


def test_printf_can_be_kept_off_standard_output(mod, capfd):
    x, big = np.ones(32, np.float32), np.zeros(32, np.int64)
    launch = mod.get_function("talk")(In(x), In(big), np.int32(32), block=(32, 1, 1), grid=(1, 1), printf=False)
    assert launch.stats["printf"].count("\n") == 4 and capfd.readouterr().out == ""


def test_format_printf_takes_arguments_as_the_format_says():
    vals = [-5, 2 ** 64 - 1, 2.5, "ab"]
    text, used = format_printf("%d|%lu|%6.2f|%-4s|%%|%*d", lambda size, kind: vals.pop(0))
    assert (text, used) == ("-5|18446744073709551615|  2.50|ab  |%|%*d", 4)


def test_a_failed_assert_stops_the_launch_naming_thread_and_line(mod):
    f = mod.get_function("checked")
    f(In(np.arange(64, dtype=np.int32)), np.int32(64), block=(32, 1, 1), grid=(2, 1))  # holds: runs
    with pytest.raises(AssertionFailed) as e:
        f(In(np.arange(64, dtype=np.int32)), np.int32(40), block=(32, 1, 1), grid=(2, 1))
    msg = str(e.value)
    assert f"calls.cu:{_line('assert(x[i] < limit);')}:" in msg and "block: [1,0,0], thread: [8,0,0] Assertion `x[i] < limit` failed." in msg
    assert e.value.count == 24 and e.value.threads[0] == ((1, 0, 0), (8, 0, 0))


def test_malloc_and_free_draw_on_the_device_heap(mod):
    out = np.zeros(256, np.int32)
    mod.get_function("heap")(Out(out), np.int64(1 << 30), block=(128, 1, 1), grid=(2, 1))
    assert out.tolist() == [sum(i * 10 + k for k in range(i % 4 + 1)) for i in range(256)]
    with pytest.raises(SimulationError, match="freed twice"):
        mod.get_function("twice_freed")(Out(np.zeros(32, np.int32)), block=(32, 1, 1), grid=(1, 1))


def test_runaway_recursion_stops_in_bounded_time(mod):
    t = time.perf_counter()
    with pytest.raises(SimulationError, match="runaway recursion"):
        mod.get_function("runaway")(Out(np.zeros(32, np.int32)), np.int32(-1), block=(32, 1, 1), grid=(1, 1))
    assert time.perf_counter() - t < 60


def test_an_unmodelled_instruction_stops_only_the_threads_that_reach_it_naming_the_users_line():
    """A texture fetch inside a called function: the kernel runs where no thread fetches; where one does, the
    refusal names the instruction and the line of the user's source, not of the toolkit header it came from."""
    src = r"""
__device__ __noinline__ float fetch(cudaTextureObject_t t, int i) { return tex1Dfetch<float>(t, i); }
extern "C" __global__ void maybe_tex(float *y, cudaTextureObject_t t, int use) {
    y[threadIdx.x] = use ? fetch(t, threadIdx.x) : 1.0f;
}"""
    f = SourceModule(src, no_extern_c=True, filename="tex.cu").get_function("maybe_tex")
    y = np.zeros(32, np.float32)
    f(Out(y), np.uint64(0), np.int32(0), block=(32, 1, 1), grid=(1, 1))
    assert (y == 1).all()
    with pytest.raises(UnsupportedInstruction, match=r"`tex\.1d.*` at \S*tex\.cu:2 \(textures and surfaces"):
        f(Out(y), np.uint64(0), np.int32(1), block=(32, 1, 1), grid=(1, 1))


def _line(text: str) -> int:
    return next(k for k, line in enumerate(SRC.splitlines(), 1) if text in line)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, timeout=600)


def test_the_commands_take_kernels_that_call(tmp_path):
    cu = tmp_path / "calls.cu"
    cu.write_text(SRC)
    np.save(tmp_path / "x.npy", np.arange(64, dtype=np.int32))
    launch = ["--grid", "4", "--block", "64", "--arg", "n=200"]
    sized = ["--arg", "steps=int32[256]", "--arg", "acks=int32[256]", "--arg", "pairs=float32[512]",
             "--arg", "dig=int32[256]"]
    r = _cli("analysis.coalescing", f"{cu}::calls", *launch, *sized, "--draw", "none")
    assert r.returncode == 0, r.stderr
    assert "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum" in r.stdout
    r = _cli("analysis.timing", f"{cu}::calls", *launch, *sized)
    assert r.returncode == 2 and "did not inline" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = _cli("analysis.coalescing", f"{cu}::talk", "--grid", "2", "--block", "32", "--arg", "n=64", "--draw", "none")
    assert r.returncode == 0 and "printed 8 lines (printf)" in r.stdout
    assert r.stdout.count("b0 t03") == 1 and "b1 t03" not in r.stdout  # named in the note, never printed
    r = _cli("cudasim.check", f"{cu}::checked", "--grid", "2", "--block", "32", "--arg", "limit=40",
             "--data", f"x={tmp_path / 'x.npy'}", "--json")
    assert r.returncode == 1, r.stderr
    (finding,) = json.loads(r.stdout)["findings"]
    assert finding["kind"] == "assert" and finding["thread_count"] == 24 and finding["line"] == _line("assert(x[i] < limit);")


@pytest.mark.parametrize("src, kernel, options, why", [
    ("#include <cooperative_groups.h>\n__global__ void g(float *x) { cooperative_groups::this_grid().sync(); x[0] = 1; }",
     "g", [], r"%envreg\d+: a grid-wide group .* is not modelled"),
    ("__global__ void child(float *x) { x[threadIdx.x] = 1; }\n"
     "__global__ void parent(float *x) { if (threadIdx.x == 0) child<<<1, 32>>>(x); }",
     "parent", ["-rdc=true"], r"a launch from the device \(dynamic parallelism\) is not modelled"),
])
def test_what_is_not_modelled_is_refused_by_name(src, kernel, options, why):
    mod = SourceModule(src, no_extern_c=True, options=options)
    with pytest.raises(UnsupportedInstruction, match=why):
        mod.get_function(kernel)(Out(np.zeros(32, np.float32)), block=(32, 1, 1), grid=(1, 1))
