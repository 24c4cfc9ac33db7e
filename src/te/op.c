/* The op library: parameters, validation, shapes, compute DAGs and display of every op
 * a task can hold. The DAGs follow the stage structure of TVM's TOPI definitions
 * (pad_temp, conv2d_nchw, T_dense, pool_sum/pool_avg, the four softmax stages), since
 * the sketch rules of the schedule space are written against that structure. */
#include "config.h"

#include "te/op.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/textbuf.h"
#include "util/xalloc.h"

typedef struct {
   const char *name;
   int nmain;                 /* inputs of the op itself, before epilogue tensors */
   bool takesBias;
} OpInfo;

static const OpInfo opTable[OP_KIND_COUNT] = {
   [OP_CONV2D] = { "conv2d", 2, true },
   [OP_DENSE] = { "dense", 2, true },
   [OP_BATCH_MATMUL] = { "batch_matmul", 2, true },
   [OP_MAX_POOL2D] = { "max_pool2d", 1, false },
   [OP_AVG_POOL2D] = { "avg_pool2d", 1, false },
   [OP_ADAPTIVE_AVG_POOL2D] = { "adaptive_avg_pool2d", 1, false },
   [OP_GLOBAL_AVG_POOL2D] = { "global_avg_pool2d", 1, false },
   [OP_SOFTMAX] = { "softmax", 1, false },
   [OP_LAYER_NORM] = { "layer_norm", 3, false },
   [OP_CONV2D_TRANSPOSE] = { "conv2d_transpose", 2, true },
   [OP_RESIZE2D] = { "resize2d", 1, true },
   [OP_CONCAT] = { "concat", 0, true },          /* its ninputs */
   [OP_ELEMENTWISE] = { "elementwise", 1, true },
};

static const char *const epilogueNames[EPI_KIND_COUNT] = {
   [EPI_BIAS] = "bias", [EPI_ADD] = "add", [EPI_RELU] = "relu",
   [EPI_RELU6] = "relu6", [EPI_CLIP] = "clip", [EPI_GELU] = "gelu",
   [EPI_HARDSWISH] = "hardswish", [EPI_HARDSIGMOID] = "hardsigmoid", [EPI_SIGMOID] = "sigmoid",
   [EPI_MUL] = "mul", [EPI_SCALE] = "scale", [EPI_CHANNEL_MUL] = "channel_mul",
   [EPI_MUL_CONST] = "mul_const", [EPI_DIV_CONST] = "div_const",
};

static const char *const resizeModeNames[] = { "nearest", "linear" };
static const char *const coordNames[COORD_KIND_COUNT] = {
   [COORD_HALF_PIXEL] = "half_pixel", [COORD_PYTORCH_HALF_PIXEL] = "pytorch_half_pixel",
   [COORD_ALIGN_CORNERS] = "align_corners", [COORD_ASYMMETRIC] = "asymmetric",
};
static const char *const roundingNames[ROUND_KIND_COUNT] = {
   [ROUND_PREFER_FLOOR] = "round_prefer_floor", [ROUND_PREFER_CEIL] = "round_prefer_ceil",
   [ROUND_FLOOR] = "floor", [ROUND_CEIL] = "ceil",
};

static int nameIndex(const char *const *names, int n, const char *name) {
   for (int i = 0; i < n; i++)
      if (strcmp(names[i], name) == 0)
         return i;
   return -1;
}

const char *ResizeMode_name(ResizeMode m) {
   return (unsigned)m < 2 ? resizeModeNames[m] : "?";
}

const char *ResizeCoord_name(ResizeCoord c) {
   return (unsigned)c < COORD_KIND_COUNT ? coordNames[c] : "?";
}

const char *ResizeRounding_name(ResizeRounding r) {
   return (unsigned)r < ROUND_KIND_COUNT ? roundingNames[r] : "?";
}

int ResizeMode_fromName(const char *name) {
   return nameIndex(resizeModeNames, 2, name);
}

int ResizeCoord_fromName(const char *name) {
   return nameIndex(coordNames, COORD_KIND_COUNT, name);
}

int ResizeRounding_fromName(const char *name) {
   return nameIndex(roundingNames, ROUND_KIND_COUNT, name);
}

static int64_t gcd64(int64_t a, int64_t b) {
   while (b) {
      int64_t t = a % b;
      a = b;
      b = t;
   }
   return a;
}

int Op_scaleFraction(double scale, int64_t *num, int64_t *den) {
   if (!(scale > 0) || scale > 1048576.0)
      return -1;
   for (int64_t q = 1; q <= 4096; q++) {
      double pn = scale * (double)q;
      int64_t n = (int64_t)llround(pn);
      if (n >= 1 && (float)((double)n / (double)q) == (float)scale) {
         int64_t g = gcd64(n, q);
         *num = n / g;
         *den = q / g;
         return 0;
      }
   }
   return -1;
}

bool Epilogue_readsTensor(EpilogueKind kind) {
   return kind == EPI_BIAS || kind == EPI_ADD || kind == EPI_MUL || kind == EPI_SCALE ||
          kind == EPI_CHANNEL_MUL;
}

bool Epilogue_perChannel(EpilogueKind kind) {
   return kind == EPI_BIAS || kind == EPI_SCALE;
}

bool Epilogue_hasValue(EpilogueKind kind) {
   return kind == EPI_MUL_CONST || kind == EPI_DIV_CONST;
}

static double clampValue(double x, double lo, double hi) {
   return x < lo ? lo : x > hi ? hi : x;
}

double Epilogue_activate(const Epilogue *epi, double x) {
   switch (epi->kind) {
   case EPI_RELU: return x > 0.0 ? x : 0.0;
   case EPI_RELU6: return clampValue(x, 0.0, 6.0);
   case EPI_CLIP: return clampValue(x, epi->lo, epi->hi);
   case EPI_GELU: return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
   case EPI_HARDSWISH: return x * (clampValue(x + 3.0, 0.0, 6.0) / 6.0);
   case EPI_HARDSIGMOID: return clampValue(x + 3.0, 0.0, 6.0) / 6.0;
   case EPI_SIGMOID: return 1.0 / (1.0 + exp(-x));
   case EPI_MUL_CONST: return x * epi->value;
   case EPI_DIV_CONST: return x / epi->value;
   default: return x;
   }
}

int Op_kindOfKey(const char *key) {
   int best = -1;
   size_t bestLen = 0;
   for (int k = 0; k < OP_KIND_COUNT; k++) {
      size_t len = strlen(opTable[k].name);
      if (len > bestLen && strncmp(key, opTable[k].name, len) == 0 && key[len] == '_') {
         best = k;
         bestLen = len;
      }
   }
   return best;
}

const char *Op_name(OpKind kind) {
   return kind < OP_KIND_COUNT ? opTable[kind].name : "?";
}

int Op_kindFromName(const char *name) {
   for (int k = 0; k < OP_KIND_COUNT; k++)
      if (strcmp(opTable[k].name, name) == 0)
         return k;
   return -1;
}

const char *Epilogue_name(EpilogueKind kind) {
   return kind < EPI_KIND_COUNT ? epilogueNames[kind] : "?";
}

int Epilogue_kindFromName(const char *name) {
   for (int k = 0; k < EPI_KIND_COUNT; k++)
      if (strcmp(epilogueNames[k], name) == 0)
         return k;
   return -1;
}

static bool isWindowed(OpKind k) {
   return k == OP_CONV2D || k == OP_MAX_POOL2D || k == OP_AVG_POOL2D;
}

static bool isNchw(OpKind k) {
   return isWindowed(k) || k == OP_ADAPTIVE_AVG_POOL2D || k == OP_GLOBAL_AVG_POOL2D ||
          k == OP_CONV2D_TRANSPOSE || k == OP_RESIZE2D;
}

/* Ops whose tensor is `shape` (ndim, shape) rather than NCHW or matrix sizes. */
static bool isShaped(OpKind k) {
   return k == OP_SOFTMAX || k == OP_LAYER_NORM || k == OP_CONCAT || k == OP_ELEMENTWISE;
}

int Op_channelAxis(const OpParams *p) {
   if (isNchw(p->kind))
      return 1;
   int64_t s[TE_MAX_DIMS];
   int rank = Op_outputShape(p, s);
   if ((p->kind == OP_CONCAT || p->kind == OP_ELEMENTWISE) && rank == 4)
      return 1;
   return rank - 1;
}

void Op_defaults(OpParams *p, OpKind kind) {
   memset(p, 0, sizeof *p);
   p->kind = kind;
   p->batch = 1;
   p->stride_h = p->stride_w = 1;
   p->dilation_h = p->dilation_w = 1;
   p->groups = 1;
   p->count_include_pad = true;
   p->b = p->m = 1;
   p->coord = COORD_HALF_PIXEL;
   p->rounding = ROUND_PREFER_FLOOR;
   if (isShaped(kind)) {
      p->ndim = 1;
      p->shape[0] = 1;
   }
   if (kind == OP_CONCAT) {
      p->ninputs = 1;
      p->concat_len[0] = 1;
   }
   p->epsilon = 1e-5;
   p->out_h = p->out_w = 1;
}

/* The largest element count a generated kernel may index with 32-bit integers. */
#define OP_MAX_ELEMENTS 2147483647LL

static int64_t countOf(int n, const int64_t *shape) {
   int64_t c = 1;
   for (int i = 0; i < n; i++) {
      if (shape[i] <= 0 || c > OP_MAX_ELEMENTS / shape[i])
         return OP_MAX_ELEMENTS + 1;
      c *= shape[i];
   }
   return c;
}

static int fail(const char **field, const char *name, char **cause, const char *fmt, ...)
   ATTR_FORMAT(4, 5);
static int fail(const char **field, const char *name, char **cause, const char *fmt, ...) {
   if (field)
      *field = name;
   if (cause) {
      va_list ap;
      va_start(ap, fmt);
      *cause = xVasprintf(fmt, ap);
      va_end(ap);
   }
   return -1;
}

int Op_checkEpilogue(const OpParams *p, int i, char **cause) {
   const Epilogue *e = &p->epilogue[i];
   if (Epilogue_perChannel(e->kind)) {
      if (!opTable[p->kind].takesBias)
         return setCause(cause, "epilogue '%s' applies to an op with a channel axis (conv2d, "
                         "conv2d_transpose, dense, batch_matmul, resize2d, concat, elementwise), not %s",
                         Epilogue_name(e->kind), Op_name(p->kind));
      for (int j = 0; j < i; j++)
         if (p->epilogue[j].kind == e->kind)
            return setCause(cause, "epilogue '%s' appears twice; expected at most one %s",
                            Epilogue_name(e->kind), Epilogue_name(e->kind));
   }
   if (e->kind == EPI_CHANNEL_MUL) {
      int64_t s[TE_MAX_DIMS];
      int rank = Op_outputShape(p, s);
      if (rank != 4)
         return setCause(cause, "epilogue 'channel_mul' scales the channels of a 4-D (NCHW) output; %s's output has %d dimensions",
                         Op_name(p->kind), rank);
   }
   if (e->kind == EPI_CLIP && !(e->lo <= e->hi))
      return setCause(cause, "clip bounds [%g, %g] are reversed; expected lo <= hi", e->lo, e->hi);
   if (Epilogue_hasValue(e->kind) && !(isfinite(e->value) && fabs(e->value) <= 1e30))
      return setCause(cause, "%s value %g is not a finite number; expected one of at most 1e30 in size",
                      Epilogue_name(e->kind), e->value);
   if (e->kind == EPI_DIV_CONST && e->value == 0.0)
      return setCause(cause, "div_const divides by 0; expected a nonzero value");
   return 0;
}

static int finishWindow(OpParams *p, const char **field, char **cause) {
   const char *what = p->kind == OP_CONV2D ? "kernel" : "window";
   int64_t ph = p->in_h + p->pad_top + p->pad_bottom;
   int64_t pw = p->in_w + p->pad_left + p->pad_right;
   int64_t eh = p->dilation_h * (p->kernel_h - 1) + 1;
   int64_t ew = p->dilation_w * (p->kernel_w - 1) + 1;
   if (p->kind != OP_CONV2D) {
      /* as PyTorch: every window must overlap the input */
      if (2 * p->pad_top > p->kernel_h || 2 * p->pad_bottom > p->kernel_h ||
          2 * p->pad_left > p->kernel_w || 2 * p->pad_right > p->kernel_w)
         return fail(field, "pad", cause,
                     "pad %lld,%lld,%lld,%lld is more than half the %lldx%lld window",
                     (long long)p->pad_top, (long long)p->pad_left, (long long)p->pad_bottom,
                     (long long)p->pad_right, (long long)p->kernel_h, (long long)p->kernel_w);
   }
   if (eh > ph || ew > pw) {
      if (p->dilation_h > 1 || p->dilation_w > 1)
         return fail(field, "kernel", cause,
                     "%s %lldx%lld with dilation %lldx%lld spans %lldx%lld, more than the %lldx%lld input padded to %lldx%lld",
                     what, (long long)p->kernel_h, (long long)p->kernel_w,
                     (long long)p->dilation_h, (long long)p->dilation_w, (long long)eh,
                     (long long)ew, (long long)p->in_h, (long long)p->in_w, (long long)ph,
                     (long long)pw);
      return fail(field, "kernel", cause,
                  "%s %lldx%lld does not fit the %lldx%lld input padded to %lldx%lld", what,
                  (long long)p->kernel_h, (long long)p->kernel_w, (long long)p->in_h,
                  (long long)p->in_w, (long long)ph, (long long)pw);
   }
   if (p->stride_h > ph || p->stride_w > pw)
      return fail(field, "stride", cause,
                  "stride %lldx%lld is larger than the %lldx%lld padded input",
                  (long long)p->stride_h, (long long)p->stride_w, (long long)ph, (long long)pw);
   p->out_h = (ph - eh) / p->stride_h + 1;
   p->out_w = (pw - ew) / p->stride_w + 1;
   return 0;
}

/* conv2d_transpose: the output of ONNX's ConvTranspose (and PyTorch's), which is the
 * gradient of a conv2d with these parameters: out = (in - 1) * stride - pads +
 * dilation * (kernel - 1) + output_padding + 1. */
static int finishTranspose(OpParams *p, const char **field, char **cause) {
   if (p->in_c % p->groups != 0)
      return fail(field, "groups", cause, "groups %lld does not divide the %lld input channels",
                  (long long)p->groups, (long long)p->in_c);
   if (p->out_c % p->groups != 0)
      return fail(field, "groups", cause, "groups %lld does not divide the %lld filters",
                  (long long)p->groups, (long long)p->out_c);
   int64_t k[2] = { p->kernel_h, p->kernel_w }, st[2] = { p->stride_h, p->stride_w };
   int64_t dil[2] = { p->dilation_h, p->dilation_w };
   int64_t op[2] = { p->output_pad_h, p->output_pad_w }, in[2] = { p->in_h, p->in_w };
   int64_t lo[2] = { p->pad_top, p->pad_left }, hi[2] = { p->pad_bottom, p->pad_right };
   int64_t out[2];
   for (int d = 0; d < 2; d++) {
      if (op[d] >= st[d] && op[d] >= dil[d])
         return fail(field, "output_padding", cause,
                     "output_padding %lld is not less than the stride %lld or the dilation %lld",
                     (long long)op[d], (long long)st[d], (long long)dil[d]);
      int64_t span = dil[d] * (k[d] - 1);
      if (lo[d] > span || hi[d] > span + op[d])
         return fail(field, "pad", cause,
                     "pad %lld,%lld,%lld,%lld is more than the kernel's span %lld (dilation x (kernel - 1)) can take back",
                     (long long)p->pad_top, (long long)p->pad_left, (long long)p->pad_bottom,
                     (long long)p->pad_right, (long long)span);
      out[d] = (in[d] - 1) * st[d] - lo[d] - hi[d] + span + op[d] + 1;
      if (out[d] > 1048576)
         return fail(field, "stride", cause, "the output would have %lld rows; expected at most 2^20",
                     (long long)out[d]);
   }
   p->out_h = out[0];
   p->out_w = out[1];
   return 0;
}

static void defaultScale(const OpParams *p, int d, int64_t *num, int64_t *den) {
   int64_t out = d ? p->out_w : p->out_h, in = d ? p->in_w : p->in_h;
   if (p->scale_den[d] > 0) {
      *num = p->scale_num[d];
      *den = p->scale_den[d];
      return;
   }
   int64_t g = gcd64(out, in);
   *num = out / g;
   *den = in / g;
}

static int finishResize(OpParams *p, const char **field, char **cause) {
   p->out_c = p->in_c;
   if ((unsigned)p->resize_mode > RESIZE_LINEAR || (unsigned)p->coord >= COORD_KIND_COUNT ||
       (unsigned)p->rounding >= ROUND_KIND_COUNT)
      return fail(field, "mode", cause, "unknown resize mode, coordinate mode or rounding");
   for (int d = 0; d < 2; d++) {
      if ((p->scale_num[d] > 0) != (p->scale_den[d] > 0) || p->scale_num[d] < 0)
         return fail(field, "scale", cause, "scale %lld/%lld is not a positive fraction",
                     (long long)p->scale_num[d], (long long)p->scale_den[d]);
      int64_t num, den;
      defaultScale(p, d, &num, &den);
      if (num > 1048576 || den > 1048576)
         return fail(field, "scale", cause, "scale %lld/%lld has terms over 2^20",
                     (long long)num, (long long)den);
   }
   return 0;
}

static int finishConcat(OpParams *p, const char **field, char **cause) {
   if (p->ninputs < 1 || p->ninputs > OP_MAX_CONCAT)
      return fail(field, "inputs", cause, "concat of %d inputs; expected 1 to %d", p->ninputs,
                  OP_MAX_CONCAT);
   if (p->concat_axis < 0 || p->concat_axis >= p->ndim)
      return fail(field, "axis", cause, "axis %d is outside the %d dimensions of the inputs",
                  p->concat_axis, p->ndim);
   int64_t total = 0;
   for (int i = 0; i < p->ninputs; i++) {
      if (p->concat_len[i] < 1)
         return fail(field, "inputs", cause, "input %d is empty along axis %d", i, p->concat_axis);
      total += p->concat_len[i];
   }
   if (total > 1048576)
      return fail(field, "inputs", cause, "the inputs sum to %lld along axis %d; expected at most 2^20",
                  (long long)total, p->concat_axis);
   p->shape[p->concat_axis] = total;
   return 0;
}

int Op_finish(OpParams *p, const char **field, char **cause) {
   if (p->kind >= OP_KIND_COUNT)
      return fail(field, "op", cause, "unknown op kind %d", (int)p->kind);
   switch (p->kind) {
   case OP_CONV2D:
      if (p->in_c % p->groups != 0)
         return fail(field, "groups", cause, "groups %lld does not divide the %lld input channels",
                     (long long)p->groups, (long long)p->in_c);
      if (p->out_c % p->groups != 0)
         return fail(field, "groups", cause, "groups %lld does not divide the %lld filters",
                     (long long)p->groups, (long long)p->out_c);
      if (finishWindow(p, field, cause) < 0)
         return -1;
      break;
   case OP_MAX_POOL2D:
   case OP_AVG_POOL2D:
      p->out_c = p->in_c;
      if (finishWindow(p, field, cause) < 0)
         return -1;
      break;
   case OP_GLOBAL_AVG_POOL2D:
      p->out_h = p->out_w = 1;
      /* fall through */
   case OP_ADAPTIVE_AVG_POOL2D:
      p->out_c = p->in_c;
      if (p->out_h > p->in_h || p->out_w > p->in_w)
         return fail(field, "output", cause, "output %lldx%lld is larger than the %lldx%lld input",
                     (long long)p->out_h, (long long)p->out_w, (long long)p->in_h,
                     (long long)p->in_w);
      break;
   case OP_SOFTMAX:
   case OP_LAYER_NORM:
   case OP_ELEMENTWISE:
   case OP_CONCAT:
      if (p->ndim < 1 || p->ndim > TE_MAX_DIMS)
         return fail(field, "input", cause, "input has %d dimensions; expected 1 to %d",
                     p->ndim, TE_MAX_DIMS);
      if (p->kind == OP_CONCAT && finishConcat(p, field, cause) < 0)
         return -1;
      if (p->kind == OP_ELEMENTWISE && p->nepilogue == 0)
         return fail(field, "epilogue", cause,
                     "an elementwise task is its epilogue; expected at least one stage");
      break;
   case OP_CONV2D_TRANSPOSE:
      if (finishTranspose(p, field, cause) < 0)
         return -1;
      break;
   case OP_RESIZE2D:
      if (finishResize(p, field, cause) < 0)
         return -1;
      break;
   default:
      break;
   }
   for (int i = 0; i < p->nepilogue; i++)
      if (Op_checkEpilogue(p, i, cause) < 0) {
         if (field)
            *field = "epilogue";
         return -1;
      }
   int64_t shape[TE_MAX_DIMS];
   for (int i = 0; i < Op_numInputs(p); i++) {
      const char *name;
      int n = Op_inputShape(p, i, shape, &name);
      if (countOf(n, shape) > OP_MAX_ELEMENTS)
         return fail(field, i == 0 ? "input" : "op", cause,
                     "tensor '%s' has more than 2^31-1 elements", name);
   }
   int n = Op_outputShape(p, shape);
   if (countOf(n, shape) > OP_MAX_ELEMENTS)
      return fail(field, "op", cause, "the output has more than 2^31-1 elements");
   return 0;
}

int Op_outputShape(const OpParams *p, int64_t *s) {
   switch (p->kind) {
   case OP_DENSE:
      s[0] = p->m; s[1] = p->n;
      return 2;
   case OP_BATCH_MATMUL:
      s[0] = p->b; s[1] = p->m; s[2] = p->n;
      return 3;
   case OP_SOFTMAX:
   case OP_LAYER_NORM:
   case OP_CONCAT:
   case OP_ELEMENTWISE:
      memcpy(s, p->shape, (size_t)p->ndim * sizeof *s);
      return p->ndim;
   default:
      s[0] = p->batch; s[1] = p->out_c; s[2] = p->out_h; s[3] = p->out_w;
      return 4;
   }
}

static int epilogueTensors(const OpParams *p) {
   int n = 0;
   for (int i = 0; i < p->nepilogue; i++)
      n += Epilogue_readsTensor(p->epilogue[i].kind);
   return n;
}

int Op_numOwnInputs(const OpParams *p) {
   return p->kind == OP_CONCAT ? p->ninputs : opTable[p->kind].nmain;
}

int Op_numInputs(const OpParams *p) {
   return Op_numOwnInputs(p) + epilogueTensors(p);
}

static const char *const concatInputNames[OP_MAX_CONCAT] = {
   "data0", "data1", "data2", "data3", "data4", "data5", "data6", "data7",
   "data8", "data9", "data10", "data11", "data12", "data13", "data14", "data15",
   "data16", "data17", "data18", "data19", "data20", "data21", "data22", "data23",
   "data24", "data25", "data26", "data27", "data28", "data29", "data30", "data31",
};

/* A tensor an epilogue reads more than once gets a numbered name, as a repeated stage
 * does: residual, residual_1, ... */
static const char *const residualNames[OP_MAX_EPILOGUE] = {
   "residual", "residual_1", "residual_2", "residual_3", "residual_4", "residual_5",
};
static const char *const multiplierNames[OP_MAX_EPILOGUE] = {
   "multiplier", "multiplier_1", "multiplier_2", "multiplier_3", "multiplier_4", "multiplier_5",
};
static const char *const channelScaleNames[OP_MAX_EPILOGUE] = {
   "channel_scale", "channel_scale_1", "channel_scale_2", "channel_scale_3", "channel_scale_4",
   "channel_scale_5",
};

int Op_inputShape(const OpParams *p, int i, int64_t *s, const char **name) {
   int nmain = Op_numOwnInputs(p);
   if (i >= nmain) {
      int t = i - nmain;
      for (int e = 0; e < p->nepilogue; e++) {
         EpilogueKind k = p->epilogue[e].kind;
         if (!Epilogue_readsTensor(k))
            continue;
         if (t-- > 0)
            continue;
         int repeats = 0;
         for (int j = 0; j < e; j++)
            repeats += p->epilogue[j].kind == k;
         int rank = Op_outputShape(p, s);
         if (Epilogue_perChannel(k)) {
            *name = k == EPI_BIAS ? "bias" : "scale";
            s[0] = s[Op_channelAxis(p)];
            return 1;
         }
         if (k == EPI_CHANNEL_MUL) {
            *name = channelScaleNames[repeats];
            return 2;   /* [N, C] */
         }
         *name = k == EPI_ADD ? residualNames[repeats] : multiplierNames[repeats];
         return rank;
      }
      fatal("op input %d out of range", i);
   }
   switch (p->kind) {
   case OP_CONCAT:
      *name = concatInputNames[i];
      memcpy(s, p->shape, (size_t)p->ndim * sizeof *s);
      s[p->concat_axis] = p->concat_len[i];
      return p->ndim;
   case OP_ELEMENTWISE:
      *name = "data";
      memcpy(s, p->shape, (size_t)p->ndim * sizeof *s);
      return p->ndim;
   case OP_CONV2D:
   case OP_CONV2D_TRANSPOSE:
      if (i == 0) {
         *name = "data";
         s[0] = p->batch; s[1] = p->in_c; s[2] = p->in_h; s[3] = p->in_w;
      } else {
         /* conv2d's [C_out, C_in / groups, kh, kw]; ONNX's ConvTranspose weight is
          * [C_in, C_out / groups, kh, kw] */
         bool t = p->kind == OP_CONV2D_TRANSPOSE;
         *name = "kernel";
         s[0] = t ? p->in_c : p->out_c;
         s[1] = t ? p->out_c / p->groups : p->in_c / p->groups;
         s[2] = p->kernel_h; s[3] = p->kernel_w;
      }
      return 4;
   case OP_DENSE:
      *name = i == 0 ? "data" : "weight";
      s[0] = i == 0 ? p->m : p->n;
      s[1] = p->k;
      return 2;
   case OP_BATCH_MATMUL:
      *name = i == 0 ? "A" : "B";
      s[0] = p->b;
      s[1] = i == 0 ? p->m : p->n;
      s[2] = p->k;
      return 3;
   case OP_SOFTMAX:
   case OP_LAYER_NORM:
      if (i == 0) {
         *name = "data";
         memcpy(s, p->shape, (size_t)p->ndim * sizeof *s);
         return p->ndim;
      }
      *name = i == 1 ? "gamma" : "beta";
      s[0] = p->shape[p->ndim - 1];
      return 1;
   default:
      *name = "data";
      s[0] = p->batch; s[1] = p->in_c; s[2] = p->in_h; s[3] = p->in_w;
      return 4;
   }
}

static int64_t elems(const int64_t *shape, int rank) {
   int64_t n = 1;
   for (int d = 0; d < rank; d++)
      n *= shape[d];
   return n;
}

int64_t Op_inputElems(const OpParams *p, int i) {
   int64_t shape[TE_MAX_DIMS];
   const char *name;
   return elems(shape, Op_inputShape(p, i, shape, &name));
}

int64_t Op_outputElems(const OpParams *p) {
   int64_t shape[TE_MAX_DIMS];
   return elems(shape, Op_outputShape(p, shape));
}

/* ---- DAG construction ---- */

static const char *const nchwAxes[] = { "nn", "ff", "yy", "xx" };
static const char *const genericAxes[] = { "ax0", "ax1", "ax2", "ax3", "ax4", "ax5" };

static void axisVars(Dag *g, int n, int32_t *out) {
   for (int i = 0; i < n; i++)
      out[i] = Expr_axis(g, i);
}

static int32_t intConst(Dag *g, int64_t v) {
   return Expr_int(g, v);
}

/* i >= lo && i < hi, leaving out bounds that always hold. */
static int32_t inRange(Dag *g, int32_t i, int64_t lo, int64_t hi, int64_t extent, int32_t cond) {
   int32_t parts[2];
   int n = 0;
   if (lo > 0)
      parts[n++] = Expr_binary(g, EXPR_GE, i, intConst(g, lo));
   if (hi < extent)
      parts[n++] = Expr_binary(g, EXPR_LT, i, intConst(g, hi));
   for (int k = 0; k < n; k++)
      cond = cond < 0 ? parts[k] : Expr_binary(g, EXPR_AND, cond, parts[k]);
   return cond;
}

/* TOPI's pad: a stage that reads `src` inside the border and `fill` outside. */
static int padStage(Dag *g, int src, const OpParams *p, double fill) {
   const Stage *in = &g->stages[src];
   int64_t shape[4] = { in->shape[0], in->shape[1], in->shape[2] + p->pad_top + p->pad_bottom,
                        in->shape[3] + p->pad_left + p->pad_right };
   static const char *const names[] = { "i0", "i1", "i2", "i3" };
   int s = Dag_compute(g, "pad_temp", 4, shape, names);
   int32_t ax[4];
   axisVars(g, 4, ax);
   int32_t cond = inRange(g, ax[2], p->pad_top, p->pad_top + p->in_h, shape[2], -1);
   cond = inRange(g, ax[3], p->pad_left, p->pad_left + p->in_w, shape[3], cond);
   int32_t idx[4] = { ax[0], ax[1], Expr_sub(g, ax[2], intConst(g, p->pad_top)),
                      Expr_sub(g, ax[3], intConst(g, p->pad_left)) };
   int32_t body = Expr_load(g, src, 4, idx);
   if (cond >= 0)
      body = Expr_select(g, cond, body, Expr_float(g, fill));
   Dag_setBody(g, s, REDUCE_NONE, body);
   return s;
}

static bool hasPadding(const OpParams *p) {
   return p->pad_top || p->pad_left || p->pad_bottom || p->pad_right;
}

/* y*stride + r*dilation */
static int32_t windowIndex(Dag *g, int32_t y, int64_t stride, int32_t r, int64_t dilation) {
   return Expr_add(g, Expr_mul(g, y, intConst(g, stride)), Expr_mul(g, r, intConst(g, dilation)));
}

/* The convolution stage: out[n, k, y, x] = sum src[n, group's channel, y*stride +
 * ry*dilation, x*stride + rx*dilation] * kernel[k, rc, ry, rx], over p's groups. */
static int convStage(const OpParams *p, Dag *g, const char *name, int src, int kernel,
                     int64_t stride_h, int64_t stride_w) {
   int64_t s[4];
   Op_outputShape(p, s);
   int conv = Dag_compute(g, name, 4, s, nchwAxes);
   int64_t cpg = p->in_c / p->groups, kpg = p->out_c / p->groups;
   int rc = cpg > 1 ? Dag_reduceAxis(g, conv, "rc", cpg) : -1;
   int ry = Dag_reduceAxis(g, conv, "ry", p->kernel_h);
   int rx = Dag_reduceAxis(g, conv, "rx", p->kernel_w);
   int32_t ax[4];
   axisVars(g, 4, ax);
   int32_t vrc = rc >= 0 ? Expr_axis(g, rc) : intConst(g, 0);
   int32_t vry = Expr_axis(g, ry), vrx = Expr_axis(g, rx);
   int32_t channel = vrc;
   if (p->groups > 1) {
      int32_t group = Expr_binary(g, EXPR_FLOORDIV, ax[1], intConst(g, kpg));
      channel = Expr_add(g, Expr_mul(g, group, intConst(g, cpg)), vrc);
   }
   int32_t in[4] = { ax[0], channel, windowIndex(g, ax[2], stride_h, vry, p->dilation_h),
                     windowIndex(g, ax[3], stride_w, vrx, p->dilation_w) };
   int32_t w[4] = { ax[1], vrc, vry, vrx };
   int32_t body = Expr_mul(g, Expr_load(g, src, 4, in), Expr_load(g, kernel, 4, w));
   Dag_setBody(g, conv, REDUCE_SUM, body);
   return conv;
}

/* A convolution's two placeholders, data and kernel, in input order. */
static void convPlaceholders(const OpParams *p, Dag *g, int *data, int *kernel) {
   int64_t s[4];
   const char *name;
   Op_inputShape(p, 0, s, &name);
   *data = Dag_placeholder(g, "data", 4, s);
   Op_inputShape(p, 1, s, &name);
   *kernel = Dag_placeholder(g, "kernel", 4, s);
}

static int buildConv2d(const OpParams *p, Dag *g) {
   int data, kernel;
   convPlaceholders(p, g, &data, &kernel);
   int src = hasPadding(p) ? padStage(g, data, p, 0.0) : data;
   return convStage(p, g, "conv2d_nchw", src, kernel, p->stride_h, p->stride_w);
}

/* TOPI's conv2d_transpose_nchw: the input spread out by the stride and padded by the
 * kernel's span less the pads (one stage, data_pad), the kernel flipped and its two
 * channel axes swapped (kernel_transform), then a plain convolution of the two. Both
 * first stages are inlined by the sketch rules. */
static int buildConv2dTranspose(const OpParams *p, Dag *g) {
   int data, kernel;
   convPlaceholders(p, g, &data, &kernel);
   int64_t s[4];
   int64_t cpg = p->in_c / p->groups, kpg = p->out_c / p->groups;
   int64_t k[2] = { p->kernel_h, p->kernel_w }, st[2] = { p->stride_h, p->stride_w };
   int64_t dil[2] = { p->dilation_h, p->dilation_w }, in[2] = { p->in_h, p->in_w };
   int64_t lo[2] = { p->pad_top, p->pad_left };
   int64_t front[2], padded[2];
   Op_outputShape(p, s);
   for (int d = 0; d < 2; d++) {
      front[d] = dil[d] * (k[d] - 1) - lo[d];
      padded[d] = s[2 + d] + dil[d] * (k[d] - 1);
   }
   int64_t ps[4] = { p->batch, p->in_c, padded[0], padded[1] };
   static const char *const padAxes[] = { "i0", "i1", "i2", "i3" };
   int pad = Dag_compute(g, "data_pad", 4, ps, padAxes);
   int32_t ax[4];
   axisVars(g, 4, ax);
   int32_t idx[4] = { ax[0], ax[1], -1, -1 }, cond = -1;
   for (int d = 0; d < 2; d++) {
      /* row j of the padded input holds input row (j - front) / stride when that is a
       * whole number inside the input */
      int32_t j = Expr_sub(g, ax[2 + d], intConst(g, front[d]));
      int64_t last = (in[d] - 1) * st[d];
      cond = inRange(g, ax[2 + d], front[d], front[d] + last + 1, padded[d], cond);
      if (st[d] > 1) {
         int32_t onGrid = Expr_binary(g, EXPR_EQ, Expr_binary(g, EXPR_FLOORMOD, j, intConst(g, st[d])),
                                      intConst(g, 0));
         cond = cond < 0 ? onGrid : Expr_binary(g, EXPR_AND, cond, onGrid);
      }
      idx[2 + d] = Expr_binary(g, EXPR_FLOORDIV, j, intConst(g, st[d]));
   }
   int32_t body = Expr_load(g, data, 4, idx);
   if (cond >= 0)
      body = Expr_select(g, cond, body, Expr_float(g, 0.0));
   Dag_setBody(g, pad, REDUCE_NONE, body);

   int64_t ks[4] = { p->out_c, cpg, k[0], k[1] };
   static const char *const kernelAxes[] = { "o", "i", "h", "w" };
   int flip = Dag_compute(g, "kernel_transform", 4, ks, kernelAxes);
   axisVars(g, 4, ax);
   int32_t ic = ax[1], oc = ax[0];
   if (p->groups > 1) {
      int32_t group = Expr_binary(g, EXPR_FLOORDIV, ax[0], intConst(g, kpg));
      ic = Expr_add(g, Expr_mul(g, group, intConst(g, cpg)), ax[1]);
      oc = Expr_binary(g, EXPR_FLOORMOD, ax[0], intConst(g, kpg));
   }
   int32_t kidx[4] = { ic, oc, Expr_sub(g, intConst(g, k[0] - 1), ax[2]),
                       Expr_sub(g, intConst(g, k[1] - 1), ax[3]) };
   Dag_setBody(g, flip, REDUCE_NONE, Expr_load(g, kernel, 4, kidx));

   return convStage(p, g, "conv2d_transpose_nchw", pad, flip, 1, 1);
}

/* Where output pixel x of a resized axis samples the input: x_in = (a x + b) / den,
 * exactly, from ONNX Resize's coordinate_transformation_mode with the scale as the
 * fraction num/den (out per in). */
static void resizeMap(const OpParams *p, int d, int64_t *a, int64_t *b, int64_t *den) {
   int64_t in = d ? p->in_w : p->in_h, out = d ? p->out_w : p->out_h;
   int64_t sn, sd;
   defaultScale(p, d, &sn, &sd);
   switch (p->coord) {
   case COORD_PYTORCH_HALF_PIXEL:
      if (out == 1) {
         *a = 0, *b = 0, *den = 1;   /* x_in = 0 */
         return;
      }
      /* fall through */
   case COORD_HALF_PIXEL:
      /* (x + 1/2) / scale - 1/2 = ((2x + 1) sd - sn) / (2 sn) */
      *a = 2 * sd, *b = sd - sn, *den = 2 * sn;
      return;
   case COORD_ALIGN_CORNERS:
      if (out == 1) {
         *a = 0, *b = 0, *den = 1;
         return;
      }
      *a = in - 1, *b = 0, *den = out - 1;
      return;
   default:
      *a = sd, *b = 0, *den = sn;   /* x / scale */
      return;
   }
}

static int32_t clampIndex(Dag *g, int32_t i, int64_t extent) {
   return Expr_binary(g, EXPR_MIN, Expr_binary(g, EXPR_MAX, i, intConst(g, 0)), intConst(g, extent - 1));
}

/* TOPI's resize2d, NCHW: nearest reads the input at the rounded coordinate; linear
 * weighs the four neighbours by the coordinate's fraction. Neighbours outside the input
 * take the edge's value (ONNX's reference pads the input by its edge). */
static int buildResize(const OpParams *p, Dag *g) {
   int64_t s[4];
   const char *name;
   Op_inputShape(p, 0, s, &name);
   int data = Dag_placeholder(g, "data", 4, s);
   Op_outputShape(p, s);
   int out = Dag_compute(g, "resize", 4, s, nchwAxes);
   int32_t ax[4];
   axisVars(g, 4, ax);
   int64_t in[2] = { p->in_h, p->in_w };
   int32_t lo[2], hi[2], frac[2];
   for (int d = 0; d < 2; d++) {
      int64_t a, b, den;
      resizeMap(p, d, &a, &b, &den);
      int32_t numer = Expr_add(g, Expr_mul(g, ax[2 + d], intConst(g, a)), intConst(g, b));
      if (p->resize_mode == RESIZE_NEAREST) {
         int32_t r;
         switch (p->rounding) {
         case ROUND_FLOOR:
            r = Expr_binary(g, EXPR_FLOORDIV, numer, intConst(g, den));
            break;
         case ROUND_CEIL:
            r = Expr_binary(g, EXPR_FLOORDIV, Expr_add(g, numer, intConst(g, den - 1)), intConst(g, den));
            break;
         case ROUND_PREFER_CEIL:   /* floor(v + 1/2) */
            r = Expr_binary(g, EXPR_FLOORDIV, Expr_add(g, Expr_mul(g, numer, intConst(g, 2)), intConst(g, den)),
                            intConst(g, 2 * den));
            break;
         default:                  /* round_prefer_floor: ceil(v - 1/2) */
            r = Expr_binary(g, EXPR_FLOORDIV,
                            Expr_add(g, Expr_mul(g, numer, intConst(g, 2)), intConst(g, den - 1)),
                            intConst(g, 2 * den));
            break;
         }
         lo[d] = clampIndex(g, r, in[d]);
         continue;
      }
      int32_t base = Expr_binary(g, EXPR_FLOORDIV, numer, intConst(g, den));
      int32_t rem = Expr_sub(g, numer, Expr_mul(g, base, intConst(g, den)));
      frac[d] = Expr_binary(g, EXPR_DIV, Expr_cast(g, rem), Expr_float(g, (double)den));
      lo[d] = clampIndex(g, base, in[d]);
      hi[d] = clampIndex(g, Expr_add(g, base, intConst(g, 1)), in[d]);
   }
   int32_t body;
   if (p->resize_mode == RESIZE_NEAREST) {
      int32_t idx[4] = { ax[0], ax[1], lo[0], lo[1] };
      body = Expr_load(g, data, 4, idx);
   } else {
      int32_t row[2];
      for (int r = 0; r < 2; r++) {
         int32_t y = r ? hi[0] : lo[0];
         int32_t i0[4] = { ax[0], ax[1], y, lo[1] }, i1[4] = { ax[0], ax[1], y, hi[1] };
         int32_t left = Expr_load(g, data, 4, i0), right = Expr_load(g, data, 4, i1);
         /* left + (right - left) * fx */
         row[r] = Expr_add(g, left, Expr_mul(g, Expr_sub(g, right, left), frac[1]));
      }
      body = Expr_add(g, row[0], Expr_mul(g, Expr_sub(g, row[1], row[0]), frac[0]));
   }
   Dag_setBody(g, out, REDUCE_NONE, body);
   return out;
}

/* TOPI's concatenate: one stage that reads input i where the axis index falls in its
 * range, as a chain of selects. */
static int buildConcat(const OpParams *p, Dag *g) {
   int in[OP_MAX_CONCAT];
   for (int i = 0; i < p->ninputs; i++) {
      int64_t s[TE_MAX_DIMS];
      const char *name;
      int rank = Op_inputShape(p, i, s, &name);
      in[i] = Dag_placeholder(g, name, rank, s);
   }
   int n = p->ndim, axis = p->concat_axis;
   int out = Dag_compute(g, "T_concat", n, p->shape, genericAxes);
   int32_t ax[TE_MAX_DIMS];
   axisVars(g, n, ax);
   int64_t offset[OP_MAX_CONCAT];
   int64_t at = 0;
   for (int i = 0; i < p->ninputs; i++) {
      offset[i] = at;
      at += p->concat_len[i];
   }
   int32_t body = -1;
   for (int i = p->ninputs - 1; i >= 0; i--) {
      int32_t idx[TE_MAX_DIMS];
      memcpy(idx, ax, (size_t)n * sizeof *idx);
      idx[axis] = Expr_sub(g, ax[axis], intConst(g, offset[i]));
      int32_t v = Expr_load(g, in[i], n, idx);
      body = body < 0 ? v
           : Expr_select(g, Expr_binary(g, EXPR_LT, ax[axis], intConst(g, offset[i] + p->concat_len[i])), v, body);
   }
   Dag_setBody(g, out, REDUCE_NONE, body);
   return out;
}

static int buildMatmul(const OpParams *p, Dag *g) {
   int64_t s[3];
   const char *name;
   int rank = Op_inputShape(p, 0, s, &name);
   int a = Dag_placeholder(g, name, rank, s);
   Op_inputShape(p, 1, s, &name);
   int w = Dag_placeholder(g, name, rank, s);
   Op_outputShape(p, s);
   static const char *const dense[] = { "i", "j" };
   static const char *const batched[] = { "b", "i", "j" };
   bool isBatched = p->kind == OP_BATCH_MATMUL;
   int out = Dag_compute(g, isBatched ? "T_batch_matmul_NT" : "T_dense", rank, s,
                         isBatched ? batched : dense);
   int k = Dag_reduceAxis(g, out, "k", p->k);
   int32_t ax[3], ia[3], iw[3];
   axisVars(g, rank, ax);
   int32_t vk = Expr_axis(g, k);
   if (isBatched) {
      ia[0] = iw[0] = ax[0];
      ia[1] = ax[1]; iw[1] = ax[2];
   } else {
      ia[0] = ax[0]; iw[0] = ax[1];
   }
   ia[rank - 1] = iw[rank - 1] = vk;
   int32_t body = Expr_mul(g, Expr_load(g, a, rank, ia), Expr_load(g, w, rank, iw));
   Dag_setBody(g, out, REDUCE_SUM, body);
   return out;
}

static int buildWindowPool(const OpParams *p, Dag *g) {
   int64_t s[4];
   const char *name;
   Op_inputShape(p, 0, s, &name);
   int data = Dag_placeholder(g, "data", 4, s);
   bool isMax = p->kind == OP_MAX_POOL2D;
   int src = hasPadding(p) ? padStage(g, data, p, isMax ? -INFINITY : 0.0) : data;
   Op_outputShape(p, s);
   int pool = Dag_compute(g, isMax ? "pool_max" : "pool_sum", 4, s, genericAxes);
   int r0 = Dag_reduceAxis(g, pool, "rv0", p->kernel_h);
   int r1 = Dag_reduceAxis(g, pool, "rv1", p->kernel_w);
   int32_t ax[4];
   axisVars(g, 4, ax);
   int32_t idx[4] = { ax[0], ax[1], windowIndex(g, ax[2], p->stride_h, Expr_axis(g, r0), 1),
                      windowIndex(g, ax[3], p->stride_w, Expr_axis(g, r1), 1) };
   Dag_setBody(g, pool, isMax ? REDUCE_MAX : REDUCE_SUM, Expr_load(g, src, 4, idx));
   if (isMax)
      return pool;
   int avg = Dag_compute(g, "pool_avg", 4, s, genericAxes);
   axisVars(g, 4, ax);
   int32_t divisor;
   if (p->count_include_pad) {
      divisor = Expr_float(g, (double)(p->kernel_h * p->kernel_w));
   } else {
      /* window rows inside the input: [y*s, y*s+k) meets [pad, pad+H) in padded coordinates */
      int32_t extent[2];
      int64_t stride[2] = { p->stride_h, p->stride_w }, k[2] = { p->kernel_h, p->kernel_w };
      int64_t lo[2] = { p->pad_top, p->pad_left }, len[2] = { p->in_h, p->in_w };
      for (int d = 0; d < 2; d++) {
         int32_t start = Expr_mul(g, ax[2 + d], intConst(g, stride[d]));
         int32_t end = Expr_add(g, start, intConst(g, k[d]));
         int32_t top = Expr_binary(g, EXPR_MIN, end, intConst(g, lo[d] + len[d]));
         int32_t bottom = Expr_binary(g, EXPR_MAX, start, intConst(g, lo[d]));
         extent[d] = Expr_sub(g, top, bottom);
      }
      divisor = Expr_cast(g, Expr_mul(g, extent[0], extent[1]));
   }
   int32_t body = Expr_binary(g, EXPR_DIV, Expr_load(g, pool, 4, ax), divisor);
   Dag_setBody(g, avg, REDUCE_NONE, body);
   return avg;
}

/* Adaptive pooling window of output i: [floor(i*in/out), ceil((i+1)*in/out)). */
static int64_t adaptiveStart(int64_t i, int64_t in, int64_t out) {
   return i * in / out;
}

static int64_t adaptiveEnd(int64_t i, int64_t in, int64_t out) {
   return ((i + 1) * in + out - 1) / out;
}

static int64_t maxWindow(int64_t in, int64_t out) {
   int64_t m = 0;
   for (int64_t i = 0; i < out; i++) {
      int64_t w = adaptiveEnd(i, in, out) - adaptiveStart(i, in, out);
      m = w > m ? w : m;
   }
   return m;
}

static int64_t sumWindows(int64_t in, int64_t out) {
   int64_t s = 0;
   for (int64_t i = 0; i < out; i++)
      s += adaptiveEnd(i, in, out) - adaptiveStart(i, in, out);
   return s;
}

static int buildAdaptivePool(const OpParams *p, Dag *g) {
   int64_t s[4];
   const char *name;
   Op_inputShape(p, 0, s, &name);
   int data = Dag_placeholder(g, "data", 4, s);
   Op_outputShape(p, s);
   bool uniform = p->in_h % p->out_h == 0 && p->in_w % p->out_w == 0;
   int64_t in[2] = { p->in_h, p->in_w }, out[2] = { p->out_h, p->out_w };
   int sum = Dag_compute(g, "adaptive_pool_sum", 4, s, genericAxes);
   int r[2];
   for (int d = 0; d < 2; d++)
      r[d] = Dag_reduceAxis(g, sum, d ? "rv1" : "rv0", maxWindow(in[d], out[d]));
   int32_t ax[4];
   axisVars(g, 4, ax);
   int32_t idx[4] = { ax[0], ax[1], -1, -1 }, start[2], end[2], cond = -1;
   for (int d = 0; d < 2; d++) {
      int32_t y = ax[2 + d];
      if (uniform) {
         start[d] = Expr_mul(g, y, intConst(g, in[d] / out[d]));
         end[d] = Expr_add(g, start[d], intConst(g, in[d] / out[d]));
      } else {
         start[d] = Expr_binary(g, EXPR_FLOORDIV, Expr_mul(g, y, intConst(g, in[d])),
                                intConst(g, out[d]));
         end[d] = Expr_binary(g, EXPR_FLOORDIV,
                              Expr_add(g, Expr_mul(g, y, intConst(g, in[d])),
                                       intConst(g, in[d] + out[d] - 1)),
                              intConst(g, out[d]));
      }
      idx[2 + d] = Expr_add(g, start[d], Expr_axis(g, r[d]));
      if (!uniform) {
         int32_t inside = Expr_binary(g, EXPR_LT, idx[2 + d], end[d]);
         cond = cond < 0 ? inside : Expr_binary(g, EXPR_AND, cond, inside);
      }
   }
   int32_t body = Expr_load(g, data, 4, idx);
   if (cond >= 0)
      body = Expr_select(g, cond, body, Expr_float(g, 0.0));
   Dag_setBody(g, sum, REDUCE_SUM, body);
   int avg = Dag_compute(g, "adaptive_pool_avg", 4, s, genericAxes);
   axisVars(g, 4, ax);
   int32_t divisor;
   if (uniform) {
      divisor = Expr_float(g, (double)(in[0] / out[0] * (in[1] / out[1])));
   } else {
      /* start/end were built over the sum stage's axes; the avg stage's axes have the same
       * numbers, so the same expressions serve here */
      divisor = Expr_cast(g, Expr_mul(g, Expr_sub(g, end[0], start[0]), Expr_sub(g, end[1], start[1])));
   }
   Dag_setBody(g, avg, REDUCE_NONE, Expr_binary(g, EXPR_DIV, Expr_load(g, sum, 4, ax), divisor));
   if (!uniform) {
      /* the guarded reduction adds zeros outside each window; count only real work */
      double per = (double)(p->batch * p->in_c);
      g->flops = per * (double)sumWindows(in[0], out[0]) * (double)sumWindows(in[1], out[1]) +
                 per * (double)(out[0] * out[1]);
   }
   return avg;
}

/* Loads `src` (rank n) at all axes but the last, which is replaced by `last`. */
static int32_t loadRow(Dag *g, int src, const int32_t *ax, int n, int32_t last) {
   int32_t idx[TE_MAX_DIMS];
   memcpy(idx, ax, (size_t)n * sizeof *idx);
   if (last >= 0)
      idx[n - 1] = last;
   return Expr_load(g, src, n, idx);
}

static int buildSoftmax(const OpParams *p, Dag *g) {
   int n = p->ndim;
   const int64_t *s = p->shape;
   int data = Dag_placeholder(g, "data", n, s);
   int32_t ax[TE_MAX_DIMS];

   int maxelem = Dag_compute(g, "T_softmax_maxelem", n - 1, s, genericAxes);
   int k = Dag_reduceAxis(g, maxelem, "k", s[n - 1]);
   axisVars(g, n - 1, ax);
   Dag_setBody(g, maxelem, REDUCE_MAX, loadRow(g, data, ax, n, Expr_axis(g, k)));

   int ex = Dag_compute(g, "T_softmax_exp", n, s, genericAxes);
   axisVars(g, n, ax);
   int32_t shifted = Expr_sub(g, Expr_load(g, data, n, ax), Expr_load(g, maxelem, n - 1, ax));
   Dag_setBody(g, ex, REDUCE_NONE, Expr_call(g, EXPR_EXP, shifted));

   int expsum = Dag_compute(g, "T_softmax_expsum", n - 1, s, genericAxes);
   k = Dag_reduceAxis(g, expsum, "k", s[n - 1]);
   axisVars(g, n - 1, ax);
   Dag_setBody(g, expsum, REDUCE_SUM, loadRow(g, ex, ax, n, Expr_axis(g, k)));

   int norm = Dag_compute(g, "T_softmax_norm", n, s, genericAxes);
   axisVars(g, n, ax);
   Dag_setBody(g, norm, REDUCE_NONE,
               Expr_binary(g, EXPR_DIV, Expr_load(g, ex, n, ax), Expr_load(g, expsum, n - 1, ax)));
   return norm;
}

static int buildLayerNorm(const OpParams *p, Dag *g) {
   int n = p->ndim;
   const int64_t *s = p->shape;
   int64_t d = s[n - 1];
   int data = Dag_placeholder(g, "data", n, s);
   int gamma = Dag_placeholder(g, "gamma", 1, &s[n - 1]);
   int beta = Dag_placeholder(g, "beta", 1, &s[n - 1]);
   int32_t ax[TE_MAX_DIMS];

   /* TOPI reduces sum and sum of squares in one tuple reduction; two reductions over the
    * same axis have the same iteration count and FLOPs, and our stages hold one value */
   int sum = Dag_compute(g, "T_layer_norm_sum", n - 1, s, genericAxes);
   int k = Dag_reduceAxis(g, sum, "k", d);
   axisVars(g, n - 1, ax);
   Dag_setBody(g, sum, REDUCE_SUM, loadRow(g, data, ax, n, Expr_axis(g, k)));

   int sq = Dag_compute(g, "T_layer_norm_sqsum", n - 1, s, genericAxes);
   k = Dag_reduceAxis(g, sq, "k", d);
   axisVars(g, n - 1, ax);
   int32_t x = loadRow(g, data, ax, n, Expr_axis(g, k));
   Dag_setBody(g, sq, REDUCE_SUM, Expr_mul(g, x, x));

   int out = Dag_compute(g, "T_layer_norm", n, s, genericAxes);
   axisVars(g, n, ax);
   int32_t fd = Expr_float(g, (double)d);
   int32_t mean = Expr_binary(g, EXPR_DIV, Expr_load(g, sum, n - 1, ax), fd);
   int32_t sqmean = Expr_binary(g, EXPR_DIV, Expr_load(g, sq, n - 1, ax), fd);
   int32_t var = Expr_sub(g, sqmean, Expr_mul(g, mean, mean));
   int32_t inv = Expr_call(g, EXPR_RSQRT, Expr_add(g, var, Expr_float(g, p->epsilon)));
   int32_t norm = Expr_mul(g, Expr_sub(g, Expr_load(g, data, n, ax), mean), inv);
   int32_t j = ax[n - 1];
   int32_t affine = Expr_add(g, Expr_mul(g, norm, Expr_load(g, gamma, 1, &j)),
                             Expr_load(g, beta, 1, &j));
   Dag_setBody(g, out, REDUCE_NONE, affine);
   return out;
}

static int32_t clamp(Dag *g, int32_t x, double lo, double hi) {
   return Expr_binary(g, EXPR_MIN, Expr_binary(g, EXPR_MAX, x, Expr_float(g, lo)),
                      Expr_float(g, hi));
}

/* relu6(x + 3) / 6, as TVM imports PyTorch's hardsigmoid: an add, a clip, a divide */
static int32_t hardSigmoid(Dag *g, int32_t x) {
   return Expr_binary(g, EXPR_DIV, clamp(g, Expr_add(g, x, Expr_float(g, 3.0)), 0.0, 6.0),
                      Expr_float(g, 6.0));
}

static const char *const epilogueStageNames[EPI_KIND_COUNT] = {
   [EPI_BIAS] = "T_bias", [EPI_ADD] = "T_add", [EPI_RELU] = "T_relu",
   [EPI_RELU6] = "T_relu6", [EPI_CLIP] = "T_clip", [EPI_GELU] = "T_gelu",
   [EPI_HARDSWISH] = "T_hardswish", [EPI_HARDSIGMOID] = "T_hardsigmoid", [EPI_SIGMOID] = "T_sigmoid",
   [EPI_MUL] = "T_multiply", [EPI_SCALE] = "T_scale", [EPI_CHANNEL_MUL] = "T_channel_multiply",
   [EPI_MUL_CONST] = "T_multiply_const", [EPI_DIV_CONST] = "T_divide_const",
};

/* "name", or "name_N" for entry e, the N-th repeat of its kind in the epilogue */
static void repeatName(const OpParams *p, int e, const char *base, char *out, size_t size) {
   int repeats = 0;
   for (int j = 0; j < e; j++)
      repeats += p->epilogue[j].kind == p->epilogue[e].kind;
   if (repeats)
      snprintf(out, size, "%s_%d", base, repeats);
   else
      snprintf(out, size, "%s", base);
}

static void buildEpilogue(const OpParams *p, Dag *g, int prev) {
   int64_t s[TE_MAX_DIMS];
   int n = Op_outputShape(p, s);
   int nextInput = Op_numOwnInputs(p);
   int tensors[OP_MAX_EPILOGUE];
   char name[TE_NAME_MAX];
   /* every placeholder first, in input order, then the elementwise chain */
   for (int e = 0; e < p->nepilogue; e++) {
      if (!Epilogue_readsTensor(p->epilogue[e].kind))
         continue;
      int64_t is[TE_MAX_DIMS];
      const char *tensorName;
      int rank = Op_inputShape(p, nextInput++, is, &tensorName);
      tensors[e] = Dag_placeholder(g, tensorName, rank, is);
   }
   int channel = Op_channelAxis(p);
   for (int e = 0; e < p->nepilogue; e++) {
      const Epilogue *ep = &p->epilogue[e];
      repeatName(p, e, epilogueStageNames[ep->kind], name, sizeof name);
      int st = Dag_compute(g, name, n, s, genericAxes);
      int32_t ax[TE_MAX_DIMS];
      axisVars(g, n, ax);
      int32_t x = Expr_load(g, prev, n, ax), body;
      switch (ep->kind) {
      case EPI_BIAS:
         body = Expr_add(g, x, Expr_load(g, tensors[e], 1, &ax[channel]));
         break;
      case EPI_SCALE:
         body = Expr_mul(g, x, Expr_load(g, tensors[e], 1, &ax[channel]));
         break;
      case EPI_CHANNEL_MUL:
         body = Expr_mul(g, x, Expr_load(g, tensors[e], 2, ax));
         break;
      case EPI_ADD:
         body = Expr_add(g, x, Expr_load(g, tensors[e], n, ax));
         break;
      case EPI_MUL:
         body = Expr_mul(g, x, Expr_load(g, tensors[e], n, ax));
         break;
      case EPI_MUL_CONST:
         body = Expr_mul(g, x, Expr_float(g, ep->value));
         break;
      case EPI_DIV_CONST:
         body = Expr_binary(g, EXPR_DIV, x, Expr_float(g, ep->value));
         break;
      case EPI_RELU:
         body = Expr_binary(g, EXPR_MAX, x, Expr_float(g, 0.0));
         break;
      case EPI_RELU6:
         body = clamp(g, x, 0.0, 6.0);
         break;
      case EPI_CLIP:
         body = clamp(g, x, ep->lo, ep->hi);
         break;
      case EPI_GELU: {
         int32_t t = Expr_call(g, EXPR_ERF, Expr_mul(g, x, Expr_float(g, M_SQRT1_2)));
         body = Expr_mul(g, Expr_mul(g, x, Expr_float(g, 0.5)),
                         Expr_add(g, Expr_float(g, 1.0), t));
         break;
      }
      case EPI_HARDSWISH:
         body = Expr_mul(g, x, hardSigmoid(g, x));
         break;
      case EPI_HARDSIGMOID:
         body = hardSigmoid(g, x);
         break;
      case EPI_SIGMOID:
         body = Expr_call(g, EXPR_SIGMOID, x);
         break;
      default:
         fatal("unknown epilogue kind %d", ep->kind);
      }
      Dag_setBody(g, st, REDUCE_NONE, body);
      prev = st;
   }
}

void Op_buildDag(const OpParams *p, Dag *g) {
   int out;
   g->flops = -1;
   switch (p->kind) {
   case OP_CONV2D: out = buildConv2d(p, g); break;
   case OP_DENSE:
   case OP_BATCH_MATMUL: out = buildMatmul(p, g); break;
   case OP_MAX_POOL2D:
   case OP_AVG_POOL2D: out = buildWindowPool(p, g); break;
   case OP_ADAPTIVE_AVG_POOL2D:
   case OP_GLOBAL_AVG_POOL2D: out = buildAdaptivePool(p, g); break;
   case OP_SOFTMAX: out = buildSoftmax(p, g); break;
   case OP_LAYER_NORM: out = buildLayerNorm(p, g); break;
   case OP_CONV2D_TRANSPOSE: out = buildConv2dTranspose(p, g); break;
   case OP_RESIZE2D: out = buildResize(p, g); break;
   case OP_CONCAT: out = buildConcat(p, g); break;
   case OP_ELEMENTWISE: {
      int64_t s[TE_MAX_DIMS];
      const char *name;
      int rank = Op_inputShape(p, 0, s, &name);
      out = Dag_placeholder(g, name, rank, s);
      break;
   }
   default: fatal("unknown op kind %d", p->kind);
   }
   double epilogueStart = Dag_estimateFlops(g);
   double own = g->flops >= 0 ? g->flops : epilogueStart;
   buildEpilogue(p, g, out);
   g->flops = own + (Dag_estimateFlops(g) - epilogueStart);
}

double Op_flops(const OpParams *p) {
   Dag g;
   Dag_init(&g);
   Op_buildDag(p, &g);
   double f = g.flops;
   Dag_done(&g);
   return f;
}

/* ---- text ---- */

static void addShape(TextBuf *t, int n, const int64_t *s) {
   for (int i = 0; i < n; i++)
      TextBuf_add(t, "%s%lld", i ? "x" : "", (long long)s[i]);
}

static void addPair(TextBuf *t, const char *prefix, int64_t a, int64_t b) {
   if (a == b)
      TextBuf_add(t, " %s%lld", prefix, (long long)a);
   else
      TextBuf_add(t, " %s%lldx%lld", prefix, (long long)a, (long long)b);
}

static void addWindow(TextBuf *t, const OpParams *p) {
   TextBuf_add(t, ", %lldx%lld", (long long)p->kernel_h, (long long)p->kernel_w);
   addPair(t, "s", p->stride_h, p->stride_w);
   if (p->pad_top == p->pad_bottom && p->pad_left == p->pad_right)
      addPair(t, "p", p->pad_top, p->pad_left);
   else
      TextBuf_add(t, " p%lld,%lld,%lld,%lld", (long long)p->pad_top, (long long)p->pad_left,
          (long long)p->pad_bottom, (long long)p->pad_right);
   if (p->dilation_h != 1 || p->dilation_w != 1)
      addPair(t, "d", p->dilation_h, p->dilation_w);
   if (p->groups != 1)
      TextBuf_add(t, " g%lld", (long long)p->groups);
}

size_t Op_describe(const OpParams *p, char *buf, size_t size) {
   TextBuf t = TextBuf_over(buf, size);
   int64_t s[TE_MAX_DIMS];
   switch (p->kind) {
   case OP_DENSE:
      TextBuf_add(&t, "m%lld n%lld k%lld", (long long)p->m, (long long)p->n, (long long)p->k);
      break;
   case OP_BATCH_MATMUL:
      TextBuf_add(&t, "b%lld m%lld n%lld k%lld", (long long)p->b, (long long)p->m, (long long)p->n,
          (long long)p->k);
      break;
   case OP_SOFTMAX:
   case OP_LAYER_NORM:
   case OP_ELEMENTWISE:
      addShape(&t, p->ndim, p->shape);
      if (p->kind == OP_LAYER_NORM)
         TextBuf_add(&t, " eps %g", p->epsilon);
      break;
   case OP_CONCAT:
      for (int i = 0; i < p->ninputs; i++)
         TextBuf_add(&t, "%s%lld", i ? "+" : "", (long long)p->concat_len[i]);
      TextBuf_add(&t, " on axis %d -> ", p->concat_axis);
      addShape(&t, p->ndim, p->shape);
      break;
   default:
      TextBuf_add(&t, "%lldx%lldx%lldx%lld -> ", (long long)p->batch, (long long)p->in_c,
          (long long)p->in_h, (long long)p->in_w);
      Op_outputShape(p, s);
      if (p->kind == OP_CONV2D)
         addShape(&t, 3, s + 1);
      else
         TextBuf_add(&t, "%lldx%lld", (long long)s[2], (long long)s[3]);
      if (isWindowed(p->kind) || p->kind == OP_CONV2D_TRANSPOSE)
         addWindow(&t, p);
      if (p->kind == OP_CONV2D_TRANSPOSE && (p->output_pad_h || p->output_pad_w))
         addPair(&t, "op", p->output_pad_h, p->output_pad_w);
      if (p->kind == OP_AVG_POOL2D && !p->count_include_pad)
         TextBuf_add(&t, " excl-pad");
      if (p->kind == OP_RESIZE2D) {
         TextBuf_add(&t, ", %s %s", ResizeMode_name(p->resize_mode), ResizeCoord_name(p->coord));
         if (p->resize_mode == RESIZE_NEAREST)
            TextBuf_add(&t, " %s", ResizeRounding_name(p->rounding));
         for (int d = 0; d < 2; d++)
            if (p->scale_den[d] > 0)
               TextBuf_add(&t, " %s%lld/%lld", d ? "sw" : "sh", (long long)p->scale_num[d],
                           (long long)p->scale_den[d]);
      }
      break;
   }
   return t.len;
}

size_t Op_epilogueText(const OpParams *p, char *buf, size_t size) {
   TextBuf t = TextBuf_over(buf, size);
   if (p->nepilogue == 0)
      TextBuf_add(&t, "-");
   for (int i = 0; i < p->nepilogue; i++) {
      const Epilogue *e = &p->epilogue[i];
      TextBuf_add(&t, "%s%s", i ? "+" : "", Epilogue_name(e->kind));
      if (e->kind == EPI_CLIP)
         TextBuf_add(&t, "(%g,%g)", e->lo, e->hi);
      if (Epilogue_hasValue(e->kind))
         TextBuf_add(&t, "(%.9g)", e->value);
   }
   return t.len;
}

size_t Op_key(const OpParams *p, char *buf, size_t size) {
   TextBuf t = TextBuf_over(buf, size);
   TextBuf_add(&t, "%s", Op_name(p->kind));
   if (isNchw(p->kind)) {
      TextBuf_add(&t, "_n%lld_c%lld_h%lld_w%lld", (long long)p->batch, (long long)p->in_c,
          (long long)p->in_h, (long long)p->in_w);
      if (p->kind == OP_CONV2D || p->kind == OP_CONV2D_TRANSPOSE)
         TextBuf_add(&t, "_k%lld_g%lld", (long long)p->out_c, (long long)p->groups);
      if (isWindowed(p->kind) || p->kind == OP_CONV2D_TRANSPOSE)
         TextBuf_add(&t, "_r%lldx%lld_s%lldx%lld_p%lld,%lld,%lld,%lld_d%lldx%lld",
             (long long)p->kernel_h, (long long)p->kernel_w, (long long)p->stride_h,
             (long long)p->stride_w, (long long)p->pad_top, (long long)p->pad_left,
             (long long)p->pad_bottom, (long long)p->pad_right, (long long)p->dilation_h,
             (long long)p->dilation_w);
      if (p->kind == OP_AVG_POOL2D)
         TextBuf_add(&t, "_%s", p->count_include_pad ? "incl" : "excl");
      if (p->kind == OP_CONV2D_TRANSPOSE)
         TextBuf_add(&t, "_op%lldx%lld", (long long)p->output_pad_h, (long long)p->output_pad_w);
      if (p->kind == OP_ADAPTIVE_AVG_POOL2D || p->kind == OP_RESIZE2D)
         TextBuf_add(&t, "_o%lldx%lld", (long long)p->out_h, (long long)p->out_w);
      if (p->kind == OP_RESIZE2D) {
         TextBuf_add(&t, "_%s_%s", ResizeMode_name(p->resize_mode), ResizeCoord_name(p->coord));
         if (p->resize_mode == RESIZE_NEAREST)
            TextBuf_add(&t, "_%s", ResizeRounding_name(p->rounding));
         for (int d = 0; d < 2; d++)
            if (p->scale_den[d] > 0)
               TextBuf_add(&t, "_s%lld/%lld", (long long)p->scale_num[d], (long long)p->scale_den[d]);
      }
   } else if (p->kind == OP_DENSE || p->kind == OP_BATCH_MATMUL) {
      TextBuf_add(&t, "_b%lld_m%lld_n%lld_k%lld", (long long)p->b, (long long)p->m, (long long)p->n,
          (long long)p->k);
   } else {
      TextBuf_add(&t, "_");
      addShape(&t, p->ndim, p->shape);
      if (p->kind == OP_LAYER_NORM)
         TextBuf_add(&t, "_eps%g", p->epsilon);
      if (p->kind == OP_CONCAT) {
         TextBuf_add(&t, "_a%d_l", p->concat_axis);
         for (int i = 0; i < p->ninputs; i++)
            TextBuf_add(&t, "%s%lld", i ? "," : "", (long long)p->concat_len[i]);
      }
   }
   if (p->nepilogue) {
      char epi[160];
      Op_epilogueText(p, epi, sizeof epi);
      TextBuf_add(&t, "+%s", epi);
   }
   return t.len;
}
