#!/usr/bin/env bash
# The perf collector in a reference-kernel guest (kernel-series/qemu, TCG):
# on the stock kernel, with device node 1 in the private role, a foreign
# process leaking 4096 pages onto it is reported exactly by the event path
# (general pages == 4096, nothing lost), the same pages by a declared
# explicit workload are explicit (0 general), and a quiet phase reports 0.
# TAP; skips (exit 4) without QEMU, a cached stock kernel or the tool.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
O=${PNBENCH_BUILD:-build}
TOOL="$O/tests/perf_guest_leak"
KS="./kernel-series"
PAGES=4096
skipall() { echo "1..0 # SKIP $1"; exit 4; }
command -v qemu-system-x86_64 >/dev/null || skipall "qemu-system-x86_64 not installed (make deps)"
[ -x "$TOOL" ] || skipall "$TOOL not built (needs libperf: make deps)"
stock=$("$KS/scripts/kernel-path.sh" stock 2>/dev/null) || skipall "no stock kernel in the cache (make kernels)"
T=$(mktemp -d /tmp/pnbench-perfguest.XXXXXX)
trap 'rm -rf "$T"' EXIT
echo "PAGES=$PAGES" >"$T/env"
"$KS/qemu/run-guest.sh" --kernel "$stock" --dev-nodes 2 --dev-size 512 --dram 1024 --disk 0 \
	--cpus 2 --timeout 420 --quiet --log "$T/guest.log" --script tests/guest/perf-guest.sh \
	--add "$TOOL" >/dev/null 2>&1
grc=$?
log=$(tr -d '\r' <"$T/guest.log" | sed -n 's/^PERFGUEST //p')
n=0
check() { # desc phase key want
	local v
	n=$((n + 1))
	v=$(printf '%s\n' "$log" | sed -n "s/^$2 .*\<$3=\([0-9-]*\).*/\1/p" | head -n1)
	if [ "$v" = "$4" ]; then echo "ok $n - $1 ($3=$v)"; else
		echo "not ok $n - $1"
		echo "#   $2 $3=${v:-missing}, want $4 (guest exit $grc)"
		printf '%s\n' "$log" | sed 's/^/#   /' | tail -n 8
	fi
}
rc=$(printf '%s\n' "$log" | sed -n 's/^rc=\([0-9]*\)/\1/p' | tail -n1)
if [ "$rc" = 4 ]; then
	echo "1..0 # SKIP collector unavailable in the guest: $(printf '%s\n' "$log" | grep ERR | head -n1)"
	exit 4
fi
echo "1..7"
n=1
if [ "$rc" = 0 ]; then echo "ok 1 - [stock] the tool ran in the guest"; else
	echo "not ok 1 - [stock] the tool ran in the guest"
	echo "#   rc=${rc:-missing}, guest exit $grc"
	tr -d '\r' <"$T/guest.log" | tail -n 15 | sed 's/^/#   /'
fi
check "[stock] foreign leak: general pages exact" LEAK general $PAGES
check "[stock] foreign leak: nothing lost" LEAK lost 0
check "[stock] foreign leak: conclusive" LEAK inconclusive 0
check "[stock] explicit workload: explicit pages exact" EXPLICIT explicit $PAGES
check "[stock] explicit workload: no general pages" EXPLICIT general 0
check "[stock] quiet phase: no general pages" QUIET general 0
