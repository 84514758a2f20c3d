// Sobel edge magnitude of an 8-bit grayscale image, one thread per pixel on 16x16 blocks, the
// 3x3 neighbourhood read straight from global memory; border pixels are set to 0.
extern "C" __global__ void sobel_u8(const unsigned char* __restrict__ img, float* __restrict__ mag, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        mag[y * width + x] = 0.0f;
        return;
    }
    int p00 = img[(y - 1) * width + x - 1], p01 = img[(y - 1) * width + x], p02 = img[(y - 1) * width + x + 1];
    int p10 = img[y * width + x - 1],                                          p12 = img[y * width + x + 1];
    int p20 = img[(y + 1) * width + x - 1], p21 = img[(y + 1) * width + x], p22 = img[(y + 1) * width + x + 1];
    int gx = (p02 + 2 * p12 + p22) - (p00 + 2 * p10 + p20);
    int gy = (p20 + 2 * p21 + p22) - (p00 + 2 * p01 + p02);
    mag[y * width + x] = sqrtf((float)(gx * gx + gy * gy));
}
