// Canny edge detection's non-maximum suppression and double threshold, as OpenCV's CUDA Canny
// writes it (cudaimgproc canny.cu, calcMapKernel): per interior pixel of 16 x 16 blocks, the
// gradient direction is binned into horizontal, vertical or diagonal by fixed-point tan(22.5)
// and tan(67.5) comparisons of the integer Sobel derivatives, and the pixel is kept (1: weak,
// 2: strong) only if its magnitude passes the low threshold and beats its two neighbours across
// the edge: branches on the data, and the two neighbour reads depend on the direction. Adapted:
// the magnitude is read from global memory instead of a texture, and the PtrStepSz matrices are
// plain row-major pointers with the width and height as arguments.
#define CANNY_SHIFT 15

extern "C" __global__ void calcMapKernel(const int* dx, const int* dy, const float* mag, int* map, int cols, int rows,
                                         const float low_thresh, const float high_thresh)
{
    const int TG22 = (int)(0.4142135623730950488016887242097 * (1 << CANNY_SHIFT) + 0.5);

    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;

    if (x == 0 || x >= cols - 1 || y == 0 || y >= rows - 1)
        return;

    int dxVal = dx[y * cols + x];
    int dyVal = dy[y * cols + x];

    const int s = (dxVal ^ dyVal) < 0 ? -1 : 1;
    const float m = mag[y * cols + x];

    dxVal = ::abs(dxVal);
    dyVal = ::abs(dyVal);

    // 0 - the pixel can not belong to an edge
    // 1 - the pixel might belong to an edge
    // 2 - the pixel does belong to an edge
    int edge_type = 0;

    if (m > low_thresh) {
        const int tg22x = dxVal * TG22;
        const int tg67x = tg22x + ((dxVal + dxVal) << CANNY_SHIFT);

        dyVal <<= CANNY_SHIFT;

        if (dyVal < tg22x) {
            if (m > mag[y * cols + x - 1] && m >= mag[y * cols + x + 1])
                edge_type = 1 + (int)(m > high_thresh);
        } else if (dyVal > tg67x) {
            if (m > mag[(y - 1) * cols + x] && m >= mag[(y + 1) * cols + x])
                edge_type = 1 + (int)(m > high_thresh);
        } else {
            if (m > mag[(y - 1) * cols + x - s] && m >= mag[(y + 1) * cols + x + s])
                edge_type = 1 + (int)(m > high_thresh);
        }
    }

    map[y * cols + x] = edge_type;
}
