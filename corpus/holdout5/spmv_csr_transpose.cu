// Transposed sparse matrix-vector product y += A^T x with A stored in CSR (what cuSPARSE's csrmv
// with CUSPARSE_OPERATION_TRANSPOSE and Ginkgo's atomic "transpose apply" do without building A^T):
// one warp per row of A, x[row] read once, the row's nonzeros walked by the lanes 32 at a time
// (coalesced column indices and values), each product scattered into y[col] with atomicAdd.
// Columns are random, so a warp's 32 atomics land on 32 different words anywhere in y. The host
// zeroes y.
extern "C" __global__ void csrmv_trans_warp(int num_rows, const int* __restrict__ row_ptr,
                                            const int* __restrict__ col_idx, const float* __restrict__ values,
                                            const float* __restrict__ x, float* y)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (warp >= num_rows) return;
    float xr = x[warp];
    int end = row_ptr[warp + 1];
    for (int j = row_ptr[warp] + lane; j < end; j += 32)
        atomicAdd(&y[col_idx[j]], values[j] * xr);
}
