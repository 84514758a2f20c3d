// Producer/consumer warps specialised by role, each branch with its own __syncthreads():
// the two halves of the block wait at different barriers.
extern "C" __global__ void split_roles(const float* in, float* out) {
    __shared__ float s[64];
    int t = threadIdx.x;
    if (t < 64) {
        s[t] = in[blockIdx.x * 64 + t] * 2.0f;
        __syncthreads();  // BUG divergent-barrier
    } else {
        __syncthreads();  // BUG divergent-barrier
        out[blockIdx.x * 64 + t - 64] = s[t - 64];
    }
}
