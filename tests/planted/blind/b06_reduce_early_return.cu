// Block sum with an early exit for the tail: threads past n leave before the barriers, the
// others wait at __syncthreads() for them (n = 300, blocks of 128: the last block is partial).
extern "C" __global__ void block_sum(const float* x, float* sums, int n) {
    __shared__ float s[128];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (i >= n) return;
    s[t] = x[i];
    __syncthreads();  // BUG divergent-barrier
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) sums[blockIdx.x] = s[0];
}
