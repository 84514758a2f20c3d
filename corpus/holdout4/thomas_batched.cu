// A batch of independent tridiagonal systems solved by the Thomas algorithm, one thread per system,
// in double precision, as in Zhang, Cohen & Owens ("Fast Tridiagonal Solvers on the GPU", PPoPP
// 2010) for the batched case: the systems interleaved (equation i of system s at i * num_systems + s,
// so a warp's loads coalesce), a forward sweep overwriting c and d with the eliminated coefficients
// (a division per row), then back substitution from the last row up.
extern "C" __global__ void thomas_batched(const double* __restrict__ a, const double* __restrict__ b, double* c,
                                          double* d, double* __restrict__ x, int system_size, int num_systems)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= num_systems) return;
    int stride = num_systems;
    int base = tid;

    c[base] = c[base] / b[base];
    d[base] = d[base] / b[base];
    for (int i = 1; i < system_size; i++) {
        int k = base + i * stride;
        double tmp = b[k] - a[k] * c[k - stride];
        c[k] = c[k] / tmp;
        d[k] = (d[k] - a[k] * d[k - stride]) / tmp;
    }

    int last = base + (system_size - 1) * stride;
    x[last] = d[last];
    for (int i = system_size - 2; i >= 0; i--) {
        int k = base + i * stride;
        x[k] = d[k] - c[k] * x[k + stride];
    }
}
