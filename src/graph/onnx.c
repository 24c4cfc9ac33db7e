/* The ONNX reader: ModelProto through protobuf-c into a Graph; TensorProto files in and
 * out. */
#include "config.h"

#include "graph/onnx.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graph/onnx.pb-c.h"
#include "graph/ops.h"
#include "util/xalloc.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "ONNX's raw_data is little-endian; the reader copies it as it is");

/* A tensor larger than this many elements is refused as absurd (16 Gi elements). */
#define MAX_TENSOR_ELEMS ((int64_t)1 << 34)

int OnnxInputDims_parse(OnnxInputDims *d, const char *text, char **cause) {
   memset(d, 0, sizeof *d);
   const char *eq = strchr(text, '=');
   if (!eq || eq == text)
      return setCause(cause, "--input '%s': expected NAME=DIMS, e.g. input=1x3x224x224", text);
   const char *p = eq + 1;
   if (!*p)
      return setCause(cause, "--input '%s': no dimensions after '='; expected e.g. %.*s=1x3x224x224",
                      text, (int)(eq - text), text);
   while (*p) {
      if (d->ndim == GRAPH_MAX_DIMS)
         return setCause(cause, "--input '%s': more than %d dimensions", text, GRAPH_MAX_DIMS);
      char *end;
      errno = 0;
      long long v = strtoll(p, &end, 10);
      if (end == p || errno || v <= 0 || v > INT32_MAX || (*end && *end != 'x' && *end != ','))
         return setCause(cause, "--input '%s': dimension %d is not a positive integer; expected "
                         "DIMS like 1x3x224x224", text, d->ndim + 1);
      d->dims[d->ndim++] = v;
      p = *end ? end + 1 : end;
      if (*end && !*p)
         return setCause(cause, "--input '%s': a dimension is missing after the last '%c'", text, *end);
   }
   d->name = xStrndup(text, (size_t)(eq - text));
   return 0;
}

void OnnxInputDims_done(OnnxInputDims *d) {
   free(d->name);
   d->name = NULL;
}

/* ---- files ---- */

static int readWhole(const char *path, uint8_t **data, size_t *len, char **cause) {
   int fd = open(path, O_RDONLY);
   if (fd < 0)
      return setCause(cause, "%s: %s", path, strerror(errno));
   struct stat st;
   if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
      close(fd);
      return setCause(cause, "%s: not a regular file", path);
   }
   if ((uint64_t)st.st_size > ONNX_MAX_FILE_BYTES) {
      close(fd);
      return setCause(cause, "%s: %lld bytes; a model file over 2 GiB must keep its weights as "
                      "external data", path, (long long)st.st_size);
   }
   size_t n = (size_t)st.st_size;
   uint8_t *buf = xMalloc(n ? n : 1);
   size_t got = 0;
   while (got < n) {
      ssize_t r = read(fd, buf + got, n - got);
      if (r < 0 && errno == EINTR)
         continue;
      if (r <= 0) {
         int err = r < 0 ? errno : EIO;
         free(buf);
         close(fd);
         return setCause(cause, "%s: %s", path, strerror(err));
      }
      got += (size_t)r;
   }
   close(fd);
   *data = buf;
   *len = n;
   return 0;
}

/* ---- tensors ---- */

static bool supportedType(int32_t t) {
   return t > 0 && t != GT_STRING && GType_size((GType)t) > 0;
}

/* Shape and element count of a TensorProto, checked. */
static int tensorShape(const Onnx__TensorProto *tp, const char *where, GTensor *t, char **cause) {
   if (tp->n_dims > GRAPH_MAX_DIMS)
      return setCause(cause, "%s: %zu dimensions; at most %d are supported", where, tp->n_dims,
                      GRAPH_MAX_DIMS);
   int64_t elems = 1;
   for (size_t i = 0; i < tp->n_dims; i++) {
      if (tp->dims[i] < 0)
         return setCause(cause, "%s: dimension %zu is %lld; dimensions are >= 0", where, i,
                         (long long)tp->dims[i]);
      /* with a 0 elsewhere the product stays small; each dimension is capped on its own
       * so that no shape arithmetic on it overflows */
      if (tp->dims[i] > INT32_MAX)
         return setCause(cause, "%s: dimension %zu is %lld, over %d", where, i, (long long)tp->dims[i],
                         INT32_MAX);
      if (tp->dims[i] > 0 && elems > MAX_TENSOR_ELEMS / tp->dims[i])
         return setCause(cause, "%s: %zu dimensions whose product is over %lld elements", where,
                         tp->n_dims, (long long)MAX_TENSOR_ELEMS);
      elems *= tp->dims[i];
   }
   if (!tp->has_data_type || !supportedType(tp->data_type))
      return setCause(cause, "%s: element type %s (%d) is not supported", where,
                      GType_name((GType)tp->data_type), (int)tp->data_type);
   t->dtype = (GType)tp->data_type;
   t->ndim = (int)tp->n_dims;
   for (size_t i = 0; i < tp->n_dims; i++)
      t->dims[i] = tp->dims[i];
   return 0;
}

static const char *externalValue(const Onnx__TensorProto *tp, const char *key) {
   for (size_t i = 0; i < tp->n_external_data; i++)
      if (tp->external_data[i]->key && strcmp(tp->external_data[i]->key, key) == 0)
         return tp->external_data[i]->value;
   return NULL;
}

static int parseSize(const char *text, uint64_t *v) {
   if (!text || !*text)
      return -1;
   char *end;
   errno = 0;
   unsigned long long x = strtoull(text, &end, 10);
   if (*end || errno || text[0] == '-')
      return -1;
   *v = x;
   return 0;
}

/* Reads external data: `location` relative to the model's folder, never outside it. */
static int readExternal(const Onnx__TensorProto *tp, const char *modelPath, const char *where,
                        GTensor *t, size_t bytes, char **cause) {
   const char *loc = externalValue(tp, "location");
   if (!loc || !*loc)
      return setCause(cause, "%s: external data without a location", where);
   if (loc[0] == '/' || strstr(loc, "..") || strchr(loc, '\\'))
      return setCause(cause, "%s: external data location '%s' must be a file name inside the "
                      "model's folder", where, loc);
   uint64_t offset = 0, length = bytes;
   const char *off = externalValue(tp, "offset"), *len = externalValue(tp, "length");
   if (off && parseSize(off, &offset) < 0)
      return setCause(cause, "%s: external data offset '%s' is not a byte count", where, off);
   if (len && parseSize(len, &length) < 0)
      return setCause(cause, "%s: external data length '%s' is not a byte count", where, len);
   if (length != bytes)
      return setCause(cause, "%s: external data length %llu does not match the %zu bytes its "
                      "shape and type need", where, (unsigned long long)length, bytes);
   const char *slash = modelPath ? strrchr(modelPath, '/') : NULL;
   char *file = slash ? xAsprintf("%.*s/%s", (int)(slash - modelPath), modelPath, loc)
                      : xStrdup(loc);
   int fd = open(file, O_RDONLY);
   if (fd < 0) {
      int rc = setCause(cause, "%s: external data %s: %s", where, file, strerror(errno));
      free(file);
      return rc;
   }
   struct stat st;
   if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
      int rc = setCause(cause, "%s: external data %s is not a regular file", where, file);
      close(fd);
      free(file);
      return rc;
   }
   if ((uint64_t)st.st_size < offset || (uint64_t)st.st_size - offset < length) {
      int rc = setCause(cause, "%s: external data %s holds %lld bytes; the tensor needs %zu at "
                        "offset %llu", where, file, (long long)st.st_size, bytes,
                        (unsigned long long)offset);
      close(fd);
      free(file);
      return rc;
   }
   char *dst = xMalloc(bytes ? bytes : 1);
   t->data = dst;
   size_t got = 0;
   while (got < bytes) {
      ssize_t r = pread(fd, dst + got, bytes - got, (off_t)(offset + got));
      if (r < 0 && errno == EINTR)
         continue;
      if (r <= 0) {
         int rc = setCause(cause, "%s: external data %s: %s", where, file,
                           r < 0 ? strerror(errno) : "unexpected end of file");
         close(fd);
         free(file);
         return rc;
      }
      got += (size_t)r;
   }
   close(fd);
   free(file);
   return 0;
}

/* TensorProto into t (shape, type, data). modelPath resolves external data. */
static int tensorFromProto(const Onnx__TensorProto *tp, const char *modelPath, const char *where,
                           GTensor *t, char **cause) {
   if (tensorShape(tp, where, t, cause) < 0)
      return -1;
   if (tp->segment)
      return setCause(cause, "%s: segmented tensors are not supported", where);
   int64_t elems = GTensor_elems(t);
   size_t bytes = GTensor_bytes(t);
   free(t->data);
   t->data = NULL;
   /* every size is checked against what the file holds before anything is allocated */
   if (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
      return readExternal(tp, modelPath, where, t, bytes, cause);
   if (tp->has_raw_data) {
      if (tp->raw_data.len != bytes)
         return setCause(cause, "%s: raw_data holds %zu bytes; shape %lld elements of %s need %zu",
                         where, tp->raw_data.len, (long long)elems, GType_name(t->dtype), bytes);
      t->data = xMalloc(bytes ? bytes : 1);
      if (bytes)
         memcpy(t->data, tp->raw_data.data, bytes);
      return 0;
   }
   size_t have;
   switch (t->dtype) {
   case GT_FLOAT: have = tp->n_float_data; break;
   case GT_DOUBLE: have = tp->n_double_data; break;
   case GT_INT64: have = tp->n_int64_data; break;
   case GT_UINT32: case GT_UINT64: have = tp->n_uint64_data; break;
   default: have = tp->n_int32_data; break;
   }
   if (have != (size_t)elems)
      return setCause(cause, "%s: holds %zu values; its shape has %lld elements", where, have,
                      (long long)elems);
   void *data = xCalloc(bytes ? bytes : 1, 1);
   t->data = data;
   for (int64_t i = 0; i < elems; i++) {
      switch (t->dtype) {
      case GT_FLOAT: ((float *)data)[i] = tp->float_data[i]; break;
      case GT_DOUBLE: ((double *)data)[i] = tp->double_data[i]; break;
      case GT_INT64: ((int64_t *)data)[i] = tp->int64_data[i]; break;
      case GT_UINT32: ((uint32_t *)data)[i] = (uint32_t)tp->uint64_data[i]; break;
      case GT_UINT64: ((uint64_t *)data)[i] = tp->uint64_data[i]; break;
      case GT_INT32: ((int32_t *)data)[i] = tp->int32_data[i]; break;
      case GT_INT16: ((int16_t *)data)[i] = (int16_t)tp->int32_data[i]; break;
      case GT_UINT16: case GT_FLOAT16: case GT_BFLOAT16:
         ((uint16_t *)data)[i] = (uint16_t)tp->int32_data[i];
         break;
      case GT_INT8: ((int8_t *)data)[i] = (int8_t)tp->int32_data[i]; break;
      case GT_UINT8: ((uint8_t *)data)[i] = (uint8_t)tp->int32_data[i]; break;
      case GT_BOOL: ((uint8_t *)data)[i] = tp->int32_data[i] != 0; break;
      default: break;
      }
   }
   return 0;
}

/* A weight tensor of the graph from a TensorProto. */
static int addWeight(Graph *g, const char *name, const Onnx__TensorProto *tp, const char *where,
                     char **cause) {
   if (Graph_findTensor(g, name) >= 0)
      return setCause(cause, "%s: the name '%s' is already taken", where, name);
   int ti = Graph_addTensor(g, name);
   g->t[ti].role = GT_WEIGHT;
   return tensorFromProto(tp, g->path, where, &g->t[ti], cause);
}

/* ---- value infos (inputs) ---- */

static int inputFromValueInfo(Graph *g, const Onnx__ValueInfoProto *vi, const OnnxInputDims *dims,
                              int ndims, bool allowOpen, char **cause) {
   const char *name = vi->name ? vi->name : "";
   if (!*name)
      return setCause(cause, "%s: a graph input has no name", g->path);
   if (!vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
       !vi->type->tensor_type)
      return setCause(cause, "%s: input '%s' is not a tensor (sequences, maps and optionals are "
                      "not supported)", g->path, name);
   const Onnx__TypeProto__Tensor *tt = vi->type->tensor_type;
   if (!tt->has_elem_type || !supportedType(tt->elem_type))
      return setCause(cause, "%s: input '%s' has element type %s (%d), which is not supported",
                      g->path, name, GType_name((GType)tt->elem_type), (int)tt->elem_type);
   if (Graph_findTensor(g, name) >= 0)
      return setCause(cause, "%s: input '%s' is listed twice", g->path, name);
   int ti = Graph_addTensor(g, name);
   GTensor *t = &g->t[ti];
   t->role = GT_INPUT;
   t->dtype = (GType)tt->elem_type;
   const OnnxInputDims *fix = NULL;
   for (int i = 0; i < ndims; i++)
      if (strcmp(dims[i].name, name) == 0)
         fix = &dims[i];
   if (!tt->shape && !fix) {
      if (allowOpen)
         return ti;
      return setCause(cause, "%s: input '%s' has no shape; set it with --input %s=DIMS", g->path,
                      name, name);
   }
   int rank = tt->shape ? (int)tt->shape->n_dim : fix->ndim;
   if (rank > GRAPH_MAX_DIMS)
      return setCause(cause, "%s: input '%s' has %d dimensions; at most %d are supported", g->path,
                      name, rank, GRAPH_MAX_DIMS);
   t->ndim = rank;
   bool open = false;
   for (int i = 0; i < rank && tt->shape; i++) {
      const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
      t->dims[i] = -1;
      if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && d->dim_value > 0) {
         if (d->dim_value > INT32_MAX)
            return setCause(cause, "%s: input '%s' dimension %d is %lld, over %d", g->path, name, i,
                            (long long)d->dim_value, INT32_MAX);
         t->dims[i] = d->dim_value;
      } else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param) {
         t->dimParam[i] = xStrdup(d->dim_param);
         open = true;
      } else {
         open = true;
      }
   }
   if (fix) {
      char have[256];
      GTensor_dimsText(t, have, sizeof have);
      if (tt->shape && fix->ndim != rank) {
         return setCause(cause, "--input %s: %d dimensions given; the model's input '%s' has %d (%s)",
                         name, fix->ndim, name, rank, have);
      }
      for (int i = 0; i < rank; i++) {
         if (tt->shape && t->dims[i] > 0 && t->dims[i] != fix->dims[i])
            return setCause(cause, "--input %s: dimension %d is %lld; the model fixes it at %lld (%s)",
                            name, i, (long long)fix->dims[i], (long long)t->dims[i], have);
         t->dims[i] = fix->dims[i];
      }
      t->ndim = fix->ndim;
      open = false;
   }
   if (open && !allowOpen) {
      char have[256], example[256];
      GTensor_dimsText(t, have, sizeof have);
      size_t len = 0;
      example[0] = '\0';
      for (int i = 0; i < t->ndim && len < sizeof example; i++)
         len += (size_t)snprintf(example + len, sizeof example - len, "%s%lld", i ? "x" : "",
                                 (long long)(t->dims[i] > 0 ? t->dims[i] : 1));
      return setCause(cause, "%s: input '%s' has open dimensions (%s); fix them with --input %s=DIMS, "
                      "e.g. --input %s=%s", g->path, name, have, name, name, example);
   }
   return ti;
}

/* ---- nodes ---- */

static int attrFromProto(Graph *g, const char *nodeName, const Onnx__AttributeProto *ap, GAttr *a,
                         const char *where, char **cause) {
   memset(a, 0, sizeof *a);
   a->tensor = -1;
   a->name = xStrdup(ap->name ? ap->name : "");
   if (ap->ref_attr_name && *ap->ref_attr_name)
      return setCause(cause, "%sattribute '%s' refers to a function's attribute, which is not "
                      "supported", where, a->name);
   a->type = ap->has_type ? (GAttrType)ap->type : GA_UNDEFINED;
   switch ((int)a->type) {
   case GA_FLOAT: a->f = ap->f; return 0;
   case GA_INT: a->i = ap->i; return 0;
   case GA_STRING:
      /* an empty bytes field may have no data pointer at all */
      if (ap->s.len && memchr(ap->s.data, '\0', ap->s.len))
         return setCause(cause, "%sattribute '%s' holds a NUL byte", where, a->name);
      a->s = ap->s.len ? xStrndup((const char *)ap->s.data, ap->s.len) : xStrdup("");
      return 0;
   case GA_FLOATS:
      a->n = (int)ap->n_floats;
      a->floats = xMalloc(sizeof(double) * (ap->n_floats ? ap->n_floats : 1));
      for (size_t i = 0; i < ap->n_floats; i++)
         a->floats[i] = ap->floats[i];
      return 0;
   case GA_INTS:
      a->n = (int)ap->n_ints;
      a->ints = xMalloc(sizeof(int64_t) * (ap->n_ints ? ap->n_ints : 1));
      if (ap->n_ints)
         memcpy(a->ints, ap->ints, sizeof(int64_t) * ap->n_ints);
      return 0;
   case GA_STRINGS:
      a->n = (int)ap->n_strings;
      a->strings = xCalloc(ap->n_strings ? ap->n_strings : 1, sizeof(char *));
      for (size_t i = 0; i < ap->n_strings; i++)
         a->strings[i] = ap->strings[i].len ? xStrndup((const char *)ap->strings[i].data, ap->strings[i].len)
                                            : xStrdup("");
      return 0;
   case GA_TENSOR: {
      if (!ap->t)
         return setCause(cause, "%sattribute '%s' has no tensor", where, a->name);
      char *tname = xAsprintf("%s.%s", nodeName, a->name);
      int ti = Graph_newTensor(g, tname);
      free(tname);
      g->t[ti].role = GT_WEIGHT;
      char *w = xAsprintf("%sattribute '%s'", where, a->name);
      int rc = tensorFromProto(ap->t, g->path, w, &g->t[ti], cause);
      free(w);
      a->tensor = ti;
      return rc;
   }
   default:
      return setCause(cause, "%sattribute '%s' is of type %d (graphs, sparse tensors and type "
                      "protos are not supported)", where, a->name, (int)a->type);
   }
}

/* A Constant node's value as a weight named after its output. */
static int constantNode(Graph *g, const Onnx__NodeProto *np, const char *where, char **cause) {
   if (np->n_output != 1 || !np->output[0] || !*np->output[0])
      return setCause(cause, "%sa Constant node has exactly one output", where);
   if (np->n_attribute != 1)
      return setCause(cause, "%sa Constant node has exactly one attribute (value, value_float, "
                      "value_floats, value_int or value_ints)", where);
   const char *out = np->output[0];
   if (Graph_findTensor(g, out) >= 0)
      return setCause(cause, "%s'%s' is written twice", where, out);
   const Onnx__AttributeProto *ap = np->attribute[0];
   const char *an = ap->name ? ap->name : "";
   if (strcmp(an, "value") == 0 && ap->t)
      return addWeight(g, out, ap->t, where, cause);
   int ti = Graph_addTensor(g, out);
   GTensor *t = &g->t[ti];
   t->role = GT_WEIGHT;
   if (strcmp(an, "value_float") == 0) {
      GTensor_setShape(t, GT_FLOAT, 0, NULL);
      *(float *)GTensor_alloc(t) = ap->f;
   } else if (strcmp(an, "value_int") == 0) {
      GTensor_setShape(t, GT_INT64, 0, NULL);
      *(int64_t *)GTensor_alloc(t) = ap->i;
   } else if (strcmp(an, "value_floats") == 0) {
      int64_t n = (int64_t)ap->n_floats;
      GTensor_setShape(t, GT_FLOAT, 1, &n);
      float *d = GTensor_alloc(t);
      for (int64_t i = 0; i < n; i++)
         d[i] = ap->floats[i];
   } else if (strcmp(an, "value_ints") == 0) {
      int64_t n = (int64_t)ap->n_ints;
      GTensor_setShape(t, GT_INT64, 1, &n);
      int64_t *d = GTensor_alloc(t);
      for (int64_t i = 0; i < n; i++)
         d[i] = ap->ints[i];
   } else {
      return setCause(cause, "%sattribute '%s' is not supported (value, value_float, value_floats, "
                      "value_int, value_ints)", where, an);
   }
   return 0;
}

static bool defaultDomain(const char *domain) {
   return !domain || !*domain || strcmp(domain, "ai.onnx") == 0;
}

static int nodeFromProto(Graph *g, const Onnx__NodeProto *np, int index, char **cause) {
   const char *opType = np->op_type && *np->op_type ? np->op_type : NULL;
   char fallback[64];
   snprintf(fallback, sizeof fallback, "%s_%d", opType ? opType : "node", index);
   const char *name = np->name && *np->name ? np->name : fallback;
   char where[512];
   snprintf(where, sizeof where, "%s: node '%s' (%s, opset %d): ", g->path, name,
            opType ? opType : "no op type", g->opset);
   if (!opType)
      return setCause(cause, "%snode %d has no op type", where, index);
   if (!defaultDomain(np->domain))
      return setCause(cause, "%sthe domain '%s' is not supported (only ONNX's default domain)",
                      where, np->domain);
   bool known;
   const GraphOp *op = GraphOp_find(opType, g->opset, &known);
   if (!op && known)
      return setCause(cause, "%s%s is supported at other opsets only", where, opType);
   if (!op)
      return setCause(cause, "%sthe operator %s is not supported", where, opType);
   for (size_t i = 0; i < np->n_attribute; i++) {
      const char *an = np->attribute[i]->name ? np->attribute[i]->name : "";
      if (!GraphOp_acceptsAttr(op, an))
         return setCause(cause, "%sattribute '%s' is not supported", where, an);
   }
   if (strcmp(opType, "Constant") == 0) {
      g->constantNodes++;
      return constantNode(g, np, where, cause);
   }
   int nin = (int)np->n_input, nout = (int)np->n_output;
   if (np->n_input > 4096 || np->n_output > 4096)
      return setCause(cause, "%s%zu inputs and %zu outputs are more than a node may have", where,
                      np->n_input, np->n_output);
   int *in = xMalloc(sizeof(int) * (size_t)(nin + 1)), *out = xMalloc(sizeof(int) * (size_t)(nout + 1));
   int rc = 0;
   for (int i = 0; i < nin && rc == 0; i++) {
      const char *tn = np->input[i] ? np->input[i] : "";
      in[i] = *tn ? Graph_findTensor(g, tn) : -1;
      if (*tn && in[i] < 0)
         rc = setCause(cause, "%sinput %d reads '%s', which no earlier node, graph input or "
                       "initializer provides (nodes must be in topological order)", where, i, tn);
   }
   for (int i = 0; i < nout && rc == 0; i++) {
      const char *tn = np->output[i] ? np->output[i] : "";
      if (!*tn) {
         out[i] = -1;
         continue;
      }
      if (Graph_findTensor(g, tn) >= 0) {
         rc = setCause(cause, "%soutput %d writes '%s', which is already written or is an input "
                       "or initializer", where, i, tn);
         break;
      }
      out[i] = Graph_addTensor(g, tn);
   }
   if (rc == 0) {
      int ni = Graph_addNode(g, name, opType, nin, in, nout, out);
      GNode *n = &g->n[ni];
      n->op = GraphOp_row(op);
      n->attr = xCalloc(np->n_attribute ? np->n_attribute : 1, sizeof *n->attr);
      for (size_t i = 0; i < np->n_attribute && rc == 0; i++) {
         rc = attrFromProto(g, name, np->attribute[i], &g->n[ni].attr[i], where, cause);
         g->n[ni].nattr = (int)i + 1;
      }
   }
   free(in);
   free(out);
   return rc;
}

/* ---- the model ---- */

static int loadGraph(Graph *g, const Onnx__ModelProto *m, const OnnxInputDims *dims, int ndims,
                     bool allowOpen, char **cause) {
   g->irVersion = m->has_ir_version ? m->ir_version : 0;
   if (m->has_ir_version && m->ir_version < 1)
      return setCause(cause, "%s: ir_version %lld is not an IR version (1 or more)", g->path,
                      (long long)m->ir_version);
   g->opset = -1;
   for (size_t i = 0; i < m->n_opset_import; i++) {
      const Onnx__OperatorSetIdProto *os = m->opset_import[i];
      if (defaultDomain(os->domain)) {
         if (!os->has_version || os->version < 1 || os->version > 1000)
            return setCause(cause, "%s: the default domain's opset version is missing or absurd",
                            g->path);
         g->opset = (int)os->version;
      }
   }
   if (g->opset < 0)
      g->opset = 1;
   if (g->opset < ONNX_MIN_OPSET || g->opset > ONNX_MAX_OPSET)
      return setCause(cause, "%s: opset %d of the default domain is not supported (%d to %d)",
                      g->path, g->opset, ONNX_MIN_OPSET, ONNX_MAX_OPSET);
   const Onnx__GraphProto *gp = m->graph;
   if (!gp)
      return setCause(cause, "%s: the model has no graph", g->path);
   if (gp->name && *gp->name) {
      free(g->name);
      g->name = xStrdup(gp->name);
   }
   if (gp->n_sparse_initializer)
      return setCause(cause, "%s: sparse initializers are not supported", g->path);
   for (size_t i = 0; i < gp->n_initializer; i++) {
      const Onnx__TensorProto *tp = gp->initializer[i];
      if (!tp->name || !*tp->name)
         return setCause(cause, "%s: initializer %zu has no name", g->path, i);
      char where[512];
      snprintf(where, sizeof where, "%s: initializer '%s'", g->path, tp->name);
      if (addWeight(g, tp->name, tp, where, cause) < 0)
         return -1;
   }
   /* an --input must name an input: checked before any input's dimensions are */
   for (int i = 0; i < ndims; i++) {
      bool found = false;
      for (size_t k = 0; k < gp->n_input && !found; k++) {
         const char *name = gp->input[k]->name;
         found = name && strcmp(name, dims[i].name) == 0 && Graph_findTensor(g, name) < 0;
      }
      if (!found) {
         char *names = xStrdup("");
         for (size_t k = 0; k < gp->n_input; k++) {
            const char *name = gp->input[k]->name ? gp->input[k]->name : "";
            if (Graph_findTensor(g, name) >= 0)
               continue;
            char *more = xAsprintf("%s%s%s", names, *names ? ", " : "", name);
            free(names);
            names = more;
         }
         int rc = setCause(cause, "--input %s: the model has no input of that name (its inputs: %s)",
                           dims[i].name, *names ? names : "none");
         free(names);
         return rc;
      }
   }
   g->inputs = xMalloc(sizeof(int) * (gp->n_input + 1));
   for (size_t i = 0; i < gp->n_input; i++) {
      const Onnx__ValueInfoProto *vi = gp->input[i];
      /* an input that is also an initializer is a weight with an overridable default */
      if (vi->name && Graph_findTensor(g, vi->name) >= 0 &&
          g->t[Graph_findTensor(g, vi->name)].role == GT_WEIGHT)
         continue;
      int ti = inputFromValueInfo(g, vi, dims, ndims, allowOpen, cause);
      if (ti < 0)
         return -1;
      g->inputs[g->ninputs++] = ti;
   }
   for (size_t i = 0; i < gp->n_node; i++)
      if (nodeFromProto(g, gp->node[i], (int)i, cause) < 0)
         return -1;
   if (gp->n_output == 0)
      return setCause(cause, "%s: the graph has no outputs", g->path);
   g->outputs = xMalloc(sizeof(int) * gp->n_output);
   for (size_t i = 0; i < gp->n_output; i++) {
      const char *name = gp->output[i]->name ? gp->output[i]->name : "";
      int ti = Graph_findTensor(g, name);
      if (ti < 0)
         return setCause(cause, "%s: output '%s' is not written by any node", g->path, name);
      g->t[ti].isOutput = true;
      g->outputs[g->noutputs++] = ti;
   }
   return 0;
}

int Onnx_load(Graph *g, const char *path, const OnnxInputDims *dims, int ndims, bool allowOpen,
              char **cause) {
   Graph_init(g, path);
   uint8_t *buf;
   size_t len;
   if (readWhole(path, &buf, &len, cause) < 0)
      return -1;
   Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
   free(buf);
   if (!m)
      return setCause(cause, "%s: not an ONNX model: its %zu bytes do not parse as a ModelProto "
                      "(truncated, or another kind of file)", path, len);
   int rc = loadGraph(g, m, dims, ndims, allowOpen, cause);
   onnx__model_proto__free_unpacked(m, NULL);
   return rc;
}

/* ---- TensorProto files ---- */

int Onnx_readTensor(const char *path, GTensor *t, char **cause) {
   uint8_t *buf;
   size_t len;
   if (readWhole(path, &buf, &len, cause) < 0)
      return -1;
   Onnx__TensorProto *tp = onnx__tensor_proto__unpack(NULL, len, buf);
   free(buf);
   if (!tp)
      return setCause(cause, "%s: not a TensorProto: its %zu bytes do not parse", path, len);
   int rc = tensorFromProto(tp, path, path, t, cause);
   if (rc == 0 && tp->name && *tp->name) {
      free(t->name);
      t->name = xStrdup(tp->name);
   }
   onnx__tensor_proto__free_unpacked(tp, NULL);
   return rc;
}

int Onnx_writeTensor(const char *path, const GTensor *t, const char *name, char **cause) {
   Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
   int64_t dims[GRAPH_MAX_DIMS];
   tp.n_dims = (size_t)(t->ndim > 0 ? t->ndim : 0);
   for (size_t i = 0; i < tp.n_dims; i++)
      dims[i] = t->dims[i];
   tp.dims = dims;
   tp.has_data_type = 1;
   tp.data_type = (int32_t)t->dtype;
   char *nameCopy = xStrdup(name ? name : "");
   tp.name = nameCopy;
   tp.has_raw_data = 1;
   tp.raw_data.len = GTensor_bytes(t);
   tp.raw_data.data = t->data;
   size_t size = onnx__tensor_proto__get_packed_size(&tp);
   uint8_t *buf = xMalloc(size ? size : 1);
   onnx__tensor_proto__pack(&tp, buf);
   free(nameCopy);
   FILE *f = fopen(path, "wb");
   if (!f) {
      free(buf);
      return setCause(cause, "%s: %s", path, strerror(errno));
   }
   size_t wrote = fwrite(buf, 1, size, f);
   int err = ferror(f) ? errno : 0;
   if (fclose(f) != 0 && !err)
      err = errno;
   free(buf);
   if (wrote != size || err)
      return setCause(cause, "%s: %s", path, strerror(err ? err : EIO));
   return 0;
}
