#!/bin/sh
# Runs inside a kernel-series/qemu guest (device nodes 1 and 2 online):
# the standalone probe driver against the device nodes, one probe at a time.
# Prints the zone each device node's memory is in, then the driver's PROBE
# lines, then "PROBES rc=<n>".  Options for the driver come from
# /guest/probes.env (PROBE_ARGS), when present.
PROBE_ARGS=""
# shellcheck disable=SC1091
[ -f /guest/probes.env ] && . /guest/probes.env
[ -d /sys/fs/cgroup/memory.stat ] || mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
for n in 1 2; do
	z=$(awk -v n="$n" '$1 == "Node" && $2 == n "," { zone = $4 } zone != "" && $1 == "managed" { if ($2 > 0) print zone; zone = "" }' /proc/zoneinfo | tr '\n' ' ')
	echo "PROBES-NODE node=$n zones=$z"
done
echo "PROBES-INFO private=$(cat /sys/devices/system/node/has_private_memory 2>/dev/null) mode=$(cat /sys/kernel/debug/private_node/mode 2>/dev/null)"
# shellcheck disable=SC2086
/usr/local/bin/pn-probes --dev 1,2 $PROBE_ARGS
echo "PROBES rc=$?"
grep -E '^(pgdemote|thp_collapse_alloc |pgalloc_private|numa_private|thp_collapse_private|compact_private)' /proc/vmstat | sed 's/^/PROBES-VMSTAT /'
exit 0
