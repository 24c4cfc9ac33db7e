/* YAML documents with positioned error messages, on libyaml's document API. */
#include "config.h"

#include "util/yamldoc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/paths.h"

static int parserError(const char *path, yaml_parser_t *p, char **cause) {
   const char *problem = p->problem ? p->problem : "unreadable YAML";
   if (p->error == YAML_READER_ERROR)
      return setCause(cause, "%s: %s (byte %zu); expected UTF-8 text", path, problem,
                      p->problem_offset);
   if (p->context)
      return setCause(cause, "%s:%zu:%zu: YAML syntax error: %s (%s at line %zu)", path,
                      p->problem_mark.line + 1, p->problem_mark.column + 1, problem,
                      p->context, p->context_mark.line + 1);
   return setCause(cause, "%s:%zu:%zu: YAML syntax error: %s", path,
                   p->problem_mark.line + 1, p->problem_mark.column + 1, problem);
}

static int loadDocument(YamlDoc *d, const char *name, yaml_parser_t *p, char **cause) {
   if (!yaml_parser_load(p, &d->doc))
      return parserError(name, p, cause);
   d->loaded = true;
   if (!yaml_document_get_root_node(&d->doc))
      return setCause(cause, "%s:1:1: empty file; expected a YAML mapping", name);
   yaml_document_t extra;
   if (!yaml_parser_load(p, &extra))
      return parserError(name, p, cause);
   bool more = yaml_document_get_root_node(&extra) != NULL;
   int line = more ? (int)extra.start_mark.line + 1 : 0;
   yaml_document_delete(&extra);
   if (more)
      return setCause(cause, "%s:%d:1: a second YAML document; expected one document per file",
                      name, line);
   return 0;
}

/* The limits, in one pass over the events before the document is built. Counting as
 * the events come also bounds libyaml's scanner, whose work per token grows with the
 * depth of open brackets: it stops at the first bracket past the limit. */
static int checkLimits(const char *name, const char *text, size_t len, char **cause) {
   yaml_parser_t p;
   yaml_parser_initialize(&p);
   yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
   int depth = 0, rc = 0;
   long nodes = 0;
   for (bool end = false; !end && rc == 0;) {
      yaml_event_t e;
      if (!yaml_parser_parse(&p, &e)) {
         rc = parserError(name, &p, cause);
         break;
      }
      size_t line = e.start_mark.line + 1, column = e.start_mark.column + 1;
      switch (e.type) {
      case YAML_SEQUENCE_START_EVENT:
      case YAML_MAPPING_START_EVENT:
         if (++depth > YAMLDOC_MAX_DEPTH)
            rc = setCause(cause, "%s:%zu:%zu: nesting deeper than %d", name, line, column,
                          YAMLDOC_MAX_DEPTH);
         /* fall through */
      case YAML_SCALAR_EVENT:
      case YAML_ALIAS_EVENT:
         if (rc == 0 && ++nodes > YAMLDOC_MAX_NODES)
            rc = setCause(cause, "%s:%zu:%zu: more than %d values", name, line, column,
                          YAMLDOC_MAX_NODES);
         break;
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT:
         depth--;
         break;
      case YAML_STREAM_END_EVENT:
         end = true;
         break;
      default:
         break;
      }
      yaml_event_delete(&e);
   }
   yaml_parser_delete(&p);
   return rc;
}

static int loadFrom(YamlDoc *d, const char *name, const char *text, size_t len, char **cause) {
   memset(d, 0, sizeof *d);
   d->path = xStrdup(name);
   if (len > YAMLDOC_MAX_BYTES)
      return setCause(cause, "%s: over %d bytes, the most a YAML file may have", name,
                      YAMLDOC_MAX_BYTES);
   if (checkLimits(name, text, len, cause) < 0)
      return -1;
   yaml_parser_t p;
   yaml_parser_initialize(&p);
   yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
   int rc = loadDocument(d, name, &p, cause);
   yaml_parser_delete(&p);
   return rc;
}

int YamlDoc_load(YamlDoc *d, const char *path, char **cause) {
   size_t len;
   char *text = Paths_readFile(path, YAMLDOC_MAX_BYTES, "a YAML file", &len, cause);
   if (!text) {
      memset(d, 0, sizeof *d);
      return -1;
   }
   int rc = loadFrom(d, path, text, len, cause);
   free(text);
   return rc;
}

int YamlDoc_loadString(YamlDoc *d, const char *name, const char *text, size_t len,
                       char **cause) {
   return loadFrom(d, name, text, len, cause);
}

void YamlDoc_done(YamlDoc *d) {
   if (d->loaded)
      yaml_document_delete(&d->doc);
   free(d->path);
   memset(d, 0, sizeof *d);
}

yaml_node_t *YamlDoc_root(YamlDoc *d) {
   return yaml_document_get_root_node(&d->doc);
}

int YamlDoc_line(const yaml_node_t *n) {
   return (int)n->start_mark.line + 1;
}

int YamlDoc_column(const yaml_node_t *n) {
   return (int)n->start_mark.column + 1;
}

int YamlDoc_error(const YamlDoc *d, const yaml_node_t *n, char **cause, const char *fmt, ...) {
   if (!cause)
      return -1;
   va_list ap;
   va_start(ap, fmt);
   char *msg = xVasprintf(fmt, ap);
   va_end(ap);
   *cause = xAsprintf("%s:%d:%d: %s", d->path, YamlDoc_line(n), YamlDoc_column(n), msg);
   free(msg);
   return -1;
}

static const char *scalarText(const yaml_node_t *n) {
   return n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

const char *YamlDoc_describe(const yaml_node_t *n, char *buf, size_t size) {
   switch (n->type) {
   case YAML_MAPPING_NODE:
      return "a mapping";
   case YAML_SEQUENCE_NODE:
      return "a list";
   case YAML_SCALAR_NODE:
      if (n->data.scalar.length == 0)
         return "nothing";
      if (n->data.scalar.length > 40)
         snprintf(buf, size, "'%.37s...'", scalarText(n));
      else
         snprintf(buf, size, "'%s'", scalarText(n));
      return buf;
   default:
      return "nothing";
   }
}

static yaml_node_pair_t *findPair(YamlDoc *d, yaml_node_t *map, const char *key) {
   if (!map || map->type != YAML_MAPPING_NODE)
      return NULL;
   for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
      const char *k = scalarText(yaml_document_get_node(&d->doc, p->key));
      if (k && strcmp(k, key) == 0)
         return p;
   }
   return NULL;
}

yaml_node_t *YamlDoc_get(YamlDoc *d, yaml_node_t *map, const char *key) {
   yaml_node_pair_t *p = findPair(d, map, key);
   return p ? yaml_document_get_node(&d->doc, p->value) : NULL;
}

yaml_node_t *YamlDoc_keyNode(YamlDoc *d, yaml_node_t *map, const char *key) {
   yaml_node_pair_t *p = findPair(d, map, key);
   return p ? yaml_document_get_node(&d->doc, p->key) : NULL;
}

static char *joinList(const char *const *items) {
   size_t len = 1;
   for (const char *const *s = items; *s; s++)
      len += strlen(*s) + 2;
   char *out = xMalloc(len);
   out[0] = '\0';
   for (const char *const *s = items; *s; s++) {
      if (s != items)
         strcat(out, ", ");
      strcat(out, *s);
   }
   return out;
}

int YamlDoc_checkMapping(YamlDoc *d, yaml_node_t *n, const char *const *allowed,
                         const char *what, char **cause) {
   char buf[64];
   if (n->type != YAML_MAPPING_NODE)
      return YamlDoc_error(d, n, cause, "expected %s as a mapping of keys to values, found %s",
                           what, YamlDoc_describe(n, buf, sizeof buf));
   for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
      yaml_node_t *kn = yaml_document_get_node(&d->doc, p->key);
      const char *k = scalarText(kn);
      if (!k)
         return YamlDoc_error(d, kn, cause, "expected a key name in %s, found %s", what,
                              YamlDoc_describe(kn, buf, sizeof buf));
      bool known = false;
      for (const char *const *a = allowed; *a && !known; a++)
         known = strcmp(*a, k) == 0;
      if (!known) {
         char *list = joinList(allowed);
         YamlDoc_error(d, kn, cause, "unknown key '%s' in %s; expected one of: %s", k, what, list);
         free(list);
         return -1;
      }
      for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++) {
         const char *k2 = scalarText(yaml_document_get_node(&d->doc, q->key));
         if (k2 && strcmp(k2, k) == 0) {
            yaml_node_t *first = yaml_document_get_node(&d->doc, q->key);
            return YamlDoc_error(d, kn, cause, "key '%s' appears twice in %s (first at line %d)",
                                 k, what, YamlDoc_line(first));
         }
      }
   }
   return 0;
}

int YamlDoc_checkList(YamlDoc *d, yaml_node_t *n, const char *what, char **cause) {
   char buf[64];
   if (n->type != YAML_SEQUENCE_NODE)
      return YamlDoc_error(d, n, cause, "expected %s as a list, found %s", what,
                           YamlDoc_describe(n, buf, sizeof buf));
   return 0;
}

int YamlDoc_listLength(const yaml_node_t *n) {
   if (n->type != YAML_SEQUENCE_NODE)
      return 0;
   return (int)(n->data.sequence.items.top - n->data.sequence.items.start);
}

yaml_node_t *YamlDoc_listItem(YamlDoc *d, yaml_node_t *n, int i) {
   return yaml_document_get_node(&d->doc, n->data.sequence.items.start[i]);
}

/* A number must be a plain scalar: a quoted '3' is a string, and saying so helps. */
static const char *plainScalar(YamlDoc *d, yaml_node_t *n, const char *what, const char *kind,
                               char **cause) {
   char buf[64];
   if (n->type != YAML_SCALAR_NODE || n->data.scalar.length == 0) {
      YamlDoc_error(d, n, cause, "expected %s for %s, found %s", kind, what,
                    YamlDoc_describe(n, buf, sizeof buf));
      return NULL;
   }
   if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
      YamlDoc_error(d, n, cause, "expected %s for %s, found the quoted string %s", kind, what,
                    YamlDoc_describe(n, buf, sizeof buf));
      return NULL;
   }
   return scalarText(n);
}

int YamlDoc_int(YamlDoc *d, yaml_node_t *n, const char *what, int64_t min, int64_t max,
                int64_t *out, char **cause) {
   const char *s = plainScalar(d, n, what, "an integer", cause);
   if (!s)
      return -1;
   char buf[64];
   errno = 0;
   char *end;
   long long v = strtoll(s, &end, 10);
   if (end == s || *end != '\0')
      return YamlDoc_error(d, n, cause, "expected an integer for %s, found %s", what,
                           YamlDoc_describe(n, buf, sizeof buf));
   if (errno == ERANGE || v < min || v > max) {
      if (max == INT64_MAX)
         return YamlDoc_error(d, n, cause, "%s must be at least %lld, found %s", what,
                              (long long)min, s);
      return YamlDoc_error(d, n, cause, "%s must be between %lld and %lld, found %s", what,
                           (long long)min, (long long)max, s);
   }
   *out = v;
   return 0;
}

int YamlDoc_double(YamlDoc *d, yaml_node_t *n, const char *what, double min, double max,
                   double *out, char **cause) {
   const char *s = plainScalar(d, n, what, "a number", cause);
   if (!s)
      return -1;
   char buf[64];
   char *end;
   double v = strtod(s, &end);
   if (end == s || *end != '\0' || !isfinite(v))
      return YamlDoc_error(d, n, cause, "expected a number for %s, found %s", what,
                           YamlDoc_describe(n, buf, sizeof buf));
   if (v < min || v > max)
      return YamlDoc_error(d, n, cause, "%s must be between %g and %g, found %s", what, min,
                           max, s);
   *out = v;
   return 0;
}

int YamlDoc_bool(YamlDoc *d, yaml_node_t *n, const char *what, bool *out, char **cause) {
   const char *s = plainScalar(d, n, what, "true or false", cause);
   if (!s)
      return -1;
   char buf[64];
   if (strcmp(s, "true") == 0)
      *out = true;
   else if (strcmp(s, "false") == 0)
      *out = false;
   else
      return YamlDoc_error(d, n, cause, "expected true or false for %s, found %s", what,
                           YamlDoc_describe(n, buf, sizeof buf));
   return 0;
}

int YamlDoc_string(YamlDoc *d, yaml_node_t *n, const char *what, size_t maxlen,
                   const char **out, char **cause) {
   char buf[64];
   if (n->type != YAML_SCALAR_NODE || n->data.scalar.length == 0)
      return YamlDoc_error(d, n, cause, "expected a string for %s, found %s", what,
                           YamlDoc_describe(n, buf, sizeof buf));
   if (n->data.scalar.length > maxlen)
      return YamlDoc_error(d, n, cause, "%s is longer than %zu characters", what, maxlen);
   if (strlen(scalarText(n)) != n->data.scalar.length)
      return YamlDoc_error(d, n, cause, "%s contains a NUL character", what);
   *out = scalarText(n);
   return 0;
}

int YamlDoc_intList(YamlDoc *d, yaml_node_t *n, const char *what, int maxn, int64_t min,
                    int64_t max, int64_t *out, int *count, char **cause) {
   if (n->type == YAML_SCALAR_NODE) {
      *count = 1;
      return YamlDoc_int(d, n, what, min, max, &out[0], cause);
   }
   int len = YamlDoc_listLength(n);
   char buf[64];
   if (n->type != YAML_SEQUENCE_NODE || len < 1 || len > maxn) {
      if (maxn == 1)
         return YamlDoc_error(d, n, cause, "expected an integer for %s, found %s", what,
                              YamlDoc_describe(n, buf, sizeof buf));
      if (n->type == YAML_SEQUENCE_NODE)
         return YamlDoc_error(d, n, cause, "expected 1 to %d integers for %s, found %d", maxn,
                              what, len);
      return YamlDoc_error(d, n, cause, "expected an integer or a list of up to %d integers for %s, found %s",
                           maxn, what, YamlDoc_describe(n, buf, sizeof buf));
   }
   for (int i = 0; i < len; i++)
      if (YamlDoc_int(d, YamlDoc_listItem(d, n, i), what, min, max, &out[i], cause) < 0)
         return -1;
   *count = len;
   return 0;
}

void YamlDoc_writeQuoted(FILE *out, const char *s) {
   fputc('"', out);
   for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
      if (*p == '"' || *p == '\\')
         fprintf(out, "\\%c", *p);
      else if (*p < 0x20 || *p == 0x7f)
         fprintf(out, "\\x%02x", *p);
      else
         fputc(*p, out);
   }
   fputc('"', out);
}
