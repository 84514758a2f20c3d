// Planted bug: a race between blocks through global memory. Every block stores its partial
// sum, and block 0 adds them up at once, with nothing that waits for the other blocks (no
// atomic ticket, no fence and flag, no second launch).
extern "C" __global__ void race_global(float* partial, float* out, const float* in) {
    __shared__ float s[128];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 128 + t];
    __syncthreads();
    for (int off = 64; off > 0; off >>= 1) {
        if (t < off) s[t] += s[t + off];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
    if (blockIdx.x == 0 && t == 0) {
        float sum = 0.0f;
        for (int b = 0; b < gridDim.x; b++) sum += partial[b];  // BUG race
        out[0] = sum;
    }
}
