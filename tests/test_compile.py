import json
import os
from pathlib import Path

import pytest

from cudasim.compile import CompileError, compile_cuda, parse_ptxas_log
from needs import need_nvrtc

ROOT = Path(__file__).resolve().parent.parent

SRC = r'''
template <int T>
__global__ void scale(float* out, const float* __restrict__ in, int n) {
    __shared__ float tile[T][T + 1];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.y][threadIdx.x] = in[i];
    __syncthreads();
    if (i < n) out[i] = 2.0f * tile[threadIdx.x][threadIdx.y];
}
'''


def test_template_by_name_expression_gives_ptx_with_lines_and_resources():
    r = compile_cuda(SRC, ["scale<32>"], cache=False)
    mangled = r.lowered["scale<32>"]
    assert f".entry {mangled}(" in r.ptx
    assert ".loc" in r.ptx and ".target sm_90" in r.ptx
    res = r.resources[mangled]
    assert res.shared_bytes == 32 * 33 * 4
    assert 4 <= res.registers <= 64
    assert r.entry("scale<32>") == mangled


def test_defines_reach_the_source():
    src = "extern \"C\" __global__ void k(int* o) { o[0] = VALUE; }"
    r = compile_cuda(src, options=["-DVALUE=1234567"], cache=False)
    assert "1234567" in r.ptx
    with pytest.raises(CompileError, match="VALUE"):
        compile_cuda(src, cache=False)


def test_ptxas_log_parsing():
    log = """ptxas info    : Compiling entry function 'k' for 'sm_90'
ptxas info    : Function properties for k
ptxas         .     16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 8192 bytes smem, 368 bytes cmem[0]"""
    r = parse_ptxas_log(log)["k"]
    assert (r.registers, r.shared_bytes, r.stack_bytes, r.spill_stores, r.spill_loads, r.barriers) == (40, 8192, 16, 8, 4, 1)


def test_a_kernel_that_calls_keeps_its_shared_memory():
    """ptxas reports the cumulative stack of a kernel that calls a function between its barriers and its shared
    memory: the shared bytes of a kernel whose sincos reaches the slow path read 0 until that was allowed for."""
    src = r"""extern "C" __global__ void k(double *out, const double *x) {
    __shared__ double s[512];
    s[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    double c, v;
    sincos(s[511 - threadIdx.x], &v, &c);
    out[threadIdx.x] = v * c;
}"""
    r = compile_cuda(src, cache=False)
    assert "cumulative stack size" in r.log and r.resources["k"].shared_bytes == 4096


def test_cooperative_groups_within_a_block_compile_and_run():
    """cooperative_groups.h includes cuda/std (nvidia-cuda-cccl): the blind set's block reduction by
    tiled_partition<32> shuffles and block.sync(), as users write it, gives the sums."""
    from pathlib import Path

    import numpy as np
    from cudasim import In, Out, SourceModule
    src = (Path(__file__).parent / "planted" / "blind" / "c09_coop_groups_ok.cu").read_text()
    x = np.arange(250, dtype=np.float32)
    out = np.zeros(2, np.float32)
    f = SourceModule(src, no_extern_c=True).get_function("cg_reduce")
    f(In(x), Out(out), np.int32(250), block=(128, 1, 1), grid=(2, 1))
    assert out.tolist() == [x[:128].sum(), x[128:].sum()]


# ---- the same code in every process -------------------------------------------------------------

_FRESH = r"""
import hashlib, json
from cudasim.compile import compile_cuda
from kernels import catalog
k = next(k for k in catalog.KERNELS if k.name == "sgemm_warptiling")
r = compile_cuda(catalog.source(k), options=catalog.options(k), filename=str(k.path))
regs = {name: res.registers for name, res in r.resources.items()}
print(json.dumps([regs, hashlib.sha256(r.ptx.encode()).hexdigest(), hashlib.sha256(r.cubin).hexdigest()]))
"""


def test_the_same_source_gives_the_same_code_in_fresh_processes(tmp_path):
    """NVRTC in the calling process gave sgemm.cu's sgemm_warptiling 112, 114 or 121 registers and
    three different PTX files across runs (its optimizer follows where its heap lands). Five fresh
    processes, each with an empty cache, a different environment size and working folder, must agree
    on every kernel's registers, the PTX and the cubin."""
    need_nvrtc()
    import subprocess
    import sys
    outs = []
    for i in range(5):
        cwd = tmp_path / f"cwd{'x' * i}"
        cwd.mkdir()
        env = dict(os.environ, CUDASIM_CACHE=str(tmp_path / f"cache{i}"), CUDASIM_TEST_PADDING="p" * (1237 * i),
                   PYTHONPATH=str(ROOT))
        p = subprocess.run([sys.executable, "-c", _FRESH], capture_output=True, text=True, env=env, cwd=cwd,
                           timeout=300)
        assert p.returncode == 0, p.stderr
        outs.append(json.loads(p.stdout))
    regs = outs[0][0]
    assert any("sgemm_warptiling" in name for name in regs) and len(regs) >= 8
    assert all(o == outs[0] for o in outs), [(o[0], o[1][:8]) for o in outs]


def test_compiles_run_with_address_space_randomization_off():
    """The child a compile runs in has Linux's ADDR_NO_RANDOMIZE personality (what setarch -R sets)."""
    import sys

    from cudasim import noaslr
    if not sys.platform.startswith("linux"):
        pytest.skip("personality() is Linux's")
    p, fixed = noaslr.run([sys.executable, "-S", "-c", "print(open('/proc/self/personality').read())"], env={})
    assert p.returncode == 0 and fixed, p.stderr
    assert int(p.stdout.decode(), 16) & noaslr.ADDR_NO_RANDOMIZE


# ---- headers: the standard ones NVRTC lacks, the user's, edits to them ----------------------------

def test_standard_headers_compile_under_nvrtc_and_their_constants_are_ieee():
    """<cmath>, <cfloat>, <climits>, <cstdint>, <cstdio>, <cassert> (NVRTC has none of them): a kernel
    writes FLT_MAX, FLT_MIN, FLT_EPSILON, INFINITY, INT_MAX, M_PI and std::sqrt(2); the values are numpy's."""
    need_nvrtc()
    import numpy as np
    from cudasim import Out, SourceModule
    src = """#include <cmath>
#include <cfloat>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cassert>
extern "C" __global__ void consts(float* f, double* d, int32_t* i) {
    f[0] = FLT_MAX; f[1] = FLT_MIN; f[2] = FLT_EPSILON; f[3] = INFINITY; f[4] = -INFINITY;
    f[5] = (float)M_PI; f[6] = std::sqrt(2.0f); f[7] = std::isnan(NAN) ? 1.0f : 0.0f;
    d[0] = DBL_MAX; d[1] = DBL_MIN; d[2] = DBL_EPSILON;
    i[0] = INT_MAX; i[1] = INT_MIN;
}
"""
    assert compile_cuda(src).compiler.startswith("nvrtc")
    f, d, i = np.zeros(8, np.float32), np.zeros(3, np.float64), np.zeros(2, np.int32)
    SourceModule(src, no_extern_c=True).get_function("consts")(Out(f), Out(d), Out(i), grid=(1, 1), block=(1, 1, 1))
    f32, f64 = np.finfo(np.float32), np.finfo(np.float64)
    assert f.tolist() == [f32.max, f32.tiny, f32.eps, np.inf, -np.inf, np.float32(np.pi), np.float32(np.sqrt(2)), 1.0]
    assert d.tolist() == [f64.max, f64.tiny, f64.eps]
    assert i.tolist() == [np.iinfo(np.int32).max, np.iinfo(np.int32).min]


def test_names_nvcc_gives_implicitly_compile_with_nvrtc_too():
    """INFINITY, M_PI, std::sqrt without an include: nvcc takes them (its cuda_runtime.h brings in
    <math.h>); NVRTC is given the same, and says so. A name nobody defines is still an error."""
    need_nvrtc()
    r = compile_cuda('extern "C" __global__ void k(float* o) { o[0] = INFINITY + M_PI + std::sqrt(o[1]); }')
    assert r.compiler.startswith("nvrtc") and "included first, as nvcc includes them" in r.compiler
    with pytest.raises(CompileError, match='identifier "nowhere_defined" is undefined'):
        compile_cuda('extern "C" __global__ void k(float* o) { o[0] = nowhere_defined; }')


def test_an_edited_header_is_compiled_again(tmp_path):
    """The cache key holds the contents of the headers the file includes: editing one recompiles."""
    need_nvrtc()
    (tmp_path / "value.h").write_text("#define VALUE 1234567\n")
    src = '#include "value.h"\nextern "C" __global__ void k(int* o) { o[0] = VALUE; }\n'
    cu = tmp_path / "k.cu"
    cu.write_text(src)
    assert "1234567" in compile_cuda(src, filename=str(cu)).ptx
    (tmp_path / "value.h").write_text("#define VALUE 7654321\n")
    assert "7654321" in compile_cuda(src, filename=str(cu)).ptx


def test_quoted_includes_resolve_beside_the_file_and_through_include_dirs(tmp_path):
    """Beside the file (whatever the working folder), and through -I, relative -I folders included."""
    need_nvrtc()
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "two.h").write_text("#define TWO 2222222\n")
    (tmp_path / "one.h").write_text('#include "two.h"\n#define ONE 1111111\n')
    src = '#include "one.h"\nextern "C" __global__ void k(int* o) { o[0] = ONE; o[1] = TWO; }\n'
    with pytest.raises(CompileError, match='cannot find "two.h"|two.h'):
        compile_cuda(src, filename=str(tmp_path / "k.cu"), cache=False)
    rel = os.path.relpath(tmp_path / "inc")
    ptx = compile_cuda(src, options=["-I", rel], filename=str(tmp_path / "k.cu"), cache=False).ptx
    assert "1111111" in ptx and "2222222" in ptx


def test_compiler_options_reach_the_compile():
    """--maxrregcount caps ptxas's registers; -use_fast_math turns sqrtf into sqrt.approx; -std=c++20
    replaces the default standard (C++20's consteval compiles only with it)."""
    need_nvrtc()
    src = 'extern "C" __global__ void k(float* o, const float* a) { o[threadIdx.x] = sqrtf(a[threadIdx.x]); }'
    assert "sqrt.rn.f32" in compile_cuda(src).ptx
    assert "sqrt.approx" in compile_cuda(src, options=["-use_fast_math"]).ptx
    hungry = """extern "C" __global__ void hungry(float* o, const float* a) {
    float acc[48];
#pragma unroll
    for (int j = 0; j < 48; ++j) acc[j] = a[threadIdx.x + 32 * j];
#pragma unroll
    for (int r = 1; r < 6; ++r)
#pragma unroll
        for (int j = 0; j < 48; ++j) acc[j] = acc[j] * acc[(j + r) % 48] + 1.0f;
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < 48; ++j) s += acc[j];
    o[threadIdx.x] = s;
}"""  # no __launch_bounds__, which would override the cap
    plain, capped = (compile_cuda(hungry, options=extra).resources["hungry"] for extra in ([], ["--maxrregcount=32"]))
    assert plain.registers > 32 >= capped.registers
    cpp20 = 'consteval int two() { return 2; }\nextern "C" __global__ void k(int* o) { o[0] = two(); }'
    with pytest.raises(CompileError):
        compile_cuda(cpp20)
    assert "-std=c++17" not in compile_cuda(cpp20, options=["-std=c++20"]).options


def test_nvcc_gives_the_same_code_each_time(tmp_path):
    """A whole program (host code: nvcc compiles it): nvcc names an anonymous namespace's functions after
    the path it compiles and a random number (sgemm.cu's PTX differed in every one of 14 compiles), so its
    input sits at a path made from the inputs and the number is seeded: two compiles give one PTX and cubin."""
    from needs import need_nvcc
    need_nvcc()
    src = ("#include <vector>\nnamespace { __device__ float twice(float x) { return 2.0f * x; } }\n"
           "__global__ void k(float* o) { o[threadIdx.x] = twice(o[threadIdx.x]); }\n"
           "int main() { std::vector<int> v(4); return (int)v.size(); }\n")
    a, b = (compile_cuda(src, filename=str(tmp_path / "prog.cu"), cache=False) for _ in range(2))
    assert a.compiler.startswith("nvcc") and "<vector>" in a.compiler
    info = bytes(int(x) for line in a.ptx.splitlines() if line.startswith(".b8") for x in line[4:].split(","))
    assert b"_INTERNAL_" in info  # the name that used to vary is there
    assert (a.ptx, a.cubin) == (b.ptx, b.cubin)


def test_a_toolkits_cccl_headers_are_searched_too(tmp_path, monkeypatch):
    """A CUDA toolkit keeps libcu++ (cuda/std/...) under include/cccl, as the pip wheel does: without it NVRTC on a
    machine with the toolkit and no wheels could not compile <cmath> or cooperative groups, and sent the file to
    nvcc (the wild set's BN254 inverse then met glibc's ulong)."""
    from cudasim.compile import include_dirs

    (tmp_path / "include" / "cccl" / "cuda").mkdir(parents=True)
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    dirs = include_dirs()
    assert dirs.index(str(tmp_path / "include")) + 1 == dirs.index(str(tmp_path / "include" / "cccl"))
