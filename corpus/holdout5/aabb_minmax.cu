// Axis-aligned bounding box of a point cloud (float3, array of structures), as point-cloud and
// BVH-building code computes it: a grid-stride loop keeps each thread's running min and max,
// a __shfl_down_sync butterfly reduces the six values across the warp, and lane 0 folds them into
// the global box with integer atomicMin/atomicMax on the floats' bits: a non-negative float orders
// as a signed int, a negative one in reverse as an unsigned int (the well-known atomicMinFloat /
// atomicMaxFloat pair), so the sign picks the instruction. The host sets the box to
// (+inf, +inf, +inf, -inf, -inf, -inf) first.
__device__ __forceinline__ float atomicMinFloat(float* addr, float value)
{
    return (value >= 0) ? __int_as_float(atomicMin((int*)addr, __float_as_int(value)))
                        : __uint_as_float(atomicMax((unsigned int*)addr, __float_as_uint(value)));
}

__device__ __forceinline__ float atomicMaxFloat(float* addr, float value)
{
    return (value >= 0) ? __int_as_float(atomicMax((int*)addr, __float_as_int(value)))
                        : __uint_as_float(atomicMin((unsigned int*)addr, __float_as_uint(value)));
}

extern "C" __global__ void aabb_minmax(const float3* __restrict__ points, float* bbox, int n)
{
    float inf = __int_as_float(0x7f800000);
    float lo_x = inf, lo_y = inf, lo_z = inf;
    float hi_x = -inf, hi_y = -inf, hi_z = -inf;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float3 p = points[i];
        lo_x = fminf(lo_x, p.x); lo_y = fminf(lo_y, p.y); lo_z = fminf(lo_z, p.z);
        hi_x = fmaxf(hi_x, p.x); hi_y = fmaxf(hi_y, p.y); hi_z = fmaxf(hi_z, p.z);
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        lo_x = fminf(lo_x, __shfl_down_sync(0xffffffff, lo_x, offset));
        lo_y = fminf(lo_y, __shfl_down_sync(0xffffffff, lo_y, offset));
        lo_z = fminf(lo_z, __shfl_down_sync(0xffffffff, lo_z, offset));
        hi_x = fmaxf(hi_x, __shfl_down_sync(0xffffffff, hi_x, offset));
        hi_y = fmaxf(hi_y, __shfl_down_sync(0xffffffff, hi_y, offset));
        hi_z = fmaxf(hi_z, __shfl_down_sync(0xffffffff, hi_z, offset));
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMinFloat(&bbox[0], lo_x);
        atomicMinFloat(&bbox[1], lo_y);
        atomicMinFloat(&bbox[2], lo_z);
        atomicMaxFloat(&bbox[3], hi_x);
        atomicMaxFloat(&bbox[4], hi_y);
        atomicMaxFloat(&bbox[5], hi_z);
    }
}
