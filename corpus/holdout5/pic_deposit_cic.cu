// Charge deposition of a particle-in-cell code (the scatter step before the field solve), cloud-in-
// cell weighting in 3-D: one thread per particle (x, y, z, charge as a float4), its position in
// cell units split into the cell index and the fractional offset, and its charge shared among the
// 8 corners of its cell with trilinear weights, each added into the periodic density grid with a
// float atomicAdd. Particles are unsorted, so a warp's atomics scatter over the grid, but each
// thread's 8 fall on 4 pairs of neighbouring words. The host zeroes rho.
extern "C" __global__ void deposit_cic(const float4* __restrict__ particles, float* rho, int num_particles,
                                       int nx, int ny, int nz, float inv_dx)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= num_particles) return;
    float4 pt = particles[p];
    float gx = pt.x * inv_dx, gy = pt.y * inv_dx, gz = pt.z * inv_dx;
    int i = (int)floorf(gx), j = (int)floorf(gy), k = (int)floorf(gz);
    float fx = gx - i, fy = gy - j, fz = gz - k;
    int i1 = (i + 1 == nx) ? 0 : i + 1;
    int j1 = (j + 1 == ny) ? 0 : j + 1;
    int k1 = (k + 1 == nz) ? 0 : k + 1;
    float q = pt.w;
    float wx0 = 1.0f - fx, wy0 = 1.0f - fy, wz0 = 1.0f - fz;
    atomicAdd(&rho[(k * ny + j) * nx + i], q * wx0 * wy0 * wz0);
    atomicAdd(&rho[(k * ny + j) * nx + i1], q * fx * wy0 * wz0);
    atomicAdd(&rho[(k * ny + j1) * nx + i], q * wx0 * fy * wz0);
    atomicAdd(&rho[(k * ny + j1) * nx + i1], q * fx * fy * wz0);
    atomicAdd(&rho[(k1 * ny + j) * nx + i], q * wx0 * wy0 * fz);
    atomicAdd(&rho[(k1 * ny + j) * nx + i1], q * fx * wy0 * fz);
    atomicAdd(&rho[(k1 * ny + j1) * nx + i], q * wx0 * fy * fz);
    atomicAdd(&rho[(k1 * ny + j1) * nx + i1], q * fx * fy * fz);
}
