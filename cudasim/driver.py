"""The slice of `pycuda.driver` that kernels and host code need, over simulated memory.

    import cudasim.driver as cuda      # instead of: import pycuda.driver as cuda
    d = cuda.mem_alloc(a.nbytes); cuda.memcpy_htod(d, a); ...; cuda.memcpy_dtoh(out, d)
"""
from __future__ import annotations

import numpy as np

from .memory import default_memory


class DeviceAllocation:
    """A global allocation; `int(alloc)` is its device address, as in PyCUDA."""

    def __init__(self, nbytes: int, name: str = ""):
        self.nbytes = int(nbytes)
        self.ptr = default_memory().alloc(self.nbytes, name)
        self._live = True

    def __int__(self) -> int:
        return self.ptr

    __index__ = __int__

    def free(self) -> None:
        if self._live:
            default_memory().free(self.ptr)
            self._live = False

    def __repr__(self) -> str:
        return f"<DeviceAllocation 0x{self.ptr:x}, {self.nbytes} bytes>"


def mem_alloc(nbytes: int) -> DeviceAllocation:
    return DeviceAllocation(nbytes)


def memcpy_htod(dest, src: np.ndarray) -> None:
    default_memory().write(int(dest), np.ascontiguousarray(src))


def memcpy_dtoh(dest: np.ndarray, src) -> None:
    if not dest.flags.c_contiguous:
        raise ValueError("memcpy_dtoh needs a contiguous destination array")
    data = default_memory().read(int(src), dest.nbytes)
    dest.reshape(-1).view(np.uint8)[:] = data


def memcpy_dtod(dest, src, size: int) -> None:
    m = default_memory()
    m.write(int(dest), m.read(int(src), size))


def to_device(a: np.ndarray) -> DeviceAllocation:
    d = mem_alloc(a.nbytes)
    memcpy_htod(d, a)
    return d


def from_device(ptr, shape, dtype) -> np.ndarray:
    out = np.empty(shape, dtype)
    memcpy_dtoh(out, ptr)
    return out


class ArgumentHandler:
    """In/Out/InOut: how a host array travels to and from the kernel (PyCUDA semantics)."""

    copy_in = True
    copy_out = True

    def __init__(self, array: np.ndarray):
        if not isinstance(array, np.ndarray):
            raise TypeError(f"{type(self).__name__}() wraps a numpy array, not {type(array).__name__}")
        self.array = array


class In(ArgumentHandler):
    copy_out = False


class Out(ArgumentHandler):
    copy_in = False


class InOut(ArgumentHandler):
    pass


class function_attribute:  # noqa: N801 - PyCUDA's spelling
    MAX_DYNAMIC_SHARED_SIZE_BYTES = "max_dynamic_shared_size_bytes"
    MAX_THREADS_PER_BLOCK = "max_threads_per_block"
    NUM_REGS = "num_regs"
    SHARED_SIZE_BYTES = "shared_size_bytes"
    LOCAL_SIZE_BYTES = "local_size_bytes"
