"""analysis: pure models over cudasim traces, ptxas resources and a hardware table.

Each model is a module with `python -m analysis.<model>`: coalescing (global sectors and
requests), banks (shared wavefronts and conflicts), occupancy (resident blocks, waves),
compare (predictions against ncu measurements). Numbers are named by the Nsight Compute
metrics they predict so that predicted and measured tables line up.
"""
