// Kernels that call: functions ptxas does not inline (a divergent loop with early returns, recursion whose
// depth differs lane by lane, a struct returned, locals kept across a recursive call), printf, assert,
// malloc/free and runaway recursion. tests/test_calls.py checks cudasim against Python references;
// `python -m kernels.callsdiff` runs the same PTX on a GPU and compares.
#include <cstdio>
#include <cassert>
__device__ __noinline__ int collatz(int x) {          // a loop, divergent trips and early returns, in a callee
    int steps = 0;
    if (x <= 1) return 0;
    while (x != 1) { x = (x & 1) ? 3 * x + 1 : x / 2; if (++steps > 300) return -1; }
    return steps;
}
__device__ int ack(int m, int n) {                     // recursion whose depth differs from lane to lane
    if (m == 0) return n + 1;
    if (n == 0) return ack(m - 1, 1);
    return ack(m - 1, ack(m, n - 1));
}
__device__ __noinline__ float2 pair(float a, int k) { return make_float2(a * k, a - k); }   // a struct returned
__device__ int digits(int x, int depth) {              // a local array each activation keeps across its call
    int d[4];
    for (int k = 0; k < 4; ++k) d[k] = (x >> (2 * k)) & 3;
    int below = depth > 0 ? digits(x / 3 + d[x & 3], depth - 1) : 0;
    return below * 7 + d[(x + depth) & 3] + d[depth & 3];
}

extern "C" __global__ void calls(int *steps, int *acks, float *pairs, int *dig, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    steps[i] = collatz(i);
    acks[i] = i % 3 == 0 ? ack(1 + i % 2, i % 5) : -7;  // a call on one side of a branch
    float2 p = pair(0.5f * i, i);
    pairs[2 * i] = p.x;
    pairs[2 * i + 1] = p.y;
    dig[i] = digits(i * 37, i % 6);
}

extern "C" __global__ void talk(const float *x, const long long *big, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && i % 8 == 3) {
        int k = printf("b%d t%02d x=%.3f e=%e hex=%#x c=%c %s big=%lld u=%u\n", blockIdx.x, threadIdx.x, x[i], x[i],
                       i * 255, 'a' + i % 26, (i & 8) ? "odd" : "even", big[i], (unsigned)-i);
        if (k != 9) printf("printf returned %d\n", k);
    }
}

extern "C" __global__ void checked(const int *x, int limit) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(x[i] < limit);
}

extern "C" __global__ void heap(int *out, long long ask) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int *p = (int *)malloc((i % 4 + 1) * sizeof(int));
    for (int k = 0; k <= i % 4; ++k) p[k] = i * 10 + k;
    int s = 0;
    for (int k = 0; k <= i % 4; ++k) s += p[k];
    free(p);
    void *huge = malloc(ask);                          // more than the heap holds: NULL
    out[i] = huge == nullptr ? s : -1;
}

extern "C" __global__ void twice_freed(int *out) {
    int *p = (int *)malloc(16);
    free(p);
    free(p);
    out[threadIdx.x] = 1;
}

__device__ int deep(int x, int stop) { return x == stop ? 0 : deep(x + 1, stop) + deep(x + 2, stop) + 1; }
extern "C" __global__ void runaway(int *out, int stop) { out[threadIdx.x] = deep(threadIdx.x + 1, stop); }

extern "C" __global__ void plain(float *y, const float *x) { y[threadIdx.x] = 2.0f * x[threadIdx.x]; }
