// Sparse matrix-vector product y = A x, A in CSR, the two classic kernels of Bell & Garland
// ("Efficient Sparse Matrix-Vector Multiplication on CUDA", 2008): csr scalar, one thread per
// row; csr vector, one warp per row with the partial sums reduced by shuffles.
extern "C" __global__ void spmv_csr_scalar(int num_rows, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                                           const float* __restrict__ vals, const float* __restrict__ x,
                                           float* __restrict__ y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < num_rows) {
        float dot = 0.0f;
        int row_start = row_ptr[row];
        int row_end = row_ptr[row + 1];
        for (int jj = row_start; jj < row_end; jj++)
            dot += vals[jj] * x[col_idx[jj]];
        y[row] = dot;
    }
}

extern "C" __global__ void spmv_csr_vector(int num_rows, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                                           const float* __restrict__ vals, const float* __restrict__ x,
                                           float* __restrict__ y)
{
    int thread_id = blockIdx.x * blockDim.x + threadIdx.x;
    int warp_id = thread_id / 32;
    int lane = thread_id & 31;
    int row = warp_id;
    if (row < num_rows) {
        int row_start = row_ptr[row];
        int row_end = row_ptr[row + 1];
        float sum = 0.0f;
        for (int jj = row_start + lane; jj < row_end; jj += 32)
            sum += vals[jj] * x[col_idx[jj]];
        for (int offset = 16; offset > 0; offset /= 2)
            sum += __shfl_down_sync(0xffffffff, sum, offset);
        if (lane == 0)
            y[row] = sum;
    }
}
