// Dot product of two double arrays, the "CUDA by Example" shape (Sanders & Kandrot, chapter 5)
// in double precision: a grid-stride loop of products, a tree reduction of the block's 256 sums in
// shared memory, and one partial sum per block written out; the host adds the partials.
#define THREADS_PER_BLOCK 256

extern "C" __global__ void dot_double_partials(const double* a, const double* b, double* partial, int n)
{
    __shared__ double cache[THREADS_PER_BLOCK];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    int cacheIndex = threadIdx.x;

    double temp = 0;
    while (tid < n) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * gridDim.x;
    }
    cache[cacheIndex] = temp;
    __syncthreads();

    int i = blockDim.x / 2;
    while (i != 0) {
        if (cacheIndex < i)
            cache[cacheIndex] += cache[cacheIndex + i];
        __syncthreads();
        i /= 2;
    }
    if (cacheIndex == 0)
        partial[blockIdx.x] = cache[0];
}
