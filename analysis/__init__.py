"""analysis: pure models over cudasim traces, ptxas resources and the GPU table.

    analysis.pipeline   TARGET -> one ResolvedLaunch -> one compile -> one simulation -> models
    analysis.models     one module per model, each declaring the ncu metrics it predicts
    analysis.registry   finds the models; the CLI, compare and collect_ncu read metrics there
    analysis.draw       pictures of one warp (text, Mermaid, SVG), apart from the models

`python -m analysis.<model> TARGET` (or `python -m analysis MODEL TARGET`) runs a model:
coalescing (global sectors and requests), banks (shared wavefronts and conflicts),
occupancy (resident blocks, waves); `python -m analysis.compare` sets the predictions
beside ncu measurements. Numbers are named by the Nsight Compute metrics they predict so
that predicted and measured tables line up.
"""
import cudasim  # noqa: F401 - first: a Ctrl-C while a `python -m` command loads is one line (cudasim/__init__)
