#!/usr/bin/env bash
# What CI and dashboards ingest: `run --junit/--tap/--openmetrics FILE` on real
# small runs (the smoke config on this host; --exec on a replayed 3-node
# machine: passed, failed and inconclusive, interrupted), each file checked
# against its format (tests/schemas/junit.xsd with xmllint, TAP::Parser,
# prometheus_client's OpenMetrics parser) and against run.json (the same
# checks, the same verdict) by check-ci-outputs.py; corrupted copies must be
# rejected; a symlink or a missing directory is refused before the run.
# TAP.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
PN=${PNBENCH_BIN:-build/pnbench}
PN=$(realpath "$PN" 2>/dev/null || echo "$PN")
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
PY=/usr/bin/python3
CHECK=tests/integration/check-ci-outputs.py

[ -x "$PN" ] || { echo "1..0 # SKIP $PN not built"; exit 4; }
command -v xmllint >/dev/null || { echo "1..0 # SKIP xmllint not installed (libxml2-utils, make deps)"; exit 4; }
$PY -c 'import prometheus_client.openmetrics.parser' 2>/dev/null ||
	{ echo "1..0 # SKIP python3-prometheus-client not installed (make deps)"; exit 4; }
T=$(mktemp -d /tmp/pnbench-ciout.XXXXXX)
trap 'rm -rf "$T"' EXIT
FX=tests/fixtures/qemu-3node-memonly

# ci NAME: check the three files of run T/NAME (written as T/NAME/ci.*)
ci() {
	local d=$T/$1
	$PY $CHECK "$d/run.json" --junit "$d/ci.xml" --tap "$d/ci.tap" --openmetrics "$d/ci.om" \
		>"$d/check.out" 2>&1
}
outs() { echo --junit "$T/$1/ci.xml" --tap "$T/$1/ci.tap" --openmetrics "$T/$1/ci.om"; }

# ---- the smoke config on this host: real workloads, checks, metrics ----
# shellcheck disable=SC2046
pnrun run -q configs/smoke.json -o "$T/smoke" $(outs smoke) >"$T/smoke.out" 2>&1
rc=$?
res=$(json "$T/smoke/run.json" 'd["verdict"]["result"]')
nck=$(json "$T/smoke/run.json" 'd["verdict"]["checks"]["total"]')
expect "smoke config: exit $rc ($res), three files beside run.json" "$(tail -n 3 "$T/smoke.out")" \
	test -s "$T/smoke/ci.xml" -a -s "$T/smoke/ci.tap" -a -s "$T/smoke/ci.om"
ci smoke
rc=$?
expect "  ... valid, and they say what run.json says ($nck checks, verdict $res)" \
	"$(cat "$T/smoke/check.out")" test $rc -eq 0
expect "  ... the metrics are in the OpenMetrics file" "$(grep -c pnbench_metric "$T/smoke/ci.om")" \
	grep -q '^pnbench_metric{config="smoke",point="0",matrix="",phase="alloc",workload_index="0",workload="explicit",metric="pages_total",labels="",unit="pages",better="",aggregate="last"} [1-9][0-9]*$' "$T/smoke/ci.om"

# ---- a replayed machine with private nodes 1 and 2: pass ----
# shellcheck disable=SC2046
pnrun --sysroot "$FX" run -q --private 1,2 -o "$T/pass" $(outs pass) --exec -- true \
	>"$T/pass.out" 2>&1
rc=$?
ci pass
crc=$?
expect "replayed, --exec true: exit $rc, the files agree with run.json" "$(cat "$T/pass/check.out")" \
	test $crc -eq 0 -a $rc -eq 0
expect "  ... each private node a JUnit testcase that passed" "$(grep 'pnbench.node' "$T/pass/ci.xml")" \
	test "$(grep -c 'classname="pnbench.node" name="private node [12]: general allocations" time="0"/>' "$T/pass/ci.xml")" -eq 2
expect "  ... pnbench_verdict 0 for node 1" "$(grep pnbench_verdict "$T/pass/ci.om")" \
	grep -q '^pnbench_verdict{config="exec",node="1",kernel="[^"]*"} 0$' "$T/pass/ci.om"
iv=$(json "$T/pass/run.json" 'd["verdict"]["blind_spot"]["sample_interval_ms"]')
expect "  ... a counters-only pass names its blind spot in all three (interval $iv ms)" \
	"$(grep -h 'blind_spot\|counters only\|events=' "$T/pass/ci.xml" "$T/pass/ci.tap" "$T/pass/ci.om")" \
	test -n "$iv" -a "$(grep -c "<property name=\"blind_spot\" value=\"counters only .*(sample interval $iv ms)\"/>" "$T/pass/ci.xml")" -eq 1 -a \
	"$(grep -c "^# counters only .*(sample interval $iv ms)$" "$T/pass/ci.tap")" -eq 1 -a \
	"$(grep -c '^pnbench_run_info{.*,events="off"} 1$' "$T/pass/ci.om")" -eq 1

# ---- counters that do not parse, a command that fails: inconclusive nodes ----
cp -r "$FX" "$T/badfx"
sed -i 's/pages free/pages fr33/' "$T/badfx/proc/zoneinfo"
# shellcheck disable=SC2046
pnrun --sysroot "$T/badfx" run -q --private 1,2 -o "$T/incon" $(outs incon) --exec -- false \
	>"$T/incon.out" 2>&1
rc=$?
ci incon
crc=$?
expect "zoneinfo that does not parse, --exec false: exit $rc, the files agree with run.json" \
	"$(cat "$T/incon/check.out")" test $crc -eq 0 -a $rc -eq 3
expect "  ... JUnit: the nodes <skipped> as inconclusive, the command's status a <failure>" \
	"$(grep -E 'skipped|failure' "$T/incon/ci.xml")" \
	test "$(grep -c '<skipped message="inconclusive: node [12]: counters unreadable' "$T/incon/ci.xml")" -eq 2 -a \
	"$(grep -c '<failure type="check" message="expected exit 0, observed exit 1"' "$T/incon/ci.xml")" -eq 1
expect "  ... TAP: the nodes not ok (inconclusive), never ok" "$(grep 'private node' "$T/incon/ci.tap")" \
	test "$(grep -c '^not ok [0-9]* - private node [12]: general allocations (inconclusive)$' "$T/incon/ci.tap")" -eq 2
expect "  ... OpenMetrics: pnbench_verdict 2 for both nodes" "$(grep pnbench_verdict "$T/incon/ci.om")" \
	test "$(grep -c '^pnbench_verdict{.*} 2$' "$T/incon/ci.om")" -eq 2

# ---- interrupted: the files say incomplete, never pass ----
# shellcheck disable=SC2046
"$PN" --sysroot "$FX" run -q --private 1,2 -o "$T/intr" $(outs intr) --exec -- sleep 30 \
	>"$T/intr.out" 2>&1 &
pid=$!
# run.json is written after the CI files: once it is there, all are
for _ in $(seq 100); do [ -s "$T/intr/run.json" ] && break; sleep 0.1; done
ci intr
crc=$?
expect "while it runs: the files agree with run.json (incomplete)" "$(cat "$T/intr/check.out")" \
	test $crc -eq 0
expect "  ... pnbench_run_complete 0, the verdict testcase an <error>" "$(grep complete "$T/intr/ci.om")" \
	grep -q '^pnbench_run_complete{config="exec"} 0$' "$T/intr/ci.om"
kill -INT $pid
wait $pid
rc=$?
ci intr
crc=$?
expect "SIGINT: exit $rc, the files agree with run.json (interrupted)" "$(cat "$T/intr/check.out")" \
	test $crc -eq 0 -a $rc -eq 130
expect "  ... the nodes, nothing found so far, are inconclusive, not passed" \
	"$(grep -A1 'pnbench.node' "$T/intr/ci.xml")" \
	test "$(grep -c '<skipped message="inconclusive: the run is incomplete (interrupted by signal 2' "$T/intr/ci.xml")" -eq 2
expect "  ... TAP's last test: not ok - verdict: interrupted" "$(tail -n 8 "$T/intr/ci.tap")" \
	grep -q '^not ok 4 - verdict: interrupted$' "$T/intr/ci.tap"
expect "  ... pnbench_exit_code 130, pnbench_run_complete 0" "$(grep -E 'complete|exit' "$T/intr/ci.om")" \
	grep -q '^pnbench_exit_code{config="exec"} 130$' "$T/intr/ci.om"

# ---- a file that cannot be written: the run fails (exit 3), naming it ----
mkdir -p "$T/wr"
"$PN" --sysroot "$FX" run -q --private 1,2 -o "$T/wr/r" --openmetrics "$T/wr/m.prom" --exec -- sleep 2 \
	>"$T/wr.out" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -s "$T/wr/r/run.json" ] && break; sleep 0.1; done
rm -f "$T/wr/m.prom" && mkdir "$T/wr/m.prom" # what is there by the end is a directory
wait $pid
rc=$?
expect "--openmetrics FILE replaced by a directory during the run: exit $rc (3), the error names it" \
	"$(cat "$T/wr.out")" test $rc -eq 3 -a "$(grep -c -- "--openmetrics $T/wr/m.prom" "$T/wr.out")" -ge 1
expect "  ... run.json not written past it: still incomplete, never a verdict the files do not carry" \
	"$(json "$T/wr/r/run.json" 'd["status"]')" test "$(json "$T/wr/r/run.json" 'd["status"]["state"]')" = incomplete

# ---- corrupted copies are rejected ----
d=$T/pass
cp -r "$d" "$T/bad"
sed -i '0,/classname="pnbench.check" /s///' "$T/bad/ci.xml"
$PY $CHECK "$T/bad/run.json" --junit "$T/bad/ci.xml" >"$T/bad.out" 2>&1
expect "JUnit without a testcase's classname: rejected by the schema" "$(cat "$T/bad.out")" \
	grep -q 'not valid against' "$T/bad.out"
cp "$d/ci.xml" "$T/bad/ci.xml"
sed -i '0,/time="0"\/>/s//time="0"><skipped message="x"\/><\/testcase>/' "$T/bad/ci.xml"
$PY $CHECK "$T/bad/run.json" --junit "$T/bad/ci.xml" >"$T/bad.out" 2>&1
rc=$?
expect "JUnit where a check run.json passed is skipped: valid, but not what run.json says" \
	"$(cat "$T/bad.out")" test $rc -eq 1 -a "$(grep -c 'not valid' "$T/bad.out")" -eq 0
cp "$d/ci.xml" "$T/bad/ci.xml"
sed -i 's/^1\.\.4$/1..5/' "$T/bad/ci.tap"
$PY $CHECK "$T/bad/run.json" --junit "$T/bad/ci.xml" --tap "$T/bad/ci.tap" >"$T/bad.out" 2>&1
expect "TAP with a plan of 5 for 4 tests: rejected" "$(cat "$T/bad.out")" grep -q 'plan' "$T/bad.out"
sed '/^# EOF$/d' "$d/ci.om" >"$T/bad/ci.om"
$PY $CHECK "$T/bad/run.json" --openmetrics "$T/bad/ci.om" >"$T/bad.out" 2>&1
expect "OpenMetrics without # EOF: rejected by the parser" "$(cat "$T/bad.out")" \
	grep -q 'not OpenMetrics' "$T/bad.out"
sed 's/^\(pnbench_verdict{.*node="2".*}\) 0$/\1 1/' "$d/ci.om" >"$T/bad/ci.om"
$PY $CHECK "$T/bad/run.json" --openmetrics "$T/bad/ci.om" >"$T/bad.out" 2>&1
expect "OpenMetrics with node 2 failed where run.json passed it: rejected" "$(cat "$T/bad.out")" \
	grep -q 'pnbench_verdict node 2' "$T/bad.out"

# ---- the dashboard reads a directory of OpenMetrics files ----
mkdir -p "$T/tf"
cp "$T/smoke/ci.om" "$T/tf/smoke.prom"
cp "$T/incon/ci.om" "$T/tf/exec.prom"
sed '/^# EOF$/d' "$T/pass/ci.om" >"$T/tf/cut.prom"
$PY report/pnreport.py dashboard "$T/tf" --db "$T/tf.sqlite" -o "$T/dash" --csv "$T/tf.csv" >"$T/dash.out" 2>&1
rc=$?
expect "dashboard DIR-of-.prom: exit $rc (2: one file cut short), the other two indexed" "$(cat "$T/dash.out")" \
	test $rc -eq 2 -a "$(grep -c 'cut.prom: not OpenMetrics' "$T/dash.out")" -eq 1 -a \
	-n "$(grep '2 run(s) added' "$T/dash.out")"
# the same doubles: run.json's cJSON prints 15 digits when they read back within
# an epsilon, the OpenMetrics text 17 (exact): equal to 1e-12
cmpout=$($PY -c 'import csv, json, math, sys
got = {r["metric"]: float(r["value"]) for r in csv.DictReader(open(sys.argv[1]))
       if r["config_name"] == "smoke" and r["kind"] == "stat"}
want = {m["name"]: m["value"] for p in json.load(open(sys.argv[2]))["points"] for m in p["summary"]["metrics"]}
bad = [k for k in want if k not in got or not math.isclose(got[k], want[k], rel_tol=1e-12)]
print(f"{len(want)} metrics" if want and not bad and len(got) == len(want) else f"differ: {bad} {got} {want}")' \
	"$T/tf.csv" "$T/smoke/run.json")
expect "  ... the smoke run's metrics as run.json summarizes them ($cmpout)" "$cmpout" \
	grep -q '^[1-9][0-9]* metrics$' <<<"$cmpout"
verdicts=$($PY -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(c.execute("SELECT group_concat(node || \":\" || pass || inconclusive) FROM node_verdicts v JOIN runs r USING (run_id) WHERE r.verdict = \"error\"").fetchone()[0])' "$T/tf.sqlite")
expect "  ... the inconclusive run's nodes indexed inconclusive ($verdicts)" "$verdicts" test "$verdicts" = "1:11,2:11"

# ---- refused before the run ----
echo keep >"$T/target"
ln -s "$T/target" "$T/link.xml"
"$PN" --sysroot "$FX" run -q --private 1,2 -o "$T/sym" --junit "$T/link.xml" --exec -- true \
	>"$T/sym.out" 2>&1
rc=$?
expect "--junit naming a symlink: exit 2, nothing run, the target untouched" "$(cat "$T/sym.out")" \
	test $rc -eq 2 -a ! -e "$T/sym" -a "$(cat "$T/target")" = keep
expect "  ... the message names the option and the file" "$(cat "$T/sym.out")" \
	grep -q -- "--junit $T/link.xml" "$T/sym.out"
"$PN" --sysroot "$FX" run -q --private 1,2 -o "$T/nodir" --tap "$T/no/such/x.tap" --exec -- true \
	>"$T/nodir.out" 2>&1
rc=$?
expect "--tap in a directory that does not exist: exit 2, nothing run" "$(cat "$T/nodir.out")" \
	test $rc -eq 2 -a ! -e "$T/nodir"
"$PN" --sysroot "$FX" run -q --private 1,2 -o "$T/same" --tap "$T/x" --openmetrics "$T/x" \
	--exec -- true >"$T/same.out" 2>&1
rc=$?
expect "--tap and --openmetrics naming one file: exit 2" "$(cat "$T/same.out")" test $rc -eq 2

truth_report
echo "1..$n"
