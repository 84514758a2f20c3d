"""The command line of every model: `python -m analysis.<model> TARGET` (or `python -m analysis MODEL TARGET`).

The model comes from the registry by name; this module names none. A trace model's report
is framed here (target and provenance, notes, the other trace models' pointers, verifier
findings, the time it took); a launch model's report is its own. Unusable input of any kind
(options, target, compile, a launch the driver would refuse, a simulation that cannot go on)
ends in one line on stderr and exit status 2 (cudasim.console).
"""
from __future__ import annotations

import json
import time

from cudasim import CompileError, SimulationError
from cudasim.console import Parser, fail

from . import pipeline, registry, simulation
from .args import TargetError
from .common import View
from .draw import check_draw, svg_files


def main(name: str, argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the model `name` on the TARGET in `argv`; the exit status (2 for unusable input)."""
    try:
        model = registry.get(name)
    except LookupError as e:
        fail(str(e))
    p = Parser(prog=prog or f"python -m analysis.{name}", description=model.summary)
    pipeline.add_target_args(p)
    model.add_arguments(p)
    a = p.parse_args(argv)
    if problem := check_draw(a):
        fail(problem)
    if model.needs == "launch" and a.all_blocks:
        fail(f"--all-blocks: analysis.{name} is a static model that simulates no block; leave it out (the trace "
             f"models and analysis.timing take it)")
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
    except (CompileError, SimulationError, TypeError, ValueError, LookupError) as e:  # simulator, compiler, catalog
        fail(str(e).splitlines()[0])
    if model.refusal is not None and (why := model.refusal(result)):
        fail(f"{launch.describe()}: {why}")
    view = View(pipeline.target_command(a), launch.gpu, a)
    if model.needs == "simulation":
        _show(model.render(result, view), a, launch.kernel, model.name, json.dumps(result, indent=1, default=str))
        how = "from the on-disk cache of an earlier run" if result.get("cached") else "simulated and modelled"
        if not a.json:
            print(f"(answered in {time.perf_counter() - t0:.2f} s of wall time, {how}; code by {result['compiler']})")
        return model.exit_status(result)
    if model.needs == "launch":
        _show(model.render(result, view), a, launch.kernel, model.name, json.dumps(result, indent=1, default=str))
        return model.exit_status(result)
    if a.json:
        print(json.dumps({"target": res["target"], "level": res.get("level"), "compiler": res["compiler"],
                          model.name: result, "notes": res["notes"], "findings": res["findings"]},
                         indent=1, default=str))
        return model.exit_status(result)
    print(f"{res['target']}  [{result['provenance']['label']}]")
    for n in res["notes"]:
        print(f"  note: {n}")
    _show(model.render(result, view), a, launch.kernel, model.name)
    for other in registry.trace_models():
        line = other.pointer(res, view) if other.pointer and other is not model else None
        if line:
            print(f"\n{line}")
    for f in res["findings"]:
        print(f"  verifier: {f}")
    how = "from the on-disk cache of an earlier run" if res.get("cached") else "simulated and modelled"
    print(f"(answered in {time.perf_counter() - t0:.2f} s of wall time, {how}; code by {res['compiler']})")
    return model.exit_status(result)


def _show(text: str, a, kernel: str, model: str, as_json: str | None = None) -> None:
    """Print a report (its JSON where --json asks and one is given), with SVG pictures written to the folder
    --svg names rather than into the text."""
    if as_json is not None and getattr(a, "json", False):
        print(as_json)
        return
    if getattr(a, "svg_dir", None):
        stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in kernel.split("::")[-1])[:60] or "kernel"
        text, files = svg_files(text, a.svg_dir, f"{stem}-{model}")
        if not files:
            text += "\n  (no picture to draw: --svg wrote no file)"
    print(text)
