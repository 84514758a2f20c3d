"""cudasim: a CPU simulator of the CUDA execution model that runs the PTX NVRTC makes.

PyCUDA's API shape: `from cudasim import SourceModule, In, Out, InOut`.
"""
import sys as _sys

if _sys.argv[:1] == ["-m"]:  # `python -m` is loading a command: a Ctrl-C before its console.run is one line too
    def _interrupted(kind, value, tb, _before=_sys.excepthook):
        if issubclass(kind, KeyboardInterrupt):
            print("interrupted", file=_sys.stderr, flush=True)  # the interpreter then ends with SIGINT's status
        else:
            _before(kind, value, tb)

    _sys.excepthook = _interrupted
    from .console import refuse_library_module
    refuse_library_module()

from .api import Function, Launch, SourceModule
from .compile import CompileError, CompileResult, Resources, compile_cuda
from .driver import In, InOut, Out
from .errors import (BarrierDivergence, LaunchError, MemoryFault, Runaway, SimulationError, Stalled,
                     UnsupportedInstruction)

__all__ = ["SourceModule", "Function", "Launch", "In", "Out", "InOut", "CompileError", "CompileResult",
           "Resources", "compile_cuda", "SimulationError", "UnsupportedInstruction", "MemoryFault",
           "BarrierDivergence", "LaunchError", "Runaway", "Stalled"]
