#!/bin/sh
# Runs inside a kernel-series/qemu guest of `pnbench demo` (scripts/demo.sh),
# the device nodes already online: those of pnbench.devices= on the kernel
# command line (run-guest.sh: 1,2 with one initiator, 2,3 with two), 1,2
# when it is absent.  Every result goes to /mnt/host (the
# host's cell directory, virtio-9p): nothing is read back from the console.
#
#   /mnt/host/guest.txt       the testbed as the guest sees it (model, device
#                             nodes, zones)
#   /mnt/host/<run>/          each pnbench run's results (run.json, CSVs) and
#   /mnt/host/<run>.log       its log
#   /mnt/host/runs.txt        "<run> rc=<n> seconds=<s>", one line per run
#   /mnt/host/fault.txt       the hot-remove fault step, key=value lines
#   /mnt/host/<row>.txt       the contract rows (instrument clients access
#                             revoke hotadd) and the driver's mmap path
#                             (driver; scripts/demo-contract.sh), key=value
#   /mnt/host/dmesg.txt       the kernel log at the end
#
# Runs are made in the guest's /tmp and copied afterwards, so that 9p traffic
# never happens while a run measures.  The model (stock, isolate, private,
# june2026) is read from the kernel: on stock, isolate and june2026 the
# device nodes are named (--private 1,2, or the list of pnbench.devices=;
# june2026 and isolate nodes are in has_memory too), on private the
# kernel's own private nodes are used.
# The contract rows set the opt-ins they need themselves (instrument and the
# first half of clients without them); the others run after optin().
# /guest/demo.env may set RUNS (default: every run below) and DEMO_EXEC=1:
# instead of the demo runs, `pnbench run --exec` of the command whose words
# are the lines of /guest/exec.args (`pnbench vm --exec`).
OUT=/mnt/host
PN=/usr/local/bin/pnbench
RUNS="probes instrument clients access revoke explicit driver pressure interleave exhaust multinode fault hotadd"
DEMO_EXEC=""
# shellcheck disable=SC1091
[ -f /guest/demo.env ] && . /guest/demo.env
if ! grep -q " /mnt/host 9p " /proc/mounts; then
	echo "DEMO-ERROR /mnt/host is not a 9p mount: no way to bring results home"
	exit 3
fi
cd /tmp || exit 1

model=stock
if [ -n "$(cat /sys/devices/system/node/has_private_memory 2>/dev/null)" ]; then
	model=$(cat /sys/devices/system/node/private_node_mode 2>/dev/null ||
		cat /sys/kernel/debug/private_node/mode 2>/dev/null || echo private)
fi
# the device nodes: pnbench.devices=2,3 (run-guest.sh), else 1,2
DEVICES=1,2
case " $(cat /proc/cmdline) " in
*" pnbench.devices="*)
	DEVICES=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^pnbench\.devices=//p' | tail -n1) ;;
esac
DEVS=$(echo "$DEVICES" | tr ',' ' ')
LAST=${DEVICES##*,} # the hot-remove fault step's node
ROLE="--private $DEVICES"
[ "$model" = private ] && ROLE=""
{
	echo "model=$model"
	echo "kernel=$(uname -r)"
	echo "devices=$DEVICES"
	echo "has_private_memory=$(cat /sys/devices/system/node/has_private_memory 2>/dev/null)"
	for n in $DEVS; do
		z=$(awk -v n="$n" '$1 == "Node" && $2 == n "," { zone = $4 }
			zone != "" && $1 == "managed" { if ($2 > 0) printf "%s ", zone; zone = "" }' /proc/zoneinfo)
		echo "node${n}_zones=$z"
		echo "node${n}_memtotal_kb=$(awk '/MemTotal/ { print $4 }' /sys/devices/system/node/node"$n"/meminfo 2>/dev/null)"
		# HMAT: the node's best initiators (none without HMAT, or on a private node)
		ini=''
		for i in /sys/devices/system/node/node"$n"/access0/initiators/node*; do
			[ -e "$i" ] && ini="$ini${ini:+ }${i##*/}"
		done
		echo "node${n}_access0_initiators=$ini"
	done
} >"$OUT/guest.txt.tmp" && mv "$OUT/guest.txt.tmp" "$OUT/guest.txt"

now() { cut -d' ' -f1 /proc/uptime; }
# the contract rows (make demo ships it; pnbench vm does not need it)
# shellcheck source=scripts/demo-contract.sh
[ -f /guest/demo-contract.sh ] && . /guest/demo-contract.sh
secs() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
optin() { # user-space policies may name the private nodes (series)
	for n in $DEVS; do
		f=/sys/devices/system/node/node$n/private/mempolicy
		[ -e "$f" ] || f=/sys/kernel/debug/private_node/node$n/mempolicy
		[ -e "$f" ] && echo 1 >"$f"
	done
}
run() { # NAME CONFIG: one pnbench run, copied home when it ends
	name=$1 t0=$(now)
	$PN recover >/dev/null 2>&1 # what an earlier killed run left (nothing in a fresh guest)
	# shellcheck disable=SC2086
	$PN run -o "/tmp/$name" "$2" $ROLE >"/tmp/$name.log" 2>&1
	run_rc=$? # a run's status is judged by the table, not the guest's exit
	cp -r "/tmp/$name" "$OUT/$name" 2>/dev/null
	cp "/tmp/$name.log" "$OUT/$name.log"
	rm -rf "/tmp/$name"
	echo "$name rc=$run_rc seconds=$(secs "$t0")" >>"$OUT/runs.txt"
	echo "DEMO-RUN $name rc=$run_rc seconds=$(secs "$t0")"
}

# Hot-remove a device node's memory while a process holds pages there: every
# block of the last device node (node 2 on the reference topology) offlined
# (the kernel migrates the pages off, or refuses with EBUSY), then the dax
# device unbound from kmem (hot-remove).  The holder must survive either
# way; where its pages went is read from its numa_maps.
fault() {
	t0=$(now) f=/tmp/fault.txt
	/usr/local/bin/pn-leak -t 8192 "$LAST" 600000 2>/tmp/hold.err &
	pid=$!
	i=0
	while [ $i -lt 120 ] && ! grep -q "placed\|refused\|pn-leak" /tmp/hold.err; do
		sleep 0.5
		i=$((i + 1))
	done
	{
		echo "node=$LAST"
		echo "holder=$(tr '\n' ' ' </tmp/hold.err)"
		echo "before=$(grep -E ' anon=8192 ' /proc/$pid/numa_maps | tr ' ' '\n' | grep '^N' | tr '\n' ' ')"
		ok=0 busy=0
		for m in /sys/devices/system/node/node"$LAST"/memory*; do
			[ -e "$m/state" ] || continue
			[ "$(cat "$m/state")" = online ] || continue
			# a migration that never finishes is interrupted (EINTR): a refusal
			if timeout 60 sh -c "echo offline >$m/state" 2>/tmp/off.err; then
				ok=$((ok + 1))
			else
				busy=$((busy + 1))
				echo "offline_error=${m##*/}: $(tr '\n' ' ' </tmp/off.err)"
			fi
		done
		echo "offlined_blocks=$ok"
		echo "refused_blocks=$busy"
		removed=no
		if [ "$busy" = 0 ]; then
			for d in /sys/bus/dax/drivers/kmem/dax*; do
				[ -e "$d" ] || continue
				[ "$(cat "$d/target_node" 2>/dev/null || cat "$d/numa_node")" = "$LAST" ] || continue
				if echo "${d##*/}" >/sys/bus/dax/drivers/kmem/unbind 2>/tmp/unbind.err; then
					removed=yes
				else
					echo "remove_error=$(tr '\n' ' ' </tmp/unbind.err)"
				fi
			done
		fi
		echo "removed=$removed"
		echo "node${LAST}_memtotal_kb=$(awk '/MemTotal/ { print $4 }' /sys/devices/system/node/node"$LAST"/meminfo)"
		if kill -0 "$pid" 2>/dev/null; then
			echo "holder_alive=1"
			echo "after=$(grep -E ' anon=8192 ' /proc/$pid/numa_maps | tr ' ' '\n' | grep '^N' | tr '\n' ' ')"
		else
			echo "holder_alive=0"
		fi
		echo "seconds=$(secs "$t0")"
	} >"$f"
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	cp "$f" "$OUT/fault.txt"
	echo "fault rc=0 seconds=$(secs "$t0")" >>"$OUT/runs.txt"
	echo "DEMO-RUN fault rc=0 seconds=$(secs "$t0")"
}

rc=0
if [ -n "$DEMO_EXEC" ]; then
	# pnbench vm --exec: the user's command under the collectors
	[ "$model" = private ] && optin
	t0=$(now)
	set --
	while IFS= read -r a; do set -- "$@" "$a"; done </guest/exec.args
	# shellcheck disable=SC2086
	$PN run -o /tmp/exec --exec $ROLE -- "$@" >/tmp/exec.log 2>&1
	rc=$?
	cp -r /tmp/exec "$OUT/exec"
	cp /tmp/exec.log "$OUT/exec.log"
	echo "exec rc=$rc seconds=$(secs "$t0")" >>"$OUT/runs.txt"
else
	for r in $RUNS; do
		case $r in
		# the probes before the opt-in: no user policy may name the nodes
		probes) run probes /guest/demo/probes.json ;;
		instrument | clients | access | revoke | driver | hotadd) "contract_$r" ;;
		fault)
			[ "$model" = private ] && optin
			fault ;;
		*)
			[ "$model" = private ] && optin
			run "$r" "/guest/demo/$r.json" ;;
		esac
	done
fi
dmesg >"$OUT/dmesg.txt"
sync
exit $rc
