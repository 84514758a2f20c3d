// Softmax backward over the last dimension, dx = y * (dy - sum(dy * y)), one block of 256 threads
// per row as PyTorch's cunn_SoftMaxBackward lays it out: a first pass over the row in float4 loads
// accumulating dot(dy, y) per thread, the block reduction by warp shuffles and a shared array of
// warp sums, then a second pass (the row again, now from cache) writing dx in float4 stores.
extern "C" __global__ void softmax_backward_rows(const float* __restrict__ output,
                                                 const float* __restrict__ grad_output,
                                                 float* __restrict__ grad_input, int classes)
{
    __shared__ float warp_sums[32];
    __shared__ float row_sum;
    const size_t row = blockIdx.x;
    const float4* y = reinterpret_cast<const float4*>(output + row * classes);
    const float4* dy = reinterpret_cast<const float4*>(grad_output + row * classes);
    float4* dx = reinterpret_cast<float4*>(grad_input + row * classes);
    const int n4 = classes / 4;

    float sum = 0.0f;
    for (int i = threadIdx.x; i < n4; i += blockDim.x) {
        float4 a = y[i], b = dy[i];
        sum += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    }
    for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffff, sum, offset);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffff, sum, offset);
        if (lane == 0) row_sum = sum;
    }
    __syncthreads();
    const float s = row_sum;

    for (int i = threadIdx.x; i < n4; i += blockDim.x) {
        float4 a = y[i], b = dy[i];
        dx[i] = make_float4(a.x * (b.x - s), a.y * (b.y - s), a.z * (b.z - s), a.w * (b.w - s));
    }
}
