/* Feature helpers: slog, the workload embedding, entry names. The extraction itself
 * is in cost/analysis.c. */
#include "config.h"

#include "cost/features.h"

#include <math.h>
#include <stdio.h>

float Features_slog(double x) {
   return (float)(x < 0 ? -log2(-x + 1) : log2(x + 1));
}

static bool hasEpilogue(const OpParams *op, EpilogueKind k) {
   for (int i = 0; i < op->nepilogue; i++)
      if (op->epilogue[i].kind == k)
         return true;
   return false;
}

void Features_workload(const OpParams *op, float out[WORKLOAD_LEN]) {
   for (int i = 0; i < WORKLOAD_LEN; i++)
      out[i] = 0;
   bool depthwise = op->kind == OP_CONV2D && op->groups > 1 && op->groups == op->in_c;
   /* hardswish and hardsigmoid are x + 3 clipped to [0, 6]: an add, a max and a min */
   bool hard = hasEpilogue(op, EPI_HARDSWISH) || hasEpilogue(op, EPI_HARDSIGMOID);
   bool clips = hasEpilogue(op, EPI_RELU6) || hasEpilogue(op, EPI_CLIP) || hard;
   /* resize2d clamps its indices to the input with max and min */
   bool resize = op->kind == OP_RESIZE2D;
   out[0] = hasEpilogue(op, EPI_RELU) || clips || op->kind == OP_MAX_POOL2D || op->kind == OP_SOFTMAX ||
            resize;
   out[1] = clips || resize;
   out[2] = hasEpilogue(op, EPI_BIAS) || hasEpilogue(op, EPI_ADD) || hard;
   out[3] = (op->kind == OP_CONV2D && !depthwise) || op->kind == OP_CONV2D_TRANSPOSE;
   out[4] = 0;
   out[5] = depthwise;
   out[6] = op->kind == OP_DENSE;
   out[7] = op->kind == OP_SOFTMAX;
   out[8] = op->kind == OP_BATCH_MATMUL;
   out[9] = 0;
}

static const char *const group1[] = {
   "float_mad", "float_addsub", "float_mul", "float_divmod", "float_cmp", "float_mathfunc",
   "float_otherfunc", "int_mad", "int_addsub", "int_mul", "int_divmod", "int_cmp", "int_mathfunc",
   "int_otherfunc", "bool_op", "select_op",
};

static const char *const positions[] = {
   "none", "inner_spatial", "middle_spatial", "outer_spatial", "inner_reduce", "middle_reduce",
   "outer_reduce", "mixed",
};

static const char *const annotations[] = { "vec", "unroll", "parallel" };

static const char *const bufEntries[] = {
   "acc_type.read", "acc_type.write", "acc_type.readwrite", "bytes", "unique_bytes", "lines",
   "unique_lines", "reuse_type.loop_multiple_read", "reuse_type.serial_multiple_read_write",
   "reuse_type.no_reuse", "reuse_dis_iter", "reuse_dis_bytes", "reuse_ct", "bytes_d_reuse_ct",
   "unique_bytes_d_reuse_ct", "lines_d_reuse_ct", "unique_lines_d_reuse_ct", "stride",
};

static const char *const tail[] = {
   "alloc_size", "alloc_prod", "alloc_outer_prod", "alloc_inner_prod", "outer_prod", "num_loops",
   "auto_unroll_max_step",
};

static const char *const threads[] = {
   "is_gpu", "blockIdx_x_len", "blockIdx_y_len", "blockIdx_z_len", "threadIdx_x_len",
   "threadIdx_y_len", "threadIdx_z_len", "vthread_len",
};

const char *Features_name(int i, char *buf, size_t size) {
   if (i < 0 || i >= FEATURE_LEN)
      snprintf(buf, size, "?");
   else if (i < FEAT_VEC_NUM)
      snprintf(buf, size, "%s", group1[i]);
   else if (i < FEAT_IS_GPU) {
      int k = (i - FEAT_VEC_NUM) / 11, j = (i - FEAT_VEC_NUM) % 11;
      static const char *const stats[] = { "num", "prod", "len" };
      if (j < 3)
         snprintf(buf, size, "%s_%s", annotations[k], stats[j]);
      else
         snprintf(buf, size, "%s_type.%s", annotations[k], positions[j - 3]);
   } else if (i < FEAT_GROUP2)
      snprintf(buf, size, "%s", threads[i - FEAT_IS_GPU]);
   else if (i < FEAT_GROUP3)
      snprintf(buf, size, "B%d.%s", (i - FEAT_GROUP2) / FEATURE_BUF_LEN,
               bufEntries[(i - FEAT_GROUP2) % FEATURE_BUF_LEN]);
   else if (i < FEAT_GROUP4)
      snprintf(buf, size, "arith_intensity_curve_%d", i - FEAT_GROUP3);
   else
      snprintf(buf, size, "%s", tail[i - FEAT_GROUP4]);
   return buf;
}
