// Element-wise matrix add on a 2D grid with the classic mapping mistake: threadIdx.x walks the
// rows and threadIdx.y the columns, so the 16 x-neighbours of a warp touch 16 different rows
// (stride `cols` floats) instead of one contiguous run.
extern "C" __global__ void matrix_add_2d(const float* A, const float* B, float* C, int rows, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols)
        C[row * cols + col] = A[row * cols + col] + B[row * cols + col];
}
