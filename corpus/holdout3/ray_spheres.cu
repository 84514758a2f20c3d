// The ray tracer of "CUDA by Example" (Sanders & Kandrot, chapter 6): orthographic rays, one
// thread per pixel on 16x16 blocks, each testing all 20 spheres held in __constant__ memory (every
// lane reads the same sphere at once) and keeping the nearest hit, shaded by the surface normal's
// z; RGBA bytes out. The image side is an argument here (the book's DIM).
#define INF 2e10f
#define SPHERES 20

struct Sphere {
    float r, b, g;
    float radius;
    float x, y, z;
    __device__ float hit(float ox, float oy, float* n)
    {
        float dx = ox - x;
        float dy = oy - y;
        if (dx * dx + dy * dy < radius * radius) {
            float dz = sqrtf(radius * radius - dx * dx - dy * dy);
            *n = dz / sqrtf(radius * radius);
            return dz + z;
        }
        return -INF;
    }
};

__constant__ Sphere s[SPHERES];

extern "C" __global__ void ray_trace_spheres(unsigned char* ptr, int dim)
{
    int x = threadIdx.x + blockIdx.x * blockDim.x;
    int y = threadIdx.y + blockIdx.y * blockDim.y;
    int offset = x + y * blockDim.x * gridDim.x;
    float ox = (x - dim / 2);
    float oy = (y - dim / 2);

    float r = 0, g = 0, b = 0;
    float maxz = -INF;
    for (int i = 0; i < SPHERES; i++) {
        float n;
        float t = s[i].hit(ox, oy, &n);
        if (t > maxz) {
            float fscale = n;
            r = s[i].r * fscale;
            g = s[i].g * fscale;
            b = s[i].b * fscale;
            maxz = t;
        }
    }
    ptr[offset * 4 + 0] = (int)(r * 255);
    ptr[offset * 4 + 1] = (int)(g * 255);
    ptr[offset * 4 + 2] = (int)(b * 255);
    ptr[offset * 4 + 3] = 255;
}
