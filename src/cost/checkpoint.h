/* Checkpoints of the cost models: one little-endian binary file per model, a header
 * that names the model's kind and then the model's own payload.
 *
 * Layout (integers unsigned unless said, floats IEEE-754 binary32, all little-endian):
 *   byte  0  8 bytes  magic "PTUICKPT"
 *   byte  8  u32      format version, CHECKPOINT_VERSION (2)
 *   byte 12  u32      model kind, ModelKind's number: 0 random, 1 psa, 2 xgb, 3 mlp,
 *                     4 pam, 5 pam-moa
 *   byte 16  u32      header bytes: where the payload starts (28 in version 2; a
 *                     reader skips header fields it does not know, up to there)
 *   byte 20  u32      op kinds: bit k set when the model learned from tasks of op
 *                     kind k (te/op.h's OpKind); 0 when unknown. Bits 24 and up
 *                     (CHECKPOINT_PRECISION_SHIFT): bit 24 + p set when it learned
 *                     from states computing in Precision p (te/precision.h); none
 *                     set in files written before them, which learned FP32 alone
 *   byte 24  u32      CRC-32 (zlib's crc32) of every other byte of the file: bytes 0
 *                     to 23, then byte 28 to the end
 *   byte 28  ...      the payload, which each model's file describes:
 *                     random: u64 seed; psa: nothing; xgb: u64 n, then n bytes of
 *                     XGBoost's own model in UBJSON (n = 0: the model had not learned);
 *                     mlp, pam: one network as cost/neural.h lays it out (u32 x 7
 *                     shape, u32 fitted, the normalization vectors, u32 count and
 *                     each parameter as u32 name length, name, u32 rows, u32 cols,
 *                     f32 values; pam then batch norm's running mean and variance);
 *                     pam-moa: u32 updates, u32 1 when a fast network follows, the
 *                     slow network, then the fast one
 * Format version 1, still read, has no checksum: its header is 20 bytes (the first
 * files) or 24 (with the op kinds) long and nothing checks its payload but its
 * structure. A reader refuses a file with another magic, a version it does not read,
 * a checksum that does not match (any byte changed), an unknown kind, a file that
 * ends early (naming the byte where it ends and what was expected there), bytes after
 * the payload and (the models' loaders) values that are not finite numbers.
 *
 * Writing goes through util/outfile.h: a failed save leaves an earlier checkpoint as
 * it was. */
#ifndef HEADER_checkpoint
#define HEADER_checkpoint

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cost/model.h"
#include "util/outfile.h"

#define CHECKPOINT_MAGIC "PTUICKPT"
#define CHECKPOINT_MAGIC_LEN 8
#define CHECKPOINT_VERSION 2
#define CHECKPOINT_HEADER_BYTES 28     /* written */
#define CHECKPOINT_CRC_AT 24           /* where the checksum is */

/* Reads and checks the header of a file opened at its start (its checksum against
 * the whole file included), and leaves the stream at the payload; -1 with *cause
 * ("PATH: ...") when it is not one this program reads. */
int Checkpoint_readHeader(FILE *f, const char *path, ModelKind *kind, uint32_t *opKinds, char **cause);

/* ---- writing a checkpoint ---- */
typedef struct CheckpointWriter_ {
   FILE *f;                     /* the payload goes here, in memory */
   Outfile out;
} CheckpointWriter;

/* Starts a checkpoint of path with its header; the payload goes to w->f. */
void Checkpoint_create(CheckpointWriter *w, const char *path, ModelKind kind, uint32_t opKinds);
/* Sets the checksum and writes the file (util/outfile.h); -1 with *cause
 * ("PATH: No space left on device") when it cannot. Frees w either way. */
int Checkpoint_commit(CheckpointWriter *w, char **cause);
/* Gives the checkpoint up: nothing is written. */
void Checkpoint_abandon(CheckpointWriter *w);
/* The checksum of a whole checkpoint of n >= CHECKPOINT_HEADER_BYTES bytes: CRC-32 of
 * every byte but the checksum's own four. */
uint32_t Checkpoint_checksum(const unsigned char *bytes, size_t n);

/* Little-endian writers; -1 when the stream failed (Checkpoint_commit reports it). */
int Checkpoint_putU32(FILE *f, uint32_t v);
int Checkpoint_putU64(FILE *f, uint64_t v);
int Checkpoint_putU32s(FILE *f, const uint32_t *v, size_t n);
int Checkpoint_putI32s(FILE *f, const int32_t *v, size_t n);
int Checkpoint_putF32s(FILE *f, const float *v, size_t n);
int Checkpoint_putBytes(FILE *f, const void *v, size_t n);

/* ---- reading a checkpoint ---- */

/* Where the precisions learned start in the op kinds' word. */
#define CHECKPOINT_PRECISION_SHIFT 24
/* The precisions (PRECISION_BITs) a checkpoint's op kinds' word says it learned: FP32
 * alone when it names none. */
unsigned Checkpoint_precisions(uint32_t opKinds);

/* Opens path and reads its header; NULL with *cause when either fails. */
FILE *Checkpoint_open(const char *path, ModelKind *kind, uint32_t *opKinds, char **cause);
/* The shipped checkpoint of that kind (models/NAME.ckpt in the data directories, as
 * Paths_dataFile finds them; the first directory that has models/ is searched) that
 * has learned from every op kind of `opKinds` (a bit mask of OpKind), the first by
 * name; NULL when none has (or none ships). Files that do not read as checkpoints are
 * passed over. Caller frees. */
char *Checkpoint_findShipped(ModelKind kind, uint32_t opKinds);
/* Little-endian readers. `what` names the value for the message when the file ends
 * early: "PATH: cut short at byte N (expected WHAT, B bytes from byte M)". */
int Checkpoint_getU32(FILE *f, const char *path, const char *what, uint32_t *v, char **cause);
int Checkpoint_getU64(FILE *f, const char *path, const char *what, uint64_t *v, char **cause);
int Checkpoint_getU32s(FILE *f, const char *path, const char *what, uint32_t *v, size_t n, char **cause);
int Checkpoint_getI32s(FILE *f, const char *path, const char *what, int32_t *v, size_t n, char **cause);
int Checkpoint_getF32s(FILE *f, const char *path, const char *what, float *v, size_t n, char **cause);
int Checkpoint_getBytes(FILE *f, const char *path, const char *what, void *v, size_t n, char **cause);
/* The bytes from the stream's position to the end of the file (-1 when unknown). */
int64_t Checkpoint_remaining(FILE *f);
/* Checks that `bytes` more bytes follow, with the message of a file cut short when
 * not: for a size read from the file, before allocating for it. */
int Checkpoint_expect(FILE *f, const char *path, const char *what, uint64_t bytes, char **cause);
/* Checks that nothing follows the payload: "PATH: N bytes after the end of the
 * model (a damaged or foreign file?)". */
int Checkpoint_getEnd(FILE *f, const char *path, char **cause);

#endif
