// Planted bug: each thread mallocs a scratch block and frees it; the threads past the end of the data
// run a cleanup path that frees it again (the pointer was not set to NULL after the first free).
extern "C" __global__ void double_free(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float* scratch = (float*)malloc(4 * sizeof(float));
    scratch[0] = i < n ? in[i] : 0.0f;
    if (i < n) out[i] = 2.0f * scratch[0];
    free(scratch);
    if (i >= n) free(scratch);  // BUG malloc-free
}
