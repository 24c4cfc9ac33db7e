/* The networks of the learned cost models, TenSet's MLP (ansor.md 5.4) and Pruner's
 * PAM (pruner.md 2.2), with what they share: batched inference, the training loop,
 * the feature normalization and the checkpoint payload. cost/mlp_model.c and
 * cost/pam_model.c make cost models of them.
 *
 * A network scores a sample from its feature rows (SAMPLE_ROW_LEN floats each) and,
 * for PAM, its 8 x 23 pattern block:
 *   stmt:    each row -> Linear(in, hidden) - ReLU - Linear(hidden, hidden) - ReLU,
 *            summed over the sample's rows: h1 (hidden)
 *   pattern (PAM): the block's 8 positions -> Linear(23, p1) - ReLU - Linear(p1, p2) -
 *            ReLU -> z; z + MultiheadAttention(p2, heads)(z, z, z); summed over the 8
 *            positions: h2 (p2)
 *   fuse (PAM): concat(h1, h2) -> Linear(hidden + p2, hidden) - ReLU - BatchNorm1d
 *            (the MLP: h1 as it is)
 *   then x = x + ReLU(Linear(hidden, hidden)(x)) twice, and Linear(hidden, 1).
 * A sample without rows scores -INFINITY. Every input is divided column by column by
 * the normalization vectors (Nn_columnMax of the training data: rowNorm over the rows,
 * patNorm over the pattern blocks' positions), 1 until the network is fitted. The
 * same batch always gets the same scores, and so does a network reloaded from its
 * checkpoint; but a sample's score may change in its last bits with the batch around
 * it and with OpenBLAS's kernels and threads, whose rounding depends on the sizes of
 * the matrices and where a row sits in them (training too: a fit is repeatable on one
 * machine and setting, not across them).
 *
 * Training (NeuralNet_fit) follows TenSet and Pruner (pruner.md 2.3-2.4): the samples
 * that were measured (cost != 0; failures with label 0) and have rows, shuffled each
 * epoch by a generator seeded with cfg->seed, in mini-batches of cfg->batch samples
 * (a last batch of one sample joins the one before: batch norm needs two); LambdaRank
 * over each batch as one list; backward through the whole network; gradient-norm
 * clipping to cfg->clip (none when it is 0); Adam, whose moments start from zero at
 * every fit; batch norm in training mode (prediction uses its running statistics);
 * early stop after cfg->earlyStop epochs (0: never) without a lower mean training
 * loss, keeping the last weights as TenSet does. cfg->fromScratch re-initializes the
 * weights from cfg->seed first.
 * An mlp or pam model recomputes the normalization when it fits from scratch or has
 * never been fitted, and keeps it on a warm start: the weights learned on inputs
 * scaled by those vectors, and rescaling the inputs under them would undo part of
 * what they learned (Pruner's fine-tuning keeps the pretrained vectors too; its
 * _fit_a_model, which always starts from scratch, recomputes them). pam-moa
 * recomputes them at each refresh, as Pruner does (cost/pam_model.c).
 *
 * Checkpoint payload of one network (little-endian, cost/checkpoint.h):
 *   u32 x 7  the shape: in (174; 182 with the device's features), hidden (256), pattern length (8), pattern width
 *            (23), p1 (64), p2 (128), heads (4); the last five 0 for the MLP
 *   u32      fitted: 1 when the normalization vectors come from training data
 *   f32 x in         rowNorm
 *   f32 x width      patNorm (PAM only)
 *   u32      the number of parameters (10 for the MLP, 26 for PAM), then each, in the
 *            order of NeuralNet.params: u32 name length, the name's bytes (no NUL),
 *            u32 rows, u32 cols, f32 x rows x cols (row-major; a bias is 1 x n)
 *   f32 x hidden x 2  batch norm's running mean, then running variance (PAM only)
 * The parameters are stmt1, stmt2, [pattern1, pattern2, attention (Wq, bq, Wk, bk,
 * Wv, bv, Wo, bo), fuse, norm (weight = gamma, bias = beta)], res0, res1, out; a
 * layer's weight (out x in) before its bias. A reader takes any shape whose in and
 * pattern sizes are this program's and whose widths are at most 1024, and refuses a
 * parameter whose name or shape is not the one the shape fields give, naming it and
 * both shapes. */
#ifndef HEADER_neural
#define HEADER_neural

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cost/dataset.h"
#include "cost/model.h"
#include "cost/nn.h"

/* A network that reads the device's features too: each row is followed by its
 * sample's DEVICE_FEATURE_LEN floats (Dataset_device). */
#define NEURAL_DEVICE_IN (SAMPLE_ROW_LEN + DEVICE_FEATURE_LEN)

typedef struct NeuralShape_ {
   int in, hidden;              /* SAMPLE_ROW_LEN, 256; NEURAL_DEVICE_IN with the device */
   int patLen, patWidth;        /* PATTERN_LEN, PATTERN_WIDTH; 0 without a pattern branch */
   int pat1, pat2, heads;       /* 64, 128, 4; 0 without */
} NeuralShape;

#define NEURAL_MAX_PARAMS 26
/* Samples per forward pass when predicting (Pruner's inference batch). */
#define NEURAL_PREDICT_BATCH 4096

typedef struct NeuralScratch_ NeuralScratch;

typedef struct NeuralNet_ {
   NeuralShape shape;
   bool pattern;                /* PAM's pattern branch and fuse layer */
   NnDense stmt1, stmt2;
   NnDense pattern1, pattern2;
   NnAttention attention;
   NnDense fuse;
   NnBatchNorm norm;
   NnDense res[2], out;
   NnParam *params[NEURAL_MAX_PARAMS];   /* in the checkpoint's order */
   int nparams;
   float *rowNorm, *patNorm;    /* shape.in, shape.patWidth */
   bool fitted;                 /* the normalization vectors come from training data */
   /* All-zero pattern blocks (no pattern found) give the same pattern-branch output.
    * Predicting computes it once per batch, from a pass of that block alone; training
    * makes it one sequence of the batch's pass, which every such sample shares. false
    * (for the tests) computes it for each such sample: to the bit the same scores
    * when predicting, the same but for rounding when training. */
   bool sharePattern;
   NeuralScratch *work;         /* activations and gradients of the last forward */
} NeuralNet;

/* A network of that shape, initialized as PyTorch would from a generator seeded with
 * seed (layers in the order of the parameters). The shape must be one that
 * NeuralShape_check accepts. */
NeuralNet *NeuralNet_new(const NeuralShape *shape, uint64_t seed);
/* An exact copy of the weights, batch-norm statistics and normalization. */
NeuralNet *NeuralNet_copy(const NeuralNet *src);
void NeuralNet_free(NeuralNet *net);   /* NULL is fine */
/* NULL when the network can be built and read this program's samples, else why. */
const char *NeuralShape_check(const NeuralShape *s, char *buf, size_t size);

/* scores[i] for every sample of d, NEURAL_PREDICT_BATCH samples at a time. */
void NeuralNet_predict(NeuralNet *net, const Dataset *d, float *scores);
/* One forward pass over the samples samples[0..n-1] of d (each with rows): batch norm
 * with the batch's statistics when training (the network keeps what backward needs),
 * with the running ones otherwise. */
void NeuralNet_forward(NeuralNet *net, const Dataset *d, const int *samples, int n, bool training,
                       float *scores);
/* After a training forward: accumulates every parameter's gradient of a loss whose
 * derivative by the scores is dscore. */
void NeuralNet_backward(NeuralNet *net, const float *dscore);

/* Which ReLU units were active in the last forward pass, as a hash: passes with the
 * same signature lie on the same linear piece of every ReLU (for gradient checks,
 * whose differences must not cross a kink). */
uint64_t NeuralNet_reluSignature(const NeuralNet *net);

/* Trains as the header says. recomputeNorm sets the normalization from train first;
 * who names the model in messages. -1 with *cause when nothing can be learned: fewer
 * than two measured samples with rows, or a batch below two. */
int NeuralNet_fit(NeuralNet *net, const Dataset *train, const TrainConfig *cfg, bool recomputeNorm,
                  const char *who, char **cause);
/* Trains as NeuralNet_fit does, but as a regression: over the samples with rows and a
 * finite target[i] (target has d->n entries), the loss is the mean squared difference
 * between the network's output and target[i]. */
int NeuralNet_fitRegression(NeuralNet *net, const Dataset *train, const float *target, const TrainConfig *cfg,
                            bool recomputeNorm, const char *who, char **cause);
/* MoA's momentum update (pruner.md 3): every parameter of slow becomes
 * m slow + (1 - m) fast, in double, rounded to float once; batch norm's running
 * statistics and the normalization stay slow's. The shapes must agree. */
void NeuralNet_momentum(NeuralNet *slow, const NeuralNet *fast, double m);

/* The payload above; -1 when the stream failed. */
int NeuralNet_write(const NeuralNet *net, FILE *f);
/* Reads a payload; pattern says whether a pattern branch is expected (PAM) or not.
 * Values that NeuralNet_check refuses are an error. */
NeuralNet *NeuralNet_read(FILE *f, const char *path, bool pattern, char **cause);
/* Whether every value is one a network can hold: finite parameters and running mean,
 * normalization above 0, running variance 0 or more; -1 with why ("parameter fc1.w
 * holds nan at index 3, ...") when not. */
int NeuralNet_check(const NeuralNet *net, char *why, size_t size);
/* 0 when net passes NeuralNet_check, else -1 with *cause "PATH: not saved: WHY": a
 * checkpoint never holds what its loader would refuse. */
int NeuralNet_checkSave(const NeuralNet *net, const char *path, char **cause);

/* A cost model of kind MODEL_MLP or MODEL_PAM around a network of that shape. */
CostModel *NeuralModel_new(ModelKind kind, const NeuralShape *shape, uint64_t seed);
CostModel *NeuralModel_load(ModelKind kind, FILE *f, const char *path, char **cause);
/* The network an mlp or pam model scores with. */
NeuralNet *NeuralModel_net(const CostModel *m);

#endif
