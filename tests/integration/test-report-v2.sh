#!/usr/bin/env bash
# report/ on schema-2 results: pnreport run, compare (statistics, the regression
# gate, the false-positive rate over seeded noise), dashboard (SQLite index
# round trip, no duplicates), demo truth table, headless-Chromium screenshots.
# The tests are tests/report/test_report.py (unittest, TAP output).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
for m in matplotlib numpy scipy; do
	if ! /usr/bin/python3 -c "import $m" 2>/dev/null; then
		skipall "python3-$m not installed (make deps)"
	fi
done
# The tests are CPU-bound (matplotlib, Chromium) and each process makes its
# own fixtures: with two CPUs, two shards run at once (about half the 10
# minutes) and their TAP is merged and renumbered.  With arguments (a filter),
# PNREPORT_KEEP (one directory) or one CPU: one process.
if (($#)) || [[ -n "${PNREPORT_KEEP:-}" ]] || (($(nproc) < 2)); then
	exec /usr/bin/python3 tests/report/test_report.py "$@"
fi
d=$(mktemp -d /tmp/pnreport-shards.XXXXXX)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$d"' EXIT
for i in 1 2; do
	PNREPORT_SHARD=$i/2 /usr/bin/python3 tests/report/test_report.py >"$d/$i" 2>&1 &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
pids=()
awk '/^(not )?ok [0-9]+ / { n++; sub(/ok [0-9]+ /, "ok " n " "); print; next }
	/^1\.\.[0-9]+$/ { plans++; next }
	{ print }
	END { if (plans != 2) print "not ok " ++n " - a shard ended without its plan line"; print "1.." n }' \
	"$d/1" "$d/2" >"$d/merged"
cat "$d/merged"
grep -q '^not ok' "$d/merged" && rc=1
exit "$rc"
