"""The command line of every model: `python -m analysis.<model> TARGET` (or `python -m analysis MODEL TARGET`).

The model comes from the registry by name; this module names none. A trace model's report
is framed here (target and provenance, notes, the other trace models' pointers, verifier
findings, the time it took); a launch model's report is its own.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from typing import NoReturn

from cudasim import CompileError, SimulationError

from . import pipeline, registry, simulation
from .args import TargetError
from .common import View


def fail(msg: str) -> NoReturn:
    """One line on stderr, exit status 2: how every unusable input ends."""
    print(f"error: {msg}", file=sys.stderr)
    raise SystemExit(2)


def main(name: str, argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the model `name` on the TARGET in `argv`; the exit status (2 for unusable input)."""
    import signal
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends quietly
    try:
        model = registry.get(name)
    except LookupError as e:
        fail(str(e))
    p = argparse.ArgumentParser(prog=prog or f"python -m analysis.{name}", description=model.summary)
    pipeline.add_target_args(p)
    model.add_arguments(p)
    a = p.parse_args(argv)
    t0 = time.perf_counter()
    try:
        launch = pipeline.resolve(a, model.catalog_size)
        if model.needs == "trace":
            res = pipeline.trace_results(launch, all_blocks=a.all_blocks, use_cache=not a.no_cache)
            result = res[model.name]
        elif model.needs == "simulation":
            result = simulation.result(model, launch, a)
        else:
            result = pipeline.launch_result(model, launch, a)
    except TargetError as e:
        fail(str(e))
    except Exception as e:  # noqa: BLE001 - simulator, compiler and catalog errors: one line, exit 2
        if isinstance(e, (CompileError, SimulationError, TypeError, ValueError, LookupError)):
            fail(str(e).splitlines()[0])
        raise
    view = View(pipeline.target_command(a), launch.gpu, a)
    if model.needs == "simulation":
        print(json.dumps(result, indent=1, default=str) if a.json else model.render(result, view))
        how = "from the on-disk cache of an earlier run" if result.get("cached") else "simulated and modelled"
        if not a.json:
            print(f"(answered in {time.perf_counter() - t0:.2f} s of wall time, {how}; code by {result['compiler']})")
        return model.exit_status(result)
    if model.needs == "launch":
        print(json.dumps(result, indent=1, default=str) if a.json else model.render(result, view))
        return model.exit_status(result)
    if a.json:
        print(json.dumps({"target": res["target"], "level": res.get("level"), "compiler": res["compiler"],
                          model.name: result, "notes": res["notes"], "findings": res["findings"]},
                         indent=1, default=str))
        return model.exit_status(result)
    print(f"{res['target']}  [{result['provenance']['label']}]")
    for n in res["notes"]:
        print(f"  note: {n}")
    print(model.render(result, view))
    for other in registry.trace_models():
        line = other.pointer(res, view) if other.pointer and other is not model else None
        if line:
            print(f"\n{line}")
    for f in res["findings"]:
        print(f"  verifier: {f}")
    how = "from the on-disk cache of an earlier run" if res.get("cached") else "simulated and modelled"
    print(f"(answered in {time.perf_counter() - t0:.2f} s of wall time, {how}; code by {res['compiler']})")
    return model.exit_status(result)
