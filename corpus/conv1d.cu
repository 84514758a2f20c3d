// 1D convolution ("valid" part, zero padding at the ends) with the filter in constant memory:
// every lane of a warp reads the same filter tap at once, the constant cache's best case.
#define FILTER_LEN 17

__constant__ float c_filter[FILTER_LEN];

extern "C" __global__ void conv1d_const(const float* __restrict__ in, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int r = FILTER_LEN / 2;
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < FILTER_LEN; ++k) {
        int j = i + k - r;
        if (j >= 0 && j < n) acc += c_filter[k] * in[j];
    }
    out[i] = acc;
}
