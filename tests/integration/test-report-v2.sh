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
exec /usr/bin/python3 tests/report/test_report.py "$@"
