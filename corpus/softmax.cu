// Row softmax: one block per row of a rows x cols matrix; block-wide max and sum through shared
// memory. softmax_rows uses expf (accurate); softmax_rows_fast the same code with __expf.
#define BLOCK 256

__device__ float block_max(float v, float* red)
{
    red[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    float r = red[0];
    __syncthreads();
    return r;
}

__device__ float block_sum(float v, float* red)
{
    red[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    float r = red[0];
    __syncthreads();
    return r;
}

extern "C" __global__ void softmax_rows(const float* __restrict__ x, float* __restrict__ y, int cols)
{
    __shared__ float red[BLOCK];
    const float* row = x + (size_t)blockIdx.x * cols;
    float* orow = y + (size_t)blockIdx.x * cols;
    float m = -3.402823466e+38f;  // -FLT_MAX
    for (int j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, row[j]);
    m = block_max(m, red);
    float s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) s += expf(row[j] - m);
    s = block_sum(s, red);
    float inv = 1.0f / s;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) orow[j] = expf(row[j] - m) * inv;
}

extern "C" __global__ void softmax_rows_fast(const float* __restrict__ x, float* __restrict__ y, int cols)
{
    __shared__ float red[BLOCK];
    const float* row = x + (size_t)blockIdx.x * cols;
    float* orow = y + (size_t)blockIdx.x * cols;
    float m = -3.402823466e+38f;  // -FLT_MAX
    for (int j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, row[j]);
    m = block_max(m, red);
    float s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) s += __expf(row[j] - m);
    s = block_sum(s, red);
    float inv = 1.0f / s;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) orow[j] = __expf(row[j] - m) * inv;
}
