// Correct: tiled SGEMM for N not a multiple of the tile. Out-of-range threads load zeros
// instead of returning, so every thread reaches both barriers; only the store is guarded.
#define TILE 16
extern "C" __global__ void matmul_guarded(const float* A, const float* B, float* C, int N) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < N; k0 += TILE) {
        As[ty][tx] = (row < N && k0 + tx < N) ? A[row * N + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < N && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; k++) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < N && col < N) C[row * N + col] = acc;
}
