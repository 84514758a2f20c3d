// Planted bug: a float2 (8-byte) load from a float pointer offset by one element: the address
// is a multiple of 4, not of 8.
extern "C" __global__ void misaligned(float* out, const float* in) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float2 v = *reinterpret_cast<const float2*>(in + 2 * i + 1);  // BUG misaligned
    out[i] = v.x + v.y;
}
