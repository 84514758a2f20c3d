"""The GPU table (cudasim/gpus.json) is the one place hardware facts are written, and every
layer reads it: the launch checks, the compiler's default architecture, the catalog's SM count."""
import ast
import json
from pathlib import Path

import pytest

from cudasim.gpus import DEFAULT_GPU, UnknownGPU, for_arch, get_gpu, gpu_names

ROOT = Path(__file__).resolve().parent.parent
LAUNCH_LIMITS = ("max_threads_per_block", "max_block_dims", "max_grid_dims", "regs_per_sm", "regs_per_block",
                 "smem_per_block_default", "smem_per_block_optin")


def test_every_row_has_its_launch_limits_and_sources():
    rows = json.loads((ROOT / "cudasim" / "gpus.json").read_text())["gpus"]
    for key, row in rows.items():
        for f in LAUNCH_LIMITS + ("cc", "sms"):
            assert f in row, (key, f)
        assert {"limits", "launch_dims"} <= set(row["sources"]), key
        g = get_gpu(key)
        assert g.arch == "sm_" + row["cc"].replace(".", "") and len(g.max_block_dims) == 3


def test_rows_of_one_compute_capability_share_their_launch_limits():
    for name in gpu_names():
        g = get_gpu(name)
        same = for_arch(g.arch)
        assert same is not None and same.cc == g.cc
        assert all(getattr(same, f) == getattr(g, f) for f in LAUNCH_LIMITS), name
    assert for_arch("sm_90").key == DEFAULT_GPU and for_arch("sm_90a").key == DEFAULT_GPU
    assert for_arch("sm_52") is None
    with pytest.raises(UnknownGPU):
        get_gpu("Z80")


def test_the_compiler_and_the_simulator_read_the_table():
    from cudasim.compile import DEFAULT_ARCH
    from kernels import sim

    default = get_gpu()
    assert default.key == DEFAULT_GPU == "H100-SXM"
    assert DEFAULT_ARCH == default.arch and sim.SIM_SMS == default.sms


def test_launch_checks_use_the_row_of_the_ptx_target():
    from cudasim import LaunchError, SourceModule, compile_cuda
    from cudasim.driver import function_attribute

    src = 'extern "C" __global__ void k(float *o) { extern __shared__ float s[]; s[threadIdx.x] = 1; ' \
          'o[threadIdx.x] = s[threadIdx.x]; }'
    for key in ("A100", "H100-SXM"):
        gpu = get_gpu(key)
        res = compile_cuda(src, arch=gpu.arch)
        f = SourceModule.from_ptx(res.ptx, res).get_function("k")
        assert f.gpu.cc == gpu.cc and f.max_dynamic_shared == gpu.smem_per_block_default
        f.set_attribute(function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, gpu.smem_per_block_optin)
        with pytest.raises(LaunchError, match=gpu.arch):
            f.set_attribute(function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, gpu.smem_per_block_optin + 4)
        with pytest.raises(LaunchError, match=str(gpu.max_threads_per_block)):
            f.check_launch((1, 1, 1), (gpu.max_threads_per_block + 32, 1, 1), 0)
        with pytest.raises(LaunchError, match="exceeds the limit"):
            f.check_launch((1, gpu.max_grid_dims[1] + 1, 1), (32, 1, 1), 0)


def test_no_sm_count_or_architecture_written_outside_the_table():
    """No code outside the table spells the H100's SM count or its architecture."""
    skip = {"cudasim/gpus.py"}  # the table's reader, whose docstrings give examples
    found = []
    for pkg in ("analysis", "kernels", "cudasim"):
        for f in sorted((ROOT / pkg).rglob("*.py")):
            rel = str(f.relative_to(ROOT))
            if rel in skip:
                continue
            for node in ast.walk(ast.parse(f.read_text())):
                if isinstance(node, ast.Constant) and (node.value == 132 or (isinstance(node.value, str)
                                                                            and "sm_90" in node.value)):
                    found.append((rel, node.lineno, node.value))
    assert not found, found
    for f in (ROOT / "cudasim").glob("*.py"):
        assert "SHARED_LIMIT" not in f.read_text() and "SHARED_OPTIN_LIMIT" not in f.read_text(), f
