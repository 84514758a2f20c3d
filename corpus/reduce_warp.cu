// Sum of an array: grid-stride accumulation per thread, a warp-shuffle reduction, then one
// atomicAdd per warp into the single result (which the host zeroes).
__inline__ __device__ float warp_sum(float v)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffff, v, off);
    return v;
}

extern "C" __global__ void reduce_warp_atomic(const float* __restrict__ in, float* __restrict__ result, int n)
{
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0) atomicAdd(result, v);
}
