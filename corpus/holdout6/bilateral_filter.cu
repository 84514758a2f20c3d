// The CUDA sample bilateralFilter's kernel (d_bilateral_filter) on a grayscale float image read
// from global memory: for every pixel, the (2r + 1)^2 window's spatial Gaussian weights (one
// 1-D Gaussian in __constant__, the product of two) times the range weight
// __expf(-(I - I_center)^2 / (2 d^2)); the texture's clamp-to-edge addressing done by clamping the
// coordinates. A full-precision division per tap, as the sample's euclideanLen has it.
#define MAX_RADIUS 8

__constant__ float cGaussian[2 * MAX_RADIUS + 1];

__device__ float euclideanLen(float a, float b, float d)
{
    float mod = (b - a) * (b - a);
    return __expf(-mod / (2.f * d * d));
}

extern "C" __global__ void d_bilateral_filter(const float* __restrict__ in, float* __restrict__ od, int w, int h,
                                              float e_d, int r)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;

    if (x >= w || y >= h) {
        return;
    }

    float sum = 0.0f;
    float factor;
    float t = 0.0f;
    float center = in[y * w + x];

    for (int i = -r; i <= r; i++) {
        int yy = min(max(y + i, 0), h - 1);
        for (int j = -r; j <= r; j++) {
            int xx = min(max(x + j, 0), w - 1);
            float curPix = in[yy * w + xx];
            factor = cGaussian[i + r] * cGaussian[j + r] *  // domain factor
                     euclideanLen(curPix, center, e_d);     // range factor

            t += factor * curPix;
            sum += factor;
        }
    }

    od[y * w + x] = t / sum;
}
