// Monte Carlo estimate of pi: each thread seeds an xorshift32 generator with a Wang hash of its
// global index (N. Reed, "Quick and easy GPU random numbers in D3D11"), draws `samples` points in
// the unit square and counts those inside the quarter circle; the block's counts are summed by a
// tree in shared memory and added to the global total with one atomicAdd per block. The host
// zeroes hits; pi is about 4 * hits / (threads * samples).
#define THREADS 256

extern "C" __global__ void monte_carlo_pi(unsigned long long* __restrict__ hits, int samples, unsigned int seed)
{
    __shared__ unsigned int counts[THREADS];
    unsigned int state = seed + blockIdx.x * blockDim.x + threadIdx.x;
    state = (state ^ 61) ^ (state >> 16);  // wang_hash
    state *= 9;
    state = state ^ (state >> 4);
    state *= 0x27d4eb2d;
    state = state ^ (state >> 15);

    unsigned int count = 0;
    for (int s = 0; s < samples; s++) {
        state ^= state << 13;  // xorshift32 (Marsaglia)
        state ^= state >> 17;
        state ^= state << 5;
        float x = state * 2.3283064e-10f;  // / 2^32
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        float y = state * 2.3283064e-10f;
        if (x * x + y * y <= 1.0f) count++;
    }

    counts[threadIdx.x] = count;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride)
            counts[threadIdx.x] += counts[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(hits, (unsigned long long)counts[0]);
}
