// im2col as Caffe's im2col_gpu_kernel writes it: one thread per (input channel, output pixel) in
// a grid-stride CUDA_KERNEL_LOOP, each copying its kernel_h x kernel_w window (zero outside the
// image) into the column matrix, one row of height_col x width_col per (channel, tap), so that the
// convolution becomes one GEMM.
extern "C" __global__ void im2col_gpu_kernel(const int n, const float* data_im, const int height, const int width,
                                             const int kernel_h, const int kernel_w, const int pad_h, const int pad_w,
                                             const int stride_h, const int stride_w, const int dilation_h,
                                             const int dilation_w, const int height_col, const int width_col,
                                             float* data_col)
{
    for (int index = blockIdx.x * blockDim.x + threadIdx.x; index < n; index += blockDim.x * gridDim.x) {
        const int h_index = index / width_col;
        const int h_col = h_index % height_col;
        const int w_col = index % width_col;
        const int c_im = h_index / height_col;
        const int c_col = c_im * kernel_h * kernel_w;
        const int h_offset = h_col * stride_h - pad_h;
        const int w_offset = w_col * stride_w - pad_w;
        float* data_col_ptr = data_col;
        data_col_ptr += (c_col * height_col + h_col) * width_col + w_col;
        const float* data_im_ptr = data_im;
        data_im_ptr += (c_im * height + h_offset) * width + w_offset;
        for (int i = 0; i < kernel_h; ++i) {
            for (int j = 0; j < kernel_w; ++j) {
                int h_im = h_offset + i * dilation_h;
                int w_im = w_offset + j * dilation_w;
                *data_col_ptr = (h_im >= 0 && w_im >= 0 && h_im < height && w_im < width)
                                    ? data_im_ptr[i * dilation_h * width + j * dilation_w]
                                    : 0;
                data_col_ptr += height_col * width_col;
            }
        }
    }
}
