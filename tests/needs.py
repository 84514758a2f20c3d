"""Skips for tests that need a piece of the toolchain the install may lack."""
import pytest


def need_nvrtc() -> None:
    """Skip unless NVRTC (pip's nvidia-cuda-nvrtc via cuda-bindings) loads: it compiles every kernel."""
    try:
        from cudasim.compile import nvrtc_version
        nvrtc_version()
    except Exception as e:  # noqa: BLE001 - any failure to load it means the same: no compiler
        pytest.skip(f"NVRTC unavailable: {e}")


def need_nvcc() -> None:
    """Skip unless nvcc and the gcc it preprocesses with are here (files with host code need them)."""
    from cudasim import nvcc
    why = nvcc.unavailable()
    if why is not None:
        pytest.skip(f"nvcc unavailable: {why}")
