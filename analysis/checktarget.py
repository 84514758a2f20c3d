"""The target resolver of `python -m cudasim.check`: catalog names and file.cu::kernel, as every
analysis command resolves them.

cudasim may not import analysis or kernels, so it finds this module through the
`cudasim.targets` entry point (setup.cfg) and calls `add_arguments` and `resolve`: one
resolution (defines, sizes, the GPU row, arguments from the catalog or from `--arg`) for the
checker and the models alike.
"""
from __future__ import annotations

import argparse

from cudasim import CompileError
from cudasim.check.targets import Target, TargetError

from . import pipeline
from .args import TargetError as AnalysisTargetError


def add_arguments(p: argparse.ArgumentParser) -> None:
    """TARGET and the options that shape its launch (pipeline.add_launch_args)."""
    pipeline.add_launch_args(p)


def resolve(a: argparse.Namespace) -> Target:
    """The launch TARGET names, compiled, with its arguments by parameter name."""
    try:
        launch = pipeline.resolve(a)
        compiled = pipeline.compile_launch(launch)
        stopped = pipeline.size_unsized(launch)  # every block runs checked: unsized buffers first grow to what
        # they touch; where that run stops (a runaway loop), the check runs into the same stop, with its findings
        args, notes = launch.arguments()
        notes = pipeline.check_notes(launch) + notes + ([stopped] if stopped else [])
        try:
            names = [p.name for p in launch.signature()]
        except AnalysisTargetError:
            names = []
    except (AnalysisTargetError, CompileError, LookupError, ValueError) as e:
        raise TargetError(str(e).splitlines()[0]) from None
    if len(names) != len(args):
        names = [f"arg{i}" for i in range(len(args))]
    notes = [f"code by {compiled.result.compiler}", *notes]
    return Target(launch.describe(), launch.kernel, compiled.result.ptx, compiled.result, launch.grid, launch.block,
                  launch.shared, list(zip(names, args)), notes, launch.variables())
