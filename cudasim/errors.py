"""Exceptions of the simulator: every failure is one clear line naming the problem."""
from __future__ import annotations

from typing import Any


class SimulationError(Exception):
    """The simulated kernel did something the simulator cannot or must not continue past."""


class UnsupportedInstruction(SimulationError):
    """An instruction (or form of one) outside what the simulator models exactly."""


class MemoryFault(SimulationError):
    """An out-of-bounds or misaligned access (global, shared, local).

    Besides its one-line message, a global fault says what happened as values, for a caller that acts on
    it rather than printing it (analysis grows a buffer the user left unsized, and runs again):

        space       "global", "shared", "local", ... (None where not told)
        kind        "out-of-bounds", "misaligned" or "host copy"
        where       the faulting instruction's place and text, "file.cu:12 `ld.global.f32 %f1, [%rd6]`"
        address     the first faulting lane's address; size: the bytes each lane accesses
        lowest      the lowest address any lane of the faulting access touches (the buffer the access is
                    through, where lanes step on from its start); reach: one past the furthest byte any lane
                    touches
        allocation  the allocation the access is nearest (cudasim.memory.Allocation: base, size, name), as
                    the message names it; past_end: how many bytes the access reaches past its end (> 0), or
                    None where it lies before it
        argument    set by the launch: the index of the kernel argument whose buffer the access ran past
                    (the array its lowest lane is in or past; None where it is none of them); argument_reach:
                    the bytes of that buffer, from its start, the access needs; buffers: (address, bytes,
                    argument index) of every array the launch passed
    """

    def __init__(self, message: str, *, space: str | None = None, kind: str | None = None, where: str | None = None,
                 address: int | None = None, size: int | None = None, lowest: int | None = None,
                 reach: int | None = None, allocation: Any = None, past_end: int | None = None) -> None:
        super().__init__(message)
        self.space, self.kind, self.where, self.address, self.size = space, kind, where, address, size
        self.lowest, self.reach = lowest, reach
        self.allocation, self.past_end = allocation, past_end
        self.argument: int | None = None
        self.argument_reach: int | None = None
        self.buffers: list[tuple[int, int, int]] = []


class BarrierDivergence(SimulationError):
    """`bar.sync` reached by some but not all live threads of a block."""


class LaunchError(SimulationError):
    """A launch the driver would refuse (block too large, too much shared memory, ...)."""


class Runaway(SimulationError):
    """The launch passed its step limit: an endless loop, or more work than the limit allows. `at`: where its
    threads were, in words."""

    def __init__(self, message: str, at: str = ""):
        super().__init__(message)
        self.at = at


class Stalled(Runaway):
    """Threads wait in a loop on memory that nothing simulated will change: round after round they are the same,
    and every block of their batch waits with them (on a block not simulated, or one of a later batch, a warp of
    its own block, or in a deadlock). `at`: where they were, in words."""
