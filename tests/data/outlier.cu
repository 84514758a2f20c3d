// One block of the grid runs its loop a thousand times longer than the others: the kernel lasts as long as it.
extern "C" __global__ void slow_block(float *out, int iters, int slow) {
    float v = threadIdx.x;
    int n = blockIdx.x == slow ? iters * 1000 : iters;
    for (int i = 0; i < n; ++i) v = v * 0.9999f + 0.5f;
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
// The same with loads in the loop: the counts line must hold the slow block's loads too.
extern "C" __global__ void slow_loads(const float *in, float *out, int iters, int slow) {
    float v = 0.f;
    int n = blockIdx.x == slow ? iters * 100 : iters;
    for (int i = 0; i < n; ++i) v += in[(i * 32 + threadIdx.x) & 4095];
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
