// Depthwise 3x3 convolution forward (stride 1, padding 1, NCHW, one filter per channel plus bias),
// as PyTorch's conv_depthwise2d_forward_kernel writes it for float: a grid-stride loop over the
// output elements, n, c, h, w recovered from the linear index by divisions (multiply-subtract for
// the remainders), the 9 taps unrolled, each tap guarded by the input bounds, one weight per tap
// read from global memory. The shape of MobileNetV2's depthwise layers.
#define KW 3
#define KH 3

extern "C" __global__ void conv_depthwise2d_forward(const float* __restrict__ input, float* __restrict__ output,
                                                    const float* __restrict__ weight, const float* __restrict__ bias,
                                                    int totalElements, int outputChannels, int depthwiseMultiplier,
                                                    int inputWidth, int inputHeight, int outputWidth, int outputHeight,
                                                    int strideWidth, int strideHeight, int padWidth, int padHeight,
                                                    int dilationWidth, int dilationHeight)
{
    for (int linearIndex = blockIdx.x * blockDim.x + threadIdx.x; linearIndex < totalElements;
         linearIndex += blockDim.x * gridDim.x) {
        int indtmp1 = linearIndex / outputWidth;
        const int w = linearIndex - indtmp1 * outputWidth;
        int indtmp2 = indtmp1 / outputHeight;
        const int h = indtmp1 - indtmp2 * outputHeight;
        indtmp1 = indtmp2;
        indtmp2 = indtmp1 / outputChannels;
        const int c = indtmp1 - indtmp2 * outputChannels;
        const int n = indtmp2;

        int inputChannel = c;
        int inputChannels = outputChannels;
        if (depthwiseMultiplier != 1) {
            inputChannel /= depthwiseMultiplier;
            inputChannels /= depthwiseMultiplier;
        }

        int weightOffset = c * KH * KW;

        float value = bias[c];
        const int offset0 = (n * inputChannels + inputChannel) * inputHeight * inputWidth;
#pragma unroll
        for (int kH = 0; kH < KH; ++kH) {
#pragma unroll
            for (int kW = 0; kW < KW; ++kW) {
                const int h_in = -padHeight + h * strideHeight + kH * dilationHeight;
                const int w_in = -padWidth + w * strideWidth + kW * dilationWidth;

                if ((h_in >= 0) && (h_in < inputHeight) && (w_in >= 0) && (w_in < inputWidth)) {
                    const int offset = offset0 + h_in * inputWidth + w_in;
                    value += weight[weightOffset] * input[offset];
                }
                ++weightOffset;
            }
        }
        output[linearIndex] = value;
    }
}
