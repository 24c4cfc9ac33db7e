/* The checkpoint file format (cost/checkpoint.h): its header and the little-endian
 * readers and writers the models build their payloads from. */
#include "config.h"

#include "cost/checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/paths.h"
#include "util/xalloc.h"

/* Values go through this many bytes at a time on their way to and from the file. */
#define CHUNK 1024

static void storeU32(unsigned char *p, uint32_t v) {
   for (int i = 0; i < 4; i++)
      p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t loadU32(const unsigned char *p) {
   return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- writing ---- */

int Checkpoint_putBytes(FILE *f, const void *v, size_t n) {
   return fwrite(v, 1, n, f) == n ? 0 : -1;
}

/* Any array of 4-byte values, each written as the u32 of its bits. */
static int putWords(FILE *f, const void *v, size_t n) {
   unsigned char buf[CHUNK * 4];
   const unsigned char *p = v;
   while (n > 0) {
      size_t k = n < CHUNK ? n : CHUNK;
      for (size_t i = 0; i < k; i++) {
         uint32_t w;
         memcpy(&w, p + 4 * i, 4);
         storeU32(buf + 4 * i, w);
      }
      if (Checkpoint_putBytes(f, buf, 4 * k) < 0)
         return -1;
      p += 4 * k;
      n -= k;
   }
   return 0;
}

_Static_assert(sizeof(float) == 4 && sizeof(int32_t) == 4, "checkpoints store 4-byte values");

int Checkpoint_putU32s(FILE *f, const uint32_t *v, size_t n) {
   return putWords(f, v, n);
}

int Checkpoint_putI32s(FILE *f, const int32_t *v, size_t n) {
   return putWords(f, v, n);
}

int Checkpoint_putF32s(FILE *f, const float *v, size_t n) {
   return putWords(f, v, n);
}

int Checkpoint_putU32(FILE *f, uint32_t v) {
   return putWords(f, &v, 1);
}

int Checkpoint_putU64(FILE *f, uint64_t v) {
   uint32_t half[2] = { (uint32_t)v, (uint32_t)(v >> 32) };
   return putWords(f, half, 2);
}

int Checkpoint_writeHeader(FILE *f, ModelKind kind, uint32_t opKinds) {
   uint32_t fields[4] = { CHECKPOINT_VERSION, (uint32_t)kind, CHECKPOINT_HEADER_BYTES, opKinds };
   if (Checkpoint_putBytes(f, CHECKPOINT_MAGIC, CHECKPOINT_MAGIC_LEN) < 0)
      return -1;
   return Checkpoint_putU32s(f, fields, 4);
}

int Checkpoint_create(CheckpointWriter *w, const char *path, ModelKind kind, uint32_t opKinds, char **cause) {
   w->path = xStrdup(path);
   w->tmpPath = xAsprintf("%s.tmp", path);
   w->f = fopen(w->tmpPath, "wb");
   if (!w->f) {
      setCause(cause, "%s: cannot create: %s", w->tmpPath, strerror(errno));
      free(w->path);
      free(w->tmpPath);
      w->path = w->tmpPath = NULL;
      return -1;
   }
   Checkpoint_writeHeader(w->f, kind, opKinds);
   return 0;
}

static void forget(CheckpointWriter *w) {
   free(w->path);
   free(w->tmpPath);
   w->f = NULL;
   w->path = w->tmpPath = NULL;
}

int Checkpoint_commit(CheckpointWriter *w, char **cause) {
   int rc = 0;
   errno = 0;
   bool failed = fflush(w->f) != 0 || ferror(w->f);
   int err = errno;
   if (fclose(w->f) != 0 && !failed) {
      failed = true;
      err = errno;
   }
   if (failed)
      rc = setCause(cause, "%s: cannot write: %s", w->tmpPath, strerror(err ? err : EIO));
   else if (rename(w->tmpPath, w->path) != 0)
      rc = setCause(cause, "%s: cannot replace it with %s: %s", w->path, w->tmpPath, strerror(errno));
   if (rc < 0)
      remove(w->tmpPath);
   forget(w);
   return rc;
}

void Checkpoint_abandon(CheckpointWriter *w) {
   if (!w->f)
      return;
   fclose(w->f);
   remove(w->tmpPath);
   forget(w);
}

/* ---- reading ---- */

int64_t Checkpoint_remaining(FILE *f) {
   struct stat st;
   off_t at = ftello(f);
   if (at < 0 || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))
      return -1;
   return st.st_size > at ? (int64_t)(st.st_size - at) : 0;
}

int Checkpoint_expect(FILE *f, const char *path, const char *what, uint64_t bytes, char **cause) {
   int64_t left = Checkpoint_remaining(f);
   if (left < 0 || (uint64_t)left >= bytes)
      return 0;
   long long at = (long long)ftello(f);
   return setCause(cause, "%s: cut short at byte %lld (expected %s, %llu bytes from byte %lld)", path, at + left,
                   what, (unsigned long long)bytes, at);
}

int Checkpoint_getBytes(FILE *f, const char *path, const char *what, void *v, size_t n, char **cause) {
   if (Checkpoint_expect(f, path, what, n, cause) < 0)
      return -1;
   if (fread(v, 1, n, f) == n)
      return 0;
   if (ferror(f))
      return setCause(cause, "%s: cannot read: %s", path, strerror(errno));
   /* not a regular file, and it ended */
   return setCause(cause, "%s: cut short (expected %s, %zu bytes)", path, what, n);
}

/* Any array of 4-byte values, each read as the u32 of its bits. */
static int getWords(FILE *f, const char *path, const char *what, void *v, size_t n, char **cause) {
   if (Checkpoint_expect(f, path, what, (uint64_t)n * 4, cause) < 0)
      return -1;
   unsigned char buf[CHUNK * 4];
   unsigned char *p = v;
   while (n > 0) {
      size_t k = n < CHUNK ? n : CHUNK;
      if (Checkpoint_getBytes(f, path, what, buf, 4 * k, cause) < 0)
         return -1;
      for (size_t i = 0; i < k; i++) {
         uint32_t w = loadU32(buf + 4 * i);
         memcpy(p + 4 * i, &w, 4);
      }
      p += 4 * k;
      n -= k;
   }
   return 0;
}

int Checkpoint_getU32s(FILE *f, const char *path, const char *what, uint32_t *v, size_t n, char **cause) {
   return getWords(f, path, what, v, n, cause);
}

int Checkpoint_getI32s(FILE *f, const char *path, const char *what, int32_t *v, size_t n, char **cause) {
   return getWords(f, path, what, v, n, cause);
}

int Checkpoint_getF32s(FILE *f, const char *path, const char *what, float *v, size_t n, char **cause) {
   return getWords(f, path, what, v, n, cause);
}

int Checkpoint_getU32(FILE *f, const char *path, const char *what, uint32_t *v, char **cause) {
   return getWords(f, path, what, v, 1, cause);
}

int Checkpoint_getU64(FILE *f, const char *path, const char *what, uint64_t *v, char **cause) {
   uint32_t half[2];
   if (getWords(f, path, what, half, 2, cause) < 0)
      return -1;
   *v = (uint64_t)half[0] | (uint64_t)half[1] << 32;
   return 0;
}

int Checkpoint_getEnd(FILE *f, const char *path, char **cause) {
   int64_t left = Checkpoint_remaining(f);
   if (left > 0)
      return setCause(cause, "%s: %lld bytes after the end of the model (a damaged or foreign file?)", path,
                      (long long)left);
   return 0;
}

int Checkpoint_readHeader(FILE *f, const char *path, ModelKind *kind, uint32_t *opKinds, char **cause) {
   char magic[CHECKPOINT_MAGIC_LEN];
   size_t got = fread(magic, 1, sizeof magic, f);
   if (ferror(f))
      return setCause(cause, "%s: cannot read: %s", path, strerror(errno));
   /* a file that starts differently is some other file, however short it is */
   if (memcmp(magic, CHECKPOINT_MAGIC, got) != 0)
      return setCause(cause, "%s: not a pruner-tui checkpoint (bad magic)", path);
   if (got < sizeof magic)
      return setCause(cause, "%s: cut short at byte %zu (expected the magic \"%s\", %d bytes from byte 0)", path,
                      got, CHECKPOINT_MAGIC, CHECKPOINT_MAGIC_LEN);
   uint32_t version, k, headerBytes;
   if (Checkpoint_getU32(f, path, "the format version", &version, cause) < 0)
      return -1;
   if (version > CHECKPOINT_VERSION)
      return setCause(cause, "%s: checkpoint format version %u is newer than this program reads (%d)", path,
                      version, CHECKPOINT_VERSION);
   if (version == 0)
      return setCause(cause, "%s: checkpoint format version 0 is not one this program reads (%d)", path,
                      CHECKPOINT_VERSION);
   if (Checkpoint_getU32(f, path, "the model kind", &k, cause) < 0)
      return -1;
   if (k >= MODEL_KIND_COUNT)
      return setCause(cause, "%s: unknown model kind %u", path, k);
   if (Checkpoint_getU32(f, path, "the header's length", &headerBytes, cause) < 0)
      return -1;
   if (headerBytes < CHECKPOINT_HEADER_MIN)
      return setCause(cause, "%s: a header of %u bytes is shorter than the %d of format version %d", path,
                      headerBytes, CHECKPOINT_HEADER_MIN, CHECKPOINT_VERSION);
   *opKinds = 0;
   if (headerBytes >= CHECKPOINT_HEADER_BYTES &&
       Checkpoint_getU32(f, path, "the op kinds", opKinds, cause) < 0)
      return -1;
   /* header fields of a later revision of this version: skipped */
   uint32_t extra = headerBytes - (headerBytes >= CHECKPOINT_HEADER_BYTES ? CHECKPOINT_HEADER_BYTES : CHECKPOINT_HEADER_MIN);
   if (Checkpoint_expect(f, path, "the rest of the header", extra, cause) < 0)
      return -1;
   if (extra > 0 && fseeko(f, extra, SEEK_CUR) != 0)
      return setCause(cause, "%s: cannot read: %s", path, strerror(errno));
   *kind = (ModelKind)k;
   return 0;
}

FILE *Checkpoint_open(const char *path, ModelKind *kind, uint32_t *opKinds, char **cause) {
   FILE *f = fopen(path, "rb");
   if (!f) {
      setCause(cause, "%s: cannot open: %s", path, strerror(errno));
      return NULL;
   }
   if (Checkpoint_readHeader(f, path, kind, opKinds, cause) < 0) {
      fclose(f);
      return NULL;
   }
   return f;
}

static int byName(const void *a, const void *b) {
   return strcmp(*(char *const *)a, *(char *const *)b);
}

char *Checkpoint_findShipped(ModelKind kind, uint32_t opKinds) {
   char *dir = Paths_dataFile("models");
   DIR *d = dir ? opendir(dir) : NULL;
   if (!d) {
      free(dir);
      return NULL;
   }
   int n = 0, cap = 0;
   char **names = NULL;
   for (struct dirent *ent; (ent = readdir(d));) {
      size_t len = strlen(ent->d_name);
      if (len <= 5 || strcmp(ent->d_name + len - 5, ".ckpt") != 0)
         continue;
      if (n == cap) {
         cap = cap ? 2 * cap : 8;
         names = xRealloc(names, (size_t)cap * sizeof *names);
      }
      names[n++] = xStrdup(ent->d_name);
   }
   closedir(d);
   if (n > 1)
      qsort(names, (size_t)n, sizeof *names, byName);
   char *found = NULL;
   for (int i = 0; i < n; i++) {
      char *path = xAsprintf("%s/%s", dir, names[i]);
      ModelKind k;
      uint32_t learned;
      char *cause = NULL;
      FILE *f = found ? NULL : Checkpoint_open(path, &k, &learned, &cause);
      free(cause);
      if (f) {
         fclose(f);
         if (k == kind && learned != 0 && (learned & opKinds) == opKinds) {
            found = path;
            path = NULL;
         }
      }
      free(path);
      free(names[i]);
   }
   free(names);
   free(dir);
   return found;
}
