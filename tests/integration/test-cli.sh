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
