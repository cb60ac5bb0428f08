#!/usr/bin/env bash
# The mm selftests' verdict (kernel-series/tests/mm-selftests-lib.sh) on
# made-up results, no guest: a test that passes on stock and fails on
# another kind is a regression; a rerun in which stock fails it too makes it
# "unstable" (not counted, with both kernels' pass counts); a rerun in which
# only the other kind passes leaves it a regression (with both kernels'
# pass counts); a timeout on stock
# counts as a failure, a test missing from a rerun does not; known entries
# stay allowed; lost coverage is not excused by reruns; the category of a
# test comes from run_vmtests.sh's run_test lines.  TAP.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
# shellcheck source=kernel-series/tests/mm-selftests-lib.sh
. kernel-series/tests/mm-selftests-lib.sh
command -v column >/dev/null || skipall "column (bsdextrautils) is not installed"
T=$(mktemp -d /tmp/pnbench-mmst.XXXXXX)
trap 'rm -rf "$T"' EXIT

# results DIR "test|status|skipped" ...: a results.tsv and a finished run
results() {
	local d=$1 i=0 e t s k
	shift
	mkdir -p "$d/share"
	: >"$d/share/done"
	echo 1 >"$d/wall.txt"
	: >"$d/results.tsv"
	for e in "$@"; do
		IFS='|' read -r t s k <<<"$e"
		i=$((i + 1))
		printf '%d\t%s\t%s\t%s\t1\t1\t-\n' "$i" "$t" "$s" "$k" >>"$d/results.tsv"
	done
}
: >"$T/known"
report() { mmst_report "$T/out" "$T/known" stock patched >"$T/report.txt" 2>&1; }
# regression DESC LINE: the report exits 1 and has LINE (an R line)
regression() {
	report
	local rc=$?
	expect "$1" "$(cat "$T/report.txt")" test "$rc" -eq 1 -a -n "$(grep -xF "$2" "$T/report.txt")"
}

# ---- first run: one failure the stock kernel did not have -------------------
results "$T/out/stock" 'ksm_tests -U|pass|0' 'mremap_test|pass|0' 'gup_longterm|pass|2'
results "$T/out/patched" 'ksm_tests -U|fail|0' 'mremap_test|pass|0' 'gup_longterm|pass|2'
regression "a failure stock passes is a regression (exit 1)" 'R patched ksm_tests -U: fail'

# ---- a rerun where only the patched kernel passes: still a regression --------
results "$T/out/rerun-1/stock" 'ksm_tests -U|pass|0'
results "$T/out/rerun-1/patched" 'ksm_tests -U|pass|0'
regression "a flake stock never shows stays a regression, with the reruns' counts" \
	'R patched ksm_tests -U: fail -- reruns: stock passed 2 of 2 runs, patched 1 of 2'

# ---- a rerun where stock fails it too: unstable, not counted ----------------
results "$T/out/rerun-2/stock" 'ksm_tests -U|fail|0'
results "$T/out/rerun-2/patched" 'ksm_tests -U|fail|0'
report
rc=$?
expect "a failure stock shows in a rerun is unstable, exit 0" "$(cat "$T/report.txt")" test "$rc" -eq 0
expect "the unstable line counts both kernels' passes (stock 2 of 3, patched 1 of 3)" "$(cat "$T/report.txt")" \
	grep -qx 'U patched ksm_tests -U: fail -- unstable, fails on stock too: stock passed 2 of 3 runs, patched 1 of 3' \
	"$T/report.txt"
expect "the verdict names the unstable test as not counted" "$(tail -n1 "$T/report.txt")" \
	grep -q 'PASS (no regression against stock; 1 unstable' "$T/report.txt"

# ---- a stock timeout counts, a test missing from a rerun does not -----------
rm -rf "$T/out/rerun-"*
results "$T/out/stock" 'a|pass|0' 'b|pass|0'
results "$T/out/patched" 'a|fail|0' 'b|timeout|0'
results "$T/out/rerun-1/stock" 'a|timeout|0'
results "$T/out/rerun-1/patched" 'a|fail|0' 'b|timeout|0'
regression "a test stock did not reach in its rerun stays a regression (exit 1)" 'R patched b: timeout'
expect "a timeout on stock in a rerun makes the failure unstable" "$(cat "$T/report.txt")" \
	grep -q '^U patched a: fail -- unstable.*stock passed 1 of 2 runs, patched 0 of 2$' "$T/report.txt"

# ---- known entries and lost coverage ---------------------------------------
rm -rf "$T/out/rerun-"*
results "$T/out/stock" 'a|pass|0' 'c|pass|1'
results "$T/out/patched" 'a|fail|0' 'c|pass|3'
results "$T/out/rerun-1/stock" 'a|fail|0' 'c|fail|0'
printf '# a comment\npatched | a | a reason with its evidence\n' >"$T/known"
regression "lost coverage is not excused by a stock failure in a rerun (exit 1)" \
	'R patched c: lost coverage: 3 cases skipped (stock 1)'
expect "a known entry stays allowed (A), not unstable" "$(cat "$T/report.txt")" \
	grep -qx 'A patched a: fail -- known: a reason with its evidence' "$T/report.txt"

# ---- categories from run_vmtests.sh ------------------------------------------
cat >"$T/run_vmtests.sh" <<'EOF'
CATEGORY="hugetlb" run_test ./hugepage-mmap
CATEGORY="mlock" run_test sudo -u nobody ./on-fault-limit
CATEGORY="ksm" run_test ./ksm_tests -U
CATEGORY="ksm_numa" run_test ./ksm_tests -N -m 1
CATEGORY="mremap" run_test ./mremap_test
EOF
got=$(for t in 'ksm_tests -N -m 1' 'ksm_tests -Q' 'on-fault-limit (as nobody)' 'mremap_test' 'hugepage-mmap' 'nosuch -x'; do
	printf '%s;' "$(mmst_category "$T/run_vmtests.sh" "$t")"
done)
expect "a test's category: its own run_test line, else the first starting its program" "got '$got'" \
	test "$got" = 'ksm_numa;ksm;mlock;mremap;hugetlb;;'
echo "1..$n"
exit $((fails > 0))
