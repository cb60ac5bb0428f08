#!/usr/bin/env bash
# The statistics of `make -C kernel-series bench` (kernel-series/bench/
# kbench-stats.py) on canned samples, no guest: the per-round median over a
# boot's reps (an outlier rep does not move it), the median over rounds (an
# even count averages the middle two), B/A, B-A, the per-round spreads, a
# round one side lacks, a misplaced sample (left out, exit 1), malformed
# input named by file:line and field, and the console-log parser.  TAP.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
PY=/usr/bin/python3
STATS=kernel-series/bench/kbench-stats.py
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
T=$(mktemp -d /tmp/pnbench-kbench.XXXXXX)
trap 'rm -rf "$T" "$TRUTH_LOG"' EXIT

# row TSV... : tab-separated sample lines from space-separated words
rows() { local l; for l in "$@"; do tr ' ' '\t' <<<"$l"; done; }
# squeeze: the table row of scenario $1 with runs of blanks made one space
row_of() { awk -v s="$1" '$1 == s { $1 = $1; print }' "$2"; }

{
	echo "# A stock-test"
	echo "# B patched-test"
	# round 1: A's third rep is an outlier the median ignores
	rows "A none/dram 1 0 1000 1000 2913000" "A none/dram 1 1 1000 1000 2913200" \
		"A none/dram 1 2 1000 1000 9999000" \
		"B none/dram 1 0 1000 1000 2960000" "B none/dram 1 1 1000 1000 2959800" \
		"B none/dram 1 2 1000 1000 2960400" \
		"A none/dram 2 0 1000 1000 2913600" "B none/dram 2 0 1000 1000 2958000" \
		"A private/dram 1 0 2000 2000 6000000"
} >"$T/good.tsv"
out=$("$PY" "$STATS" "$T/good.tsv" 2>&1)
rc=$?
printf '%s\n' "$out" >"$T/good.out"
expect "canned samples: exit 0" "exit $rc: $out" test "$rc" -eq 0
# medians A: round 1 median(2913.0, 2913.2, 9999.0) = 2913.2, round 2 2913.6
# -> 2913.4; B: 2960.0, 2958.0 -> 2959.0; B/A 1.0157; B-A +45.6; per-round
# B-A +46.8 and +44.4
want="none/dram 2 2913.4 2959.0 1.0157 +45.6 [2913.2..2913.6] [2958.0..2960.0] [+44.4..+46.8]"
got=$(row_of none/dram "$T/good.out")
expect "medians, ratio, difference and per-round spreads of none/dram" "got: $got" test "$got" = "$want"
got=$(awk '$1 == "round" && $2 == 1 && $3 == "none/dram" { $1 = $1; print }' "$T/good.out")
expect "round 1 line: the boot's median, not its mean" "got: $got" \
	test "$got" = "round 1 none/dram A 2913.2 B 2960.0 B-A +46.8"
got=$(row_of private/dram "$T/good.out")
expect "a scenario with no B round: 0 paired rounds, no ratio" "got: $got" \
	test "$got" = "private/dram 0 3000.0 - - - [3000.0..3000.0] - -"
got=$(awk '$1 == "round" && $3 == "private/dram" { $1 = $1; print }' "$T/good.out")
expect "the missing side of a round is named" "got: $got" \
	test "$got" = "round 1 private/dram A 3000.0 B missing B-A -"
expect "the labels head the table" "$(head -n2 "$T/good.out")" \
	grep -qx '# B = patched-test' "$T/good.out"

# a sample whose pages did not all land on the scenario's node
cp "$T/good.tsv" "$T/misplaced.tsv"
rows "B none/dram 2 1 1000 999 1000" >>"$T/misplaced.tsv"
out=$("$PY" "$STATS" "$T/misplaced.tsv" 2>&1)
rc=$?
expect "a misplaced sample: exit 1" "exit $rc" test "$rc" -eq 1
if grep -q "misplaced.tsv:12: B none/dram round 2: 999/1000 pages" <<<"$out" &&
	grep -q "^none/dram  *2  *2913.4  *2959.0 " <<<"$out"; then
	ok "a misplaced sample is named with its line and left out of the medians"
else
	notok "a misplaced sample is named with its line and left out of the medians" "$out"
fi

# malformed input: file:line and field
bad() { # bad DESC PATTERN LINE...
	local d=$1 pat=$2 got rc
	shift 2
	rows "A none/dram 1 0 1000 1000 2913000" "$@" >"$T/bad.tsv"
	got=$("$PY" "$STATS" "$T/bad.tsv" 2>&1)
	rc=$?
	if [ "$rc" -eq 1 ] && grep -q -- "$pat" <<<"$got"; then ok "$d"; else notok "$d" "exit $rc" "$got"; fi
}
bad "a non-integer count is named" "bad.tsv:2: field 'insn' is not an integer: '29x'" "B none/dram 1 0 1000 1000 29x"
bad "a short line is named" "bad.tsv:2: 6 fields, want 7" "B none/dram 1 0 1000 1000"
bad "an unknown side is named" "bad.tsv:2: field 'side' must be A or B: 'C'" "C none/dram 1 0 1000 1000 5"
bad "zero pages are refused" "bad.tsv:2: field 'pages' must be >= 1: 0" "B none/dram 1 0 0 0 5"
echo "# only a comment" >"$T/empty.tsv"
got=$("$PY" "$STATS" "$T/empty.tsv" 2>&1)
expect "no samples: exit 1" "exit $?: $got" grep -q "no samples" <<<"$got"
"$PY" "$STATS" >/dev/null 2>&1
expect "no argument: usage, exit 2" "exit $?" test $? -eq 2

# the console-log parser: faultbench lines among other console output
cat >"$T/console.log" <<'EOF'
PNBENCH-BEGIN
BENCH row=dram node=-1
R fault row=dram round=0 node=-1 pages=16384 on_node=16384 tsc=47730402 ns=47730471
R fault row=private round=3 node=1 pages=16384 on_node=16000 tsc=49069953 ns=49070022
PNBENCH-END rc=0
EOF
got=$("$PY" "$STATS" --from-log B private 2 "$T/console.log" 2>&1 | tr '\t' ' ')
expect "--from-log turns faultbench lines into samples" "got: $got" test "$got" = \
	"$(printf 'B private/dram 2 0 16384 16384 47730402\nB private/private 2 3 16384 16000 49069953')"
echo "R fault row=dram round=0 node=-1 pages=16384 tsc=1" >"$T/broken.log"
got=$("$PY" "$STATS" --from-log A none 1 "$T/broken.log" 2>&1)
expect "--from-log names a line without on_node" "got: $got" \
	grep -q "broken.log:1: faultbench line without on_node" <<<"$got"
echo "1..$n"
