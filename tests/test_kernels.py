"""The catalog: every kernel the tutorial names, compiled for sm_90, runnable in cudasim."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels import catalog, sim

ISSUE_NAMES = """vector_add_single vector_add_block_stride vector_add_grid_stride vector_add_pageable vector_add_pinned
vector_add_streams copy transpose_naive transpose_tiled transpose_padded transpose_swizzled sgemm_uncoalesced
sgemm_naive sgemm_smem sgemm_1d_blocktiling sgemm_2d_blocktiling sgemm_2d_blocktiling_small sgemm_vectorized
sgemm_warptiling sgemm_double_buffered sgemm_tf32_wmma dgemm_packed dgemm_smem dgemm_smem_conflict_free
dgemm_wmma""".split()
KERNELS = [k for k in catalog.KERNELS if k.kind == "kernel"]


def test_catalog_lists_every_kernel_the_tutorial_names():
    assert sorted(catalog.names()) == sorted(ISSUE_NAMES)


def test_unknown_name_lists_close_ones():
    with pytest.raises(catalog.CatalogError, match="did you mean sgemm_naive"):
        catalog.get("sgemm_naiv")


@pytest.mark.parametrize("k", KERNELS, ids=lambda k: k.name)
def test_every_kernel_gives_numpy_result_in_the_simulator(k):
    """Compiled by NVRTC for sm_90, run by cudasim at its small size, checked against float64."""
    launch, out, inputs = sim.run(k.name)
    ok, err = catalog.verify(k, out[k.output], inputs)
    assert ok, f"{k.name}: relative error {err:.2e} > {k.rtol}"
    assert not [f for f in launch.findings if "race" in f.kind], launch.findings
    if k.family == "transpose":
        assert err == 0.0  # data movement is exact


@pytest.mark.parametrize("k", KERNELS, ids=lambda k: k.name)
def test_launch_configs_respect_hardware_limits_and_inputs_are_never_zero(k):
    grid, block, shared = k.launch(k.default_size, 132)
    assert block[0] * block[1] * block[2] <= 1024 and shared <= 48 * 1024
    inputs = k.make_inputs(k.sim_size)
    for name, v in inputs.items():
        if name == k.output and k.family != "sgemm" and k.family != "dgemm":
            assert np.isnan(v).all()  # outputs are poisoned before each run
        elif isinstance(v, np.ndarray):
            assert (v != 0).all()


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([k for k in KERNELS if k.family in ("transpose", "vector_add")]), st.integers(1, 300))
def test_index_math_writes_every_output_once_and_stays_in_bounds(k, size):
    """Random sizes (not tile multiples): NaN-poisoned outputs must all be written, exactly."""
    if k.family == "transpose":
        size = size % 97 + 1
    launch, out, inputs = sim.run(k.name, size)  # an out-of-bounds access would raise MemoryFault
    ok, err = catalog.verify(k, out[k.output], inputs)
    assert ok and not np.isnan(out[k.output]).any()


def test_bad_size_names_the_tile():
    with pytest.raises(catalog.CatalogError, match="multiple of 128"):
        catalog.get("sgemm_warptiling").check_size(100)
