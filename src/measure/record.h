/* Measurement records: one JSON object per line per measurement, appended to a file
 * and flushed at the end of each batch, and read back whole (pruner-tui-records(5)).
 *
 * The keys of a line, in the order they are written:
 *   "v"          integer, the format version (RECORD_FORMAT_VERSION)
 *   "task"       string, the task's workload key (Task.key)
 *   "device"     string, the devices.yaml profile name
 *   "simulated"  true when the simulator measured it, false for a GPU
 *   "state"      string, the state's text (State_format)
 *   "costs"      array of 1 to RECORD_MAX_COSTS numbers, seconds per launch
 *   "error"      string, the error kind's name (MeasureError_name)
 *   "error_no"   integer, the error kind's number
 *   "message"    string, why it failed; left out when empty
 *   "registers"  integer, -1 to 4096
 *   "compile_s"  number, seconds
 *   "run_s"      number, seconds
 *   "time"       integer, Unix seconds
 *   "throttled"  array of reason names ("power_cap", ...; gpustate.h): the GPU's clocks
 *                were held down before or after the timed runs; left out when they
 *                were not, and always on the simulator
 * All are required except "error_no" (checked against "error" when present),
 * "message" (read as "") and "throttled" (read as none). Keys this program does not know are ignored, so that an
 * older program reads a newer file of the same version; a key given twice is an
 * error. Numbers are written in the shortest form that reads back to the same double,
 * so every value round-trips to the bit. */
#ifndef HEADER_record
#define HEADER_record

#include <stdbool.h>
#include <stdint.h>

#include "measure/counters.h"
#include "measure/measure.h"

#define RECORD_FORMAT_VERSION 1
#define RECORD_MAX_COSTS 32

typedef struct Record_ {
   int version;                 /* of the line it was read from; Record_toJson always
                                   writes RECORD_FORMAT_VERSION */
   char *task;                  /* the task's workload key (Task.key in src/te/network.h) */
   char *device;                /* devices.yaml profile name, e.g. "h100_sxm" */
   bool simulated;              /* measured by the simulator, not a GPU */
   char *state;                 /* the state's text (State_format), opaque here */
   int ncosts;                  /* >= 1 */
   double costs[RECORD_MAX_COSTS]; /* seconds per launch, one per repeat; {MEASURE_FAILED_COST} on error */
   MeasureError error;
   char *message;               /* why it failed; "" when ok (never NULL after a read) */
   int registers;               /* per thread, of the kernel with most; -1 unknown */
   double compileSeconds;       /* NVRTC wall time (0 when cached) */
   double runSeconds;           /* wall time in the runner or simulator */
   int64_t timestamp;           /* Unix seconds */
   unsigned throttled;          /* GPU_THROTTLE_* reasons that slowed the GPU; 0: none */
   Counters counters;           /* present only where measured with --counters */
   int line;                    /* the line of the file Records_read read it from; 0 for
                                   a record made or parsed otherwise (not written) */
} Record;

/* Frees the strings and zeroes the record; safe twice. */
void Record_done(Record *r);
/* The mean of the costs; MEASURE_FAILED_COST when error is not MEASURE_OK. */
double Record_meanCost(const Record *r);

/* Checks the rules a record must meet to be written and read back:
 *   task, device and state non-empty;
 *   error a known kind;
 *   ok: 1 to RECORD_MAX_COSTS costs, each more than 0 and less than
 *       MEASURE_FAILED_COST seconds, and an empty message (or NULL);
 *   failed: the single cost MEASURE_FAILED_COST, any message;
 *   registers -1 to 4096; compileSeconds and runSeconds finite and at least 0;
 *   timestamp 0 to 2^53 - 1;
 *   throttled only slowing reasons (GPU_THROTTLE_SLOWING), and none when simulated.
 * The reason names the JSON key: "\"costs\"[1]: expected more than 0 ...". */
int Record_validate(const Record *r, char **cause);

/* One line, without the newline; caller frees. A NULL string is written as "". */
char *Record_toJson(const Record *r);
/* Parses and checks one line (with or without its newline). `out` is overwritten, not
 * freed first; on failure it is left zeroed. The cause is the reason only, without
 * file or line. */
int Record_fromJson(const char *line, Record *out, char **cause);

typedef struct RecordWriter_ RecordWriter;

/* Opens `path` for appending, creating it. When the file does not end with a newline
 * (a run was killed in the middle of a line), the first flush that writes removes
 * that cut line (no reader could use it), or ends it with a newline when it is a whole
 * record, so that no record is glued onto it. Errors: "PATH: strerror". */
RecordWriter *RecordWriter_open(const char *path, char **cause);
/* Checks the record (Record_validate) and queues its line; nothing is written before
 * RecordWriter_flush. */
int RecordWriter_append(RecordWriter *w, const Record *r, char **cause);
/* Writes the queued lines and fsyncs the file: the end of a batch. When a write
 * fails, the lines that were not written whole stay queued for the next flush, and a
 * line written in part is cut off the file again, so the file never holds half a
 * record of ours. */
int RecordWriter_flush(RecordWriter *w, char **cause);
/* Flushes and frees w, also when the flush fails (the queued lines are then lost). */
int RecordWriter_close(RecordWriter *w, char **cause);

typedef struct RecordSet_ {
   int count, cap;
   Record *records;
} RecordSet;

void RecordSet_init(RecordSet *s);
/* Frees every record and the array; the set is then empty, as after RecordSet_init. */
void RecordSet_done(RecordSet *s);

/* Appends the records of the file at `path` to `out`, in file order. Blank lines and
 * lines starting with '#' are skipped. The last line, when it has no newline and is
 * not valid JSON, is what a run killed while writing leaves: it is skipped and
 * *notice (caller frees; NULL when there is nothing to say) is
 * "FILE:LINE: the last line is cut short (N bytes without a newline); it was skipped".
 * Any other bad line stops the reading: -1 with *cause "FILE:LINE: REASON", and `out`
 * keeps the records of the lines before it (and what it held before the call). A line
 * cut short that is not last (written by something else) is such an error. A file
 * that cannot be opened or read: "FILE: strerror". */
int Records_read(const char *path, RecordSet *out, char **notice, char **cause);

#endif
