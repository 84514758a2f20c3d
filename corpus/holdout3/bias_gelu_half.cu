// Fused bias + GELU (tanh approximation, as GPT-2 and Megatron's bias_gelu write it) on half
// activations of a rows x cols MLP hidden layer: half2 loads (two columns per thread), the math
// in float, the bias broadcast along the rows, half2 stores.
#include <cuda_fp16.h>

__device__ __forceinline__ float gelu_tanh(float x)
{
    return 0.5f * x * (1.0f + tanhf(0.7978845608f * x * (1.0f + 0.044715f * x * x)));
}

extern "C" __global__ void bias_gelu_half2(const __half2* __restrict__ x, const __half2* __restrict__ bias,
                                           __half2* __restrict__ y, int rows, int cols)
{
    int half_cols = cols / 2;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * half_cols) return;
    float2 v = __half22float2(x[i]);
    float2 b = __half22float2(bias[i % half_cols]);
    y[i] = __halves2half2(__float2half(gelu_tanh(v.x + b.x)), __float2half(gelu_tanh(v.y + b.y)));
}
