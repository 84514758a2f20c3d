// A template kernel with launch bounds computed from its parameter, in a header with include guards.
#ifndef WILD_TILE_KERNELS_CUH
#define WILD_TILE_KERNELS_CUH

#include "tile_kernels.cuh"  // a header that includes itself: the guard stops the compiler, the reader must stop too

// Each block reverses BLOCK * ITEMS floats through shared memory; threads of a row read a column of the tile.
template <int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK * 2) reverse_tiles(float* __restrict__ out, const float* __restrict__ in, int n)
{
    __shared__ float tile[ITEMS][BLOCK];
    const int base = blockIdx.x * BLOCK * ITEMS;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        int i = base + k * BLOCK + threadIdx.x;
        tile[k][threadIdx.x] = i < n ? in[i] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        int i = base + k * BLOCK + threadIdx.x;
        if (i < n) out[i] = tile[ITEMS - 1 - k][BLOCK - 1 - threadIdx.x];
    }
}

#endif  // WILD_TILE_KERNELS_CUH
