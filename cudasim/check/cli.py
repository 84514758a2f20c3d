"""`python -m cudasim.check TARGET [options]`: run every block of a launch with every check on.

Exit status: 0 when nothing was found, 1 when anything was, 2 for input that cannot be used
(one line on stderr naming the problem and the fix). Long runs show how far they are on a
terminal (stderr); a run past `--timeout` seconds stops (a spin-wait between blocks never ends where
the simulator runs the waiter first), and findings are kept up to `--limit` per kind.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from .. import progress
from ..api import SourceModule
from ..compile import CompileError
from ..console import Parser, fail
from ..driver import Out
from ..errors import SimulationError
from ..execute import MAX_STEPS, time_limit
from ..memory import GlobalMemory
from . import report
from .targets import TargetError, resolver

PROG = "python -m cudasim.check"


def parser(res) -> argparse.ArgumentParser:
    p = Parser(prog=PROG, description="Check a kernel launch on the CPU as compute-sanitizer would on a GPU "
               "(racecheck, memcheck, synccheck, initcheck), and more: races in global memory and inside a warp, "
               "uninitialized shared memory, warp-sync masks. Every block is simulated.")
    res.add_arguments(p)
    p.add_argument("--json", action="store_true", help='print {"findings": [...], ...} as JSON')
    p.add_argument("--uninit", action="append", default=[], metavar="NAME",
                   help="a buffer argument the host does not initialize (cudaMalloc without a copy): its reads "
                        "before any write are reported")
    p.add_argument("--limit", type=int, default=50, help="findings kept per kind (default 50)")
    p.add_argument("--timeout", type=float, default=600.0, help="stop after this many seconds (default 600)")
    return p


def main(argv: list[str] | None = None, resolve=None) -> int:
    """The command; `resolve` replaces the registered target resolver (tests)."""
    res = resolve or resolver()
    if res is None:
        fail("no target resolver is registered (the cudasim.targets entry point that the analysis package "
             "provides): install the project with `pip install -e .` and run again")
    a = parser(res).parse_args(argv)
    if a.limit < 1 or not 0 < a.timeout < float("inf"):
        fail("--limit and --timeout must be positive (and the timeout finite)")
    with time_limit(a.timeout, "the check"):  # within a block too, the run that sizes unsized buffers too
        return _check(a, res)


def _check(a, res) -> int:
    t0 = time.perf_counter()
    try:
        target = res.resolve(a)
    except TargetError as e:
        fail(str(e))
    except (CompileError, SimulationError) as e:  # the run that sizes unsized buffers may stop too
        fail(str(e).splitlines()[0])
    names = [n for n, _ in target.args]
    twice = sorted({n for n in a.uninit if a.uninit.count(n) > 1})
    if twice:
        fail(f"--uninit {twice[0]} given twice; give it once")
    given = {d.split("=", 1)[0] for d in getattr(a, "data", [])}
    both = [n for n in a.uninit if n in given]
    if both:
        fail(f"--uninit {both[0]} and --data {both[0]}=...: a buffer the host copied data into is not uninitialized; "
             f"give one of them")
    unknown = [n for n in a.uninit if n not in names]
    if unknown:
        fail(f"--uninit {unknown[0]}: the kernel has no parameter of that name; it takes {', '.join(names)}")
    args = []
    for name, v in target.args:
        if name in a.uninit:
            if not isinstance(v, np.ndarray):
                fail(f"--uninit {name}: {name} is a scalar, not a buffer")
            v = Out(v)
        args.append(v)
    chk, stopped = None, None  # the checker; why the launch stopped before its end, where it did
    try:
        mod = SourceModule.from_ptx(target.ptx, target.compiled, memory=GlobalMemory())
        f = mod.get_function(target.kernel)
        f.opt_in(target.shared)  # a launch past 48 KiB of dynamic shared memory has opted in
        for name, value in target.variables.items():  # as cudaMemcpyToSymbol before the launch
            mod.set_global(name, value)
        chk = f.checked_program.checker
        chk.limit, chk.timeout = a.limit, a.timeout
        steps = getattr(a, "max_steps", None)
        if steps is not None and steps < 1:
            fail(f"--max-steps {steps}: must be a positive number of warp instructions")
        with progress.task("checking", int(np.prod(target.grid)), "blocks") as step:
            chk.progress = _advancing(step)
            launch = f(*args, grid=target.grid, block=target.block, shared=target.shared, check="full", trace=False,
                       arg_names=names, max_steps=steps or MAX_STEPS)
    except SimulationError as e:  # a runaway loop, the time limit: what the check found until then is kept
        stopped = str(e).splitlines()[0]
        if chk is None or not chk.findings.items:
            fail(stopped)
    except (TypeError, ValueError) as e:
        fail(str(e).splitlines()[0])
    seconds = time.perf_counter() - t0
    total = int(np.prod(target.grid))
    if stopped is None:
        findings = launch.findings
        blocks = launch.stats["blocks_run"]
        stats = (f"{blocks:,} blocks, {blocks * int(np.prod(target.block)):,} threads, every block simulated "
                 f"({launch.stats['warp_instructions']:,} warp instructions in {seconds:.2f} s)")
    else:
        findings = chk.end_launch()
        stats = (f"stopped after {chk.done:,} of {total:,} blocks had ended" if chk.done else
                 f"stopped before any of its {total:,} blocks had ended (they run together, in batches)")
    notes = list(target.notes) + chk.notes
    if stopped is not None:
        notes.append(f"the check stopped before the launch ended ({stopped}); the findings above are those it "
                     f"made until then")
    if a.json:
        print(json.dumps(report.to_json(target.description, target.grid, target.block, findings, notes, seconds),
                         indent=1, default=str))
    else:
        print(report.render(target.description, findings, notes, stats))
    if stopped is not None:
        sys.stdout.flush()
        print(f"error: {stopped}", file=sys.stderr)
        return 1
    return 1 if findings else 0


def _advancing(step):
    """The checker's progress callback (blocks done, blocks, seconds) as steps of a progress line."""
    done_before = [0]

    def report(done: int, total: int, seconds: float) -> None:
        step(done - done_before[0])
        done_before[0] = done
    return report
