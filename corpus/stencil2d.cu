// 2D 5-point Jacobi step on a row-major nx x ny grid, 16x16 tile with a one-cell halo in shared
// memory. Boundary cells are copied through.
#define TILE 16

extern "C" __global__ void jacobi2d(const float* __restrict__ in, float* __restrict__ out, int nx, int ny)
{
    __shared__ float s[TILE + 2][TILE + 2];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
    if (x < nx && y < ny) {
        s[ty][tx] = in[y * nx + x];
        if (threadIdx.x == 0 && x > 0) s[ty][0] = in[y * nx + x - 1];
        if (threadIdx.x == TILE - 1 && x < nx - 1) s[ty][TILE + 1] = in[y * nx + x + 1];
        if (threadIdx.y == 0 && y > 0) s[0][tx] = in[(y - 1) * nx + x];
        if (threadIdx.y == TILE - 1 && y < ny - 1) s[TILE + 1][tx] = in[(y + 1) * nx + x];
    }
    __syncthreads();
    if (x < nx && y < ny) {
        if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
            out[y * nx + x] = s[ty][tx];
        else
            out[y * nx + x] = 0.25f * (s[ty][tx - 1] + s[ty][tx + 1] + s[ty - 1][tx] + s[ty + 1][tx]);
    }
}
