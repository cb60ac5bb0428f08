#!/usr/bin/env bash
# The cold path of `make kernels`, in seconds and without building a kernel:
# kernel-series/scripts/get-base.sh against an empty PNBENCH_CACHE with a
# tiny fake kernel tree (KSRC=), run as `make kernels` runs it: under a
# parent make whose MAKEFLAGS carry "w".  Before the captures used
# --no-print-directory, the version read back was wrapped in
# "make[1]: Entering directory" lines and the BASE check failed.  Also the
# lint that keeps every $(make ...) capture so.  TAP output.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
ROOT=$PWD
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
T=$(mktemp -d /tmp/pnbench-cold.XXXXXX)
trap 'rm -rf "$T"' EXIT
for tool in make git flock; do
	command -v "$tool" >/dev/null || skipall "$tool not installed"
done
t() { if eval "$2"; then ok "$1"; else notok "$1"; sed 's/^/#   /' "$T/log" 2>/dev/null | tail -n 8; fi; }

want=$(grep -oE '[0-9]+\.[0-9]+(\.[0-9]+)?' kernel-series/BASE | head -n1)
IFS=. read -r v p s <<<"$want"
# A kernel tree as far as get-base.sh looks: a top-level Makefile that
# answers kernelversion like the real one, and a source file.
fake_tree() { # DIR SUBLEVEL
	mkdir -p "$1/mm"
	# shellcheck disable=SC2016 # make syntax
	printf 'VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = %s\nkernelversion:\n\t@echo $(VERSION).$(PATCHLEVEL).$(SUBLEVEL)\n' \
		"$v" "$p" "$2" >"$1/Makefile"
	echo 'int x;' >"$1/mm/page_alloc.c"
}
fake_tree "$T/ksrc" "${s:-0}"
fake_tree "$T/ksrc-old" 1
# The parent make: get-base.sh runs inside a recipe, as under `make kernels`
# ($(MAKE) -C kernel-series turns on -w); its stdout goes to OUT.
# shellcheck disable=SC2016 # make syntax, for make to expand
printf 'all:\n\t@echo "MAKEFLAGS=[$$MAKEFLAGS]" >&2; $(GETBASE) stock >$(OUT)\n' >"$T/parent.mk"
under_make() { # CACHE KSRC OUT
	# its own parent make, whatever make runs this test (tests/run.sh under
	# `make check` passes MAKEFLAGS with --no-print-directory)
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PNBENCH_CACHE="$1" KSRC="$2" make -w -s -f "$T/parent.mk" \
		GETBASE="$ROOT/kernel-series/scripts/get-base.sh" OUT="$3" >/dev/null
}

start=$(date +%s)
export start # read by the timing check's eval
t "get-base.sh under a parent make (MAKEFLAGS has w) with an empty cache succeeds" \
	"under_make '$T/cache' '$T/ksrc' '$T/out' 2>'$T/log' && grep -qE '^MAKEFLAGS=\[[a-zA-Z]*w' '$T/log'"
base=$(tail -n1 "$T/out" 2>/dev/null)
t "it prints the base tree, named after version $want" \
	"[[ '$base' == '$T/cache/src/base-ksrc-$want-'* ]] && [ -f '$base/.pnbench-base-ready' ]"
t "the base commit records Linux $want" \
	"[ \"\$(git -C '$base' log -1 --format=%s)\" = 'base: Linux $want ($(basename "$base" | sed 's/^base-//'))' ]"
t "the tree is the fake one" "cmp -s '$T/ksrc/mm/page_alloc.c' '$base/mm/page_alloc.c'"
t "a second run finds it in the cache" \
	"under_make '$T/cache' '$T/ksrc' '$T/out2' 2>'$T/log' && [ \"\$(tail -n1 '$T/out2')\" = '$base' ] && ! grep -q 'committing' '$T/log'"
t "a tree of another version fails naming both versions (not make's chatter)" \
	"! under_make '$T/cache2' '$T/ksrc-old' /dev/null 2>'$T/log' && grep -q 'BASE names $want but the base tree is $v.$p.1\$' '$T/log' && ! grep -q 'Entering directory' '$T/log'"
t "all of it in seconds (< 60 s)" "[ \$((\$(date +%s) - start)) -lt 60 ]"

# The lint: the tree is clean, the old form is caught with file and line.
mapfile -t MK < <(git ls-files '*.sh' '*Makefile' '*.mk')
t "lint: every \$(make ...) capture in the tree passes --no-print-directory" \
	"scripts/lint-make-captures.sh ${MK[*]} >'$T/log' 2>&1"
# (written through $m so that this file itself passes the lint)
m="make"
cat >"$T/bad.sh" <<SH
#!/bin/bash
# ver=\$($m -s -C tree kernelversion) in a comment is fine
ok=\$($m -s --no-print-directory -C tree kernelversion)
ver=\$($m -s -C tree kernelversion)
old=\`$m -C tree kernelrelease\`
mk=\$("\$MAKE" -s -C tree kernelversion)
SH
# shellcheck disable=SC2016 # make syntax
printf 'V := $(shell $(MAKE) -s -C tree kernelversion)\nW := $(shell make --no-print-directory -s -C t kernelversion)\n' >"$T/Makefile"
t "lint: captures without the flag are reported as FILE:LINE" \
	"! scripts/lint-make-captures.sh '$T/bad.sh' '$T/Makefile' >'$T/log' 2>&1 && [ \"\$(grep -c '^$T/' '$T/log')\" -eq 4 ] && grep -q '^$T/bad.sh:4:' '$T/log' && grep -q '^$T/bad.sh:5:' '$T/log' && grep -q '^$T/bad.sh:6:' '$T/log' && grep -q '^$T/Makefile:1:' '$T/log'"
# `make deps kernels check` on a fresh machine reads the Makefile before
# deps builds libperf: check, demo and bench re-read it in a sub-make, or the
# suite would be built (and tested) without the perf collector.
for goal in check demo bench; do
	t "make $goal re-reads the Makefile after deps (sub-make $goal-now)" \
		"make -C '$ROOT' -n --no-print-directory $goal >'$T/mk-$goal' 2>&1; head -n 1 '$T/mk-$goal' | grep -qx 'make --no-print-directory $goal-now'"
done
# Without libperf (NO_LIBPERF=1, or a first read before deps built it) the
# suite still builds: the perf collector's tests and benchmark are left out
# of `all` before make reads its prerequisites.
t "make NO_LIBPERF=1 all builds without the perf collector's tests and benchmark" \
	"make -C '$ROOT' -j2 --no-print-directory NO_LIBPERF=1 O='$T/nolp' all >'$T/log' 2>&1 && [ -x '$T/nolp/pnbench' ] && [ ! -e '$T/nolp/bench/perfbench' ]"
echo "1..$n"
