// Pairwise Euclidean distances between the rows of X (m x d) and Y (n x d), as torch.cdist(p=2)
// computes them without the matmul trick: the output in 16 x 16 tiles, the two row panels staged
// through shared memory 16 features at a time like a tiled matrix multiply (Y's tile padded to 17
// columns against bank conflicts), a squared difference accumulated per feature, sqrtf at the end.
#define TILE 16

extern "C" __global__ void cdist_tiled(const float* __restrict__ X, const float* __restrict__ Y,
                                       float* __restrict__ D, int m, int n, int d)
{
    __shared__ float xs[TILE][TILE];
    __shared__ float ys[TILE][TILE + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;  // a row of X
    int col = blockIdx.x * TILE + tx;  // a row of Y
    int ycol = blockIdx.x * TILE + ty;  // the row of Y this thread stages
    float acc = 0.0f;
    for (int k0 = 0; k0 < d; k0 += TILE) {
        xs[ty][tx] = (row < m && k0 + tx < d) ? X[(size_t)row * d + k0 + tx] : 0.0f;
        ys[ty][tx] = (ycol < n && k0 + tx < d) ? Y[(size_t)ycol * d + k0 + tx] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; k++) {
            float diff = xs[ty][k] - ys[tx][k];
            acc += diff * diff;
        }
        __syncthreads();
    }
    if (row < m && col < n) D[(size_t)row * n + col] = sqrtf(acc);
}
