// Kernels whose SASS walk has a known answer: the FFMAs a warp issues follow from the arguments.

// n FMAs per thread in a loop ptxas unrolls (by 4) with a remainder loop
extern "C" __global__ void dot_n(float* out, const float* a, float b, int n) {
    float acc = 0.0f;
    for (int i = 0; i < n; ++i)
        acc = fmaf(a[i], b, acc);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// lanes below k run m FMAs, the others 2m + 1: a warp split by k runs both sides
extern "C" __global__ void split(float* out, const float* a, int k, int m) {
    float acc = a[threadIdx.x];
    if ((int)threadIdx.x < k) {
        for (int i = 0; i < m; ++i)
            acc = fmaf(acc, 1.0001f, 0.5f);
    } else {
        for (int i = 0; i < 2 * m + 1; ++i)
            acc = fmaf(acc, 0.9999f, -0.25f);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// a barrier inside a loop of t trips: every warp passes t + 1 barriers
extern "C" __global__ void staged(float* out, const float* a, int t) {
    __shared__ float s[128];
    float acc = 0.0f;
    for (int j = 0; j < t; ++j) {
        s[threadIdx.x] = a[j * blockDim.x + threadIdx.x];
        __syncthreads();
        acc = fmaf(s[(threadIdx.x + 1) % blockDim.x], 2.0f, acc);
    }
    __syncthreads();
    out[threadIdx.x] = acc;
}

// memory: a strided load (1 or 32 lines a warp), then the other warp's elements (in L1 by then),
// a shared store without conflicts and a shared load with a 2-way conflict
extern "C" __global__ void loads(float* out, const float* a, int stride) {
    __shared__ float s[2048];
    int t = threadIdx.x;
    float v = a[t * stride];
    float w = a[((t + 32) % 64) * stride];
    s[t] = v;
    __syncthreads();
    out[t] = s[(2 * t) % 2048] + w;
}

// a search loop with a return on each of two outcomes, as a hash table's probe is written: lane l
// stops after l % m + 1 trips of one FMA, even lanes by the first return (after a store), odd ones
// by the second. A warp issues the loop's FMA m times (its longest lane), whichever lanes are left
extern "C" __global__ void search(float* out, const float* a, int m) {
    int lane = threadIdx.x & 31;
    float acc = 0.0f;
    for (int t = 0;; ++t) {
        acc = fmaf(acc, 1.5f, a[t & 1023]);
        if (t == lane % m && (lane & 1) == 0) {
            out[threadIdx.x] = a[(t + 512) & 1023] + acc;
            return;
        }
        if (t == lane % m)
            return;
    }
}

// a 64-bit index divided by an int, as a thread-per-(edge, feature) kernel writes it: small operands
// take ptxas's 32-bit path (MUFU.RCP), not the call to its 64-bit division routine
extern "C" __global__ void div64(float* out, const float* a, int features) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int e = (int)(i / features);
    out[i] = a[e];
}

// m trips of powf and logf over three lines, as a focal loss writes them (ptxas hoists and shares part
// of their work, so a trip's SASS does fewer FP instructions than the PTX's iteration): m trips
extern "C" __global__ void powlog(float* out, const float* a, float g, int m) {
    float acc = 0.0f;
    for (int t = 0; t < m; ++t) {
        float p = a[(threadIdx.x + t) & 1023];
        float term_p = powf(1.0f - p, g) * logf(fmaxf(p, 1e-30f));
        float term_n = powf(p, g) * logf(fmaxf(1.0f - p, 1e-30f));
        acc += term_p - 0.25f * term_n;
    }
    out[threadIdx.x] = acc;
}


// 2-byte stores `stride` halfwords apart, as a paged KV cache's values are scattered; with `rmw` the
// thread reads its element first (an update in place)
extern "C" __global__ void scatter16(unsigned short* out, int stride, int rmw) {
    int t = threadIdx.x;
    unsigned short v = (unsigned short)t;
    if (rmw) v += out[t * stride];
    out[t * stride] = v;
}

// a warp's total added to a grid-wide count by its thread 0 after a barrier, as cuDF's valid_if ends: ptxas
// exits the other threads (@P0 EXIT), then lane 0 issues the RED, with no other work after the barrier
extern "C" __global__ void tail_count(float* out, const float* a, int k) {
    int v = __float_as_int(a[threadIdx.x]) & k;
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd((int*)out, v);
}

// A tree reduction: ptxas makes `if (t < k)` predicated code, so both warps issue the loads and the store of
// every trip, the second warp with its lanes off from k = 16 on (ncu counts those instructions too).
extern "C" __global__ void tree(const float *a, float *out) {
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = a[t];
    __syncthreads();
    for (int k = 32; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// cosf and sinf of small arguments: the fast path only (the Payne-Hanek reduction and the infinity case
// are never taken), so every SASS instruction is issued at most once
extern "C" __global__ void sincos_fast(float* out, const float* a, float g) {
    float x = a[threadIdx.x] * g;
    out[threadIdx.x] = cosf(x) * 2.0f + sinf(x);
}

// as sincos_fast, and lane 0 takes powf's special case (an exponent of 0) at a branch the SASS keeps: the other
// lanes' work is theirs, not what ptxas folded of the sine's branches, so still no instruction twice
extern "C" __global__ void sincos_split(float* out, const float* a, float g) {
    float x = a[threadIdx.x] * g;
    float p = powf(g + 1.0f, (float)(threadIdx.x % 32));
    out[threadIdx.x] = (cosf(x) + sinf(x)) * p;
}

// n loads per thread in a loop NVVM unrolls by 4, each followed by an if that every lane takes (a is zeros,
// b > 0): the unrolled trips do other work between their loads, and each trip is issued once
extern "C" __global__ void gated_n(float* out, const float* a, float b, int n) {
    float acc = 0.0f;
    for (int i = 0; i < n; ++i) {
        float v = a[(i * 64 + threadIdx.x) & 1023];
        if (v < b)
            acc += 1.0f / (v + 2.0f);
    }
    out[threadIdx.x] = acc;
}
