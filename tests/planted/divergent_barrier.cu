// Planted bug: __syncthreads() inside a branch that only half of the block takes.
extern "C" __global__ void divergent_barrier(float* out, const float* in) {
    __shared__ float s[128];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 128 + t];
    __syncthreads();
    if (t < 64) {
        s[t] += s[t + 64];
        __syncthreads();  // BUG divergent-barrier
        out[blockIdx.x * 64 + t] = s[t];
    }
}
