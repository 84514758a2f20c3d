"""`python -m analysis MODEL TARGET ...`: any registered model by name; without one, the models
and the ncu metrics each predicts."""
from __future__ import annotations

import sys

from . import registry
from .cli import main


def listing() -> str:
    out = ["usage: python -m analysis MODEL TARGET [options]   (or python -m analysis.MODEL TARGET)", ""]
    for m in registry.models():
        out.append(f"{m.name}: {m.summary}")
        out += [f"    {x.name}  ({x.unit}; {x.rule})" for x in m.metrics if x.predicted]
    return "\n".join(out)


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        import signal
        if hasattr(signal, "SIGPIPE"):
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends quietly
        print(listing())
        sys.exit(0)
    sys.exit(main(sys.argv[1], sys.argv[2:], prog=f"python -m analysis {sys.argv[1]}"))
