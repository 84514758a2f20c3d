// Quantization of float activations to llama.cpp's q8_1 blocks, as its quantize_q8_1 kernel
// does: one thread per value, a warp per 32-value block reducing the absolute max and the sum by
// xor shuffles, each value rounded to int8 with d = amax / 127, and lane 0 writing (d, sum) as a
// half2 beside the 32 quants (36-byte blocks). blockIdx.y is the row.
#include <cuda_fp16.h>

typedef signed char int8_t;
typedef long long int64_t;

#define QK8_1 32
#define WARP_SIZE 32

typedef struct {
    half2 ds;           // (d, sum)
    int8_t qs[QK8_1];   // quants
} block_q8_1;

__device__ __forceinline__ float warp_reduce_sum(float x)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffff, x, offset, 32);
    return x;
}

__device__ __forceinline__ float warp_reduce_max(float x)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) x = fmaxf(x, __shfl_xor_sync(0xffffffff, x, offset, 32));
    return x;
}

extern "C" __global__ void quantize_q8_1(const float* __restrict__ x, void* __restrict__ vy, const int64_t kx,
                                         const int64_t kx0_padded)
{
    const int64_t ix0 = (int64_t)blockDim.x * blockIdx.x + threadIdx.x;
    if (ix0 >= kx0_padded) return;
    const int64_t ix1 = blockIdx.y;
    const int64_t i_padded = ix1 * kx0_padded + ix0;
    block_q8_1* y = (block_q8_1*)vy;
    const int64_t ib = i_padded / QK8_1;   // block index
    const int64_t iqs = i_padded % QK8_1;  // quant index

    const float xi = ix0 < kx ? x[ix1 * kx + ix0] : 0.0f;
    float amax = fabsf(xi);
    float sum = xi;
    amax = warp_reduce_max(amax);
    sum = warp_reduce_sum(sum);

    const float d = amax / 127;
    const int8_t q = amax == 0.0f ? 0 : roundf(xi / d);
    y[ib].qs[iqs] = q;
    if (iqs > 0) return;
    reinterpret_cast<half&>(y[ib].ds.x) = d;
    reinterpret_cast<half&>(y[ib].ds.y) = sum;
}
