#!/usr/bin/env bash
# A short libFuzzer pass over the config and /proc parsers (make fuzz runs longer).
# TAP: one line per target; SKIP when clang's libFuzzer is not installed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
O=${PNBENCH_BUILD:-build}
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
SECS=${PNBENCH_FUZZ_SECONDS:-5}
if ! command -v clang >/dev/null; then
	skip "fuzz targets" "clang not installed (make deps)"
	exit 0
fi
if ! make -s fuzz-build O="$O" >/tmp/pnbench-fuzz-build.log 2>&1; then
	notok "fuzz targets build"
	sed 's/^/#   /' /tmp/pnbench-fuzz-build.log | tail -n 5
	exit 1
fi
while IFS= read -r line; do
	case $line in
	fuzz_*": ok:"*) ok "$line" ;;
	fuzz_*) notok "$line" ;;
	*) echo "# $line" ;;
	esac
done < <(tests/fuzz/run.sh "$O/fuzz" "$SECS" 2>&1)
[ $n -gt 0 ] || { notok "no fuzz target ran"; exit 1; }
echo "1..$n"
