#!/usr/bin/env bash
# report/pnreport.py on a real run: summary text, a PNG plot, refusal of an
# unknown schema_version.  TAP output.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
PN=${PNBENCH_BIN:-build/pnbench}
R=report/pnreport.py
T=$(mktemp -d /tmp/pnbench-report.XXXXXX)
trap 'rm -rf "$T"' EXIT
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
	echo "1..0 # SKIP python3-matplotlib not installed (make deps)"
	exit 4
fi
[ -x "$PN" ] || { echo "1..0 # SKIP $PN not built"; exit 4; }
"$PN" run configs/smoke.json -o "$T/run" -q >/dev/null 2>&1
n=0
t() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi; }
t "summary prints the verdict and the workload's metric medians" \
	"$R summary $T/run > $T/sum && grep -q '^verdict: ' $T/sum && grep -q 'alloc_fault_throughput' $T/sum"
t "plot writes a PNG" "$R plot $T/run -o $T/p.png >/dev/null && head -c 8 $T/p.png | od -An -c | grep -q 'P   N   G'"
sed -E 's/"schema_version":[[:space:]]*2,/"schema_version": 99,/' "$T/run/run.json" > "$T/run/run.json.new" && mv "$T/run/run.json.new" "$T/run/run.json"
t "an unknown schema_version is refused with exit 2" "$R summary $T/run >/dev/null 2>$T/err; [ \$? -eq 2 ] && grep -q schema_version $T/err"
echo "1..$n"
