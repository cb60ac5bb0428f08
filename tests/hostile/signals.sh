#!/usr/bin/env bash
# SIGHUP (the terminal or SSH session closed) and SIGQUIT stop a run the way
# SIGINT does: every knob read back at its old value, no cgroup, scratch
# mount, loop device or image left, run.json valid and incomplete, exit
# 128+N.  SIGPIPE is ignored: a complete run whose stdout and stderr readers
# are gone exits with its verdict, not 141, and still cleans up.
# shellcheck source=tests/hostile/lib.sh
. "$(dirname "$0")/lib.sh"
need_root "sets knobs, makes cgroups, mounts a scratch filesystem"
si=/proc/sys/vm/stat_interval
nb=/proc/sys/kernel/numa_balancing
si0=$(cat $si)
nb0=$(cat $nb 2>/dev/null || echo none)
si1=$((si0 + 3))
knobs_back() {
	echo "$si0" >$si
	[ "$nb0" = none ] || echo "$nb0" >$nb
}
trap 'knobs_back; cleanup_host' EXIT
mkdir -p "$T/img"
scratch=1
{ [ -w /dev/loop-control ] && command -v mke2fs >/dev/null; } || scratch=0
if [ $scratch = 1 ]; then
	bg=', "background": [{"workload": "pressure", "params": {"kinds": "pagecache",
	  "pagecache_share": 0.001, "image_dir": "'"$T/img"'"}}]'
	kinds=anon,numa_balancing
else
	bg=
	kinds=anon
fi
cat >"$T/long.json" <<EOF
{"name": "hostile-signals", "nodes": {"private": "", "dram": "auto"},
 "collectors": {"interval": "100ms", "enabled": ["vmstat"]},
 "phases": [{"name": "p", "knobs": {"vm.stat_interval": $si1}, "workloads": [
   {"workload": "pressure", "params": {"kinds": "$kinds", "anon_share": 0.001,
    "threads": 1, "duration": "30s"}}]}]$bg}
EOF
# mid-phase: the knob is set and (with loop devices) the scratch fs mounted
mid_phase() {
	[ "$(cat $si)" = "$si1" ] || return 1
	[ $scratch = 0 ] || grep -q "$T/img" /proc/self/mounts
}
for sig in HUP QUIT; do
	num=$(kill -l "$sig")
	out=$T/$sig
	"$PN" run -o "$out" "$T/long.json" >"$out.out" 2>"$out.err" &
	pid=$!
	if ! wait_for mid_phase; then
		notok "SIG$sig: the run reached its phase" "$(tail -n 3 "$out.err")"
		kill -INT $pid
		wait $pid
		knobs_back
		continue
	fi
	kill -"$sig" $pid
	wait $pid
	rc=$?
	st=$(json "$out/run.json" 'd["status"]["state"]')
	val=$($PY "$VALIDATE" "$out" 2>&1)
	vrc=$?
	left=$(left_mounts)
	cgp=$(run_cgroup "$out.err")
	cg=0
	[ -n "$cgp" ] && [ -e "$cgp" ] && cg=1
	kn="stat_interval $(cat $si) (was $si0), numa_balancing $(cat $nb 2>/dev/null || echo none) (was $nb0)"
	expect "SIG$sig mid-phase: exit $rc (want $((128 + num)))" "$(tail -n 3 "$out.err")" \
		test "$rc" -eq $((128 + num))
	expect "SIG$sig: every knob read back restored ($kn)" "$kn" \
		test "$(cat $si)" = "$si0" -a "$(cat $nb 2>/dev/null || echo none)" = "$nb0"
	expect "SIG$sig: no cgroup left (${cgp:-none made})" "$(ls -d "$cgp" 2>&1)" test $cg = 0
	if [ $scratch = 1 ]; then
		expect "SIG$sig: no scratch mount, loop device or image left ($left)" \
			"$(grep "$T" /proc/self/mounts; losetup -a | grep "$T"; ls "$T/img")" \
			test "$left" = 0
	else
		skip "SIG$sig: no scratch mount left" "no loop devices or mke2fs here"
	fi
	expect "SIG$sig: run.json valid and $st" "$val" test $vrc -eq 0 -a "$st" = incomplete
	knobs_back
	cleanup_mounts
done

# SIGPIPE: stdout and stderr into a pipe whose reader is gone at once.
pnrun run -q -o "$T/plain" --exec -- true >/dev/null 2>&1
want=$?
before=$(stale_cgroups | sort)
pnrun run -o "$T/pipe" --exec -- true 2>&1 | head -c0
rc=${PIPESTATUS[0]}
after=$(stale_cgroups | sort)
new=$(comm -13 <(echo "$before") <(echo "$after") | grep -c .)
st=$(json "$T/pipe/run.json" 'd["status"]["state"]')
expect "stdout and stderr gone (| head -c0): exit $rc, the verdict's $want, not 141" "rc=$rc" \
	test "$rc" -eq "$want"
expect "stdout and stderr gone: run.json $st, no cgroup left ($new new)" \
	"$(comm -13 <(echo "$before") <(echo "$after"))" test "$st" = complete -a "$new" = 0
# collect runs until ^C: with SIGPIPE ignored, a reader that went away must
# end it (not a loop writing into a broken pipe until the timeout, 124)
timeout 20 "$PN" collect -i 100ms 2>/dev/null | head -n 1 >/dev/null
rc=${PIPESTATUS[0]}
expect "pnbench collect | head -n 1: ends when the reader is gone (exit $rc)" "rc=$rc" test "$rc" -eq 0
truth_report
echo "1..$n"
