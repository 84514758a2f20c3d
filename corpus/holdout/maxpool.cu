// 2D max pooling forward over an NCHW tensor, one thread per output element, written as Caffe's
// MaxPoolForward (a grid-stride CUDA_KERNEL_LOOP over the outputs, window clipped to the image,
// 512-thread blocks); no argmax mask.
#define FLT_MAX 3.402823466e+38f

extern "C" __global__ void maxpool2d_forward(int nthreads, const float* __restrict__ bottom, int channels, int height,
                                             int width, int pooled_height, int pooled_width, int kernel_h,
                                             int kernel_w, int stride_h, int stride_w, int pad_h, int pad_w,
                                             float* __restrict__ top)
{
    for (int index = blockIdx.x * blockDim.x + threadIdx.x; index < nthreads; index += blockDim.x * gridDim.x) {
        const int pw = index % pooled_width;
        const int ph = (index / pooled_width) % pooled_height;
        const int c = (index / pooled_width / pooled_height) % channels;
        const int n = index / pooled_width / pooled_height / channels;
        int hstart = ph * stride_h - pad_h;
        int wstart = pw * stride_w - pad_w;
        const int hend = min(hstart + kernel_h, height);
        const int wend = min(wstart + kernel_w, width);
        hstart = max(hstart, 0);
        wstart = max(wstart, 0);
        float maxval = -FLT_MAX;
        const float* bottom_slice = bottom + (n * channels + c) * height * width;
        for (int h = hstart; h < hend; ++h)
            for (int w = wstart; w < wend; ++w)
                if (bottom_slice[h * width + w] > maxval)
                    maxval = bottom_slice[h * width + w];
        top[index] = maxval;
    }
}
