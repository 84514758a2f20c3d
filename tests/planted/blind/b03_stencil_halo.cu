// 1D 7-point stencil with a shared tile and halos of RADIUS on each side. The right halo is
// loaded without checking the end of the array: the last block reads past `in`.
#define RADIUS 3
#define BLOCK 128
extern "C" __global__ void stencil1d(const float* in, float* out, int n) {
    __shared__ float tmp[BLOCK + 2 * RADIUS];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    tmp[l] = g < n ? in[g] : 0.0f;
    if (threadIdx.x < RADIUS) {
        tmp[l - RADIUS] = g >= RADIUS ? in[g - RADIUS] : 0.0f;
        tmp[l + BLOCK] = in[g + BLOCK];  // BUG out-of-bounds
    }
    __syncthreads();
    if (g < n) {
        float r = 0.0f;
        for (int o = -RADIUS; o <= RADIUS; o++) r += tmp[l + o];
        out[g] = r;
    }
}
