/* Output files written as a whole or not at all (util/outfile.h). */
#include "config.h"

#include "util/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/jsonl.h"
#include "util/xalloc.h"

/* Links followed before giving up, as the kernel's own limit (ELOOP) */
#define MAX_LINKS 40

/* The file that path's symbolic links lead to (path itself when it is no link), which
 * need not exist; *st gets its status and *exists whether it does. NULL with *cause
 * when the chain cannot be followed. */
static char *resolveLinks(const char *path, struct stat *st, bool *exists, char **cause) {
   char *target = xStrdup(path);
   for (int hops = 0;; hops++) {
      if (lstat(target, st) != 0) {
         if (errno == ENOENT) {
            *exists = false;
            return target;
         }
         break;
      }
      if (!S_ISLNK(st->st_mode)) {
         *exists = true;
         return target;
      }
      errno = ELOOP;
      char link[4096];
      ssize_t len = hops < MAX_LINKS ? readlink(target, link, sizeof link - 1) : -1;
      if (len < 0)
         break;
      link[len] = '\0';
      const char *slash = strrchr(target, '/');
      char *next = link[0] == '/' || !slash ? xStrdup(link)
                                            : xAsprintf("%.*s/%s", (int)(slash - target), target, link);
      free(target);
      target = next;
   }
   setCause(cause, "%s: %s", path, strerror(errno));
   free(target);
   return NULL;
}

/* The mode open(2) gives a new file of mode 0666: what the umask leaves of it. The
 * umask is read from /proc, as umask(2) would change it under other threads' feet
 * while it is asked. */
static mode_t newFileMode(void) {
   unsigned mask = 022;
   FILE *f = fopen("/proc/self/status", "re");
   char line[256];
   while (f && fgets(line, sizeof line, f))
      if (sscanf(line, "Umask: %o", &mask) == 1)
         break;
   if (f)
      fclose(f);
   return (mode_t)(0666 & ~mask);
}

/* Syncs the directory that holds path, so that a rename in it outlives a crash; a
 * file system that cannot sync directories is passed over. */
static void syncDirectoryOf(const char *path) {
   const char *slash = strrchr(path, '/');
   char *dir = !slash ? xStrdup(".") : slash == path ? xStrdup("/") : xStrndup(path, (size_t)(slash - path));
   int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
   if (fd >= 0) {
      fsync(fd);
      close(fd);
   }
   free(dir);
}

/* A device or a FIFO: written in place. */
static int writeThrough(const char *path, const char *target, const struct stat *st, const void *data, size_t n,
                        char **cause) {
   if (S_ISDIR(st->st_mode))
      return setCause(cause, "%s: %s", path, strerror(EISDIR));
   int fd = open(target, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
   if (fd < 0)
      return setCause(cause, "%s: %s", path, strerror(errno));
   size_t done;
   int rc = JsonLines_writeAll(fd, data, n, &done);
   int err = errno;
   if (close(fd) != 0 && rc == 0) {
      rc = -1;
      err = errno;
   }
   return rc < 0 ? setCause(cause, "%s: %s", path, strerror(err)) : 0;
}

/* A regular file, or none yet: a temporary file beside it, renamed over it. The
 * replaced file's permissions are kept (st; NULL for a new file). */
static int replace(const char *path, const char *target, const struct stat *st, const void *data, size_t n,
                   char **cause) {
   char *tmp = xAsprintf("%s.XXXXXX", target);
   int fd = mkostemp(tmp, O_CLOEXEC);
   if (fd < 0) {
      setCause(cause, "%s: %s", path, strerror(errno));
      free(tmp);
      return -1;
   }
   int rc = fchmod(fd, st ? st->st_mode & 07777 : newFileMode());
   size_t done;
   if (rc == 0)
      rc = JsonLines_writeAll(fd, data, n, &done);
   if (rc == 0)
      rc = fsync(fd);
   int err = errno;
   if (close(fd) != 0 && rc == 0) {
      rc = -1;
      err = errno;
   }
   if (rc == 0 && rename(tmp, target) != 0) {
      rc = -1;
      err = errno;
   }
   if (rc < 0) {
      unlink(tmp);
      setCause(cause, "%s: %s", path, strerror(err));
   } else {
      syncDirectoryOf(target);
   }
   free(tmp);
   return rc;
}

int Outfile_write(const char *path, const void *data, size_t n, char **cause) {
   struct stat st;
   bool exists;
   char *target = resolveLinks(path, &st, &exists, cause);
   if (!target)
      return -1;
   int rc = exists && !S_ISREG(st.st_mode) ? writeThrough(path, target, &st, data, n, cause)
                                          : replace(path, target, exists ? &st : NULL, data, n, cause);
   free(target);
   return rc;
}

void Outfile_open(Outfile *o, const char *path) {
   o->buf = NULL;
   o->len = 0;
   o->f = open_memstream(&o->buf, &o->len);
   if (!o->f)
      fatal("out of memory for %s", path);
   o->path = xStrdup(path);
}

int Outfile_commit(Outfile *o, char **cause) {
   bool failed = ferror(o->f) != 0;
   /* a stream in memory fails only when memory does */
   if (fclose(o->f) != 0 || failed)
      fatal("out of memory for %s", o->path);
   int rc = Outfile_write(o->path, o->buf, o->len, cause);
   free(o->buf);
   free(o->path);
   memset(o, 0, sizeof *o);
   return rc;
}

void Outfile_abandon(Outfile *o) {
   if (!o->f)
      return;
   fclose(o->f);
   free(o->buf);
   free(o->path);
   memset(o, 0, sizeof *o);
}
