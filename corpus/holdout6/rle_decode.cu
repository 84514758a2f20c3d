// Run-length decoding after the scan: the run lengths have been turned into output offsets by an
// exclusive prefix sum (run_offsets has num_runs + 1 entries), and one thread per run writes its
// value over its run, the simple expand that columnar readers and compression libraries use
// before switching to a balanced (merge-path) version: each thread's stores are contiguous, a
// warp's are spread over 32 runs of different lengths, and the warp waits for its longest run.
extern "C" __global__ void rle_decode_runs(const int* __restrict__ run_values, const int* __restrict__ run_offsets,
                                           int* __restrict__ out, int num_runs)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= num_runs) return;

    const int v = run_values[r];
    const int begin = run_offsets[r];
    const int end = run_offsets[r + 1];
    for (int i = begin; i < end; i++) out[i] = v;
}
