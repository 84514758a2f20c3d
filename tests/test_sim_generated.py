"""Kernels nobody tuned the simulator for: random index arithmetic and float math.

Each generated kernel is compiled by NVRTC and run by cudasim; its output must equal an
independent Python model of the same C expression (bit for bit for integers, within 1 ulp
for floats, the bound the simulator promises against the GPU).
"""
import numpy as np
from hypothesis import HealthCheck, given, settings

from cudasim import SourceModule
from kernels.differential import ulp_diff
from kernels.generated import kernels


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernels(kinds=("u32",)))
def test_generated_integer_kernels_match_the_c_model_exactly(k):
    _check(k, max_ulp=0)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernels(kinds=("f32",)))
def test_generated_float_kernels_match_the_c_model_within_one_ulp(k):
    _check(k, max_ulp=1)


def _check(k, max_ulp):
    rng = np.random.default_rng(1)
    inputs = k.inputs(rng)
    out = np.full(k.n, 0xDEADBEEF, np.uint32).view(np.uint32 if k.kind == "u32" else np.float32)
    f = SourceModule(k.source, options=list(k.options), no_extern_c=True).get_function(k.name)
    f(out, *inputs.values(), np.uint32(k.n), block=(k.block, 1, 1), grid=(k.grid, 1))
    want = k.expected(inputs)
    d = ulp_diff(want, out)
    assert d.max() <= max_ulp, f"{k.expr.c}: worst lane {int(d.argmax())}: got {out[d.argmax()]}, want {want[d.argmax()]}"
