"""Kernel files as users keep them (tests/data/wild/): a kernel in a header that a whole program
includes (host headers, an error-checking macro, main()), a template with launch bounds computed
from its parameter in a header with include guards, everyday math headers and constants, and a
header found only through -I. Each goes through coalescing, banks, occupancy and cudasim.check as
a user types it; what cannot be used ends in one line on stderr and exit status 2.

Expected counts come from the sources here, not from a run.
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from analysis.signature import parse_signature
from cudasim import In, Out, SourceModule, compile_cuda
from needs import need_nvcc, need_nvrtc

ROOT = Path(__file__).resolve().parent.parent
WILD = Path("tests/data/wild")  # as a user in the checkout types it (the commands run in ROOT)

SAXPY = (f"{WILD}/saxpy_main.cu::saxpy", "--grid", "8", "--block", "256", "--arg", "n=2048", "--arg", "a=3",
         "--arg", "y=float32[2048]", "--arg", "x=float32[2048]")
TILE = (f"{WILD}/tile_main.cu::reverse_tiles<64, 2>", "--grid", "4", "--block", "64", "--arg", "n=512",
        "--arg", "out=float32[512]", "--arg", "in=float32[512]")
SOFTMAX = (f"{WILD}/softmax_math.cu::row_softmax", "--grid", "4", "--block", "128", "--arg", "rows=16",
           "--arg", "cols=100", "--arg", "out=float32[1600]", "--arg", "in=float32[1600]")
STENCIL = (f"{WILD}/stencil_main.cu::stencil_1d", "-I", f"{WILD}/include", "--grid", "4", "--block", "256",
           "--arg", "n=1024", "--arg", "out=float32[1024]", "--arg", "in=float32[1024]")


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, cwd=ROOT, timeout=600,
                          env={**os.environ, **(env or {})})


def _json(*args, env=None) -> dict:
    r = _cli(*args, "--json", env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _define(path: Path, name: str) -> int:
    return int(re.search(rf"#define {name} (\d+)", (ROOT / path).read_text()).group(1))


# ---- the whole program: nvcc compiles it, every command reads it ----------------------------------

def test_a_whole_program_goes_through_every_command():
    """saxpy in a header included by a .cu with main(), <vector>, <cstdlib>, <cuda_runtime.h>: nvcc's
    code (the output says so), y = a*x + y read and written once per element: per warp two loads and a
    store of 4 sectors each."""
    need_nvcc()
    warps = 8 * 256 // 32
    d = _json("analysis.coalescing", *SAXPY, "--no-cache")
    assert d["compiler"].startswith("nvcc") and "host-only header <" in d["compiler"]
    tot = d["coalescing"]["totals"]
    assert list(tot.values()) == [2 * warps, 2 * warps * 4, warps, warps * 4]
    assert all(g["file"].endswith("saxpy_kernels.cuh") for g in d["coalescing"]["instructions"])
    banks = _json("analysis.banks", *SAXPY, "--no-cache")["banks"]["totals"]
    assert set(banks.values()) == {0}  # saxpy has no shared memory
    occ = _json("analysis.occupancy", *SAXPY)
    assert occ["compiler"].startswith("nvcc") and 0 < occ["ptxas"]["registers"] <= 32
    chk = _json("cudasim.check", *SAXPY)
    assert chk["findings"] == [] and any(n.startswith("code by nvcc") for n in chk["notes"])


def test_a_whole_program_without_nvcc_is_one_line_naming_the_header():
    """NVRTC alone cannot take host code: the first host-only header is named, with the fix."""
    for cmd in ("analysis.coalescing", "cudasim.check"):
        r = _cli(cmd, *SAXPY, env={"CUDASIM_NVCC": "none"})
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "saxpy_main.cu:3: host-only header <cstdlib>" in r.stderr and "put nvcc on the PATH" in r.stderr
        assert "move the kernel into a file without host code" in r.stderr


def test_host_code_without_nvcc_names_the_function(tmp_path):
    need_nvrtc()
    cu = tmp_path / "prog.cu"
    cu.write_text('#include <cuda_runtime.h>\n__global__ void k(float* o) { o[threadIdx.x] = 1.0f; }\n'
                  'int main() {\n    float* d;\n    cudaMalloc(&d, 128);\n    k<<<1, 32>>>(d);\n    return 0;\n}\n')
    r = _cli("analysis.occupancy", f"{cu}::k", "--grid", "1", "--block", "32", env={"CUDASIM_NVCC": "none"})
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert f"{cu}:3: host code main()" in r.stderr and "nvcc" in r.stderr


# ---- a template with launch bounds, in a header with include guards --------------------------------

@pytest.mark.parametrize("cmd", ["analysis.coalescing", "analysis.banks", "cudasim.check"])
def test_template_kernel_in_a_header(cmd):
    """reverse_tiles<64, 2> (the file instantiates only <128, 4>): per warp ITEMS loads and stores of
    global memory and of shared memory, each of consecutive words (1 wavefront, no conflict)."""
    need_nvrtc()
    block, items, grid = 64, 2, 4
    warps = grid * block // 32
    if cmd == "cudasim.check":
        d = _json(cmd, *TILE)
        assert d["findings"] == [] and d["notes"][0].startswith("code by nvrtc")
        return
    d = _json(cmd, *TILE, "--no-cache")
    assert d["compiler"].startswith("nvrtc")
    tot = d[cmd.split(".")[1]]["totals"]
    assert all(Path(g["file"]) == (ROOT / WILD / "tile_kernels.cuh").resolve()
               for g in d[cmd.split(".")[1]]["instructions"])  # the header's lines, where a report reads them
    if cmd == "analysis.coalescing":
        assert list(tot.values()) == [warps * items, warps * items * 4, warps * items, warps * items * 4]
    else:
        assert list(tot.values()) == [warps * items, warps * items, 0] * 2


def test_launch_bounds_from_the_template_parameter_reach_the_compile():
    """__launch_bounds__(BLOCK * 2): the PTX of reverse_tiles<64, 2> carries .maxntid 128."""
    need_nvrtc()
    path = ROOT / WILD / "tile_main.cu"
    r = compile_cuda(path.read_text(), ["reverse_tiles<64, 2>"], filename=str(path))
    entry = r.lowered["reverse_tiles<64, 2>"]
    body = r.ptx.split(f".entry {entry}(")[1].split(".entry")[0]
    assert re.search(r"\.maxntid\s+128, 1, 1", body)
    occ = _json("analysis.occupancy", *TILE)
    assert occ["ptxas"]["shared_bytes"] == 64 * 2 * 4


def test_the_signature_is_read_from_included_headers_and_cycles_end():
    """The kernel's parameters come from the header; tile_kernels.cuh includes itself (its guard stops
    the compiler), and the reader stops too."""
    path = ROOT / WILD / "tile_main.cu"
    params = parse_signature(path.read_text(), "reverse_tiles<64, 2>", str(path))
    assert [(p.name, p.pointer) for p in params] == [("out", True), ("in", True), ("n", False)]
    main = ROOT / WILD / "stencil_main.cu"
    assert [p.name for p in parse_signature(main.read_text(), "stencil_1d", str(main), [str(ROOT / WILD / "include")])
            ] == ["out", "in", "n"]


# ---- math headers and constants ----------------------------------------------------------------

def test_math_headers_and_constants_run_as_numpy_computes_them():
    """row_softmax: <cmath>, <cfloat>, -INFINITY, FLT_MAX, std::fmin/fabs/sqrt, under NVRTC, simulated:
    the softmax of every row (the __expf approximation within 2e-6)."""
    need_nvrtc()
    rows, cols = 16, 100
    x = np.random.default_rng(3).standard_normal((rows, cols)).astype(np.float32)
    out = np.zeros_like(x)
    path = ROOT / WILD / "softmax_math.cu"
    f = SourceModule(path.read_text(), no_extern_c=True, filename=str(path)).get_function("row_softmax")
    f(Out(out), In(x), np.int32(rows), np.int32(cols), grid=(4, 1), block=(128, 1, 1))
    want = np.exp(x - x.max(axis=1, keepdims=True))
    want /= want.sum(axis=1, keepdims=True)
    assert np.abs(out - want).max() < 2e-6


@pytest.mark.parametrize("cmd", ["analysis.coalescing", "analysis.occupancy"])
def test_math_kernel_through_the_commands(cmd):
    need_nvrtc()
    d = _json(cmd, *SOFTMAX, *(["--no-cache"] if cmd != "analysis.occupancy" else []))
    assert d["compiler"].startswith("nvrtc")
    if cmd == "analysis.coalescing":  # every element stored once: at least its bytes in 32-byte sectors
        assert list(d["coalescing"]["totals"].values())[3] >= 16 * 100 * 4 / 32


# ---- -I ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("cmd", ["analysis.banks", "analysis.occupancy", "cudasim.check"])
def test_a_header_found_through_include_dirs(cmd):
    """<wild/stencil.cuh> through -I tests/data/wild/include, and the radius.h beside it: static shared
    memory of (256 + 2 RADIUS) floats; each thread stores its element and RADIUS threads the halos."""
    need_nvrtc()
    radius = _define(WILD / "include" / "wild" / "radius.h", "RADIUS")
    d = _json(cmd, *STENCIL, *(["--no-cache"] if cmd == "analysis.banks" else []))
    if cmd == "analysis.occupancy":
        assert d["ptxas"]["shared_bytes"] == (256 + 2 * radius) * 4
    elif cmd == "analysis.banks":
        warps = 4 * 256 // 32
        st = d["banks"]["totals"]
        assert list(st.values())[3] == warps + 2 * 4  # one store per warp, two halo stores by warp 0 of each block
        assert list(st.values())[0] == warps * (2 * radius + 1)  # the 7-point sum, each a load per warp
    else:
        assert d["findings"] == []


@pytest.mark.parametrize("cmd", ["analysis.coalescing", "cudasim.check"])
def test_a_missing_header_is_one_line_naming_it_and_the_fix(cmd):
    need_nvrtc()
    r = _cli(cmd, f"{WILD}/missing_header.cu::stencil_1d", "--grid", "4", "--block", "256", "--arg", "n=1024")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert 'missing_header.cu:2: cannot find "stencil.cuh": add -I DIR' in r.stderr
    ok = _cli(cmd, f"{WILD}/missing_header.cu::stencil_1d", "-I", f"{WILD}/include/wild", "--grid", "4", "--block",
              "256", "--arg", "n=1024", "--arg", "out=float32[1024]", "--arg", "in=float32[1024]")
    assert ok.returncode == 0, ok.stderr


@pytest.mark.parametrize("cmd", ["analysis.occupancy", "cudasim.check"])
def test_an_include_dir_that_does_not_exist_is_one_line(cmd):
    r = _cli(cmd, *[a if a != f"{WILD}/include" else f"{WILD}/no_such_dir" for a in STENCIL])
    assert r.returncode == 2 and r.stderr.strip() == (
        f"error: -I {WILD}/no_such_dir: no such folder (give the folder that holds the headers)")


def test_compiler_options_reach_the_command_and_its_cache():
    """--compiler-option=--maxrregcount=24 on the command line caps ptxas's count, and the plain build's
    result is not reused for it (nor it for the plain one); -use_fast_math turns std::sqrt into
    sqrt.approx; an architecture flag is refused (the GPU row decides it)."""
    need_nvrtc()
    regs = [_json("analysis.occupancy", *SOFTMAX, *x)["ptxas"]["registers"]
            for x in ([], ["--compiler-option=--maxrregcount=24"], [])]
    assert regs[0] == regs[2] > 24 >= regs[1]
    path = ROOT / WILD / "softmax_math.cu"
    ptx = compile_cuda(path.read_text(), options=["-use_fast_math"], filename=str(WILD / "softmax_math.cu")).ptx
    assert "sqrt.approx" in ptx and "sqrt.rn" not in ptx
    r = _cli("analysis.occupancy", *SOFTMAX, "-X=-arch=sm_80")
    assert r.returncode == 2 and "--gpu" in r.stderr


def test_printf_and_assert_with_their_headers():
    """<cstdio> and <cassert> under NVRTC (its built-in printf and assert): the check runs clean and the
    kernel's line is printed; with n = 0 every thread's assert fails, a finding (exit 1) at its line; the
    analysis notes the printed line instead of printing it."""
    need_nvrtc()
    target = (f"{WILD}/checked_scale.cu::checked_scale", "--grid", "2", "--block", "64", "--arg", "out=float32[128]",
              "--arg", "in=float32[128]")
    ok = _cli("cudasim.check", *target, "--arg", "n=128")
    assert ok.returncode == 0 and "scaled 128 elements" in ok.stdout, ok.stderr
    bad = _json_status("cudasim.check", *target, "--arg", "n=0")
    (f,) = bad["findings"]
    path = ROOT / WILD / "checked_scale.cu"
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "assert(" in text)
    assert (f["kind"], f["line"], f["count"]) == ("assert", line, 128)
    assert Path(f["file"]) == path.resolve()  # the file itself, readable from any folder
    d = _json("analysis.coalescing", *target, "--arg", "n=128", "--no-cache")
    assert any("printed 1 line" in n and "scaled 128 elements" in n for n in d["notes"])


def _json_status(*args) -> dict:
    """The JSON of a command that exits 1 (findings)."""
    r = _cli(*args, "--json")
    assert r.returncode == 1, r.stderr
    return json.loads(r.stdout)
