// A compute-bound probe for the timing model: eight independent FMA chains per thread,
// 1024 FFMA per loop trip, one store per thread at the end (tests/test_timing.py).
extern "C" __global__ void fma_chain(float *out, int iters)
{
    float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < 128; ++j) {
            a0 = fmaf(a0, 0.999f, 0.5f); a1 = fmaf(a1, 0.999f, 0.5f); a2 = fmaf(a2, 0.999f, 0.5f);
            a3 = fmaf(a3, 0.999f, 0.5f); a4 = fmaf(a4, 0.999f, 0.5f); a5 = fmaf(a5, 0.999f, 0.5f);
            a6 = fmaf(a6, 0.999f, 0.5f); a7 = fmaf(a7, 0.999f, 0.5f);
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
