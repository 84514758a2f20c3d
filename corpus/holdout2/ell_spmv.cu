// Sparse matrix-vector product y += A x with A in ELLPACK format, stored column-major so that a
// warp's threads (consecutive rows) read consecutive words: entry n of row r at [n * num_rows + r].
// One thread per row; padding entries (value 0) are skipped. Bell & Garland, "Efficient Sparse
// Matrix-Vector Multiplication on CUDA" (NVIDIA, 2008), spmv_ell_kernel.
extern "C" __global__ void spmv_ell(int num_rows, int num_cols_per_row, const int* __restrict__ indices,
                                    const float* __restrict__ data, const float* __restrict__ x, float* __restrict__ y)
{
    int row = blockDim.x * blockIdx.x + threadIdx.x;
    if (row < num_rows) {
        float dot = 0;
        for (int n = 0; n < num_cols_per_row; n++) {
            int col = indices[num_rows * n + row];
            float val = data[num_rows * n + row];
            if (val != 0)
                dot += val * x[col];
        }
        y[row] += dot;
    }
}
