// A fused bias + dropout + residual add on fp16 activations (the epilogue of a transformer
// block's attention or MLP output: out = residual + dropout(x + bias)), as fused-kernel libraries
// write it with a counter-based hash RNG instead of curand: two elements per thread as half2,
// each element's uniform from a 32-bit integer hash (Wellons' lowbias32) of seed and element
// index, kept with probability 1 - p and scaled by 1 / (1 - p), the keep mask stored as bytes for
// the backward pass; the arithmetic in float.
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned int lowbias32(unsigned int x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

__device__ __forceinline__ float uniform01(unsigned int seed, unsigned int i)
{
    return (lowbias32(seed ^ lowbias32(i)) >> 8) * (1.0f / 16777216.0f);  // 24 bits, in [0, 1)
}

extern "C" __global__ void bias_dropout_residual_half2(const __half2* __restrict__ x, const __half2* __restrict__ bias,
                                                       const __half2* __restrict__ residual, __half2* __restrict__ out,
                                                       uchar2* __restrict__ mask, int rows, int cols, float p,
                                                       unsigned int seed)
{
    const int half_cols = cols / 2;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * half_cols) return;

    const float scale = 1.0f / (1.0f - p);
    float2 v = __half22float2(x[i]);
    float2 b = __half22float2(bias[i % half_cols]);
    float2 r = __half22float2(residual[i]);

    const bool keep0 = uniform01(seed, 2 * i) >= p;
    const bool keep1 = uniform01(seed, 2 * i + 1) >= p;

    float o0 = r.x + (keep0 ? (v.x + b.x) * scale : 0.0f);
    float o1 = r.y + (keep1 ? (v.y + b.y) * scale : 0.0f);

    out[i] = __halves2half2(__float2half(o0), __float2half(o1));
    mask[i] = make_uchar2(keep0, keep1);
}
