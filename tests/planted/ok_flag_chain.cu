// Correct: a chained scan of block sums, each block waiting for the one before it. Block b's
// thread 0 spins on a volatile flag that block b-1 raises after a fence, reads block b-1's running
// total, and publishes its own the same way.
extern "C" __global__ void ok_flag_chain(volatile int* ready, float* running, const float* in, int n) {
    __shared__ float s[128];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int off = 64; off > 0; off >>= 1) {
        if (t < off) s[t] += s[t + off];
        __syncthreads();
    }
    if (t == 0) {
        float before = 0.0f;
        if (blockIdx.x > 0) {
            while (ready[blockIdx.x - 1] == 0) { }
            __threadfence();
            before = running[blockIdx.x - 1];
        }
        running[blockIdx.x] = before + s[0];
        __threadfence();
        ready[blockIdx.x] = 1;
    }
}
