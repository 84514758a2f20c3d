// Planted bug: the pre-Volta warp-synchronous reduction. `volatile` and "a warp runs in lock
// step" once made it work; since Volta the lanes of a warp are not in lock step, and nothing
// (no __syncwarp) orders one lane's write with another lane's read.
extern "C" __global__ void race_warp(float* out, const float* in) {
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    if (t < 32) {
        volatile float* v = s;
        v[t] += v[t + 32];
        v[t] += v[t + 16];  // BUG race
        v[t] += v[t + 8];
        v[t] += v[t + 4];
        v[t] += v[t + 2];
        v[t] += v[t + 1];
        if (t == 0) out[blockIdx.x] = v[0];
    }
}
