// The first pass of a two-pass, order-preserving stream compaction (copy_if): each 1024-thread
// block compacts its own 1024 elements. A warp's keep flags become one __ballot_sync word, a lane's
// rank is the __popc of the flags below it, the 32 warp counts are scanned by the first warp
// with shuffles, and each kept element is stored at its block's offset; the block's count is
// written for the second pass (which would scan the counts and move the blocks together).
#define BLOCK 1024

extern "C" __global__ void compact_block_ballot(const float* __restrict__ in, float* __restrict__ out,
                                                int* __restrict__ block_counts, int n, float threshold)
{
    __shared__ int warp_offsets[BLOCK / 32];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float v = i < n ? in[i] : 0.0f;
    bool keep = i < n && v > threshold;
    unsigned int ballot = __ballot_sync(0xffffffff, keep);
    int rank = __popc(ballot & ((1u << lane) - 1));
    if (lane == 0) warp_offsets[warp] = __popc(ballot);
    __syncthreads();
    if (warp == 0) {
        int count = warp_offsets[lane];
        int scan = count;
        for (int offset = 1; offset < 32; offset <<= 1) {
            int t = __shfl_up_sync(0xffffffff, scan, offset);
            if (lane >= offset) scan += t;
        }
        warp_offsets[lane] = scan - count;  // exclusive
        if (lane == 31) block_counts[blockIdx.x] = scan;
    }
    __syncthreads();
    if (keep) out[blockIdx.x * BLOCK + warp_offsets[warp] + rank] = v;
}
