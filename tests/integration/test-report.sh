#!/usr/bin/env bash
# report/pnreport.py on a real run: summary text, a PNG plot, refusal of an
# unknown schema_version, the command list and exit 2 on bad input.  TAP output.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
PN=${PNBENCH_BIN:-build/pnbench}
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
R=report/pnreport.py
G=tests/report/import_graph.py
T=$(mktemp -d /tmp/pnbench-report.XXXXXX)
trap 'rm -rf "$T"' EXIT
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
	skipall "python3-matplotlib not installed (make deps)"
fi
[ -x "$PN" ] || skipall "$PN not built"
"$PN" run configs/smoke.json -o "$T/run" -q >/dev/null 2>&1
t() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }
t "summary prints the verdict and the workload's metric medians" \
	"$R summary $T/run > $T/sum && grep -q '^verdict: ' $T/sum && grep -q 'alloc_fault_throughput' $T/sum"
t "plot writes a PNG" "$R plot $T/run -o $T/p.png >/dev/null && [ -s $T/p.png ]"
t "plot writes an SVG and a PDF by -o's extension" \
	"$R plot $T/run -o $T/p.svg >/dev/null && grep -q '<svg' $T/p.svg && $R plot $T/run -o $T/p.pdf >/dev/null && head -c5 $T/p.pdf | grep -q '%PDF-'"
# the real run's plot: 1200 x (190 + 240 per node of nodestat.csv) px at 100 dpi,
# the PNG at 150 dpi (plots.PNG_DPI): 1800 x 1.5 times that, and not blank
nn=$(head -n1 "$T/run/nodestat.csv" | tr ',' '\n' | sed -n 's/^node\([0-9]*\)\.meminfo\.MemUsed$/\1/p' | sort -u | wc -l)
# the plot's logic on a synthetic run (phase colours, deltas, legend placement)
# and both images' size and content: TAP lines from check-plot.py
while IFS= read -r line; do
	case $line in
	"ok "*" - "*) ok "${line#ok * - }" ;;
	"not ok "*" - "*) notok "${line#not ok * - }" ;;
	*) echo "# $line" ;;
	esac
done < <(/usr/bin/python3 tests/integration/check-plot.py png "$T/p.png" 1800 $(((190 + 240 * nn) * 3 / 2)) 2>&1
	/usr/bin/python3 tests/integration/check-plot.py synthetic "$T/synthetic" 2>&1)
sed -E 's/"schema_version":[[:space:]]*[0-9]+,/"schema_version": 99,/' "$T/run/run.json" > "$T/run/run.json.new" && mv "$T/run/run.json.new" "$T/run/run.json"
t "an unknown schema_version is refused with exit 2" "$R summary $T/run >/dev/null 2>$T/err; [ \$? -eq 2 ] && grep -q schema_version $T/err"
t "--help lists every command" \
	"$R --help > $T/help && (for c in run compare dashboard demo demo-table summary plot load index-init; do grep -qE \"^    \$c( |\$)\" $T/help || exit 1; done)"
t "plot of a missing directory exits 2 naming it" "$R plot $T/nosuch >/dev/null 2>$T/err; [ \$? -eq 2 ] && grep -q nosuch $T/err"
t "an unknown command exits 2" "$R nosuch >/dev/null 2>&1; [ \$? -eq 2 ]"
# issue 18: no import circle in report/pnreportlib (deferred imports count); and
# the check sees one: a copy with a deferred import of series in load fails
t "report/pnreportlib has no import circle" "/usr/bin/python3 $G report/pnreportlib > $T/graph; grep -q ' 0 circle' $T/graph"
cp -r report/pnreportlib "$T/pnreportlib"
printf '\n\ndef _deferred():\n    from . import series\n    return series\n' >> "$T/pnreportlib/load.py"
printf '\n\ndef _deferred():\n    from .load import Run\n    return Run\n' >> "$T/pnreportlib/series.py"
t "the import check finds a circle made of deferred imports" \
	"/usr/bin/python3 $G $T/pnreportlib > $T/graph2; [ \$? -eq 1 ] && grep -q 'circle: load -> series -> load' $T/graph2"
echo "1..$n"
