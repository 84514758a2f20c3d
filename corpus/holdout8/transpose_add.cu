// Transpose-and-add, B = A + A^T (symmetrizing a square matrix), written as the naive transpose of
// NVIDIA's "An Efficient Matrix Transpose in CUDA C/C++" (transposeNaive) and the CUDA C
// Programming Guide's MatAdd are written and then fused, as users first write it: a 2-D grid of
// 16 x 16 blocks, one thread per element, A[row][col] read along the row (coalesced) and
// A[col][row] read down the column (each lane of a warp a full row of floats apart), no shared tile.
#define TILE_DIM 16

extern "C" __global__ void transpose_add(const float* A, float* B, int n)
{
    int col = blockIdx.x * TILE_DIM + threadIdx.x;
    int row = blockIdx.y * TILE_DIM + threadIdx.y;

    if (row < n && col < n)
        B[row * n + col] = A[row * n + col] + A[col * n + row];
}
