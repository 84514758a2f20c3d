// Lennard-Jones forces over a neighbour list, as HOOMD-blue's gpu_compute_lj_forces kernel walks
// it: one thread per particle (position and type in a float4), the neighbour list stored
// column-wise (the j-th neighbour of every particle together, nlist[j * pitch + i]) so the index
// loads coalesce, each neighbour's position gathered, the separation wrapped to the minimum image
// of the periodic box with rintf, and the pair computed only inside the cutoff (the list holds
// neighbours out to r_cut + skin, so about a third fail the test, in no fixed order). The force
// and half the pair energy accumulate in registers and are written as a float4.
extern "C" __global__ void lj_force_nlist(float4* __restrict__ d_force, const float4* __restrict__ d_pos, int N,
                                          const unsigned int* __restrict__ d_n_neigh,
                                          const unsigned int* __restrict__ d_nlist, int pitch, float L,
                                          float Linv, float rcutsq, float lj1, float lj2)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= N) return;

    unsigned int n_neigh = d_n_neigh[idx];
    float4 pos = d_pos[idx];
    float4 force = make_float4(0.0f, 0.0f, 0.0f, 0.0f);

    for (int neigh_idx = 0; neigh_idx < n_neigh; neigh_idx++) {
        unsigned int cur_neigh = d_nlist[neigh_idx * pitch + idx];
        float4 neigh_pos = d_pos[cur_neigh];

        float dx = pos.x - neigh_pos.x;
        float dy = pos.y - neigh_pos.y;
        float dz = pos.z - neigh_pos.z;
        dx -= L * rintf(dx * Linv);
        dy -= L * rintf(dy * Linv);
        dz -= L * rintf(dz * Linv);

        float rsq = dx * dx + dy * dy + dz * dz;
        if (rsq < rcutsq) {
            float r2inv = 1.0f / rsq;
            float r6inv = r2inv * r2inv * r2inv;
            float force_divr = r2inv * r6inv * (12.0f * lj1 * r6inv - 6.0f * lj2);
            float pair_eng = r6inv * (lj1 * r6inv - lj2);
            force.x += dx * force_divr;
            force.y += dy * force_divr;
            force.z += dz * force_divr;
            force.w += pair_eng;
        }
    }
    force.w *= 0.5f;
    d_force[idx] = force;
}
