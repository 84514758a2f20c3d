// Planted bug: a stencil over a shared tile without a halo: the last thread reads one element
// past the end of the tile.
extern "C" __global__ void oob_shared(float* out, const float* in) {
    __shared__ float s[128];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = in[i];
    __syncthreads();
    out[i] = s[t] + s[t + 1];  // BUG out-of-bounds
}
