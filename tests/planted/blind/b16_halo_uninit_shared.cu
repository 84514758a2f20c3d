// 3-point smoothing through shared memory; the interior is loaded but the two halo cells
// tile[0] and tile[BS+1] are never filled (the halo load was forgotten).
#define BS 64
extern "C" __global__ void smooth3(const float* in, float* out, int n) {
    __shared__ float tile[BS + 2];
    int t = threadIdx.x;
    int g = blockIdx.x * BS + t;
    tile[t + 1] = in[g];
    __syncthreads();
    out[g] = (tile[t] + tile[t + 1] + tile[t + 2]) * (1.0f / 3.0f);  // BUG uninitialized
}
