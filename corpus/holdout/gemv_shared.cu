// Matrix-vector product y = A x (A row-major), one thread per row, with x staged through shared
// memory one 256-element tile at a time so that every thread of the block reads the tile from
// shared memory instead of global memory. The block size equals the tile.
#define TILE 256

extern "C" __global__ void gemv_shared_x(const float* __restrict__ A, const float* __restrict__ x,
                                         float* __restrict__ y, int rows, int cols)
{
    __shared__ float xs[TILE];
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    for (int t = 0; t < cols; t += TILE) {
        if (t + threadIdx.x < cols) xs[threadIdx.x] = x[t + threadIdx.x];
        __syncthreads();
        if (row < rows) {
            int len = min(TILE, cols - t);
            for (int j = 0; j < len; ++j)
                sum += A[(size_t)row * cols + t + j] * xs[j];
        }
        __syncthreads();
    }
    if (row < rows) y[row] = sum;
}
