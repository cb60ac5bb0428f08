#!/usr/bin/env bash
# The verdict never passes what it could not see: a counter file that does
# not parse, a collector that cannot start, events required and missing give
# a clear error or "inconclusive" (exit 5), never "pass"; a counters-only
# verdict names its blind spot; run.json's verdict.exit_code is the process's
# exit status.  The verdict's checks and worst readings, counted in C as the
# phases record them, agree with what run.json's phases say
# (tests/tools/check-verdict-tree.py) in the goldens and in every run here.
# Replayed machines (PNBENCH_SYSROOT) and the host.  TAP.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
PN=${PNBENCH_BIN:-build/pnbench}
PN=$(realpath "$PN" 2>/dev/null || echo "$PN")
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
PY=/usr/bin/python3
VALIDATE=$PWD/results/schema/validate.py
T=$(mktemp -d /tmp/pnbench-verdict.XXXXXX)
trap 'rm -rf "$T"' EXIT
# run.json's verdict.exit_code must be the exit status the process returned
truth() { # truth DIR RC
	local got
	got=$(json "$1/run.json" 'd["verdict"]["exit_code"]')
	expect "  ... run.json verdict.exit_code ($got) is the exit status ($2)" "$1" test "$got" = "$2"
}

[ -x "$PN" ] || { echo "1..0 # SKIP $PN not built"; exit 4; }
FX=tests/fixtures/qemu-3node-memonly

# ---- a zoneinfo that does not parse: inconclusive, never pass ----
cp -r "$FX" "$T/bad"
sed -i 's/pages free/pages fr33/' "$T/bad/proc/zoneinfo"
pnrun --sysroot "$T/bad" run -q --private 1,2 -o "$T/z" --exec -- true >"$T/z.out" 2>"$T/z.err"
rc=$?
res=$(json "$T/z/run.json" 'd["verdict"]["result"]')
why=$(json "$T/z/run.json" 'd["verdict"]["nodes"]["1"]["inconclusive_reason"]')
expect "a zoneinfo that does not parse: exit 5, verdict $res" "rc=$rc $(tail -n 3 "$T/z.out")" \
	test $rc -eq 5 -a "$res" = inconclusive
expect "  ... each private node says why: $why" "$why" grep -q "counters unreadable.*zoneinfo" <<<"$why"
expect "  ... the terminal says INCONCLUSIVE, not PASS" "$(cat "$T/z.out")" \
	grep -q "node 2: 0 pages .*INCONCLUSIVE" "$T/z.out"
$PY "$VALIDATE" "$T/z" >"$T/z.val" 2>&1
expect "  ... run.json is valid against the schema" "$(cat "$T/z.val")" test $? -eq 0
truth "$T/z" $rc

# ---- counters only: the verdict names what it cannot see ----
pnrun --sysroot "$FX" run -q --private 1,2 --no-events -o "$T/c" --exec -- true >"$T/c.out" 2>&1
rc=$?
line=$(grep '^verdict:' "$T/c.out")
iv=$(json "$T/c/run.json" 'd["verdict"]["blind_spot"]["sample_interval_ms"]')
ev=$(json "$T/c/run.json" 'd["verdict"]["sources"]["events"]')
expect "counters only (--no-events): exit 0, $line" "rc=$rc" test $rc -eq 0 -a "$ev" = False
expect "  ... the line names the blind spot (interval $iv ms) and the samples a phase got" "$line" \
	grep -qE "^verdict: pass \(counters only: allocations that live < $iv ms between samples are invisible; the phase with the fewest got [0-9]+ sample" <<<"$line"
truth "$T/c" $rc
/usr/bin/python3 report/pnreport.py run "$T/c" -o "$T/c.html" >/dev/null 2>&1
expect "  ... the HTML report names the same blind spot" "$(grep -o 'Counters only[^.]*' "$T/c.html" 2>/dev/null)" \
	grep -q "Counters only</b> (no events: perf off: --no-events): allocations that live less than $iv ms" "$T/c.html"
cat >"$T/req.json" <<'CFG'
{"name": "req", "nodes": {"private": "1,2"}, "phases": [{"name": "p", "workloads": []}],
 "verdict": {"require": ["events"]}}
CFG
pnrun --sysroot "$FX" run -q "$T/req.json" --no-events -o "$T/r" --exec -- true >"$T/r.out" 2>&1
rc=$?
why=$(json "$T/r/run.json" '[x for x in d["verdict"]["reasons"] if "requires events" in x][0]')
expect "verdict.require [\"events\"] without events: exit 5 ($why)" "rc=$rc $(tail -n 3 "$T/r.out")" \
	test $rc -eq 5 -a -n "$why"
truth "$T/r" $rc

# ---- a collector that cannot start: a clear error, never a silent pass ----
cat >"$T/ring.json" <<'CFG'
{"name": "ring", "collectors": {"enabled": [{"name": "perf", "params": {"ring_pages": 9}}]},
 "phases": [{"name": "p", "workloads": [{"workload": "explicit", "params": {"size": "4M", "nodes": "dram"}}]}]}
CFG
pnrun run -q "$T/ring.json" -o "$T/ring" >"$T/ring.out" 2>"$T/ring.err"
rc=$?
expect "perf ring_pages 9: exit 2 naming the field, nothing written" "rc=$rc $(cat "$T/ring.err")" \
	test $rc -eq 2 -a ! -e "$T/ring/run.json"
expect "  ... $(head -n1 "$T/ring.err")" "$(cat "$T/ring.err")" \
	grep -q 'collectors.enabled\[0\].params.ring_pages: 9 is not a power of two' "$T/ring.err"
sed 's/"ring_pages": 9/"nodes": "7"/' "$T/ring.json" >"$T/node7.json"
pnrun run -q "$T/node7.json" -o "$T/node7" >/dev/null 2>"$T/node7.err"
rc=$?
expect "perf naming node 7, which this machine lacks: exit 2 naming the field" \
	"rc=$rc $(cat "$T/node7.err")" grep -q 'collectors.enabled\[0\].params.nodes: node(s) 7 have no memory' "$T/node7.err"
# a listed collector that fails at run time (its file does not parse): inconclusive
cp -r "$FX" "$T/bad2"
printf 'garbage\n' >"$T/bad2/proc/vmstat"
cat >"$T/vm.json" <<'CFG'
{"name": "vm", "nodes": {"private": "1,2"}, "collectors": {"enabled": ["vmstat"]},
 "phases": [{"name": "p", "workloads": []}]}
CFG
pnrun --sysroot "$T/bad2" run -q "$T/vm.json" -o "$T/vm" --exec -- true >"$T/vm.out" 2>"$T/vm.err"
rc=$?
why=$(json "$T/vm/run.json" '[x for x in d["verdict"]["reasons"] if "did not run" in x][0]')
expect "a listed collector that cannot open: exit 5, not pass ($why)" \
	"rc=$rc $(cat "$T/vm.err")" test $rc -eq 5 -a -n "$why"
truth "$T/vm" $rc

# ---- the host: events by default, the same exit in run.json ----
if [ "$(id -u)" -ne 0 ]; then
	ok "events by default on the host # SKIP needs root for the perf collector"
else
	pnrun run -q configs/smoke.json -o "$T/s" >"$T/s.out" 2>"$T/s.err"
	rc=$?
	st=$(json "$T/s/run.json" '[(c["collector"], c["requested"], c["status"]) for c in d["collectors"] if c["collector"] == "perf"]')
	expect "configs/smoke.json runs the perf collector though it lists none: $st" \
		"rc=$rc $(grep perf "$T/s.err")" grep -q "('perf', False, '\(ok\|skipped\)')" <<<"$st"
	truth "$T/s" $rc
fi
# ---- the recorded state against the results tree ----
AGREE=tests/tools/check-verdict-tree.py
pnrun --sysroot "$FX" run -q --private 1,2 -o "$T/x" --exec -- false >"$T/x.out" 2>&1
rc=$?
fails=$(json "$T/x/run.json" 'd["verdict"]["checks"]["failures"][0]["observed"]')
expect "a failed --exec command: exit 3, a failed check observing \"$fails\"" \
	"rc=$rc $(tail -n 3 "$T/x.out")" test $rc -eq 3 -a "$fails" = "exit 1"
pnrun run -q --private 0 -o "$T/leak" --exec -- \
	sh -c "head -c 32M /dev/urandom >'$T/leak.f'; sync" >"$T/leak.out" 2>&1
rc=$?
worst=$(json "$T/leak/run.json" 'd["verdict"]["nodes"]["0"]["worst"]["general_pages"]')
if [ $rc -eq 1 ] && [ -n "$worst" ]; then
	ok "page cache on the private-role node 0: exit 1, its worst phase $worst general pages"
else
	skip "page cache on the private-role node 0: a worst reading" \
		"this host showed none (exit $rc): $(tail -n 1 "$T/leak.out")"
fi
runs=("$T"/*/run.json)
out=$($PY "$AGREE" tests/golden/*.json "${runs[@]}" 2>&1)
rc=$?
expect "checks and worst readings as recorded agree with the tree: goldens and ${#runs[@]} run(s) here" \
	"exit $rc: $out" test $rc -eq 0 -a -z "$out"
# the reader can disagree: a golden whose tree was changed after its verdict
$PY - tests/golden/exec-leak-fail.json "$T/mut.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
ph = d['points'][0]['iterations'][0]['phases'][0]
ph['name'] = 'renamed'
ph['exec']['exit_code'] = 7
json.dump(d, open(sys.argv[2], 'w'))
PYEOF
out=$($PY "$AGREE" "$T/mut.json" 2>&1)
rc=$?
expect "  ... a tree changed after its verdict disagrees (checks and worst)" "exit $rc: $out" \
	test $rc -eq 1 -a "$(grep -c 'verdict.checks.failed\|verdict.nodes.0.worst' <<<"$out")" -eq 2
truth_report
echo "1..$n"
