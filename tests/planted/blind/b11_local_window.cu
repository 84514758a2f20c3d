// Per-thread median-of-window filter with a private window array; the fill loop uses <= on
// a run-time window size (w = 5), writing one past the end of the array.
#define WMAX 5
extern "C" __global__ void window_filter(const float* in, float* out, int n, int w) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float win[WMAX];
    for (int k = 0; k <= w; k++) {
        int j = min(max(i + k - w / 2, 0), n - 1);
        win[k] = in[j];  // BUG out-of-bounds
    }
    // insertion sort
    for (int a = 1; a < w; a++) {
        float key = win[a]; int b = a - 1;
        while (b >= 0 && win[b] > key) { win[b + 1] = win[b]; b--; }
        win[b + 1] = key;
    }
    out[i] = win[w / 2];
}
