// Privatized histogram: each block builds its histogram in shared memory with shared atomics
// (fine), then merges into the global histogram with a plain += (not atomic): blocks race.
#define NBINS 16
extern "C" __global__ void histo_private(const unsigned* data, unsigned* hist, int n) {
    __shared__ unsigned sh[NBINS];
    int t = threadIdx.x;
    if (t < NBINS) sh[t] = 0u;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&sh[data[i] % NBINS], 1u);
    __syncthreads();
    if (t < NBINS) hist[t] += sh[t];  // BUG race
}
