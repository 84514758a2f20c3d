// Vector add, c[i] = a[i] + b[i]: the same arithmetic handed out to the GPU in three ways.
// What it teaches: a kernel is only as fast as the number of threads (and bytes in flight)
// it puts on the chip. The host pipelines (pageable, pinned, streams) reuse
// vector_add_grid_stride and teach the cost of getting data to the GPU at all.

#ifndef VEC
#define VEC 4   // vector_add_grid_stride: floats per load (4 = one 16-byte float4, 1 = scalar)
#endif

// <<<1,1>>>: one thread walks the whole array. Correct, and it uses one lane of one SM.
extern "C" __global__ void vector_add_single(const float* __restrict__ a, const float* __restrict__ b,
                                             float* __restrict__ c, int n)
{
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

// <<<1,256>>>: one block, a block-stride loop. Thread t takes t, t+256, t+512, ...: each warp's
// accesses are coalesced (32 consecutive floats), but only one SM of the chip is working.
extern "C" __global__ void vector_add_block_stride(const float* __restrict__ a, const float* __restrict__ b,
                                                   float* __restrict__ c, int n)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x) c[i] = a[i] + b[i];
}

// A grid sized from the SM count (enough resident warps on every SM), each thread striding by
// the whole grid. With VEC=4 each lane moves 16 bytes per load, so 4x more bytes are in flight
// per instruction: that is what it takes to approach the memory's bandwidth.
extern "C" __global__ void vector_add_grid_stride(const float* __restrict__ a, const float* __restrict__ b,
                                                  float* __restrict__ c, int n)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
#if VEC == 4
    const int n4 = n / 4;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* c4 = reinterpret_cast<float4*>(c);
    for (int i = tid; i < n4; i += stride) {
        const float4 x = a4[i], y = b4[i];
        c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    for (int i = 4 * n4 + tid; i < n; i += stride) c[i] = a[i] + b[i];  // the tail, n % 4 floats
#else
    for (int i = tid; i < n; i += stride) c[i] = a[i] + b[i];
#endif
}
