// Bilinear resize of a single-channel float image (here 2x up), one thread per output pixel on
// 16x16 blocks. The source coordinate is computed as PyTorch's upsample_bilinear2d does with
// align_corners=False: src = (dst + 0.5) * scale - 0.5, clamped at 0, the right and bottom
// neighbours clamped to the last column and row.
extern "C" __global__ void bilinear_resize(const float* __restrict__ in, float* __restrict__ out,
                                           int in_w, int in_h, int out_w, int out_h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= out_w || y >= out_h) return;

    float scale_x = (float)in_w / out_w;
    float scale_y = (float)in_h / out_h;
    float sx = fmaxf((x + 0.5f) * scale_x - 0.5f, 0.0f);
    float sy = fmaxf((y + 0.5f) * scale_y - 0.5f, 0.0f);
    int x0 = (int)sx;
    int y0 = (int)sy;
    int x1 = min(x0 + 1, in_w - 1);
    int y1 = min(y0 + 1, in_h - 1);
    float lx = sx - x0;
    float ly = sy - y0;

    float v00 = in[y0 * in_w + x0], v01 = in[y0 * in_w + x1];
    float v10 = in[y1 * in_w + x0], v11 = in[y1 * in_w + x1];
    out[y * out_w + x] = (1.0f - ly) * ((1.0f - lx) * v00 + lx * v01)
                       + ly * ((1.0f - lx) * v10 + lx * v11);
}
