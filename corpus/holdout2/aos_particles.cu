// Particle position update on an array of structures: each particle is one 24-byte struct
// {x, y, z, vx, vy, vz}, one thread per particle moves it by v * dt (explicit Euler), in place.
// The layout every "AoS vs SoA" tutorial starts from (e.g. the CUDA Best Practices Guide's
// coalescing discussion, particle-system course code).
struct Particle {
    float x, y, z;
    float vx, vy, vz;
};

extern "C" __global__ void aos_particles_step(Particle* p, int n, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        p[i].x += p[i].vx * dt;
        p[i].y += p[i].vy * dt;
        p[i].z += p[i].vz * dt;
    }
}
