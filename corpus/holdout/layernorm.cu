// LayerNorm over the last dimension, one warp per row (the "warp per row" layout used when a row
// fits a few registers' worth per lane): pass 1 the mean, pass 2 the variance around it (the
// two-pass form, numerically safer than E[x^2] - E[x]^2), pass 3 normalize, scale and shift.
// Each pass re-reads the row; the warp reductions are butterfly shuffles.
__inline__ __device__ float warp_reduce_sum(float val)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        val += __shfl_xor_sync(0xffffffff, val, offset);
    return val;
}

extern "C" __global__ void layernorm_warp(const float* __restrict__ x, const float* __restrict__ gamma,
                                          const float* __restrict__ beta, float* __restrict__ y,
                                          int rows, int cols, float eps)
{
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;

    float sum = 0.0f;
    for (int j = lane; j < cols; j += 32) sum += xr[j];
    float mean = warp_reduce_sum(sum) / cols;

    float sq = 0.0f;
    for (int j = lane; j < cols; j += 32) {
        float d = xr[j] - mean;
        sq += d * d;
    }
    float var = warp_reduce_sum(sq) / cols;
    float rstd = rsqrtf(var + eps);

    for (int j = lane; j < cols; j += 32)
        yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
}
