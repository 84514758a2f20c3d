// Correct: 1D stencil with guarded halo loads, n not a multiple of the block; threads past n
// stay for the barrier and only skip the store.
#define RADIUS 3
#define BLOCK 128
extern "C" __global__ void stencil_ok(const float* in, float* out, int n) {
    __shared__ float tmp[BLOCK + 2 * RADIUS];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    tmp[l] = g < n ? in[g] : 0.0f;
    if (threadIdx.x < RADIUS) {
        int gl = g - RADIUS, gr = g + BLOCK;
        tmp[l - RADIUS] = (gl >= 0 && gl < n) ? in[gl] : 0.0f;
        tmp[l + BLOCK] = gr < n ? in[gr] : 0.0f;
    }
    __syncthreads();
    if (g < n) {
        float r = 0.0f;
        for (int o = -RADIUS; o <= RADIUS; o++) r += tmp[l + o];
        out[g] = r;
    }
}
