#!/usr/bin/env bash
# The hostile suite: every tests/hostile/*.sh (signals, planted files, two
# runs at once, bad output directories), re-emitted as one TAP stream so
# tests/run.sh counts each check.  A script that SKIPs as a whole (exit 4,
# "1..0 # SKIP reason") becomes one skipped check; one that exits non-zero
# without a failing check (it stopped early) becomes one failure.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
failed=0
for t in tests/hostile/*.sh; do
	[ -x "$t" ] || continue
	echo "# $t"
	out=$("$t" 2>&1)
	rc=$?
	checks=0
	sfail=0
	while IFS= read -r line; do
		case $line in
		"ok "* | "not ok "*)
			n=$((n + 1))
			checks=$((checks + 1))
			case $line in "not ok "*) failed=1 sfail=1 ;; esac
			# renumber: "ok 3 - x" -> "ok $n - x"
			echo "$line" | sed -E "s/^(not ok|ok) [0-9]+/\1 $n/"
			;;
		"1..0 # SKIP"*)
			checks=$((checks + 1))
			skip "$t" "${line#1..0 # SKIP }"
			;;
		"1.."*) ;;
		*) echo "# $line" ;;
		esac
	done <<<"$out"
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && [ $sfail -eq 0 ]; then
		failed=1
		notok "$t exited $rc after $checks check(s), none failing"
	fi
done
echo "1..$n"
exit $failed
