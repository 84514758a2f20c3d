// One stage of a radix-2 Stockham FFT, out of place, as Govindaraju et al. ("High Performance
// Discrete Fourier Transforms on Graphics Processors", SC 2008) write their FftIteration: a thread
// per butterfly j reads data0[j] and data0[j + N/2], twists the second by
// e^{-2 pi i (j mod Ns) / (2 Ns)} (sincosf), and writes the sum and difference Ns apart at
// expand(j, Ns, 2). log2(N) launches, Ns = 1, 2, 4, ..., make the transform; this is one of them.
#define R 2
#define M_PI 3.14159265358979323846f

__device__ int expand(int idxL, int N1, int N2)
{
    return (idxL / N1) * N1 * N2 + (idxL % N1);
}

__device__ void FFT2(float2& v0, float2& v1)
{
    float2 v0_ = v0;
    v0.x = v0_.x + v1.x;
    v0.y = v0_.y + v1.y;
    v1.x = v0_.x - v1.x;
    v1.y = v0_.y - v1.y;
}

extern "C" __global__ void FftIteration(const float2* __restrict__ data0, float2* __restrict__ data1, int N, int Ns)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= N / R) return;
    float2 v[R];
    int idxS = j;
    float angle = -2 * M_PI * (j % Ns) / (Ns * R);
    for (int r = 0; r < R; r++) {
        v[r] = data0[idxS + r * N / R];
        float s, c;
        sincosf(r * angle, &s, &c);
        float2 t = v[r];
        v[r].x = t.x * c - t.y * s;
        v[r].y = t.x * s + t.y * c;
    }
    FFT2(v[0], v[1]);
    int idxD = expand(j, Ns, R);
    for (int r = 0; r < R; r++) data1[idxD + r * Ns] = v[r];
}
