"""`python -m analysis MODEL TARGET ...`: any registered model by name; without one, the models
and the ncu metrics each predicts."""
from __future__ import annotations

import sys

from . import registry
from cudasim.console import fail

from .cli import main


def listing() -> str:
    out = ["usage: python -m analysis MODEL TARGET [options]   (or python -m analysis.MODEL TARGET)", ""]
    for m in registry.models():
        out.append(f"{m.name}: {m.summary}")
        out += [f"    {x.name}  ({x.unit}; {x.rule})" for x in m.metrics if x.predicted]
    return "\n".join(out)


def command(argv: list[str]) -> int:
    """The listing without a model (or with --help), else the model's command."""
    if not argv or argv[0] in ("-h", "--help"):
        print(listing())
        return 0
    if argv[0].startswith("-"):
        fail(f"{argv[0]}: give the model first, as python -m analysis MODEL TARGET [options]; python -m analysis "
             "lists the models")
    return main(argv[0], argv[1:], prog=f"python -m analysis {argv[0]}")


if __name__ == "__main__":
    from cudasim.console import run

    run(command, sys.argv[1:])
