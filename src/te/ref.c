/* Reference implementations of the op library: each op computed straight from its
 * definition, one output element at a time, so that a reader can check it against the
 * formula at a glance. Speed does not matter here; being obviously right does. */
#include "config.h"

#include "te/ref.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/xalloc.h"

/* ---- shapes ---- */

static int64_t product(const int64_t *dims, int n) {
   int64_t total = 1;
   for (int i = 0; i < n; i++)
      total *= dims[i];
   return total;
}

static int64_t outputElements(const OpParams *p) {
   int64_t shape[TE_MAX_DIMS];
   return product(shape, Op_outputShape(p, shape));
}

/* ---- conv2d, dense, batch_matmul ---- */

void Ref_conv2d(const OpParams *p, const float *data, const float *kernel, float *out) {
   int64_t cPerGroup = p->in_c / p->groups;
   int64_t kPerGroup = p->out_c / p->groups;
   for (int64_t n = 0; n < p->batch; n++)
   for (int64_t k = 0; k < p->out_c; k++)
   for (int64_t y = 0; y < p->out_h; y++)
   for (int64_t x = 0; x < p->out_w; x++) {
      int64_t g = k / kPerGroup;
      double sum = 0.0;
      for (int64_t c = 0; c < cPerGroup; c++)
      for (int64_t r = 0; r < p->kernel_h; r++)
      for (int64_t s = 0; s < p->kernel_w; s++) {
         int64_t ic = g * cPerGroup + c;
         int64_t iy = y * p->stride_h - p->pad_top + r * p->dilation_h;
         int64_t ix = x * p->stride_w - p->pad_left + s * p->dilation_w;
         if (iy < 0 || iy >= p->in_h || ix < 0 || ix >= p->in_w)
            continue;   /* zero padding */
         double d = data[((n * p->in_c + ic) * p->in_h + iy) * p->in_w + ix];
         double w = kernel[((k * cPerGroup + c) * p->kernel_h + r) * p->kernel_w + s];
         sum += d * w;
      }
      out[((n * p->out_c + k) * p->out_h + y) * p->out_w + x] = (float)sum;
   }
}

/* One [m, k] x [n, k]^T product; dense is batch_matmul's single-batch case. */
static void matmulNT(int64_t m, int64_t n, int64_t k, const float *a, const float *w,
                     float *out) {
   for (int64_t i = 0; i < m; i++)
   for (int64_t j = 0; j < n; j++) {
      double sum = 0.0;
      for (int64_t l = 0; l < k; l++)
         sum += (double)a[i * k + l] * (double)w[j * k + l];
      out[i * n + j] = (float)sum;
   }
}

void Ref_dense(const OpParams *p, const float *a, const float *w, float *out) {
   matmulNT(p->m, p->n, p->k, a, w, out);
}

void Ref_batchMatmul(const OpParams *p, const float *a, const float *w, float *out) {
   for (int64_t b = 0; b < p->b; b++)
      matmulNT(p->m, p->n, p->k, a + b * p->m * p->k, w + b * p->n * p->k,
               out + b * p->m * p->n);
}

/* ---- pools ---- */

void Ref_maxPool2d(const OpParams *p, const float *data, float *out) {
   for (int64_t n = 0; n < p->batch; n++)
   for (int64_t c = 0; c < p->in_c; c++) {
      const float *plane = data + (n * p->in_c + c) * p->in_h * p->in_w;
      float *oplane = out + (n * p->in_c + c) * p->out_h * p->out_w;
      for (int64_t y = 0; y < p->out_h; y++)
      for (int64_t x = 0; x < p->out_w; x++) {
         /* The padding is -infinity, so a window over padding alone yields -infinity. */
         float best = -INFINITY;
         for (int64_t r = 0; r < p->kernel_h; r++)
         for (int64_t s = 0; s < p->kernel_w; s++) {
            int64_t iy = y * p->stride_h - p->pad_top + r;
            int64_t ix = x * p->stride_w - p->pad_left + s;
            if (iy < 0 || iy >= p->in_h || ix < 0 || ix >= p->in_w)
               continue;
            float v = plane[iy * p->in_w + ix];
            if (v > best)
               best = v;
         }
         oplane[y * p->out_w + x] = best;
      }
   }
}

void Ref_avgPool2d(const OpParams *p, const float *data, float *out) {
   for (int64_t n = 0; n < p->batch; n++)
   for (int64_t c = 0; c < p->in_c; c++) {
      const float *plane = data + (n * p->in_c + c) * p->in_h * p->in_w;
      float *oplane = out + (n * p->in_c + c) * p->out_h * p->out_w;
      for (int64_t y = 0; y < p->out_h; y++)
      for (int64_t x = 0; x < p->out_w; x++) {
         double sum = 0.0;
         int64_t inside = 0;
         for (int64_t r = 0; r < p->kernel_h; r++)
         for (int64_t s = 0; s < p->kernel_w; s++) {
            int64_t iy = y * p->stride_h - p->pad_top + r;
            int64_t ix = x * p->stride_w - p->pad_left + s;
            if (iy < 0 || iy >= p->in_h || ix < 0 || ix >= p->in_w)
               continue;   /* zero padding */
            sum += plane[iy * p->in_w + ix];
            inside++;
         }
         int64_t divisor = p->count_include_pad ? p->kernel_h * p->kernel_w : inside;
         /* A window entirely in padding has nothing to average; call it 0. */
         oplane[y * p->out_w + x] = divisor > 0 ? (float)(sum / (double)divisor) : 0.0f;
      }
   }
}

void Ref_adaptiveAvgPool2d(const OpParams *p, const float *data, float *out) {
   int64_t outH = p->out_h, outW = p->out_w;
   for (int64_t n = 0; n < p->batch; n++)
   for (int64_t c = 0; c < p->in_c; c++) {
      const float *plane = data + (n * p->in_c + c) * p->in_h * p->in_w;
      float *oplane = out + (n * p->in_c + c) * outH * outW;
      for (int64_t i = 0; i < outH; i++)
      for (int64_t j = 0; j < outW; j++) {
         /* Window [floor(i*in/out), ceil((i+1)*in/out)): windows may overlap. */
         int64_t y0 = i * p->in_h / outH;
         int64_t y1 = ((i + 1) * p->in_h + outH - 1) / outH;
         int64_t x0 = j * p->in_w / outW;
         int64_t x1 = ((j + 1) * p->in_w + outW - 1) / outW;
         double sum = 0.0;
         for (int64_t y = y0; y < y1; y++)
         for (int64_t x = x0; x < x1; x++)
            sum += plane[y * p->in_w + x];
         oplane[i * outW + j] = (float)(sum / (double)((y1 - y0) * (x1 - x0)));
      }
   }
}

/* ---- conv2d_transpose, resize2d, concat ---- */

/* Every input pixel spreads over the output: out[y*s - pad + r*d] += x[y] * w[r], the
 * way ONNX's ConvTranspose defines it. */
void Ref_conv2dTranspose(const OpParams *p, const float *data, const float *kernel, float *out) {
   int64_t cpg = p->in_c / p->groups, kpg = p->out_c / p->groups;
   int64_t total = p->batch * p->out_c * p->out_h * p->out_w;
   double *acc = calloc((size_t)total, sizeof *acc);
   if (!acc)
      fatal("out of memory");
   for (int64_t n = 0; n < p->batch; n++)
   for (int64_t c = 0; c < p->in_c; c++)
   for (int64_t y = 0; y < p->in_h; y++)
   for (int64_t x = 0; x < p->in_w; x++) {
      double v = data[((n * p->in_c + c) * p->in_h + y) * p->in_w + x];
      int64_t g = c / cpg;
      for (int64_t k = 0; k < kpg; k++)
      for (int64_t r = 0; r < p->kernel_h; r++)
      for (int64_t s = 0; s < p->kernel_w; s++) {
         int64_t oy = y * p->stride_h - p->pad_top + r * p->dilation_h;
         int64_t ox = x * p->stride_w - p->pad_left + s * p->dilation_w;
         if (oy < 0 || oy >= p->out_h || ox < 0 || ox >= p->out_w)
            continue;
         int64_t o = g * kpg + k;
         double w = kernel[((c * kpg + k) * p->kernel_h + r) * p->kernel_w + s];
         acc[((n * p->out_c + o) * p->out_h + oy) * p->out_w + ox] += v * w;
      }
   }
   for (int64_t e = 0; e < total; e++)
      out[e] = (float)acc[e];
   free(acc);
}

/* The input coordinate of output pixel x on one axis, as ONNX Resize defines it. */
static double resizeCoordinate(const OpParams *p, int d, int64_t x) {
   int64_t in = d ? p->in_w : p->in_h, out = d ? p->out_w : p->out_h;
   double scale = p->scale_den[d] > 0 ? (double)p->scale_num[d] / (double)p->scale_den[d]
                                      : (double)out / (double)in;
   switch (p->coord) {
   case COORD_PYTORCH_HALF_PIXEL:
      return out > 1 ? ((double)x + 0.5) / scale - 0.5 : 0.0;
   case COORD_HALF_PIXEL:
      return ((double)x + 0.5) / scale - 0.5;
   case COORD_ALIGN_CORNERS:
      return out > 1 ? (double)x * (double)(in - 1) / (double)(out - 1) : 0.0;
   default:
      return (double)x / scale;
   }
}

static int64_t clampTo(int64_t i, int64_t extent) {
   return i < 0 ? 0 : i >= extent ? extent - 1 : i;
}

static int64_t roundNearest(ResizeRounding r, double v) {
   switch (r) {
   case ROUND_FLOOR: return (int64_t)floor(v);
   case ROUND_CEIL: return (int64_t)ceil(v);
   case ROUND_PREFER_CEIL: return (int64_t)floor(v + 0.5);
   default: return (int64_t)ceil(v - 0.5);
   }
}

void Ref_resize2d(const OpParams *p, const float *data, float *out) {
   for (int64_t n = 0; n < p->batch; n++)
   for (int64_t c = 0; c < p->in_c; c++) {
      const float *plane = data + (n * p->in_c + c) * p->in_h * p->in_w;
      float *oplane = out + (n * p->in_c + c) * p->out_h * p->out_w;
      for (int64_t y = 0; y < p->out_h; y++)
      for (int64_t x = 0; x < p->out_w; x++) {
         double cy = resizeCoordinate(p, 0, y), cx = resizeCoordinate(p, 1, x);
         if (p->resize_mode == RESIZE_NEAREST) {
            int64_t iy = clampTo(roundNearest(p->rounding, cy), p->in_h);
            int64_t ix = clampTo(roundNearest(p->rounding, cx), p->in_w);
            oplane[y * p->out_w + x] = plane[iy * p->in_w + ix];
            continue;
         }
         /* the four neighbours, those outside the input taking the edge's value */
         double fy = floor(cy), fx = floor(cx);
         double wy = cy - fy, wx = cx - fx;
         int64_t y0 = clampTo((int64_t)fy, p->in_h), y1 = clampTo((int64_t)fy + 1, p->in_h);
         int64_t x0 = clampTo((int64_t)fx, p->in_w), x1 = clampTo((int64_t)fx + 1, p->in_w);
         double v = (1 - wy) * ((1 - wx) * plane[y0 * p->in_w + x0] + wx * plane[y0 * p->in_w + x1]) +
                    wy * ((1 - wx) * plane[y1 * p->in_w + x0] + wx * plane[y1 * p->in_w + x1]);
         oplane[y * p->out_w + x] = (float)v;
      }
   }
}

void Ref_concat(const OpParams *p, const float *const *inputs, float *out) {
   int axis = p->concat_axis;
   int64_t outer = product(p->shape, axis);
   int64_t inner = product(p->shape + axis + 1, p->ndim - axis - 1);
   int64_t at = 0;
   for (int i = 0; i < p->ninputs; i++) {
      int64_t len = p->concat_len[i];
      for (int64_t o = 0; o < outer; o++)
         for (int64_t j = 0; j < len * inner; j++)
            out[(o * p->shape[axis] + at) * inner + j] = inputs[i][o * len * inner + j];
      at += len;
   }
}

/* ---- softmax, layer_norm: rows are the last axis of p->shape ---- */

void Ref_softmax(const OpParams *p, const float *x, float *out) {
   int64_t d = p->shape[p->ndim - 1];
   int64_t rows = product(p->shape, p->ndim - 1);
   for (int64_t row = 0; row < rows; row++) {
      const float *xr = x + row * d;
      float *yr = out + row * d;
      /* Subtracting the row max keeps exp() from overflowing on large inputs. */
      double max = -INFINITY;
      for (int64_t j = 0; j < d; j++)
         if (xr[j] > max)
            max = xr[j];
      double sum = 0.0;
      for (int64_t j = 0; j < d; j++)
         sum += exp((double)xr[j] - max);
      for (int64_t j = 0; j < d; j++)
         yr[j] = (float)(exp((double)xr[j] - max) / sum);
   }
}

void Ref_layerNorm(const OpParams *p, const float *x, const float *gamma, const float *beta,
                   float *out) {
   int64_t d = p->shape[p->ndim - 1];
   int64_t rows = product(p->shape, p->ndim - 1);
   for (int64_t row = 0; row < rows; row++) {
      const float *xr = x + row * d;
      float *yr = out + row * d;
      double mean = 0.0;
      for (int64_t j = 0; j < d; j++)
         mean += xr[j];
      mean /= (double)d;
      /* Two passes rather than E[x^2] - E[x]^2, which cancels badly. */
      double var = 0.0;
      for (int64_t j = 0; j < d; j++)
         var += ((double)xr[j] - mean) * ((double)xr[j] - mean);
      var /= (double)d;
      double inv = 1.0 / sqrt(var + p->epsilon);
      for (int64_t j = 0; j < d; j++)
         yr[j] = (float)(((double)xr[j] - mean) * inv * gamma[j] + beta[j]);
   }
}

/* ---- epilogue ---- */

/* Where the bias channel sits in the output: element e has channel
 * (e / inner) % channels, on the op's channel axis. */
static void biasLayout(const OpParams *p, int64_t *channels, int64_t *inner) {
   int64_t shape[TE_MAX_DIMS];
   int rank = Op_outputShape(p, shape);
   int axis = Op_channelAxis(p);
   *channels = shape[axis];
   *inner = product(shape + axis + 1, rank - axis - 1);
}

void Ref_epilogue(const OpParams *p, const float *const *extra, float *out) {
   int64_t total = outputElements(p);
   int nextra = 0;
   for (int i = 0; i < p->nepilogue; i++) {
      const Epilogue *epi = &p->epilogue[i];
      if (epi->kind == EPI_BIAS || epi->kind == EPI_SCALE) {
         const float *v = extra[nextra++];
         int64_t channels, inner;
         biasLayout(p, &channels, &inner);
         for (int64_t e = 0; e < total; e++) {
            double c = v[(e / inner) % channels];
            out[e] = (float)(epi->kind == EPI_BIAS ? (double)out[e] + c : (double)out[e] * c);
         }
         continue;
      }
      if (epi->kind == EPI_ADD || epi->kind == EPI_MUL) {
         const float *t = extra[nextra++];
         for (int64_t e = 0; e < total; e++)
            out[e] = (float)(epi->kind == EPI_ADD ? (double)out[e] + t[e] : (double)out[e] * t[e]);
         continue;
      }
      if (epi->kind == EPI_CHANNEL_MUL) {
         /* s[n, c] over each h x w plane of the N x C x H x W output */
         const float *sc = extra[nextra++];
         int64_t shape[TE_MAX_DIMS];
         Op_outputShape(p, shape);
         int64_t plane = shape[2] * shape[3];
         for (int64_t e = 0; e < total; e++)
            out[e] = (float)((double)out[e] * sc[e / plane]);
         continue;
      }
      for (int64_t e = 0; e < total; e++)
         out[e] = (float)Epilogue_activate(epi, out[e]);
   }
}

/* ---- the whole task ---- */

void Ref_run(const OpParams *p, const float *const *inputs, float *out) {
   switch (p->kind) {
   case OP_CONV2D:
      Ref_conv2d(p, inputs[0], inputs[1], out);
      break;
   case OP_DENSE:
      Ref_dense(p, inputs[0], inputs[1], out);
      break;
   case OP_BATCH_MATMUL:
      Ref_batchMatmul(p, inputs[0], inputs[1], out);
      break;
   case OP_MAX_POOL2D:
      Ref_maxPool2d(p, inputs[0], out);
      break;
   case OP_AVG_POOL2D:
      Ref_avgPool2d(p, inputs[0], out);
      break;
   case OP_ADAPTIVE_AVG_POOL2D:
   case OP_GLOBAL_AVG_POOL2D:
      Ref_adaptiveAvgPool2d(p, inputs[0], out);
      break;
   case OP_SOFTMAX:
      Ref_softmax(p, inputs[0], out);
      break;
   case OP_LAYER_NORM:
      Ref_layerNorm(p, inputs[0], inputs[1], inputs[2], out);
      break;
   case OP_CONV2D_TRANSPOSE:
      Ref_conv2dTranspose(p, inputs[0], inputs[1], out);
      break;
   case OP_RESIZE2D:
      Ref_resize2d(p, inputs[0], out);
      break;
   case OP_CONCAT:
      Ref_concat(p, inputs, out);
      break;
   case OP_ELEMENTWISE: {
      int64_t total = outputElements(p);
      for (int64_t e = 0; e < total; e++)
         out[e] = inputs[0][e];
      break;
   }
   case OP_KIND_COUNT:
      return;
   }
   Ref_epilogue(p, inputs + Op_numOwnInputs(p), out);
}
