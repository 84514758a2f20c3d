// Vertical box filter by a running sum, the CUDA samples' boxFilter d_boxfilter_y_global: one
// thread per column walks down the image, adding the row entering the window and subtracting the
// row leaving it (edges clamped), so the work per pixel is constant in the radius; 64-thread
// blocks, the image width a multiple of 64.
extern "C" __global__ void d_boxfilter_y_global(const float* id, float* od, int w, int h, int r)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    float scale = 1.0f / (float)((r << 1) + 1);
    float t;
    // do left edge
    t = id[x] * r;
    for (int y = 0; y < (r + 1); y++) t += id[y * w + x];
    od[x] = t * scale;
    for (int y = 1; y < (r + 1); y++) {
        t += id[(y + r) * w + x];
        t -= id[x];
        od[y * w + x] = t * scale;
    }
    // main loop
    for (int y = (r + 1); y < (h - r); y++) {
        t += id[(y + r) * w + x];
        t -= id[((y - r) * w + x) - w];
        od[y * w + x] = t * scale;
    }
    // do right edge
    for (int y = h - r; y < h; y++) {
        t += id[(h - 1) * w + x];
        t -= id[((y - r) * w + x) - w];
        od[y * w + x] = t * scale;
    }
}
