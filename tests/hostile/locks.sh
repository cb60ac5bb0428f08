#!/usr/bin/env bash
# Two runs at once.  Into one directory: one is refused (exit 2, "another
# pnbench run"), the other's results are valid.  Two runs that set the same
# knob: the host lock serializes them (the second says it waits) and the
# knob ends at its original value; --no-wait refuses while another holds
# the lock and runs when nobody does.  A knob changed behind a run's back
# is said so in its record (changed_behind) and on stderr.
# shellcheck source=tests/hostile/lib.sh
. "$(dirname "$0")/lib.sh"
need_root "sets knobs, takes the host lock"
si=/proc/sys/vm/stat_interval
si0=$(cat $si)
si1=$((si0 + 2))
trap 'echo "$si0" >$si; cleanup_host' EXIT
LOCK=/run/pnbench/host.lock
knob_is() { [ "$(cat $si)" = "$1" ]; }
cat >"$T/one.json" <<'EOF'
{"name": "hostile-locks", "nodes": {"private": "", "dram": "auto"}, "iterations": 3,
 "collectors": {"interval": "50ms", "enabled": ["vmstat"]},
 "phases": [{"name": "p", "workloads": [
   {"workload": "explicit", "params": {"size": "8M", "chunk": "1M", "nodes": "dram"}}]}]}
EOF
# ---- two runs into one directory, started together ----
"$PN" run -o "$T/same" "$T/one.json" >/dev/null 2>"$T/a.err" &
a=$!
"$PN" run -o "$T/same" "$T/one.json" >/dev/null 2>"$T/b.err" &
b=$!
wait $a
ra=$?
wait $b
rb=$?
codes=$(printf '%s\n' "$ra" "$rb" | sort | tr '\n' ' ')
refused=$(cat "$T/a.err" "$T/b.err" | grep -c 'another pnbench run is writing into it')
val=$($PY "$VALIDATE" "$T/same" 2>&1)
vrc=$?
st=$(json "$T/same/run.json" 'd["status"]["state"]')
expect "two runs into one -o at once: exits $codes(0 2), one refused for the lock" \
	"$(cat "$T/a.err" "$T/b.err" | grep -i error)" test "$codes" = "0 2 " -a "$refused" = 1
expect "the other's results are valid and $st" "$val" test $vrc -eq 0 -a "$st" = complete

# ---- two knob-setting runs at once: serialized, the knob restored ----
cat >"$T/knob.json" <<EOF
{"name": "hostile-knob", "nodes": {"private": "", "dram": "auto"},
 "phases": [{"name": "p", "knobs": {"vm.stat_interval": $si1}, "workloads": [
   {"workload": "pressure", "params": {"kinds": "anon", "anon_share": 0.001, "threads": 1,
    "duration": "1500ms"}}]}]}
EOF
"$PN" run -o "$T/k1" "$T/knob.json" >/dev/null 2>"$T/k1.err" &
a=$!
wait_for knob_is "$si1"
"$PN" run -o "$T/k2" "$T/knob.json" >/dev/null 2>"$T/k2.err" &
b=$!
wait $a
ra=$?
wait $b
rb=$?
old2=$(json "$T/k2/run.json" 'd["points"][0]["iterations"][0]["phases"][0]["knobs"][0]["old"]')
t1a=$(json "$T/k1/run.json" 'd["points"][0]["iterations"][0]["phases"][0]["t1_ns"]')
t0b=$(json "$T/k2/run.json" 'd["points"][0]["iterations"][0]["phases"][0]["t0_ns"]')
expect "two knob-setting runs at once: both exit 0 ($ra $rb), vm.stat_interval $(cat $si) again (was $si0)" \
	"$(tail -n 2 "$T/k1.err" "$T/k2.err")" test $ra -eq 0 -a $rb -eq 0 -a "$(cat $si)" = "$si0"
expect "the second waited for the first (said so; its knob's old value $old2 is the original $si0)" \
	"$(grep -i wait "$T/k2.err")" \
	test -n "$(grep -F "waiting for $LOCK" "$T/k2.err")" -a "$old2" = "$si0"
expect "its phase began after the first's ended ($t0b > $t1a, monotonic ns)" "t1a=$t1a t0b=$t0b" \
	test "${t0b:-0}" -gt "${t1a:-0}"

# ---- --no-wait ----
# this shell holds the host lock the way another run would (flock(2))
mkdir -p "${LOCK%/*}"
exec 9>>"$LOCK"
wait_for flock -n 9
pnrun run --no-wait -q -o "$T/nw" "$T/one.json" >/dev/null 2>"$T/nw.err" 9>&-
rc=$?
# waiting for it, then SIGINT: exit 130 at once, nothing left
"$PN" run -o "$T/wi" "$T/one.json" >/dev/null 2>"$T/wi.err" 9>&- &
a=$!
wait_for grep -qF "waiting for $LOCK" "$T/wi.err"
kill -INT $a
wait $a
rc_wi=$?
exec 9>&-
expect "SIGINT while waiting for the host lock: exit $rc_wi (130)" "$(cat "$T/wi.err")" \
	test $rc_wi -eq 130
expect "--no-wait while another holds $LOCK: exit $rc (2), says so" "$(cat "$T/nw.err")" \
	test $rc -eq 2 -a -n "$(grep -F "$LOCK" "$T/nw.err")"
pnrun run --no-wait -q -o "$T/nw2" "$T/one.json" >/dev/null 2>"$T/nw2.err"
rc=$?
expect "--no-wait with the lock free: runs (exit $rc)" "$(tail -n 2 "$T/nw2.err")" test $rc -eq 0

# ---- kill -9: the locks die with the runner, not with its last child ----
"$PN" run -o "$T/k9" "$T/knob.json" >/dev/null 2>"$T/k9.err" &
a=$!
wait_for knob_is "$si1"
kill -9 $a
wait $a 2>/dev/null
# SIGKILL skips every cleanup: its journal makes the next run refuse until
# pnbench recover puts the knob back and removes its cgroup
"$PN" recover >"$T/k9r.out" 2>&1
rrc=$?
expect "  ... pnbench recover undoes the killed run (exit $rrc), the knob is back ($(cat $si), was $si0)" \
	"$(cat "$T/k9r.out")" test $rrc -eq 0 -a "$(cat $si)" = "$si0"
pnrun run --no-wait -q -o "$T/k9b" "$T/one.json" >/dev/null 2>"$T/k9b.err"
rc=$?
pnrun run -q --force -o "$T/k9" "$T/one.json" >/dev/null 2>"$T/k9c.err"
rc2=$?
expect "right after a kill -9 mid-phase, --no-wait runs (exit $rc) and the directory is free (exit $rc2)" \
	"$(cat "$T/k9b.err" "$T/k9c.err")" test $rc -eq 0 -a $rc2 -eq 0

# ---- a knob changed behind the run's back ----
sed 's/"duration": "1500ms"/"duration": "3s"/' "$T/knob.json" >"$T/behind.json"
"$PN" run -o "$T/bh" "$T/behind.json" >/dev/null 2>"$T/bh.err" &
a=$!
wait_for knob_is "$si1"
echo $((si1 + 5)) >$si
wait $a
rc=$?
cb=$(json "$T/bh/run.json" 'd["points"][0]["iterations"][0]["phases"][0]["knobs"][0].get("changed_behind")')
val=$($PY "$VALIDATE" "$T/bh" 2>&1)
vrc=$?
expect "a knob changed behind the run: changed_behind $cb ($((si1 + 5))) in its record, on stderr, valid" \
	"rc=$rc $val $(grep -i knob "$T/bh.err")" \
	test "$cb" = $((si1 + 5)) -a -n "$(grep -F 'changed behind' "$T/bh.err")" -a $vrc -eq 0
expect "... and the original value restored all the same ($(cat $si), was $si0)" "" \
	test "$(cat $si)" = "$si0"
truth_report
echo "1..$n"
