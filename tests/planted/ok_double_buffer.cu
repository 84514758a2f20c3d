// Correct: double buffering with one barrier per step. Step k reads buffer k % 2 and fills the
// other one; the single barrier at the end of the step orders both (a checker that wants two
// barriers per step, or one per buffer, reports a false race).
extern "C" __global__ void ok_double_buffer(float* out, const float* in, int steps) {
    __shared__ float buf[2][128];
    int t = threadIdx.x;
    buf[0][t] = in[t];
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k < steps; k++) {
        int cur = k & 1;
        acc += buf[cur][(t + 7 * k) & 127];
        buf[cur ^ 1][t] = in[(k + 1) * 128 + t];
        __syncthreads();
    }
    out[blockIdx.x * 128 + t] = acc;
}
