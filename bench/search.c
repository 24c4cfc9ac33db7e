/* Search overhead benchmark: the wall time of one round of the search (sampling, the
 * draft and verify searches, the picks; measurement excluded) for the pruner policy
 * (PSA drafts, pam verifies) and the ansor policy (pam, and xgb where built in), on a
 * few ResNet-50 tasks, several rounds each, with the phase split. Between rounds the
 * picks are "measured" with PSA's latency estimate, outside the timing, so that the
 * rounds see a measured history. Usage:
 *   bench-search TASKFILE [rounds per task] [threads] [pam checkpoint] [xgb checkpoint]
 * A checkpoint "-" (the default) stands for a fresh, untrained model. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/analysis.h"
#include "cost/model.h"
#include "cost/nn.h"
#include "ir/lower.h"
#include "measure/featurize.h"
#include "search/policy.h"
#include "search/scorer.h"
#include "mix.h"

/* the 7x7 stem, three 3x3 convolutions, the pooling and the dense layer */
static const int benchTasks[] = { 0, 3, 12, 24, 25, 26 };
#define NTASKS (int)(sizeof benchTasks / sizeof benchTasks[0])

typedef struct {
   const char *name;            /* "pruner + pam" */
   bool pruner;
   CostModel *model;
} Config;

typedef struct {
   int rounds;
   double total, sample, draftScore, draftEvolve, verifyScore, verifyPrepare, verifyPredict, verifyEvolve, pick;
   double draftScored, verifyScored, acceptance;
   double draftMembers, verifyMembers;  /* the generations' states, repeats included */
   double taskTotal[NTASKS];
   int accepted;                /* rounds with an acceptance */
   double *perRound;
} Sums;

static CostModel *loadOrNew(const char *path, ModelKind kind) {
   char *cause = NULL;
   CostModel *m = path && strcmp(path, "-") != 0 ? CostModel_load(path, &cause) : CostModel_new(kind, 1, &cause);
   if (!m)
      fatal("%s", cause);
   return m;
}

/* rounds of one task; their statistics added to s (NULL: none) */
static void runTask(const BenchMix *mix, int ti, int rounds, const SearchParams *p, Scorer *draft, Scorer *verify,
                    const PsaParams *psa, const SchedLimits *lim, Sums *s, bool acceptance) {
   int t = benchTasks[ti];
   const SketchSet *set = &mix->sets[t];
   SearchTask task;
   SearchTask_init(&task, &mix->net.tasks[t], set, lim, 1000 + (uint64_t)t);
   LoopNest ln;
   LoopNest_init(&ln);
   Analysis *an = Analysis_new();
   PsaSymbols sym;
   char *cause = NULL;
   for (int r = 0; r < rounds; r++) {
      Candidate picks[10];
      int n;
      SearchRoundStats st;
      if (Search_round(&task, p, draft, verify, 10, picks, &n, &st, &cause) < 0)
         fatal("task %d: %s", t, cause);
      /* "measured": PSA's estimate, outside the round */
      for (int i = 0; i < n; i++) {
         Lower_state(set, &picks[i].state, &ln);
         Analysis_run(an, &ln, &sym, NULL);
         SearchTask_addMeasured(&task, &picks[i].state, Psa_latency(&sym, psa, NULL) * 1e-3);
      }
      if (!s)
         continue;
      s->perRound[s->rounds++] = st.totalSeconds;
      s->taskTotal[ti] += st.totalSeconds;
      s->total += st.totalSeconds;
      s->sample += st.sampleSeconds;
      s->draftScore += st.draftScoreSeconds;
      s->draftEvolve += st.draftEvolveSeconds;
      s->verifyScore += st.verifyScoreSeconds;
      s->verifyPrepare += st.verifyPrepareSeconds;
      s->verifyPredict += st.verifyPredictSeconds;
      s->verifyEvolve += st.verifyEvolveSeconds;
      s->pick += st.pickSeconds;
      s->draftScored += st.draftScored;
      s->verifyScored += st.verifyScored;
      if (st.drafted)
         s->draftMembers += st.sampled + (double)p->draftGenerations * p->population;
      s->verifyMembers += st.population + (double)p->verifyGenerations * p->population;
      if (acceptance && !isnan(st.acceptance)) {
         s->acceptance += st.acceptance;
         s->accepted++;
      }
   }
   Analysis_free(an);
   LoopNest_done(&ln);
   SearchTask_done(&task);
}

static int byValue(const void *a, const void *b) {
   double x = *(const double *)a, y = *(const double *)b;
   return (x > y) - (x < y);
}

int main(int argc, char **argv) {
   Nn_restartForKernels(argv);
   const char *file = argc > 1 ? argv[1] : "models/resnet_50.task";
   int rounds = argc > 2 ? atoi(argv[2]) : 4;
   int threads = argc > 3 ? atoi(argv[3]) : 2;
   const char *pamPath = argc > 4 ? argv[4] : "-";
   const char *xgbPath = argc > 5 ? argv[5] : "-";
   BenchMix mix;
   if (BenchMix_load(&mix, file) < 0)
      return 1;
   for (int i = 0; i < NTASKS; i++)
      if (benchTasks[i] >= mix.net.ntasks)
         fatal("%s has %d tasks; the benchmark uses task %d", file, mix.net.ntasks, benchTasks[i]);
   DeviceSet devices;
   DeviceSet_init(&devices);
   char *cause = NULL;
   char *devPath = xAsprintf("%s/devices.yaml", getenv("PTUI_SRCDIR") ? getenv("PTUI_SRCDIR") : ".");
   if (DeviceSet_load(&devices, devPath, &cause) < 0)
      fatal("%s", cause);
   free(devPath);
   PsaParams psa;
   if (PsaParams_fromDevice(&psa, DeviceSet_find(&devices, "a100_40"), &cause) < 0)
      fatal("%s", cause);
   SchedLimits lim;
   SchedLimits_default(&lim);
   const Network *nets[1] = { &mix.net };
   Featurizer *fz = Featurizer_new(nets, 1, &devices);

   Config configs[3];
   int nconfigs = 0;
   CostModel *pam = loadOrNew(pamPath, MODEL_PAM);
   configs[nconfigs++] = (Config){ "pruner + pam", true, pam };
   configs[nconfigs++] = (Config){ "ansor + pam", false, pam };
   CostModel *xgb = NULL;
   if (CostModel_available(MODEL_XGB, NULL)) {
      xgb = loadOrNew(xgbPath, MODEL_XGB);
      configs[nconfigs++] = (Config){ "ansor + xgb", false, xgb };
   }
   printf("tasks of %s:", mix.net.name);
   for (int i = 0; i < NTASKS; i++)
      printf(" %d", benchTasks[i]);
   printf("; %d rounds each, 10 picks a round; scorers on %d threads; pam %s, xgb %s\n", rounds, threads,
          strcmp(pamPath, "-") ? pamPath : "untrained", xgb ? strcmp(xgbPath, "-") ? xgbPath : "untrained" : "not built");

   Scorer *draft = Scorer_psa(&psa, threads);
   printf("%-14s %8s %8s %7s %7s %8s %7s %9s %8s %8s %6s %7s %8s %6s\n", "config", "mean ms", "median", "sample",
          "draft", "d.evolve", "verify", "features", "predict", "v.evolve", "pick", "PSA/rd", "model/rd", "accept");
   for (int c = 0; c < nconfigs; c++) {
      Scorer *verify = Scorer_model(configs[c].model, fz, NULL, threads);
      SearchParams p;
      if (configs[c].pruner)
         SearchParams_pruner(&p);
      else
         SearchParams_ansor(&p);
      Sums s;
      memset(&s, 0, sizeof s);
      s.perRound = xCalloc((size_t)(NTASKS * rounds), sizeof *s.perRound);
      /* an untimed round first: the scorers' and the model's scratch memory */
      runTask(&mix, NTASKS - 1, 1, &p, draft, verify, &psa, &lim, NULL, false);
      for (int ti = 0; ti < NTASKS; ti++)
         runTask(&mix, ti, rounds, &p, draft, verify, &psa, &lim, &s, configs[c].pruner);
      qsort(s.perRound, (size_t)s.rounds, sizeof *s.perRound, byValue);
      double k = 1e3 / s.rounds;
      char accept[16] = "-";
      if (s.accepted)
         snprintf(accept, sizeof accept, "%.2f", s.acceptance / s.accepted);
      printf("%-14s %8.1f %8.1f %7.1f %7.1f %8.1f %7.1f %9.1f %8.1f %8.1f %6.2f %7.0f %8.0f %6s\n", configs[c].name,
             s.total * k, s.perRound[s.rounds / 2] * 1e3, s.sample * k, s.draftScore * k, s.draftEvolve * k,
             s.verifyScore * k, s.verifyPrepare * k, s.verifyPredict * k, s.verifyEvolve * k, s.pick * k,
             s.draftScored / s.rounds, s.verifyScored / s.rounds, accept);
      printf("%-14s   states per round in the generations, repeats included: PSA %.0f, model %.0f\n", "",
             s.draftMembers / s.rounds, s.verifyMembers / s.rounds);
      printf("%-14s   ms per round by task:", "");
      for (int ti = 0; ti < NTASKS; ti++)
         printf(" %d: %.1f", benchTasks[ti], s.taskTotal[ti] * 1e3 / rounds);
      printf("\n");
      free(s.perRound);
      Scorer_free(verify);
   }
   printf("(ms per round, wall time. draft, verify: in the scorers; of verify, features: lowering and the analyses\n"
          " on the threads, predict: the model; d.evolve, v.evolve: selection, mutation and the heap; PSA/rd,\n"
          " model/rd: distinct states each scorer scored per round; accept: the share of picks from drafts)\n");
   Scorer_free(draft);
   CostModel_free(xgb);
   CostModel_free(pam);
   Featurizer_free(fz);
   DeviceSet_done(&devices);
   BenchMix_done(&mix);
   return 0;
}
