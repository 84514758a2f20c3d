// Batched product of small square matrices, C[b] = A[b] B[b] for 32 x 32 row-major matrices: one
// 32x32 thread block per matrix pair, both operands staged whole in shared memory, one output
// element per thread (the shape of a batched GEMM for tiny matrices, where a tile is the matrix).
#define N 32

extern "C" __global__ void batched_matmul_32(const float* __restrict__ A, const float* __restrict__ B,
                                             float* __restrict__ C, int batch)
{
    __shared__ float As[N][N];
    __shared__ float Bs[N][N];
    int b = blockIdx.x;
    int tx = threadIdx.x, ty = threadIdx.y;
    if (b >= batch) return;
    size_t base = (size_t)b * N * N;
    As[ty][tx] = A[base + ty * N + tx];
    Bs[ty][tx] = B[base + ty * N + tx];
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < N; k++)
        acc += As[ty][k] * Bs[k][tx];
    C[base + ty * N + tx] = acc;
}
