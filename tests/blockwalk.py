"""One block of a launch as analysis.memaccess sees it: the sampled simulation, each warp's SASS stream
(its PTX path replayed on the SASS graph) and the block's accesses, for tests that check what a warp's
memory instructions are charged."""
import pytest

from needs import need_nvrtc


def walk_block(spec: str, grid, block, args: dict):
    """(sampled simulation, BlockAccesses of block 0, per-warp SASS streams) of `spec` (path.cu::kernel)."""
    need_nvrtc()
    from analysis import memaccess, pipeline, sass, sassflow
    if sass.find_nvdisasm() is None:
        pytest.skip("nvdisasm is not installed (pip: nvidia-cuda-nvdisasm)")
    s = pipeline.simulate_sampled(pipeline.resolve_file(spec, grid, block, 0, {}, args))
    p = s.program
    walker = sassflow.Walker.build(sassflow.sass_graph(s.listing), s.body, p.cfg, p.fn.labels, p.run_end)
    path = s.result.stats["followed"][0]
    acc = memaccess.BlockAccesses(s.result.trace, 0, 30.0, 26.0, 28.0, memaccess.bypass_keys(s.listing),
                                  memaccess.leader_elected(s.listing))
    warps = -(-block[0] * block[1] * block[2] // 32)
    streams = [walker.stream([pc for pc, bits in path if bits >> w & 1]).tolist() for w in range(warps)]
    return s, acc, streams
