// Number of set bits in a bitmap of 32-bit words: __popc of each word in a grid-stride loop,
// the thread counts summed across the warp by shuffles, then one atomicAdd per warp into a 64-bit
// total (which the host zeroes).
extern "C" __global__ void popcount_reduce(const unsigned int* __restrict__ in, unsigned long long* __restrict__ total,
                                           int n)
{
    unsigned int count = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        count += __popc(in[i]);
    for (int offset = 16; offset > 0; offset >>= 1)
        count += __shfl_down_sync(0xffffffff, count, offset);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(total, (unsigned long long)count);
}
