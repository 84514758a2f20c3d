// European call and put prices by Black-Scholes, in the manner of the CUDA samples'
// BlackScholes: the polynomial approximation of the cumulative normal, fast intrinsics
// (__expf, __logf, __fdividef), two options per thread through float2, 128-thread blocks.
__device__ inline float cnd_gpu(float d)
{
    const float A1 = 0.31938153f;
    const float A2 = -0.356563782f;
    const float A3 = 1.781477937f;
    const float A4 = -1.821255978f;
    const float A5 = 1.330274429f;
    const float RSQRT2PI = 0.39894228040143267793994605993438f;
    float K = __fdividef(1.0f, (1.0f + 0.2316419f * fabsf(d)));
    float cnd = RSQRT2PI * __expf(-0.5f * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
    if (d > 0) cnd = 1.0f - cnd;
    return cnd;
}

__device__ inline void black_scholes_body(float& call, float& put, float S, float X, float T, float R, float V)
{
    float sqrtT = __fdividef(1.0f, rsqrtf(T));
    float d1 = __fdividef(__logf(S / X) + (R + 0.5f * V * V) * T, V * sqrtT);
    float d2 = d1 - V * sqrtT;
    float cndd1 = cnd_gpu(d1);
    float cndd2 = cnd_gpu(d2);
    float expRT = __expf(-R * T);
    call = S * cndd1 - X * expRT * cndd2;
    put = X * expRT * (1.0f - cndd2) - S * (1.0f - cndd1);
}

extern "C" __global__ void __launch_bounds__(128) black_scholes(float2* __restrict__ d_call, float2* __restrict__ d_put,
                                                               const float2* __restrict__ d_price,
                                                               const float2* __restrict__ d_strike,
                                                               const float2* __restrict__ d_years,
                                                               float riskfree, float volatility, int opt_n)
{
    const int opt = blockDim.x * blockIdx.x + threadIdx.x;
    if (opt < opt_n / 2) {
        float call1, put1, call2, put2;
        float2 S = d_price[opt], X = d_strike[opt], T = d_years[opt];
        black_scholes_body(call1, put1, S.x, X.x, T.x, riskfree, volatility);
        black_scholes_body(call2, put2, S.y, X.y, T.y, riskfree, volatility);
        d_call[opt] = make_float2(call1, call2);
        d_put[opt] = make_float2(put1, put2);
    }
}
