#!/usr/bin/env bash
# Every broken config in tests/configs-bad/ through the CLI: `pnbench run`
# exits 2, prints one error naming the file and the text EXPECTED lists, and
# writes no results (so e.g. a string that is not UTF-8 never reaches
# run.json).  Then `run --set` (each bad key exits 2 with one error naming
# the --set or the JSON path, a good one changes what runs) and `--dry-run`
# (prints the expanded matrix, exits 0, reads and writes nothing of the
# machine: it works under a --sysroot that does not exist).  TAP output.
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

ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	sed 's/^/#   /' "$T/stderr" "$T/stdout" 2>/dev/null | head -n 8
}

# --set KEY=VALUE that cannot apply: exit 2, one error with the reason.
while IFS='|' read -r set want; do
	"$PN" run configs/smoke.json --set "$set" -o "$T/set" >"$T/stdout" 2>"$T/stderr"
	rc=$?
	if [ $rc -eq 2 ] && grep -qF -- "$want" "$T/stderr" &&
		[ "$(grep -c 'error:' "$T/stderr")" -eq 1 ] && [ ! -e "$T/set" ]; then
		ok "--set $set: exit 2, \"$want\""
	else
		nok "--set $set: exit $rc, wanted \"$want\""
	fi
done <<'EOF2'
explict.size=1G|"explict" is no workload, collector or config section; did you mean "explicit"?
explicit.sise=1G|explicit has no option "sise"; did you mean "size"?
explicit.size=12Q|$.phases[0].workloads[0].params.size: "12Q" is not a size
collectors.intervall=1s|no key "intervall" in collectors; did you mean "interval"?
collectors.interval=xx|$.collectors.interval: "xx" is not a duration
latency.targets=0|the config runs no workload "latency"
vmstat.foo=1|vmstat has no option "foo"
iterations=0|$.iterations: 0 is out of range
explicit.size|not KEY=VALUE
size=1G|the key is OWNER.KEY
EOF2

# --dry-run: the matrix with its labels, every parameter, --set applied; no
# machine needed (a sysroot that does not exist) and nothing written.
if "$PN" --sysroot "$T/no-such-machine" run --dry-run configs/exhaust.json -o "$T/dry" \
	--set exhaust.over=64M --set collectors.interval=1s -n 2 >"$T/stdout" 2>"$T/stderr" &&
	grep -q '^would run: 3 points x 2 iterations, 12 phases in all$' "$T/stdout" &&
	grep -q '^point 2/3  policy=preferred_many$' "$T/stdout" &&
	[ "$(grep -c 'over=64.0 MiB' "$T/stdout")" -eq 6 ] &&
	grep -q 'every 1000.0 ms' "$T/stdout" && [ ! -e "$T/dry" ] && [ ! -s "$T/stderr" ]; then
	ok "run --dry-run: points, labels, --set and -n applied, no machine read, nothing written"
else
	nok "run --dry-run configs/exhaust.json"
fi
if "$PN" run --dry-run --format json configs/exhaust.json --set exhaust.chunk=4M >"$T/stdout" \
	2>"$T/stderr" && /usr/bin/python3 -c '
import json, sys
pts = json.load(open(sys.argv[1]))
assert [p["label"] for p in pts] == ["policy=preferred", "policy=preferred_many", "policy=interleave"], pts
for p in pts:
    for ph in p["config"]["phases"]:
        assert ph["workloads"][0]["params"]["chunk"] == 4 << 20, ph
' "$T/stdout" 2>>"$T/stderr"; then
	ok "run --dry-run --format json: each point's label and resolved config, --set in it"
else
	nok "run --dry-run --format json"
fi

# --set changes the run itself: the resolved config in run.json has it.
if "$PN" run configs/smoke.json -q -n 1 --set explicit.size=4M -o "$T/run" >"$T/stdout" \
	2>"$T/stderr"; [ -f "$T/run/run.json" ] && /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["points"][0]["config"]["phases"][0]["workloads"][0]["params"]
assert p["size"] == 4 << 20, p
assert d["command"][d["command"].index("--set") + 1] == "explicit.size=4M", d["command"]
' "$T/run/run.json" 2>>"$T/stderr"; then
	ok "run --set explicit.size=4M: the point's resolved config has 4 MiB, the command records the --set"
else
	nok "run --set explicit.size=4M"
fi
echo "1..$n"
