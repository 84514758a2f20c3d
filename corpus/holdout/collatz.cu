// Collatz (3n+1) total stopping time of every number in [start, start + n): one thread per
// number, a data-dependent while loop in 64-bit integers, so the lanes of a warp diverge and a
// warp runs as long as its longest chain.
extern "C" __global__ void collatz_steps(int* __restrict__ steps, unsigned long long start, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned long long v = start + i;
        int s = 0;
        while (v != 1) {
            if (v & 1)
                v = 3 * v + 1;
            else
                v >>= 1;
            s++;
        }
        steps[i] = s;
    }
}
