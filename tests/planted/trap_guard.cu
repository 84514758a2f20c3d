// Planted bug: a kernel that traps on input it did not expect (a probability near 1, whose log of
// 1 - p it takes) where it should have clamped it; some of the random inputs are past its bound,
// so those threads trap and the GPU ends the launch (cudaErrorLaunchFailure), out half-written.
extern "C" __global__ void trap_guard(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (in[i] > 0.95f) __trap();  // BUG trap
    out[i] = logf(1.0f - in[i]);
}
