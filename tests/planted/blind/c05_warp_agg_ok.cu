// Correct: stream compaction with a warp-aggregated atomic inside a data-dependent branch.
// __activemask() names exactly the lanes in the branch; the leader reserves space for all of
// them and broadcasts the base with a shuffle over the same mask.
extern "C" __global__ void compact_pos(const float* in, float* out, unsigned* count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = in[i];
        if (v > 0.0f) {
            unsigned active = __activemask();
            int lane = threadIdx.x & 31;
            int leader = __ffs(active) - 1;
            unsigned base = 0;
            if (lane == leader) base = atomicAdd(count, (unsigned)__popc(active));
            base = __shfl_sync(active, base, leader);
            unsigned rank = __popc(active & ((1u << lane) - 1u));
            out[base + rank] = v;
        }
    }
}
