// Broadcast of the last valid lane's value in a partial warp: the mask is computed correctly with
// __ballot_sync, but the source lane is hard-coded as lane 31, which is not in the mask for the
// tail warp (n = 40).
extern "C" __global__ void bcast_last(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned m = __ballot_sync(0xffffffff, i < n);
    if (i < n) {
        float v = in[i];
        float last = __shfl_sync(m, v, 31);  // BUG warp-sync
        out[i] = v - last;
    }
}
