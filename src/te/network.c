/* Loading .task files: YAML (libyaml) into a validated Network. Which keys each op takes
 * is one table; every error names the file, line and column of the node at fault. */
#include "config.h"

#include "te/network.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/yamldoc.h"

#define MAX_EXTENT 1048576           /* 2^20: any one dimension */
#define MAX_WEIGHT 1000000
#define MAX_TASKS 4096              /* tasks in one file */

typedef struct {
   const char *keys[10];             /* op-specific keys, NULL-terminated */
   const char *required[5];          /* of which these are required */
} OpKeys;

static const OpKeys opKeys[OP_KIND_COUNT] = {
   [OP_CONV2D] = { { "input", "filters", "kernel", "stride", "pad", "dilation", "groups" },
                   { "input", "filters", "kernel" } },
   [OP_DENSE] = { { "m", "n", "k" }, { "n", "k" } },
   [OP_BATCH_MATMUL] = { { "b", "m", "n", "k" }, { "b", "m", "n", "k" } },
   [OP_MAX_POOL2D] = { { "input", "kernel", "stride", "pad" }, { "input", "kernel" } },
   [OP_AVG_POOL2D] = { { "input", "kernel", "stride", "pad", "count_include_pad" },
                       { "input", "kernel" } },
   [OP_ADAPTIVE_AVG_POOL2D] = { { "input", "output" }, { "input", "output" } },
   [OP_GLOBAL_AVG_POOL2D] = { { "input" }, { "input" } },
   [OP_SOFTMAX] = { { "input" }, { "input" } },
   [OP_LAYER_NORM] = { { "input", "epsilon" }, { "input" } },
   [OP_CONV2D_TRANSPOSE] = { { "input", "filters", "kernel", "stride", "pad", "output_padding",
                               "dilation", "groups" },
                             { "input", "filters", "kernel" } },
   [OP_RESIZE2D] = { { "input", "output", "mode", "coord", "nearest", "scale" },
                     { "input", "output" } },
   [OP_CONCAT] = { { "inputs", "axis" }, { "inputs" } },
   [OP_ELEMENTWISE] = { { "input" }, { "input", "epilogue" } },
};

static const char *const commonKeys[] = { "op", "weight", "epilogue", "name" };
static const char *const topKeys[] = { "network", "batch", "dtype", "tasks", "graph", NULL };
#define MAX_GRAPH_TENSORS 1000000
#define MAX_GRAPH_NODES 100000
#define MAX_NODE_TENSORS 4096

typedef struct {
   YamlDoc *doc;
   int64_t batch;
   char **cause;
} Loader;

static char *opNameList(void) {
   size_t len = 1;
   for (int k = 0; k < OP_KIND_COUNT; k++)
      len += strlen(Op_name(k)) + 2;
   char *s = xMalloc(len);
   s[0] = '\0';
   for (int k = 0; k < OP_KIND_COUNT; k++) {
      if (k)
         strcat(s, ", ");
      strcat(s, Op_name(k));
   }
   return s;
}

static char *epilogueNameList(void) {
   char *s = xMalloc(256);
   s[0] = '\0';
   for (int k = 0; k < EPI_KIND_COUNT; k++) {
      if (k)
         strcat(s, ", ");
      strcat(s, Epilogue_name(k));
   }
   return s;
}

/* "a, b and c" */
static char *andList(const char *const *items, int n) {
   size_t len = 1;
   for (int i = 0; i < n; i++)
      len += strlen(items[i]) + 5;
   char *s = xMalloc(len);
   s[0] = '\0';
   for (int i = 0; i < n; i++) {
      if (i)
         strcat(s, i == n - 1 ? " and " : ", ");
      strcat(s, items[i]);
   }
   return s;
}

static int readPair(Loader *L, yaml_node_t *v, const char *what, int64_t min, int64_t *a,
                    int64_t *b) {
   int64_t vals[2];
   int n;
   if (YamlDoc_intList(L->doc, v, what, 2, min, MAX_EXTENT, vals, &n, L->cause) < 0)
      return -1;
   *a = vals[0];
   *b = n == 2 ? vals[1] : vals[0];
   return 0;
}

static int readPad(Loader *L, yaml_node_t *v, OpParams *p) {
   int64_t vals[4];
   int n;
   if (v->type == YAML_SEQUENCE_NODE && YamlDoc_listLength(v) == 3)
      return YamlDoc_error(L->doc, v, L->cause,
                           "expected pad as p, [ph, pw] or [top, left, bottom, right], found 3 values");
   if (YamlDoc_intList(L->doc, v, "pad", 4, 0, MAX_EXTENT, vals, &n, L->cause) < 0)
      return -1;
   if (n == 1)
      p->pad_top = p->pad_left = p->pad_bottom = p->pad_right = vals[0];
   else if (n == 2)
      p->pad_top = p->pad_bottom = vals[0], p->pad_left = p->pad_right = vals[1];
   else
      p->pad_top = vals[0], p->pad_left = vals[1], p->pad_bottom = vals[2], p->pad_right = vals[3];
   return 0;
}

static int readInput(Loader *L, yaml_node_t *v, OpParams *p) {
   char buf[64];
   bool nchw = p->kind != OP_SOFTMAX && p->kind != OP_LAYER_NORM && p->kind != OP_ELEMENTWISE;
   int maxn = nchw ? 3 : TE_MAX_DIMS - 1;
   int n = YamlDoc_listLength(v);
   if (v->type != YAML_SEQUENCE_NODE)
      return YamlDoc_error(L->doc, v, L->cause, "expected input as a list of sizes%s, found %s",
                           nchw ? " [C, H, W]" : "", YamlDoc_describe(v, buf, sizeof buf));
   if (nchw && n != 3)
      return YamlDoc_error(L->doc, v, L->cause,
                           "input of %s has %d dimensions; expected [C, H, W] (the batch comes from the file's batch)",
                           Op_name(p->kind), n);
   if (n < 1 || n > maxn)
      return YamlDoc_error(L->doc, v, L->cause, "input of %s has %d dimensions; expected 1 to %d",
                           Op_name(p->kind), n, maxn);
   int64_t dims[TE_MAX_DIMS];
   for (int i = 0; i < n; i++)
      if (YamlDoc_int(L->doc, YamlDoc_listItem(L->doc, v, i), "a size in input", 1, MAX_EXTENT,
                      &dims[i], L->cause) < 0)
         return -1;
   if (nchw) {
      p->in_c = dims[0], p->in_h = dims[1], p->in_w = dims[2];
   } else {
      /* the batch is the leading dimension of a per-sample shape */
      p->ndim = n + 1;
      p->shape[0] = L->batch;
      memcpy(&p->shape[1], dims, (size_t)n * sizeof *dims);
   }
   return 0;
}

/* concat's inputs: [[C1, H, W], [C2, H, W], ...], per-sample shapes that differ only
 * along the axis (read before: the key order in a mapping is the writer's) */
static int readConcatInputs(Loader *L, yaml_node_t *node, yaml_node_t *v, OpParams *p) {
   char buf[64];
   YamlDoc *d = L->doc;
   if (v->type != YAML_SEQUENCE_NODE)
      return YamlDoc_error(d, v, L->cause, "expected inputs as a list of shapes [[C, H, W], ...], found %s",
                           YamlDoc_describe(v, buf, sizeof buf));
   int n = YamlDoc_listLength(v);
   if (n < 1 || n > OP_MAX_CONCAT)
      return YamlDoc_error(d, v, L->cause, "concat of %d inputs; expected 1 to %d", n, OP_MAX_CONCAT);
   int64_t axis = 1;
   yaml_node_t *axisNode = YamlDoc_get(d, node, "axis");
   if (axisNode && YamlDoc_int(d, axisNode, "axis", 1, TE_MAX_DIMS - 1, &axis, L->cause) < 0)
      return -1;
   int64_t first[TE_MAX_DIMS];
   int rank = 0;
   for (int i = 0; i < n; i++) {
      yaml_node_t *item = YamlDoc_listItem(d, v, i);
      int64_t dims[TE_MAX_DIMS];
      int m;
      if (item->type != YAML_SEQUENCE_NODE)
         return YamlDoc_error(d, item, L->cause, "expected input %d as a list of sizes, found %s", i,
                              YamlDoc_describe(item, buf, sizeof buf));
      if (YamlDoc_intList(d, item, "a size in inputs", TE_MAX_DIMS - 1, 1, MAX_EXTENT, dims, &m,
                          L->cause) < 0)
         return -1;
      if (i == 0) {
         rank = m;
         memcpy(first, dims, sizeof dims);
         if (axis > rank)
            return YamlDoc_error(d, axisNode ? axisNode : node, L->cause,
                                 "axis %lld is past the %d dimensions of the inputs with their batch",
                                 (long long)axis, rank + 1);
      } else {
         if (m != rank)
            return YamlDoc_error(d, item, L->cause, "input %d has %d dimensions; input 0 has %d", i, m, rank);
         for (int j = 0; j < m; j++)
            if (j + 1 != axis && dims[j] != first[j])
               return YamlDoc_error(d, item, L->cause,
                                    "input %d has size %lld in dimension %d where input 0 has %lld; only axis %lld may differ",
                                    i, (long long)dims[j], j + 1, (long long)first[j], (long long)axis);
      }
      p->concat_len[i] = dims[axis - 1];
   }
   p->ninputs = n;
   p->ndim = rank + 1;
   p->concat_axis = (int)axis;
   p->shape[0] = L->batch;
   memcpy(&p->shape[1], first, (size_t)rank * sizeof *first);
   return 0;
}

static int readScale(Loader *L, yaml_node_t *v, OpParams *p) {
   char buf[64];
   YamlDoc *d = L->doc;
   int n = v->type == YAML_SEQUENCE_NODE ? YamlDoc_listLength(v) : 1;
   if (n < 1 || n > 2)
      return YamlDoc_error(d, v, L->cause, "expected scale as s or [sh, sw], found %s",
                           YamlDoc_describe(v, buf, sizeof buf));
   for (int i = 0; i < 2; i++) {
      yaml_node_t *item = v->type == YAML_SEQUENCE_NODE ? YamlDoc_listItem(d, v, n == 2 ? i : 0) : v;
      double scale;
      if (YamlDoc_double(d, item, "scale", 1e-6, 1048576.0, &scale, L->cause) < 0)
         return -1;
      if (Op_scaleFraction(scale, &p->scale_num[i], &p->scale_den[i]) < 0)
         return YamlDoc_error(d, item, L->cause,
                              "scale %.17g is not a fraction p/q with q <= 4096 (in float32); expected a ratio such as 2, 0.5 or 1.5",
                              scale);
   }
   return 0;
}

static int readChoice(Loader *L, yaml_node_t *v, const char *what, int (*fromName)(const char *),
                      const char *expected, int *out) {
   const char *name;
   if (YamlDoc_string(L->doc, v, what, 64, &name, L->cause) < 0)
      return -1;
   int k = fromName(name);
   if (k < 0)
      return YamlDoc_error(L->doc, v, L->cause, "unknown %s '%s'; expected one of: %s", what, name, expected);
   *out = k;
   return 0;
}

static int readEpilogue(Loader *L, yaml_node_t *v, OpParams *p) {
   char buf[64];
   if (YamlDoc_checkList(L->doc, v, "epilogue", L->cause) < 0)
      return -1;
   int n = YamlDoc_listLength(v);
   if (n > OP_MAX_EPILOGUE)
      return YamlDoc_error(L->doc, v, L->cause, "%d epilogue stages; expected at most %d", n,
                           OP_MAX_EPILOGUE);
   for (int i = 0; i < n; i++) {
      yaml_node_t *item = YamlDoc_listItem(L->doc, v, i);
      Epilogue *e = &p->epilogue[i];
      memset(e, 0, sizeof *e);
      yaml_node_t *bounds = NULL;
      const char *name;
      if (item->type == YAML_MAPPING_NODE) {
         static const char *const valued[] = { "clip", "mul_const", "div_const", NULL };
         if (YamlDoc_checkMapping(L->doc, item, valued, "an epilogue stage", L->cause) < 0)
            return -1;
         if (item->data.mapping.pairs.top - item->data.mapping.pairs.start != 1)
            return YamlDoc_error(L->doc, item, L->cause,
                                 "expected one stage such as {clip: [lo, hi]} or {mul_const: c}, found %d keys",
                                 (int)(item->data.mapping.pairs.top - item->data.mapping.pairs.start));
         bounds = yaml_document_get_node(&L->doc->doc, item->data.mapping.pairs.start->value);
         name = (const char *)yaml_document_get_node(&L->doc->doc, item->data.mapping.pairs.start->key)
                   ->data.scalar.value;
      } else if (item->type == YAML_SCALAR_NODE && item->data.scalar.length > 0) {
         name = (const char *)item->data.scalar.value;
      } else {
         return YamlDoc_error(L->doc, item, L->cause, "expected an epilogue stage name, found %s",
                              YamlDoc_describe(item, buf, sizeof buf));
      }
      int kind = Epilogue_kindFromName(name);
      if (kind < 0) {
         char *names = epilogueNameList();
         YamlDoc_error(L->doc, item, L->cause, "unknown epilogue '%s'; expected one of: %s", name, names);
         free(names);
         return -1;
      }
      e->kind = (EpilogueKind)kind;
      if (Epilogue_hasValue((EpilogueKind)kind)) {
         if (!bounds)
            return YamlDoc_error(L->doc, item, L->cause, "epilogue '%s' needs a value: write {%s: c}", name, name);
         if (YamlDoc_double(L->doc, bounds, name, -1e30, 1e30, &e->value, L->cause) < 0)
            return -1;
      } else if (bounds && kind != EPI_CLIP) {
         return YamlDoc_error(L->doc, item, L->cause, "epilogue '%s' takes no value; write it as a plain name", name);
      }
      if (kind == EPI_CLIP) {
         if (!bounds)
            return YamlDoc_error(L->doc, item, L->cause, "epilogue 'clip' needs bounds: write {clip: [lo, hi]}");
         if (bounds->type != YAML_SEQUENCE_NODE || YamlDoc_listLength(bounds) != 2)
            return YamlDoc_error(L->doc, bounds, L->cause, "expected clip bounds as [lo, hi], found %s",
                                 YamlDoc_describe(bounds, buf, sizeof buf));
         if (YamlDoc_double(L->doc, YamlDoc_listItem(L->doc, bounds, 0), "clip lo", -1e30, 1e30,
                            &e->lo, L->cause) < 0 ||
             YamlDoc_double(L->doc, YamlDoc_listItem(L->doc, bounds, 1), "clip hi", -1e30, 1e30,
                            &e->hi, L->cause) < 0)
            return -1;
      }
      p->nepilogue = i + 1;
      char *why = NULL;
      if (Op_checkEpilogue(p, i, &why) < 0) {
         YamlDoc_error(L->doc, item, L->cause, "%s", why);
         free(why);
         return -1;
      }
   }
   return 0;
}

static int readField(Loader *L, const char *key, yaml_node_t *v, OpParams *p) {
   YamlDoc *d = L->doc;
   char **c = L->cause;
   if (strcmp(key, "input") == 0)
      return readInput(L, v, p);
   if (strcmp(key, "filters") == 0)
      return YamlDoc_int(d, v, "filters", 1, MAX_EXTENT, &p->out_c, c);
   if (strcmp(key, "kernel") == 0)
      return readPair(L, v, "kernel", 1, &p->kernel_h, &p->kernel_w);
   if (strcmp(key, "stride") == 0)
      return readPair(L, v, "stride", 1, &p->stride_h, &p->stride_w);
   if (strcmp(key, "dilation") == 0)
      return readPair(L, v, "dilation", 1, &p->dilation_h, &p->dilation_w);
   if (strcmp(key, "pad") == 0)
      return readPad(L, v, p);
   if (strcmp(key, "output") == 0)
      return readPair(L, v, "output", 1, &p->out_h, &p->out_w);
   if (strcmp(key, "output_padding") == 0)
      return readPair(L, v, "output_padding", 0, &p->output_pad_h, &p->output_pad_w);
   if (strcmp(key, "scale") == 0)
      return readScale(L, v, p);
   if (strcmp(key, "mode") == 0) {
      int m;
      if (readChoice(L, v, "mode", ResizeMode_fromName, "nearest, linear", &m) < 0)
         return -1;
      p->resize_mode = (ResizeMode)m;
      return 0;
   }
   if (strcmp(key, "coord") == 0) {
      int m;
      if (readChoice(L, v, "coord", ResizeCoord_fromName,
                     "half_pixel, pytorch_half_pixel, align_corners, asymmetric", &m) < 0)
         return -1;
      p->coord = (ResizeCoord)m;
      return 0;
   }
   if (strcmp(key, "nearest") == 0) {
      int m;
      if (readChoice(L, v, "nearest", ResizeRounding_fromName,
                     "round_prefer_floor, round_prefer_ceil, floor, ceil", &m) < 0)
         return -1;
      p->rounding = (ResizeRounding)m;
      return 0;
   }
   if (strcmp(key, "groups") == 0)
      return YamlDoc_int(d, v, "groups", 1, MAX_EXTENT, &p->groups, c);
   if (strcmp(key, "count_include_pad") == 0)
      return YamlDoc_bool(d, v, "count_include_pad", &p->count_include_pad, c);
   if (strcmp(key, "epsilon") == 0)
      return YamlDoc_double(d, v, "epsilon", 1e-30, 1.0, &p->epsilon, c);
   if (strcmp(key, "epilogue") == 0)
      return readEpilogue(L, v, p);
   int64_t *dst = strcmp(key, "b") == 0 ? &p->b : strcmp(key, "m") == 0 ? &p->m
                : strcmp(key, "n") == 0 ? &p->n : strcmp(key, "k") == 0 ? &p->k : NULL;
   if (dst)
      return YamlDoc_int(d, v, key, 1, MAX_EXTENT, dst, c);
   return 0;   /* op, weight, name, inputs, axis: read by the caller */
}

static int readTask(Loader *L, yaml_node_t *node, Task *t, const Task *earlier, int nearlier) {
   YamlDoc *d = L->doc;
   char buf[64];
   if (node->type != YAML_MAPPING_NODE)
      return YamlDoc_error(d, node, L->cause, "expected a task as a mapping of keys to values, found %s",
                           YamlDoc_describe(node, buf, sizeof buf));
   yaml_node_t *opNode = YamlDoc_get(d, node, "op");
   if (!opNode)
      return YamlDoc_error(d, node, L->cause, "missing key 'op' in task; expected an op name");
   const char *opName;
   if (YamlDoc_string(d, opNode, "op", 64, &opName, L->cause) < 0)
      return -1;
   int kind = Op_kindFromName(opName);
   if (kind < 0) {
      char *names = opNameList();
      YamlDoc_error(d, opNode, L->cause, "unknown op '%s'; expected one of: %s", opName, names);
      free(names);
      return -1;
   }
   const OpKeys *ok = &opKeys[kind];
   const char *allowed[16];
   int na = 0;
   for (size_t i = 0; i < sizeof commonKeys / sizeof commonKeys[0]; i++)
      allowed[na++] = commonKeys[i];
   for (int i = 0; ok->keys[i]; i++)
      allowed[na++] = ok->keys[i];
   allowed[na] = NULL;
   char what[64];
   snprintf(what, sizeof what, "a %s task", opName);
   if (YamlDoc_checkMapping(d, node, allowed, what, L->cause) < 0)
      return -1;
   const char *need[6];
   int nneed = 0;
   for (int i = 0; ok->required[i]; i++)
      need[nneed++] = ok->required[i];
   need[nneed++] = "weight";
   for (int i = 0; i < nneed; i++)
      if (!YamlDoc_get(d, node, need[i])) {
         char *list = andList(need, nneed);
         YamlDoc_error(d, node, L->cause, "missing key '%s' in %s; it needs %s", need[i], what, list);
         free(list);
         return -1;
      }

   OpParams *p = &t->op;
   Op_defaults(p, (OpKind)kind);
   p->batch = L->batch;
   for (yaml_node_pair_t *pr = node->data.mapping.pairs.start; pr < node->data.mapping.pairs.top; pr++) {
      const char *key = (const char *)yaml_document_get_node(&d->doc, pr->key)->data.scalar.value;
      if (readField(L, key, yaml_document_get_node(&d->doc, pr->value), p) < 0)
         return -1;
   }
   yaml_node_t *inputsNode = YamlDoc_get(d, node, "inputs");
   if (kind == OP_CONCAT && readConcatInputs(L, node, inputsNode, p) < 0)
      return -1;
   if ((kind == OP_MAX_POOL2D || kind == OP_AVG_POOL2D) && !YamlDoc_get(d, node, "stride")) {
      p->stride_h = p->kernel_h;   /* PyTorch's default: stride = kernel */
      p->stride_w = p->kernel_w;
   }
   if (kind == OP_DENSE)
      p->m *= L->batch;
   if (kind == OP_BATCH_MATMUL)
      p->b *= L->batch;
   if (YamlDoc_int(d, YamlDoc_get(d, node, "weight"), "weight", 1, MAX_WEIGHT, &t->weight, L->cause) < 0)
      return -1;
   yaml_node_t *nameNode = YamlDoc_get(d, node, "name");
   if (nameNode) {
      const char *label;
      if (YamlDoc_string(d, nameNode, "name", 63, &label, L->cause) < 0)
         return -1;
      t->label = xStrdup(label);
   }

   const char *field = NULL;
   char *why = NULL;
   if (Op_finish(p, &field, &why) < 0) {
      yaml_node_t *at = field ? YamlDoc_get(d, node, field) : NULL;
      YamlDoc_error(d, at ? at : node, L->cause, "%s", why);
      free(why);
      return -1;
   }
   Op_key(p, t->key, sizeof t->key);
   for (int i = 0; i < nearlier; i++)
      if (strcmp(earlier[i].key, t->key) == 0)
         return YamlDoc_error(d, node, L->cause,
                              "task %d repeats the workload of task %d (line %d); merge them and add their weights",
                              t->id, earlier[i].id, earlier[i].line);
   t->flops = Op_flops(p);
   return 0;
}

/* ---- the graph section ---- */

static int readNameList(Loader *L, yaml_node_t *v, const char *what, const NetGraph *g, int **idx, int *n) {
   YamlDoc *d = L->doc;
   *idx = NULL;
   *n = 0;
   if (YamlDoc_checkList(d, v, what, L->cause) < 0)
      return -1;
   int len = YamlDoc_listLength(v);
   if (len > MAX_NODE_TENSORS)
      return YamlDoc_error(d, v, L->cause, "%d %s; a node has at most %d", len, what, MAX_NODE_TENSORS);
   *idx = xMalloc(sizeof(int) * (size_t)(len ? len : 1));
   for (int i = 0; i < len; i++) {
      yaml_node_t *item = YamlDoc_listItem(d, v, i);
      const char *name;
      if (YamlDoc_string(d, item, what, 255, &name, L->cause) < 0)
         return -1;
      int t = NetGraph_findTensor(g, name);
      if (t < 0)
         return YamlDoc_error(d, item, L->cause, "%s names '%s', which is not in the graph's tensors", what, name);
      (*idx)[(*n)++] = t;
   }
   return 0;
}

static int readGraphTensor(Loader *L, yaml_node_t *v, NetGraph *g) {
   YamlDoc *d = L->doc;
   static const char *const keys[] = { "name", "kind", "shape", NULL };
   if (YamlDoc_checkMapping(d, v, keys, "a graph tensor", L->cause) < 0)
      return -1;
   for (int k = 0; k < 3; k++)
      if (!YamlDoc_get(d, v, keys[k]))
         return YamlDoc_error(d, v, L->cause, "missing key '%s' in a graph tensor; it needs name, kind and shape",
                              keys[k]);
   const char *name, *kind;
   if (YamlDoc_string(d, YamlDoc_get(d, v, "name"), "name", 255, &name, L->cause) < 0 ||
       YamlDoc_string(d, YamlDoc_get(d, v, "kind"), "kind", 32, &kind, L->cause) < 0)
      return -1;
   if (NetGraph_findTensor(g, name) >= 0)
      return YamlDoc_error(d, YamlDoc_get(d, v, "name"), L->cause, "tensor '%s' is listed twice", name);
   int k = 0;
   while (k < NT_KIND_COUNT && strcmp(NetTensorKind_name((NetTensorKind)k), kind) != 0)
      k++;
   if (k == NT_KIND_COUNT)
      return YamlDoc_error(d, YamlDoc_get(d, v, "kind"), L->cause,
                           "unknown tensor kind '%s'; expected input, weight, activation or output", kind);
   yaml_node_t *shape = YamlDoc_get(d, v, "shape");
   int64_t dims[NETGRAPH_MAX_DIMS];
   int ndim = 0;
   if (shape->type == YAML_SEQUENCE_NODE && YamlDoc_listLength(shape) == 0)
      ndim = 0;   /* a scalar */
   else if (YamlDoc_intList(d, shape, "a size in shape", NETGRAPH_MAX_DIMS, 1, INT32_MAX, dims, &ndim,
                            L->cause) < 0)
      return -1;
   int64_t elems = 1;
   for (int i = 0; i < ndim; i++) {
      if (elems > INT32_MAX / dims[i])
         return YamlDoc_error(d, shape, L->cause, "shape holds more than %d elements", INT32_MAX);
      elems *= dims[i];
   }
   NetGraph_addTensor(g, name, (NetTensorKind)k, ndim, dims);
   return 0;
}

/* A task's occurrence reads the op's inputs in order (its own, then each epilogue
 * tensor) and writes its output: element counts must agree (layouts may differ: a
 * matrix product's weight is [k, n] in a model and [n, k] in dense). */
static int checkOccurrence(Loader *L, yaml_node_t *v, const NetGraph *g, const NetNode *n, const Task *t) {
   YamlDoc *d = L->doc;
   int want = Op_numInputs(&t->op);
   if (n->nin != want)
      return YamlDoc_error(d, v, L->cause, "node reads %d tensors; task %d (%s) reads %d", n->nin, t->id,
                           Op_name(t->op.kind), want);
   for (int i = 0; i < n->nin; i++) {
      int64_t have = NetTensor_elems(&g->t[n->in[i]]), need = Op_inputElems(&t->op, i);
      if (have != need) {
         int64_t shape[TE_MAX_DIMS];
         const char *pname;
         Op_inputShape(&t->op, i, shape, &pname);
         return YamlDoc_error(d, v, L->cause, "input %d ('%s') holds %lld elements; task %d's %s holds %lld", i,
                              g->t[n->in[i]].name, (long long)have, t->id, pname, (long long)need);
      }
   }
   if (n->nout != 1)
      return YamlDoc_error(d, v, L->cause, "node writes %d tensors; a task's occurrence writes one", n->nout);
   if (NetTensor_elems(&g->t[n->out[0]]) != Op_outputElems(&t->op))
      return YamlDoc_error(d, v, L->cause, "output '%s' holds %lld elements; task %d's output holds %lld",
                           g->t[n->out[0]].name, (long long)NetTensor_elems(&g->t[n->out[0]]), t->id,
                           (long long)Op_outputElems(&t->op));
   return 0;
}

static int readGraphNode(Loader *L, yaml_node_t *v, Network *net, bool *written, int64_t *occurs) {
   YamlDoc *d = L->doc;
   NetGraph *g = net->graph;
   static const char *const keys[] = { "task", "ops", "name", "inputs", "outputs", NULL };
   if (YamlDoc_checkMapping(d, v, keys, "a graph node", L->cause) < 0)
      return -1;
   yaml_node_t *taskNode = YamlDoc_get(d, v, "task"), *opsNode = YamlDoc_get(d, v, "ops");
   if (!taskNode == !opsNode)
      return YamlDoc_error(d, v, L->cause, "a graph node has either 'task' (an occurrence of a task) or 'ops' "
                           "(ops that are not a task), not %s", taskNode ? "both" : "neither");
   if (!YamlDoc_get(d, v, "inputs") || !YamlDoc_get(d, v, "outputs"))
      return YamlDoc_error(d, v, L->cause, "missing key '%s' in a graph node; it needs inputs and outputs",
                           YamlDoc_get(d, v, "inputs") ? "outputs" : "inputs");
   int64_t task = -1;
   const char *ops = NULL, *name = "";
   if (taskNode && YamlDoc_int(d, taskNode, "task", 0, net->ntasks - 1, &task, L->cause) < 0)
      return -1;
   /* a group has at most 256 ops (graph/fuse.c), each named in the list */
   if (opsNode && YamlDoc_string(d, opsNode, "ops", 16384, &ops, L->cause) < 0)
      return -1;
   if (YamlDoc_get(d, v, "name") && YamlDoc_string(d, YamlDoc_get(d, v, "name"), "name", 65536, &name, L->cause) < 0)
      return -1;
   int *in = NULL, *out = NULL, nin, nout;
   int rc = readNameList(L, YamlDoc_get(d, v, "inputs"), "inputs", g, &in, &nin);
   if (rc == 0)
      rc = readNameList(L, YamlDoc_get(d, v, "outputs"), "outputs", g, &out, &nout);
   for (int i = 0; rc == 0 && i < nin; i++) {
      const NetTensor *t = &g->t[in[i]];
      if ((t->kind == NT_ACTIVATION || t->kind == NT_OUTPUT) && !written[in[i]])
         rc = YamlDoc_error(d, v, L->cause, "reads '%s' before any node writes it", t->name);
   }
   for (int i = 0; rc == 0 && i < nout; i++) {
      const NetTensor *t = &g->t[out[i]];
      if (t->kind == NT_INPUT || t->kind == NT_WEIGHT)
         rc = YamlDoc_error(d, v, L->cause, "writes '%s', which is an %s", t->name, NetTensorKind_name(t->kind));
      else if (written[out[i]])
         rc = YamlDoc_error(d, v, L->cause, "writes '%s', which an earlier node wrote", t->name);
      else
         written[out[i]] = true;
   }
   if (rc == 0) {
      int ni = NetGraph_addNode(g, (int)task, ops, name, nin, in, nout, out);
      if (task >= 0) {
         rc = checkOccurrence(L, v, g, &g->n[ni], &net->tasks[task]);
         occurs[task]++;
      }
   }
   free(in);
   free(out);
   return rc;
}

static int readGraph(Loader *L, yaml_node_t *v, Network *net) {
   YamlDoc *d = L->doc;
   NetGraph *g = net->graph;
   static const char *const keys[] = { "tensors", "nodes", NULL };
   if (YamlDoc_checkMapping(d, v, keys, "the graph", L->cause) < 0)
      return -1;
   yaml_node_t *tensors = YamlDoc_get(d, v, "tensors"), *nodes = YamlDoc_get(d, v, "nodes");
   if (!tensors || !nodes)
      return YamlDoc_error(d, v, L->cause, "missing key '%s' in the graph; it needs tensors and nodes",
                           tensors ? "nodes" : "tensors");
   if (YamlDoc_checkList(d, tensors, "tensors", L->cause) < 0 || YamlDoc_checkList(d, nodes, "nodes", L->cause) < 0)
      return -1;
   int nt = YamlDoc_listLength(tensors), nn = YamlDoc_listLength(nodes);
   if (nt > MAX_GRAPH_TENSORS || nn > MAX_GRAPH_NODES)
      return YamlDoc_error(d, v, L->cause, "%d tensors and %d nodes; a graph has at most %d and %d", nt, nn,
                           MAX_GRAPH_TENSORS, MAX_GRAPH_NODES);
   for (int i = 0; i < nt; i++)
      if (readGraphTensor(L, YamlDoc_listItem(d, tensors, i), g) < 0)
         return -1;
   bool *written = xCalloc((size_t)(nt ? nt : 1), sizeof *written);
   int64_t *occurs = xCalloc((size_t)net->ntasks, sizeof *occurs);
   int rc = 0;
   for (int i = 0; rc == 0 && i < nn; i++)
      rc = readGraphNode(L, YamlDoc_listItem(d, nodes, i), net, written, occurs);
   for (int i = 0; rc == 0 && i < nt; i++)
      if (g->t[i].kind == NT_OUTPUT && !written[i])
         rc = YamlDoc_error(d, tensors, L->cause, "output '%s' is written by no node", g->t[i].name);
   for (int i = 0; rc == 0 && i < net->ntasks; i++)
      if (occurs[i] != net->tasks[i].weight)
         rc = YamlDoc_error(d, nodes, L->cause, "task %d occurs %lld times in the graph; its weight is %lld", i,
                            (long long)occurs[i], (long long)net->tasks[i].weight);
   free(written);
   free(occurs);
   return rc;
}

static bool validNetworkName(const char *s) {
   for (; *s; s++)
      if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
         return false;
   return true;
}

static int loadDoc(Network *net, YamlDoc *d, char **cause) {
   Loader L = { .doc = d, .cause = cause };
   yaml_node_t *root = YamlDoc_root(d);
   if (YamlDoc_checkMapping(d, root, topKeys, "a task file", cause) < 0)
      return -1;
   static const char *const need[] = { "network", "batch", "tasks" };
   for (int i = 0; i < 3; i++)
      if (!YamlDoc_get(d, root, need[i]))
         return YamlDoc_error(d, root, cause, "missing key '%s'; a task file needs network, batch and tasks",
                              need[i]);
   yaml_node_t *nameNode = YamlDoc_get(d, root, "network");
   const char *name;
   if (YamlDoc_string(d, nameNode, "network", 63, &name, cause) < 0)
      return -1;
   if (!validNetworkName(name))
      return YamlDoc_error(d, nameNode, cause,
                           "network name '%s' has characters other than letters, digits, '_', '-' and '.'", name);
   if (YamlDoc_int(d, YamlDoc_get(d, root, "batch"), "batch", 1, 65536, &L.batch, cause) < 0)
      return -1;
   yaml_node_t *dtype = YamlDoc_get(d, root, "dtype");
   if (dtype) {
      const char *dt;
      if (YamlDoc_string(d, dtype, "dtype", 32, &dt, cause) < 0)
         return -1;
      if (strcmp(dt, "float32") != 0)
         return YamlDoc_error(d, dtype, cause, "unsupported dtype '%s'; only float32 is supported", dt);
   }
   yaml_node_t *tasks = YamlDoc_get(d, root, "tasks");
   if (YamlDoc_checkList(d, tasks, "tasks", cause) < 0)
      return -1;
   int n = YamlDoc_listLength(tasks);
   if (n == 0)
      return YamlDoc_error(d, tasks, cause, "tasks is empty; expected at least one task");
   if (n > MAX_TASKS)
      return YamlDoc_error(d, tasks, cause, "%d tasks; a task file may have at most %d", n, MAX_TASKS);
   net->tasks = xCalloc((size_t)n, sizeof(Task));
   net->name = xStrdup(name);
   net->batch = L.batch;
   for (int i = 0; i < n; i++) {
      yaml_node_t *node = YamlDoc_listItem(d, tasks, i);
      Task *t = &net->tasks[i];
      t->id = i;
      t->line = YamlDoc_line(node);
      net->ntasks = i + 1;
      if (readTask(&L, node, t, net->tasks, i) < 0)
         return -1;
   }
   yaml_node_t *graph = YamlDoc_get(d, root, "graph");
   if (graph) {
      net->graph = xMalloc(sizeof *net->graph);
      NetGraph_init(net->graph);
      if (readGraph(&L, graph, net) < 0)
         return -1;
   }
   return 0;
}

static int finishLoad(Network *net, YamlDoc *d, int rc) {
   if (rc == 0)
      net->path = xStrdup(d->path);
   YamlDoc_done(d);
   if (rc < 0)
      Network_done(net);
   return rc;
}

int Network_load(Network *net, const char *path, char **cause) {
   memset(net, 0, sizeof *net);
   YamlDoc d;
   int rc = YamlDoc_load(&d, path, cause);
   if (rc == 0)
      rc = loadDoc(net, &d, cause);
   return finishLoad(net, &d, rc);
}

int Network_loadString(Network *net, const char *name, const char *text, size_t len,
                       char **cause) {
   memset(net, 0, sizeof *net);
   YamlDoc d;
   int rc = YamlDoc_loadString(&d, name, text, len, cause);
   if (rc == 0)
      rc = loadDoc(net, &d, cause);
   return finishLoad(net, &d, rc);
}

void Network_done(Network *net) {
   free(net->inputs);
   if (net->graph) {
      NetGraph_done(net->graph);
      free(net->graph);
   }
   for (int i = 0; i < net->ntasks; i++)
      free(net->tasks[i].label);
   free(net->tasks);
   free(net->name);
   free(net->path);
   memset(net, 0, sizeof *net);
}

int64_t Network_totalWeight(const Network *net) {
   int64_t w = 0;
   for (int i = 0; i < net->ntasks; i++)
      w += net->tasks[i].weight;
   return w;
}

double Network_totalFlops(const Network *net) {
   double f = 0;
   for (int i = 0; i < net->ntasks; i++)
      f += (double)net->tasks[i].weight * net->tasks[i].flops;
   return f;
}

/* ---- writing ---- */

static void writePair(FILE *out, const char *key, int64_t a, int64_t b) {
   if (a == b)
      fprintf(out, ", %s: %lld", key, (long long)a);
   else
      fprintf(out, ", %s: [%lld, %lld]", key, (long long)a, (long long)b);
}

static int writeTask(const Task *t, int64_t batch, FILE *out, char **cause) {
   const OpParams *p = &t->op;
   fprintf(out, "  - {op: %s", Op_name(p->kind));
   bool shaped = p->kind == OP_SOFTMAX || p->kind == OP_LAYER_NORM || p->kind == OP_CONCAT ||
                 p->kind == OP_ELEMENTWISE;
   int64_t lead = p->kind == OP_DENSE ? p->m : p->kind == OP_BATCH_MATMUL ? p->b
                : shaped ? p->shape[0] : p->batch;
   /* concat's and elementwise's first axis is the batch, as an NCHW op's */
   bool strict = (p->kind != OP_DENSE && p->kind != OP_BATCH_MATMUL && !shaped) ||
                 p->kind == OP_CONCAT || p->kind == OP_ELEMENTWISE;
   if (strict ? lead != batch : lead % batch != 0) {
      fprintf(out, "}\n");
      return setCause(cause, "task %d (%s): its leading dimension %lld does not fit the batch %lld", t->id,
                      t->key, (long long)lead, (long long)batch);
   }
   switch (p->kind) {
   case OP_DENSE:
      fprintf(out, ", m: %lld, n: %lld, k: %lld", (long long)(p->m / batch), (long long)p->n, (long long)p->k);
      break;
   case OP_BATCH_MATMUL:
      fprintf(out, ", b: %lld, m: %lld, n: %lld, k: %lld", (long long)(p->b / batch), (long long)p->m,
              (long long)p->n, (long long)p->k);
      break;
   case OP_CONCAT:
      if (p->ndim < 2 || p->concat_axis < 1) {
         fprintf(out, "}\n");
         return setCause(cause, "task %d (%s): a concat along the batch has no per-sample shape to write",
                         t->id, t->key);
      }
      fprintf(out, ", inputs: [");
      for (int i = 0; i < p->ninputs; i++) {
         fprintf(out, "%s[", i ? ", " : "");
         for (int j = 1; j < p->ndim; j++)
            fprintf(out, "%s%lld", j > 1 ? ", " : "",
                    (long long)(j == p->concat_axis ? p->concat_len[i] : p->shape[j]));
         fprintf(out, "]");
      }
      fprintf(out, "], axis: %d", p->concat_axis);
      break;
   case OP_ELEMENTWISE:
      if (p->ndim < 2) {
         fprintf(out, "}\n");
         return setCause(cause, "task %d (%s): a 1-D elementwise task has no per-sample shape to write",
                         t->id, t->key);
      }
      fprintf(out, ", input: [");
      for (int j = 1; j < p->ndim; j++)
         fprintf(out, "%s%lld", j > 1 ? ", " : "", (long long)p->shape[j]);
      fprintf(out, "]");
      break;
   case OP_SOFTMAX:
   case OP_LAYER_NORM:
      fprintf(out, ", input: [%lld", (long long)(p->shape[0] / batch));
      for (int i = 1; i < p->ndim; i++)
         fprintf(out, ", %lld", (long long)p->shape[i]);
      fprintf(out, "]");
      if (p->kind == OP_LAYER_NORM)
         fprintf(out, ", epsilon: %.17g", p->epsilon);
      break;
   default:
      fprintf(out, ", input: [%lld, %lld, %lld]", (long long)p->in_c, (long long)p->in_h, (long long)p->in_w);
      if (p->kind == OP_CONV2D || p->kind == OP_CONV2D_TRANSPOSE)
         fprintf(out, ", filters: %lld", (long long)p->out_c);
      if (p->kind == OP_ADAPTIVE_AVG_POOL2D || p->kind == OP_RESIZE2D)
         writePair(out, "output", p->out_h, p->out_w);
      if (p->kind == OP_RESIZE2D) {
         fprintf(out, ", mode: %s, coord: %s", ResizeMode_name(p->resize_mode), ResizeCoord_name(p->coord));
         if (p->resize_mode == RESIZE_NEAREST)
            fprintf(out, ", nearest: %s", ResizeRounding_name(p->rounding));
         if (p->scale_den[0] > 0 || p->scale_den[1] > 0) {
            double sc[2];
            for (int d = 0; d < 2; d++) {
               int64_t num = p->scale_den[d] > 0 ? p->scale_num[d] : (d ? p->out_w : p->out_h);
               int64_t den = p->scale_den[d] > 0 ? p->scale_den[d] : (d ? p->in_w : p->in_h);
               sc[d] = (double)num / (double)den;
            }
            if (sc[0] == sc[1])
               fprintf(out, ", scale: %.17g", sc[0]);
            else
               fprintf(out, ", scale: [%.17g, %.17g]", sc[0], sc[1]);
         }
      }
      bool windowed = p->kind == OP_CONV2D || p->kind == OP_MAX_POOL2D || p->kind == OP_AVG_POOL2D ||
                      p->kind == OP_CONV2D_TRANSPOSE;
      if (windowed) {
         writePair(out, "kernel", p->kernel_h, p->kernel_w);
         writePair(out, "stride", p->stride_h, p->stride_w);
         if (p->pad_top == p->pad_bottom && p->pad_left == p->pad_right)
            writePair(out, "pad", p->pad_top, p->pad_left);
         else
            fprintf(out, ", pad: [%lld, %lld, %lld, %lld]", (long long)p->pad_top, (long long)p->pad_left,
                    (long long)p->pad_bottom, (long long)p->pad_right);
      }
      if (p->kind == OP_CONV2D_TRANSPOSE && (p->output_pad_h || p->output_pad_w))
         writePair(out, "output_padding", p->output_pad_h, p->output_pad_w);
      bool conv = p->kind == OP_CONV2D || p->kind == OP_CONV2D_TRANSPOSE;
      if (conv && (p->dilation_h != 1 || p->dilation_w != 1))
         writePair(out, "dilation", p->dilation_h, p->dilation_w);
      if (conv && p->groups != 1)
         fprintf(out, ", groups: %lld", (long long)p->groups);
      if (p->kind == OP_AVG_POOL2D)
         fprintf(out, ", count_include_pad: %s", p->count_include_pad ? "true" : "false");
      break;
   }
   if (p->nepilogue) {
      fprintf(out, ", epilogue: [");
      for (int i = 0; i < p->nepilogue; i++) {
         const Epilogue *e = &p->epilogue[i];
         if (e->kind == EPI_CLIP)
            fprintf(out, "%s{clip: [%.17g, %.17g]}", i ? ", " : "", e->lo, e->hi);
         else if (Epilogue_hasValue(e->kind))
            fprintf(out, "%s{%s: %.17g}", i ? ", " : "", Epilogue_name(e->kind), e->value);
         else
            fprintf(out, "%s%s", i ? ", " : "", Epilogue_name(e->kind));
      }
      fprintf(out, "]");
   }
   fprintf(out, ", weight: %lld", (long long)t->weight);
   if (t->label) {
      fprintf(out, ", name: ");
      YamlDoc_writeQuoted(out, t->label);
   }
   fprintf(out, "}\n");
   return 0;
}

int Network_write(const Network *net, const char *comment, FILE *out, char **cause) {
   if (comment) {
      const char *line = comment;
      while (*line) {
         const char *end = strchr(line, '\n');
         int len = end ? (int)(end - line) : (int)strlen(line);
         fprintf(out, "#%s%.*s\n", len ? " " : "", len, line);
         line += len + (end ? 1 : 0);
      }
      fputc('\n', out);
   }
   int64_t batch = net->batch > 0 ? net->batch : 1;
   fprintf(out, "network: %s\nbatch: %lld\ndtype: float32\ntasks:\n", net->name, (long long)batch);
   for (int i = 0; i < net->ntasks; i++)
      if (writeTask(&net->tasks[i], batch, out, cause) < 0)
         return -1;
   if (net->graph) {
      fputc('\n', out);
      NetGraph_write(net->graph, out);
   }
   return 0;
}
