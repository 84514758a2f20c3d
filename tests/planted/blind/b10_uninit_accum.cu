// Element-wise multiply-accumulate into `acc`, which the host cudaMalloc'ed but never memset:
// the first += reads garbage.
extern "C" __global__ void mac(const float* a, const float* b, float* acc, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += a[i] * b[i];  // BUG uninitialized
}
