#!/usr/bin/env bash
# pnbench test runner: unit tests (cmocka), integration scripts (TAP), the
# kernel end-to-end test (kernel-series/tests/e2e.sh: exit 0 pass, 4 skip).
# Prints every test's own output, then one closing line:
#   tests: N passed, N failed, N skipped
# Usage: tests/run.sh BUILD_DIR [FILTER]
set -uo pipefail

O=${1:-build}
FILTER=${2:-}
export PNBENCH_BIN="$O/pnbench"
export PNBENCH_BUILD="$O"
passed=0 failed=0 skipped=0
failures=()
# The runs' journals (core/sys/journal.h) go to a directory of this test run, so
# a test that kills a run never stops other runs on the machine; a journal
# still there at the end is a test that left the machine changed: recovered
# and counted as a failure.
own_rundir=
if [ -z "${PNBENCH_RUNDIR:-}" ]; then
	PNBENCH_RUNDIR=$(mktemp -d /tmp/pnbench-rundir.XXXXXX)
	export PNBENCH_RUNDIR
	own_rundir=1
fi

want() { [ -z "$FILTER" ] || [[ "$1" == *"$FILTER"* ]]; }

# cmocka binaries: read their closing summary lines.
for t in "$O"/tests/test_*; do
	[ -x "$t" ] || continue
	want "$t" || continue
	name=$(basename "$t")
	echo "=== $name"
	out=$("$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n1)
	s=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -n1)
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n1)
	p=${p:-0} s=${s:-0} f=${f:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1	# crashed or exited without a summary
		echo "$name: exited $rc without a cmocka summary"
	fi
	passed=$((passed + p)) skipped=$((skipped + s)) failed=$((failed + f))
	[ "$f" -eq 0 ] || failures+=("$name")
done

# TAP scripts: "ok N - ...", "not ok N - ...", "ok N - ... # SKIP reason".
tap_count() {
	local name=$1 out=$2 rc=$3 p s f
	p=$(printf '%s\n' "$out" | grep -E '^ok [0-9]+' | grep -vc '# SKIP')
	s=$(printf '%s\n' "$out" | grep -E '^ok [0-9]+' | grep -c '# SKIP')
	f=$(printf '%s\n' "$out" | grep -cE '^not ok [0-9]+')
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "$name: exited $rc"
	fi
	if [ "$rc" -eq 4 ] && [ $((p + s + f)) -eq 0 ]; then
		s=1
	fi
	passed=$((passed + p)) skipped=$((skipped + s)) failed=$((failed + f))
	[ "$f" -eq 0 ] || failures+=("$name")
}

for t in tests/integration/test-*.sh kernel-series/tests/e2e.sh; do
	[ -x "$t" ] || continue
	want "$t" || continue
	echo "=== $t"
	out=$("$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	tap_count "$t" "$out" "$rc"
done

if [ -n "$own_rundir" ]; then
	if compgen -G "$PNBENCH_RUNDIR/journal.*" >/dev/null; then
		echo "=== a test left a run's journal behind: pnbench recover"
		"$O/pnbench" recover
		failed=$((failed + 1))
		failures+=("journal-left-behind")
	fi
	rm -rf "$PNBENCH_RUNDIR"
fi

echo
if ((${#failures[@]})); then
	echo "failing: ${failures[*]}"
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ $((passed + skipped)) -gt 0 ]
