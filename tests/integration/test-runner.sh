#!/usr/bin/env bash
# The core's process model on the machine at hand: workloads in their own
# processes and cgroups, outcomes, the suite memory budget, knobs restored,
# streamed time series, output directories, --exec failures, config node
# checks, summaries, exact per-workload accounting.  TAP output; what needs
# root or a memory cgroup here SKIPs with the reason.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
PN=${PNBENCH_BIN:-build/pnbench}
PN=$(realpath "$PN" 2>/dev/null || echo "$PN")
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
PY=/usr/bin/python3
VALIDATE=$PWD/results/schema/validate.py
T=$(mktemp -d /tmp/pnbench-runner.XXXXXX)
export PNBENCH_RUNDIR=$T/run # the runs' journals: the kill -9 below leaves one
trap 'rm -rf "$T"' EXIT
# The foreign process is built plain (not with the suite's sanitizers, whose
# shadow memory would be part of its census).
LEAK=$T/pn-leak
cc -O2 -o "$LEAK" tests/tools/pn-leak.c -lnuma 2>/dev/null || rm -f "$LEAK"
wl0='d["points"][0]["iterations"][0]["phases"][0]["workloads"][0]'

[ -x "$PN" ] || { echo "1..0 # SKIP $PN not built"; exit 4; }
root=0
[ "$(id -u)" -eq 0 ] && root=1
pnrun run configs/smoke.json -o "$T/probe" >/dev/null 2>"$T/probe.err"
cgv=$(json "$T/probe/run.json" 'd["accounting"]["cgroup"]["version"]')
cgwhy=$(json "$T/probe/run.json" 'd["accounting"]["cgroup"]["reason"]')

# ---- output directory ----
touch "$T/afile"
pnrun run configs/smoke.json -o "$T/afile" >"$T/o.out" 2>"$T/o.err"
rc=$?
expect "-o naming a regular file: exit 2 before anything runs" "rc=$rc $(cat "$T/o.err")" \
	test $rc -eq 2 -a ! -s "$T/o.out"
grep -q "not a directory" "$T/o.err"
expect "  ... and says it is not a directory" "$(cat "$T/o.err")" test $? -eq 0
mkdir -p "$T/cwd"
(cd "$T/cwd" && "$PN" run -q "$OLDPWD/configs/smoke.json" >/dev/null 2>&1 & cd "$T/cwd" && "$PN" run -q "$OLDPWD/configs/smoke.json" >/dev/null 2>&1; wait)
dirs=$(find "$T/cwd/results/runs" -mindepth 1 -maxdepth 1 -type d | wc -l)
valid=0
for d in "$T"/cwd/results/runs/*/; do $PY "$VALIDATE" "$d" >/dev/null 2>&1 && valid=$((valid + 1)); done
expect "two runs started together get two result directories ($dirs), both valid ($valid)" \
	"dirs=$dirs valid=$valid" test "$dirs" -eq 2 -a "$valid" -eq 2

# ---- config errors about this machine ----
cat >"$T/nonode.json" <<'EOF'
{"name": "nonode", "phases": [{"name": "p", "workloads": [{"workload": "explicit", "params": {"nodes": "7", "size": "4M", "chunk": "1M"}}]}]}
EOF
pnrun run "$T/nonode.json" -o "$T/nonode" >/dev/null 2>"$T/nonode.err"
rc=$?
grep -q 'workloads\[0\].params.nodes: node(s) 7 have no memory' "$T/nonode.err"
expect "a workload naming a node this machine lacks: exit 2 naming the field" \
	"rc=$rc $(cat "$T/nonode.err")" test $rc -eq 2 -a $? -eq 0

# ---- --exec failures are visible ----
pnrun run -o "$T/ex3" --exec -- sh -c 'exit 3' >"$T/ex3.out" 2>&1
rc=$?
st=$(json "$T/ex3/run.json" 'd["status"]["state"]')
why=$(json "$T/ex3/run.json" '"; ".join(d["verdict"]["reasons"])')
expect "--exec of a command that exits 3: exit 3, run failed, verdict says so" \
	"rc=$rc state=$st reasons=$why" test $rc -eq 3 -a "$st" = failed
expect "  ... with the command's exit status as a failed check" "$(grep -i check "$T/ex3.out")" \
	grep -q "FAIL exec/--exec command exit status: expected exit 0, observed exit 3" "$T/ex3.out"

# ---- a workload killed by its cgroup is an outcome, not a crash ----
cat >"$T/oom.json" <<'EOF'
{"name": "oom", "nodes": {"dram": "auto"}, "phases": [
 {"name": "bounded", "workloads": [{"workload": "explicit",
   "params": {"size": "64M", "chunk": "1M", "nodes": "dram"}, "cgroup": {"memory.max": "16M"}}]},
 {"name": "after", "workloads": [{"workload": "explicit", "params": {"size": "8M", "chunk": "1M", "nodes": "dram"}}]}]}
EOF
if [ $root -eq 0 ] || [ -z "$cgv" ] || [ "$cgv" = None ]; then
	skip "a workload killed by memory.max is reported with its cause" "no memory cgroup here: $cgwhy"
	skip "an expected OOM kill passes" "no memory cgroup here: $cgwhy"
	skip "a run whose only workload was OOM-killed says so" "no memory cgroup here: $cgwhy"
else
	pnrun run "$T/oom.json" -o "$T/oom" >/dev/null 2>&1
	rc=$?
	end=$(json "$T/oom/run.json" "${wl0}[\"outcome\"][\"end\"]")
	st=$(json "$T/oom/run.json" "${wl0}[\"status\"]")
	after=$(json "$T/oom/run.json" 'd["points"][0]["iterations"][0]["phases"][1]["workloads"][0]["status"]')
	expect "a workload killed by memory.max (cgroup v$cgv): outcome $end, status $st, the next phase ran ($after), exit 3" \
		"rc=$rc end=$end status=$st after=$after" \
		test $rc -eq 3 -a "$end" = oom_kill -a "$st" = failed -a "$after" = ok
	sed 's/"cgroup": {"memory.max": "16M"}}/"cgroup": {"memory.max": "16M"}, "expect": "oom_kill"}/' "$T/oom.json" >"$T/oom2.json"
	pnrun run "$T/oom2.json" -o "$T/oom2" >/dev/null 2>&1
	rc=$?
	expect "an expected OOM kill (\"expect\": \"oom_kill\") passes its outcome check: exit 0" \
		"rc=$rc" test $rc -eq 0
	# a run whose only workload was OOM-killed says so, not "no workload ran"
	printf '%s\n' '{"name": "oomonly", "nodes": {"dram": "auto"}, "phases": [{"name": "bounded", "workloads": [' \
		' {"workload": "explicit", "params": {"size": "64M", "chunk": "1M", "nodes": "dram"}, "cgroup": {"memory.max": "16M"}}]}]}' >"$T/oom3.json"
	pnrun run "$T/oom3.json" -o "$T/oom3" >/dev/null 2>&1
	rc=$?
	why=$(json "$T/oom3/run.json" 'd["status"]["reason"]')
	expect "a run whose only workload was OOM-killed: exit $rc, status reason: $why" "rc=$rc why=$why" \
		sh -c "[ $rc -eq 3 ] && echo \"\$1\" | grep -q '^no workload ended as expected: 1 failed (last: oom_kill'" _ "$why"
fi

# ---- the suite budget holds for the phase's workloads together ----
cat >"$T/budget.json" <<'EOF'
{"name": "budget", "limits": {"max_mem_share": 0.5}, "phases": [{"name": "p", "workloads": [
 {"workload": "explicit", "params": {"size": "1G", "chunk": "2M", "nodes": "dram", "max_mem_share": 0.4}},
 {"workload": "explicit", "params": {"size": "1G", "chunk": "2M", "nodes": "dram", "max_mem_share": 0.4}}]}]}
EOF
avail=$(awk '/MemAvailable/ {printf "%d", $2 / 1024}' /proc/meminfo)
big=$((avail * 3 / 10))M
sed "s/\"1G\"/\"$big\"/g" "$T/budget.json" >"$T/budget2.json"
pnrun run "$T/budget2.json" -o "$T/budget" >/dev/null 2>&1
rc=$?
why=$(json "$T/budget/run.json" "${wl0}[\"reason\"]")
expect "two workloads of 30% of MemAvailable each are refused together (limit 50%): exit 3" \
	"rc=$rc reason=$why" test $rc -eq 3
expect "  ... each with the reason" "$why" grep -q "together" <<<"$why"

# ---- knobs: set for the phase, restored after it, also after SIGINT ----
if [ $root -eq 0 ]; then
	skip "knobs are restored after the phase" "needs root to write /proc/sys"
	skip "knobs are restored after SIGINT" "needs root to write /proc/sys"
else
	old=$(cat /proc/sys/vm/stat_interval)
	new=$((old + 2))
	cat >"$T/knob.json" <<EOF
{"name": "knob", "iterations": ITER, "phases": [{"name": "p", "knobs": {"vm.stat_interval": $new},
 "workloads": [{"workload": "explicit", "params": {"size": "32M", "chunk": "1M", "nodes": "dram"}}]}]}
EOF
	sed 's/ITER/1/' "$T/knob.json" >"$T/knob1.json"
	pnrun run "$T/knob1.json" -o "$T/knob1" >/dev/null 2>&1
	now=$(cat /proc/sys/vm/stat_interval)
	rec=$(json "$T/knob1/run.json" 'd["points"][0]["iterations"][0]["phases"][0]["knobs"][0]')
	expect "a phase knob is set and restored (vm.stat_interval $old -> $new -> $now)" "$rec" \
		test "$now" = "$old" -a -n "$(grep -o "'restored': True" <<<"$rec")"
	sed 's/ITER/500/' "$T/knob.json" >"$T/knob2.json"
	"$PN" run "$T/knob2.json" -o "$T/knob2" >/dev/null 2>&1 &
	pid=$!
	# One read per poll, kept: the knob is set at each iteration's phase
	# start and restored at its end, so a second read after the loop can
	# fall between two iterations and see the old value.
	during=
	for _ in $(seq 50); do
		during=$(cat /proc/sys/vm/stat_interval)
		[ "$during" = "$new" ] && break
		sleep 0.1
	done
	kill -INT $pid
	wait $pid
	rc=$?
	now=$(cat /proc/sys/vm/stat_interval)
	expect "knobs are restored after SIGINT (during the run $during, after $now, before $old; exit $rc)" \
		"rc=$rc" test "$during" = "$new" -a "$now" = "$old" -a $rc -eq 130
	echo "$old" >/proc/sys/vm/stat_interval
fi

# ---- time series survive a kill -9 ----
cat >"$T/ts.json" <<'EOF'
{"name": "ts", "iterations": 500, "collectors": {"interval": "50ms", "enabled": ["vmstat", "nodestat"]},
 "phases": [{"name": "p", "workloads": [{"workload": "explicit", "params": {"size": "16M", "chunk": "1M", "nodes": "dram"}}]}]}
EOF
"$PN" run "$T/ts.json" -o "$T/ts" >/dev/null 2>&1 &
pid=$!
# Kill once the series has rows on disk (a fixed delay raced a slow start).
for _ in $(seq 100); do
	[ -f "$T/ts/vmstat.csv" ] && [ "$(wc -l <"$T/ts/vmstat.csv")" -gt 12 ] && break
	sleep 0.1
done
kill -9 $pid
wait $pid 2>/dev/null
rows=$(($(wc -l <"$T/ts/vmstat.csv") - 1))
st=$(json "$T/ts/run.json" 'd["status"]["state"]')
$PY "$VALIDATE" "$T/ts" >"$T/ts.val" 2>&1
vrc=$?
expect "after kill -9 the time series are on disk ($rows vmstat rows), run.json valid and $st" \
	"rows=$rows state=$st $(cat "$T/ts.val")" test "$rows" -gt 10 -a "$st" = incomplete -a $vrc -eq 0
# the killed run's cgroup is in its journal: recover removes it, then runs start again
"$PN" recover >"$T/rec.out" 2>&1
rc=$?
cg=$(sed -n 's/^  cgroup \(.*\): removed$/\1/p' "$T/rec.out" | grep -c "pnbench-$pid\$")
expect "pnbench recover after kill -9: exit $rc, the run's cgroup removed ($cg), no journal left" \
	"rc=$rc $(cat "$T/rec.out")" test $rc -eq 0 -a "$cg" = 1 -a ! -e "$PNBENCH_RUNDIR/journal.$pid"

# ---- summaries: foreground workloads that ran, indexed among themselves ----
cat >"$T/sum.json" <<'EOF'
{"name": "sum", "iterations": 2,
 "background": [{"workload": "explicit", "params": {"size": "4M", "chunk": "1M", "nodes": "dram"}}],
 "phases": [{"name": "p", "workloads": [{"workload": "explicit", "params": {"size": "8M", "chunk": "1M", "nodes": "dram"}}]}]}
EOF
pnrun run "$T/sum.json" -o "$T/sum" >"$T/sum.out" 2>&1
rc=$?
idx=$(json "$T/sum/run.json" 'sorted(set((e["workload_index"], e["values"][0]) for e in d["points"][0]["summary"]["metrics"] if e["name"] == "pages_total"))')
expect "the summary holds the foreground workload only, as index 0 ($idx)" "rc=$rc idx=$idx" \
	test "$idx" = "[(0, 2048)]"
bgexp=$(json "$T/sum/run.json" 'd["points"][0]["iterations"][0]["phases"][0]["nodes"]["0"]["explained_pages"]')
expect "a background workload's pages are not explained ($bgexp explained, the foreground's 2048)" \
	"explained=$bgexp" test "$bgexp" = 2048

# ---- exact per-workload accounting: the cgroup and the census agree ----
if [ -z "$cgv" ] || [ "$cgv" = None ]; then
	skip "cgroup numa_stat and move_pages agree to the page" "no memory cgroup here: $cgwhy"
else
	for mb in 16 48; do
		cat >"$T/acc$mb.json" <<EOF
{"name": "acc", "phases": [{"name": "p", "workloads": [{"workload": "explicit", "params": {"size": "${mb}M", "chunk": "1M", "nodes": "dram"}}]}]}
EOF
		pnrun run "$T/acc$mb.json" -o "$T/acc$mb" >/dev/null 2>&1
	done
	c16=$(json "$T/acc16/run.json" "${wl0}[\"placement\"][\"per_node\"][\"0\"]")
	c48=$(json "$T/acc48/run.json" "${wl0}[\"placement\"][\"per_node\"][\"0\"]")
	a16=$(json "$T/acc16/run.json" "${wl0}[\"cgroup\"][\"numa_stat\"][\"0\"][\"anon\"]")
	a48=$(json "$T/acc48/run.json" "${wl0}[\"cgroup\"][\"numa_stat\"][\"0\"][\"anon\"]")
	# v2 counts mapped anon pages; v1 counts LRU pages, and up to one per-CPU
	# LRU batch (15 pages per CPU) may not have reached the LRU yet.
	tol=0
	[ "$cgv" = 1 ] && tol=$((15 * $(nproc)))
	d=$((a48 - a16))
	expect "cgroup v$cgv numa_stat and move_pages agree (to the page on v2, within $tol on v1): 32 MiB more is $d more anon pages in the cgroup, $((c48 - c16)) by the census (8192)" \
		"numa_stat $a16 -> $a48, census $c16 -> $c48" \
		test $((c48 - c16)) -eq 8192 -a $d -ge $((8192 - tol)) -a $d -le $((8192 + tol))
fi

# ---- thresholds: -1 reports without judging ----
if [ -x "$LEAK" ]; then
	cat >"$T/report-only.json" <<'EOF'
{"name": "report-only", "nodes": {"private": "0"}, "thresholds": {"general_pages": -1},
 "phases": [{"name": "exec", "workloads": []}]}
EOF
	pnrun run "$T/report-only.json" -o "$T/ro" --exec -- "$LEAK" 4096 0 500 >/dev/null 2>&1
	rc=$?
	g=$(json "$T/ro/run.json" 'd["verdict"]["nodes"]["0"]["general_pages_max"]')
	expect "general_pages -1 reports the general pages ($g on node 0) without failing the verdict (exit $rc)" \
		"rc=$rc general=$g" test $rc -eq 0 -a "${g%.*}" -gt 0
fi

# ---- the verdict says where the worst general pages were, and what pressure ----
cat >"$T/where.json" <<'EOF'
{"name": "where", "nodes": {"private": "0"}, "thresholds": {"general_pages": 0},
 "phases": [{"name": "quiet", "workloads": []},
            {"name": "squeeze", "workloads": [
              {"workload": "pressure", "params": {"kinds": "anon", "anon_share": 0.01, "threads": 1, "duration": "1s"}}]}]}
EOF
pnrun run "$T/where.json" -o "$T/where" >/dev/null 2>&1
rc=$?
vw='d["verdict"]["nodes"]["0"]["worst"]'
w=$(json "$T/where/run.json" "${vw}[\"phase\"] + \" \" + \",\".join(${vw}[\"pressure_active\"]) + \" \" + str(int(${vw}[\"kinds\"].get(\"anon\", 0)))")
why=$(json "$T/where/run.json" 'd["verdict"]["reasons"][0]')
read -r wph wact wanon <<<"$w"
expect "a failed verdict names the phase of the worst general pages and the pressure active there: $why" \
	"rc=$rc worst=$w" test $rc -eq 1 -a "${wph:-}" = squeeze -a "${wact:-}" = anon -a "${wanon:-0}" -gt 0

# ---- a foreign process: its pages at exit, exactly ----
if [ -x "$LEAK" ]; then
	ex='d["points"][0]["iterations"][0]["phases"][0]["exec"]'
	for p in 5000 9000; do
		pnrun run -o "$T/leak$p" --exec -- "$LEAK" $p 0 >/dev/null 2>&1
	done
	l5=$(json "$T/leak5000/run.json" "${ex}[\"last_anon_pages_per_node\"][\"0\"]")
	l9=$(json "$T/leak9000/run.json" "${ex}[\"last_anon_pages_per_node\"][\"0\"]")
	atexit=$(json "$T/leak5000/run.json" "${ex}[\"exit_census\"]")
	# The census is every present page of the command's anonymous mappings:
	# its leak plus its own few pages of stack, heap and library data.
	expect "--exec census taken at the command's exit ($atexit): 5000 leaked pages -> $l5 anonymous pages ($((l5 - 5000)) its own), 9000 -> $l9 ($((l9 - 9000)))" \
		"census $l5 -> $l9 exit_census=$atexit" \
		test "$atexit" = True -a $((l5 - 5000)) -ge 0 -a $((l5 - 5000)) -lt 64 -a $((l9 - 9000)) -ge 0 -a $((l9 - 9000)) -lt 64
else
	skip "--exec census at the command's exit" "$LEAK not built"
fi
truth_report
echo "1..$n"
