// Dot product of two float arrays: float4 (16-byte) loads in a grid-stride loop, a warp-shuffle
// reduction, the warps' sums combined through shared memory by the first warp, then one
// atomicAdd per block into the result (which the host zeroes). n is a multiple of 4.
extern "C" __global__ void dot_float4(const float4* __restrict__ a, const float4* __restrict__ b,
                                      float* __restrict__ result, int n)
{
    __shared__ float warp_sums[32];
    int n4 = n / 4;
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += blockDim.x * gridDim.x) {
        float4 va = a[i];
        float4 vb = b[i];
        sum += va.x * vb.x + va.y * vb.y + va.z * vb.z + va.w * vb.w;
    }
    for (int offset = 16; offset > 0; offset >>= 1)
        sum += __shfl_down_sync(0xffffffff, sum, offset);

    int lane = threadIdx.x & 31;
    int wid = threadIdx.x >> 5;
    if (lane == 0) warp_sums[wid] = sum;
    __syncthreads();
    if (wid == 0) {
        sum = (lane < blockDim.x / 32) ? warp_sums[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset >>= 1)
            sum += __shfl_down_sync(0xffffffff, sum, offset);
        if (lane == 0) atomicAdd(result, sum);
    }
}
