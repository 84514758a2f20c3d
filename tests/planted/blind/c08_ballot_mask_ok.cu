// Correct: shuffle reduction over a partial tail warp. The mask of valid lanes is taken with
// __ballot_sync before the branch, and each shuffle only reads lanes that are in the mask
// (source lane checked against it).
extern "C" __global__ void tail_sum(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    unsigned m = __ballot_sync(0xffffffff, i < n);
    if (i < n) {
        float v = in[i];
        for (int off = 16; off > 0; off >>= 1) {
            float o = __shfl_down_sync(m, v, off);
            if (lane + off < 32 && ((m >> (lane + off)) & 1u)) v += o;
        }
        if (lane == 0) atomicAdd(out, v);
    }
}
