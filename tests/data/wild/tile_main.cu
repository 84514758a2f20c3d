// Device code only: the template kernel comes from a header beside this file.
#include "tile_kernels.cuh"

template __global__ void reverse_tiles<128, 4>(float* __restrict__, const float* __restrict__, int);
