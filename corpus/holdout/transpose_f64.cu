// Out-of-place transpose of a row-major matrix of doubles through a shared-memory tile, as in
// NVIDIA's "An Efficient Matrix Transpose in CUDA C/C++" (transposeNoBankConflicts: 32x32 tile
// padded by one column, 32x8 threads each moving 4 elements), with bounds for any shape.
// idata is height x width; odata is width x height.
#define TILE_DIM 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose_tiled_f64(double* __restrict__ odata, const double* __restrict__ idata,
                                               int width, int height)
{
    __shared__ double tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height)
            tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    __syncthreads();

    x = blockIdx.y * TILE_DIM + threadIdx.x;  // transposed block offset
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width)
            odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
