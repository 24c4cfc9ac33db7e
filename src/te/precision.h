/* Precisions of Tensor-Core operands: FP32 (no rounding: the CUDA cores), TF32, FP16 and
 * BF16, each accumulated in FP32. Rounding is IEEE round-to-nearest-even with overflow to
 * infinity and gradual underflow (subnormals kept), exactly as the kernels round their
 * operands (cvt.rn.f16.f32 and cvt.rn.bf16.f32; TF32 by the same rule on the bits), so the
 * CPU executor reproduces each precision's rounding bit for bit. */
#ifndef HEADER_precision
#define HEADER_precision

#include <stdbool.h>

#include "te/op.h"

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

/* Precision names separated by commas ("fp16,tf32") added to *mask as PRECISION_BITs;
 * -1 with the first token that is not a name (*bad, *badLen bytes, maybe empty). */
int Precision_parseList(const char *text, unsigned *mask, const char **bad, size_t *badLen);
/* The precisions a search may compute in, from --precision's text: "auto" (every
 * precision; *isAuto set) or a comma-separated list of names ("fp16,tf32"). FP32 is
 * always in the mask: the CUDA-core sketches compute in it, and an op that is not a
 * matrix multiply has no other. -1 with *cause naming what was expected. */
int Precision_parseSpec(const char *text, unsigned *mask, bool *isAuto, char **cause);
/* The canonical text of a mask: "fp32", "fp32,fp16,tf32" (in Precision order), or
 * "auto" when isAuto. */
void Precision_specText(unsigned mask, bool isAuto, char *out, size_t size);

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
/* The bytes an element in precision p takes in memory: 2 for FP16 and BF16, 4 for FP32
 * and TF32 (held in a float). */
static inline int Precision_storageBytes(Precision p) {
   return p == PRECISION_FP16 || p == PRECISION_BF16 ? 2 : 4;
}

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

/* The expected largest |output - reference| over `outputs` output elements, over the
 * reference output's RMS, of k-term dot products whose operands, independent and uniform
 * in [-1, 1), are rounded to p and whose products are summed in FP32, followed by the
 * epilogue (its bias and residual uniform in [-1, 1) too), against a reference computed
 * in double. A prediction, not a bound; known before anything runs. Its derivation:
 *   Rounding. A value x in the binade [2^e, 2^(e+1)) rounds to the nearest multiple of
 *   2^(e+1) u (u the unit roundoff), an error uniform over half that spacing either side:
 *   variance 4^e u^2 / 3. For x uniform in [-1, 1) the binade 2^e holds x with
 *   probability 2^e (e = -1, -2, ...), so E[err^2] = u^2/3 sum_j 8^-j = u^2 / 21 (the
 *   subnormals, below 2^-14 even for FP16, change nothing visible).
 *   One product. a'b' - ab = a err_b + b err_a + err_a err_b, of variance
 *   2 E[a^2] E[err^2] = 2 (1/3) u^2/21 = 2u^2/63 (the last term is u^2 smaller).
 *   The dot product. The k terms err independently: variance k 2u^2/63, while the
 *   output's variance is k E[a^2] E[b^2] = k/9, so the rounding error is
 *   sqrt(2/7) u = 0.53 u of the output's RMS whatever k is. The products of rounded
 *   operands are exact in FP32 (at most 22 significant bits); each of the k FP32
 *   additions rounds its partial sum s_j, of variance j/9, by a relative error of
 *   variance 2^-48 / (8 ln 2) (the spacing's variance over s^2 with s's significand
 *   log-uniform in [1, 2)), which adds 2^-48 k^2 / (144 ln 2): 2^-24 sqrt(k / (16 ln 2))
 *   of the RMS, the whole error for FP32 operands and below 1e-5 of it for the others
 *   up to k = 10^6. The double reference adds nothing visible.
 *   The epilogue. The bias and the residual add independent values of variance 1/3 each:
 *   before the first activation they widen the activation's input x (taken as normal,
 *   of variance k/9 plus theirs), after it they add to the output's mean square. The
 *   activations f (applied in order) scale an element's error by |f'(x)| and make the
 *   output's mean square E[f(x)^2]: relu zeroes the errors of half the elements and
 *   halves the mean square, so relu's largest error is sqrt 2 times the plain one.
 *   The largest of N. The elements' errors are taken as independent and normal (a sum
 *   of k terms) of standard deviation |f'(x)| sigma: P(t), the probability that one
 *   exceeds t, is the mean over x of erfc(t / (|f'(x)| sigma sqrt 2)), and the expected
 *   largest of N is the integral over t > 0 of 1 - (1 - P(t))^N, about
 *   sigma sqrt(2 ln N) without an activation; both integrals are summed numerically.
 * For FP32 operands (no rounding) only the accumulation is left. */
double Precision_predictError(Precision p, long k, double outputs, const Epilogue *epilogue, int nepilogue);

#endif
