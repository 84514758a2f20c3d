// Planted bug: a kernel that traps on a thread past the end of its data, where it should return; its
// launch is rounded up to whole blocks, so the GPU ends the launch at the first such thread
// (cudaErrorLaunchFailure), whatever the others had written.
extern "C" __global__ void trap_guard(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) __trap();  // BUG trap
    out[i] = sqrtf(in[i]);
}
