/* The tuned network as a C library a user links without pruner-tui (export
 * --library): the kernels of each task's best state compiled with NVRTC for the
 * session's GPU (CUBIN per task, and its CUDA source), the weights in one file, the
 * launch and memory plan (every activation in one arena, by liveness), a runtime over
 * the CUDA driver API with NAME_create / NAME_run / NAME_destroy, a Makefile and an
 * example program. The runtime refuses a weights file that is corrupted or was
 * written for another plan.
 *
 * Before anything is written the plan is run on the CPU (each launch's kernel on its
 * nest, compiled or interpreted, reading and writing the arena at the plan's offsets)
 * and its outputs compared with the graph's reference: the offsets and the bindings
 * the GPU will use are checked here. */
#ifndef HEADER_tune_library
#define HEADER_tune_library

#include <stdio.h>

#include "device/device.h"

typedef struct LibraryRequest_ {
   const char *session;
   const char *model;           /* NULL: the session's network file */
   const char *dir;
   const char *arch;            /* NULL: the session's device's, "sm_NN" */
   const char *name;            /* NULL: from the model's file name */
} LibraryRequest;

/* The files' text, PTNET standing for the library's name (library_files.c). */
extern const char Library_header[], Library_runtime[], Library_example[], Library_makefile[];

/* Writes the library; a summary on log. 0, or -1 with *cause (nothing is written
 * unless everything was made). */
int Library_export(const LibraryRequest *r, const DeviceSet *devices, FILE *log, char **cause);

#endif
