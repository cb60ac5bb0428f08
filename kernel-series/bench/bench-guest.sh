#!/bin/sh
# In-guest half of bench/fault-bench.sh: for each row of ROWS, WARMUP rounds
# (discarded) then ROUNDS rounds of faultbench.  Row "dram": the task's own
# policy (node 0); row "private": mbind to the first device node, after
# opting it in to user mempolicy where the kernel has that knob (patched
# kernels; on stock the node is ordinary memory and needs nothing).
# Reads /guest/bench.env (MIB, ROUNDS, WARMUP, ROWS).  Exit 1 when a row fails.
MIB=64 ROUNDS=5 WARMUP=1 ROWS=dram
# shellcheck disable=SC1091
[ -f /guest/bench.env ] && . /guest/bench.env
nodes=/sys/devices/system/node
echo "BENCH kernel=$(uname -r) has_memory=$(cat $nodes/has_memory) has_private_memory=$(cat $nodes/has_private_memory 2>/dev/null || echo -)"
rc=0
for row in $ROWS; do
	node=-1
	if [ "$row" = private ]; then
		dev=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^pnbench.devices=//p' | cut -d, -f1)
		if [ -z "$dev" ] || [ ! -d "$nodes/node$dev" ]; then
			echo "BENCH row=private error=no-device-node"
			rc=1
			continue
		fi
		knob=$nodes/node$dev/private/mempolicy
		[ -e "$knob" ] && { echo 1 >"$knob" || echo "BENCH row=private error=opt-in-refused"; }
		node=$dev
	fi
	echo "BENCH row=$row node=$node"
	if [ "$WARMUP" -gt 0 ] && ! /usr/local/bin/faultbench "$MIB" "$WARMUP" "$node" >/dev/null; then
		echo "BENCH row=$row error=faultbench"
		rc=1
		continue
	fi
	/usr/local/bin/faultbench "$MIB" "$ROUNDS" "$node" >/tmp/fb.out || rc=1
	sed "s/^R fault /R fault row=$row /" /tmp/fb.out
done
exit $rc
