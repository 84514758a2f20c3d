// Tiled SGEMM C = A*B (N x N), the second __syncthreads() at the end of the k-loop forgotten:
// a fast warp starts loading the next tile while slow warps still read the current one.
#define TILE 16
extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int N) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < N; k0 += TILE) {
        As[ty][tx] = A[row * N + k0 + tx];  // BUG race
        Bs[ty][tx] = B[(k0 + ty) * N + col];  // BUG race
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];  // BUG race
        // missing __syncthreads() here
    }
    C[row * N + col] = acc;
}
