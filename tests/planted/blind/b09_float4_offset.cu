// Vectorized copy of a sub-range [offset, offset + 4*nvec) using float4, but offset = 2 floats,
// so the float4 pointer is only 8-byte aligned.
extern "C" __global__ void copy_vec4(const float* src, float* dst, int offset, int nvec) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nvec) {
        const float4* s4 = reinterpret_cast<const float4*>(src + offset);
        float4 v = s4[i];  // BUG misaligned
        reinterpret_cast<float4*>(dst)[i] = v;
    }
}
