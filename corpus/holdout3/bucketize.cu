// torch.bucketize / searchsorted (left) of float values in one sorted boundary array, as ATen's
// searchsorted_cuda_kernel does it: a grid-stride loop over the values, a binary search per
// value (every probe's address depends on the last comparison), int64 positions out.
extern "C" __global__ void bucketize_lower_bound(long long* __restrict__ data_out, const float* __restrict__ data_in,
                                                 const float* __restrict__ data_bd, long long idim_bd,
                                                 long long numel_in)
{
    for (long long tid = blockIdx.x * blockDim.x + threadIdx.x; tid < numel_in; tid += blockDim.x * gridDim.x) {
        const float val = data_in[tid];
        long long start = 0, end = idim_bd;
        while (start < end) {
            const long long mid = start + ((end - start) >> 1);
            const float mid_val = data_bd[mid];
            if (!(mid_val >= val))
                start = mid + 1;
            else
                end = mid;
        }
        data_out[tid] = start;
    }
}
