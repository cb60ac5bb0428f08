#!/usr/bin/env bash
# Integration tests of the pnbench command line on the machine at hand.
# TAP output; checks that need what this machine lacks print "# SKIP reason".
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
PN=${PNBENCH_BIN:-build/pnbench}
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
PY=/usr/bin/python3
VALIDATE=results/schema/validate.py
T=$(mktemp -d /tmp/pnbench-it.XXXXXX)
trap 'rm -rf "$T"' EXIT

check() { # check DESC CMD...: ok when CMD succeeds
	local d=$1
	shift
	if "$@" >"$T/out" 2>&1; then ok "$d"; else notok "$d" "$(tail -n 5 "$T/out")"; fi
}
json() { $PY -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

if [ ! -x "$PN" ]; then
	echo "1..0 # SKIP $PN not built (run make)"
	exit 4
fi
nodes=$(find /sys/devices/system/node -maxdepth 1 -name "node[0-9]*" 2>/dev/null | wc -l)

# ---- help and listing ----
check "pnbench --help lists every command" bash -c "$PN --help | grep -q 'run ' && $PN --help | grep -q collect"
for sub in run list topology collect bench; do
	check "pnbench $sub --help exits 0" "$PN" "$sub" --help
done
# ---- pnbench report: hands over to report/pnreport.py (tests/report/golden: a real run) ----
GOLD=tests/report/golden/private-exhaust
check "pnbench report summary hands over to report/pnreport.py" \
	bash -c "env -u PNBENCH_REPORT $PN report summary $GOLD | grep -q '^verdict: pass'"
check "pnbench report --help lists the report's commands" \
	bash -c "$PN report --help | grep -qE '^    compare ' && $PN report --help | grep -qE '^    dashboard'"
check "pnbench report summary of a missing directory exits 2" \
	bash -c "$PN report summary $T/nosuch 2>/dev/null; [ \$? -eq 2 ]"
if make -s install DESTDIR="$T/inst" PREFIX=/opt/pnbench >"$T/install.log" 2>&1; then
	check "make install puts report/ in PREFIX/share/pnbench, where the installed pnbench finds it" \
		bash -c "test -x $T/inst/opt/pnbench/share/pnbench/report/pnreport.py &&
			test -f $T/inst/opt/pnbench/share/pnbench/report/pnreportlib/cli.py &&
			env -u PNBENCH_REPORT $T/inst/opt/pnbench/bin/pnbench report summary $GOLD | grep -q '^verdict: pass'"
else
	notok "make install DESTDIR PREFIX" "$(tail -n 5 "$T/install.log")"
fi
"$PN" list >"$T/list" 2>&1
missing=""
for f in workloads/*.c collectors/*.c; do
	name=$(basename "$f" .c)
	grep -qE "^  $name " "$T/list" || missing="$missing $name"
done
if [ -z "$missing" ]; then ok "pnbench list shows every workload and collector"; else notok "pnbench list shows every workload and collector" "missing:$missing"; fi
# list -v: each workload's needs (after its name and any why: line)
"$PN" list -v >"$T/listv" 2>&1
got=$(awk '/^  [a-z]/{w=$1} /^      needs: /{if (w ~ /^(explicit|interleave|exhaust|latency)$/) print w "=" $0; w=""}' \
	"$T/listv" | tr -s ' ' | tr '\n' ';')
want='exhaust= needs: numa, nodes;explicit= needs: numa, nodes;interleave= needs: numa, nodes;latency= needs: none;'
if [ "$got" = "$want" ]; then ok "list -v shows each workload's needs"; else notok "list -v shows each workload's needs" "got: $got"; fi
"$PN" frobnicate >/dev/null 2>&1
rc=$?
if [ $rc -eq 2 ]; then ok "unknown command exits 2"; else notok "unknown command exits 2" "got $rc"; fi

# ---- smoke run: complete, valid, CSVs ----
pnrun run configs/smoke.json -o "$T/smoke" >"$T/smoke.out" 2>"$T/smoke.err"
rc=$?
if [ $rc -eq 0 ]; then ok "smoke run exits 0"; else notok "smoke run exits 0" "rc=$rc" "$(tail -n 5 "$T/smoke.err")"; fi
check "smoke run.json is valid against the schema (and its CSVs)" $PY $VALIDATE "$T/smoke"
state=$(json "$T/smoke/run.json" 'd["status"]["state"]' 2>/dev/null)
if [ "$state" = complete ]; then ok "smoke run is marked complete"; else notok "smoke run is marked complete" "state=$state"; fi
mis=$(json "$T/smoke/run.json" 'sum(w["placement"]["misplaced_pages"] for p in d["points"] for i in p["iterations"] for ph in i["phases"] for w in ph["workloads"] if w["status"]=="ok")' 2>/dev/null)
ver=$(json "$T/smoke/run.json" 'sum(w["placement"]["intended_pages"] for p in d["points"] for i in p["iterations"] for ph in i["phases"] for w in ph["workloads"] if w["status"]=="ok")' 2>/dev/null)
if [ "${mis:-x}" = 0 ] && [ "${ver:-0}" -gt 0 ]; then ok "smoke: explicit pages verified on their nodes ($ver pages, 0 misplaced)"; else notok "smoke: explicit pages verified on their nodes" "intended=$ver misplaced=$mis"; fi
if grep -q "^verdict: " "$T/smoke.out"; then ok "smoke prints a verdict line"; else notok "smoke prints a verdict line"; fi
if grep -q '"pnbench: ' "$T/smoke/run.json"; then notok "no log text inside run.json"; else ok "no log text inside run.json"; fi
if [ -s "$T/smoke/topology.xml" ] && grep -q "<topology" "$T/smoke/topology.xml"; then ok "hwloc topology.xml saved with the results"; else notok "hwloc topology.xml saved with the results"; fi

# refusing to overwrite
pnrun run configs/smoke.json -o "$T/smoke" >/dev/null 2>"$T/ow.err"
rc=$?
if [ $rc -eq 2 ] && grep -q "exists" "$T/ow.err"; then ok "an existing run.json is not overwritten without --force"; else notok "an existing run.json is not overwritten without --force" "rc=$rc"; fi

# ---- bad input ----
printf '{"name": "x",\n "phases": [ }' >"$T/broken.json"
pnrun run "$T/broken.json" -o "$T/broken" >/dev/null 2>"$T/broken.err"
rc=$?
if [ $rc -eq 2 ] && grep -q "broken.json" "$T/broken.err" && grep -q "line 2" "$T/broken.err"; then ok "invalid JSON: exit 2, names the file and line"; else notok "invalid JSON: exit 2, names the file and line" "rc=$rc" "$(cat "$T/broken.err")"; fi
pnrun run /nonexistent/x.json -o "$T/nx" >/dev/null 2>"$T/nx.err"
rc=$?
if [ $rc -eq 2 ] && grep -q "/nonexistent/x.json" "$T/nx.err"; then ok "missing config: exit 2 naming the file"; else notok "missing config: exit 2 naming the file" "rc=$rc"; fi
pnrun run configs/smoke.json --private 999 -o "$T/p999" >/dev/null 2>"$T/p999.err"
rc=$?
if [ $rc -eq 2 ] && grep -q "999" "$T/p999.err"; then ok "a private node that does not exist: exit 2 naming it"; else notok "a private node that does not exist: exit 2 naming it" "rc=$rc" "$(cat "$T/p999.err")"; fi

# ---- the suite's memory limit bounds every workload ----
cat >"$T/guard.json" <<'EOF'
{"name": "guard", "nodes": {"private": "auto"}, "limits": {"max_mem_share": 0.01},
 "phases": [{"name": "p", "workloads": [{"workload": "explicit", "params": {"size": "1T", "nodes": "all", "max_mem_share": 0.9}}]}]}
EOF
pnrun run "$T/guard.json" -o "$T/guard" >/dev/null 2>"$T/guard.err"
rc=$?
if [ $rc -eq 3 ] && grep -q "1% of MemAvailable" "$T/guard.err"; then ok "limits.max_mem_share refuses a 1 TiB explicit allocation (exit 3, no OOM)"; else notok "limits.max_mem_share refuses a 1 TiB explicit allocation" "rc=$rc" "$(tail -n 2 "$T/guard.err")"; fi
st=$(json "$T/guard/run.json" 'd["points"][0]["iterations"][0]["phases"][0]["workloads"][0]["status"]' 2>/dev/null)
if [ "$st" = failed ]; then ok "the refused workload is recorded as failed with its reason"; else notok "the refused workload is recorded as failed" "status=$st"; fi

# ---- --exec: characterize a command ----
pnrun run --exec -o "$T/exec" -- sh -c 'head -c 8388608 /dev/zero > /dev/null' >"$T/exec.out" 2>"$T/exec.err"
rc=$?
if [ $rc -eq 0 ]; then ok "run --exec -- CMD exits 0"; else notok "run --exec -- CMD exits 0" "rc=$rc" "$(tail -n 3 "$T/exec.err")"; fi
check "--exec run.json is valid" $PY $VALIDATE "$T/exec"
code=$(json "$T/exec/run.json" 'd["points"][0]["iterations"][0]["phases"][0]["exec"]["exit_code"]' 2>/dev/null)
if [ "$code" = 0 ]; then ok "--exec records the command's exit code"; else notok "--exec records the command's exit code" "got $code"; fi

pnrun run --exec -o "$T/nxcmd" -- /nonexistent/command >/dev/null 2>"$T/nxcmd.err"
rc=$?
st=$(json "$T/nxcmd/run.json" 'd["status"]["state"]' 2>/dev/null)
if [ $rc -eq 3 ] && [ "$st" = failed ] && grep -q "/nonexistent/command" "$T/nxcmd.err"; then ok "--exec of a missing command: exit 3, run marked failed"; else notok "--exec of a missing command: exit 3, run marked failed" "rc=$rc state=$st"; fi

# The verdict can fail: name node 0 (where every general allocation goes on
# this machine) as the private device and make page cache while it is watched.
if [ "$(id -u)" -ne 0 ]; then
	skip "verdict fails when general allocations land on a private-role node" "needs root for exact counters (stat_refresh)"
else
	f="$T/cache.bin"
	pnrun run --private 0 --exec -o "$T/leak" -- sh -c "head -c 134217728 /dev/zero > $f; sync" >"$T/leak.out" 2>"$T/leak.err"
	rc=$?
	gen=$(json "$T/leak/run.json" 'd["verdict"]["nodes"]["0"]["general_pages_max"]' 2>/dev/null)
	if [ $rc -eq 1 ] && [ "${gen:-0}" -ge 8192 ]; then
		ok "verdict fails (exit 1) when 128 MiB of page cache lands on a private-role node ($gen general pages)"
	else
		notok "verdict fails (exit 1) when 128 MiB of page cache lands on a private-role node" "rc=$rc general=$gen" "$(tail -n 3 "$T/leak.out")"
	fi
	fkind=$(json "$T/leak/run.json" 'max(n["general_pages"]["file"] for p in d["points"] for i in p["iterations"] for ph in i["phases"] for k,n in ph["nodes"].items() if k=="0")' 2>/dev/null)
	if [ "${fkind:-0}" -ge 8192 ]; then ok "the leak is attributed to the file kind ($fkind pages)"; else notok "the leak is attributed to the file kind" "file=$fkind"; fi
	rm -f "$f"
fi

# ---- interrupted run: valid JSON marked incomplete ----
cat >"$T/long.json" <<'EOF'
{"name": "long", "nodes": {"private": "auto"}, "iterations": 200,
 "collectors": {"interval": "100ms", "enabled": ["vmstat", "nodestat"]},
 "phases": [{"name": "alloc", "workloads": [{"workload": "explicit", "params": {"size": "32M", "chunk": "1M", "nodes": "all"}}]}]}
EOF
"$PN" run "$T/long.json" -o "$T/long" >/dev/null 2>"$T/long.err" &
pid=$!
sleep 3
kill -INT $pid
wait $pid
rc=$?
state=$(json "$T/long/run.json" 'd["status"]["state"]' 2>/dev/null)
reason=$(json "$T/long/run.json" 'd["status"]["reason"]' 2>/dev/null)
if [ "$state" = incomplete ] && [[ "$reason" == *interrupted* ]] && [ $rc -eq 130 ]; then ok "SIGINT mid-run: exit 130, run.json marked incomplete ($reason)"; else notok "SIGINT mid-run: exit 130, run.json marked incomplete" "rc=$rc state=$state reason=$reason"; fi
check "interrupted run.json is still valid against the schema" $PY $VALIDATE "$T/long"

# ---- replayed machines ----
for fx in tests/fixtures/*/; do
	name=$(basename "$fx")
	[ -d "$fx/sys/devices/system/node" ] || continue
	if "$PN" --sysroot "$fx" topology -j >"$T/topo.json" 2>"$T/topo.err"; then
		got=$(json "$T/topo.json" '",".join(str(n["id"]) for n in d["nodes"])')
		exp=$(cat "$fx/sys/devices/system/node/online")
		if $PY - "$exp" "$got" <<'EOF'
import sys
def expand(s):
    out = []
    for part in s.strip().split(","):
        if "-" in part:
            a, b = part.split("-"); out += range(int(a), int(b) + 1)
        elif part:
            out.append(int(part))
    return out
sys.exit(0 if expand(sys.argv[1]) == [int(x) for x in sys.argv[2].split(",") if x] else 1)
EOF
		then ok "topology of replayed $name lists nodes $exp"; else notok "topology of replayed $name lists nodes $exp" "got $got"; fi
	else
		notok "topology of replayed $name" "$(tail -n 3 "$T/topo.err")"
	fi
done

# ---- the knob allow-list: a knob outside it needs --allow-knob ----
msgmax=$(cat /proc/sys/kernel/msgmax)
cat >"$T/knob.json" <<EOF
{"name": "knob", "nodes": {"private": "", "dram": "auto"}, "phases": [{"name": "p", "knobs": {"kernel.msgmax": "$msgmax"}, "workloads": []}]}
EOF
pnrun run "$T/knob.json" -o "$T/knob-refused" >"$T/out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -qF '$.phases[0].knobs["kernel.msgmax"]: kernel.msgmax (/proc/sys/kernel/msgmax) is not on the knob allow-list' "$T/out" &&
	grep -qF -- '--allow-knob kernel.msgmax' "$T/out" && [ ! -e "$T/knob-refused" ]; then
	ok "a knob outside the allow-list: exit 2 naming its JSON path and --allow-knob"
else
	notok "a knob outside the allow-list: exit 2 naming its JSON path and --allow-knob" "rc=$rc" "$(tail -n 3 "$T/out")"
fi
if [ "$(id -u)" -ne 0 ]; then
	skip "--allow-knob lets the config set it" "needs root"
else
	# the same value written back: the host's msgmax never changes
	pnrun run "$T/knob.json" --allow-knob kernel.msgmax -o "$T/knob-ok" >"$T/out" 2>&1
	rc=$?
	rec=$(json "$T/knob-ok/run.json" '[(k["path"], k["changed"], k["restored"]) for k in d["points"][0]["iterations"][0]["phases"][0]["knobs"]]' 2>/dev/null)
	if [ "$rec" = "[('/proc/sys/kernel/msgmax', True, True)]" ]; then
		ok "--allow-knob kernel.msgmax lets the config set it (exit $rc, $rec)"
	else
		notok "--allow-knob kernel.msgmax lets the config set it" "rc=$rc rec=$rec" "$(tail -n 3 "$T/out")"
	fi
fi

# ---- provenance: a sysctl another live run holds is not the machine's ----
mkdir -p "$T/rd"
si=$(cat /proc/sys/vm/stat_interval)
# a journal of a live run (pid 1 never dies) that changed vm.stat_interval from 42
printf '{"pid": 1, "sysroot": "", "command": "run", "entries": [{"kind": "knob", "path": "/proc/sys/vm/stat_interval", "old": "42"}]}' >"$T/rd/journal.1"
cat >"$T/alt.json" <<'EOF'
{"name": "alt", "nodes": {"private": "", "dram": "auto"}, "phases": [{"name": "p", "workloads": []}]}
EOF
PNBENCH_RUNDIR=$T/rd pnrun run -q "$T/alt.json" -o "$T/alt" >"$T/out" 2>&1
rc=$?
alt=$(json "$T/alt/run.json" 'd["kernel"].get("sysctls_altered")' 2>/dev/null)
sc=$(json "$T/alt/run.json" 'd["kernel"]["sysctls"]["vm.stat_interval"]' 2>/dev/null)
if [ "$alt" = "{'vm.stat_interval': {'machine_value': '42', 'by_pid': 1}}" ] && [ "$sc" = "$si" ] &&
	$PY "$VALIDATE" "$T/alt" >/dev/null 2>&1; then
	ok "a sysctl a live run changed is recorded as altered, with the machine's value (exit $rc)"
else
	notok "a sysctl a live run changed is recorded as altered" "rc=$rc alt=$alt sysctl=$sc" "$(tail -n 3 "$T/out")"
fi

# ---- a replayed /proc/vmstat that never ends: refused, in bounded memory ----
fx=$T/bigfx
cp -r tests/fixtures/qemu-hmat-4node "$fx"
rm -f "$fx/proc/vmstat"
truncate -s 256M "$fx/proc/vmstat" # sparse: 256 MiB of NULs (read whole: RSS above 256 MiB)
cat >"$T/vm.json" <<'EOF'
{"name": "vm", "nodes": {"private": "", "dram": "auto"}, "collectors": {"interval": "100ms", "enabled": ["vmstat"]}, "phases": [{"name": "p", "workloads": []}]}
EOF
PNBENCH_RUNDIR=$T/rd2 /usr/bin/time -f "%M" -o "$T/rss" timeout 60 "$PN" --sysroot "$fx" run "$T/vm.json" -o "$T/vm" >"$T/out" 2>&1
rc=$?
rss=$(tail -n 1 "$T/rss")
if grep -qF "$fx/proc/vmstat is larger than 16777216 bytes" "$T/out" && [ "${rss:-999999}" -lt 204800 ]; then
	ok "a 256 MiB replayed proc/vmstat: \"is larger than 16777216 bytes\", max RSS ${rss} kB (exit $rc)"
else
	notok "a 256 MiB replayed proc/vmstat is refused in bounded memory" "rc=$rc rss=$rss kB" "$(grep -E 'error|vmstat' "$T/out" | head -n 3)"
fi
rm -f "$fx/proc/vmstat"
mkfifo "$fx/proc/vmstat"
yes >"$fx/proc/vmstat" 2>/dev/null &
ypid=$!
PNBENCH_RUNDIR=$T/rd2 /usr/bin/time -f "%M" -o "$T/rss" timeout 60 "$PN" --sysroot "$fx" run "$T/vm.json" -o "$T/vm2" >"$T/out" 2>&1
rc=$?
kill $ypid 2>/dev/null
wait $ypid 2>/dev/null
rss=$(tail -n 1 "$T/rss")
if [ $rc -ne 124 ] && grep -qF "$fx/proc/vmstat is not a regular file" "$T/out" && [ "${rss:-999999}" -lt 204800 ]; then
	ok "a FIFO fed by yes as proc/vmstat: \"is not a regular file\", max RSS ${rss} kB (exit $rc)"
else
	notok "a FIFO fed by yes as proc/vmstat is refused" "rc=$rc rss=$rss kB" "$(grep -E 'error|vmstat' "$T/out" | head -n 3)"
fi

# ---- command-line limits and odd inputs: a clear message and the right exit ----
exit_and_says() { # DESC WANT_RC TEXT CMD...: exit WANT_RC and TEXT on stderr, within 10 s
	local d=$1 want=$2 text=$3 rc
	shift 3
	timeout 10 "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	if [ $rc -eq "$want" ] && grep -qF -- "$text" "$T/err"; then ok "$d"; else notok "$d" "rc=$rc" "$(head -c 400 "$T/err")"; fi
}
exit_and_says "run -n 1001 is refused like a config's iterations (exit 2)" 2 \
	'--iterations: "1001" is not a count in [1, 1000]' "$PN" run configs/explicit-private.json -n 1001
exit_and_says "collect -c of a count beyond long is refused, not saturated (exit 2)" 2 \
	'--count: "99999999999999999999" is not a count' "$PN" collect -c 99999999999999999999
exit_and_says "--sysroot without a value says it needs a directory (exit 2)" 2 \
	'--sysroot needs a directory' "$PN" --sysroot
mkfifo "$T/fifo.json"
exit_and_says "a FIFO as CONFIG is refused at once, not read forever (exit 2)" 2 \
	"config $T/fifo.json is not a regular file" "$PN" run "$T/fifo.json" -o "$T/fifo-out"
fx=$T/nometer
cp -r tests/fixtures/qemu-hmat-4node "$fx"
rm "$fx/sys/devices/system/node/node0/meminfo"
exit_and_says "list on a machine whose node counters cannot be read: exit 3 naming the file" 3 \
	"$fx/sys/devices/system/node/node0/meminfo" "$PN" --sysroot "$fx" list
exit_and_says "collect on the same machine: exit 3 (not 2) naming the file" 3 \
	"$fx/sys/devices/system/node/node0/meminfo" "$PN" --sysroot "$fx" collect -c 1 -i 10ms
exit_and_says "collect's error line names the command" 3 \
	"pnbench: error: collect: node 0: cannot read its counters" "$PN" --sysroot "$fx" collect -c 1 -i 10ms
mkdir -p "$T/nosys"
exit_and_says "collect on a sysroot without /sys: exit 3 (not 2) naming the directory" 3 \
	"$T/nosys/sys/devices/system/node is missing" "$PN" --sysroot "$T/nosys" collect -c 1 -i 10ms
# the reason quoted whole, once (the message used to be formatted over itself)
exit_and_says "list on a sysroot without /sys: exit 3, the reason quoted whole" 3 \
	"pnbench: error: list: this machine's topology cannot be read: topology: $T/nosys/sys/devices/system/node is missing" \
	"$PN" --sysroot "$T/nosys" list
exit_and_says "an unknown command: exit 2" 2 'unknown command "nosuch"' "$PN" nosuch

# ---- the command line of issue 22: help CMD, list NAME, formats, widths ----
HM=tests/fixtures/qemu-hmat-4node
"$PN" run --help >"$T/h1" 2>&1
"$PN" help run >"$T/h2" 2>&1
if [ -s "$T/h1" ] && cmp -s "$T/h1" "$T/h2"; then ok "pnbench help run prints run --help"; else notok "pnbench help run prints run --help" "$(diff "$T/h1" "$T/h2" | head -n 3)"; fi
exit_and_says "run without CONFIG: exit 2 with one line saying so" 2 \
	'error: run: missing CONFIG (or --exec -- CMD)' "$PN" run
exit_and_says "pnbench help of an unknown command: exit 2" 2 'no command "nosuch"' "$PN" help nosuch
"$PN" list explicit >"$T/l1" 2>&1
if grep -q '^  explicit ' "$T/l1" && grep -qE '^      size +size ' "$T/l1" &&
	! grep -qE '^  (exhaust|interleave|latency|pressure|probes|perf|vmstat) ' "$T/l1"; then
	ok "list explicit shows explicit alone, with its options"
else
	notok "list explicit shows explicit alone, with its options" "$(head -n 5 "$T/l1")"
fi
exit_and_says "list of an unknown name: exit 2, did you mean" 2 'did you mean "explicit"' "$PN" list explict
"$PN" --sysroot "$HM" list --private '!0' >"$T/l2" 2>&1
if grep -q '^(judged with private nodes = --private: 1-3)$' "$T/l2"; then
	ok "list --private '!0' judges with every memory node but 0"
else
	notok "list --private '!0'" "$(tail -n 3 "$T/l2")"
fi
exit_and_says "list --private of a node that has no memory: exit 2" 2 \
	'--private: node 7 is not a memory node here (nodes: 0-3)' "$PN" --sysroot "$HM" list --private 7
"$PN" list --format json >"$T/l.json" 2>"$T/err"
"$PN" list --format csv >"$T/l.csv" 2>>"$T/err"
if $PY - "$T/l.json" "$T/l.csv" <<'PYEOF' 2>>"$T/err"; then
import csv, glob, json, os, sys
d = json.load(open(sys.argv[1]))
want = sorted(os.path.basename(f)[:-2] for f in glob.glob("workloads/*.c"))
assert sorted(w["name"] for w in d["workloads"]) == want, d["workloads"]
assert all(w["status"] in ("ok", "skip") and ("why" in w) == (w["status"] == "skip") for w in d["workloads"])
assert any(o["name"] == "size" for w in d["workloads"] if w["name"] == "explicit" for o in w["options"])
rows = list(csv.DictReader(open(sys.argv[2])))
assert sorted(r["name"] for r in rows if r["kind"] == "workload") == want, rows
PYEOF
	ok "list --format json|csv: every workload with its status, reason and options"
else
	notok "list --format json|csv" "$(tail -n 3 "$T/err")"
fi
"$PN" --sysroot "$HM" topology --format csv >"$T/t.csv" 2>&1
if [ "$(head -n 1 "$T/t.csv" | cut -d, -f1-3)" = "node,has_cpu,has_memory" ] &&
	[ "$(tail -n +2 "$T/t.csv" | cut -d, -f1 | tr '\n' ' ')" = "0 1 2 3 " ] &&
	grep -q '^2,false,.*,250,250,8000,8000$' "$T/t.csv"; then
	ok "topology --format csv: one row per node, HMAT of the far nodes"
else
	notok "topology --format csv" "$(head -n 3 "$T/t.csv")"
fi
"$PN" --sysroot "$HM" collect -c 2 -i 10ms -N '!0' >"$T/c.txt" 2>&1
if grep -q '^# time UTC; used..pgtable in pages;' "$T/c.txt" && grep -qE '^time +node +used ' "$T/c.txt" &&
	[ "$(grep -cE '^[0-2][0-9]:[0-5][0-9]:[0-5][0-9] +[123] ' "$T/c.txt")" -eq 6 ]; then
	ok "collect: a time column, the units in the header, -N '!0' = nodes 1-3"
else
	notok "collect: time column and units" "$(head -n 4 "$T/c.txt")"
fi
"$PN" --sysroot "$HM" collect -c 1 -i 10ms -m --csv >"$T/c.csv" 2>&1
"$PN" --sysroot "$HM" collect -c 1 -i 10ms --json -N +1 >"$T/c.jsonl" 2>&1
pages1=$("$PN" --sysroot "$HM" collect -c 1 -i 10ms --csv -N 1 2>&1 | tail -n 1 | cut -d, -f4)
if $PY - "$T/c.csv" "$T/c.jsonl" "$pages1" <<'PYEOF' 2>"$T/err"; then
import csv, json, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["node"] for r in rows] == ["0", "1", "2", "3"], rows
assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", r["time"]) for r in rows)
free_mib = float(rows[1]["free_mib"])
assert abs(free_mib * 256 - int(sys.argv[3])) < 1, (free_mib, sys.argv[3])  # 4 KiB pages
lines = open(sys.argv[2]).read().splitlines()
assert len(lines) == 1 and json.loads(lines[0])["node"] == 1 and "used_pages" in json.loads(lines[0])
PYEOF
	ok "collect -m --csv in MiB (= pages / 256), --json one object per line, -N +1 = node 1"
else
	notok "collect -m --csv / --json" "$(tail -n 3 "$T/err")"
fi
# Every text table fits 100 columns (mail, a terminal split in two).
widest() { awk '{ if (length($0) > m) { m = length($0); l = $0 } } END { print m + 0 " " l }' "$1"; }
wide=""
for cmd in "list" "list -v" "--sysroot $HM list -v --private 1-3" "list explicit perf" \
	"topology" "--sysroot $HM topology" "--sysroot tests/fixtures/qemu-sparse-0-2-5 topology" \
	"collect -c 1 -i 10ms" "collect -c 1 -i 10ms -m" "--sysroot $HM collect -c 1 -i 10ms" \
	"help" "run --help" "list --help" "collect --help" "topology --help" \
	"run --dry-run configs/exhaust.json" "run --dry-run configs/latency.json" \
	"run --dry-run configs/pressure.json" "run --dry-run configs/probes.json"; do
	# shellcheck disable=SC2086
	"$PN" $cmd >"$T/w" 2>/dev/null
	w=$(widest "$T/w")
	[ "${w%% *}" -le 100 ] || wide="$wide [$cmd: ${w%% *} columns: ${w#* }]"
done
if [ -z "$wide" ]; then ok "every text table and help fits 100 columns"; else notok "text wider than 100 columns" "$wide"; fi
cat >"$T/mx.json" <<'EOF'
{"name": "mx", "nodes": {"private": "", "dram": "auto"}, "collectors": {"interval": "100ms", "enabled": ["vmstat"]},
 "phases": [{"name": "p", "workloads": [{"workload": "explicit", "params": {"size": ["4M", "8M"], "nodes": "dram", "verify": false}}]}]}
EOF
if pnrun run "$T/mx.json" -o "$T/mx" >"$T/mx.out" 2>"$T/mx.err"; then
	w=$(widest "$T/mx.out")
	if grep -q '^point 0  size=4M$' "$T/mx.out" && grep -q '^point 1  size=8M$' "$T/mx.out" &&
		! grep -q '\$\.' "$T/mx.out" && ! grep -qE '[0-9]e[+-][0-9]' "$T/mx.out" &&
		grep -qE 'alloc_fault_throughput +[0-9.]+ [GMk]B/s ' "$T/mx.out" && [ "${w%% *}" -le 100 ]; then
		ok "run's summary: point labels, not JSONPath; GB/s, no exponent; 100 columns"
	else
		notok "run's summary labels and numbers" "$(head -n 6 "$T/mx.out")"
	fi
else
	notok "run of a two-point matrix" "$(tail -n 3 "$T/mx.err")"
fi
if pnrun run "$T/mx.json" -o "$T/mxj" -q --format json >"$T/mx.json.out" 2>"$T/err" &&
	$PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"]["result"] in ("pass", "not_applicable"), d["verdict"]
assert [p["label"] for p in d["points"]] == ["size=4M", "size=8M"], d["points"]
assert all(m["unit"] for p in d["points"] for m in p["metrics"])
' "$T/mx.json.out" 2>>"$T/err" &&
	pnrun run "$T/mx.json" -o "$T/mxc" -q --format csv >"$T/mx.csv" 2>>"$T/err" &&
	head -n 1 "$T/mx.csv" | grep -qx 'point,label,metric,labels,aggregate,value,min,max,unit,n' &&
	tail -n 1 "$T/mx.csv" | grep -qE '^,,verdict,[a-z_]+,,[0-9]+,,,exit_code,1$'; then
	ok "run --format json|csv: the verdict and every point's metrics on stdout"
else
	notok "run --format json|csv" "$(tail -n 3 "$T/err")"
fi

# --progress: a line per phase with the share done and the time left, on
# stderr only; without it (stderr not a terminal) none.
if pnrun run "$T/mx.json" -o "$T/mxp" --progress --format json >"$T/mxp.out" 2>"$T/mxp.err" &&
	[ "$(grep -cE '^pnbench: progress: [12]/2 phases \((50|100) %\), [0-9]+:[0-9]{2} elapsed, about [0-9]+:[0-9]{2} left$' "$T/mxp.err")" -eq 2 ] &&
	$PY -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/mxp.out" &&
	! grep -q "elapsed, about" "$T/mxp/run.json" && ! grep -q "progress:" "$T/mx.err"; then
	ok "run --progress: one line per phase with the time left, on stderr only; none without it"
else
	notok "run --progress" "$(grep progress "$T/mxp.err" "$T/mx.err" | head -n 4)"
fi

# The memory guard's refusal: printed once (the first phase's error and its
# outcome line), not once per phase; every phase's result still says why.
cat >"$T/guard3.json" <<'EOF'
{"name": "guard", "nodes": {"private": "auto"}, "phases": [
 {"name": "a", "workloads": [{"workload": "explicit", "params": {"size": "64T", "nodes": "private"}}]},
 {"name": "b", "workloads": [{"workload": "explicit", "params": {"size": "64T", "nodes": "private"}}]},
 {"name": "c", "workloads": [{"workload": "explicit", "params": {"size": "64T", "nodes": "private"}}]}]}
EOF
pnrun run "$T/guard3.json" --private 0 -o "$T/guard3" >/dev/null 2>"$T/guard3.err"
if grep -q 'skipped' "$T/guard3.err"; then
	skip "the memory guard's refusal printed once" "explicit does not run here: $(grep -m1 skipped "$T/guard3.err")"
elif [ "$(grep -c 'more than 50% of MemAvailable' "$T/guard3.err")" -eq 2 ] &&
	[ "$($PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(sum("MemAvailable" in (w.get("reason") or "")
          for ph in d["points"][0]["iterations"][0]["phases"] for w in ph["workloads"]))' "$T/guard3/run.json")" -eq 3 ]; then
	ok "the memory guard's refusal is printed once for three phases, and each phase's result gives it"
else
	notok "the memory guard's refusal printed once" "$(grep -c MemAvailable "$T/guard3.err") lines" "$(head -n 8 "$T/guard3.err")"
fi

# ---- needs more than one node ----
if [ "$nodes" -lt 2 ]; then
	skip "explicit interleave across two real nodes" "needs >=2 NUMA nodes, this machine has $nodes"
else
	cat >"$T/il.json" <<'EOF'
{"name": "il", "nodes": {"private": "auto"}, "phases": [{"name": "p", "workloads": [{"workload": "explicit", "params": {"size": "16M", "nodes": "all", "policy": "interleave"}}]}]}
EOF
	check "explicit interleave across every node" pnrun run "$T/il.json" -o "$T/il"
fi

truth_report
echo "1..$n"
