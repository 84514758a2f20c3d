// Shared-memory transpose; the padding to avoid bank conflicts was added to the indexing
// (TILE+1 per row) but not to the declaration: the last rows index past the tile.
#define TILE 32
#define ROWS 8
extern "C" __global__ void transpose_pad(float* odata, const float* idata, int width, int height) {
    __shared__ float tile[TILE * TILE];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[(threadIdx.y + j) * (TILE + 1) + threadIdx.x] = idata[(y + j) * width + x];  // BUG out-of-bounds
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        odata[(y + j) * height + x] = tile[threadIdx.x * (TILE + 1) + threadIdx.y + j];  // BUG out-of-bounds
}
