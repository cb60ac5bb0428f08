# SPDX-License-Identifier: GPL-2.0-only
# pnbench top-level Makefile.  Everything builds out of tree in $(O).
#
#   make                 build pnbench and the test programs
#   make check           unit + replayed fixtures + integration (+ kernel e2e when kernels are cached)
#   make lint            clang-format, clang-tidy, cppcheck, shellcheck, pyflakes
#   make SANITIZE=1      ASan + UBSan build (into build-san/ unless O= is given)
#   make DEVELOPER=1     warnings are errors
#   make fuzz            run every fuzz target briefly (FUZZ_SECONDS=20)
#   make demo            stock, isolate and private kernels in QEMU guests: the truth table
#   make bench           collector cost and fault-in benchmarks (not tests: they print figures)
#   make perf-check      the perf collector's unit tests only (test_perf_*)
#   make perf-bench      the perf collector against perf record (PERFBENCH_ARGS="-r 5 -s 3")
#   make deps            install Debian packages (as root) and build libperf
#   make kernels         build stock and patched reference kernels (cached)
#   make lint-patches    checkpatch the kernel series
#   make check-bisect    every prefix of the kernel series builds and links (cached; long)
#   make selftests       the kernel's mm selftests on stock/patched/private kernels (QEMU guests, about 30 min)

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
PN_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -MMD -MP -I. -I$(O)/gen \
	-DPN_VERSION='"$(VERSION)"' $(shell $(PKG_CONFIG) --cflags hwloc libcjson 2>/dev/null)
PN_LIBS := $(shell $(PKG_CONFIG) --libs hwloc libcjson 2>/dev/null || echo -lhwloc -lcjson) -lnuma -lcrypto -lpthread -lm

# libperf (built by `make deps` from the linux-source-6.12 tree) and
# libtraceevent for the perf collector.  Without them everything else still
# builds and the collector lists itself as unavailable with the reason.
# NO_LIBPERF=1 builds without them even where they exist.
PNBENCH_CACHE ?= /var/cache/pnbench
LIBPERF_DIR ?= $(PNBENCH_CACHE)/libperf
ifneq ($(NO_LIBPERF),1)
HAVE_TRACEEVENT := $(shell $(PKG_CONFIG) --exists libtraceevent 2>/dev/null && echo 1)
HAVE_LIBPERF := $(if $(wildcard $(LIBPERF_DIR)/lib64/libperf.a $(LIBPERF_DIR)/include/perf/core.h),1)
endif
ifeq ($(HAVE_TRACEEVENT),1)
PERF_CFLAGS := -DPN_HAVE_TRACEEVENT $(shell $(PKG_CONFIG) --cflags libtraceevent)
PN_LIBS += $(shell $(PKG_CONFIG) --libs libtraceevent)
ifeq ($(HAVE_LIBPERF),1)
PERF_CFLAGS += -DPN_HAVE_LIBPERF -I$(LIBPERF_DIR)/include
PN_LIBS := $(LIBPERF_DIR)/lib64/libperf.a $(LIBPERF_DIR)/lib64/libapi.a $(PN_LIBS)
endif
endif
PN_CFLAGS += $(PERF_CFLAGS)

ifeq ($(DEVELOPER),1)
PN_CFLAGS += -Werror
endif
ifeq ($(SANITIZE),1)
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
PN_CFLAGS += $(SAN)
LDFLAGS += $(SAN)
endif

# core/ by layer (docs/HACKING.md): lib < sys < api < config < runner < cli.
# Workloads and collectors are one file each at the top of their folder (the
# registry is generated from those names); their helpers sit in lib/, probes/
# and perf/ beside them.
CORE_DIRS := lib sys api config runner cli
CORE_SRC := $(filter-out core/cli/main.c,$(sort $(foreach d,$(CORE_DIRS),$(wildcard core/$(d)/*.c))))
WL_SRC := $(sort $(wildcard workloads/*.c))
COLL_SRC := $(sort $(wildcard collectors/*.c))
WL_HELPER_SRC := $(sort $(wildcard workloads/lib/*.c workloads/probes/*.c))
COLL_HELPER_SRC := $(sort $(wildcard collectors/perf/*.c))
LIB_SRC := $(CORE_SRC) $(WL_SRC) $(WL_HELPER_SRC) $(COLL_SRC) $(COLL_HELPER_SRC)
LIB_OBJ := $(LIB_SRC:%.c=$(O)/%.o) $(O)/gen/registry.o
LIB := $(O)/libpncore.a

UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)
TOOL_SRC := $(sort $(wildcard tests/tools/*.c))
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(O)/tests/%)
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(O)/bench/%)

# Without libperf and libtraceevent the perf collector builds as a stub that
# says why it is unavailable; its tests, benchmark and fuzz target need them.
# (before `all`: its prerequisites are expanded when make reads it)
ifneq ($(HAVE_LIBPERF)$(HAVE_TRACEEVENT),11)
UNIT_BIN := $(filter-out $(O)/tests/test_perf%,$(UNIT_BIN))
TOOL_BIN := $(filter-out $(O)/tests/perf%,$(TOOL_BIN))
BENCH_BIN := $(filter-out $(O)/bench/perf%,$(BENCH_BIN))
endif

all: $(O)/pnbench $(O)/pnbench.1 $(UNIT_BIN) $(TOOL_BIN) $(BENCH_BIN)

# pnbench(1), from the help texts of the binary just built (help2man)
$(O)/pnbench.1: $(O)/pnbench scripts/manpage.sh
	scripts/manpage.sh $(O)/pnbench $@

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

$(O)/pnbench: $(O)/core/cli/main.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(PN_LIBS)

# The perf collector's tests, tools and benchmark link the core library
# (with libperf/libtraceevent in PN_LIBS).
PERF_UNIT_BIN := $(filter $(O)/tests/test_perf%,$(UNIT_BIN))
PERF_OBJ := $(LIB)
$(PERF_UNIT_BIN): $(O)/tests/%: tests/unit/%.c $(PERF_OBJ) tests/unit/perftest.h
	@mkdir -p $(@D)
	$(CC) $(PN_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(PERF_OBJ) $(PN_LIBS) -lcmocka
PERF_BENCH_BIN := $(filter $(O)/bench/perf%,$(BENCH_BIN))
$(PERF_BENCH_BIN): $(O)/bench/%: tests/bench/%.c $(PERF_OBJ)
	@mkdir -p $(@D)
	$(CC) $(PN_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(PERF_OBJ) $(PN_LIBS)
PERF_TOOL_BIN := $(filter $(O)/tests/perf%,$(TOOL_BIN))
$(PERF_TOOL_BIN): $(O)/tests/%: tests/tools/%.c $(PERF_OBJ)
	@mkdir -p $(@D)
	$(CC) $(PN_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(PERF_OBJ) $(PN_LIBS)
perf-tests: $(PERF_UNIT_BIN) $(PERF_BENCH_BIN) $(PERF_TOOL_BIN)
# The perf collector against perf record (prints figures; needs root, linux-perf).
perf-bench: $(PERF_BENCH_BIN)
	$(O)/bench/perfbench $(PERFBENCH_ARGS)
perf-check: perf-tests
	tests/run.sh $(O) test_perf

# A stat_refresh pass installs the next captured zoneinfo (test_settle.c).
$(O)/tests/test_settle: LDFLAGS += -Wl,--wrap=pn_stat_refresh

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

# check, demo and bench re-read this Makefile in a sub-make: in one command
# line with deps (`make deps kernels check` on a fresh machine) it was read
# before deps built libperf, and the suite would be built without the perf
# collector.
check:
	$(MAKE) --no-print-directory check-now
check-now: all
	tests/run.sh $(O)

# The main job: run a suite config (default: the smoke suite) and print its verdict.
CONFIG ?= configs/smoke.json
run: all
	$(O)/pnbench run $(CONFIG) $(RUNFLAGS)

# The main command: the QEMU testbed under stock, isolate and private kernels,
# one truth table (scripts/demo.sh; DEMOFLAGS="--topology T --kernels ..."),
# KERNEL=path/to/bzImage for a user's own build.
demo:
	$(MAKE) --no-print-directory demo-now
demo-now: all
	PNBENCH_BIN=$(O)/pnbench O=$(O) $(O)/pnbench demo $(DEMOFLAGS)

bench:
	$(MAKE) --no-print-directory bench-now
bench-now: all
	$(O)/pnbench bench collectors
	$(O)/bench/faultin

# ---- fuzzing (clang libFuzzer) ----
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_O := $(O)/fuzz
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(FUZZ_O)/%)
FUZZ_SECONDS ?= 20
FUZZ_CFLAGS := -std=gnu11 -D_GNU_SOURCE -I. -g -O1 -fsanitize=fuzzer,address,undefined $(PERF_CFLAGS) \
	$(shell $(PKG_CONFIG) --cflags hwloc libcjson 2>/dev/null)
FUZZ_LIB_SRC := $(LIB_SRC)

$(FUZZ_O)/%: tests/fuzz/%.c $(FUZZ_LIB_SRC) $(O)/gen/registry.c
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -I$(O)/gen -DPN_VERSION='"$(VERSION)"' -o $@ $< $(FUZZ_LIB_SRC) $(O)/gen/registry.c $(PN_LIBS)

# The perf parsers' target links only what it uses (static pattern rule).
ifneq ($(HAVE_LIBPERF)$(HAVE_TRACEEVENT),11)
FUZZ_BIN := $(filter-out $(FUZZ_O)/fuzz_perf%,$(FUZZ_BIN))
endif
PERF_FUZZ_BIN := $(filter $(FUZZ_O)/fuzz_perf%,$(FUZZ_BIN))
PERF_FUZZ_SRC := $(addprefix collectors/perf/,tpfmt.c perfrec.c perfring.c pgowner.c pgacct.c pgacct_report.c pgdecode.c) \
	core/sys/mounts.c $(addprefix core/lib/,log.c signals.c sysroot.c nodeset.c clock.c stats.c alloc.c)
$(PERF_FUZZ_BIN): $(FUZZ_O)/%: tests/fuzz/%.c $(PERF_FUZZ_SRC)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -o $@ $< $(PERF_FUZZ_SRC) $(PN_LIBS)

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
check-bisect:
	$(MAKE) -C kernel-series check-bisect
selftests:
	$(MAKE) -C kernel-series selftests

# the binary, and report/ where `pnbench report` looks for it beside an
# installed binary (PREFIX/share/pnbench/report/pnreport.py)
REPORT_DIR = $(DESTDIR)$(PREFIX)/share/pnbench/report
install: $(O)/pnbench $(O)/pnbench.1
	install -D -m 0755 $(O)/pnbench $(DESTDIR)$(PREFIX)/bin/pnbench
	install -D -m 0644 $(O)/pnbench.1 $(DESTDIR)$(PREFIX)/share/man/man1/pnbench.1
	install -d $(REPORT_DIR)/pnreportlib
	install -m 0755 report/pnreport.py $(REPORT_DIR)/pnreport.py
	install -m 0644 report/compare.json report/index.sql report/README.md $(REPORT_DIR)/
	install -m 0644 report/pnreportlib/*.py $(REPORT_DIR)/pnreportlib/

PREFIX ?= /usr/local

clean:
	rm -rf $(O)

.PHONY: perf-tests perf-check perf-bench all check check-now run demo demo-now bench bench-now fuzz fuzz-build lint deps kernels lint-patches check-bisect selftests install clean
