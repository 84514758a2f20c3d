// Bitonic sort of 1024-key segments in shared memory, in the manner of the CUDA samples'
// sortingNetworks (bitonicSortShared): 512 threads per block, each owning one comparator per
// step, 55 compare-exchange steps each behind a __syncthreads(). Keys only, ascending.
#define SHARED_SIZE_LIMIT 1024

__device__ inline void comparator(float& a, float& b, unsigned dir)
{
    if ((a > b) == dir) {
        float t = a;
        a = b;
        b = t;
    }
}

extern "C" __global__ void bitonic_sort_shared(float* __restrict__ d_dst, const float* __restrict__ d_src)
{
    __shared__ float s_key[SHARED_SIZE_LIMIT];
    const unsigned dir = 1;  // ascending
    d_src += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    d_dst += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    s_key[threadIdx.x] = d_src[0];
    s_key[threadIdx.x + SHARED_SIZE_LIMIT / 2] = d_src[SHARED_SIZE_LIMIT / 2];

    for (unsigned size = 2; size < SHARED_SIZE_LIMIT; size <<= 1) {
        // bitonic merge: alternate directions so that each pair of halves forms a bitonic sequence
        unsigned ddd = dir ^ ((threadIdx.x & (size / 2)) != 0);
        for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
            comparator(s_key[pos], s_key[pos + stride], ddd);
        }
    }
    // the last merge sorts the whole segment in the requested direction
    for (unsigned stride = SHARED_SIZE_LIMIT / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
        comparator(s_key[pos], s_key[pos + stride], dir);
    }
    __syncthreads();
    d_dst[0] = s_key[threadIdx.x];
    d_dst[SHARED_SIZE_LIMIT / 2] = s_key[threadIdx.x + SHARED_SIZE_LIMIT / 2];
}
