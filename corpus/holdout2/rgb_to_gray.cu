// RGB to grayscale of an interleaved 8-bit RGB frame, one thread per pixel on 16x16 blocks: each
// pixel read as a uchar3 (3 bytes), the BT.601 luma weights (0.299, 0.587, 0.114) applied in
// float and the result truncated to 8 bits (the Udacity CS344 homework 1 kernel, OpenCV's weights).
extern "C" __global__ void rgb_to_gray(const uchar3* __restrict__ rgb, unsigned char* __restrict__ gray,
                                       int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        int idx = y * width + x;
        uchar3 p = rgb[idx];
        gray[idx] = (unsigned char)(0.299f * p.x + 0.587f * p.y + 0.114f * p.z);
    }
}
