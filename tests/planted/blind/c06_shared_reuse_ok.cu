// Correct: one shared buffer used for two phases: (1) block max for a softmax, (2) block sum of
// the exponentials. Barriers separate every reuse (including before the second phase's writes,
// since the max is read by all threads from s[0]).
#define BS 128
extern "C" __global__ void softmax_row(const float* x, float* y, int cols) {
    __shared__ float s[BS];
    int t = threadIdx.x, row = blockIdx.x;
    float v = t < cols ? x[row * cols + t] : -1e30f;
    s[t] = v;
    __syncthreads();
    for (int st = BS / 2; st > 0; st >>= 1) {
        if (t < st) s[t] = fmaxf(s[t], s[t + st]);
        __syncthreads();
    }
    float mx = s[0];
    __syncthreads();
    float e = t < cols ? __expf(v - mx) : 0.0f;
    s[t] = e;
    __syncthreads();
    for (int st = BS / 2; st > 0; st >>= 1) {
        if (t < st) s[t] += s[t + st];
        __syncthreads();
    }
    if (t < cols) y[row * cols + t] = e / s[0];
}
