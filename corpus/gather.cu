// Gather: out[i] = src[idx[i]] with the indices supplied as data (random here).
extern "C" __global__ void gather(const float* __restrict__ src, const int* __restrict__ idx,
                                  float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = src[idx[i]];
}
