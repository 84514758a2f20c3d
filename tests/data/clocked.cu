// A kernel that times itself with clock64() and says which SM it ran on: values the simulator cannot know.
extern "C" __global__ void clocked(long long *out, unsigned *ids) {
    long long t0 = clock64();
    float v = threadIdx.x;
    for (int i = 0; i < 100; ++i) v = v * 1.0001f + 0.5f;
    out[blockIdx.x * blockDim.x + threadIdx.x] = clock64() - t0 + (v > 1e30f);
    unsigned smid;
    asm("mov.u32 %0, %%smid;" : "=r"(smid));
    ids[blockIdx.x * blockDim.x + threadIdx.x] = smid;
}
