#!/usr/bin/env bash
# A short libFuzzer pass over the config and /proc parsers (make fuzz runs longer).
# TAP: one line per target; SKIP when clang's libFuzzer is not installed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
O=${PNBENCH_BUILD:-build}
SECS=${PNBENCH_FUZZ_SECONDS:-5}
if ! command -v clang >/dev/null; then
	echo "ok 1 - fuzz targets # SKIP clang not installed (make deps)"
	exit 0
fi
if ! make -s fuzz-build O="$O" >/tmp/pnbench-fuzz-build.log 2>&1; then
	echo "not ok 1 - fuzz targets build"
	sed 's/^/#   /' /tmp/pnbench-fuzz-build.log | tail -n 5
	exit 1
fi
n=0
while IFS= read -r line; do
	case $line in
	fuzz_*": ok:"*) n=$((n + 1)); echo "ok $n - $line" ;;
	fuzz_*) n=$((n + 1)); echo "not ok $n - $line" ;;
	*) echo "# $line" ;;
	esac
done < <(tests/fuzz/run.sh "$O/fuzz" "$SECS" 2>&1)
[ $n -gt 0 ] || { echo "not ok 1 - no fuzz target ran"; exit 1; }
echo "1..$n"
