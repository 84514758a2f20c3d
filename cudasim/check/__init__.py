"""cudasim.check: a compute-sanitizer that runs on the CPU, over the simulator's every access.

    python -m cudasim.check my.cu::kernel --grid 64 --block 256 [--arg n=4096] [--json]
    python -m cudasim.check transpose_tiled                 # a catalog name
    launch = f(Out(out), In(a), block=..., grid=..., check="full"); launch.findings

Findings, each of one kind: race (shared memory between warps and between the lanes of a
warp; global memory between blocks and threads), out-of-bounds, misaligned,
divergent-barrier, uninitialized (shared; global memory the host did not copy in),
warp-sync (shuffle, vote, __syncwarp masks). Each names the source line, the PTX
instruction and the threads; a race both sides. The run goes on past a finding.
"""
from .findings import KINDS, Finding, Side

__all__ = ["KINDS", "Finding", "Side"]
