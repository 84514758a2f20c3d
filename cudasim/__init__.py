"""cudasim: a CPU simulator of the CUDA execution model that runs the PTX NVRTC makes.

PyCUDA's API shape: `from cudasim import SourceModule, In, Out, InOut`.
"""
from .compile import CompileError, CompileResult, Resources, compile_cuda

__all__ = ["CompileError", "CompileResult", "Resources", "compile_cuda"]
