// RMS normalization of each row, y = x / sqrt(mean(x^2) + eps) * w: a template over the block
// size with __launch_bounds__, one block per row, warp shuffles then a shared array of warp sums.
template <int BLOCK_SIZE>
__global__ void __launch_bounds__(BLOCK_SIZE) rmsnorm(const float* __restrict__ x, const float* __restrict__ w,
                                                      float* __restrict__ y, int cols, float eps)
{
    __shared__ float warp_sums[BLOCK_SIZE / 32];
    __shared__ float scale;
    const float* row = x + (size_t)blockIdx.x * cols;
    float* orow = y + (size_t)blockIdx.x * cols;
    float ss = 0.0f;
    for (int j = threadIdx.x; j < cols; j += BLOCK_SIZE) { float v = row[j]; ss += v * v; }
    for (int off = 16; off > 0; off >>= 1) ss += __shfl_xor_sync(0xffffffff, ss, off);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = ss;
    __syncthreads();
    if (threadIdx.x < 32) {
        float t = threadIdx.x < BLOCK_SIZE / 32 ? warp_sums[threadIdx.x] : 0.0f;
        for (int off = 16; off > 0; off >>= 1) t += __shfl_xor_sync(0xffffffff, t, off);
        if (threadIdx.x == 0) scale = rsqrtf(t / cols + eps);
    }
    __syncthreads();
    float s = scale;
    for (int j = threadIdx.x; j < cols; j += BLOCK_SIZE) orow[j] = row[j] * s * w[j];
}

