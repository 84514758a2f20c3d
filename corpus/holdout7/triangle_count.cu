// Triangle counting by edge iteration with sorted-list intersection, as GPU graph codes write it
// (the GraphChallenge baselines, Gunrock's TC): the graph relabelled by degree and oriented from
// lower to higher label (each triangle found once), its CSR adjacency sorted. One thread per
// directed edge u -> v merges N+(u) with N+(v): a while loop whose trip count and branches follow
// the two lists' contents. Counts are summed by warp shuffles and a shared array, and one thread
// per block adds the block's count to the 64-bit total with an atomic.
#define BLOCK 256

extern "C" __global__ void triangle_count_edge(const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                                               const int* __restrict__ edge_src, int num_edges,
                                               unsigned long long* __restrict__ total)
{
    __shared__ unsigned int warp_sums[BLOCK / 32];
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int count = 0;
    if (e < num_edges) {
        const int u = edge_src[e];
        const int v = col_idx[e];
        int i = row_ptr[u], i_end = row_ptr[u + 1];
        int j = row_ptr[v], j_end = row_ptr[v + 1];
        while (i < i_end && j < j_end) {
            const int a = col_idx[i];
            const int b = col_idx[j];
            if (a == b) {
                ++count;
                ++i;
                ++j;
            } else if (a < b) {
                ++i;
            } else {
                ++j;
            }
        }
    }
    for (int offset = 16; offset > 0; offset >>= 1)
        count += __shfl_down_sync(0xffffffff, count, offset);
    if ((threadIdx.x & 31) == 0)
        warp_sums[threadIdx.x >> 5] = count;
    __syncthreads();
    if (threadIdx.x < 32) {
        count = threadIdx.x < BLOCK / 32 ? warp_sums[threadIdx.x] : 0;
        for (int offset = 16; offset > 0; offset >>= 1)
            count += __shfl_down_sync(0xffffffff, count, offset);
        if (threadIdx.x == 0)
            atomicAdd(total, (unsigned long long)count);
    }
}
