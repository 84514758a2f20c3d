// Warp-shuffle dot product; the shuffle is inside the bounds check, but still names all 32 lanes.
// With n = 100 the last warp has only 4 active lanes.
extern "C" __global__ void dot_warp(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = a[i] * b[i];
        for (int off = 16; off > 0; off >>= 1)
            v += __shfl_down_sync(0xffffffff, v, off);  // BUG warp-sync
        if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
    }
}
