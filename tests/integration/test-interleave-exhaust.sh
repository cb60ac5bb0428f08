#!/usr/bin/env bash
# The interleave and exhaust workloads through `pnbench run` on the machine at
# hand (quick modes on its DRAM nodes): interleave's exact per-page map
# (plain and weighted, THP off and on) passes on real pages, weights set
# through knobs are restored, exhaust's spill curve and counter table are
# written, and a strict bind beyond its cgroup's memory.max is OOM-killed
# in that cgroup and still reported (curve from its shared records,
# outcome checks pass, nothing else killed).  Every run.json validates.
# TAP output; what needs root, a memory cgroup or a kernel feature SKIPs.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
PN=${PNBENCH_BIN:-build/pnbench}
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
PY=/usr/bin/python3
T=$(mktemp -d /tmp/pnbench-ie.XXXXXX)
trap 'rm -rf "$T"' EXIT
valid() { $PY results/schema/validate.py "$1" >/dev/null 2>&1; }
# every workload of every phase of every point: W
W='[w for p in d["points"] for i in p["iterations"] for ph in i["phases"] for w in ph["workloads"]]'

[ -x "$PN" ] || { echo "1..0 # SKIP $PN not built"; exit 4; }
WIL=/sys/kernel/mm/mempolicy/weighted_interleave

# ---- interleave: the exact map on real pages ----
pol='"interleave"'
[ -e "$WIL/node0" ] && pol='["interleave", "weighted_interleave"]'
cat >"$T/il.json" <<EOF
{"name": "il", "nodes": {"private": "", "dram": "auto"}, "phases": [{"name": "il", "workloads": [
 {"workload": "interleave", "params": {"size": "16M", "nodes": "dram", "policy": $pol, "thp": [false, true]}}]}]}
EOF
pnrun run "$T/il.json" -o "$T/il" >"$T/il.out" 2>&1
rc=$?
npts=$(json "$T/il/run.json" 'len(d["points"])')
exact=$(json "$T/il/run.json" "sum(1 for w in $W for c in w['checks'] if c['name'].startswith('every page on the node') and c['pass'])")
mism=$(json "$T/il/run.json" "sum(m['value'] for w in $W for m in w['metrics'] if m['name'] == 'mismatched_pages')")
expect "interleave on DRAM: $npts points, every page on its walk's node in $exact, $mism mismatched, exit 0" \
	"rc=$rc $(tail -n 3 "$T/il.out")" test "$rc" = 0 -a "${npts:-0}" -ge 2 -a "$exact" = "$npts" -a "$mism" = 0
tables=$(json "$T/il/run.json" "sorted(set(t['name'] for w in $W for t in w['tables']))")
expect "  ... with the per-node map table ($tables), valid run.json" "tables=$tables" \
	test "$tables" = "['interleave_map']" -a "$(valid "$T/il" && echo y)" = y

# ---- interleave: weights through knobs, restored ----
if [ "$(id -u)" -ne 0 ] || [ ! -w "$WIL/node0" ]; then
	skip "weights set through knobs and restored" "needs root and $WIL/node0"
else
	old=$(cat "$WIL/node0")
	new=$((old == 5 ? 6 : 5))
	cat >"$T/w.json" <<EOF
{"name": "w", "nodes": {"private": "", "dram": "auto"}, "phases": [{"name": "w", "workloads": [
 {"workload": "interleave", "params": {"size": "4M", "nodes": "0", "weights": "$new"}}]}]}
EOF
	pnrun run "$T/w.json" -o "$T/w" >/dev/null 2>&1
	rc=$?
	knob=$(json "$T/w/run.json" '[(k["key"], k["new"], k["restored"]) for ph in d["points"][0]["iterations"][0]["phases"] for k in ph["knobs"] if k["key"].startswith("weighted")]')
	# a weight unreadable or not in force is a note (the fault-in note is not)
	force=$(json "$T/w/run.json" "[n for w in $W for n in w.get('notes', []) if 'weight' in n]")
	now=$(cat "$WIL/node0")
	expect "weight $new on node 0 set through a knob ($knob), in force while it ran, restored to $old ($now)" \
		"rc=$rc knob=$knob notes=$force now=$now" \
		test "$rc" = 0 -a "$knob" = "[('weighted_interleave.0', '$new', True)]" -a "$now" = "$old" -a "$force" = "[]"
	# the automatic mode (file "auto", or "__auto_type" on kernels built
	# with compiler.h's `#define auto __auto_type`) is a knob and put back
	afile=
	for f in "$WIL/auto" "$WIL/__auto_type"; do [ -e "$f" ] && { afile=$f; break; }; done
	if [ -z "$afile" ]; then
		skip "weighted interleave mode restored" "no $WIL/auto (kernel before 6.16)"
	else
		mnow=$(cat "$afile")
		# "true" cannot be written back without HMAT bandwidth data (ENODEV): then the record says so
		mode=$(json "$T/w/run.json" "['restored' if k['restored'] and k['old'] == '$mnow' else 'no bandwidth data, said so' if k['old'] == 'true' and 'no bandwidth data' in (k['error'] or '') else 'left: %s' % k for ph in d['points'][0]['iterations'][0]['phases'] for k in ph['knobs'] if k['path'] == '$afile' and k['new'] == 'false']")
		expect "weighted interleave mode $afile set false and put back: $mode" "mode=$mode now=$mnow" \
			test "$mode" = "['restored']" -o "$mode" = "['no bandwidth data, said so']"
	fi
fi

# ---- exhaust: curve on DRAM, and a strict bind killed in its cgroup ----
cat >"$T/ex.json" <<'EOF'
{"name": "ex", "nodes": {"private": "", "dram": "auto"}, "phases": [
 {"name": "fill", "workloads": [{"workload": "exhaust", "params": {"size": "16M", "nodes": "dram", "policy": "preferred"}}]},
 {"name": "strict", "workloads": [{"workload": "exhaust", "params": {"size": "96M", "nodes": "dram", "policy": "bind"},
   "cgroup": {"memory.max": "32M"}, "expect": "killed", "timeout": "120s"}]}]}
EOF
pnrun run "$T/ex.json" -o "$T/ex" >"$T/ex.out" 2>&1
rc=$?
cgv=$(json "$T/ex/run.json" 'd["accounting"]["cgroup"]["version"]')
f='d["points"][0]["iterations"][0]["phases"][0]["workloads"][0]'
rows=$(json "$T/ex/run.json" "[len(t['rows']) for t in ${f}['tables'] if t['name'] == 'spill_curve'][0]")
spill=$(json "$T/ex/run.json" "[m['value'] for m in ${f}['metrics'] if m['name'] == 'spill_at_bytes'][0]")
cnt=$(json "$T/ex/run.json" "[len(t['rows']) for t in ${f}['tables'] if t['name'] == 'fallback_counters'][0]")
expect "exhaust on DRAM: a spill curve of $rows chunks, no spill ($spill), $cnt fallback counters beside the census" \
	"rows=$rows spill=$spill counters=$cnt $(tail -n 3 "$T/ex.out")" \
	test "${rows:-0}" = 8 -a "${spill%.0}" = -1 -a "${cnt:-0}" -ge 2
if [ "$(id -u)" -ne 0 ] || [ -z "$cgv" ] || [ "$cgv" = None ]; then
	skip "strict bind beyond memory.max: killed in its cgroup, reported" "no memory cgroup here"
else
	s='d["points"][0]["iterations"][0]["phases"][1]["workloads"][0]'
	end=$(json "$T/ex/run.json" "${s}['outcome']['end']")
	checks=$(json "$T/ex/run.json" "sorted((c['name'].split(':')[0], c['pass']) for c in ${s}['checks'])")
	allpass=$(json "$T/ex/run.json" "int(all(c['pass'] for c in ${s}['checks']) and len(${s}['checks']) >= 4)")
	note=$(json "$T/ex/run.json" "int(any('shared records' in x for x in $s.get('notes', [])))")
	srows=$(json "$T/ex/run.json" "[len(t['rows']) for t in ${s}['tables'] if t['name'] == 'spill_curve'][0]")
	expect "strict bind of 96M under memory.max 32M (cgroup v$cgv): $end, $srows chunks recorded before it, checks $checks, exit 0" \
		"rc=$rc end=$end checks=$checks note=$note rows=$srows" \
		test "$rc" = 0 -a "$end" = oom_kill -a "$allpass" = 1 -a "$note" = 1 -a "${srows:-0}" -gt 0 -a "${srows:-99}" -lt 16
fi
expect "exhaust run.json is valid" "$($PY results/schema/validate.py "$T/ex" 2>&1 | tail -n 2)" valid "$T/ex"
truth_report
echo "1..$n"
