/* Plain C reference implementations of every op in the op library, written directly
 * from the op's definition (not from its DAG), so that the DAG, the lowered loop nests
 * and the generated CUDA kernels can all be checked against them. Row-major buffers,
 * float32 in and out, sums accumulated in double. */
#ifndef HEADER_ref
#define HEADER_ref

#include "te/op.h"

/* Each writes the op's output without its epilogue. Inputs as in Op_inputShape. */
void Ref_conv2d(const OpParams *p, const float *data, const float *kernel, float *out);
void Ref_dense(const OpParams *p, const float *a, const float *w, float *out);
void Ref_batchMatmul(const OpParams *p, const float *a, const float *w, float *out);
void Ref_maxPool2d(const OpParams *p, const float *data, float *out);
void Ref_avgPool2d(const OpParams *p, const float *data, float *out);
/* Also serves global_avg_pool2d (output 1x1). */
void Ref_adaptiveAvgPool2d(const OpParams *p, const float *data, float *out);
void Ref_softmax(const OpParams *p, const float *x, float *out);
void Ref_layerNorm(const OpParams *p, const float *x, const float *gamma, const float *beta,
                   float *out);
void Ref_conv2dTranspose(const OpParams *p, const float *data, const float *kernel, float *out);
void Ref_resize2d(const OpParams *p, const float *data, float *out);
/* inputs[0..ninputs-1], each of the output's shape but its concat_len along the axis. */
void Ref_concat(const OpParams *p, const float *const *inputs, float *out);
/* Applies p's epilogue in place; extra[i] is the i-th tensor the epilogue reads
 * (bias, residual, scale, ...), in epilogue order. */
void Ref_epilogue(const OpParams *p, const float *const *extra, float *out);

/* The whole task: inputs[i] as in Op_inputShape, output as in Op_outputShape. */
void Ref_run(const OpParams *p, const float *const *inputs, float *out);

#endif
