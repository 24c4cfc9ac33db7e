/* The graph's containers: tensors and nodes, element access by type, attributes,
 * broadcasting, and the messages that name a node. */
#include "config.h"

#include "graph/graph.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ops.h"
#include "util/xalloc.h"

void Graph_init(Graph *g, const char *path) {
   memset(g, 0, sizeof *g);
   g->path = xStrdup(path ? path : "(graph)");
   const char *base = strrchr(g->path, '/');
   base = base ? base + 1 : g->path;
   const char *dot = strrchr(base, '.');
   g->name = dot && dot > base ? xStrndup(base, (size_t)(dot - base)) : xStrdup(base);
}

static void attrDone(GAttr *a) {
   free(a->name);
   free(a->s);
   free(a->ints);
   free(a->floats);
   for (int i = 0; i < a->n && a->strings; i++)
      free(a->strings[i]);
   free(a->strings);
}

static void nodeDone(GNode *n) {
   free(n->name);
   free(n->opType);
   free(n->in);
   free(n->out);
   for (int i = 0; i < n->nattr; i++)
      attrDone(&n->attr[i]);
   free(n->attr);
   free(n->origin);
}

static void tensorDone(GTensor *t) {
   free(t->name);
   for (int i = 0; i < GRAPH_MAX_DIMS; i++)
      free(t->dimParam[i]);
   free(t->data);
}

void Graph_done(Graph *g) {
   for (int i = 0; i < g->ntensors; i++)
      tensorDone(&g->t[i]);
   for (int i = 0; i < g->nnodes; i++)
      nodeDone(&g->n[i]);
   free(g->t);
   free(g->n);
   free(g->nameIndex);
   free(g->inputs);
   free(g->outputs);
   free(g->path);
   free(g->name);
   memset(g, 0, sizeof *g);
}

/* ---- the tensors' names, hashed (a model has tens of thousands of them) ---- */

static uint32_t nameHash(const char *s) {
   uint32_t h = 2166136261u;   /* FNV-1a */
   for (const unsigned char *p = (const unsigned char *)s; *p; p++)
      h = (h ^ *p) * 16777619u;
   return h;
}

static void indexInsert(Graph *g, int t) {
   uint32_t mask = (uint32_t)g->nameIndexCap - 1;
   for (uint32_t i = nameHash(g->t[t].name) & mask;; i = (i + 1) & mask)
      if (g->nameIndex[i] == 0) {
         g->nameIndex[i] = t + 1;
         return;
      }
}

static void indexRebuild(Graph *g, int cap) {
   free(g->nameIndex);
   g->nameIndexCap = cap;
   g->nameIndex = xCalloc((size_t)cap, sizeof *g->nameIndex);
   for (int t = 0; t < g->ntensors; t++)
      indexInsert(g, t);
}

int Graph_findTensor(const Graph *g, const char *name) {
   if (!g->nameIndexCap)
      return -1;
   uint32_t mask = (uint32_t)g->nameIndexCap - 1;
   for (uint32_t i = nameHash(name) & mask; g->nameIndex[i]; i = (i + 1) & mask)
      if (strcmp(g->t[g->nameIndex[i] - 1].name, name) == 0)
         return g->nameIndex[i] - 1;
   return -1;
}

int Graph_addTensor(Graph *g, const char *name) {
   if (g->ntensors == g->captensors) {
      g->captensors = g->captensors ? 2 * g->captensors : 64;
      g->t = xReallocArray(g->t, (size_t)g->captensors, sizeof *g->t);
   }
   GTensor *t = &g->t[g->ntensors];
   memset(t, 0, sizeof *t);
   t->name = xStrdup(name);
   t->ndim = -1;
   t->producer = -1;
   t->role = GT_ACTIVATION;
   g->ntensors++;
   if (2 * g->ntensors > g->nameIndexCap)
      indexRebuild(g, g->nameIndexCap ? 2 * g->nameIndexCap : 128);
   else
      indexInsert(g, g->ntensors - 1);
   return g->ntensors - 1;
}

int Graph_newTensor(Graph *g, const char *stem) {
   /* the stem is cut short enough that the suffix always fits: a long stem cut alone
    * would name the same taken tensor for every k */
   char name[256];
   snprintf(name, sizeof name, "%.200s", stem);
   for (int k = 1; Graph_findTensor(g, name) >= 0; k++)
      snprintf(name, sizeof name, "%.200s_%d", stem, k);
   return Graph_addTensor(g, name);
}

int Graph_addNode(Graph *g, const char *name, const char *opType, int nin, const int *in,
                  int nout, const int *out) {
   if (g->nnodes == g->capnodes) {
      g->capnodes = g->capnodes ? 2 * g->capnodes : 64;
      g->n = xReallocArray(g->n, (size_t)g->capnodes, sizeof *g->n);
   }
   GNode *n = &g->n[g->nnodes];
   memset(n, 0, sizeof *n);
   n->name = xStrdup(name);
   n->opType = xStrdup(opType);
   n->op = -1;
   n->nin = nin;
   n->nout = nout;
   n->in = xMalloc(sizeof(int) * (size_t)(nin > 0 ? nin : 1));
   n->out = xMalloc(sizeof(int) * (size_t)(nout > 0 ? nout : 1));
   for (int i = 0; i < nin; i++)
      n->in[i] = in[i];
   for (int i = 0; i < nout; i++) {
      n->out[i] = out[i];
      if (out[i] >= 0)
         g->t[out[i]].producer = g->nnodes;
   }
   return g->nnodes++;
}

void Graph_compact(Graph *g) {
   /* nodes */
   int kept = 0;
   for (int i = 0; i < g->nnodes; i++) {
      if (g->n[i].dead) {
         nodeDone(&g->n[i]);
         continue;
      }
      g->n[kept++] = g->n[i];
   }
   g->nnodes = kept;
   /* tensors: keep inputs, outputs and whatever a live node touches */
   bool *used = xCalloc((size_t)(g->ntensors ? g->ntensors : 1), sizeof *used);
   for (int i = 0; i < g->ninputs; i++)
      used[g->inputs[i]] = true;
   for (int i = 0; i < g->noutputs; i++)
      used[g->outputs[i]] = true;
   for (int i = 0; i < g->nnodes; i++) {
      const GNode *n = &g->n[i];
      for (int k = 0; k < n->nin; k++)
         if (n->in[k] >= 0)
            used[n->in[k]] = true;
      for (int k = 0; k < n->nout; k++)
         if (n->out[k] >= 0)
            used[n->out[k]] = true;
      for (int k = 0; k < n->nattr; k++)
         if (n->attr[k].type == GA_TENSOR && n->attr[k].tensor >= 0)
            used[n->attr[k].tensor] = true;
   }
   int *map = xMalloc(sizeof(int) * (size_t)(g->ntensors ? g->ntensors : 1));
   int nt = 0;
   for (int i = 0; i < g->ntensors; i++) {
      if (!used[i]) {
         tensorDone(&g->t[i]);
         map[i] = -1;
         continue;
      }
      map[i] = nt;
      g->t[nt++] = g->t[i];
   }
   g->ntensors = nt;
   indexRebuild(g, g->nameIndexCap ? g->nameIndexCap : 128);
   for (int i = 0; i < g->ninputs; i++)
      g->inputs[i] = map[g->inputs[i]];
   for (int i = 0; i < g->noutputs; i++)
      g->outputs[i] = map[g->outputs[i]];
   for (int i = 0; i < g->ntensors; i++)
      g->t[i].producer = -1;
   for (int i = 0; i < g->nnodes; i++) {
      GNode *n = &g->n[i];
      for (int k = 0; k < n->nin; k++)
         if (n->in[k] >= 0)
            n->in[k] = map[n->in[k]];
      for (int k = 0; k < n->nout; k++)
         if (n->out[k] >= 0) {
            n->out[k] = map[n->out[k]];
            g->t[n->out[k]].producer = i;
         }
      for (int k = 0; k < n->nattr; k++)
         if (n->attr[k].type == GA_TENSOR && n->attr[k].tensor >= 0)
            n->attr[k].tensor = map[n->attr[k].tensor];
   }
   free(map);
   free(used);
}

/* ---- element types ---- */

size_t GType_size(GType t) {
   switch (t) {
   case GT_FLOAT: case GT_INT32: case GT_UINT32: return 4;
   case GT_DOUBLE: case GT_INT64: case GT_UINT64: return 8;
   case GT_UINT8: case GT_INT8: case GT_BOOL: return 1;
   case GT_UINT16: case GT_INT16: case GT_FLOAT16: case GT_BFLOAT16: return 2;
   default: return 0;
   }
}

const char *GType_name(GType t) {
   switch (t) {
   case GT_FLOAT: return "float32";
   case GT_UINT8: return "uint8";
   case GT_INT8: return "int8";
   case GT_UINT16: return "uint16";
   case GT_INT16: return "int16";
   case GT_INT32: return "int32";
   case GT_INT64: return "int64";
   case GT_STRING: return "string";
   case GT_BOOL: return "bool";
   case GT_FLOAT16: return "float16";
   case GT_DOUBLE: return "float64";
   case GT_UINT32: return "uint32";
   case GT_UINT64: return "uint64";
   case GT_BFLOAT16: return "bfloat16";
   default: return "undefined";
   }
}

bool GType_isFloat(GType t) {
   return t == GT_FLOAT || t == GT_DOUBLE || t == GT_FLOAT16 || t == GT_BFLOAT16;
}

int64_t GTensor_elems(const GTensor *t) {
   if (t->ndim < 0)
      return 0;
   for (int i = 0; i < t->ndim; i++)
      if (t->dims[i] == 0)
         return 0;
   int64_t e = 1;
   for (int i = 0; i < t->ndim; i++)
      e = Graph_mulDims(e, t->dims[i]);
   return e;
}

int64_t GTensor_span(const GTensor *t) {
   int64_t e = 1;
   for (int i = 0; i < t->ndim; i++)
      e = Graph_mulDims(e, t->dims[i] > 1 ? t->dims[i] : 1);
   return e;
}

size_t GTensor_bytes(const GTensor *t) {
   return (size_t)GTensor_elems(t) * GType_size(t->dtype);
}

size_t GTensor_dimsText(const GTensor *t, char *buf, size_t size) {
   size_t len = 0;
   if (size)
      buf[0] = '\0';
   if (t->ndim < 0)
      return (size_t)snprintf(buf, size, "unknown");
   if (t->ndim == 0)
      return (size_t)snprintf(buf, size, "scalar");
   for (int i = 0; i < t->ndim; i++) {
      char d[64];
      if (t->dims[i] >= 0)
         snprintf(d, sizeof d, "%lld", (long long)t->dims[i]);
      else
         snprintf(d, sizeof d, "%s", t->dimParam[i] ? t->dimParam[i] : "?");
      int w = snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0, "%s%s",
                       i ? "x" : "", d);
      len += (size_t)w;
   }
   return len;
}

size_t Graph_shapeText(int ndim, const int64_t *dims, char *buf, size_t size) {
   GTensor t;
   memset(&t, 0, sizeof t);
   t.ndim = ndim;
   for (int i = 0; i < ndim && i < GRAPH_MAX_DIMS; i++)
      t.dims[i] = dims[i];
   return GTensor_dimsText(&t, buf, size);
}

void GTensor_setShape(GTensor *t, GType dtype, int ndim, const int64_t *dims) {
   t->dtype = dtype;
   t->ndim = ndim;
   for (int i = 0; i < ndim && i < GRAPH_MAX_DIMS; i++)
      t->dims[i] = dims[i];
}

void *GTensor_alloc(GTensor *t) {
   free(t->data);
   size_t bytes = GTensor_bytes(t);
   t->data = xCalloc(bytes ? bytes : 1, 1);
   return t->data;
}

static float halfToFloat(uint16_t h) {
   uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
   uint32_t bits;
   if (exp == 0) {
      if (man == 0) {
         bits = sign;
      } else {
         exp = 127 - 15 + 1;
         while (!(man & 0x400)) {
            man <<= 1;
            exp--;
         }
         man &= 0x3ff;
         bits = sign | (exp << 23) | (man << 13);
      }
   } else if (exp == 31) {
      bits = sign | 0x7f800000u | (man << 13);
   } else {
      bits = sign | ((exp - 15 + 127) << 23) | (man << 13);
   }
   float f;
   memcpy(&f, &bits, 4);
   return f;
}

static uint16_t floatToHalf(float f) {
   uint32_t x;
   memcpy(&x, &f, 4);
   uint32_t sign = (x >> 16) & 0x8000;
   int32_t exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
   uint32_t man = x & 0x7fffff;
   if (((x >> 23) & 0xff) == 0xff)
      return (uint16_t)(sign | 0x7c00 | (man ? 0x200 : 0));
   if (exp >= 31)
      return (uint16_t)(sign | 0x7c00);
   if (exp <= 0) {
      if (exp < -10)
         return (uint16_t)sign;
      man |= 0x800000;
      uint32_t shift = (uint32_t)(14 - exp);
      uint32_t h = man >> shift;
      uint32_t rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
      if (rem > half || (rem == half && (h & 1)))
         h++;
      return (uint16_t)(sign | h);
   }
   uint32_t h = sign | ((uint32_t)exp << 10) | (man >> 13);
   uint32_t rem = man & 0x1fff;
   if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
      h++;
   return (uint16_t)h;
}

double GTensor_get(const GTensor *t, int64_t i) {
   const void *d = t->data;
   switch (t->dtype) {
   case GT_FLOAT: return ((const float *)d)[i];
   case GT_DOUBLE: return ((const double *)d)[i];
   case GT_INT64: return (double)((const int64_t *)d)[i];
   case GT_INT32: return ((const int32_t *)d)[i];
   case GT_UINT32: return ((const uint32_t *)d)[i];
   case GT_UINT64: return (double)((const uint64_t *)d)[i];
   case GT_INT16: return ((const int16_t *)d)[i];
   case GT_UINT16: return ((const uint16_t *)d)[i];
   case GT_INT8: return ((const int8_t *)d)[i];
   case GT_UINT8: return ((const uint8_t *)d)[i];
   case GT_BOOL: return ((const uint8_t *)d)[i] != 0;
   case GT_FLOAT16: return halfToFloat(((const uint16_t *)d)[i]);
   case GT_BFLOAT16: {
      uint32_t bits = (uint32_t)((const uint16_t *)d)[i] << 16;
      float f;
      memcpy(&f, &bits, 4);
      return f;
   }
   default: return 0.0;
   }
}

static double clampInt(double v, double lo, double hi) {
   if (isnan(v))
      return 0.0;
   v = trunc(v);
   return v < lo ? lo : v > hi ? hi : v;
}

void GTensor_set(GTensor *t, int64_t i, double v) {
   void *d = t->data;
   switch (t->dtype) {
   case GT_FLOAT: ((float *)d)[i] = (float)v; break;
   case GT_DOUBLE: ((double *)d)[i] = v; break;
   case GT_INT64: ((int64_t *)d)[i] = (int64_t)clampInt(v, -9.2233720368547748e18, 9.2233720368547748e18); break;
   case GT_INT32: ((int32_t *)d)[i] = (int32_t)clampInt(v, INT32_MIN, INT32_MAX); break;
   case GT_UINT32: ((uint32_t *)d)[i] = (uint32_t)clampInt(v, 0, UINT32_MAX); break;
   case GT_UINT64: ((uint64_t *)d)[i] = (uint64_t)clampInt(v, 0, 1.8446744073709550e19); break;
   case GT_INT16: ((int16_t *)d)[i] = (int16_t)clampInt(v, INT16_MIN, INT16_MAX); break;
   case GT_UINT16: ((uint16_t *)d)[i] = (uint16_t)clampInt(v, 0, UINT16_MAX); break;
   case GT_INT8: ((int8_t *)d)[i] = (int8_t)clampInt(v, INT8_MIN, INT8_MAX); break;
   case GT_UINT8: ((uint8_t *)d)[i] = (uint8_t)clampInt(v, 0, UINT8_MAX); break;
   case GT_BOOL: ((uint8_t *)d)[i] = v != 0.0; break;
   case GT_FLOAT16: ((uint16_t *)d)[i] = floatToHalf((float)v); break;
   case GT_BFLOAT16: {
      float f = (float)v;
      uint32_t bits;
      memcpy(&bits, &f, 4);
      bits += 0x7fff + ((bits >> 16) & 1);
      ((uint16_t *)d)[i] = (uint16_t)(bits >> 16);
      break;
   }
   default: break;
   }
}

int64_t GTensor_getInt(const GTensor *t, int64_t i) {
   switch (t->dtype) {
   case GT_INT64: return ((const int64_t *)t->data)[i];
   case GT_UINT64: return (int64_t)((const uint64_t *)t->data)[i];
   case GT_INT32: return ((const int32_t *)t->data)[i];
   default: {
      /* a float past int64's range (or NaN) would be undefined to convert */
      double v = GTensor_get(t, i);
      if (isnan(v))
         return 0;
      if (v >= 9.2233720368547758e18)
         return INT64_MAX;
      return v <= -9.2233720368547758e18 ? INT64_MIN : (int64_t)v;
   }
   }
}

/* ---- attributes and node access ---- */

const GAttr *GNode_attr(const GNode *n, const char *name) {
   for (int i = 0; i < n->nattr; i++)
      if (strcmp(n->attr[i].name, name) == 0)
         return &n->attr[i];
   return NULL;
}

int64_t GNode_attrInt(const GNode *n, const char *name, int64_t def) {
   const GAttr *a = GNode_attr(n, name);
   return a && a->type == GA_INT ? a->i : def;
}

double GNode_attrFloat(const GNode *n, const char *name, double def) {
   const GAttr *a = GNode_attr(n, name);
   if (!a)
      return def;
   if (a->type == GA_FLOAT)
      return a->f;
   if (a->type == GA_INT)
      return (double)a->i;
   return def;
}

const char *GNode_attrString(const GNode *n, const char *name, const char *def) {
   const GAttr *a = GNode_attr(n, name);
   return a && a->type == GA_STRING && a->s ? a->s : def;
}

const int64_t *GNode_attrInts(const GNode *n, const char *name, int *count) {
   const GAttr *a = GNode_attr(n, name);
   if (!a || a->type != GA_INTS) {
      *count = 0;
      return NULL;
   }
   *count = a->n;
   return a->ints;
}

GTensor *GNode_input(const Graph *g, const GNode *n, int i) {
   if (i < 0 || i >= n->nin || n->in[i] < 0)
      return NULL;
   return &g->t[n->in[i]];
}

GTensor *GNode_output(const Graph *g, const GNode *n, int i) {
   if (i < 0 || i >= n->nout || n->out[i] < 0)
      return NULL;
   return &g->t[n->out[i]];
}

void Graph_nodeWhere(const Graph *g, const GNode *n, char *buf, size_t size) {
   snprintf(buf, size, "%s: node '%s' (%s, opset %d): ", g->path, n->name, n->opType, g->opset);
}

int Graph_nodeError(const Graph *g, const GNode *n, char **cause, const char *fmt, ...) {
   if (!cause)
      return -1;
   char where[512];
   Graph_nodeWhere(g, n, where, sizeof where);
   va_list ap;
   va_start(ap, fmt);
   char *msg = xVasprintf(fmt, ap);
   va_end(ap);
   *cause = xAsprintf("%s%s", where, msg);
   free(msg);
   return -1;
}

void Graph_escapeControls(char **msg) {
   if (!msg || !*msg)
      return;
   size_t extra = 0;
   for (const char *p = *msg; *p; p++)
      extra += iscntrl((unsigned char)*p) ? 3 : 0;
   if (!extra)
      return;
   char *out = xMalloc(strlen(*msg) + extra + 1), *o = out;
   for (const char *p = *msg; *p; p++) {
      if (iscntrl((unsigned char)*p))
         o += sprintf(o, "\\x%02x", (unsigned char)*p);
      else
         *o++ = *p;
   }
   *o = '\0';
   free(*msg);
   *msg = out;
}

/* ---- shape arithmetic ---- */

int64_t Graph_addDims(int64_t a, int64_t b) {
   int64_t r;
   if (__builtin_add_overflow(a, b, &r))
      return a > 0 ? INT64_MAX : INT64_MIN;
   return r;
}

int64_t Graph_mulDims(int64_t a, int64_t b) {
   int64_t r;
   if (__builtin_mul_overflow(a, b, &r))
      return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
   return r;
}

/* ---- broadcasting ---- */

int Graph_broadcastShape(int na, const int64_t *a, int nb, const int64_t *b, int64_t *out) {
   int n = na > nb ? na : nb;
   for (int i = 0; i < n; i++) {
      int64_t da = i < n - na ? 1 : a[i - (n - na)];
      int64_t db = i < n - nb ? 1 : b[i - (n - nb)];
      if (da == db || db == 1)
         out[i] = da;
      else if (da == 1)
         out[i] = db;
      else
         return -1;
   }
   return n;
}

int64_t Graph_broadcastIndex(int n, const int64_t *dims, int nout, const int64_t *idx) {
   int64_t flat = 0;
   for (int i = 0; i < n; i++) {
      int64_t c = dims[i] == 1 ? 0 : idx[i + (nout - n)];
      flat = flat * dims[i] + c;
   }
   return flat;
}

bool Graph_nextIndex(int n, const int64_t *dims, int64_t *idx) {
   for (int i = n - 1; i >= 0; i--) {
      if (++idx[i] < dims[i])
         return true;
      idx[i] = 0;
   }
   return false;
}
