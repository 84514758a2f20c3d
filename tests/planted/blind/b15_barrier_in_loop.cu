// Per-element Newton iteration for 1/sqrt(a); each step the iterate is also published in shared
// memory and the neighbour's iterate accumulated (a smoothing term). A thread leaves the loop as
// soon as its own value converged, so threads pass the barrier a different number of times.
extern "C" __global__ void rsqrt_newton(const float* in, float* out, int n) {
    __shared__ float s[128];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    float a = fabsf(in[i]) * 50.0f + 0.25f;
    float y = 0.1f, nb = 0.0f;
    for (int it = 0; it < 30; it++) {
        float y2 = y * (1.5f - 0.5f * a * y * y);
        if (fabsf(y2 - y) < 1e-5f * y2) break;
        y = y2;
        s[t] = y;
        __syncthreads();  // BUG divergent-barrier
        nb += s[t ^ 1];
        __syncthreads();
    }
    if (i < n) out[i] = y + 0.01f * nb;
}
