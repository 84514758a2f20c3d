// Detector input preprocessing (the step before a TensorRT YOLO engine): a batch of 8-bit BGR
// images stored HWC (interleaved) becomes normalized float RGB stored CHW (planar), one thread
// per pixel: three byte loads, the channel order swapped, (v / 255 - mean) / std, three planar
// float stores.
extern "C" __global__ void normalize_hwc_to_chw(const unsigned char* __restrict__ src, float* __restrict__ dst,
                                                int width, int height, int batch, float mean_r, float mean_g,
                                                float mean_b, float std_r, float std_g, float std_b)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int area = width * height;
    if (idx >= area * batch) return;
    int b = idx / area;
    int p = idx - b * area;
    const unsigned char* pix = src + (size_t)idx * 3;
    float bl = pix[0], gr = pix[1], rd = pix[2];
    float* out = dst + (size_t)b * 3 * area;
    out[p] = (rd / 255.0f - mean_r) / std_r;
    out[area + p] = (gr / 255.0f - mean_g) / std_g;
    out[2 * area + p] = (bl / 255.0f - mean_b) / std_b;
}
