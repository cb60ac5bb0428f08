#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Run every libFuzzer target in FUZZBIN-DIR (fuzz_<name>) for SECONDS each,
# seeded from tests/fuzz/corpus/<name>/.  The corpus is copied to a temporary
# directory so runs never grow the repository; crash artifacts are kept in
# FUZZBIN-DIR/artifacts/<name>/.  Prints one summary line per target and exits
# non-zero if any target crashed (or could not run).
#
# usage: tests/fuzz/run.sh FUZZBIN-DIR SECONDS
set -uo pipefail

die() { echo "fuzz: $*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: run.sh FUZZBIN-DIR SECONDS"
BIN_DIR=$1
SECS=$2
if ! [[ $SECS =~ ^[0-9]+$ ]] || [ "$SECS" -eq 0 ]; then
	die "SECONDS must be a positive integer, got \"$SECS\""
fi
[ -d "$BIN_DIR" ] || die "$BIN_DIR: no such directory (make fuzz-build)"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

shopt -s nullglob
bins=("$BIN_DIR"/fuzz_*)
[ ${#bins[@]} -gt 0 ] || die "no fuzz_* targets in $BIN_DIR"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failed=0
for bin in "${bins[@]}"; do
	if [ ! -x "$bin" ] || [ ! -f "$bin" ]; then
		continue
	fi
	name=$(basename "$bin")
	name=${name#fuzz_}
	seed="$ROOT/tests/fuzz/corpus/$name"
	corpus="$TMP/corpus-$name"
	art="$BIN_DIR/artifacts/$name"
	mkdir -p "$corpus" "$art"
	[ -d "$seed" ] && cp -r "$seed/." "$corpus/"
	nseed=$(find "$corpus" -type f | wc -l)
	log="$TMP/$name.log"
	"$bin" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$art/" "$corpus" > "$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	nafter=$(find "$corpus" -type f | wc -l)
	if [ $rc -eq 0 ]; then
		echo "fuzz_$name: ok: ${runs:-?} runs in ${SECS}s, corpus $nseed -> $nafter"
	else
		failed=1
		crash=$(find "$art" -maxdepth 1 -type f -printf '%T@ %f\n' 2>/dev/null | sort -rn | head -n1 | cut -d' ' -f2-)
		echo "fuzz_$name: FAILED (exit $rc) after ${runs:-?} runs${crash:+, input $art/$crash}"
		grep -m1 -E 'ERROR: |runtime error|Assertion|deadly signal' "$log" | sed 's/^/    /'
		tail -n 30 "$log" > "$art/last.log"
		echo "    log: $art/last.log"
	fi
done
exit $failed
