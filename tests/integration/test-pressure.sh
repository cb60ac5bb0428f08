#!/usr/bin/env bash
# The pressure workload through the runner on the machine at hand: in the
# background of a phase (stopped when the foreground is done) and in the
# foreground for a duration, in child processes and cgroup leaves; what it
# reports matches what it did (bytes written = re-read, trees, sockets), the
# knobs it asks for are set during the phase and restored after it, and the
# scratch filesystem (loop device, mount, image) is gone after the run, also
# after SIGINT.  TAP output; without root or loop devices it SKIPs.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
PN=${PNBENCH_BIN:-build/pnbench}
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
PY=/usr/bin/python3
T=$(mktemp -d /var/tmp/pnbench-pressure.XXXXXX)
export PNBENCH_RUNDIR=$T/run # the runs' journals (journal.h)
trap 'rm -rf "$T"' EXIT
# metric NAME LABEL of the pressure workload with role ROLE
metric() {
	json "$1" "[m['value'] for ph in d['points'][0]['iterations'][0]['phases'] for w in ph['workloads'] if w['workload'] == 'pressure' and w['role'] == '$2' for m in w['metrics'] if m['name'] == '$3' and ','.join('%s=%s' % kv for kv in m['labels'].items()) == '$4'][0]"
}
leftovers() { # mounts, loop devices and images of ours under $T
	local m l f
	m=$(grep -c "$T" /proc/self/mounts)
	l=$(losetup -a 2>/dev/null | grep -c "$T")
	f=$(find "$T/img" -mindepth 1 2>/dev/null | wc -l)
	echo $((m + l + f))
}

[ -x "$PN" ] || { echo "1..0 # SKIP $PN not built"; exit 4; }
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (mounts a scratch filesystem, sets knobs)"; exit 4; }
[ -w /dev/loop-control ] || { echo "1..0 # SKIP no /dev/loop-control (loop devices)"; exit 4; }
command -v mke2fs >/dev/null || { echo "1..0 # SKIP mke2fs not installed (e2fsprogs)"; exit 4; }
mkdir -p "$T/img"
nb=/proc/sys/kernel/numa_balancing
nb0=$(cat $nb 2>/dev/null || echo none)

cat >"$T/p.json" <<EOF
{"name": "pressure-test", "nodes": {"private": "", "dram": "auto"},
 "collectors": {"interval": "100ms", "enabled": ["nodestat"]},
 "phases": [{"name": "p", "workloads": [
   {"workload": "pressure", "params": {"kinds": "anon,numa_balancing,sockets", "anon_share": 0.002,
    "threads": 2, "sockets": 64, "pipes": 8, "duration": "1500ms"}}]}],
 "background": [{"workload": "pressure", "params": {"kinds": "pagecache,slab", "pagecache_share": 0.002,
    "files": 500, "depth": 3, "image_dir": "$T/img"}}],
 "thresholds": {"general_pages": 0, "misplaced_pages": 0}}
EOF
# Sample the knob while the phase runs: poll until the phase has set it (a
# fixed delay raced the scratch filesystem's setup on a loaded machine), one
# read per poll, kept.
(
	for _ in $(seq 100); do
		v=$(cat $nb 2>/dev/null)
		[ "$v" = 1 ] && break
		sleep 0.05
	done
	echo "$v" >"$T/nb-during"
) &
pnrun run -o "$T/r" "$T/p.json" >"$T/r.out" 2>"$T/r.err"
rc=$?
wait
j=$T/r/run.json
expect "a phase with foreground and background pressure: exit 0, run.json valid" \
	"rc=$rc $(tail -n 3 "$T/r.err")" test $rc -eq 0 -a -s "$j"
expect "results validate" "$($PY results/schema/validate.py "$T/r" 2>&1 | tail -n 2)" \
	$PY results/schema/validate.py "$T/r"
ends=$(json "$j" "' '.join(w['role'] + ':' + w['outcome']['end'] for ph in d['points'][0]['iterations'][0]['phases'] for w in ph['workloads'])")
expect "both ran in their own processes and ended ok ($ends)" "$ends" \
	test "$ends" = "background:ok foreground:ok"
wr=$(metric "$j" background bytes_written kind=pagecache)
rd=$(metric "$j" background bytes_read kind=pagecache)
bad=$(metric "$j" background bad_bytes kind=pagecache)
expect "background page cache: $wr bytes written, $rd re-read, $bad differ" "wr=$wr rd=$rd bad=$bad" \
	$PY -c "import sys; w, r, b = map(float, sys.argv[1:]); sys.exit(not (w > 0 and w == r and b == 0))" "${wr:-0}" "${rd:-1}" "${bad:-1}"
fc=$(metric "$j" background files_created kind=slab)
fr=$(metric "$j" background files_removed kind=slab)
expect "background slab: $fc files created, $fr removed (one whole tree of 500 stands)" "fc=$fc fr=$fr" \
	$PY -c "import sys; c, r = map(float, sys.argv[1:]); sys.exit(not (c >= 500 and r == c - 500))" "${fc:-0}" "${fr:-1}"
so=$(metric "$j" foreground sockets kind=sockets)
an=$(metric "$j" foreground bytes kind=anon)
nd=$(metric "$j" foreground duration_ns "")
expect "foreground: $so sockets, $an anon bytes, ran ${nd:-?} ns (>= 1.5 s)" "so=$so an=$an nd=$nd" \
	$PY -c "import sys; s, a, d = map(float, sys.argv[1:]); sys.exit(not (s == 64 and a >= 2 << 20 and d >= 1.5e9))" "${so:-0}" "${an:-0}" "${nd:-0}"
chk=$(json "$j" "sum(1 for ph in d['points'][0]['iterations'][0]['phases'] for w in ph['workloads'] for c in w['checks'] if c['pass'])")
expect "its checks pass and feed the verdict ($chk passed)" "chk=$chk" test "${chk:-0}" -ge 5
if [ "$nb0" != none ]; then
	expect "kernel.numa_balancing was 1 during the phase and is $nb0 again after it" \
		"during=$(cat "$T/nb-during" 2>/dev/null) after=$(cat $nb)" \
		test "$(cat "$T/nb-during" 2>/dev/null)" = 1 -a "$(cat $nb)" = "$nb0"
fi
left=$(leftovers)
expect "no mount, loop device or image left behind ($left)" "$(grep "$T" /proc/self/mounts; ls -la "$T/img")" \
	test "$left" = 0

# SIGINT while the background writes: the runner tears it down all the same.
sed 's/"duration": "1500ms"/"duration": "20s"/' "$T/p.json" >"$T/q.json"
"$PN" run -o "$T/q" "$T/q.json" >/dev/null 2>"$T/q.err" &
pid=$!
sleep 2
kill -INT $pid
wait $pid
rc=$?
left=$(leftovers)
expect "SIGINT mid-phase: exit 130, knob restored, no mount, loop device or image left ($left)" \
	"rc=$rc left=$left nb=$(cat $nb 2>/dev/null) $(tail -n 3 "$T/q.err")" \
	test $rc -eq 130 -a "$left" = 0 -a "$(cat $nb 2>/dev/null || echo none)" = "$nb0"
# A workload whose setup fails says what failed in its result, not just errno.
printf '%s\n' '{"name": "badimg", "nodes": {"private": "auto", "dram": "auto"},' \
	' "phases": [{"name": "p", "workloads": [{"workload": "pressure", "params":' \
	'  {"kinds": "pagecache", "image_dir": "'"$T"'/missing", "duration": "1s"}}]}]}' >"$T/bad.json"
pnrun run -q -o "$T/bad" "$T/bad.json" >/dev/null 2>&1
rc=$?
why=$(json "$T/bad/run.json" 'd["points"][0]["iterations"][0]["phases"][0]["workloads"][0]["reason"]')
expect "setup failure names its cause in the result: exit $rc, reason: $why" "rc=$rc why=$why" \
	test $rc -eq 3 -a -n "$(echo "$why" | grep -F "image_dir $T/missing: cannot create an image file")"
# SIGKILL mid-phase: nothing in the runner can undo, the journal can.  The
# phase sets vm.stat_interval, the background mounts a scratch fs; the next
# run refuses while the journal is stale, `pnbench recover` restores the
# knobs and removes the mount, loop device, image and cgroups; then runs start.
si=/proc/sys/vm/stat_interval
si0=$(cat $si)
sed -e "s/\"duration\": \"1500ms\"/\"duration\": \"20s\"/" \
	-e "s/\"phases\": \[{\"name\": \"p\", /\"phases\": [{\"name\": \"p\", \"knobs\": {\"vm.stat_interval\": $((si0 == 7 ? 8 : 7))}, /" \
	"$T/p.json" >"$T/k.json"
"$PN" run -o "$T/k" "$T/k.json" >/dev/null 2>"$T/k.err" &
pid=$!
for _ in $(seq 200); do # until the scratch fs is mounted and the knob set
	[ "$(grep -c "$T" /proc/self/mounts)" -gt 0 ] && [ "$(cat $si)" != "$si0" ] && break
	sleep 0.05
done
during="si=$(cat $si) mounts=$(grep -c "$T" /proc/self/mounts)"
kill -9 $pid
wait $pid 2>/dev/null
left=$(leftovers)
cg=$(find /sys/fs/cgroup -maxdepth 4 -type d -name "pnbench-$pid" 2>/dev/null | wc -l)
expect "SIGKILL mid-phase ($during) leaves a journal ($PNBENCH_RUNDIR/journal.$pid) and the machine changed ($left leftovers, $cg cgroup)" \
	"$(ls "$PNBENCH_RUNDIR" 2>&1)" test -s "$PNBENCH_RUNDIR/journal.$pid" -a "$left" -gt 0
pnrun run -q -o "$T/k2" "$T/bad.json" >/dev/null 2>"$T/k2.err"
rc=$?
expect "the next run refuses while the journal is stale: exit 2, names it and pnbench recover, no results" \
	"rc=$rc $(cat "$T/k2.err")" sh -c "[ $rc -eq 2 ] && grep -q 'journal.$pid' '$T/k2.err' &&
		grep -q 'pnbench recover' '$T/k2.err' && [ ! -e '$T/k2' ]"
"$PN" recover >"$T/rec.out" 2>&1
rc=$?
left=$(leftovers)
cg=$(find /sys/fs/cgroup -maxdepth 4 -type d -name "pnbench-$pid" 2>/dev/null | wc -l)
expect "pnbench recover: exit $rc, stat_interval $(cat $si) (was $si0), nb $(cat $nb 2>/dev/null) (was $nb0), $left mounts/loops/images, $cg cgroups, journal gone" \
	"$(cat "$T/rec.out")" test $rc -eq 0 -a "$(cat $si)" = "$si0" -a "$(cat $nb 2>/dev/null || echo none)" = "$nb0" \
	-a "$left" = 0 -a "$cg" = 0 -a ! -e "$PNBENCH_RUNDIR/journal.$pid"
"$PN" recover >"$T/rec2.out" 2>&1
rc=$?
expect "a second recover has nothing to do: exit 0" "rc=$rc $(cat "$T/rec2.out")" \
	sh -c "[ $rc -eq 0 ] && grep -q 'nothing to recover' '$T/rec2.out'"
pnrun run -q -o "$T/k3" "$T/bad.json" >/dev/null 2>&1
rc=$?
expect "then the next run starts (exit $rc: its own setup failure, not the journal)" "rc=$rc" \
	test $rc -eq 3 -a -s "$T/k3/run.json"
# mke2fs is taken from the system's sbin/bin directories, never from $PATH
# (the runner is root): a mke2fs first in PATH is not run.
mkdir -p "$T/fakebin"
printf '#!/bin/sh\ntouch %s/fake-mke2fs-ran\nexit 1\n' "$T" >"$T/fakebin/mke2fs"
chmod +x "$T/fakebin/mke2fs"
printf '%s\n' '{"name": "pathmkfs", "nodes": {"private": "", "dram": "auto"},' \
	' "phases": [{"name": "p", "workloads": [{"workload": "pressure", "params":' \
	'  {"kinds": "pagecache", "pagecache_share": 0.001, "image_dir": "'"$T"'/img", "duration": "500ms"}}]}]}' >"$T/path.json"
PATH="$T/fakebin:$PATH" pnrun run -q -o "$T/path" "$T/path.json" >/dev/null 2>"$T/path.err"
rc=$?
expect "a mke2fs first in PATH is not run (exit $rc)" "rc=$rc $(tail -n 3 "$T/path.err")" \
	test $rc -eq 0 -a ! -e "$T/fake-mke2fs-ran"
truth_report
echo "1..$n"
