# SPDX-License-Identifier: GPL-2.0-only
# pnbench top-level Makefile.  Everything builds out of tree in $(O).
#
#   make                 build pnbench and the test programs
#   make check           unit + replayed fixtures + integration (+ kernel e2e when kernels are cached)
#   make lint            clang-format, clang-tidy, cppcheck, shellcheck, pyflakes
#   make SANITIZE=1      ASan + UBSan build (into build-san/ unless O= is given)
#   make DEVELOPER=1     warnings are errors
#   make fuzz            run every fuzz target briefly (FUZZ_SECONDS=20)
#   make bench           collector cost and fault-in benchmarks (not tests: they print figures)
#   make deps            install Debian packages (as root) and build libperf
#   make kernels         build stock and patched reference kernels (cached)
#   make lint-patches    checkpatch the kernel series

.DELETE_ON_ERROR:
.SUFFIXES:

ifeq ($(SANITIZE),1)
O ?= build-san
else
O ?= build
endif

CC ?= cc
PKG_CONFIG ?= pkg-config
PYTHON ?= /usr/bin/python3

VERSION := $(shell git describe --always --dirty --tags 2>/dev/null || echo unknown)

WARN := -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes -Wstrict-prototypes \
	-Wvla -Wundef -Wpointer-arith -Wno-missing-field-initializers
CFLAGS ?= -O2 -g
PN_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -MMD -MP -Icore -I$(O)/gen \
	-DPN_VERSION='"$(VERSION)"' $(shell $(PKG_CONFIG) --cflags hwloc libcjson 2>/dev/null)
PN_LIBS := $(shell $(PKG_CONFIG) --libs hwloc libcjson 2>/dev/null || echo -lhwloc -lcjson) -lnuma -lcrypto -lpthread -lm

ifeq ($(DEVELOPER),1)
PN_CFLAGS += -Werror
endif
ifeq ($(SANITIZE),1)
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
PN_CFLAGS += $(SAN)
LDFLAGS += $(SAN)
endif

CORE_SRC := $(filter-out core/main.c,$(wildcard core/*.c))
WL_SRC := $(sort $(wildcard workloads/*.c))
COLL_SRC := $(sort $(wildcard collectors/*.c))
LIB_SRC := $(CORE_SRC) $(WL_SRC) $(COLL_SRC)
LIB_OBJ := $(LIB_SRC:%.c=$(O)/%.o) $(O)/gen/registry.o
LIB := $(O)/libpncore.a

UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)
TOOL_SRC := $(sort $(wildcard tests/tools/*.c))
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(O)/tests/%)
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(O)/bench/%)

all: $(O)/pnbench $(UNIT_BIN) $(TOOL_BIN) $(BENCH_BIN)

# The registries are generated from the file names: one workload or
# collector per file, named after the file.
$(O)/gen/registry.c: $(WL_SRC) $(COLL_SRC) scripts/gen-registry.sh
	@mkdir -p $(@D)
	scripts/gen-registry.sh "$(WL_SRC)" "$(COLL_SRC)" > $@

$(O)/gen/registry.o: $(O)/gen/registry.c
	$(CC) $(PN_CFLAGS) $(CFLAGS) -c -o $@ $<

$(O)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(PN_CFLAGS) $(CFLAGS) -c -o $@ $<

$(LIB): $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(O)/pnbench: $(O)/core/main.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(PN_LIBS)

$(O)/tests/%: tests/unit/%.c $(LIB)
	@mkdir -p $(@D)
	$(CC) $(PN_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(PN_LIBS) -lcmocka

$(O)/tests/%: tests/tools/%.c $(LIB)
	@mkdir -p $(@D)
	$(CC) $(PN_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(PN_LIBS)

$(O)/bench/%: tests/bench/%.c $(LIB)
	@mkdir -p $(@D)
	$(CC) $(PN_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(PN_LIBS)

-include $(shell find $(O) -name '*.d' 2>/dev/null)

check: all
	tests/run.sh $(O)

# The main job: run a suite config (default: the smoke suite) and print its verdict.
CONFIG ?= configs/smoke.json
run: all
	$(O)/pnbench run $(CONFIG) $(RUNFLAGS)

bench: all
	$(O)/pnbench bench collectors
	$(O)/bench/faultin

# ---- fuzzing (clang libFuzzer) ----
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_O := $(O)/fuzz
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(FUZZ_O)/%)
FUZZ_SECONDS ?= 20
FUZZ_CFLAGS := -std=gnu11 -D_GNU_SOURCE -Icore -g -O1 -fsanitize=fuzzer,address,undefined \
	$(shell $(PKG_CONFIG) --cflags hwloc libcjson 2>/dev/null)
FUZZ_LIB_SRC := $(LIB_SRC)

$(FUZZ_O)/%: tests/fuzz/%.c $(FUZZ_LIB_SRC) $(O)/gen/registry.c
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -I$(O)/gen -DPN_VERSION='"$(VERSION)"' -o $@ $< $(FUZZ_LIB_SRC) $(O)/gen/registry.c $(PN_LIBS)

fuzz-build: $(FUZZ_BIN)
fuzz: fuzz-build
	tests/fuzz/run.sh $(FUZZ_O) $(FUZZ_SECONDS)

# ---- lint ----
C_FILES = $(shell git ls-files '*.c' '*.h' 2>/dev/null)
SH_FILES = $(shell git ls-files '*.sh' '.ci/run' 'tests/run.sh' 2>/dev/null | sort -u)
PY_FILES = $(shell git ls-files 'report/*.py' 'tests/*.py' 2>/dev/null)
lint: $(O)/gen/registry.c
	scripts/lint.sh "$(O)"

deps:
	scripts/deps.sh

kernels:
	$(MAKE) -C kernel-series kernels
lint-patches:
	$(MAKE) -C kernel-series lint-patches

install: $(O)/pnbench
	install -D -m 0755 $(O)/pnbench $(DESTDIR)$(PREFIX)/bin/pnbench

PREFIX ?= /usr/local

clean:
	rm -rf $(O)

.PHONY: all check run bench fuzz fuzz-build lint deps kernels lint-patches install clean
