/* The console's command lines (ui/screen/commands.c's Commands_run and Commands_complete) on
 * a board folded from tests/data/tiny2-session.jsonl, and every line a command sends
 * on to the engine through tune/command.c's parser. Any line either runs or is refused
 * with an answer. The board has no session file, so no command writes one. */
#include "config.h"

#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "commands.h"
#include "tune/command.h"
#include "util/xalloc.h"

static SessionLog log;
static Network net;
static DeviceSet devices;
static Board board;

static void send(void *ctx, const char *text) {
   (void)ctx;
   Command c;
   char *cause = NULL;
   if (Command_parse(text, net.ntasks, &c, &cause) < 0) {
      if (!cause || !*cause)
         fatal("the engine refused '%s' without a reason", text);
      free(cause);
   }
}

static void page(void *ctx, const char *title, char *text) {
   (void)ctx;
   (void)title;
   free(text);
}

static void quit(void *ctx) {
   (void)ctx;
}

static void setUp(void) {
   const char *dir = Fuzz_srcdir();
   char *path = xAsprintf("%s/tests/data/tiny2-session.jsonl", dir), *notice = NULL, *cause = NULL;
   SessionLog_init(&log);
   if (Session_read(path, &log, &notice, &cause) < 0)
      fatal("%s", cause);
   free(path);
   path = xAsprintf("%s/tests/data/tiny2.task", dir);
   if (Network_load(&net, path, &cause) < 0)
      fatal("%s", cause);
   free(path);
   path = xAsprintf("%s/devices.yaml", dir);
   DeviceSet_init(&devices);
   if (DeviceSet_load(&devices, path, &cause) < 0)
      fatal("%s", cause);
   free(path);
   Board_init(&board, &log.events[0].header, &net, &devices);
   board.actions = (BoardActions){ .send = send, .page = page, .quit = quit };
   for (int i = 1; i < log.count; i++)
      Board_apply(&board, &log.events[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
   if (!board.net)
      setUp();
   char *line = Fuzz_string(data, size);
   /* the console's line holds no newline: readline ends it there */
   line[strcspn(line, "\n")] = '\0';
   char *answer = NULL;
   if (Commands_run(&board, line, &answer) < 0 && (!answer || !*answer))
      fatal("'%s' was refused without an answer", line);
   free(answer);
   board.stopping = false;

   /* completion of the line's last word, at the word's index */
   char *words[9] = { 0 }, *save = NULL, *copy = xStrdup(line);
   int n = 0;
   for (char *w = strtok_r(copy, " \t", &save); w && n < 8; w = strtok_r(NULL, " \t", &save))
      words[n++] = w;
   char **matches = Commands_complete(&board, n ? words[n - 1] : "", n ? n - 1 : 0, words);
   for (int i = 0; matches && matches[i]; i++)
      free(matches[i]);
   free(matches);
   free(copy);
   free(line);
   return 0;
}
