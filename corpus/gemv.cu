// y = A x for a row-major rows x cols matrix: one warp per row, lanes stride the row by 32,
// then a shuffle reduction; lane 0 writes.
extern "C" __global__ void gemv_warp_per_row(const float* __restrict__ A, const float* __restrict__ x,
                                             float* __restrict__ y, int rows, int cols)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (warp >= rows) return;
    const float* a = A + (size_t)warp * cols;
    float sum = 0.0f;
    for (int j = lane; j < cols; j += 32) sum += a[j] * x[j];
    for (int off = 16; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffff, sum, off);
    if (lane == 0) y[warp] = sum;
}
