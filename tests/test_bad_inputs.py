"""Unusable input, as a new user types it, on every command: one line on stderr that names the problem
(and the fix), nothing on stdout, exit status 2 (issue 16 items 1, 6, 8).

Each command runs in this process through `cudasim.console.run`, as `python -m` runs it (the entry
modules end in `run(main)`); a few run as real `python -m` processes, to hold the whole path. The
kernels are a few lines each, compiled once for the file.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import runpy
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from cudasim import console
from needs import need_nvrtc

ROOT = Path(__file__).resolve().parent.parent
MODELS = ("coalescing", "banks", "occupancy", "timing")

OK_CU = """extern "C" __global__ void k(float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = 2.0f * a[i];
}
"""
BROKEN_CU = 'extern "C" __global__ void k(float *a, int n) { a[threadIdx.x] = n +; }\n'
SPIN_CU = """extern "C" __global__ void spin(int *out, int stop) {
    int i = 0;
    while (out[0] != stop) i++;   // out stays 0, stop is 1: it never ends
    out[threadIdx.x] = i;
}
"""
TMPL_CU = """template <int N> __global__ void scale(float *a) { a[threadIdx.x] *= N; }
template __global__ void scale<2>(float *);
template __global__ void scale<4>(float *);
template <int N> __global__ void lone(float *a) { a[threadIdx.x] += N; }
"""
DUP_CU = """__global__ void dupk(float *a) { a[threadIdx.x] = 1.0f; }
__global__ void dupk(int *a) { a[threadIdx.x] = 2; }
"""
FLOATS_CU = """extern "C" __global__ void fd(float *a, float f, double d) { a[threadIdx.x] = f * (float)d; }
"""
FAR_CU = """extern "C" __global__ void far(float *a) {
    a[(unsigned long long)threadIdx.x * 300000000ull] = 1.0f;   // lane 1 is 1.2 GB in
}
"""


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("bad")
    (d / "ok.cu").write_text(OK_CU)
    (d / "broken.cu").write_text(BROKEN_CU)
    (d / "spin.cu").write_text(SPIN_CU)
    (d / "far.cu").write_text(FAR_CU)
    (d / "tmpl.cu").write_text(TMPL_CU)
    (d / "dup.cu").write_text(DUP_CU)
    (d / "floats.cu").write_text(FLOATS_CU)
    (d / "empty.cu").write_text("// no kernel here\n")
    (d / "ns.cu").write_text("namespace foo { namespace bar {\n__global__ void nk(float *a, int n) {\n"
                             "    if (threadIdx.x < n) a[threadIdx.x] *= 2.0f;\n}\n} }\n")
    (d / "more.cu").write_text('extern "C" __global__ void ptrptr(float **rows, int n) { rows[threadIdx.x][0] = n; }\n'
                               'extern "C" __global__ void unnamed(float *a, int) { a[threadIdx.x] = 1.0f; }\n'
                               'extern "C" __global__ void vec(int2 dims, float *a) { a[threadIdx.x] = dims.x; }\n'
                               'extern "C" __global__ void dflt(float *a, int n = 32) { if (threadIdx.x < n) a[0] = 1; }\n'
                               'typedef float real;\n'
                               'extern "C" __global__ void tdef(real *a, real b) { a[threadIdx.x] = b; }\n')
    (d / "loop.cu").symlink_to(d / "loop.cu")
    (d / "sc.cu").write_text('#include <cuda_bf16.h>\n'
                             'extern "C" __global__ void sc(float *o, float x, double y, int16_t c, __nv_bfloat16 t) {\n'
                             '    o[threadIdx.x] = x + (float)y + c + __bfloat162float(t);\n}\n'
                             'struct Square { __device__ float operator()(float v) const { return v * v; } };\n'
                             'template <typename F> __global__ void apply(float *o, F f) { o[threadIdx.x] = f(o[0]); }\n'
                             'template __global__ void apply<Square>(float *, Square);\n')
    (d / "empty.json").write_text("{}")
    (d / "nstmpl.cu").write_text("namespace mylib {\ntemplate <typename T> __global__ void axpy(T *a, int n) {\n"
                                 "    if (threadIdx.x < n) a[threadIdx.x] *= 2;\n}\n"
                                 "template __global__ void axpy<float>(float *, int);\n}\n")
    (d / "enum.cu").write_text("enum Mode { ADD, MUL };\nenum class Wide : long long { A = 1 };\n"
                               "__global__ void op(float *a, Mode m, Wide w) {\n"
                               "    a[threadIdx.x] = m == MUL ? 2.0f * (long long)w : 1.0f;\n}\n")
    (d / "cluster.cu").write_text('extern "C" __global__ void __cluster_dims__(2, 1, 1) cl(float *a) {\n'
                                  '    a[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;\n}\n')
    (d / "bigshared.cu").write_text('extern "C" __global__ void big(float *a) {\n'
                                    '    __shared__ float s[1 << 20];\n'
                                    '    s[threadIdx.x] = a[threadIdx.x];\n'
                                    '    __syncthreads();\n'
                                    '    a[threadIdx.x] = s[(threadIdx.x + 1) % 32];\n'
                                    '}\n')
    (d / "garbage.cu").write_bytes(bytes([0x2d, 0x1f, 0x92, 0xbe, 0x34, 0x18, 0x5c, 0x82]))
    np.savez(d / "arr.npz", a=np.zeros(8, np.float32))
    (d / "empty.npy").write_bytes(b"")
    (d / "headers").mkdir()
    (d / "not.npy").write_text("not numpy\n")
    np.save(d / "f64.npy", np.zeros(8))
    np.save(d / "f32.npy", np.zeros(64, np.float32))
    (d / "plain.json").write_text("{}")
    (d / "broken.json").write_text("{ nope")
    return d


def main_of(module: str, argv: list[str]):
    """(main, its arguments) of `python -m module argv`, as the entry module calls it."""
    if module.startswith("analysis.") and module.split(".")[1] in MODELS:
        name = module.split(".")[1]
        if name == "timing" and "--accuracy" in argv:
            from analysis.timing_accuracy import main
            return main, ([a for a in argv if a != "--accuracy"],)
        from analysis.cli import main
        return main, (name, argv)
    if module == "analysis":
        from analysis.__main__ import command
        return command, (argv,)
    if module == "kernels":
        from kernels.__main__ import main
        return main, (argv,)
    if module == "cudasim.check":
        from cudasim.check.cli import main
        return main, (argv,)
    if module.endswith(".manifest"):  # main(kernels, argv): each set's module passes its own kernels
        return importlib.import_module(module).main, (None, argv)
    return importlib.import_module(module).main, (argv,)


def run_in_process(capsys, module: str, *argv: str) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of the command, run as console.run ends it."""
    main, args = main_of(module, list(argv))
    with pytest.raises(SystemExit) as ended:
        console.run(main, *args)
    out, err = capsys.readouterr()
    return ended.value.code, out, err


def assert_one_line(code: int, out: str, err: str, phrase: str) -> None:
    assert code == 2, (code, out, err)
    assert out == "", out
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("error: "), err
    assert phrase in err, err


# (command, arguments with {d} for the folder of the files above, a phrase the line must hold). No compile.
NO_COMPILE = [
    ("analysis.coalescing", ["tests/"], "a folder, not a kernel"),
    ("analysis.coalescing", ["{d}/headers"], "a folder, not a kernel"),
    ("analysis.coalescing", ["kernels/transpose.cu"],
     "kernels/transpose.cu is a file: give kernels/transpose.cu::KERNEL; it has copy, transpose_naive, transpose_tiled"),
    ("analysis.banks", ["{d}/missing.cu"], "no such file"),
    ("analysis.coalescing", ["kernels/transpose.cu::"], "give the kernel after '::'; it has copy"),
    ("analysis.coalescing", ["::transpose_tiled"], "give the file before '::'"),
    ("analysis.coalescing", ["{d}/nope.cu::k", "--grid", "1", "--block", "32"], "no such file"),
    ("analysis.coalescing", ["{d}/ok.cu::k"], "needs --grid"),
    ("analysis.coalescing", ["{d}/ok.cu::k", "--grid", "0", "--block", "32"], "expected 1 to 3 positive integers"),
    ("analysis.coalescing", ["{d}/ok.cu::k", "--grid", "1", "--block", "32", "--shared", "-5"], "--shared -5"),
    ("analysis.coalescing", ["transpose_tiled", "--size", "0"], "--size 0: must be a positive integer"),
    ("analysis.coalescing", ["transpose_tiled", "--size", "abc"], "invalid int value: 'abc'"),
    ("analysis.coalescing", ["transpose_tiled", "--grid", "4"], "use path/to/file.cu::kernel"),
    ("analysis.coalescing", ["transpose_tiled", "--define", "TILE=banana"], "TILE=banana: not an integer"),
    ("analysis.coalescing", ["transpose_tiled", "--define", "BLOCK_ROWS=7"], "must divide TILE=32"),
    ("analysis.coalescing", ["transpose_tiled", "--define", "BK=16"], "no parameter BK"),
    ("analysis.coalescing", ["transpose_tiled", "--define", "X=1;int y"], "no parameter X; it has TILE, BLOCK_ROWS"),
    ("analysis.coalescing", ["transpose_tiled", "--define", "=5"], "--define '=5': a NAME before '='"),
    ("analysis.coalescing", ["transpose_tiled", "--gpu", "nope"], "unknown GPU 'nope'"),
    ("analysis.coalescing", ["transpose_tild"], "unknown kernel 'transpose_tild'; did you mean transpose_tiled"),
    ("analysis.coalescing", ["transpose_tiled", "--max-steps", "0"], "--max-steps 0"),
    ("analysis.coalescing", ["transpose_tiled", "--bogus"], "unrecognized arguments: --bogus"),
    ("analysis.coalescing", [], "the following arguments are required: target"),
    ("analysis.coalescing", ["transpose_tiled", "-I", "{d}/no_such_folder"], "no such folder"),
    ("analysis.coalescing", ["transpose_tiled", "-I", "{d}/ok.cu"], "ok.cu: a file, not a folder"),
    ("analysis.coalescing", ["transpose_tiled", "--compiler-option=-arch=sm_80"], "follows --gpu"),
    ("analysis.coalescing", ["transpose_tiled", "--draw", "svg"], "give the folder with --svg DIR"),
    ("analysis.banks", ["transpose_tiled", "--svg", "{d}/pics", "--json"], "JSON output has no pictures"),
    ("analysis.coalescing", ["transpose_tiled", "--json", "--draw", "mermaid"], "--draw mermaid: JSON output has no"),
    ("analysis.banks", ["transpose_tiled", "--define", "TILE=32", "--define", "TILE=16"], "--define TILE: given twice"),
    ("analysis.occupancy", ["transpose_tiled", "--all-blocks"], "--all-blocks: analysis.occupancy is a static model"),
    ("analysis.occupancy", ["{d}/cluster.cu::cl", "--grid", "3", "--block", "32"], "not a whole number of the kernel's "
     "clusters of (2, 1, 1) blocks"),
    ("cudasim.check", ["{d}/cluster.cu::cl", "--grid", "3", "--block", "32"], "give a grid that is a multiple of"),
    ("analysis.banks", ["transpose_tiled", "--mermaid", "--json"], "JSON output has no pictures"),
    ("analysis.coalescing", ["transpose_tiled", "--svg", "{d}/ok.cu"], "a file, not a folder"),
    ("analysis.timing", ["transpose_tiled", "--gpu", "A100"], "no timing rates for A100"),
    ("analysis", ["nope", "transpose_tiled"], "no model named 'nope'"),
    ("analysis", ["--bogus"], "give the model first"),
    ("kernels.run", ["nope", "--backend", "sim"], "unknown kernel 'nope'"),
    ("kernels.run", ["transpose_tiled", "--backend", "sim", "--size", "0"], "size 0 is not allowed"),
    ("kernels.run", ["transpose_tiled", "--backend", "cpu"], "invalid choice: 'cpu'"),
    ("kernels.run", ["vector_add_streams", "--backend", "sim"], "a host pipeline"),
    ("kernels.run", ["transpose_tiled", "--repeats", "0"], "--repeats 0"),
    ("kernels.tune", ["sgemm_warptiling", "--try", "BK"], "'BK' is not NAME=VALUE"),
    ("kernels.tune", ["sgemm_warptiling", "--try", "ZZ=3"], "no parameter ZZ"),
    ("kernels.tune", ["sgemm_warptiling", "--size", "100"], "a multiple of 128"),
    ("kernels.bench", ["--kernels", "nope"], "unknown kernel 'nope'"),
    ("kernels.bench", ["--sizes", "0"], "--sizes 0"),
    ("kernels.differential", ["--generated", "-1"], "--generated -1"),
    ("kernels.halfdiff", ["compare", "{d}/nowhere"], "no exported forms there"),
    ("kernels", ["--bogus"], "unrecognized arguments: --bogus"),
    ("analysis.compare", ["--measured", "{d}/missing.json"], "no measurements; run `python -m analysis.collect_ncu`"),
    ("analysis.compare", ["--measured", "{d}/broken.json"], "not JSON"),
    ("analysis.compare", ["--measured", "{d}/plain.json"], "no \"kernels\" table"),
    ("analysis.compare", ["--kernels", "nope"], "--kernels nope: not measured in"),
    ("analysis.compare", ["--gpu", "nope"], "unknown GPU 'nope'"),
    ("analysis.compare", ["--timing", "{d}/missing.json", "--kernels", "copy"], "--timing"),
    ("analysis.compare", ["--out", "{d}/no/dir/x.md", "--kernels", "copy"], "no folder"),
    ("analysis.report", ["--budget", "-1"], "--budget -1"),
    ("analysis.report", ["--measured", "{d}/missing.json"], "no such file"),
    ("analysis.transfers", ["--size", "0"], "--size 0"),
    ("analysis.transfers", ["--chunks", "0"], "--chunks 0"),
    ("analysis.transfers", ["vector_add_naive"], "invalid choice: 'vector_add_naive'"),
    ("analysis.atomics", ["--rounds", "0"], "--rounds 0"),
    ("analysis.atomics", ["--measured", "{d}/missing.json"], "no such file"),
    ("analysis.timing", ["--accuracy", "--kernels", "nope"], "--kernels nope: not timed in"),
    ("analysis.timing", ["--accuracy", "--measured", "{d}/missing.json"], "no such file"),
    ("analysis.collect_ncu", ["--kernels", "nope"], "unknown kernel 'nope'"),
    ("analysis.collect_ncu", ["--kernels", "vector_add_streams"], "a host pipeline"),
    ("corpus.compare", ["--measured", "{d}/missing.json"], "no measurements of the set corpus"),
    ("corpus.compare", ["--kernels", "nope"], "--kernels nope: not measured in"),
    ("corpus.compare", ["--set", "nope"], "invalid choice: 'nope'"),
    ("corpus.compare", ["--jobs", "0"], "--jobs 0: give a count of processes"),
    ("corpus.measure", ["--kernels", "nope"], "--kernels nope: not in the set corpus"),
    ("corpus.summary", ["--without", "nope"], "--without nope: no such set"),
    ("corpus.manifest", ["--bogus"], "unrecognized arguments: --bogus"),
    ("analysis.coalescing", ["sgemm_warptiling", "--define", "BK=0"], "BK=0: must be a positive integer"),
    ("analysis.occupancy", ["sgemm_1d_blocktiling", "--define", "TM=0"], "TM=0: must be a positive integer"),
    ("analysis.coalescing", ["transpose_tiled", "--define", "TILE=-32"], "TILE=-32: must be a positive integer"),
    ("kernels.tune", ["sgemm_warptiling", "--try", "BK=0"], "BK=0: must be a positive integer"),
    ("analysis.coalescing", ["{d}/ok.cu::k", "--grid", "1,,2", "--block", "32"], "'1,,2': an empty field"),
    ("analysis.coalescing", ["{d}/ok.cu::k", "--grid", "1", "--block", "32", "--size", "64"],
     "--size sizes a catalog kernel"),
    ("analysis.occupancy", ["transpose_tiled", "--gpu", ""], "--gpu '': give a GPU's name"),
    ("analysis.coalescing", ["{d}/ok.cu::k", "--grid", "1", "--block", "32", "--arg", "n=32", "--arg", "n=64"],
     "--arg n: given twice (n=32 and n=64)"),
    ("analysis.coalescing", ["{d}/ok.cu::k", "--grid", "1", "--block", "32", "--arg", "n=32", "--data",
                             "a={d}/f64.npy", "--data", "a={d}/not.npy"], "--data a: given twice"),
    ("analysis.coalescing", ["{d}/garbage.cu::k", "--grid", "1", "--block", "32"],
     "garbage.cu: not UTF-8 text (byte 0x92 at offset 2)"),
    ("analysis.compare", ["--timing", "{d}/ok.cu", "--kernels", "copy"], "--timing {d}/ok.cu: not the JSON"),
    ("analysis.compare", ["--timing", "{d}/f64.npy", "--kernels", "copy"], "not the JSON"),
    ("analysis.compare", ["--out", "{d}", "--kernels", "copy"], "--out {d}: a folder"),
    ("analysis.compare", ["--gpu", "A100", "--kernels", "copy"],
     "measured NVIDIA H100 80GB HBM3 (H100-SXM), so A100's predictions would be judged by another GPU's counters"),
    ("analysis.report", ["--measured", "{d}/ok.cu", "--out", "{d}/r.html"], "--measured {d}/ok.cu: not a results file"),
    ("analysis.report", ["--measured", "{d}/f64.npy", "--out", "{d}/r.html"], "not a results file"),
    ("analysis.report", ["--out", "{d}/r.md"], "give a name ending in .html"),
    ("analysis.transfers", ["--measured", "{d}/ok.cu"], "not kernels.bench's results"),
    ("analysis.transfers", ["--measured", "{d}/f64.npy"], "not kernels.bench's results"),
    ("analysis.timing", ["--accuracy", "--out", "{d}"], "--out {d}: a folder"),
    ("corpus.compare", ["--kernels", "stencil1d", "--gpu", "a100"], "so A100's predictions would be judged"),
    ("corpus.compare", ["--kernels", "stencil1d", "--out", "{d}"], "--out {d}: a folder"),
    ("corpus.compare", ["--kernels", "stencil1d", "--out", "{d}/no/x.md"], "no folder"),
    ("corpus.compare", ["--kernels", "stencil1d", "--out", "{d}/x.json"], "give a name ending in .md"),
    ("cudasim.check", ["tests/"], "a folder, not a kernel"),
    ("cudasim.check", ["transpose_tiled", "--limit", "0"], "--limit and --timeout must be positive"),
    ("cudasim.check", ["transpose_tiled", "--timeout", "nan"], "the timeout finite"),
    # sizes past what the kernel's int indices, the device or this machine can hold; launches the driver refuses
    ("analysis.timing", ["vector_add_single", "--size", "100000000000"],
     "makes arrays of 100,000,000,000 elements, past the 2,147,483,647 its int indices reach"),
    ("analysis.occupancy", ["transpose_tiled", "--size", "3000000"], "the largest size is 46,340"),
    ("analysis.timing", ["vector_add_single", "--size", "2147483647", "--gpu", "RTX4060Ti"],
     "needs 24.0 GiB of arrays, more than the NVIDIA GeForce RTX 4060 Ti's 8.0 GiB"),
    ("kernels.run", ["vector_add_single", "--backend", "sim", "--size", "3000000000"], "its int indices reach"),
    ("analysis.coalescing", ["transpose_tiled", "--define", "TILE=4096"],
     "block (4096, 8, 1) has 32768 threads; a block may have at most 1024: smaller blocks, and more of them; the "
     "block follows the defines"),
    ("analysis.transfers", ["--size", "3", "--chunks", "8"], "3 float(s) make 1 chunk(s)"),
    ("analysis.transfers", ["--chunks", "8000"], "--chunks 8000: 1 to 1,024"),
    ("analysis.transfers", ["--size", "100000000000"], "its int indices reach"),
    ("analysis.occupancy", ["transpose_tiled", "--regs", "0"], "--regs 0: a thread has at least 1 register"),
    ("analysis.report", ["--budget", "nan"], "--budget nan"),
    ("analysis.report", ["--measured", "--out", "{d}/r.html"], "--measured: give the results files after it"),
    ("analysis.banks", ["transpose_tiled", "--mermaid", "--draw", "text"], "not allowed with argument --mermaid"),
    ("analysis.timing", ["vector_add_pinned"], "vector_add_pinned is a host pipeline (copies, the kernel, copies): "
                                               "python -m analysis.transfers vector_add_pinned predicts it"),
    ("analysis.coalescing", ["sgemm_naive", "--gpu", "T4"], "holds tensor-core kernels that need compute capability "
                                                            "8.0 or newer"),
    ("analysis.coalescing", ["transpose_tiled", "--svg", "/proc/pics"], "--svg /proc/pics: cannot make the folder"),
    ("analysis.compare", ["--kernels", "copy", "--out", "/proc/x.md"], "--out /proc/x.md: cannot write in /proc"),
    ("analysis.report", ["--measured", "/dev/zero", "--out", "{d}/r.html"], "--measured /dev/zero: not a regular"),
    ("analysis.atomics", ["--rounds", "100000000"], "--rounds 100000000: 4 to 32,000"),
    ("analysis.transfers", ["--measured", "{d}/empty.json"], "not kernels.bench's results (ValueError: no \"rows\""),
    ("analysis.banks", ["transpose_tiled", "--svg", "{d}/pics", "--draw", "mermaid"],
     "--svg draws SVG files, and --draw mermaid asks for another picture"),
    ("analysis.coalescing", ["{d}/loop.cu::k", "--grid", "1", "--block", "32"], "a link that leads nowhere"),
    ("analysis.coalescing", ["transpose_tiled", "--gpu", "V100"], "--gpu: this compiler cannot make code for sm_70"),
]


@pytest.mark.parametrize("module, argv, phrase", NO_COMPILE, ids=[f"{m} {' '.join(a)}" for m, a, _ in NO_COMPILE])
def test_unusable_input_is_one_line_and_status_2(capsys, files, module, argv, phrase):
    argv = [a.format(d=files) for a in argv]
    assert_one_line(*run_in_process(capsys, module, *argv), phrase.format(d=files))


def test_file_inputs_of_one_compile(capsys, files):
    """Inputs that need the kernel compiled (its signature, its PTX), all of one small kernel."""
    need_nvrtc()
    ok = f"{files}/ok.cu::k"
    launch = ["--grid", "1", "--block", "32"]
    cases = [
        ([ok, *launch], "missing --arg n=VALUE (int)"),
        ([f"{files}/ok.cu::zz", *launch, "--arg", "n=32"], "no kernel 'zz'; found k"),
        ([ok, "--grid", "1", "--block", "2048", "--arg", "n=32"], "a block may have at most 1024"),
        ([ok, *launch, "--arg", "n=abc"], "--arg n=abc: expected a number of type int"),
        ([ok, *launch, "--arg", "n=99999999999"], "out of range for int"),
        ([ok, *launch, "--arg", "n=32", "--arg", "a=float32"], "buffers are given as DTYPE[COUNT]"),
        ([ok, *launch, "--arg", "n=32", "--arg", "a=foo32[4]"], "'foo32' is not a buffer's element type here"),
        ([ok, *launch, "--arg", "n=32", "--arg", "a=object[64]"], "'object' is not a buffer's element type here"),
        ([f"{files}/more.cu::ptrptr", *launch, "--arg", "n=32"], "parameter rows has type float** (pointers to "
                                                                 "buffers): the command line cannot make"),
        ([f"{files}/more.cu::unnamed", *launch], "unnamed: a parameter with no name ('int')"),
        ([ok, *launch, "--arg", "n=32", "--data", "a=/dev/zero"], "--data a=/dev/zero: not a regular file"),
        ([f"{files}/ns.cu::nk", *launch, "--arg", "n=32"], "ns.cu: no kernel 'nk'; found foo::bar::nk"),
        ([f"{files}/sc.cu::sc", *launch, "--arg", "x=1e-50", "--arg", "y=1", "--arg", "c=-32768", "--arg", "t=1"],
         "--arg x=1e-50: too small for float (it would be 0"),
        ([f"{files}/sc.cu::sc", *launch, "--arg", "x=1_000", "--arg", "y=1", "--arg", "c=1", "--arg", "t=1"],
         "--arg x=1_000: expected a number of type float: a decimal or hex float"),
        ([f"{files}/sc.cu::apply<Square>", *launch, "--arg", "f=2"], "f is a Square, a struct with no data: it takes "
                                                                      "no value"),
        ([ok, *launch, "--arg", "n=32", "--data", f"a={files}/ok.cu"], "not a numpy .npy array (no .npy header); "
                                                                        "save one with np.save"),
        ([f"{files}/more.cu::vec", *launch, "--arg", "dims=4"], "parameter dims has type 'int2' (a struct or vector "
                                                                "passed by value), which the command line cannot build"),
        ([ok, *launch, "--arg", "n=32", "--arg", "a=float32[0]"], "at least one element"),
        ([ok, *launch, "--arg", "n=32", "--arg", "zz=1"], "--arg zz: no such parameter; the kernel takes a, n"),
        ([ok, *launch, "--arg", "n=32", "--data", f"a={files}/not.npy"], "not a numpy .npy array"),
        ([ok, *launch, "--arg", "n=32", "--data", f"a={files}/f64.npy"], "the file holds float64"),
        ([ok, *launch, "--arg", "n=32", "--data", f"a={files}/missing.npy"], "No such file or directory; give the "
                                                                            "path of a numpy .npy file"),
        ([ok, *launch, "--arg", "n=32", "--data", f"zz={files}/f64.npy"], "--data zz: no such parameter; the kernel "
                                                                          "takes a, n"),
        ([f"{files}/nstmpl.cu::axpy<float>", *launch, "--arg", "n=32"], "no kernel 'axpy<float>'; found "
                                                                        "mylib::axpy<float>"),
        ([f"{files}/nstmpl.cu::mylib::axpy", *launch, "--arg", "n=32"], "mylib::axpy is a template: give its "
                                                                        "arguments, as"),
        ([ok, *launch, "--arg", "n=32", "--arg", "a=float32[4]", "--data", f"a={files}/f64.npy"],
         "also given by --arg"),
        ([ok, "--grid", "1", "--block", "64", "--arg", "n=64", "--arg", "a=float32[16]"],
         "out-of-bounds global access"),
        ([ok, *launch, "--arg", "n=32", "--data", f"a={files}/arr.npz"], "an .npz archive of arrays, not one array"),
        ([ok, *launch, "--arg", "n=32", "--data", f"a={files}/empty.npy"], "not a numpy .npy array (an empty file)"),
        ([ok, *launch, "--arg", "n=32", "--arg", "a=int32[64]"], "--arg a=int32[64]: the parameter is float* (float32); "
                                                                 "give float32[64]"),
        ([ok, *launch, "--block", "64", "--arg", "n=32"], "--block given twice (32 and 64); give it once"),
        ([f"{files}/tmpl.cu::scale<2", *launch], "scale<2: its < > or ( ) do not pair up"),
        ([f"{files}/tmpl.cu", *launch], f"{files}/tmpl.cu is a file: give {files}/tmpl.cu::KERNEL"),
        ([f"{files}/tmpl.cu::lone", *launch], f"lone is a template: give its arguments, as {files}/tmpl.cu::lone<...>"),
        ([f"{files}/floats.cu::fd", *launch, "--arg", "f=1e39", "--arg", "d=1"], "--arg f=1e39: out of range for float"),
        ([f"{files}/floats.cu::fd", *launch, "--arg", "f=1", "--arg", "d=1e400"], "--arg d=1e400: out of range for double"),
        ([f"{files}/empty.cu::k", *launch], "empty.cu: no kernel 'k'; it declares no __global__ function"),
        ([f"{files}/tmpl.cu::scale", *launch], "scale is a template: give its arguments, as "
                                               f"{files}/tmpl.cu::scale<2> (instantiated: scale<2>, scale<4>)"),
        ([f"{files}/tmpl.cu::_Z5scaleILi4EEvPf", *launch], f"a mangled name; give the kernel as C++ names it, "
                                                           f"{files}/tmpl.cu::scale<4>"),
        ([f"{files}/dup.cu::dupk", *launch], "dupk is overloaded (dupk(float*), dupk(int*)): name one with its "
                                             f"parameter types, as {files}/dup.cu::dupk(float*)"),
        ([f"{files}/dup.cu::_Z4dupkPi", *launch], "a mangled name of dupk(int*), one of the overloads of dupk; give it "
                                                  f"as C++ names it, with its parameter types: {files}/dup.cu::dupk(int*)"),
        ([f"{files}/dup.cu::dupk(double*)", *launch], "no overload of dupk takes (double*); it has dupk(float*), "
                                                      "dupk(int*)"),
        ([ok, "--grid", "2147483647", "--block", "1", "--arg", "n=32", "--all-blocks"],
         "--all-blocks: the launch has 2,147,483,647 warps, past the 16,777,216"),
        ([ok, *launch, "--arg", "n=32", "--arg", "a=float32[100000000000000]"], "out of memory (--arg a=float32["),
        ([f"{files}/bigshared.cu::big", *launch], "big declares 4,194,304 bytes of static shared memory a block, past "
                                                  "the 49,152 a block may declare statically"),
    ]
    for argv, phrase in cases:
        assert_one_line(*run_in_process(capsys, "analysis.coalescing", *argv), phrase)
    assert_one_line(*run_in_process(capsys, "analysis.coalescing", f"{files}/broken.cu::k", *launch, "--arg", "n=1"),
                    "expected an expression")
    assert_one_line(*run_in_process(capsys, "analysis.occupancy", ok, *launch, "--arg", "n=32", "--regs", "300"),
                    "the driver would not launch this: 300 registers per thread > 255")
    assert_one_line(*run_in_process(capsys, "cudasim.check", ok, *launch, "--arg", "n=32", "--uninit", "zz"),
                    "--uninit zz: the kernel has no parameter of that name")
    assert_one_line(*run_in_process(capsys, "cudasim.check", ok, *launch, "--arg", "n=32", "--uninit", "a",
                                    "--uninit", "a"), "--uninit a given twice")
    assert_one_line(*run_in_process(capsys, "cudasim.check", ok, *launch, "--arg", "n=32", "--uninit", "a",
                                    "--data", f"a={files}/f32.npy"), "--uninit a and --data a=...: a buffer the host")
    code, out, err = run_in_process(capsys, "kernels", "--check", "--json")
    assert code == 0 and json.loads(out)[0]["ok"] is True


def test_runaway_and_unbounded_launches_stop_in_one_line(capsys, files):
    """A kernel that never ends stops at --max-steps; one that reaches 1.2 GB into a buffer given no size stops at
    the limit unsized buffers grow to, naming the buffer and how to size it."""
    need_nvrtc()
    code, out, err = run_in_process(capsys, "analysis.coalescing", f"{files}/spin.cu::spin", "--grid", "1", "--block",
                                    "32", "--arg", "stop=1", "--max-steps", "2000", "--no-cache")
    assert_one_line(code, out, err, "2,000")
    assert "spin.cu:3" in err  # the line its threads were looping on
    code, out, err = run_in_process(capsys, "analysis.coalescing", f"{files}/far.cu::far", "--grid", "1", "--block",
                                    "32", "--no-cache")
    assert_one_line(code, out, err, "a: the kernel reaches")
    assert "1,024 MiB an unsized buffer may grow to" in err and "--arg a=float32[COUNT]" in err


def test_a_few_as_real_processes(files):
    """The whole path, `python -m` and all: the same one line and status."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for argv, phrase in ((["analysis.coalescing", "tests/"], "a folder, not a kernel"),
                         (["analysis.coalescing", "kernels/transpose.cu"], "it has copy, transpose_naive"),
                         (["kernels.run", "transpose_tiled", "--size", "abc"], "invalid int value"),
                         (["cudasim.check", "kernels/sgemm.cu"], "it has sgemm_uncoalesced"),
                         (["analysis.dataflow"], "analysis.dataflow is a library module, not a command"),
                         (["cudasim.nvrtc_worker"], "cudasim.compile's worker, not a command")):
        r = subprocess.run([sys.executable, "-m", *argv], capture_output=True, text=True, cwd=ROOT, env=env,
                           timeout=120)
        assert_one_line(r.returncode, r.stdout, r.stderr, phrase)


@pytest.mark.parametrize("module", ["analysis.pipeline", "cudasim.execute", "kernels.generated",
                                    "cudasim.check.report", "analysis.models.timing"])
def test_a_library_module_run_as_a_command_says_so(capsys, monkeypatch, module):
    """`python -m` of a module with no `__main__` guard would print nothing: one line (cudasim/__init__ asks)."""
    monkeypatch.setattr(sys, "orig_argv", [sys.executable, "-m", module], raising=False)
    with pytest.raises(SystemExit) as e:
        console.refuse_library_module()
    assert_one_line(e.value.code, "", capsys.readouterr().err, f"{module} is a library module")
    for command in ("analysis.coalescing", "analysis", "cudasim.check", "corpus.compare", "kernels.run", "nope.x"):
        monkeypatch.setattr(sys, "orig_argv", [sys.executable, "-m", command], raising=False)
        console.refuse_library_module()  # returns: a command, a package, or not this project's


def test_an_enum_parameter_takes_its_number(capsys, files):
    """An enum passes as its underlying integer (the sweep's p01: refused as 'a struct or vector')."""
    from analysis import cli
    need_nvrtc()
    code = cli.main("coalescing", [f"{files}/enum.cu::op", "--grid", "1", "--block", "32", "--arg", "m=1", "--arg",
                                   "w=3", "--arg", "a=float32[32]", "--draw", "none", "--no-cache"])
    out = capsys.readouterr().out
    assert code == 0 and "op grid 1x1x1 block 32x1x1" in out


def test_a_command_started_with_standard_output_closed_says_so():
    """`>&-` leaves Python no sys.stdout: one line, status 2 (it was an AttributeError traceback); helpers run
    as commands (noaslr, numba_ports, nvrtc_worker) say what they are instead of a traceback."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run(["sh", "-c", f"'{sys.executable}' -m analysis.occupancy transpose_tiled >&-"],
                       capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert_one_line(r.returncode, "", r.stderr, "standard output is closed")
    for module, phrase in (("cudasim.noaslr", "cudasim.compile's helper, not a command"),
                           ("kernels.numba_ports", "kernels.simbench")):
        r = subprocess.run([sys.executable, "-m", module], capture_output=True, text=True, cwd=ROOT, env=env,
                           timeout=120)
        assert_one_line(r.returncode, r.stdout, r.stderr, phrase)


def test_ctrl_c_while_a_command_loads_is_one_line(tmp_path):
    """A KeyboardInterrupt before console.run (Ctrl-C during the imports of `python -m PACKAGE.MODULE`) ends in the
    one line "interrupted", not a traceback: cudasim/__init__, which every package imports first, sees to it."""
    (tmp_path / "loads").mkdir()
    (tmp_path / "loads" / "__init__.py").write_text("import cudasim\n")  # as analysis/__init__ does
    (tmp_path / "loads" / "slowly.py").write_text("raise KeyboardInterrupt  # Ctrl-C amid the imports\n")
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path}"}
    r = subprocess.run([sys.executable, "-m", "loads.slowly"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode in (130, -2), r  # the interpreter ends by SIGINT, as the shell reports with 130
    assert r.stderr == "interrupted\n" and r.stdout == "", r.stderr


def test_memory_and_unwritable_files_are_one_line(capsys, tmp_path):
    """A MemoryError anywhere in a command, and a file it cannot write, end in one line naming what to do."""
    def exhausted() -> int:
        np.zeros(1 << 62, np.uint8)  # no machine has this
        return 0

    code, out, err = run_in_process_main(capsys, exhausted)
    assert_one_line(code, out, err, "out of memory")
    assert "--all-blocks" in err and "--arg NAME=DTYPE[COUNT]" in err

    def unwritable() -> int:
        (tmp_path / "no" / "such" / "folder.txt").write_text("x")
        return 0

    assert_one_line(*run_in_process_main(capsys, unwritable), "folder.txt: No such file or directory")


def test_a_cache_folder_that_cannot_be_used_is_one_line(capsys, tmp_path, monkeypatch):
    """CUDASIM_CACHE naming a file (or a folder under one) fell back silently to PTX-level counts with advice
    to install a package that was installed; now every command stops first, naming the variable."""
    (tmp_path / "a_file").write_text("x")
    for bad in (tmp_path / "a_file", tmp_path / "a_file" / "sub"):
        monkeypatch.setenv("CUDASIM_CACHE", str(bad))
        code, out, err = run_in_process(capsys, "analysis.coalescing", "transpose_tiled")
        assert_one_line(code, out, err, f"CUDASIM_CACHE={bad}")
        assert "point CUDASIM_CACHE at" in err


def run_in_process_main(capsys, main) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as ended:
        console.run(main)
    out, err = capsys.readouterr()
    return ended.value.code, out, err


class _Parsed(Exception):
    """Raised instead of parsing: carries the parser an entry point built."""


def entry_modules() -> list[str]:
    """Every `python -m` entry module of the four packages (scripts a command runs itself excepted)."""
    out = []
    for pkg in ("analysis", "kernels", "corpus", "cudasim"):
        for f in sorted((ROOT / pkg).rglob("*.py")):
            text = f.read_text()
            if f.name == "__main__.py" or 'if __name__ == "__main__"' in text:
                name = ".".join(f.relative_to(ROOT).with_suffix("").parts).removesuffix(".__main__")
                if name not in ("cudasim.nvrtc_worker", "cudasim.noaslr", "kernels.numba_ports"):
                    out.append(name)
    return out


def test_every_option_of_every_command_has_help(monkeypatch):
    """Each entry point is run as `python -m` would run it, up to its parse_args, which hands back the parser
    instead: every option and positional has help text, and every parser is console.Parser (usage errors in
    one line)."""
    def parsed(self, args=None, namespace=None):
        raise _Parsed(self)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parsed)
    seen = {}
    for module in entry_modules():
        for extra in (["--accuracy", "--help"], ["--help"]) if module == "analysis.timing" else (["--help"],):
            monkeypatch.setattr(sys, "argv", [module, *extra])
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore", RuntimeWarning)  # runpy: the module was imported before
                with pytest.raises((_Parsed, SystemExit)) as got:
                    runpy.run_module(module, run_name="__main__", alter_sys=True)
            if got.type is SystemExit:  # `python -m analysis --help`: the list of models, no parser
                assert module == "analysis" and got.value.code == 0
                continue
            parser = got.value.args[0]
            assert isinstance(parser, console.Parser), module
            bare = [a.option_strings or [a.dest] for a in parser._actions if not a.help]
            assert not bare, f"{module}: options without help: {bare}"
            seen[" ".join([module, *extra[:-1]])] = len(parser._actions)
    assert {"analysis.coalescing", "analysis.compare", "kernels.run", "kernels.bench", "corpus.compare",
            "cudasim.check", "analysis.timing --accuracy", "corpus.holdout7.manifest"} <= set(seen)


def test_svg_pictures_go_to_files_the_report_names(capsys, tmp_path):
    """--svg DIR writes each picture as an SVG file and the text report names it, instead of printing SVG."""
    need_nvrtc()
    code, out, err = run_in_process(capsys, "analysis.banks", "transpose_tiled", "--svg", str(tmp_path / "pics"))
    assert code == 0, err
    assert "<svg" not in out
    named = [line.split("picture: ")[1].split(" (SVG)")[0] for line in out.splitlines() if "picture: " in line]
    assert named and all(Path(p).read_text().startswith("<svg") for p in named)
    assert sorted(map(str, (tmp_path / "pics").iterdir())) == sorted(named)
    code, out, _ = run_in_process(capsys, "analysis.banks", "transpose_padded", "--svg", str(tmp_path / "none"))
    assert code == 0 and "no picture to draw" in out  # conflict-free: nothing drawn, and it says so


def test_python_m_analysis_lists_the_models(capsys):
    code, out, err = run_in_process(capsys, "analysis")
    assert code == 0 and not err and "coalescing:" in out and "occupancy:" in out


def test_main_of_names_real_mains():
    """The table above reaches the mains the entry modules run (a typo there would test nothing)."""
    for module in ("kernels.run", "analysis.compare", "corpus.compare", "analysis.transfers"):
        main, args = main_of(module, [])
        assert callable(main) and main.__module__ == module
    main, args = main_of("analysis.banks", ["x"])
    assert args == ("banks", ["x"])


def test_a_source_that_starts_with_a_byte_order_mark_is_read(capsys, tmp_path):
    """Some editors begin a UTF-8 file with a BOM, which is no C: NVRTC stopped at it ("unrecognized token")."""
    need_nvrtc()
    cu = tmp_path / "bom.cu"
    cu.write_text("\ufeff" + OK_CU, encoding="utf-8")
    code, out, err = run_in_process(capsys, "analysis.coalescing", f"{cu}::k", "--grid", "1", "--block", "32", "--arg",
                                    "n=32", "--draw", "none")
    assert code == 0 and err == "" and "bom.cu:3" in out, err


def test_a_kernel_in_a_namespace_is_named_as_cxx_names_it(capsys, files):
    """foo::bar::nk: NVRTC lowers the qualified name (a name expression), as a template instance's."""
    need_nvrtc()
    code, out, err = run_in_process(capsys, "analysis.coalescing", f"{files}/ns.cu::foo::bar::nk", "--grid", "1",
                                    "--block", "32", "--arg", "n=32", "--draw", "none")
    assert code == 0 and err == "" and out.startswith("foo::bar::nk grid 1x1x1"), err


def test_a_template_kernel_takes_its_type_arguments_by_value(capsys, tmp_path):
    """`T a` of axpy<double, 128, false> is a double: the instance's arguments replace the type parameters (it was
    'parameter a has type T, which the CLI cannot build')."""
    need_nvrtc()
    cu = tmp_path / "axpy.cu"
    cu.write_text("template <typename T, int BS, bool CHECK>\n"
                  "__global__ void axpy(const T * __restrict__ x, T * __restrict__ y, T a, int n) {\n"
                  "    int i = blockIdx.x * BS + threadIdx.x;\n"
                  "    if (!CHECK || i < n) y[i] = a * x[i] + y[i];\n}\n"
                  "template __global__ void axpy<double, 128, false>(const double *, double *, double, int);\n")
    code, out, err = run_in_process(capsys, "analysis.coalescing", f"{cu}::axpy<double, 128, false>", "--grid", "2",
                                    "--block", "128", "--arg", "a=2", "--arg", "n=256", "--draw", "none")
    assert code == 0 and err == "", err
    assert "x: no size or data given: zeros, 4,096 float64" in out


def test_a_typedef_and_a_default_argument_are_read_as_the_compiler_reads_them(capsys, files):
    need_nvrtc()
    code, out, err = run_in_process(capsys, "analysis.coalescing", f"{files}/more.cu::tdef", "--grid", "1", "--block",
                                    "32", "--arg", "b=2", "--draw", "none")
    assert code == 0 and err == "" and "zeros, 4,096 float32" in out, err  # real is a typedef of float
    code, out, err = run_in_process(capsys, "analysis.coalescing", f"{files}/more.cu::dflt", "--grid", "1", "--block",
                                    "32", "--draw", "none")
    assert code == 0 and err == "", err


def test_scalars_as_c_writes_them_and_functors_by_value(capsys, files):
    """int16_t, a bfloat16 scalar (1.5, not its bits), hex floats, and an empty functor by value (CUB's Sum, a
    transform's op: one byte, no --arg) all run."""
    need_nvrtc()
    launch = ["--grid", "1", "--block", "32", "--draw", "none"]
    for argv in ([f"{files}/sc.cu::sc", *launch, "--arg", "x=0x1p-3", "--arg", "y=-0x1.8p1", "--arg", "c=-32768",
                  "--arg", "t=1.5"],
                 [f"{files}/sc.cu::apply<Square>", *launch]):
        code, out, err = run_in_process(capsys, "analysis.coalescing", *argv)
        assert code == 0 and err == "", err


def test_occupancy_keeps_to_the_kernels_launch_bounds(capsys, tmp_path):
    """__launch_bounds__(256, 64): no what-if row of 512 threads (the launch would fail), and a note that 64 blocks
    an SM cannot fit."""
    need_nvrtc()
    cu = tmp_path / "lb.cu"
    cu.write_text('extern "C" __global__ void __launch_bounds__(256, 64) k(float *a) { a[threadIdx.x] = 1.0f; }\n')
    code, out, err = run_in_process(capsys, "analysis.occupancy", f"{cu}::k", "--grid", "132", "--block", "256",
                                    "--json")
    assert code == 0 and err == "", err
    d = json.loads(out)
    assert d["neighbours"] and all(n["threads"] <= 256 for n in d["neighbours"])
    assert d["bounds"].startswith("__launch_bounds__ asks for 64 blocks/SM, and 8 fit")
    # a block past the bound: the GPU refuses the launch, and so does occupancy, as the other commands do
    for command in ("analysis.occupancy", "analysis.coalescing", "cudasim.check"):
        assert_one_line(*run_in_process(capsys, command, f"{cu}::k", "--grid", "4", "--block", "512"),
                        "block of 512 threads exceeds the kernel's __launch_bounds__ of 256 threads (the GPU refuses "
                        "it: cudaErrorInvalidValue): launch blocks of at most 256 threads, or raise the bound")
