/* Rounding to the Tensor-Core precisions. One rule serves all three: a value is scaled by
 * a power of two (exact) so that the quantum of its binade, or of the subnormals below
 * the normal range, becomes 1, rounded to an integer in the default rounding mode
 * (nearest, ties to even) and scaled back; a result above the largest finite value
 * overflows to infinity, as IEEE's round-to-nearest does. */
#include "config.h"

#include "te/precision.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/xalloc.h"

typedef struct {
   const char *name;
   int significand;     /* bits, the implicit one included */
   int minExponent;     /* of the smallest normal value */
   int maxExponent;     /* of the largest finite value */
} Format;

static const Format formats[PRECISION_COUNT] = {
   [PRECISION_FP32] = { "fp32", 24, -126, 127 },
   [PRECISION_FP16] = { "fp16", 11, -14, 15 },
   [PRECISION_BF16] = { "bf16", 8, -126, 127 },
   [PRECISION_TF32] = { "tf32", 11, -126, 127 },
};

const char *Precision_name(Precision p) {
   return (unsigned)p < PRECISION_COUNT ? formats[p].name : "?";
}

int Precision_parse(const char *name, Precision *out) {
   for (int p = 0; p < PRECISION_COUNT; p++)
      if (strcmp(formats[p].name, name) == 0) {
         *out = (Precision)p;
         return 0;
      }
   return -1;
}

int Precision_parseList(const char *text, unsigned *mask, const char **bad, size_t *badLen) {
   for (const char *p = text;;) {
      size_t n = strcspn(p, ",");
      char name[16];
      Precision prec;
      bool ok = n < sizeof name;
      if (ok) {
         memcpy(name, p, n);
         name[n] = '\0';
         ok = Precision_parse(name, &prec) == 0;
      }
      if (!ok) {
         *bad = p;
         *badLen = n;
         return -1;
      }
      *mask |= PRECISION_BIT(prec);
      if (!p[n])
         return 0;
      p += n + 1;
   }
}

int Precision_parseSpec(const char *text, unsigned *mask, bool *isAuto, char **cause) {
   *mask = PRECISION_BIT(PRECISION_FP32);
   *isAuto = false;
   if (strcmp(text, "auto") == 0) {
      *isAuto = true;
      *mask = (1u << PRECISION_COUNT) - 1;
      return 0;
   }
   const char *bad;
   size_t n;
   if (Precision_parseList(text, mask, &bad, &n) == 0)
      return 0;
   if (n == 0 || n >= 16)
      return setCause(cause, "'%s' is not a precision list: expected auto, or names from fp32, fp16, bf16 and tf32 "
                             "separated by commas", text);
   return setCause(cause, "'%.*s' is not a precision: expected auto, fp32, fp16, bf16 or tf32", (int)n, bad);
}

void Precision_specText(unsigned mask, bool isAuto, char *out, size_t size) {
   size_t at = 0;
   out[0] = '\0';
   if (isAuto) {
      snprintf(out, size, "auto");
      return;
   }
   for (int p = 0; p < PRECISION_COUNT; p++)
      if (mask & PRECISION_BIT(p) && at < size)
         at += (size_t)snprintf(out + at, size - at, "%s%s", at ? "," : "", formats[p].name);
}

float Precision_round(Precision p, float x) {
   if (p == PRECISION_FP32 || !isfinite(x) || x == 0.0f)
      return x;
   const Format *f = &formats[p];
   float a = fabsf(x);
   int e;
   frexpf(a, &e);                    /* a = m 2^e with m in [0.5, 1): a's binade is 2^(e-1) */
   int binade = e - 1 < f->minExponent ? f->minExponent : e - 1;
   int quantum = binade - (f->significand - 1);
   float r = ldexpf(nearbyintf(ldexpf(a, -quantum)), quantum);
   float largest = ldexpf(2.0f - ldexpf(1.0f, 1 - f->significand), f->maxExponent);
   if (r > largest)
      r = INFINITY;
   return x < 0 ? -r : r;
}

int Precision_significandBits(Precision p) {
   return formats[p].significand;
}

double Precision_unitRoundoff(Precision p) {
   return p == PRECISION_FP32 ? 0.0 : ldexp(1.0, -formats[p].significand);
}

double Precision_subnormalError(Precision p) {
   if (p == PRECISION_FP32)
      return 0.0;
   return ldexp(1.0, formats[p].minExponent - formats[p].significand);
}

bool Precision_onTensorCores(Precision p, int ccMajor, int ccMinor) {
   int cc = ccMajor * 10 + ccMinor;
   switch (p) {
   case PRECISION_FP32: return true;
   case PRECISION_FP16: return cc >= 75;
   case PRECISION_BF16:
   case PRECISION_TF32: return cc >= 80;
   default: return false;
   }
}

double Precision_dotErrorBound(Precision p, long k, double sumAbsProducts, double sumAbsOperands) {
   double u = Precision_unitRoundoff(p), eta = Precision_subnormalError(p);
   double ku = (double)k * ldexp(1.0, -24);
   double gamma = ku / (1.0 - ku);
   double e = (2 * u + u * u) * sumAbsProducts + eta * (1 + u) * sumAbsOperands + (double)k * eta * eta;
   return (1 + gamma) * e + 2 * gamma * sumAbsProducts;
}

/* The nonlinear part of an epilogue: its activations in order. */
static double activate(const Epilogue *epilogue, int nepilogue, double x) {
   for (int i = 0; i < nepilogue; i++)
      x = Epilogue_activate(&epilogue[i], x);
   return x;
}

/* Points of the sums over the activation's input x (within 8 standard deviations) and
 * over the largest error t. */
#define PREDICT_X_STEPS 256
#define PREDICT_T_STEPS 256

double Precision_predictError(Precision p, long k, double outputs, const Epilogue *epilogue, int nepilogue) {
   double u = Precision_unitRoundoff(p), u32 = ldexp(1.0, -24), kd = (double)k;
   double sigma = sqrt(kd * 2 * u * u / 63 + u32 * u32 * kd * kd / (144 * log(2.0)));
   /* the spread of the activation's input, and what the additions after it add */
   double inputVar = kd / 9, afterVar = 0;
   bool activated = false;
   for (int i = 0; i < nepilogue; i++) {
      bool adds = epilogue[i].kind == EPI_BIAS || epilogue[i].kind == EPI_ADD;
      if (adds && activated)
         afterVar += 1.0 / 3;
      else if (adds)
         inputVar += 1.0 / 3;
      else
         activated = true;
   }
   double sd = sqrt(inputVar), n = outputs < 1 ? 1 : outputs;
   double weight[PREDICT_X_STEPS], slope[PREDICT_X_STEPS];
   double meanSquare = 0, total = 0, steepest = 0;
   for (int i = 0; i < PREDICT_X_STEPS; i++) {
      double z = -8 + 16 * (i + 0.5) / PREDICT_X_STEPS, x = z * sd, h = 1e-6 * (sd > 1 ? sd : 1);
      double y = activate(epilogue, nepilogue, x);
      weight[i] = exp(-z * z / 2);
      slope[i] = fabs(activate(epilogue, nepilogue, x + h) - activate(epilogue, nepilogue, x - h)) / (2 * h);
      meanSquare += weight[i] * y * y;
      total += weight[i];
      steepest = slope[i] > steepest ? slope[i] : steepest;
   }
   meanSquare = meanSquare / total + afterVar;
   if (sigma == 0 || steepest == 0 || meanSquare == 0)
      return 0;
   /* beyond tMax even the steepest elements' errors pass with probability below 1e-12 / N */
   double tMax = steepest * sigma * (sqrt(2 * log(n)) + 8), dt = tMax / PREDICT_T_STEPS, largest = 0;
   for (int j = 0; j < PREDICT_T_STEPS; j++) {
      double t = (j + 0.5) * dt, exceed = 0;
      for (int i = 0; i < PREDICT_X_STEPS; i++)
         if (slope[i] > 0)
            exceed += weight[i] * erfc(t / (slope[i] * sigma * sqrt(2.0)));
      exceed /= total;
      largest += (exceed >= 1 ? 1 : -expm1(n * log1p(-exceed))) * dt;
   }
   return largest / sqrt(meanSquare);
}
