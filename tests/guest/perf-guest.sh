#!/bin/sh
# Runs inside a kernel-series/qemu guest (device nodes 1 and 2 online): the
# perf collector's event path against a known leak onto node 1
# (tests/tools/perf_guest_leak.c).  MODE (stock|private) and PAGES come from
# /guest/perf.env; on the patched kernel ("private") node 1 opts in to
# mempolicy first, so that mbind() to it is an explicit request.  Prints the
# tool's lines prefixed "PERFGUEST ", then "PERFGUEST rc=<n>".
# shellcheck disable=SC1091
. /guest/perf.env
if [ "$MODE" = private ]; then
	# series v2: a sysfs node attribute; series v1 kernels: debugfs
	f=/sys/devices/system/node/node1/private/mempolicy
	if [ ! -e "$f" ]; then
		[ -d /sys/kernel/debug/private_node ] || mount -t debugfs none /sys/kernel/debug
		f=/sys/kernel/debug/private_node/node1/mempolicy
	fi
	echo 1 > "$f"
fi
/usr/local/bin/perf_guest_leak 1 "${PAGES:-4096}" > /tmp/pg.out 2> /tmp/pg.err
rc=$?
sed 's/^/PERFGUEST /' /tmp/pg.out
sed 's/^/PERFGUEST-ERR /' /tmp/pg.err | tail -n 5
echo "PERFGUEST rc=$rc"
exit 0
