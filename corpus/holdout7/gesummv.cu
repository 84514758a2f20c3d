// PolyBench-GPU's gesummv (gesummv_kernel, Grauer-Gray et al.): y = alpha A x + beta B x, one
// thread per row i, each walking its rows of A and B (a warp's loads 32 rows apart) and
// accumulating straight into tmp[i] and y[i] in global memory, as PolyBench writes it (nothing
// tells the compiler that tmp and y do not alias A, B or x, so the two sums are loaded and stored
// every iteration). DATA_TYPE float, ALPHA and BETA as PolyBench's, 256-thread blocks. Adapted:
// the problem size N is an argument n instead of a compile-time macro.
#define ALPHA 43532.0f
#define BETA 12313.0f
#define DIM_THREAD_BLOCK_X 256

typedef float DATA_TYPE;

extern "C" __global__ void gesummv_kernel(DATA_TYPE* a, DATA_TYPE* b, DATA_TYPE* x, DATA_TYPE* y, DATA_TYPE* tmp, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n) {
        int j;
        for (j = 0; j < n; j++) {
            tmp[i] += a[i * n + j] * x[j];
            y[i] += b[i * n + j] * x[j];
        }
        y[i] = ALPHA * tmp[i] + BETA * y[i];
    }
}
