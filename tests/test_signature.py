"""Kernels as users declare them: overloads named with their parameter types, kernels a macro declares."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from analysis.args import TargetError
from analysis.signature import kernel_names, parse_signature
from analysis import macros
from needs import need_nvrtc

ROOT = Path(__file__).resolve().parent.parent

OVERLOADED = """typedef float real;
__global__ void scale(real *x, real a, int n) { int i = threadIdx.x; if (i < n) x[i] *= a; }
__global__ void scale(double *__restrict__ x, const double a, int n) { int i = threadIdx.x; if (i < n) x[i] *= a; }
"""
MACROS = r"""
#define DEVICE_LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
#define AXPY(PREFIX, T)                                                     \
    __global__ void PREFIX##axpy(const T *x, T *y, T alpha, int count) {   \
        DEVICE_LOOP(i, count) y[i] += alpha * x[i];                          \
    }
AXPY(s, float)
AXPY(d, double)
#define KERNEL(name, ...) __global__ void name(__VA_ARGS__)
KERNEL(fill, int *out, int value, int n) { DEVICE_LOOP(i, n) out[i] = value; }
"""


def test_an_overload_named_with_its_types_is_read_through_aliases_and_qualifiers():
    for types, want in [("float*, float, int", "float"), ("real *, real, int", "float"),
                        ("double*, double, int", "double"), ("double * __restrict__, const double, int", "double")]:
        ps = parse_signature(OVERLOADED, f"scale({types})")
        assert [p.name for p in ps] == ["x", "a", "n"] and ps[0].pointer and ps[1].ctype == want, (types, ps)
    with pytest.raises(TargetError, match=r"no overload of scale takes those types; its overloads take "
                                          r"\(real\*, real, int; double\*, double, int\)"):
        parse_signature(OVERLOADED, "scale(int*, int, int)")
    assert kernel_names(OVERLOADED) == ["scale(real*, real, int)", "scale(double*, double, int)"]


def test_a_kernel_a_macro_declares_has_its_parameters_named():
    ps = parse_signature(MACROS, "saxpy")
    assert [(p.ctype, p.name, p.pointer) for p in ps] == [("float", "x", True), ("float", "y", True),
                                                          ("float", "alpha", False), ("int", "count", False)]
    assert [p.ctype for p in parse_signature(MACROS, "daxpy")][:3] == ["double"] * 3
    assert [p.name for p in parse_signature(MACROS, "fill")] == ["out", "value", "n"]  # __VA_ARGS__
    assert kernel_names(MACROS) == ["saxpy", "daxpy", "fill"]
    with pytest.raises(TargetError, match="no __global__ function named 'haxpy'.*nor in what its macros expand to"):
        parse_signature(MACROS, "haxpy")


def test_macro_expansion_is_bounded_and_leaves_other_text_alone():
    assert macros.expand(["__global__ void k(int *a) {}"]) is None  # no macro: nothing to do
    bomb = "#define A B B B B\n#define B A A A A\nA\n"  # each pass quadruples it
    assert len(macros.expand([bomb])) < 64 * 1024 * 4 + 1
    assert macros.expand(['#define S(x) #x\nconst char *s = S(a + b);']).strip() == 'const char *s = "a + b";'
    assert "F" in macros.expand(["#define F(x) x\nint F;"])  # a function-like name with no '(' is no use of it


def test_the_commands_take_an_overload_and_a_macro_kernel(tmp_path):
    need_nvrtc()
    src = tmp_path / "k.cu"
    src.write_text(OVERLOADED + MACROS)

    def run(*argv):
        return subprocess.run([sys.executable, "-m", *argv], cwd=ROOT, capture_output=True, text=True, timeout=300,
                              env={**__import__("os").environ, "PYTHONPATH": str(ROOT), "CUDAPERF_PROGRESS": "0"})
    launch = ["--grid", "2", "--block", "64", "--arg", "n=128"]
    r = run("analysis.coalescing", f"{src}::scale(double*, double, int)", *launch, "--arg", "a=2")
    assert r.returncode == 0, r.stderr
    assert "B/lane" in r.stdout and " 8 " in r.stdout.split("B/lane", 1)[1]  # 8-byte doubles: that overload
    r = run("analysis.coalescing", f"{src}::saxpy", "--grid", "2", "--block", "64", "--arg", "count=128",
            "--arg", "alpha=2")
    assert r.returncode == 0, r.stderr
    r = run("analysis.coalescing", f"{src}::scale(char*, int, int)", *launch)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "no overload of scale takes (char*, int, int)" in r.stderr
    r = run("analysis.coalescing", str(src))
    assert r.returncode == 2 and "it has scale(real*, real, int), scale(double*, double, int), saxpy, daxpy, fill" \
        in r.stderr, r.stderr
