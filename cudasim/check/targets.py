"""What a TARGET names, resolved by a hook: cudasim names the hook, a package above provides it.

`python -m cudasim.check` takes the targets every analysis command takes -- a catalog name
or `path/to/file.cu::kernel` with `--grid --block --arg --define --size --gpu` -- but the
catalog lives in `kernels` and the resolution (defines, sizes, arguments from a C signature)
in `analysis.pipeline`, and cudasim imports neither (the layers import downward). So the
resolver plugs in through the `cudasim.targets` entry-point group, which setup.cfg fills
with `analysis.checktarget`: one resolution for every command, and no upward import. A
resolver is any object (a module will do) with `add_arguments(parser)` and
`resolve(namespace) -> Target`, raising TargetError for input it cannot use.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from importlib.metadata import distributions
from typing import Any, Protocol

from ..compile import CompileResult

GROUP = "cudasim.targets"


class TargetError(Exception):
    """A TARGET or option that cannot be used: one line naming the problem and the fix (exit status 2)."""


@dataclass
class Target:
    """One launch to check: the PTX and its entry, the launch shape, the arguments by name."""

    description: str  # e.g. "transpose_tiled grid 8x8x1 block 32x8x1, size 256"
    kernel: str  # the entry's name (or name expression)
    ptx: str
    compiled: CompileResult | None
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared: int  # dynamic shared bytes per block
    args: list[tuple[str, Any]]  # (parameter name, value): numpy arrays for buffers, numpy scalars
    notes: list[str] = field(default_factory=list)
    variables: dict[str, Any] = field(default_factory=dict)  # __constant__/__device__ name -> contents (numpy)


class Resolver(Protocol):
    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def resolve(self, args: argparse.Namespace) -> Target: ...


def resolver() -> Resolver | None:
    """The registered resolver (the first by entry-point name), or None where none is installed.
    Every distribution's metadata is read, not only the first of each name: a stale
    `*.egg-info` left in a checkout (first on sys.path) would otherwise hide the installed one."""
    eps = {ep.name: ep for d in distributions() for ep in d.entry_points if ep.group == GROUP}
    return eps[min(eps)].load() if eps else None
