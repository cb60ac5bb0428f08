#!/bin/sh
# Runs inside a kernel-series/qemu guest (device nodes 1 and 2 online).
# 1. The standalone probe driver against the device nodes, one probe at a
#    time: the zone each device node's memory is in, the driver's PROBE lines,
#    "PROBES rc=<n>".
# 2. When pnbench is installed: the probes workload under the runner
#    (/guest/probes.json, --private 1,2 unless the kernel has private nodes in
#    "private" mode): "PNRUN rc=<n>", its log tail, run.json base64-encoded
#    between PNRUN-JSON markers.
# Driver options come from /guest/probes.env (PROBE_ARGS), when present.
PROBE_ARGS=""
# shellcheck disable=SC1091
[ -f /guest/probes.env ] && . /guest/probes.env
[ -e /sys/fs/cgroup/cgroup.controllers ] || mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
for n in 1 2; do
	z=$(awk -v n="$n" '$1 == "Node" && $2 == n "," { zone = $4 } zone != "" && $1 == "managed" { if ($2 > 0) print zone; zone = "" }' /proc/zoneinfo | tr '\n' ' ')
	echo "PROBES-NODE node=$n zones=$z"
done
mode=$(cat /sys/devices/system/node/private_node_mode 2>/dev/null || cat /sys/kernel/debug/private_node/mode 2>/dev/null)
echo "PROBES-INFO private=$(cat /sys/devices/system/node/has_private_memory 2>/dev/null) mode=$mode"
# shellcheck disable=SC2086
/usr/local/bin/pn-probes --dev 1,2 $PROBE_ARGS
echo "PROBES rc=$?"
grep -E '^(pgdemote|thp_collapse_alloc |pgalloc_private|numa_private|thp_collapse_private|compact_private)' /proc/vmstat | sed 's/^/PROBES-VMSTAT /'
if [ -x /usr/local/bin/pnbench ] && [ -f /guest/probes.json ]; then
	role="--private 1,2"
	[ "$mode" = private ] && role=""
	cd /tmp || exit 1
	# shellcheck disable=SC2086
	/usr/local/bin/pnbench run /guest/probes.json $role -o /tmp/pnrun >/tmp/pnrun.out 2>&1
	echo "PNRUN rc=$?"
	grep -E '^(checks:|  FAIL|general allocations|verdict:)' /tmp/pnrun.out | sed 's/^/PNRUN-LOG /'
	echo PNRUN-JSON-BEGIN
	base64 /tmp/pnrun/run.json
	echo PNRUN-JSON-END
fi
exit 0
