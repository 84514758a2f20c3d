// Planted bug: a scratch buffer allocated (cudaMalloc) but never filled: neither the host
// copied into it nor any thread wrote it before it is read.
extern "C" __global__ void uninit_global(float* out, const float* scratch, const float* in) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i] + scratch[i];  // BUG uninitialized
}
