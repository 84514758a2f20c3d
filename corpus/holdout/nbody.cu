// All-pairs N-body accelerations as in GPU Gems 3, chapter 31 ("Fast N-Body Simulation with
// CUDA"): positions and masses as float4, one thread per body, the bodies streamed through
// shared memory one block-sized tile at a time, softened gravity with rsqrtf. N is a multiple
// of the block size (the chapter's assumption: the grid's blocks are the tiles).
#define BLOCK_SIZE 256

__device__ float3 body_body_interaction(float4 bi, float4 bj, float3 ai, float eps2)
{
    float3 r;
    r.x = bj.x - bi.x;
    r.y = bj.y - bi.y;
    r.z = bj.z - bi.z;
    float dist_sqr = r.x * r.x + r.y * r.y + r.z * r.z + eps2;
    float inv_dist = rsqrtf(dist_sqr);
    float inv_dist_cube = inv_dist * inv_dist * inv_dist;
    float s = bj.w * inv_dist_cube;
    ai.x += r.x * s;
    ai.y += r.y * s;
    ai.z += r.z * s;
    return ai;
}

extern "C" __global__ void nbody_accel(const float4* __restrict__ pos, float3* __restrict__ acc, int n, float eps2)
{
    __shared__ float4 sh_pos[BLOCK_SIZE];
    int gtid = blockIdx.x * blockDim.x + threadIdx.x;
    float4 my_pos = pos[gtid];
    float3 a = {0.0f, 0.0f, 0.0f};
    for (int i = 0, tile = 0; i < n; i += BLOCK_SIZE, tile++) {
        sh_pos[threadIdx.x] = pos[tile * blockDim.x + threadIdx.x];
        __syncthreads();
        for (int j = 0; j < BLOCK_SIZE; j++)
            a = body_body_interaction(my_pos, sh_pos[j], a, eps2);
        __syncthreads();
    }
    acc[gtid] = a;
}
