#!/bin/sh
# In-guest half of bench/fault-bench.sh: for each row of ROWS, WARMUP rounds
# (discarded) then ROUNDS rounds of faultbench.  Row "dram": the task's own
# policy (node 0); row "private": mbind to the first device node, after
# opting it in to user mempolicy where the kernel has that knob (patched
# kernels; on stock the node is ordinary memory and needs nothing).
# Reads /guest/bench.env (MIB, ROUNDS, WARMUP, ROWS).  Exit 1 when a row fails.
# bench/fault-trace.sh adds TRACE_ADDR and WARMUP_ADDR: the warm-up maps its
# buffer at WARMUP_ADDR, the measured rounds at TRACE_ADDR (FAULTBENCH_ADDR),
# and a sync(2) between the two is the debugger's cue that the measured run of
# this row comes next.  Without TRACE_ADDR nothing of that happens.
MIB=64 ROUNDS=5 WARMUP=1 ROWS=dram TRACE_ADDR='' WARMUP_ADDR=''
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
	# fault-trace's warm-up runs at WARMUP_ADDR (an empty address is none)
	if [ "$WARMUP" -gt 0 ] && ! FAULTBENCH_ADDR=${TRACE_ADDR:+$WARMUP_ADDR} \
		/usr/local/bin/faultbench "$MIB" "$WARMUP" "$node" >/dev/null; then
		echo "BENCH row=$row error=faultbench"
		rc=1
		continue
	fi
	if [ -n "$TRACE_ADDR" ]; then
		echo "BENCH row=$row trace=$TRACE_ADDR"
		sync
	fi
	FAULTBENCH_ADDR=$TRACE_ADDR /usr/local/bin/faultbench "$MIB" "$ROUNDS" "$node" >/tmp/fb.out || rc=1
	sed "s/^R fault /R fault row=$row /" /tmp/fb.out
done
exit $rc
