"""Progress on stderr for work that takes more than a few seconds, shown only to a person.

One rich display per process, on stderr, and only when stderr is a terminal: pipes, files, tests
and CI see nothing, so standard output stays the result and standard error stays the errors.
Nested work (a comparison over kernels, each simulating its blocks) adds a line to the display
already shown; each line goes away when its work ends.

    for k in progress.track(kernels, "predicting"):       # a bar over a known count
        ...
    with progress.task("simulating 90,000 blocks") as step:  # elapsed time; step(n) where a count is known
        ...

`CUDAPERF_PROGRESS=0` turns it off on a terminal too.
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Callable, Iterable, Iterator, TypeVar

T = TypeVar("T")

_display = None  # the rich Progress shown now, shared by nested tasks
_depth = 0
_steps: list[Callable[[int], None] | None] = []  # each task shown now, innermost last: its step where it counts
# what `pulse` gives it, else None


def enabled() -> bool:
    """Whether progress is shown: stderr is a terminal and CUDAPERF_PROGRESS is not 0."""
    try:
        tty = sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False
    return tty and os.environ.get("CUDAPERF_PROGRESS", "1") != "0"


@contextmanager
def task(description: str, total: int | None = None, unit: str = "",
         pulsed: bool = False) -> Iterator[Callable[[int], None]]:
    """A line of progress while the block runs: a bar of `total` steps (each `unit`), or elapsed time where
    the total is unknown. Yields `step(n=1)`, which advances it (a no-op where nothing is shown). `pulsed`:
    the work inside advances it too (`pulse`), while it is the innermost task."""
    global _display, _depth
    if not enabled():
        yield _nothing
        return
    if _display is None:
        _display = _new_display()
        _display.start()
    _depth += 1
    label = f"{description} ({unit})" if unit else description
    tid = _display.add_task(label, total=total)
    display = _display
    step = lambda n=1: display.advance(tid, n)  # noqa: E731
    _steps.append(step if pulsed else None)
    try:
        yield step
    finally:
        _steps.pop()
        display.remove_task(tid)
        _depth -= 1
        if _depth == 0:
            display.stop()
            _display = None


def shown() -> bool:
    """Whether the innermost task shown now takes pulses."""
    return bool(_steps) and _steps[-1] is not None


def pulse(n: int) -> None:
    """Advance the innermost task shown, where it takes pulses, by `n`: work deep inside it (a simulation's
    warp instructions) that its caller cannot count."""
    if _steps and _steps[-1] is not None:
        _steps[-1](n)


def track(items: Iterable[T], description: str, total: int | None = None, unit: str = "") -> Iterator[T]:
    """`items`, one by one, with a bar over them (their count from `total` or len(items))."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with task(description, total, unit) as step:
        for item in items:
            yield item
            step(1)


def _nothing(n: int = 1) -> None:
    """The step of a task that is not shown."""


def _new_display():
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                               TimeElapsedColumn)

    return Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=Console(file=sys.stderr), transient=True)
