/* Writing an output file so that nothing is lost or clobbered. The bytes are made in
 * memory first; then a regular file (or one that does not exist yet) is replaced as a
 * whole: the bytes go to a temporary file of a unique name in its directory, synced
 * and renamed over it only when every one of them was written, so a failed write
 * leaves what was there as it was. A symbolic link stays a link: the file it leads to
 * is replaced. A device or a FIFO (/dev/null, a pipe) is written through, never
 * renamed over. Every failure (a full disk, a read-only directory) comes back as
 * "PATH: what the system said", with no temporary file left behind. */
#ifndef HEADER_outfile
#define HEADER_outfile

#include <stddef.h>
#include <stdio.h>

/* Writes n bytes as the file path, as above; 0, or -1 with *cause. */
int Outfile_write(const char *path, const void *data, size_t n, char **cause);

/* A stream in memory whose bytes Outfile_commit writes as Outfile_write does. */
typedef struct Outfile_ {
   FILE *f;
   char *path;
   char *buf;                   /* the bytes so far, valid after fflush(f) */
   size_t len;
} Outfile;

void Outfile_open(Outfile *o, const char *path);
/* Writes the bytes to o->path and frees the stream; 0, or -1 with *cause. */
int Outfile_commit(Outfile *o, char **cause);
/* Frees the stream without writing anything. */
void Outfile_abandon(Outfile *o);

#endif
