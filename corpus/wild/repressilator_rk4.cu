// An ensemble of ODE integrations for a parameter scan, as systems-biology GPU codes write it (one
// system per thread, a classical fixed-step RK4 in the Numerical Recipes shape, the right-hand side a
// separate __device__ function): Elowitz & Leibler's repressilator (Nature 403, 2000), three genes
// each repressed by the previous one's protein, mRNA m_i and protein p_i,
//     dm_i/dt = -m_i + alpha / (1 + p_j^2) + alpha0,    dp_i/dt = -beta (p_i - m_i),
// with (alpha, alpha0, beta) per system. The right-hand side is kept out of line (__noinline__, as its
// author did to hold the kernel's registers and compile time down: it is called four times a step), so
// the state and the stages live in local memory and are passed by pointer; its Hill term divides with
// __fdividef. The state is stored structure-of-arrays (equation-major) for coalescing.
#define NEQ 6

struct RepressilatorParams {
    float alpha;   // maximal transcription rate (repressor-free), in units of the protein's K_M
    float alpha0;  // leaky transcription
    float beta;    // protein decay rate / mRNA decay rate
};

__device__ __noinline__ void repressilator_rhs(const float* y, float* dydt, const RepressilatorParams& p)
{
    // y = (m_lacI, m_tetR, m_cI, p_lacI, p_tetR, p_cI): cI represses lacI, lacI tetR, tetR cI
#pragma unroll
    for (int i = 0; i < 3; ++i) {
        const float rep = y[3 + (i + 2) % 3];
        dydt[i] = -y[i] + __fdividef(p.alpha, 1.0f + rep * rep) + p.alpha0;
        dydt[3 + i] = -p.beta * (y[3 + i] - y[i]);
    }
}

extern "C" __global__ void repressilator_ensemble(const float* __restrict__ params, const float* __restrict__ y0,
                                                  float* __restrict__ y_out, int nsys, int nsteps, float dt)
{
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nsys) return;

    RepressilatorParams p;
    p.alpha = params[s];
    p.alpha0 = params[nsys + s];
    p.beta = params[2 * nsys + s];

    float y[NEQ], yt[NEQ], k1[NEQ], k2[NEQ], k3[NEQ], k4[NEQ];
    for (int e = 0; e < NEQ; ++e) y[e] = y0[e * nsys + s];

    const float h2 = 0.5f * dt, h6 = dt / 6.0f;
    for (int step = 0; step < nsteps; ++step) {
        repressilator_rhs(y, k1, p);
        for (int e = 0; e < NEQ; ++e) yt[e] = y[e] + h2 * k1[e];
        repressilator_rhs(yt, k2, p);
        for (int e = 0; e < NEQ; ++e) yt[e] = y[e] + h2 * k2[e];
        repressilator_rhs(yt, k3, p);
        for (int e = 0; e < NEQ; ++e) yt[e] = y[e] + dt * k3[e];
        repressilator_rhs(yt, k4, p);
        for (int e = 0; e < NEQ; ++e) y[e] += h6 * (k1[e] + 2.0f * (k2[e] + k3[e]) + k4[e]);
    }

    for (int e = 0; e < NEQ; ++e) y_out[e * nsys + s] = y[e];
}
