#!/bin/sh
# Runs inside a kernel-series/qemu guest (device nodes 1 and 2 already online):
# pnbench measures the machine it runs on.  MODE (private|stock) comes from
# /guest/suite.env.  Prints "SUITE <name> rc=<n>" per run and each run.json
# base64-encoded between SUITE-JSON markers for the host to validate.
# shellcheck disable=SC1091
. /guest/suite.env
PN=/usr/local/bin/pnbench
if [ "$MODE" = private ]; then
	ROLE=""
	# opt-in: sysfs node attribute (series v2), debugfs on series v1 kernels
	for n in 1 2; do
		f=/sys/devices/system/node/node$n/private/mempolicy
		[ -e "$f" ] || f=/sys/kernel/debug/private_node/node$n/mempolicy
		echo 1 > "$f"
	done
else
	ROLE="--private 1,2"
fi
cd /tmp || exit 1
emit() { # name dir
	echo "SUITE-JSON-BEGIN $1"
	base64 "$2/run.json"
	echo "SUITE-JSON-END $1"
}
# shellcheck disable=SC2086
$PN run /guest/explicit.json $ROLE -o /tmp/explicit > /tmp/explicit.out 2>&1
echo "SUITE explicit rc=$?"
sed 's/^/SUITE-LOG explicit: /' /tmp/explicit.out | tail -n 12
emit explicit /tmp/explicit

# A general allocation storm: page cache 1.3x the DRAM that is free, on an
# ext2 scratch disk, plus anon; pnbench watches with --exec.
mke2fs -q /dev/pmem0 && mkdir -p /mnt/scratch && mount -t ext2 /dev/pmem0 /mnt/scratch
avail=$(awk '/MemAvailable/ { print int($2 / 1024) }' /proc/meminfo)
disk=$(($(cat /sys/block/pmem0/size) / 2048))
file=$((avail * 13 / 10))
[ $file -gt $((disk - 64)) ] && file=$((disk - 64))
# shellcheck disable=SC2086
$PN run --exec $ROLE -o /tmp/storm -- /usr/local/bin/pn-e2e-test storm 50 "$file" /mnt/scratch/storm 5 \
	> /tmp/storm.out 2>&1
echo "SUITE storm rc=$?"
sed 's/^/SUITE-LOG storm: /' /tmp/storm.out | grep -v 'R storm' | tail -n 8
emit storm /tmp/storm
exit 0
