// One k-iteration of Floyd-Warshall all-pairs shortest paths on a dense n x n distance matrix,
// in place: D[i][j] = min(D[i][j], D[i][k] + D[k][j]), one thread per (i, j) on 16x16 blocks; the
// host launches it for k = 0 .. n-1 (the textbook GPU port; row and column k do not change in
// step k, so the in-place update is race-free).
extern "C" __global__ void floyd_warshall_step(float* D, int n, int k)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        float via = D[i * n + k] + D[k * n + j];
        if (via < D[i * n + j])
            D[i * n + j] = via;
    }
}
