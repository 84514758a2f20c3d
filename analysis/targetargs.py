"""The command-line options of every command that takes a TARGET, and the TARGET typed back.

TARGET is a catalog name or `path/to/file.cu::kernel`; the options shape its launch (--grid,
--block, --arg, --data, --define, --size, --gpu) and its compile (-I, --compiler-option).
analysis.pipeline.resolve turns them into one ResolvedLaunch.
"""
from __future__ import annotations

import argparse
import os
import shlex

from cudasim.execute import MAX_STEPS

from .args import TargetError


def target_command(args: argparse.Namespace) -> str:
    """The TARGET and the options that shape its launch, as typed again (for a report that
    points to another model's command)."""
    parts = [args.target]
    for opt, value in (("--size", args.size), ("--gpu", args.gpu), ("--grid", args.grid), ("--block", args.block),
                       ("--shared", args.shared or None)):
        if value is not None:
            parts += [opt, str(value)]
    for opt, values in (("--define", args.define), ("--arg", args.arg), ("-I", getattr(args, "include", []))):
        for v in values:
            parts += [opt, v]
    parts += [f"--compiler-option={v}" for v in getattr(args, "compiler_option", [])]
    return shlex.join(parts)


def add_target_args(p: argparse.ArgumentParser) -> None:
    """The TARGET and the options every model's command takes."""
    add_launch_args(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.add_argument("--all-blocks", action="store_true", help="simulate every block, not a sample scaled to the grid (up to 16,777,216 warps)")
    p.add_argument("--no-cache", action="store_true", help="ignore the on-disk result cache")


def add_launch_args(p: argparse.ArgumentParser) -> None:
    """The TARGET and the options that shape its launch."""
    p.add_argument("target", help="catalog name, or path/to/file.cu::kernel")
    p.add_argument("--grid", help="X[,Y[,Z]] blocks (file targets)")
    p.add_argument("--block", help="X[,Y[,Z]] threads (file targets)")
    p.add_argument("--shared", type=int, default=0, help="dynamic shared memory bytes per block (file targets)")
    p.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE",
                   help="scalar by name, or buffer NAME=float32[COUNT] (file targets)")
    p.add_argument("--data", action="append", default=[], metavar="NAME=FILE.npy",
                   help="a buffer's contents from a numpy file (file targets): indices, a histogram's input, a CSR "
                        "matrix; the run then follows the addresses and branches that data gives")
    p.add_argument("--define", action="append", default=[], metavar="NAME=VALUE",
                   help="preprocessor define; a catalog kernel's launch follows its own (TILE, BLOCK_ROWS, BK, ...)")
    p.add_argument("--size", type=int, help="problem size for catalog kernels")
    p.add_argument("--gpu", help="GPU from cudasim/gpus.json (default H100-SXM): its SM count sizes the catalog's "
                   "grid, its compute capability is compiled for")
    p.add_argument("--max-steps", type=int, metavar="N",
                   help=f"stop a simulated launch past N warp instructions (default {MAX_STEPS:,}): a kernel that "
                        "loops forever then stops, naming the line its threads are on")
    add_compile_args(p)


def add_compile_args(p: argparse.ArgumentParser) -> None:
    """-I and compiler options: what a compile takes besides the source and the defines."""
    p.add_argument("-I", "--include", action="append", default=[], metavar="DIR",
                   help="a folder to look for included headers in (repeatable); the target file's own folder is "
                        "searched first")
    p.add_argument("-X", "--compiler-option", action="append", default=[], metavar="FLAG",
                   help="a flag for the compiler (NVRTC, or nvcc for a file with host code), e.g. "
                        "--compiler-option=-use_fast_math, -X=--maxrregcount=64, -X=-std=c++20 (write it with '=' "
                        "so that its dash is not read as an option; repeatable)")


def compile_flags(args: argparse.Namespace) -> tuple[str, ...]:
    """The -I folders (checked, made absolute) and compiler options the command line gives."""
    flags = []
    for d in getattr(args, "include", []):
        if not os.path.isdir(d):
            what = "a file, not a folder" if os.path.exists(d) else "no such folder"
            raise TargetError(f"-I {d}: {what} (give the folder that holds the headers)")
        flags.append(f"-I{os.path.abspath(d)}")
    for o in getattr(args, "compiler_option", []):
        if not o.startswith("-"):
            raise TargetError(f"--compiler-option {o}: a compiler flag starts with '-', e.g. -use_fast_math")
        if o.startswith(("-arch", "--gpu-architecture")):
            raise TargetError(f"--compiler-option {o}: the architecture follows --gpu (e.g. --gpu A100)")
        flags.append(o)
    return tuple(flags)
