// The trailing-matrix update of a blocked right-looking LU factorization, Rodinia's lud_internal
// (lud_cuda): after lud_diagonal has factored the 16 x 16 diagonal block at `offset` and
// lud_perimeter the row and column panels beside it, every 16 x 16 block of the trailing matrix
// stages its piece of the row panel and of the column panel in shared memory and subtracts their
// product, 16 multiply-adds per element, in place. Launched on a ((n - offset) / 16 - 1)^2 grid.
#define BLOCK_SIZE 16

extern "C" __global__ void lud_internal(float* m, int matrix_dim, int offset)
{
    __shared__ float peri_row[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float peri_col[BLOCK_SIZE][BLOCK_SIZE];

    int i;
    float sum;

    int global_row_id = offset + (blockIdx.y + 1) * BLOCK_SIZE;
    int global_col_id = offset + (blockIdx.x + 1) * BLOCK_SIZE;

    peri_row[threadIdx.y][threadIdx.x] = m[(offset + threadIdx.y) * matrix_dim + global_col_id + threadIdx.x];
    peri_col[threadIdx.y][threadIdx.x] = m[(global_row_id + threadIdx.y) * matrix_dim + offset + threadIdx.x];

    __syncthreads();

    sum = 0;
    for (i = 0; i < BLOCK_SIZE; i++)
        sum += peri_col[threadIdx.y][i] * peri_row[i][threadIdx.x];
    m[(global_row_id + threadIdx.y) * matrix_dim + global_col_id + threadIdx.x] -= sum;
}
