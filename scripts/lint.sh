#!/usr/bin/env bash
# make lint: clang-format (check only), clang-tidy, cppcheck, shellcheck, pyflakes,
# and scripts/lint-make-captures.sh ($(make ...) captures need --no-print-directory).
# Every tool that is missing is reported as a SKIP with the package to install.
# Usage: scripts/lint.sh BUILD_DIR
set -uo pipefail
O=${1:-build}
rc=0
mapfile -t C < <(git ls-files '*.c' '*.h' | grep -v '^kernel-series/' || true)
mapfile -t SH < <({ git ls-files '*.sh'; echo .ci/run; } | sort -u)
mapfile -t PY < <(git ls-files '*.py')
CFLAGS=(-std=gnu11 -D_GNU_SOURCE -I. -I"$O/gen" -DPN_VERSION='"lint"')
# The perf collector's code paths that need libperf/libtraceevent are checked
# where those are installed (make deps), as the build compiles them.
LIBPERF_DIR=${LIBPERF_DIR:-${PNBENCH_CACHE:-/var/cache/pnbench}/libperf}
if pkg-config --exists libtraceevent 2>/dev/null; then
	CFLAGS+=(-DPN_HAVE_TRACEEVENT)
	if [ -f "$LIBPERF_DIR/include/perf/core.h" ]; then
		CFLAGS+=(-DPN_HAVE_LIBPERF -I"$LIBPERF_DIR/include")
	fi
fi

step() { echo "lint: $*" >&2; }
skip() { echo "lint: SKIP $1: not installed (apt-get install $2)" >&2; }

if command -v clang-format >/dev/null; then
	step "clang-format (${#C[@]} files)"
	clang-format --dry-run -Werror "${C[@]}" || rc=1
else skip clang-format clang-format; fi

if command -v clang-tidy >/dev/null; then
	step "clang-tidy"
	for f in "${C[@]}"; do
		[[ $f == *.c ]] || continue
		case $f in tests/fuzz/*) extra=(-fsanitize=fuzzer) ;; *) extra=() ;; esac
		# shellcheck disable=SC2046
		if ! out=$(clang-tidy --quiet "$f" -- "${CFLAGS[@]}" "${extra[@]}" \
			$(pkg-config --cflags hwloc libcjson 2>/dev/null) 2>&1); then
			printf '%s\n' "$out" | grep -v 'warnings generated' >&2
			rc=1
		fi
	done
else skip clang-tidy clang-tidy; fi

if command -v cppcheck >/dev/null; then
	step "cppcheck"
	cppcheck -q --enable=warning,performance,portability --error-exitcode=1 --inline-suppr \
		--suppress=missingIncludeSystem --std=c11 -D_GNU_SOURCE -DPN_VERSION='"lint"' \
		--include=scripts/cppcheck.h \
		-I. core workloads collectors tests || rc=1
else skip cppcheck cppcheck; fi

if command -v shellcheck >/dev/null; then
	step "shellcheck (${#SH[@]} files)"
	shellcheck -x "${SH[@]}" || rc=1
else skip shellcheck shellcheck; fi

step "make captures use --no-print-directory"
mapfile -t MK < <(git ls-files '*.sh' '*Makefile' '*.mk' 'kernel-series/qemu/*' 'tests/run.sh')
scripts/lint-make-captures.sh "${MK[@]}" || rc=1

if command -v pyflakes3 >/dev/null; then
	step "pyflakes (${#PY[@]} files)"
	[ "${#PY[@]}" -eq 0 ] || pyflakes3 "${PY[@]}" || rc=1
else skip pyflakes pyflakes3; fi

if [ $rc -eq 0 ]; then step "clean"; else step "FAILED"; fi
exit $rc
