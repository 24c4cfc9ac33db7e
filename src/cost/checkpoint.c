/* The checkpoint file format (cost/checkpoint.h): its header and the little-endian
 * readers and writers the models build their payloads from. */
#include "config.h"

#include "cost/checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "te/precision.h"
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

uint32_t Checkpoint_checksum(const unsigned char *bytes, size_t n) {
   uLong crc = crc32(crc32(0L, Z_NULL, 0), bytes, CHECKPOINT_CRC_AT);
   return (uint32_t)crc32_z(crc, bytes + CHECKPOINT_HEADER_BYTES, n - CHECKPOINT_HEADER_BYTES);
}

void Checkpoint_create(CheckpointWriter *w, const char *path, ModelKind kind, uint32_t opKinds) {
   Outfile_open(&w->out, path);
   w->f = w->out.f;
   /* the checksum is set when the payload is complete */
   uint32_t fields[5] = { CHECKPOINT_VERSION, (uint32_t)kind, CHECKPOINT_HEADER_BYTES, opKinds, 0 };
   Checkpoint_putBytes(w->f, CHECKPOINT_MAGIC, CHECKPOINT_MAGIC_LEN);
   Checkpoint_putU32s(w->f, fields, 5);
}

int Checkpoint_commit(CheckpointWriter *w, char **cause) {
   /* once flushed, the stream's bytes are w->out.buf, its own, which the checksum is
    * written into in place (a seek back and a write would end the stream there) */
   fflush(w->f);
   unsigned char *bytes = (unsigned char *)w->out.buf;
   storeU32(bytes + CHECKPOINT_CRC_AT, Checkpoint_checksum(bytes, w->out.len));
   w->f = NULL;
   return Outfile_commit(&w->out, cause);
}

void Checkpoint_abandon(CheckpointWriter *w) {
   Outfile_abandon(&w->out);
   w->f = NULL;
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

/* Checks the checksum of a file of format version 2 against its bytes and leaves the
 * stream after the header's fixed fields. */
static int checkSum(FILE *f, const char *path, uint32_t want, char **cause) {
   unsigned char buf[CHUNK * 16];
   uLong crc = crc32(0L, Z_NULL, 0);
   bool read = fseeko(f, 0, SEEK_SET) == 0 && fread(buf, 1, CHECKPOINT_CRC_AT, f) == CHECKPOINT_CRC_AT &&
               fseeko(f, CHECKPOINT_HEADER_BYTES, SEEK_SET) == 0;
   if (read) {
      crc = crc32(crc, buf, CHECKPOINT_CRC_AT);
      for (size_t got; (got = fread(buf, 1, sizeof buf, f)) > 0;)
         crc = crc32_z(crc, buf, got);
      read = !ferror(f) && fseeko(f, CHECKPOINT_HEADER_BYTES, SEEK_SET) == 0;
   }
   if (!read)
      return setCause(cause, "%s: cannot read: %s", path, strerror(errno));
   if ((uint32_t)crc != want)
      return setCause(cause, "%s: checksum mismatch: the file is damaged (its bytes make CRC-32 %08x, its header "
                      "says %08x)", path, (unsigned)crc, (unsigned)want);
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
      return setCause(cause, "%s: checkpoint format version %u is newer than this program reads (versions 1 and %d)", path,
                      version, CHECKPOINT_VERSION);
   if (version == 0)
      return setCause(cause, "%s: checkpoint format version 0 is not one this program reads (versions 1 and %d)", path,
                      CHECKPOINT_VERSION);
   if (Checkpoint_getU32(f, path, "the model kind", &k, cause) < 0 ||
       Checkpoint_getU32(f, path, "the header's length", &headerBytes, cause) < 0)
      return -1;
   /* version 1: 20 bytes, or 24 with the op kinds; version 2: 28 at least */
   uint32_t fixed = version == 1 ? (headerBytes == 24 ? 24 : 20) : CHECKPOINT_HEADER_BYTES;
   *opKinds = 0;
   if (fixed > 20 && Checkpoint_getU32(f, path, "the op kinds", opKinds, cause) < 0)
      return -1;
   uint32_t crc;
   if (version > 1 && (Checkpoint_getU32(f, path, "the checksum", &crc, cause) < 0 ||
                       checkSum(f, path, crc, cause) < 0))
      return -1;
   if (k >= MODEL_KIND_COUNT)
      return setCause(cause, "%s: unknown model kind %u", path, k);
   if (version == 1 && headerBytes != fixed)
      return setCause(cause, "%s: a header of %u bytes is not one of format version 1 (20 or 24)", path,
                      headerBytes);
   if (headerBytes < fixed)
      return setCause(cause, "%s: a header of %u bytes is shorter than the %u of format version %u", path,
                      headerBytes, fixed, version);
   /* header fields of a later revision of this version: skipped */
   uint32_t extra = headerBytes - fixed;
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

unsigned Checkpoint_precisions(uint32_t opKinds) {
   unsigned p = (opKinds >> CHECKPOINT_PRECISION_SHIFT) & ((1u << PRECISION_COUNT) - 1);
   return p ? p : PRECISION_BIT(PRECISION_FP32);
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
