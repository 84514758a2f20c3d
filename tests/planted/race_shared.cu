// Planted bug: the __syncthreads() between writing a shared tile and reading another thread's
// element of it is missing: a read-after-write race between the warps of a block.
extern "C" __global__ void race_shared(float* out, const float* in) {
    __shared__ float tile[128];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    tile[t] = in[i];
    // the __syncthreads() that belongs here is missing
    out[i] = tile[blockDim.x - 1 - t];  // BUG race
}
