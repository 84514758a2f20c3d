// Sorting every 32 consecutive floats in place with a bitonic network held in registers, one key
// per lane, as warp-level top-k and sort building blocks (faiss's WarpSelect, CUB's warp merge)
// exchange keys: for each stage k and step j the partner is lane ^ j, fetched by __shfl_xor_sync,
// and a lane keeps the min or the max depending on its bits: 15 compare-exchange steps per warp.
extern "C" __global__ void warp_bitonic_sort32(float* __restrict__ keys, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    float v = i < n ? keys[i] : __int_as_float(0x7f800000);  // +inf pads a partial warp
#pragma unroll
    for (int k = 2; k <= 32; k <<= 1) {
#pragma unroll
        for (int j = k >> 1; j > 0; j >>= 1) {
            float other = __shfl_xor_sync(0xffffffff, v, j);
            bool ascending = (lane & k) == 0;
            bool lower = (lane & j) == 0;
            v = (lower == ascending) ? fminf(v, other) : fmaxf(v, other);
        }
    }
    if (i < n) keys[i] = v;
}
