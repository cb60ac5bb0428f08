#!/usr/bin/env bash
# Every broken config in tests/configs-bad/ through the CLI: `pnbench run`
# exits 2, prints one error naming the file and the text EXPECTED lists, and
# writes no results (so e.g. a string that is not UTF-8 never reaches
# run.json).  TAP output.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
PN=${PNBENCH_BIN:-build/pnbench}
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
[ -x "$PN" ] || skipall "$PN not built"
T=$(mktemp -d /tmp/pnbench-config-cli.XXXXXX)
trap 'rm -rf "$T"' EXIT
while IFS= read -r line; do
	case $line in '#'* | '') continue ;; esac
	file=${line%% *}
	want=${line#* }
	o=$T/out-$((n + 1))
	"$PN" run "tests/configs-bad/$file" -o "$o" >"$T/stdout" 2>"$T/stderr"
	rc=$?
	if [ $rc -eq 2 ] && grep -qF -- "error: tests/configs-bad/$file$want" "$T/stderr" &&
		[ "$(grep -c 'error:' "$T/stderr")" -eq 1 ] && [ ! -e "$o" ]; then
		ok "$file: exit 2, one error naming the file and the JSON path, no results"
	else
		notok "$file: exit $rc"
		sed 's/^/#   /' "$T/stderr" | head -n 5
	fi
done <tests/configs-bad/EXPECTED
echo "1..$n"
