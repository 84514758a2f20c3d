"""The CPU backend: run a catalog kernel in cudasim through the same entry the GPU runner uses."""
from __future__ import annotations

import numpy as np

from cudasim.gpus import GPU, get_gpu

from . import catalog

SIM_SMS = get_gpu().sms  # launch configurations that depend on the SM count are sized for the default GPU row


def module(k: catalog.Kernel, arch: str | None = None):
    from cudasim import SourceModule

    return SourceModule(catalog.source(k), options=catalog.options(k), no_extern_c=True, filename=str(k.path),
                        arch=arch)


def run(name: str, size: int | None = None, run_blocks=None, trace_blocks=None, seed: int = 0,
        gpu: GPU | None = None, **launch_kw):
    """Simulate `name` at `size` (default: its sim size) as launched on `gpu` (default: the
    table's default row): its SM count sizes the launch, its architecture is compiled for.
    Returns (launch, outputs, inputs).

    `run_blocks` (linear block ids) restricts the simulation; outputs are then only partly
    written. Extra keywords (check=, trace=) go to the launch.
    """
    gpu = gpu or get_gpu()
    k = catalog.get(name)
    size = size or k.sim_size
    inputs = k.make_inputs(size, seed)
    arrays = {key: (v.copy() if isinstance(v, np.ndarray) else v) for key, v in inputs.items()}
    grid, block, shared = k.launch(size, gpu.sms)
    f = module(k, gpu.arch).get_function(k.entry)
    launch = f(*k.args(arrays, size), block=block, grid=grid, shared=shared, run_blocks=run_blocks,
               trace_blocks=trace_blocks, **launch_kw)
    return launch, {k.output: arrays[k.output]}, inputs
