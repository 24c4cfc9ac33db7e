# The fuzz build (GNU make, called by fuzz/run): the library's and the board's sources
# compiled again with clang's sanitizer coverage, and one libFuzzer binary per harness.
#
# From the caller: SRCDIR, BUILD (where objects and binaries go), CONFIG_DIR (the
# configured tree's config.h), LIB_SOURCES, UI_SOURCES, HARNESSES, FUZZ_CC,
# EXTRA_CFLAGS (the libraries' include flags) and LIBS (the libraries to link).

FUZZ_CC ?= clang
SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS = -std=c11 -g -O1 $(SAN) -fsanitize=fuzzer-no-link
FUZZ_CPPFLAGS = -I$(SRCDIR)/src -I$(SRCDIR)/ui/screen -I$(SRCDIR)/fuzz -I$(CONFIG_DIR) \
	-DPKGDATADIR='"$(SRCDIR)"' -DTOP_SRCDIR='"$(SRCDIR)"'

lib_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(filter %.c,$(LIB_SOURCES)))
ui_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(filter %.c,$(UI_SOURCES)))
bins = $(patsubst %,$(BUILD)/fuzz-%,$(HARNESSES))

all: $(bins)

$(BUILD)/obj/%.o: $(SRCDIR)/%.c
	@mkdir -p $(@D)
	@echo "  FUZZCC   $*.c"
	@$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) $(EXTRA_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libpruner-fuzz.a: $(lib_objs)
	@rm -f $@
	@ar rcs $@ $^

$(BUILD)/libboard-fuzz.a: $(ui_objs)
	@rm -f $@
	@ar rcs $@ $^

$(BUILD)/fuzz-%: $(BUILD)/obj/fuzz/fuzz-%.o $(BUILD)/obj/fuzz/fuzz.o $(BUILD)/libboard-fuzz.a \
		$(BUILD)/libpruner-fuzz.a
	@echo "  FUZZLD   fuzz-$*"
	@$(FUZZ_CC) -g $(SAN) -fsanitize=fuzzer -o $@ $^ $(LIBS)

-include $(lib_objs:.o=.d) $(ui_objs:.o=.d) $(BUILD)/obj/fuzz/*.d

.PHONY: all
.SECONDARY:
