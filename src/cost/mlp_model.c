/* The mlp model: TenSet's MLP (ansor.md 5.4), a cost/neural.h network without the
 * pattern branch: each feature row (Ansor's 164 features and the task's 10 workload
 * floats) through Linear(174, 256) - ReLU - Linear(256, 256) - ReLU, summed over the
 * sample's rows, two blocks x + ReLU(Linear(256, 256)(x)), and Linear(256, 1); about
 * 242k parameters. Trained with LambdaRank, Adam (lr 7e-4, weight decay 1e-6), batch
 * 512 and clipping 0.5, as TenSet's default (TrainConfig_default).
 *
 * Checkpoint payload: one network as cost/neural.h lays it out, with the shape
 * 174, 256, 0, 0, 0, 0, 0 and 10 parameters: stmt1, stmt2, res0, res1, out. */
#include "config.h"

#include "cost/models.h"
#include "cost/neural.h"

static const NeuralShape mlpShape = { SAMPLE_ROW_LEN, 256, 0, 0, 0, 0, 0 };
static const NeuralShape mlpDeviceShape = { NEURAL_DEVICE_IN, 256, 0, 0, 0, 0, 0 };

CostModel *MlpModel_new(uint64_t seed, char **cause) {
   return NeuralModel_new(MODEL_MLP, &mlpShape, seed);
}

CostModel *MlpModel_newDevice(uint64_t seed, char **cause) {
   return NeuralModel_new(MODEL_MLP, &mlpDeviceShape, seed);
}

CostModel *MlpModel_load(FILE *f, const char *path, char **cause) {
   return NeuralModel_load(MODEL_MLP, f, path, cause);
}
