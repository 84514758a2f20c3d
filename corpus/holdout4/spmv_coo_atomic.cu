// Sparse matrix-vector product y += A x with A in COO format, as Hwu, Kirk & El Hajj's textbook
// (PMPP, 4th ed., ch. 14) writes it: one thread per nonzero reading its row index, column index and
// value, gathering x[col], and adding the product into y[row] with atomicAdd. The nonzeros are
// sorted by row, so a warp's atomics mostly land on one or two rows. (The book passes the COO
// struct by value; its fields are the arguments here.)
extern "C" __global__ void spmv_coo_kernel(const unsigned int* rowIdx, const unsigned int* colIdx, const float* value,
                                           unsigned int numNonzeros, const float* x, float* y)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < numNonzeros) {
        unsigned int row = rowIdx[i];
        unsigned int col = colIdx[i];
        float val = value[i];
        atomicAdd(&y[row], x[col] * val);
    }
}
