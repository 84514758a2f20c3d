// 1D 7-point stencil (radius 3): each block stages its tile plus a halo of RADIUS on each side in
// shared memory, then every thread sums 2*RADIUS+1 neighbours from shared memory.
#define RADIUS 3
#define BLOCK 256

extern "C" __global__ void stencil1d(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float tile[BLOCK + 2 * RADIUS];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    tile[l] = (g < n) ? in[g] : 0.0f;
    if (threadIdx.x < RADIUS) {
        int left = g - RADIUS, right = g + BLOCK;
        tile[l - RADIUS] = (left >= 0) ? in[left] : 0.0f;
        tile[l + BLOCK] = (right < n) ? in[right] : 0.0f;
    }
    __syncthreads();
    if (g < n) {
        float s = 0.0f;
        for (int k = -RADIUS; k <= RADIUS; ++k) s += tile[l + k];
        out[g] = s;
    }
}
