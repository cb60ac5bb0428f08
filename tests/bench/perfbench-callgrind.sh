#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# perfbench-callgrind.sh - instructions the perf collector's reader path
# executes per event, counted by callgrind: repeatable where CPU time on a
# shared machine is not.  Only drain() (read every ring, decode, merge,
# account) is collected, in whichever thread runs it; the workload runs
# under valgrind too but is not collected.
#
#   tests/bench/perfbench-callgrind.sh [PERFBENCH] [MODES] [SECONDS]
#
# PERFBENCH defaults to build/bench/perfbench, MODES to
# "coll-count collector", SECONDS to 2.  The rings are 64 MiB per CPU so that
# the slowed reader loses nothing.  Prints per mode: events handled,
# instructions in drain(), instructions per event.
set -eu
bin=${1:-build/bench/perfbench}
modes=${2:-coll-count collector}
secs=${3:-2}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
command -v valgrind >/dev/null || { echo "perfbench-callgrind: no valgrind" >&2; exit 4; }
printf '%-11s %10s %14s %10s\n' mode handled "Ir in drain" "Ir/event"
for m in $modes; do
	valgrind --tool=callgrind --toggle-collect=drain \
		--callgrind-out-file="$out/cg.$m.%p" "$bin" -r 1 -s "$secs" -m "$m" -R 16384 \
		>"$out/stdout.$m" 2>"$out/stderr.$m" || { cat "$out/stderr.$m" >&2; exit 1; }
	handled=$(awk -v m="$m" '$1 == m { print $4 }' "$out/stdout.$m")
	ir=0
	for f in "$out"/cg."$m".*; do
		n=$(sed -n 's/^summary: *//p' "$f")
		ir=$((ir + ${n:-0}))
	done
	awk -v m="$m" -v h="$handled" -v ir="$ir" \
		'BEGIN { printf "%-11s %10.0f %14.0f %10.1f\n", m, h, ir, h ? ir / h : 0 }'
done
