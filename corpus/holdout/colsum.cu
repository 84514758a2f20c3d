// Column sums of a row-major matrix: one thread per column walks down its column. Neighbouring
// threads read neighbouring columns, so every row step is one coalesced 128-byte line per warp;
// the parallelism is only `cols` threads.
extern "C" __global__ void column_sums(const float* __restrict__ A, float* __restrict__ sums, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col < cols) {
        float s = 0.0f;
        for (int r = 0; r < rows; ++r)
            s += A[r * cols + col];
        sums[col] = s;
    }
}
