"""Exceptions of the simulator: every failure is one clear line naming the problem."""


class SimulationError(Exception):
    """The simulated kernel did something the simulator cannot or must not continue past."""


class UnsupportedInstruction(SimulationError):
    """An instruction (or form of one) outside what the simulator models exactly."""


class MemoryFault(SimulationError):
    """An out-of-bounds or misaligned access (global, shared, local)."""


class BarrierDivergence(SimulationError):
    """`bar.sync` reached by some but not all live threads of a block."""


class LaunchError(SimulationError):
    """A launch the driver would refuse (block too large, too much shared memory, ...)."""


class Runaway(SimulationError):
    """The launch passed its step limit: an endless loop, or more work than the limit allows."""
