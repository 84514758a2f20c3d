"""cudasim: a CPU simulator of the CUDA execution model that runs the PTX NVRTC makes.

PyCUDA's API shape: `from cudasim import SourceModule, In, Out, InOut`.
"""
from .api import Function, Launch, SourceModule
from .compile import CompileError, CompileResult, Resources, compile_cuda
from .driver import In, InOut, Out
from .errors import (BarrierDivergence, LaunchError, MemoryFault, Runaway, SimulationError,
                     UnsupportedInstruction)

__all__ = ["SourceModule", "Function", "Launch", "In", "Out", "InOut", "CompileError", "CompileResult",
           "Resources", "compile_cuda", "SimulationError", "UnsupportedInstruction", "MemoryFault",
           "BarrierDivergence", "LaunchError", "Runaway"]
