/* What the fuzz harnesses share: the input as a file for the loaders that read a
 * path. Each harness is one loader's LLVMFuzzerTestOneInput; a broken invariant is
 * fatal(), whose abort libFuzzer reports as a crash, as it does a loader's own fatal().
 * `make fuzz` builds and runs them (fuzz/run). */
#ifndef HEADER_fuzz
#define HEADER_fuzz

#include <stddef.h>
#include <stdint.h>

/* A path (/proc/self/fd/N of a memfd, valid until the next call) whose file holds
 * exactly the input's bytes. */
const char *Fuzz_file(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (caller frees). */
char *Fuzz_string(const uint8_t *data, size_t size);

/* The source tree, for the shipped files a harness starts from ($PTUI_SRCDIR, else
 * the tree the harness was built from). */
const char *Fuzz_srcdir(void);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
