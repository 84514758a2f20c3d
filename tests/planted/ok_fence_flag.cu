// Correct: the last-block reduction of CUDA's threadFenceReduction sample. Each block stores
// its partial sum, fences, and takes a ticket; the block that takes the last ticket knows
// every partial sum is visible and adds them up, then resets the counter.
extern "C" __global__ void ok_fence_flag(float* partial, unsigned* ticket, float* out, const float* in, int n) {
    __shared__ float s[128];
    __shared__ bool last;
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int off = 64; off > 0; off >>= 1) {
        if (t < off) s[t] += s[t + off];
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = s[0];
        __threadfence();
        unsigned k = atomicInc(ticket, gridDim.x);
        last = (k == gridDim.x - 1);
    }
    __syncthreads();
    if (last && t == 0) {
        float sum = 0.0f;
        for (int b = 0; b < gridDim.x; b++) sum += partial[b];
        out[0] = sum;
        *ticket = 0u;
    }
}
