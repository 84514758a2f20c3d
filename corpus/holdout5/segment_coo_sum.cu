// Segmented sum over a sorted index (torch_scatter's segment_coo with reduce="sum", one
// dimension): one thread per entry; inside each warp a Hillis-Steele inclusive scan with
// __shfl_up_sync adds a lane's value into its right neighbours' only while their indices match (the
// index is sorted, so equal indices are contiguous), and the last lane of every run in the warp
// adds the run's partial sum into out[index] with one atomicAdd. Segments of variable length that
// straddle warps are joined by those atomics. D is the index's last dimension (the whole 1-D
// index here); the host zeroes out.
#define FULL_MASK 0xffffffff

extern "C" __global__ void segment_coo_sum(const float* __restrict__ src_data, const long long* __restrict__ index_data,
                                           float* out_data, int D, size_t E, size_t N)
{
    int row_idx = blockIdx.x * blockDim.x + threadIdx.x;
    int lane_idx = row_idx & (32 - 1);

    if (row_idx < E) {
        long long idx = index_data[row_idx], next_idx;
        int out_idx = (row_idx / D) * N + idx;

        float val = src_data[row_idx], tmp;

#pragma unroll
        for (int i = 1; i < 32; i *= 2) {
            // Parallel reduction inside a single warp.
            tmp = __shfl_up_sync(FULL_MASK, val, i);
            next_idx = __shfl_up_sync(FULL_MASK, idx, i);
            if (lane_idx >= i && row_idx / D == (row_idx - i) / D) {
                if (idx == next_idx)
                    val += tmp;
            }
        }

        next_idx = __shfl_down_sync(FULL_MASK, idx, 1);
        if (lane_idx == 32 - 1 || row_idx / D != (row_idx + 1) / D || idx != next_idx)
            atomicAdd(out_data + out_idx, val);
    }
}
