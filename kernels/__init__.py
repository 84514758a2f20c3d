"""Real CUDA kernels with a catalog that says how to launch, feed and check each one."""
import cudasim  # noqa: F401 - first: a Ctrl-C while a `python -m` command loads is one line (cudasim/__init__)
