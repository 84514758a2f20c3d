// Batch inversion in the BN254 scalar field Fr by Fermat's little theorem (a^-1 = a^(r-2)), written in
// the style of the CUDA field code that zk-SNARK provers generate (ec-gpu-gen's FIELD_* routines used by
// bellperson and Filecoin, sppark's mont_t): elements as four 64-bit limbs in Montgomery form (R = 2^256),
// products by the CIOS Montgomery multiplication with 64x64->128 multiply-accumulates in inline PTX
// (mad.lo.cc / madc.hi / add.cc / addc carry chains), the final conditional subtraction by a
// sub.cc / subc chain, and the power by left-to-right square-and-multiply over the 254-bit exponent
// r - 2 (a squaring for each of the 256 bits, the first two of one, and a multiplication for each of
// its 127 ones). One thread per element.
#include <cstdint>

typedef unsigned char uchar;
typedef unsigned int uint;
typedef unsigned long long ulong;

#define DEVICE __device__ __forceinline__
#define FIELD_LIMBS 4

typedef struct { ulong val[FIELD_LIMBS]; } FIELD;

// r = 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001, least significant limb first
__constant__ ulong FIELD_P[FIELD_LIMBS] = {0x43e1f593f0000001ULL, 0x2833e84879b97091ULL,
                                           0xb85045b68181585dULL, 0x30644e72e131a029ULL};
// -r^-1 mod 2^64
#define FIELD_INV 0xc2e1f593efffffffULL
// R mod r: one in Montgomery form
__constant__ ulong FIELD_ONE[FIELD_LIMBS] = {0xac96341c4ffffffbULL, 0x36fc76959f60cd29ULL,
                                             0x666ea36f7879462eULL, 0x0e0a77c19a07df2fULL};
// r - 2
__constant__ ulong FIELD_P_MINUS_2[FIELD_LIMBS] = {0x43e1f593efffffffULL, 0x2833e84879b97091ULL,
                                                   0xb85045b68181585dULL, 0x30644e72e131a029ULL};

// Returns a * b + c + d, puts the carry in d
DEVICE ulong FIELD_mac_with_carry_64(ulong a, ulong b, ulong c, ulong *d) {
  ulong lo, hi;
  asm("mad.lo.cc.u64 %0, %2, %3, %4;\r\n"
      "madc.hi.u64 %1, %2, %3, 0;\r\n"
      "add.cc.u64 %0, %0, %5;\r\n"
      "addc.u64 %1, %1, 0;\r\n"
      : "=l"(lo), "=l"(hi) : "l"(a), "l"(b), "l"(c), "l"(*d));
  *d = hi;
  return lo;
}

// Returns a + b, puts the carry in b
DEVICE ulong FIELD_add_with_carry_64(ulong a, ulong *b) {
  ulong lo, hi;
  asm("add.cc.u64 %0, %2, %3;\r\n"
      "addc.u64 %1, 0, 0;\r\n"
      : "=l"(lo), "=l"(hi) : "l"(a), "l"(*b));
  *b = hi;
  return lo;
}

// Greater than or equal
DEVICE bool FIELD_gte(FIELD a, const ulong *b) {
  for (char i = FIELD_LIMBS - 1; i >= 0; i--) {
    if (a.val[i] > b[i]) return true;
    if (a.val[i] < b[i]) return false;
  }
  return true;
}

// Subtraction without the modulus: a - b (a >= b)
DEVICE FIELD FIELD_sub_(FIELD a, const ulong *b) {
  asm("sub.cc.u64 %0, %0, %4;\r\n"
      "subc.cc.u64 %1, %1, %5;\r\n"
      "subc.cc.u64 %2, %2, %6;\r\n"
      "subc.u64 %3, %3, %7;\r\n"
      : "+l"(a.val[0]), "+l"(a.val[1]), "+l"(a.val[2]), "+l"(a.val[3])
      : "l"(b[0]), "l"(b[1]), "l"(b[2]), "l"(b[3]));
  return a;
}

// Modular multiplication: CIOS Montgomery (Koc, Acar & Kaliski 1996)
DEVICE FIELD FIELD_mul(FIELD a, FIELD b) {
  ulong t[FIELD_LIMBS + 2] = {0};
  for (uchar i = 0; i < FIELD_LIMBS; i++) {
    ulong carry = 0;
    for (uchar j = 0; j < FIELD_LIMBS; j++)
      t[j] = FIELD_mac_with_carry_64(a.val[j], b.val[i], t[j], &carry);
    t[FIELD_LIMBS] = FIELD_add_with_carry_64(t[FIELD_LIMBS], &carry);
    t[FIELD_LIMBS + 1] = carry;

    carry = 0;
    ulong m = FIELD_INV * t[0];
    FIELD_mac_with_carry_64(m, FIELD_P[0], t[0], &carry);
    for (uchar j = 1; j < FIELD_LIMBS; j++)
      t[j - 1] = FIELD_mac_with_carry_64(m, FIELD_P[j], t[j], &carry);

    t[FIELD_LIMBS - 1] = FIELD_add_with_carry_64(t[FIELD_LIMBS], &carry);
    t[FIELD_LIMBS] = t[FIELD_LIMBS + 1] + carry;
  }

  FIELD result;
  for (uchar i = 0; i < FIELD_LIMBS; i++) result.val[i] = t[i];

  if (FIELD_gte(result, FIELD_P)) result = FIELD_sub_(result, FIELD_P);

  return result;
}

DEVICE FIELD FIELD_sqr(FIELD a) { return FIELD_mul(a, a); }

// a^e for a fixed 256-bit exponent, most significant bit first
DEVICE FIELD FIELD_pow_limbs(FIELD base, const ulong *e) {
  FIELD res;
  for (int i = 0; i < FIELD_LIMBS; i++) res.val[i] = FIELD_ONE[i];
  for (int i = FIELD_LIMBS - 1; i >= 0; i--) {
    for (int bit = 63; bit >= 0; bit--) {
      res = FIELD_sqr(res);
      if ((e[i] >> bit) & 1) res = FIELD_mul(res, base);
    }
  }
  return res;
}

extern "C" __global__ void fr_batch_inverse(FIELD *out, const FIELD *in, uint n) {
  const uint gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid >= n) return;
  out[gid] = FIELD_pow_limbs(in[gid], FIELD_P_MINUS_2);
}
