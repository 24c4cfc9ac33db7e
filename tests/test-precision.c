/* Rounding to the Tensor-Core precisions on hand-picked bit patterns (ties to even,
 * carries into the exponent, overflow, subnormals, NaN), against the compiler's own
 * binary16 conversion and the kernels' TF32 bit rule on many random patterns, and the
 * dot-product error bound on numbers worked out by hand. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "testutil.h"
#include "te/precision.h"
#include "util/rng.h"

static float fromBits(uint32_t u) {
   float f;
   memcpy(&f, &u, sizeof f);
   return f;
}

static uint32_t toBits(float f) {
   uint32_t u;
   memcpy(&u, &f, sizeof u);
   return u;
}

static void expectBits(Precision p, uint32_t in, uint32_t want) {
   uint32_t got = toBits(Precision_round(p, fromBits(in)));
   if (got != want)
      fail_msg("%s of 0x%08x is 0x%08x, expected 0x%08x", Precision_name(p), in, got, want);
}

static void test_names(void **state) {
   (void)state;
   Precision p;
   assert_int_equal(Precision_parse("bf16", &p), 0);
   assert_int_equal(p, PRECISION_BF16);
   assert_int_equal(Precision_parse("fp8", &p), -1);
   assert_string_equal(Precision_name(PRECISION_TF32), "tf32");
   assert_int_equal(Precision_significandBits(PRECISION_FP16), 11);
   assert_int_equal(Precision_significandBits(PRECISION_BF16), 8);
   assert_true(Precision_unitRoundoff(PRECISION_TF32) == 0x1p-11);
   assert_true(Precision_subnormalError(PRECISION_FP16) == 0x1p-25);
   assert_true(Precision_subnormalError(PRECISION_BF16) == 0x1p-134);
}

static void test_fp16(void **state) {
   (void)state;
   Precision h = PRECISION_FP16;
   expectBits(h, 0x3f800000, 0x3f800000);   /* 1 */
   expectBits(h, 0x3f801000, 0x3f800000);   /* 1 + 2^-11: a tie, to 1 (even) */
   expectBits(h, 0x3f803000, 0x3f804000);   /* 1 + 3 2^-11: a tie, up to 1 + 2^-9 (even) */
   expectBits(h, 0x3f801001, 0x3f802000);   /* just above the tie: up */
   expectBits(h, 0x3f800fff, 0x3f800000);   /* just below: down */
   expectBits(h, 0x3fffffff, 0x40000000);   /* a carry into the exponent: 2 */
   expectBits(h, 0x477fe000, 0x477fe000);   /* 65504, the largest half */
   expectBits(h, 0x477fefff, 0x477fe000);   /* below the midpoint to 65536: 65504 */
   expectBits(h, 0x477ff000, 0x7f800000);   /* 65520, the tie, overflows to infinity */
   expectBits(h, 0xc788b800, 0xff800000);   /* -70000: -infinity */
   expectBits(h, 0x33800000, 0x33800000);   /* 2^-24, the smallest subnormal */
   expectBits(h, 0x33000000, 0x00000000);   /* 2^-25: a tie between 0 and 2^-24, to 0 */
   expectBits(h, 0xb3000000, 0x80000000);   /* -2^-25: -0 */
   expectBits(h, 0x33c00000, 0x34000000);   /* 3 2^-25: a tie, up to 2^-23 (even) */
   expectBits(h, 0x33000001, 0x33800000);   /* just above 2^-25: 2^-24 */
   expectBits(h, 0x387fe000, 0x38800000);   /* 2^-14 - 2^-25: a tie, up to the smallest normal */
   expectBits(h, 0x387fc000, 0x387fc000);   /* 2^-14 - 2^-24: the largest subnormal */
   expectBits(h, 0x00000001, 0x00000000);   /* a float subnormal: 0 */
   expectBits(h, 0x80000000, 0x80000000);   /* -0 */
   expectBits(h, 0x7f800000, 0x7f800000);   /* infinity */
   assert_true(isnan(Precision_round(h, fromBits(0x7fc00000))));
   assert_true(isnan(Precision_round(h, fromBits(0x7f800001))));   /* a NaN that masking would make infinite */
}

static void test_bf16(void **state) {
   (void)state;
   Precision b = PRECISION_BF16;
   expectBits(b, 0x3f808000, 0x3f800000);   /* 1 + 2^-8: a tie, to 1 */
   expectBits(b, 0x3f818000, 0x3f820000);   /* 1 + 3 2^-8: a tie, up (even) */
   expectBits(b, 0x3f808001, 0x3f810000);
   expectBits(b, 0x7f7f7fff, 0x7f7f0000);   /* below the midpoint to 2^128 */
   expectBits(b, 0x7f7f8000, 0x7f800000);   /* the tie with 2^128: infinity */
   expectBits(b, 0xff7fffff, 0xff800000);   /* the largest float, negated: -infinity */
   expectBits(b, 0x00008000, 0x00000000);   /* half the smallest subnormal: a tie, to 0 */
   expectBits(b, 0x00018000, 0x00020000);   /* 1.5 subnormal quanta: a tie, up (even) */
   expectBits(b, 0x00010000, 0x00010000);   /* the smallest subnormal */
   expectBits(b, 0x007fffff, 0x00800000);   /* the largest float subnormal: the smallest normal */
   assert_true(isnan(Precision_round(b, fromBits(0xff800001))));
}

static void test_tf32(void **state) {
   (void)state;
   Precision t = PRECISION_TF32;
   expectBits(t, 0x3f801000, 0x3f800000);   /* a tie at bit 12, to even */
   expectBits(t, 0x3f803000, 0x3f804000);   /* a tie, up (even) */
   expectBits(t, 0x3f801001, 0x3f802000);
   expectBits(t, 0x7f7fe000, 0x7f7fe000);   /* the largest TF32 */
   expectBits(t, 0x7f7ff000, 0x7f800000);   /* its tie with 2^128: infinity */
   expectBits(t, 0x00001000, 0x00000000);   /* half the smallest subnormal quantum: to 0 */
   expectBits(t, 0x00003000, 0x00004000);
   expectBits(t, 0x00002000, 0x00002000);
   assert_true(isnan(Precision_round(t, fromBits(0x7f800001))));
}

/* The rule the generated kernels apply to TF32 operands. */
static uint32_t tf32Bits(uint32_t u) {
   if ((u & 0x7f800000u) == 0x7f800000u)
      return u;
   u += 0xfffu + ((u >> 13) & 1u);
   return u & 0xffffe000u;
}

static void test_against_independent_rules(void **state) {
   (void)state;
   Rng rng;
   Rng_seed(&rng, 7);
   for (int i = 0; i < 1 << 20; i++) {
      uint32_t u = (uint32_t)Rng_next(&rng);
      /* half the draws near the FP16 range, where every case of binary16 lies */
      if (i & 1)
         u = (u & 0x80ffffffu) | ((uint32_t)(0x30 + Rng_below(&rng, 0x18)) << 24);
      float x = fromBits(u);
      if (isnan(x))
         continue;
      uint32_t tf = toBits(Precision_round(PRECISION_TF32, x));
      if (tf != tf32Bits(u))
         fail_msg("tf32 of 0x%08x is 0x%08x; the kernels' rule gives 0x%08x", u, tf, tf32Bits(u));
#ifdef __FLT16_MAX__
      float h = Precision_round(PRECISION_FP16, x);
      float want = (float)(_Float16)x;
      if (toBits(h) != toBits(want))
         fail_msg("fp16 of 0x%08x is 0x%08x; the compiler's binary16 gives 0x%08x", u, toBits(h), toBits(want));
#endif
   }
}

static void test_dot_error_bound(void **state) {
   (void)state;
   /* k = 2^10, P = 100, Q = 300 in FP16: u = 2^-11, eta = 2^-25, gamma = 2^-14 / (1 - 2^-14) */
   double u = 0x1p-11, eta = 0x1p-25, gamma = 0x1p-14 / (1 - 0x1p-14);
   double e = (2 * u + u * u) * 100 + eta * (1 + u) * 300 + 1024 * eta * eta;
   double want = (1 + gamma) * e + 2 * gamma * 100;
   assert_true(fabs(Precision_dotErrorBound(PRECISION_FP16, 1024, 100, 300) - want) < 1e-15);
   /* FP32 against FP32: only the two summation orders */
   assert_true(Precision_dotErrorBound(PRECISION_FP32, 1024, 100, 300) == 2 * gamma * 100);
   assert_true(Precision_dotErrorBound(PRECISION_BF16, 1, 1, 2) > 2 * 0x1p-8);
}

static void test_tensor_core_generations(void **state) {
   (void)state;
   assert_false(Precision_onTensorCores(PRECISION_FP16, 7, 0));
   assert_true(Precision_onTensorCores(PRECISION_FP16, 7, 5));
   assert_false(Precision_onTensorCores(PRECISION_BF16, 7, 5));
   assert_true(Precision_onTensorCores(PRECISION_BF16, 8, 0));
   assert_true(Precision_onTensorCores(PRECISION_TF32, 9, 0));
   assert_true(Precision_onTensorCores(PRECISION_FP32, 6, 0));
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_fp16),
      cmocka_unit_test(test_bf16),
      cmocka_unit_test(test_tf32),
      cmocka_unit_test(test_against_independent_rules),
      cmocka_unit_test(test_dot_error_bound),
      cmocka_unit_test(test_tensor_core_generations),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
