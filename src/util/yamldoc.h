/* A loaded YAML file (libyaml's document API) with typed accessors whose errors name
 * the file, line and column of the offending node, as "FILE:LINE:COL: message".
 * The task-file and devices.yaml loaders are both written on top of this. */
#ifndef HEADER_yamldoc
#define HEADER_yamldoc

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <yaml.h>

#include "util/xalloc.h"

/* What a loader takes before it refuses a file: every limit is checked in one linear
 * pass over the parser's events, before the document is built. */
#define YAMLDOC_MAX_BYTES (16 << 20)  /* the file's size */
#define YAMLDOC_MAX_DEPTH 64          /* lists and mappings inside each other */
#define YAMLDOC_MAX_NODES 1000000     /* scalars, lists and mappings in all */

typedef struct YamlDoc_ {
   char *path;               /* as given, used in messages */
   yaml_document_t doc;
   bool loaded;
} YamlDoc;

/* Loads a file. A missing or unreadable file, a YAML syntax error, an empty file, a
 * file holding more than one document and one past the limits above are errors. */
int YamlDoc_load(YamlDoc *d, const char *path, char **cause);
/* Loads text already in memory; `name` stands for the path in messages. */
int YamlDoc_loadString(YamlDoc *d, const char *name, const char *text, size_t len, char **cause);
void YamlDoc_done(YamlDoc *d);

yaml_node_t *YamlDoc_root(YamlDoc *d);
int YamlDoc_line(const yaml_node_t *n);     /* 1-based */
int YamlDoc_column(const yaml_node_t *n);   /* 1-based */

/* Formats "PATH:LINE:COL: message" for node n into *cause; returns -1. */
int YamlDoc_error(const YamlDoc *d, const yaml_node_t *n, char **cause, const char *fmt, ...)
   ATTR_FORMAT(4, 5);

/* A short description of a node for messages: "a mapping", "a list", "'abc'". */
const char *YamlDoc_describe(const yaml_node_t *n, char *buf, size_t size);

/* The value node of `key` in mapping `map`, or NULL when absent. */
yaml_node_t *YamlDoc_get(YamlDoc *d, yaml_node_t *map, const char *key);
/* The key node of `key` in `map` (for messages about the key itself), or NULL. */
yaml_node_t *YamlDoc_keyNode(YamlDoc *d, yaml_node_t *map, const char *key);

/* Checks that `n` is a mapping whose keys are scalars from `allowed` (a NULL-terminated
 * list), each at most once. `what` names the mapping in messages ("task", "device"). */
int YamlDoc_checkMapping(YamlDoc *d, yaml_node_t *n, const char *const *allowed,
                         const char *what, char **cause);
/* Checks that `n` is a list; `what` names it. */
int YamlDoc_checkList(YamlDoc *d, yaml_node_t *n, const char *what, char **cause);

int YamlDoc_listLength(const yaml_node_t *n);
yaml_node_t *YamlDoc_listItem(YamlDoc *d, yaml_node_t *n, int i);

/* Typed scalar readers. `what` names the value ("weight", "stride") in messages;
 * numbers must be plain (unquoted) scalars within [min, max]. */
int YamlDoc_int(YamlDoc *d, yaml_node_t *n, const char *what, int64_t min, int64_t max,
                int64_t *out, char **cause);
int YamlDoc_double(YamlDoc *d, yaml_node_t *n, const char *what, double min, double max,
                   double *out, char **cause);
int YamlDoc_bool(YamlDoc *d, yaml_node_t *n, const char *what, bool *out, char **cause);
/* A non-empty string scalar of at most maxlen bytes; returns a pointer into the doc. */
int YamlDoc_string(YamlDoc *d, yaml_node_t *n, const char *what, size_t maxlen,
                   const char **out, char **cause);

/* An integer or a list of 1..maxn integers, each in [min, max]; *count gets the length
 * (1 for a bare integer). For fields like `kernel: 3` / `kernel: [3, 1]`. */
int YamlDoc_intList(YamlDoc *d, yaml_node_t *n, const char *what, int maxn, int64_t min,
                    int64_t max, int64_t *out, int *count, char **cause);

/* Writes s as a YAML double-quoted scalar: quotes and backslashes escaped, control
 * characters as \xNN. */
void YamlDoc_writeQuoted(FILE *out, const char *s);

#endif
