// Correct: block reduction with cooperative groups: tiled_partition<32> shuffles (all lanes of
// the tile take part) and block.sync() between the phases.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void cg_reduce(const float* in, float* out, int n) {
    __shared__ float warp_sums[4];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    for (int off = tile.size() / 2; off > 0; off >>= 1) v += tile.shfl_down(v, off);
    if (tile.thread_rank() == 0) warp_sums[tile.meta_group_rank()] = v;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        v = tile.thread_rank() < 4 ? warp_sums[tile.thread_rank()] : 0.0f;
        for (int off = 16; off > 0; off >>= 1) v += tile.shfl_down(v, off);
        if (tile.thread_rank() == 0) out[blockIdx.x] = v;
    }
}
