// Sparse matrix-vector product y = alpha A x + beta y with A in block CSR (BSR) of 4 x 4 blocks,
// the blocks stored row-major one after another as cuSPARSE's bsrmv takes them
// (CUSPARSE_DIRECTION_ROW, bsrRowPtr / bsrColInd over block rows and block columns), computed the
// way FEM codes with four unknowns a node hand-write it: Bell and Garland's CSR "scalar" kernel
// (one thread per row, CUSP's spmv_csr_scalar) applied to blocks, so the four threads of a block
// row walk the same blocks, each reading its row of a block and the block's slice of x as float4s.
#define BSR_DIM 4

extern "C" __global__ void bsrmv_4x4_scalar(int mb, float alpha, const int* __restrict__ bsrRowPtr,
                                             const int* __restrict__ bsrColInd, const float* __restrict__ bsrVal,
                                             const float* __restrict__ x, float beta, float* __restrict__ y)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;  // scalar row
    const int brow = row / BSR_DIM;                         // its block row
    const int r = row % BSR_DIM;                            // and its row inside the blocks
    if (brow >= mb)
        return;

    const float4* val4 = reinterpret_cast<const float4*>(bsrVal);
    const float4* x4 = reinterpret_cast<const float4*>(x);

    float sum = 0.0f;
    const int start = bsrRowPtr[brow];
    const int end = bsrRowPtr[brow + 1];
    for (int k = start; k < end; k++) {
        const int bcol = bsrColInd[k];
        const float4 a = val4[k * BSR_DIM + r];  // row r of block k
        const float4 xv = x4[bcol];
        sum += a.x * xv.x + a.y * xv.y + a.z * xv.z + a.w * xv.w;
    }
    y[row] = alpha * sum + beta * y[row];
}
