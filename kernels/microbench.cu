// Microbenchmarks: the hardware rates the timing model needs, measured on the device itself.
//
// Each kernel saturates one resource and does as little else as it can; kernels/microbench.py
// launches them (through kernels/gpu.py: NVRTC's cubin, CUDA events, median of repeats) and
// turns the times into rates. Conventions used throughout:
//   * Work whose result nobody reads is deleted by the compiler, so every kernel folds its
//     values into one number and stores it only under a condition that the data makes false
//     (`if (acc == -1.f) sink[0] = acc`): the work stays, the store never happens.
//   * Instructions whose count is the measured figure (IMAD, LOP3, MUFU, shared loads) are
//     written as inline PTX, so that the compiler neither folds them nor picks another form;
//     kernels/microbench.py documents the SASS each one becomes (checked with nvdisasm).
//   * Throughput kernels keep several independent dependency chains per thread and fill the
//     SM (2048 threads: __launch_bounds__ caps the registers so that every block is resident
//     at once, one full wave), so that latency is hidden and the pipe is the limit.
//   * Block timestamps: with a non-null `st`, thread 0 of each block writes
//     [clock64 at start, clock64 at end, %globaltimer ns at start, at end]; their ratio is the
//     SM clock the kernel actually ran at (kernels/microbench.py: cycles per ns).

#include <mma.h>

using namespace nvcuda;

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

#define STAMP_BEGIN                 \
  long long stamp_c0 = clock64();   \
  unsigned long long stamp_g0 = global_ns();

#define STAMP_END(st)                                                   \
  if (st) {                                                             \
    __syncthreads();                                                    \
    if (threadIdx.x == 0) {                                             \
      long long c1 = clock64();                                         \
      unsigned long long g1 = global_ns();                              \
      long long* p = (st) + 4 * blockIdx.x;                             \
      p[0] = stamp_c0; p[1] = c1; p[2] = (long long)stamp_g0; p[3] = (long long)g1; \
    }                                                                   \
  }

// ---------------------------------------------------------------------------------------------
// Device memory (DRAM and L2) bandwidth. Grid-stride loops over float4 (16 B per lane, 512 B
// per warp instruction, fully coalesced), four independent loads in flight per thread before
// the first use: 2048 threads x 64 B per SM is far more than bandwidth x latency needs.
// On buffers >> L2 (1 GiB vs 50 MB) every byte comes from DRAM once. `passes` > 1 re-reads a
// buffer that fits in L2: loads use ld.global.cg (__ldcg: cached in L2, not in L1), so the
// figure is L2 bandwidth, not L1 hits.

extern "C" __global__ void __launch_bounds__(256) mem_read(const float4* in, unsigned long long n, int passes,
                                                           float* sink) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  const unsigned long long tid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
  for (int p = 0; p < passes; p++) {
    unsigned long long i = tid;
    for (; i + 3 * stride < n; i += 4 * stride) {
      float4 a = __ldcg(in + i), b = __ldcg(in + i + stride);
      float4 c = __ldcg(in + i + 2 * stride), d = __ldcg(in + i + 3 * stride);
      acc += ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w)) +
             ((c.x + c.y) + (c.z + c.w)) + ((d.x + d.y) + (d.z + d.w));
    }
    for (; i < n; i += stride) {
      float4 a = __ldcg(in + i);
      acc += (a.x + a.y) + (a.z + a.w);
    }
  }
  if (acc == -1.f) sink[0] = acc;  // the buffer holds 1.0f: never taken
}

extern "C" __global__ void __launch_bounds__(256) mem_write(float4* out, unsigned long long n, float v) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  const float4 w = make_float4(v, v, v, v);
  for (; i + 3 * stride < n; i += 4 * stride) {
    out[i] = w; out[i + stride] = w; out[i + 2 * stride] = w; out[i + 3 * stride] = w;
  }
  for (; i < n; i += stride) out[i] = w;
}

extern "C" __global__ void __launch_bounds__(256) mem_copy(const float4* in, float4* out, unsigned long long n) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    float4 a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
    out[i] = a; out[i + stride] = b; out[i + 2 * stride] = c; out[i + 3 * stride] = d;
  }
  for (; i < n; i += stride) out[i] = in[i];
}

// ---------------------------------------------------------------------------------------------
// Shared-memory bandwidth and bank conflicts. Two 1024-thread blocks per SM; each lane reads
// word lane*K + 32j (j = 0..15, compile-time offsets folded into LDS's immediate): K = 1 is
// conflict-free (one wavefront of 128 B per warp instruction), K = 2, 4, ..., 32 put K distinct
// words in one bank (a K-way conflict, K wavefronts). Offsets step by 32 words (the same bank
// for a lane) rather than by one, or ptxas merges a lane's neighbouring words into LDS.64/.128.
// Each load's address adds the word the previous load of its chain returned (the array holds
// zeros, so the address does not move): ptxas cannot hoist the loads out of the loop, as it
// does with loop-invariant shared loads even when they are inline PTX. 4 chains per warp x 64
// warps ask for far more than the one wavefront per clock the SM serves, so the shared pipe is
// the limit (one IADD per load besides; the SM issues 4 instructions per clock).

__device__ __forceinline__ unsigned lds32(unsigned addr) {
  unsigned v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr));
  return v;
}

__device__ __forceinline__ uint4 lds128(unsigned addr) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(addr));
  return v;
}

#define SMEM_READ32(NAME, K)                                                                      \
  extern "C" __global__ void __launch_bounds__(1024, 2) NAME(int iters, float* sink, long long* st) { \
    STAMP_BEGIN                                                                                   \
    __shared__ unsigned s[32 * K + 32 * 16];                                                      \
    for (int i = threadIdx.x; i < 32 * K + 32 * 16; i += blockDim.x) s[i] = 0u;                   \
    __syncthreads();                                                                              \
    const unsigned base = (unsigned)__cvta_generic_to_shared(s) + 4u * K * (threadIdx.x & 31);    \
    unsigned x0 = 0, x1 = 0, x2 = 0, x3 = 0;                                                      \
    _Pragma("unroll 1") for (int it = 0; it < iters; it++) {                                      \
      _Pragma("unroll") for (int j = 0; j < 16; j += 4) {                                         \
        x0 = lds32(base + x0 + 128 * j);       x1 = lds32(base + x1 + 128 * (j + 1));             \
        x2 = lds32(base + x2 + 128 * (j + 2)); x3 = lds32(base + x3 + 128 * (j + 3));             \
      }                                                                                           \
    }                                                                                             \
    if ((x0 | x1 | x2 | x3) == 0xdeadbeefu) sink[0] = 1.f;  /* the array holds zeros */          \
    STAMP_END(st)                                                                                 \
  }

SMEM_READ32(smem_read32_stride1, 1)
SMEM_READ32(smem_read32_stride2, 2)
SMEM_READ32(smem_read32_stride4, 4)
SMEM_READ32(smem_read32_stride8, 8)
SMEM_READ32(smem_read32_stride16, 16)
SMEM_READ32(smem_read32_stride32, 32)

// 16-byte loads: lane reads 16-byte word lane + 32j; a quarter warp (8 lanes, 128 contiguous
// bytes) is one wavefront, so a warp instruction moves 512 B in 4 wavefronts, conflict-free.
// The next address adds the sum of the 4 words loaded (zeros): all 16 bytes stay live.
extern "C" __global__ void __launch_bounds__(1024, 2) smem_read128(int iters, float* sink, long long* st) {
  STAMP_BEGIN
  __shared__ uint4 s[32 * 4];
  for (int i = threadIdx.x; i < 32 * 4; i += blockDim.x) s[i] = make_uint4(0u, 0u, 0u, 0u);
  __syncthreads();
  const unsigned base = (unsigned)__cvta_generic_to_shared(s) + 16u * (threadIdx.x & 31);
  unsigned x0 = 0, x1 = 0;
#pragma unroll 1
  for (int it = 0; it < iters; it++) {
#pragma unroll
    for (int j = 0; j < 4; j += 2) {  // 4 x 512 B per iteration, two chains
      uint4 v = lds128(base + x0 + 512 * j);
      x0 = (v.x + v.y) + (v.z + v.w);
      v = lds128(base + x1 + 512 * (j + 1));
      x1 = (v.x + v.y) + (v.z + v.w);
    }
  }
  if ((x0 | x1) == 0xdeadbeefu) sink[0] = 1.f;
  STAMP_END(st)
}

// ---------------------------------------------------------------------------------------------
// Arithmetic throughput: 8 independent chains per thread, unrolled so that loop overhead is
// under 2% of the issued instructions; 2048 threads per SM (64 warps, 16 per scheduler) x 8
// chains keep every pipe busy whatever its latency.

extern "C" __global__ void __launch_bounds__(256, 8) fp32_ffma(int iters, float b, float c, float* sink,
                                                              long long* st) {
  STAMP_BEGIN
  float x[8];
#pragma unroll
  for (int k = 0; k < 8; k++) x[k] = threadIdx.x * 1e-3f + k;
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int u = 0; u < 32; u++) {
#pragma unroll
      for (int k = 0; k < 8; k++) x[k] = fmaf(x[k], b, c);  // 256 FFMA per iteration
    }
  }
  float acc = 0.f;
#pragma unroll
  for (int k = 0; k < 8; k++) acc += x[k];
  if (acc == -1.f) sink[0] = acc;  // b < 1, c > 0: x stays positive
  STAMP_END(st)
}

extern "C" __global__ void __launch_bounds__(256, 8) fp64_dfma(int iters, double b, double c, float* sink,
                                                              long long* st) {
  STAMP_BEGIN
  double x[8];
#pragma unroll
  for (int k = 0; k < 8; k++) x[k] = threadIdx.x * 1e-3 + k;
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int u = 0; u < 16; u++) {
#pragma unroll
      for (int k = 0; k < 8; k++) x[k] = fma(x[k], b, c);  // 128 DFMA per iteration
    }
  }
  double acc = 0.;
#pragma unroll
  for (int k = 0; k < 8; k++) acc += x[k];
  if (acc == -1.) sink[0] = (float)acc;
  STAMP_END(st)
}

// Integer multiply-add (PTX mad.lo.u32 -> SASS IMAD) and three-input logic (lop3.b32 -> LOP3).
extern "C" __global__ void __launch_bounds__(256, 8) int_imad(int iters, unsigned b, unsigned c, float* sink,
                                                             long long* st) {
  STAMP_BEGIN
  unsigned x[8];
#pragma unroll
  for (int k = 0; k < 8; k++) x[k] = threadIdx.x + k;
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int u = 0; u < 16; u++) {
#pragma unroll
      for (int k = 0; k < 8; k++) asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x[k]) : "r"(b), "r"(c));
    }
  }
  unsigned acc = 0;
#pragma unroll
  for (int k = 0; k < 8; k++) acc ^= x[k];
  if (acc == 0xdeadbeefu) sink[0] = (float)acc;
  STAMP_END(st)
}

// 64-bit-result integer multiply-adds, as address arithmetic and multiword (carry-chain) code issue them:
// mad.wide.u32 -> IMAD.WIDE.U32 (a 64-bit sum, a register pair; each step also folds the pair's halves by a
// LOP3 so that both halves are live) and mad.hi.u32 -> IMAD.HI.U32. Eight chains per thread, each through
// its own accumulator, as int_imad.
extern "C" __global__ void __launch_bounds__(256, 8) int_imad_wide(int iters, unsigned b, unsigned c, float* sink,
                                                                  long long* st) {
  STAMP_BEGIN
  unsigned long long x[8];
  const unsigned long long w = ((unsigned long long)c << 32) | b;  // a loop-invariant 64-bit addend
#pragma unroll
  for (int k = 0; k < 8; k++) x[k] = threadIdx.x + k + c;
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int u = 0; u < 16; u++) {
#pragma unroll
      for (int k = 0; k < 8; k++)  // x = (lo ^ hi)(x) * b + w: LOP3 + IMAD.WIDE.U32 Rx, Rt, Rb, Rw
        asm volatile("{.reg .b32 lo, hi; mov.b64 {lo, hi}, %0; xor.b32 lo, lo, hi; mad.wide.u32 %0, lo, %1, %2;}"
                     : "+l"(x[k]) : "r"(b), "l"(w));
    }
  }
  unsigned long long acc = 0;
#pragma unroll
  for (int k = 0; k < 8; k++) acc ^= x[k];
  if (acc == 0xdeadbeefull) sink[0] = (float)acc;
  STAMP_END(st)
}

// The multiply forms alone, each step one LOP3 (folding the 64-bit value's halves, so both stay live) and one
// multiply with no addend: ptxas keeps each as one SASS instruction (with a 64-bit addend it splits the add off
// into IADD3 + IADD3.X, as in int_imad_wide). The same LOP3 in each, so the three differ only in the multiply:
// mul.lo.u32 -> IMAD, mul.wide.u32 -> IMAD.WIDE.U32, mul.wide.s32 -> IMAD.WIDE.
#define XOR_MUL_CHAINS(NAME, MUL)                                                                          \
  extern "C" __global__ void __launch_bounds__(256, 8) NAME(int iters, unsigned b, unsigned c, float* sink, \
                                                            long long* st) {                              \
    STAMP_BEGIN                                                                                           \
    unsigned long long x[8];                                                                              \
    _Pragma("unroll") for (int k = 0; k < 8; k++) x[k] = threadIdx.x + k + c;                             \
    for (int i = 0; i < iters; i++) {                                                                     \
      _Pragma("unroll") for (int u = 0; u < 16; u++) {                                                    \
        _Pragma("unroll") for (int k = 0; k < 8; k++)                                                     \
          asm volatile("{.reg .b32 lo, hi; mov.b64 {lo, hi}, %0; xor.b32 lo, lo, hi; " MUL "}"            \
                       : "+l"(x[k]) : "r"(b));                                                            \
      }                                                                                                   \
    }                                                                                                     \
    unsigned long long acc = 0;                                                                           \
    _Pragma("unroll") for (int k = 0; k < 8; k++) acc ^= x[k];                                            \
    if (acc == 0xdeadbeefull) sink[0] = (float)acc;                                                       \
    STAMP_END(st)                                                                                         \
  }
XOR_MUL_CHAINS(int_xor_imad, "mul.lo.u32 lo, lo, %1; mov.b64 %0, {lo, hi};")
XOR_MUL_CHAINS(int_xor_imad_wide_u32, "mul.wide.u32 %0, lo, %1;")
XOR_MUL_CHAINS(int_xor_imad_wide, "mul.wide.s32 %0, lo, %1;")

extern "C" __global__ void __launch_bounds__(256, 8) int_imad_hi(int iters, unsigned b, unsigned c, float* sink,
                                                                long long* st) {
  STAMP_BEGIN
  unsigned x[8];
#pragma unroll
  for (int k = 0; k < 8; k++) x[k] = threadIdx.x + k;
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int u = 0; u < 16; u++) {
#pragma unroll
      for (int k = 0; k < 8; k++) asm volatile("mad.hi.u32 %0, %0, %1, %2;" : "+r"(x[k]) : "r"(b), "r"(c));
    }
  }
  unsigned acc = 0;
#pragma unroll
  for (int k = 0; k < 8; k++) acc ^= x[k];
  if (acc == 0xdeadbeefu) sink[0] = (float)acc;
  STAMP_END(st)
}

extern "C" __global__ void __launch_bounds__(256, 8) int_lop3(int iters, unsigned b, unsigned c, float* sink,
                                                             long long* st) {
  STAMP_BEGIN
  unsigned x[8];
#pragma unroll
  for (int k = 0; k < 8; k++) x[k] = threadIdx.x + k;
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int u = 0; u < 16; u++) {
#pragma unroll
      for (int k = 0; k < 8; k++)  // (x ^ b ^ c): LUT 0x96
        asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(x[k]) : "r"(b), "r"(c));
    }
  }
  unsigned acc = 0;
#pragma unroll
  for (int k = 0; k < 8; k++) acc += x[k];
  if (acc == 0xdeadbeefu) sink[0] = (float)acc;
  STAMP_END(st)
}

// Special-function unit: rsqrt.approx.ftz.f32 -> MUFU.RSQ alone (x -> x^-1/2 stays near 1),
// and __expf's form, ex2.approx.ftz.f32 of x * (-log2 e) -> FMUL + MUFU.EX2 (x -> e^-x stays
// in (0, 1)). Counted: MUFU instructions per thread.
extern "C" __global__ void __launch_bounds__(256, 8) sfu_rsqrt(int iters, float* sink, long long* st) {
  STAMP_BEGIN
  float x[8];
#pragma unroll
  for (int k = 0; k < 8; k++) x[k] = 1.f + threadIdx.x * 1e-3f + k;
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int u = 0; u < 16; u++) {
#pragma unroll
      for (int k = 0; k < 8; k++) asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(x[k]));
    }
  }
  float acc = 0.f;
#pragma unroll
  for (int k = 0; k < 8; k++) acc += x[k];
  if (acc == -1.f) sink[0] = acc;
  STAMP_END(st)
}

extern "C" __global__ void __launch_bounds__(256, 8) sfu_exp(int iters, float neg_log2e, float* sink, long long* st) {
  STAMP_BEGIN
  float x[8];
#pragma unroll
  for (int k = 0; k < 8; k++) x[k] = threadIdx.x * 1e-4f + 0.1f * k;
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int u = 0; u < 16; u++) {
#pragma unroll
      for (int k = 0; k < 8; k++) asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(x[k]) : "f"(x[k] * neg_log2e));
    }
  }
  float acc = 0.f;
#pragma unroll
  for (int k = 0; k < 8; k++) acc += x[k];
  if (acc == -1.f) sink[0] = acc;
  STAMP_END(st)
}

// ---------------------------------------------------------------------------------------------
// Tensor cores through nvcuda::wmma, as the catalog's sgemm_tf32_wmma and dgemm_wmma use them.
// Each warp loads one A and one B fragment once and issues mma_sync into independent
// accumulators over and over (no memory traffic in the loop). TF32 m16n16k8: 4096 FLOP per
// mma_sync (SASS: four HMMA.1684.F32.TF32, each m16n8k4); FP64 m8n8k4: 512 FLOP (one DMMA.8x8x4).

extern "C" __global__ void __launch_bounds__(256, 4) wmma_tf32(const float* ab, float* out, int iters, int store,
                                                              long long* st) {
  STAMP_BEGIN
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[4];
  wmma::load_matrix_sync(fa, ab, 8);
  wmma::load_matrix_sync(fb, ab + 128, 8);
#pragma unroll
  for (int t = 0; t < fa.num_elements; t++) fa.x[t] = wmma::__float_to_tf32(fa.x[t]);
#pragma unroll
  for (int t = 0; t < fb.num_elements; t++) fb.x[t] = wmma::__float_to_tf32(fb.x[t]);
#pragma unroll
  for (int k = 0; k < 4; k++) wmma::fill_fragment(acc[k], 0.f);
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int k = 0; k < 4; k++) wmma::mma_sync(acc[k], fa, fb, acc[k]);
  }
  if (store) {  // 0 at run time; the compiler cannot know, so the MMAs stay
#pragma unroll
    for (int k = 0; k < 4; k++) wmma::store_matrix_sync(out + 256 * k, acc[k], 16, wmma::mem_row_major);
  }
  STAMP_END(st)
}

extern "C" __global__ void __launch_bounds__(256, 4) wmma_fp64(const double* ab, double* out, int iters, int store,
                                                              long long* st) {
  STAMP_BEGIN
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc[8];
  wmma::load_matrix_sync(fa, ab, 4);
  wmma::load_matrix_sync(fb, ab + 32, 4);
#pragma unroll
  for (int k = 0; k < 8; k++) wmma::fill_fragment(acc[k], 0.);
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int k = 0; k < 8; k++) wmma::mma_sync(acc[k], fa, fb, acc[k]);
  }
  if (store) {
#pragma unroll
    for (int k = 0; k < 8; k++) wmma::store_matrix_sync(out + 64 * k, acc[k], 8, wmma::mem_row_major);
  }
  STAMP_END(st)
}

// The same through mma.sync in inline PTX, the shapes the tensor cores of sm_90 take directly
// (no wmma): TF32 m16n8k8 (2048 FLOP) and FP64 m16n8k16 (4096 FLOP, new in sm_90; wmma's
// m8n8k4 is the sm_80 shape). Operands are made in registers from the thread index: no memory.

extern "C" __global__ void __launch_bounds__(256, 4) mma_tf32_m16n8k8(int iters, float* sink, long long* st) {
  STAMP_BEGIN
  unsigned a[4], b[2];
  float c[8][4];
#pragma unroll
  for (int t = 0; t < 4; t++) asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(a[t]) : "f"(1e-3f * (threadIdx.x + t)));
#pragma unroll
  for (int t = 0; t < 2; t++) asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(b[t]) : "f"(1e-3f * (threadIdx.x - t)));
#pragma unroll
  for (int k = 0; k < 8; k++)
#pragma unroll
    for (int t = 0; t < 4; t++) c[k][t] = 0.f;
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int k = 0; k < 8; k++)
      asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                   "{%8, %9}, {%0, %1, %2, %3};"
                   : "+f"(c[k][0]), "+f"(c[k][1]), "+f"(c[k][2]), "+f"(c[k][3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
  float acc = 0.f;
#pragma unroll
  for (int k = 0; k < 8; k++) acc += (c[k][0] + c[k][1]) + (c[k][2] + c[k][3]);
  if (acc == -1.f) sink[0] = acc;
  STAMP_END(st)
}

extern "C" __global__ void __launch_bounds__(256, 2) mma_fp64_m16n8k16(int iters, float* sink, long long* st) {
  STAMP_BEGIN
  double a[8], b[4], c[4][4];
#pragma unroll
  for (int t = 0; t < 8; t++) a[t] = 1e-3 * (threadIdx.x + t);
#pragma unroll
  for (int t = 0; t < 4; t++) b[t] = 1e-3 * (threadIdx.x - t);
#pragma unroll
  for (int k = 0; k < 4; k++)
#pragma unroll
    for (int t = 0; t < 4; t++) c[k][t] = 0.;
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int k = 0; k < 4; k++)
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
                   "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};"
                   : "+d"(c[k][0]), "+d"(c[k][1]), "+d"(c[k][2]), "+d"(c[k][3])
                   : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
                     "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
  }
  double acc = 0.;
#pragma unroll
  for (int k = 0; k < 4; k++) acc += (c[k][0] + c[k][1]) + (c[k][2] + c[k][3]);
  if (acc == -1.) sink[0] = (float)acc;
  STAMP_END(st)
}

// ---------------------------------------------------------------------------------------------
// Load latency: one thread follows a chain of pointers (p = *p), each load depending on the one
// before, so the time per step is the load-to-use latency; each step is one load instruction
// and nothing else (inline PTX on the register address: no index arithmetic in the chain). The
// host writes the chain as a random cycle over 128-byte lines of a region sized for the level
// (L1: 32 KB, L2: 8 MB, DRAM: 256 MB read cold after a 1 GiB write has flushed L2), so that
// no two steps share a line and no stride pattern can be prefetched. `chase_ca` uses the default
// ld.global (cached in L1); `chase_cg` uses ld.global.cg (L1 bypassed) so that the L2 and DRAM
// figures carry no L1 hits. `warm` untimed steps first fill the level.
// out = [cycles (clock64), ns (%globaltimer), final pointer].

#define CHASE(NAME, PTX)                                                                           \
  extern "C" __global__ void NAME(unsigned long long start, int warm, int steps, long long* out) { \
    unsigned long long p = start;                                                                  \
    for (int i = 0; i < warm; i++) asm volatile(PTX : "=l"(p) : "l"(p) : "memory");                \
    const long long c0 = clock64();                                                                \
    const unsigned long long g0 = global_ns();                                                     \
    for (int i = 0; i < steps; i++) asm volatile(PTX : "=l"(p) : "l"(p) : "memory");               \
    const long long c1 = clock64();                                                                \
    const unsigned long long g1 = global_ns();                                                     \
    out[0] = c1 - c0; out[1] = (long long)(g1 - g0); out[2] = (long long)p;                        \
  }

CHASE(chase_ca, "ld.global.u64 %0, [%1];")
CHASE(chase_cg, "ld.global.cg.u64 %0, [%1];")

// Shared-memory load latency: the same chase through shared memory; each word holds the
// shared-window address of the next (a cycle over 1024 words, 33 words apart: distinct banks).
extern "C" __global__ void chase_shared(int steps, long long* out) {
  __shared__ unsigned s[1024];
  const unsigned base = (unsigned)__cvta_generic_to_shared(s);
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = base + 4u * ((i * 33 + 7) & 1023);
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned p = base;
  for (int i = 0; i < 64; i++) asm volatile("ld.shared.u32 %0, [%1];" : "=r"(p) : "r"(p) : "memory");
  const long long c0 = clock64();
  const unsigned long long g0 = global_ns();
  for (int i = 0; i < steps; i++) asm volatile("ld.shared.u32 %0, [%1];" : "=r"(p) : "r"(p) : "memory");
  const long long c1 = clock64();
  const unsigned long long g1 = global_ns();
  out[0] = c1 - c0; out[1] = (long long)(g1 - g0); out[2] = p;
}

// ---------------------------------------------------------------------------------------------
// Atomics (return value unused: the compiler emits RED for global, ATOMS for shared).
// distinct: each thread adds to its own word (a warp's 32 words are one 128-byte line);
// same: every thread of the grid (global) or of the block (shared) adds to one word.
// `inc` is a run-time value: atomicAdd(p, 1) with the constant 1 compiles differently for
// shared memory (ATOMS.POPC.INC, which adds a warp's same-address increments in one go), so the
// shared kernels come in both forms: _one (the constant, as a histogram writes it) and _add.

extern "C" __global__ void atomic_global_distinct(unsigned* a, int iters, unsigned inc) {
  unsigned* p = a + blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < iters; i++) atomicAdd(p, inc);
}

extern "C" __global__ void atomic_global_same(unsigned* a, int iters, unsigned inc) {
  for (int i = 0; i < iters; i++) atomicAdd(a, inc);
}

// One global atomic per block, by its thread 0 as the block ends (a block's total added to a grid-wide count, as
// cuDF's valid_if and many reductions end): words = 0 sends none (the blocks' own pace), 1 sends every block's to
// one word, more spread them a word per 128-B line over that many lines.
extern "C" __global__ void block_tail_atomic(unsigned* counts, unsigned words) {
  if (words && threadIdx.x == 0) atomicAdd(counts + 32 * (blockIdx.x % words), 1u);
}

#define ATOMIC_SHARED(NAME, INDEX, INC)                                                  \
  extern "C" __global__ void __launch_bounds__(1024, 2) NAME(unsigned* out, int iters, unsigned inc) { \
    __shared__ unsigned s[1024];                                                         \
    s[threadIdx.x] = 0;                                                                  \
    __syncthreads();                                                                     \
    unsigned* p = s + (INDEX);                                                           \
    for (int i = 0; i < iters; i++) atomicAdd(p, INC);                                   \
    __syncthreads();                                                                     \
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];                        \
  }

ATOMIC_SHARED(atomic_shared_distinct_add, threadIdx.x, inc)
ATOMIC_SHARED(atomic_shared_same_add, 0, inc)
ATOMIC_SHARED(atomic_shared_distinct_one, threadIdx.x, 1u)
ATOMIC_SHARED(atomic_shared_same_one, 0, 1u)

// ---------------------------------------------------------------------------------------------
// Launch overhead: an empty kernel, and a kernel that spins on %globaltimer for `ns`
// nanoseconds so that the host can queue launches behind it (then the queue drains at the
// GPU's own rate, free of the host's launch cost).

extern "C" __global__ void empty_kernel() {}

extern "C" __global__ void spin_ns(unsigned long long ns) {
  const unsigned long long t0 = global_ns();
  while (global_ns() - t0 < ns) __nanosleep(1000);
}

// ---------------------------------------------------------------------------------------------
// Dependent-issue latency (group "deplat"): one warp alone on the GPU runs one chain in which
// every instruction takes the previous one's result, so each waits the full latency of the one
// before; nothing else competes for the SM. Lane 0 reads clock64 around the loop (out[block]).
// The loop body is 256 steps (32 for the MMAs), unrolled, with the loop count in a uniform
// register, so the only other instructions in the loop are UIADD3, ISETP and the branch, which
// issue while the chain waits (and the NOP ptxas puts between dependent DMMAs). The operands
// come from kernel arguments and the result is stored, so nothing folds or disappears (a chain
// of single `add`s would: ptxas merges two adds of the same value into one IMAD, hence IADD3 is
// x + a + b). The host times n and 2n iterations and takes the difference, which cancels what
// runs once per launch (the first pass through a cold instruction cache, the fragment loads
// that ptxas places after the first clock read, the clock reads themselves).

#define DEPLAT_TIMED(PER, STEP)                                           \
  const long long dl_t0 = clock64();                                      \
  _Pragma("unroll 1") for (int dl_i = 0; dl_i < iters; dl_i++) {          \
    _Pragma("unroll") for (int u = 0; u < (PER); u++) { STEP; }           \
  }                                                                       \
  const long long dl_t1 = clock64();                                      \
  if (threadIdx.x == 0) out[blockIdx.x] = dl_t1 - dl_t0;

#define DEPLAT_INIT(NAME, T, INIT, STEP)                                                            \
  extern "C" __global__ void __launch_bounds__(32) NAME(int iters, T a, T b, float* sink,           \
                                                        long long* out) {                           \
    T x = INIT;                                                                                     \
    DEPLAT_TIMED(256, STEP)                                                                         \
    sink[threadIdx.x] = (float)x;                                                                   \
  }
#define DEPLAT(NAME, T, STEP) DEPLAT_INIT(NAME, T, a + (T)threadIdx.x, STEP)

DEPLAT(deplat_ffma, float, x = fmaf(x, a, b))
DEPLAT(deplat_fadd, float, x = x + a)
DEPLAT(deplat_dfma, double, x = fma(x, a, b))
DEPLAT(deplat_imad, unsigned, asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(a), "r"(b)))
DEPLAT(deplat_iadd3, unsigned,
       asm volatile("add.u32 %0, %0, %1;\n\tadd.u32 %0, %0, %2;" : "+r"(x) : "r"(a), "r"(b)))
DEPLAT(deplat_lop3, unsigned, asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(x) : "r"(a), "r"(b)))
// x -> 2^-x (the negation is MUFU's operand modifier, no extra instruction) stays in (0, 1).
DEPLAT(deplat_mufu_ex2, float,
       asm volatile("{.reg .f32 t; neg.f32 t, %0;\n\tex2.approx.ftz.f32 %0, t;}" : "+f"(x)))
DEPLAT(deplat_mufu_rsq, float, asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(x)))
// Butterfly masks 1, 2, 4, 8, 16 in turn: no two neighbours cancel.
DEPLAT(deplat_shfl, unsigned, x = __shfl_xor_sync(0xffffffffu, x, 1 << (u % 5)))

// Shared atomics: the value atomicAdd returns is the next increment (ATOMS.ADD R, [R+UR], R),
// each lane on its own word (32 banks, no conflict).
extern "C" __global__ void __launch_bounds__(32) deplat_atoms(int iters, unsigned a, unsigned b, float* sink,
                                                             long long* out) {
  __shared__ unsigned s[32];
  s[threadIdx.x & 31] = b;
  __syncwarp();
  unsigned* p = s + (threadIdx.x & 31);
  unsigned x = a;
  DEPLAT_TIMED(256, x = atomicAdd(p, x))
  sink[threadIdx.x] = (float)x;
}

// Tensor cores, one accumulator chained through mma_sync(acc, a, b, acc). TF32 m16n16k8 is four
// HMMA.1684.F32.TF32: two independent n8 halves, each two dependent k4 steps; FP64 m8n8k4 is one
// DMMA.8x8x4. The accumulator is stored at the end.
extern "C" __global__ void __launch_bounds__(32) deplat_hmma_tf32(int iters, const float* ab, float* sink,
                                                                 long long* out) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::load_matrix_sync(fa, ab, 8);
  wmma::load_matrix_sync(fb, ab + 128, 8);
#pragma unroll
  for (int t = 0; t < fa.num_elements; t++) fa.x[t] = wmma::__float_to_tf32(fa.x[t]);
#pragma unroll
  for (int t = 0; t < fb.num_elements; t++) fb.x[t] = wmma::__float_to_tf32(fb.x[t]);
  wmma::fill_fragment(acc, 0.f);
  DEPLAT_TIMED(32, wmma::mma_sync(acc, fa, fb, acc))
  wmma::store_matrix_sync(sink, acc, 16, wmma::mem_row_major);
}

extern "C" __global__ void __launch_bounds__(32) deplat_dmma_fp64(int iters, const double* ab, double* sink,
                                                                 long long* out) {
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
  wmma::load_matrix_sync(fa, ab, 4);
  wmma::load_matrix_sync(fb, ab + 32, 4);
  wmma::fill_fragment(acc, 0.);
  DEPLAT_TIMED(32, wmma::mma_sync(acc, fa, fb, acc))
  wmma::store_matrix_sync(sink, acc, 8, wmma::mem_row_major);
}

// __syncthreads() and nothing else: launched with blocks of 32, 256 or 1024 threads, as many
// blocks as SMs; thread 0 of every block writes its cycles.
extern "C" __global__ void __launch_bounds__(1024) deplat_bar(int iters, long long* out) {
  DEPLAT_TIMED(32, __syncthreads())
}

// ---------------------------------------------------------------------------------------------
// Bytes in flight (group "inflight"): each thread issues U independent 16-byte ld.global.cg
// loads, then sums them, then the next U: the loop is not unrolled (a warp issues in order, so
// at most U loads per thread are outstanding, and right after the U issue, all U are). The
// launch sets the warps per SM, so bandwidth x latency = bytes in flight (Little's law) can be
// read off for each (warps, U). Addresses are grid-strided and wrap with `mask` (the buffer is a
// power-of-two number of float4s), so any grid streams any buffer: 1 GiB >> L2 for DRAM, 4 MiB
// for L2. Thread 0 of each block writes its %smid to sm_of[block], for the host to check that
// every SM got the same number of blocks. U <= 4 fit 32 registers (2048 threads per SM);
// U = 8 needs more (32 of them hold the loaded data), so it is bounded to 1024 threads per SM.

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

template <int U>
__device__ __forceinline__ void inflight(int groups, const float4* in, unsigned mask, int* sm_of, float* sink,
                                         long long* st) {
  STAMP_BEGIN
  const unsigned stride = gridDim.x * blockDim.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
#pragma unroll 1
  for (int g = 0; g < groups; g++) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; u++) v[u] = __ldcg(in + ((i + u * stride) & mask));
#pragma unroll
    for (int u = 0; u < U; u++) acc += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    i += U * stride;
  }
  if (acc == -1.f) sink[0] = acc;  // the buffer holds 1.0f: never taken
  if (threadIdx.x == 0) sm_of[blockIdx.x] = sm_id();
  STAMP_END(st)
}

#define INFLIGHT(U, MIN_BLOCKS)                                                                     \
  extern "C" __global__ void __launch_bounds__(1024, MIN_BLOCKS) inflight_u##U(                      \
      int groups, const float4* in, unsigned mask, int* sm_of, float* sink, long long* st) {         \
    inflight<U>(groups, in, mask, sm_of, sink, st);                                                  \
  }

INFLIGHT(1, 2)
INFLIGHT(2, 2)
INFLIGHT(4, 2)
INFLIGHT(8, 1)

// ---------------------------------------------------------------------------------------------
// Shared-memory atomics under address patterns (group "smem_atomics"), in the form a histogram
// uses: atomicAdd(&bins[x], 1) on unsigned, result unused, which the compiler emits as
// ATOMS.POPC.INC.32. Two 1024-thread blocks per SM, one 1024-word bin array per block, shared by
// its 32 warps. atoms_fixed: lane's word is (lane * mul) >> shift, fixed for the kernel (mul = K:
// K-way bank conflict over distinct words; mul = 0: one word; shift = s: groups of 2^s lanes on
// one word), 16 atomics per loop iteration on that address. atoms_random: each atomic's word is
// the top bits of a per-thread LCG (x = 1664525 x + 1013904223, bin = x >> shift, seeded by a
// bijective hash of seed + global thread index), so every warp instruction scatters its 32 lanes
// over 2^(32 - shift) bins like a histogram of random bytes; the host replays the same sequence
// to count the bank conflicts. Each atomic costs IMAD + SHF + LEA besides the ATOMS. At the end
// every block copies its bins to out[block][1024], for the host to check the counts (`sink` is
// unused: the parameters end as every kernel Bench.throughput launches).

#define ATOMS_PROLOGUE                                                                      \
  STAMP_BEGIN                                                                               \
  __shared__ unsigned bins[1024];                                                           \
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) bins[i] = 0u;                        \
  __syncthreads();

#define ATOMS_EPILOGUE                                                                      \
  __syncthreads();                                                                          \
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) out[1024 * blockIdx.x + i] = bins[i]; \
  STAMP_END(st)

extern "C" __global__ void __launch_bounds__(1024, 2) atoms_fixed(int iters, unsigned mul, unsigned shift,
                                                                 unsigned* out, float* sink, long long* st) {
  ATOMS_PROLOGUE
  unsigned* p = bins + ((((threadIdx.x & 31) * mul) >> shift) & 1023);
#pragma unroll 1
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int u = 0; u < 16; u++) atomicAdd(p, 1u);
  }
  ATOMS_EPILOGUE
}

__device__ __forceinline__ unsigned fmix32(unsigned h) {  // murmur3's finalizer: a bijection
  h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13; h *= 0xc2b2ae35u; h ^= h >> 16;
  return h;
}

extern "C" __global__ void __launch_bounds__(1024, 2) atoms_random(int iters, unsigned shift, unsigned seed,
                                                                  unsigned* out, float* sink, long long* st) {
  ATOMS_PROLOGUE
  unsigned x = fmix32(seed + blockIdx.x * blockDim.x + threadIdx.x);
#pragma unroll 1
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int u = 0; u < 8; u++) {
      x = x * 1664525u + 1013904223u;
      atomicAdd(bins + (x >> shift), 1u);
    }
  }
  ATOMS_EPILOGUE
}

// ---------------------------------------------------------------------------------------------
// Barrier throughput (group "barrier"): every thread does 8 independent FFMAs then
// __syncthreads(), once per loop iteration; the _nobar twin is the same loop without the
// barrier, so the difference is what the barrier costs with the SM full (2048 threads: 8 blocks
// of 256 or 2 of 1024; 32 registers). The loop is not unrolled on purpose: ptxas moves
// register-only FFMAs across BAR.SYNC, and in an unrolled body it bunches them (22, 11, 0, 0
// between four barriers); with one barrier per iteration every interval holds the 8 FFMAs. Both
// twins carry the same loop overhead (UIADD3, ISETP, BRA).

#define BARRIER_LOOP(NAME, SYNC)                                                                   \
  extern "C" __global__ void __launch_bounds__(1024, 2) NAME(int iters, float b, float c, float* sink, \
                                                            long long* st) {                      \
    STAMP_BEGIN                                                                                    \
    float x[8];                                                                                    \
    _Pragma("unroll") for (int k = 0; k < 8; k++) x[k] = threadIdx.x * 1e-3f + k;                 \
    _Pragma("unroll 1") for (int i = 0; i < iters; i++) {                                          \
      _Pragma("unroll") for (int k = 0; k < 8; k++) x[k] = fmaf(x[k], b, c);                       \
      SYNC;                                                                                        \
    }                                                                                              \
    float acc = 0.f;                                                                               \
    _Pragma("unroll") for (int k = 0; k < 8; k++) acc += x[k];                                     \
    if (acc == -1.f) sink[0] = acc;                                                                \
    STAMP_END(st)                                                                                  \
  }

BARRIER_LOOP(barrier_ffma, __syncthreads())
BARRIER_LOOP(barrier_ffma_nobar, (void)0)

// ---------------------------------------------------------------------------------------------
// More dependent-issue latencies (group "deplat2"), in deplat's harness (one warp alone, 256
// dependent steps per loop iteration, n and 2n iterations). Each chain is one instruction class
// whose result is the next step's operand (the address of the next load, the predicate of the
// next special-register read):
//   * S2R has no register operand, and ptxas hoists and batches S2Rs that nothing orders (even of
//     %smid, which it does not merge), so a pure S2R chain cannot be written: each step is
//     `@P S2R x, SR_VIRTUALSMID` guarded by `ISETP P = x != -1` on the previous x (%smid is never
//     -1), i.e. S2R + ISETP. deplat_isetp is the same with the S2R replaced by an IMAD.IADD
//     (`@P x = x + a`), to take the ISETP's share out.
//   * LDC: x = deplat_ctab[x] in the constant bank with a register byte offset (LDC R, c[0x3][R]);
//     the table holds zeros (never written), so every step reads c[0x3][0], a constant-cache hit.
//     The start offset depends on threadIdx, so ptxas keeps it in a vector register; started
//     from a kernel argument alone, the same chain becomes ULDC UR, c[0x3][UR] (deplat_uldc).
//   * The uniform datapath: a chain on a kernel argument that no thread-dependent value touches
//     stays in uniform registers: UIADD3 (x + a + b) and UIMAD (x * a + b).
//   * IMAD.WIDE.U32: x = hi(x) * a + x, 64 bits (mul.wide + add.u64, which ptxas fuses; written as
//     mad.wide.u32 it splits the 64-bit add off into IADD3 + IADD3.X).
//   * Loads as pointer chases through 8-byte pointers, all lanes on one address: generic `ld`
//     (LD.E.64: the address comes from memory, so ptxas cannot tell the state space) through
//     shared memory and through global memory that hits L1, each beside the explicit form in the
//     same harness (LDS of the pointer's low word, the shared-window address; LDG.E.64). The block
//     builds the shared chain (1024 pointers, each to the one 33 further on); the global chain is
//     the host's random cycle over the 128-byte lines of 32 KiB (latency_l1's), so 256 steps walk
//     it once and every pass after the first hits L1.
//   * LDSM: ldmatrix .x1 whose address is the word it loaded: row r of the 8x8 b16 matrix holds
//     the addresses of rows 4r .. 4r+3 (mod 8), so lane t receives row t % 8's address, which is
//     the address it supplied; the 8 rows are distinct 16-byte pieces of one 128-byte line
//     (conflict-free).

// (The predicate is named with %: cudasim's PTX parser reads guards as @%name.)
#define DEPLAT_GUARDED(OP) "{ .reg .pred %%dl_p; setp.ne.u32 %%dl_p, %0, 0xffffffff; @%%dl_p " OP "; }"
DEPLAT(deplat_s2r, unsigned, asm volatile(DEPLAT_GUARDED("mov.u32 %0, %%smid") : "+r"(x)))
DEPLAT(deplat_isetp, unsigned, asm volatile(DEPLAT_GUARDED("add.u32 %0, %0, %1") : "+r"(x) : "r"(a)))

__constant__ unsigned deplat_ctab[64];  // zeros: the byte offset of the next entry

DEPLAT_INIT(deplat_ldc, unsigned, a + (threadIdx.x >> 5) * b,
            x = *(const unsigned*)((const char*)deplat_ctab + x))
DEPLAT_INIT(deplat_uldc, unsigned, a, x = *(const unsigned*)((const char*)deplat_ctab + x))
DEPLAT_INIT(deplat_uiadd3, unsigned, a,
            asm volatile("add.u32 %0, %0, %1;\n\tadd.u32 %0, %0, %2;" : "+r"(x) : "r"(a), "r"(b)))
DEPLAT_INIT(deplat_uimad, unsigned, a, asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(a), "r"(b)))
DEPLAT(deplat_imad_wide, unsigned long long,
       asm volatile("{ .reg .u64 t; .reg .u32 l, h; mov.b64 {l, h}, %0; mul.wide.u32 t, h, %1; add.u64 %0, t, %0; }"
                    : "+l"(x) : "r"((unsigned)a)))
// Global chases: a = the chain's start address.
DEPLAT_INIT(deplat_ld_l1, unsigned long long, a, asm volatile("ld.u64 %0, [%0];" : "+l"(x) : : "memory"))
DEPLAT_INIT(deplat_ldg_l1, unsigned long long, a, asm volatile("ld.global.u64 %0, [%0];" : "+l"(x) : : "memory"))

template <bool GENERIC>
__device__ __forceinline__ void deplat_smem_chase(int iters, float* sink, long long* out) {
  __shared__ unsigned long long s[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) {
    unsigned long long* next = s + ((i * 33 + 7) & 1023);
    s[i] = GENERIC ? (unsigned long long)next : (unsigned long long)__cvta_generic_to_shared(next);
  }
  __syncthreads();
  if (GENERIC) {
    unsigned long long x = s[0];
    DEPLAT_TIMED(256, asm volatile("ld.u64 %0, [%0];" : "+l"(x) : : "memory"))
    sink[threadIdx.x] = (float)x;
  } else {  // a shared-window address fits the low word
    unsigned x = (unsigned)s[0];
    DEPLAT_TIMED(256, asm volatile("ld.shared.u32 %0, [%0];" : "+r"(x) : : "memory"))
    sink[threadIdx.x] = (float)x;
  }
}

extern "C" __global__ void __launch_bounds__(32) deplat_ld_smem(int iters, unsigned long long a, unsigned long long b,
                                                               float* sink, long long* out) {
  deplat_smem_chase<true>(iters, sink, out);
}

extern "C" __global__ void __launch_bounds__(32) deplat_lds(int iters, unsigned long long a, unsigned long long b,
                                                           float* sink, long long* out) {
  deplat_smem_chase<false>(iters, sink, out);
}

extern "C" __global__ void __launch_bounds__(32) deplat_ldsm(int iters, unsigned a, unsigned b, float* sink,
                                                            long long* out) {
  __shared__ __align__(16) unsigned rows[32];  // 8 rows of 16 bytes (ldmatrix wants 16-byte aligned rows)
  const unsigned base = (unsigned)__cvta_generic_to_shared(rows);
  rows[threadIdx.x & 31] = base + 16u * (threadIdx.x & 7);
  __syncwarp();
  unsigned x = base + 16u * (threadIdx.x & 7);
  DEPLAT_TIMED(256, asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%0];" : "+r"(x) : : "memory"))
  sink[threadIdx.x] = (float)x;
}

// ---------------------------------------------------------------------------------------------
// Conversions and 64-bit special functions (group "deplat_cvt"), in deplat's harness: a conversion
// cannot feed itself, so each step converts there and back (double -> s64 -> double, double ->
// s32 -> double, float -> s32 -> float, double -> float -> double), and the step's latency is the
// pair's; FRND (rint in place) and MUFU.RCP64H (x -> 1/x, which stays finite) chain on their own
// result.
#define DEPLAT_CVT(NAME, T, TT, CVT_TO, CVT_BACK, R)                                          \
  DEPLAT(NAME, T, asm volatile("{ .reg ." TT " t; " CVT_TO " t, %0; " CVT_BACK " %0, t; }" : "+" R(x)))
DEPLAT_CVT(deplat_cvt_f64_s64, double, "s64", "cvt.rzi.s64.f64", "cvt.rn.f64.s64", "d")
DEPLAT_CVT(deplat_cvt_f64_s32, double, "s32", "cvt.rzi.s32.f64", "cvt.rn.f64.s32", "d")
DEPLAT_CVT(deplat_cvt_f32_s32, float, "s32", "cvt.rzi.s32.f32", "cvt.rn.f32.s32", "f")
DEPLAT_CVT(deplat_cvt_f64_f32, double, "f32", "cvt.rn.f32.f64", "cvt.f64.f32", "d")
DEPLAT(deplat_frnd_f64, double, asm volatile("cvt.rni.f64.f64 %0, %0;" : "+d"(x)))
DEPLAT(deplat_frnd_f32, float, asm volatile("cvt.rni.f32.f32 %0, %0;" : "+f"(x)))
DEPLAT(deplat_rcp64h, double, asm volatile("rcp.approx.ftz.f64 %0, %0;" : "+d"(x)))
// ---------------------------------------------------------------------------------------------
// Block start cost (group "blocks"): kernels that do nothing (flag is 0 at run time: a parameter
// load, a compare and EXIT), launched with many blocks, so the time is how fast the SMs are given
// and retire blocks. blocks_smem8k is the same with 8 KiB of static shared memory per block,
// kept by the never-taken branch that uses it.

extern "C" __global__ void blocks_empty(int flag, float* sink) {
  if (flag) sink[threadIdx.x] = 1.f;
}

extern "C" __global__ void blocks_smem8k(int flag, float* sink) {
  __shared__ float s[2048];
  if (flag) {
    s[threadIdx.x] = 1.f;
    __syncthreads();
    sink[threadIdx.x] = s[2047 - threadIdx.x];
  }
}

// ---------------------------------------------------------------------------------------------
// What the bench protocol adds to a kernel's own time (group "event_overhead"). eo_args<N> (N
// parameters, unused) spins one thread on %globaltimer for eo_ns nanoseconds and writes its own
// [clock64 at start, at end, %globaltimer at start, at end] (STAMP's layout) to eo_stamp; both are __device__
// variables, so the kernel with no parameters needs none. write_once stores one float4 per thread
// (a 64 MiB buffer takes 4M threads) and stamps its blocks (STAMP_BEGIN/END: the host takes the
// first start and the last end over blocks).

__device__ unsigned long long eo_ns;
__device__ long long eo_stamp[4];

__device__ __forceinline__ void eo_spin() {
  const long long c0 = clock64();
  const unsigned long long g0 = global_ns();
  unsigned long long g1;
  do {
    g1 = global_ns();
  } while (g1 - g0 < eo_ns);
  const long long c1 = clock64();
  eo_stamp[0] = c0; eo_stamp[1] = c1; eo_stamp[2] = (long long)g0; eo_stamp[3] = (long long)g1;
}

extern "C" __global__ void eo_args0() { eo_spin(); }
extern "C" __global__ void eo_args3(const float* p0, int i0, float* p1) { eo_spin(); }
extern "C" __global__ void eo_args6(const float* p0, int i0, float* p1, int i1, const float* p2, int i2) { eo_spin(); }
extern "C" __global__ void eo_args9(const float* p0, int i0, float* p1, int i1, const float* p2, int i2, float* p3,
                                    int i3, const float* p4) {
  eo_spin();
}

extern "C" __global__ void __launch_bounds__(256) write_once(float4* out, float v, long long* st) {
  STAMP_BEGIN
  out[blockIdx.x * blockDim.x + threadIdx.x] = make_float4(v, v, v, v);
  STAMP_END(st)
}

// ---------------------------------------------------------------------------------------------
// L2 and L1 rates (group "l2_rates").
// l2_store_*: every thread stores 8 times per loop iteration into a 4 MiB buffer (L2-resident,
// rewritten over and over), its index grid-strided and wrapped by `mask` (elements - 1):
// _full a float per lane at consecutive words (a warp's store is one 128-byte line), _vec a
// float4 per lane (4 lines), _sector a float at word 32 x index (lane l one 4-byte piece of its
// own line: 32 lines of one sector each per warp store).
// l1_hit_*: 16 independent 4-byte loads (ld.global, cached in L1) per thread per loop iteration
// from a 16 KiB buffer of zeros, folded by XOR after all are issued: load j reads 1 KiB x j +
// 4 lane (_line: a warp reads one 128-byte line) or 1 KiB x j (_broadcast: all lanes one word)
// from base + (iteration & zero), zero = 0 at run time, so the loads cannot be hoisted out of the
// loop (a chain through the loaded words would cost a 64-bit add per load). Two 1024-thread
// blocks per SM.
// l2_random: each thread issues U = 8 independent 4-byte ld.global.cg loads at random words of
// the first n of the buffer (index = the top bits of a per-thread LCG times n, __umulhi), then
// sums them; the loop is not unrolled, so 8 loads per thread are in flight after the issue.

template <typename T, int SCALE, int WORDS = 1>  // WORDS stores at each index, to consecutive elements
__device__ __forceinline__ void l2_store(int iters, T* buf, unsigned mask, T w, long long* st) {
  STAMP_BEGIN
  const unsigned stride = gridDim.x * blockDim.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll 1
  for (int it = 0; it < iters; it++) {
#pragma unroll
    for (int u = 0; u < 8 / WORDS; u++) {
#pragma unroll
      for (int k = 0; k < WORDS; k++) buf[(i * SCALE + k) & mask] = w;
      i += stride;
    }
  }
  STAMP_END(st)
}

extern "C" __global__ void __launch_bounds__(256, 8) l2_store_full(int iters, float* buf, unsigned mask, float v,
                                                                  float* sink, long long* st) {
  l2_store<float, 1>(iters, buf, mask, v, st);
}

extern "C" __global__ void __launch_bounds__(256, 8) l2_store_sector(int iters, float* buf, unsigned mask, float v,
                                                                    float* sink, long long* st) {
  l2_store<float, 32>(iters, buf, mask, v, st);
}

// _q4, _q2: a float at word 8 (16) x index, 4 (2) partial sectors of a line per 4 (2) lanes; _h16 an unsigned
// short at halfword 16 x index (32 bytes apart: a paged KV cache's value stores); _half a float at word 2 x
// index (each sector half written). With _sector and _full they part a store's L2 cost per line from that per
// partial sector.
extern "C" __global__ void __launch_bounds__(256, 8) l2_store_q4(int iters, float* buf, unsigned mask, float v,
                                                                float* sink, long long* st) {
  l2_store<float, 8>(iters, buf, mask, v, st);
}

extern "C" __global__ void __launch_bounds__(256, 8) l2_store_q2(int iters, float* buf, unsigned mask, float v,
                                                                float* sink, long long* st) {
  l2_store<float, 16>(iters, buf, mask, v, st);
}

extern "C" __global__ void __launch_bounds__(256, 8) l2_store_h16(int iters, unsigned short* buf, unsigned mask,
                                                                 float v, float* sink, long long* st) {
  l2_store<unsigned short, 16>(iters, buf, mask, (unsigned short)v, st);
}

// _q4x2: _q4's stores, each followed at once by one to the next word (the same sectors written twice in a row,
// as a struct's fields are): whether the L2 pays a sector's partial write again when the same warp writes it again.
extern "C" __global__ void __launch_bounds__(256, 8) l2_store_q4x2(int iters, float* buf, unsigned mask, float v,
                                                                  float* sink, long long* st) {
  l2_store<float, 8, 2>(iters, buf, mask, v, st);
}

// _q4x8: each lane writes the 8 words of its own sector in 8 stores in a row (a run-length decode's, or a
// thread's row of a small struct): the sector is written in part 8 times and whole at the end.
extern "C" __global__ void __launch_bounds__(256, 8) l2_store_q4x8(int iters, float* buf, unsigned mask, float v,
                                                                  float* sink, long long* st) {
  l2_store<float, 8, 8>(iters, buf, mask, v, st);
}

extern "C" __global__ void __launch_bounds__(256, 8) l2_store_half(int iters, float* buf, unsigned mask, float v,
                                                                  float* sink, long long* st) {
  l2_store<float, 2>(iters, buf, mask, v, st);
}

extern "C" __global__ void __launch_bounds__(256, 8) l2_store_vec(int iters, float4* buf, unsigned mask, float v,
                                                                 float* sink, long long* st) {
  l2_store<float4, 1>(iters, buf, mask, make_float4(v, v, v, v), st);
}

__device__ __forceinline__ unsigned ldg32(const char* p) {
  unsigned v;
  asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}

template <int LANE_BYTES>
__device__ __forceinline__ void l1_hit(int iters, const unsigned* buf, unsigned zero, float* sink, long long* st) {
  STAMP_BEGIN
  const char* base = (const char*)buf + LANE_BYTES * (threadIdx.x & 31);
  unsigned acc = 0;
#pragma unroll 1
  for (int it = 0; it < iters; it++) {
    const char* p = base + (it & zero);  // zero = 0: the same 16 lines every iteration, yet ptxas cannot hoist them
#pragma unroll
    for (int j = 0; j < 16; j += 2) acc ^= ldg32(p + 1024 * j) ^ ldg32(p + 1024 * (j + 1));
  }
  if (acc == 0xdeadbeefu) sink[0] = 1.f;  // the buffer holds zeros
  STAMP_END(st)
}

extern "C" __global__ void __launch_bounds__(1024, 2) l1_hit_line(int iters, const unsigned* buf, unsigned zero,
                                                                 float* sink, long long* st) {
  l1_hit<4>(iters, buf, zero, sink, st);
}

extern "C" __global__ void __launch_bounds__(1024, 2) l1_hit_broadcast(int iters, const unsigned* buf, unsigned zero,
                                                                      float* sink, long long* st) {
  l1_hit<0>(iters, buf, zero, sink, st);
}

extern "C" __global__ void __launch_bounds__(256, 8) l2_random(int iters, const float* buf, unsigned n, unsigned seed,
                                                              float* sink, long long* st) {
  STAMP_BEGIN
  unsigned x = fmix32(seed + blockIdx.x * blockDim.x + threadIdx.x);
  float acc = 0.f;
#pragma unroll 1
  for (int it = 0; it < iters; it++) {
    float v[8];
#pragma unroll
    for (int u = 0; u < 8; u++) {
      x = x * 1664525u + 1013904223u;
      v[u] = __ldcg(buf + __umulhi(x, n));
    }
#pragma unroll
    for (int u = 0; u < 8; u++) acc += v[u];
  }
  if (acc == -1.f) sink[0] = acc;  // the buffer holds 1.0f: never taken
  STAMP_END(st)
}

// ---------------------------------------------------------------------------------------------
// L1's data stage by lane pattern (group "l1_patterns"). Lane l of every warp reads (or writes)
// B bytes at base + offs[l] + S x j for j = 0..15 each loop iteration: 16 independent accesses,
// folded by XOR after all are issued. offs (a pattern of lanes over lines, sectors and banks) comes
// from the host, so one kernel serves every pattern; the index in the name (l1p_<mode><bytes>_<k>)
// only tells the pattern's launches apart in a profiler's listing. _hit: the same lines every
// iteration (base + (it & zero)), so after the first they hit in L1; _miss: each warp a new
// 256 KiB window of a 1 GiB buffer every iteration, so every access misses in L1; _st: stores to
// _hit's addresses.
template <int MODE, int BYTES, int STEP>
__device__ __forceinline__ void l1p(int iters, unsigned* buf, const unsigned* offs, unsigned mask, float* sink,
                                    long long* st) {
  STAMP_BEGIN
  const unsigned wid = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const unsigned nwarps = (gridDim.x * blockDim.x) >> 5;
  const char* base = (const char*)buf + offs[threadIdx.x & 31];
  unsigned acc = 0;
#pragma unroll 1
  for (int it = 0; it < iters; it++) {
    const size_t win = MODE == 1 ? ((size_t)((unsigned)it * nwarps + wid) << 18) & mask : (size_t)(it & mask);
    const char* p = base + win;
#pragma unroll
    for (int j = 0; j < 16; j++) {
      const char* q = p + STEP * j;
      if (MODE == 2) {
        if (BYTES == 16) asm volatile("st.global.v4.u32 [%0], {%1, %1, %1, %1};" :: "l"(q), "r"(it) : "memory");
        else asm volatile("st.global.u32 [%0], %1;" :: "l"(q), "r"(it) : "memory");
      } else if (BYTES == 16) {
        unsigned a, b, c, d;
        asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(q));
        acc ^= a ^ b ^ c ^ d;
      } else {
        unsigned v;
        asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(q));
        acc ^= v;
      }
    }
  }
  if (acc == 0xdeadbeefu) sink[0] = 1.f;
  STAMP_END(st)
}

#define L1P_ONE(NAME, MODE, B, S, K)                                                                                \
  extern "C" __global__ void __launch_bounds__(1024, 2) NAME##B##_##K(int iters, unsigned* buf, const unsigned* offs, \
      unsigned mask, float* sink, long long* st) { l1p<MODE, B, S>(iters, buf, offs, mask, sink, st); }
#define L1P(K, B, S) L1P_ONE(l1p_hit, 0, B, S, K) L1P_ONE(l1p_miss, 1, B, S, K) L1P_ONE(l1p_st, 2, B, S, K)

// pattern K, bytes per lane B, step S: as L1_PATTERNS in kernels/microbench.py lists them (a test holds them equal)
L1P(0, 4, 8192) L1P(1, 4, 8192) L1P(2, 4, 8192) L1P(3, 4, 8192) L1P(4, 4, 8192) L1P(5, 4, 8192) L1P(6, 4, 8192)
L1P(7, 4, 8192) L1P(8, 4, 8192) L1P(9, 4, 8192) L1P(10, 4, 8192) L1P(11, 4, 8192) L1P(12, 4, 8192)
L1P(13, 4, 8192) L1P(14, 4, 128) L1P(15, 4, 128) L1P(16, 4, 8192) L1P(17, 4, 8192) L1P(18, 16, 8192)
L1P(19, 16, 8192) L1P(20, 4, 128) L1P(21, 4, 128) L1P(22, 4, 128) L1P(23, 4, 128) L1P(24, 4, 128)
L1P(25, 4, 128) L1P(26, 4, 128) L1P(27, 4, 128) L1P(28, 4, 128) L1P(29, 4, 8192) L1P(30, 4, 8192) L1P(31, 4, 8192)

// ---------------------------------------------------------------------------------------------
// Global atomics by address pattern. Every thread adds 1 to `iters` words of a table of
// mask + 1 words (a power of two), result unused (REDG.E.ADD), words chosen by a hash of
// (key, i): mode 0 each lane its own random word (key: the thread), mode 1 one random word for
// the whole warp (key: the warp), mode 2 one random 128-byte line per warp with lane l on its
// word l (key: the warp). The table stays in L2; what limits them is the L2's atomic units:
// updates to one word serialize, a warp's lanes on one word combine, its lanes on one line
// travel as one request.
extern "C" __global__ void atomic_global_pattern(unsigned* t, int iters, unsigned mask, int mode) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31u;
  unsigned key = mode == 0 ? tid : tid >> 5;
#pragma unroll 1
  for (int i = 0; i < iters; i++) {
    unsigned h = fmix32(key * 0x9E3779B9u + (unsigned)i);
    unsigned w = mode == 2 ? (((h & mask) & ~31u) | lane) : (h & mask);
    atomicAdd(t + w, 1u);
  }
}

// ---------------------------------------------------------------------------------------------
// DRAM traffic by how much of each line a warp touches: a rows x cols float matrix (row-major,
// much larger than L2) walked by a 2D grid with threadIdx.x on the rows and threadIdx.y on the
// columns. A block of (X, 256 / X) threads: a warp's lanes cover X rows x 32 / X consecutive
// floats, so X = 1 is the coalesced walk and X = 32 puts every lane on a line of its own (the
// blocks with the next blockIdx.y fill the rest of each line, at about the same time).
extern "C" __global__ void grid2d_read(const float* a, float* sink, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x, col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) {
    float v = a[(size_t)row * cols + col];
    if (v == -1.f) sink[0] = v;  // the matrix holds zeros: never taken
  }
}

extern "C" __global__ void grid2d_write(float* c, int rows, int cols, float v) {
  int row = blockIdx.x * blockDim.x + threadIdx.x, col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) c[(size_t)row * cols + col] = v;
}

extern "C" __global__ void grid2d_add(const float* a, const float* b, float* c, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x, col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) {
    size_t i = (size_t)row * cols + col;
    c[i] = a[i] + b[i];
  }
}

// ---------------------------------------------------------------------------------------------
// Residency when warps exit early (group "residency"): does an SM start a new block once enough
// of a resident block's warps have exited, or only when all of them have? Warps at or past `keep`
// return at once; the others spin for `ns` nanoseconds, and thread 0 writes its SM and when it
// started and ended (%globaltimer) to out[3 x block] (the host counts the blocks that overlap on
// each SM). res_regs keeps RES_REGS floats live across the spin (registers, not warp slots, bound
// its blocks when every warp stays); res_smem holds 48 KiB of static shared memory (so does shared
// memory).
#define RES_REGS 112

#define RES_IN                                                 \
  if ((int)(threadIdx.x >> 5) >= keep) return;                 \
  const unsigned long long t0 = global_ns();

#define RES_OUT                                                                  \
  if (threadIdx.x == 0) {                                                        \
    long long* o = out + 3 * blockIdx.x;                                         \
    o[0] = sm_id(); o[1] = (long long)t0; o[2] = (long long)global_ns();         \
  }

extern "C" __global__ void res_probe(unsigned long long ns, int keep, long long* out, float* sink) {
  RES_IN
  while (global_ns() - t0 < ns) __nanosleep(500);
  RES_OUT
}

extern "C" __global__ void __launch_bounds__(256) res_regs(unsigned long long ns, int keep, long long* out,
                                                           float* sink) {
  float r[RES_REGS];
#pragma unroll
  for (int i = 0; i < RES_REGS; i++) r[i] = __int_as_float((threadIdx.x + 1) * (i + 7) & 0x3fffffff);
  RES_IN
  while (global_ns() - t0 < ns) {
#pragma unroll
    for (int i = 0; i < RES_REGS; i++) r[i] = fmaf(r[i], 0.999f, r[(i + 1) % RES_REGS]);
  }
  RES_OUT
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < RES_REGS; i++) s += r[i];
  if (s == 1234.5f) sink[0] = s;
}

extern "C" __global__ void res_smem(unsigned long long ns, int keep, long long* out, float* sink) {
  __shared__ float pad[12288];
  pad[threadIdx.x] = (float)threadIdx.x;
  RES_IN
  while (global_ns() - t0 < ns) __nanosleep(500);
  RES_OUT
  if (pad[(threadIdx.x * 97) & 255] == -1.f) sink[0] = pad[threadIdx.x + 1];
}

// ---------------------------------------------------------------------------------------------
// L1's capacity (group "l1_capacity"): each warp reads a region of its own, `lines` 128-byte
// lines, in order, `reps` times over. Mode 0 reads a whole line per request (lane l: word l of
// line j); mode 1 one 4-byte word of each of 32 lines per request (lane l: word 0 of line j + l,
// as a gather of rows does), a quarter of the lines' sectors. 1024-thread blocks, one per SM:
// the SM's footprint is 32 x `lines` lines.
extern "C" __global__ void l1cap(const float* buf, int lines, int reps, int mode, float* sink) {
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const float* base = buf + ((size_t)blockIdx.x * 32 + warp) * (size_t)lines * 32;
  float acc = 0.f;
  for (int r = 0; r < reps; r++) {
    if (mode == 0) {
      for (int j = 0; j < lines; j++) acc += base[j * 32 + lane];
    } else {
      for (int j = 0; j < lines; j += 32) acc += base[(j + lane) * 32];
    }
  }
  if (acc == -1.f) sink[0] = acc;
}
