"""Real CUDA kernels with a catalog that says how to launch, feed and check each one."""
