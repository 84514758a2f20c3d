"""`python -m analysis.timing`: predicted kernel time, its limiter and what would move it.

    python -m analysis.timing TARGET [--size N] [--gpu NAME] [--json]
    python -m analysis.timing --accuracy [--out analysis/results/timing_h100.md]

The model is analysis.models.timing; the accuracy benchmark is analysis.timing_accuracy.
"""
if __name__ == "__main__":
    import sys

    from cudasim.console import run

    if "--accuracy" in sys.argv[1:]:
        from .timing_accuracy import main as accuracy
        run(accuracy, [a for a in sys.argv[1:] if a != "--accuracy"])
    from .cli import main

    run(main, "timing")
