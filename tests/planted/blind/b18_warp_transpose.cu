// Per-warp reversal through shared memory, written assuming a warp is in lock step: each lane
// writes its slot and reads the mirror slot with no __syncwarp() between.
extern "C" __global__ void warp_reverse(const float* in, float* out) {
    __shared__ float s[4][32];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    s[w][lane] = in[g];
    out[g] = s[w][31 - lane];  // BUG race
}
