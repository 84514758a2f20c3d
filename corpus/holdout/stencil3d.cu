// 3D 7-point stencil (one explicit heat-equation step), one thread per grid point on an 8x8x8
// thread block, straight from global memory (no tiling); boundary points are copied through.
extern "C" __global__ void stencil3d_7pt(const float* __restrict__ in, float* __restrict__ out,
                                         int nx, int ny, int nz, float c0, float c1)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i >= nx || j >= ny || k >= nz) return;
    int idx = (k * ny + j) * nx + i;
    if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) {
        out[idx] = in[idx];
        return;
    }
    int plane = nx * ny;
    out[idx] = c0 * in[idx]
             + c1 * (in[idx - 1] + in[idx + 1] + in[idx - nx] + in[idx + nx] + in[idx - plane] + in[idx + plane]);
}
