#!/bin/sh
# Runs inside a kernel-series/qemu guest (device nodes 1 and 2 already online):
# pnbench measures the machine it runs on.  MODE (private|isolate|stock) comes
# from /guest/suite.env, and SKIP: runs the host already has from `make
# demo`'s guests of the same kernel and build (tests/integration/
# test-demo.sh).  Prints "SUITE <name> rc=<n>" per run and each run.json
# base64-encoded between SUITE-JSON markers for the host to validate.
# shellcheck disable=SC1091
SKIP=""
. /guest/suite.env
PN=/usr/local/bin/pnbench
ROLE="--private 1,2"
[ "$MODE" = private ] && ROLE=""
cd /tmp || exit 1
emit() { # name dir
	echo "SUITE-JSON-BEGIN $1"
	base64 "$2/run.json"
	echo "SUITE-JSON-END $1"
}
optin() { # let user-space policies name the private nodes
	for n in 1 2; do
		f=/sys/devices/system/node/node$n/private/mempolicy
		[ -e "$f" ] || f=/sys/kernel/debug/private_node/node$n/mempolicy
		echo 1 > "$f"
	done
}
run() { # name args...: one pnbench run, its rc, its log tail and its run.json
	name=$1
	shift
	case " $SKIP " in *" $name "*) return 0 ;; esac
	# shellcheck disable=SC2086
	$PN run -o "/tmp/$name" "$@" > "/tmp/$name.out" 2>&1
	echo "SUITE $name rc=$?"
	sed "s/^/SUITE-LOG $name: /" "/tmp/$name.out" | grep -v 'R storm' | tail -n 10
	emit "$name" "/tmp/$name"
}

# A foreign process binds 4096 pages to node 1 and holds them 1.5 s (before
# any opt-in: on the private kernel its policy is refused and nothing lands).
# shellcheck disable=SC2086
run leak --exec $ROLE -- /usr/local/bin/pn-leak -t 4096 1 1500
# Calibration with default options (events): leaks no sample can see.
# A process faults 8192 pages onto node 1 and exits at once; one faults 6000
# onto node 2 in the middle of a 2 s command; four bursts of 1500 on node 1.
LK=/usr/local/bin/pn-leak
# shellcheck disable=SC2086
run transient --exec $ROLE -- $LK -t 8192 1 0
# shellcheck disable=SC2086
run midcmd --exec $ROLE -- sh -c "sleep 0.5; $LK -t 6000 2 0; sleep 1.5"
# shellcheck disable=SC2086
run bursts --exec $ROLE -- sh -c "for i in 1 2 3 4; do $LK -t 1500 1 0; sleep 0.2; done"
# The same leak counters only: the verdict names what it cannot see.  A
# config that requires events is inconclusive without them (its command
# leaks nothing: a leak a sample happens to catch would fail the run, which
# wins over inconclusive).
# shellcheck disable=SC2086
run blind --exec --no-events $ROLE -- $LK -t 8192 1 0
# shellcheck disable=SC2086
run require /guest/require.json --no-events $ROLE --exec -- true
# A command that leaves a child holding 3000 pages on node 1 behind.
# shellcheck disable=SC2086
run orphan --exec $ROLE -- sh -c "$LK -t 3000 1 60000 & exit 0"
# Real programs: numactl binds memhog to node 1, declared explicit.
if [ "$MODE" != private ] && [ -x /usr/local/bin/memhog ]; then
	# shellcheck disable=SC2086
	run membind --exec --explicit $ROLE -- /usr/local/bin/numactl --membind=1 /usr/local/bin/memhog -r2 64M
fi
# Activity on DRAM only, ten times: exactly 0 general pages on the devices.
# shellcheck disable=SC2086
run quiet /guest/quiet.json $ROLE
# The latency matrix to every node, private ones included, before any
# opt-in by hand: the workload holds the opt-in for its phase (private only).
[ "$MODE" = private ] && run latency /guest/latency-private.json
[ "$MODE" = private ] && optin
# shellcheck disable=SC2086
run explicit /guest/explicit.json $ROLE

# ---- pressure (workloads/pressure.c) -------------------------------------
# General pressure of every kind beside explicit allocations on the devices
# (anon + NUMA balancing, page cache on /dev/pmem0, slab trees, sockets,
# memory.high; THP + compaction in the background).  Its teardown unmounts
# the disk again, so it runs before the storm below takes /dev/pmem0.
# shellcheck disable=SC2086
run pressure /guest/pressure.json $ROLE
# ---- end pressure ---------------------------------------------------------
# ---- interleave and exhaust ----
# Weighted interleave 3:1 (and plain) over the device nodes, page for page;
# more than the devices hold, spilling to DRAM; a strict bind beyond node 1's
# capacity, killed in its own cgroup (after the opt-in on the private kernel).
# shellcheck disable=SC2086
run interleave /guest/interleave.json $ROLE
# shellcheck disable=SC2086
run exhaust /guest/exhaust.json $ROLE
# shellcheck disable=SC2086
run exhaust-strict /guest/exhaust-strict.json $ROLE
# ---- end interleave and exhaust ----

# A general allocation storm: page cache 1.3x the DRAM that is free, on an
# ext2 scratch disk, plus anon; pnbench watches with --exec.
mke2fs -q /dev/pmem0 && mkdir -p /mnt/scratch && mount -t ext2 /dev/pmem0 /mnt/scratch
avail=$(awk '/MemAvailable/ { print int($2 / 1024) }' /proc/meminfo)
disk=$(($(cat /sys/block/pmem0/size) / 2048))
file=$((avail * 13 / 10))
[ $file -gt $((disk - 64)) ] && file=$((disk - 64))
# shellcheck disable=SC2086
run storm --exec $ROLE -- /usr/local/bin/pn-e2e-test storm 50 "$file" /mnt/scratch/storm 5
exit 0
