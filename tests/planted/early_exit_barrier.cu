// Planted bug: threads past the end of the data return before a __syncthreads() that the
// rest of the block then waits at (the last block is partly out of range).
extern "C" __global__ void early_exit_barrier(float* out, const float* in, int n) {
    __shared__ float s[128];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    if (i >= n) return;
    s[t] = in[i];
    __syncthreads();  // BUG divergent-barrier
    out[i] = s[t ^ 1];
}
