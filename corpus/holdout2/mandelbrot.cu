// Mandelbrot set, escape time ("dwell") per pixel in float, one thread per pixel on 16x16 blocks:
// z = z^2 + c from z = c until |z|^2 >= 4 or 256 iterations. The per-pixel baseline of the NVIDIA
// blog post "Adaptive Parallel Computation with CUDA Dynamic Parallelism" (A. Adinetz); compute
// bound, and divergent wherever a warp straddles the set's boundary.
#define MAX_DWELL 256

extern "C" __global__ void mandelbrot_dwell(int* __restrict__ dwells, int w, int h,
                                            float cmin_re, float cmin_im, float cmax_re, float cmax_im)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;

    float fx = (float)x / w, fy = (float)y / h;
    float c_re = cmin_re + fx * (cmax_re - cmin_re);
    float c_im = cmin_im + fy * (cmax_im - cmin_im);
    float z_re = c_re, z_im = c_im;
    int dwell = 0;
    while (dwell < MAX_DWELL && z_re * z_re + z_im * z_im < 4.0f) {
        float t = z_re * z_re - z_im * z_im + c_re;
        z_im = 2.0f * z_re * z_im + c_im;
        z_re = t;
        dwell++;
    }
    dwells[y * w + x] = dwell;
}
