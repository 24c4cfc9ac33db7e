/* Precisions of Tensor-Core operands: FP32 (no rounding: the CUDA cores), TF32, FP16 and
 * BF16, each accumulated in FP32. Rounding is IEEE round-to-nearest-even with overflow to
 * infinity and gradual underflow (subnormals kept), exactly as the kernels round their
 * operands (cvt.rn.f16.f32 and cvt.rn.bf16.f32; TF32 by the same rule on the bits), so the
 * CPU executor reproduces each precision's rounding bit for bit. */
#ifndef HEADER_precision
#define HEADER_precision

#include <stdbool.h>

/* The order is the sketches' order: a task's Tensor-Core sketches follow it, so a
 * device with fewer precisions has a prefix of another's sketch numbers. */
typedef enum {
   PRECISION_FP32,
   PRECISION_FP16,
   PRECISION_BF16,
   PRECISION_TF32,
   PRECISION_COUNT
} Precision;

#define PRECISION_BIT(p) (1u << (p))

/* "fp32", "fp16", "bf16", "tf32" */
const char *Precision_name(Precision p);
/* The precision named `name`; -1 when there is none. */
int Precision_parse(const char *name, Precision *out);

/* x rounded to the precision (a float holds every value of each); NaN stays NaN. */
float Precision_round(Precision p, float x);

/* Significand bits, the implicit one included: 24, 11, 8, 11. */
int Precision_significandBits(Precision p);
/* The unit roundoff u = 2^-significandBits: the relative error of rounding a normal value. */
double Precision_unitRoundoff(Precision p);
/* Half the spacing of the subnormals: the absolute error of rounding below the normal
 * range (2^-25 for FP16, 2^-134 for BF16, 2^-137 for TF32; 0 for FP32, which
 * does not round). */
double Precision_subnormalError(Precision p);

/* Whether a device of compute capability major.minor runs the precision on its Tensor
 * Cores with the mma.sync shapes the code generator prints: FP16 from sm_75 (m16n8k8),
 * BF16 and TF32 from sm_80. FP32 is always available (the CUDA cores). */
bool Precision_onTensorCores(Precision p, int ccMajor, int ccMinor);
/* The reduction depth of one mma.sync of 16x8 outputs: 16 for FP16 and BF16, 8 for TF32. */
static inline int Precision_mmaDepth(Precision p) {
   return p == PRECISION_TF32 ? 8 : 16;
}

/* How far a k-term dot product whose operands are rounded to p and whose products are
 * summed in FP32 (in any order) may lie from the same dot product computed in FP32 (in any
 * order), given P = sum |a_i b_i| and Q = sum (|a_i| + |b_i|) of the unrounded operands:
 *   each operand errs by at most u|x| + eta (u the unit roundoff, eta the subnormal error),
 *   so |a'b' - ab| <= (2u + u^2)|ab| + eta(1 + u)(|a| + |b|) + eta^2 and the rounded
 *   operands' exact sum errs by E = (2u + u^2) P + eta(1 + u) Q + k eta^2; the products
 *   of rounded operands are exact in FP32 (at most 22 significant bits), and k FP32
 *   additions err by gamma_k = k 2^-24 / (1 - k 2^-24) of the sum of magnitudes, once for
 *   each side: the bound is (1 + gamma_k) E + 2 gamma_k P.
 * For FP32 itself u = eta = 0 (the same operands), leaving the two orders' 2 gamma_k P. */
double Precision_dotErrorBound(Precision p, long k, double sumAbsProducts, double sumAbsOperands);

#endif
