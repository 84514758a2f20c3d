// NV12 (8-bit 4:2:0: a luma plane, then interleaved U/V at half resolution) to BGRA32, as the Video
// Codec SDK's ColorSpace.cu converts decoded frames: a thread per 2x2 block of pixels on a 2-D grid
// of 32 x 2 blocks, two uchar2 luma loads and one uchar2 chroma load, a 3x3 matrix in __constant__
// (BT.709, limited range), each channel clamped and truncated to a byte, 8-byte (2-pixel) stores;
// the alpha byte is left 0, as the SDK leaves it.
typedef unsigned char uint8_t;
typedef unsigned int uint32_t;

__constant__ float matYuv2Rgb[3][3];

union BGRA32 {
    uint32_t d;
    uchar4 v;
    struct {
        uint8_t b, g, r, a;
    } c;
};

template <class T>
__device__ static T Clamp(T x, T lower, T upper)
{
    return x < lower ? lower : (x > upper ? upper : x);
}

template <class Rgb, class YuvUnit>
__device__ inline Rgb YuvToRgbForPixel(YuvUnit y, YuvUnit u, YuvUnit v)
{
    const int low = 1 << (sizeof(YuvUnit) * 8 - 4), mid = 1 << (sizeof(YuvUnit) * 8 - 1);
    float fy = (int)y - low, fu = (int)u - mid, fv = (int)v - mid;
    const float maxf = (1 << sizeof(YuvUnit) * 8) - 1.0f;
    YuvUnit r = (YuvUnit)Clamp(matYuv2Rgb[0][0] * fy + matYuv2Rgb[0][1] * fu + matYuv2Rgb[0][2] * fv, 0.0f, maxf),
            g = (YuvUnit)Clamp(matYuv2Rgb[1][0] * fy + matYuv2Rgb[1][1] * fu + matYuv2Rgb[1][2] * fv, 0.0f, maxf),
            b = (YuvUnit)Clamp(matYuv2Rgb[2][0] * fy + matYuv2Rgb[2][1] * fu + matYuv2Rgb[2][2] * fv, 0.0f, maxf);

    Rgb rgb{};
    const int nShift = abs((int)sizeof(YuvUnit) - (int)sizeof(rgb.c.r)) * 8;
    if (sizeof(YuvUnit) >= sizeof(rgb.c.r)) {
        rgb.c.r = r >> nShift;
        rgb.c.g = g >> nShift;
        rgb.c.b = b >> nShift;
    } else {
        rgb.c.r = r << nShift;
        rgb.c.g = g << nShift;
        rgb.c.b = b << nShift;
    }
    return rgb;
}

template <class YuvUnitx2, class Rgb, class RgbIntx2>
__device__ void YuvToRgbKernel(uint8_t* pYuv, int nYuvPitch, uint8_t* pRgb, int nRgbPitch, int nWidth, int nHeight)
{
    int x = (threadIdx.x + blockIdx.x * blockDim.x) * 2;
    int y = (threadIdx.y + blockIdx.y * blockDim.y) * 2;
    if (x + 1 >= nWidth || y + 1 >= nHeight) {
        return;
    }

    uint8_t* pSrc = pYuv + x * sizeof(YuvUnitx2) / 2 + y * nYuvPitch;
    uint8_t* pDst = pRgb + x * sizeof(Rgb) + y * nRgbPitch;

    YuvUnitx2 l0 = *(YuvUnitx2*)pSrc;
    YuvUnitx2 l1 = *(YuvUnitx2*)(pSrc + nYuvPitch);
    YuvUnitx2 ch = *(YuvUnitx2*)(pSrc + (nHeight - y / 2) * nYuvPitch);

    *(RgbIntx2*)pDst = RgbIntx2{
        YuvToRgbForPixel<Rgb>(l0.x, ch.x, ch.y).d,
        YuvToRgbForPixel<Rgb>(l0.y, ch.x, ch.y).d,
    };
    *(RgbIntx2*)(pDst + nRgbPitch) = RgbIntx2{
        YuvToRgbForPixel<Rgb>(l1.x, ch.x, ch.y).d,
        YuvToRgbForPixel<Rgb>(l1.y, ch.x, ch.y).d,
    };
}

extern "C" __global__ void Nv12ToBgra32(uint8_t* dpNv12, int nNv12Pitch, uint8_t* dpBgra, int nBgraPitch, int nWidth,
                                        int nHeight)
{
    YuvToRgbKernel<uchar2, BGRA32, uint2>(dpNv12, nNv12Pitch, dpBgra, nBgraPitch, nWidth, nHeight);
}
