#!/usr/bin/env bash
# The perf collector in reference-kernel guests (kernel-series/qemu, TCG),
# device node 1 in the private role, 4096 pages bound to it with mbind():
#  - stock: a foreign process's pages are reported exactly as general pages
#    by the event path (nothing lost), the same pages of a declared explicit
#    workload are explicit (0 general), a quiet phase reports 0;
#  - stock, booted with page_owner=on: page_owner holds the foreign
#    process's pages on the node at the phase's end as general pages, and
#    the explicit workload's as explicit (collectors/perf/pgowner.c);
#  - patched ("private" mode, node 1 opted in to mempolicy): the foreign
#    process's pages carry __GFP_PRIVATE, so they are explicit, 0 general,
#    and mm_private_alloc fired for every one of them.
# One guest at a time.  TAP; skips (exit 4) without QEMU, kernels or the tool
# (a kernel that is not cached skips its half).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
O=${PNBENCH_BUILD:-build}
TOOL="$O/tests/perf_guest_leak"
KS="./kernel-series"
PAGES=4096
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
command -v qemu-system-x86_64 >/dev/null || skipall "qemu-system-x86_64 not installed (make deps)"
[ -x "$TOOL" ] || skipall "$TOOL not built (needs libperf: make deps)"
stock=$("$KS/scripts/kernel-path.sh" stock 2>/dev/null) || stock=
patched=$("$KS/scripts/kernel-path.sh" patched 2>/dev/null) || patched=
[ -n "$stock$patched" ] || skipall "no reference kernel in the cache (make kernels)"
T=$(mktemp -d /tmp/pnbench-perfguest.XXXXXX)
trap 'rm -rf "$T"' EXIT

boot() { # mode kernel [run-guest args]
	local mode=$1 kernel=$2
	shift 2
	printf 'MODE=%s\nPAGES=%s\n' "$mode" "$PAGES" >"$T/env-$mode"
	"$KS/qemu/run-guest.sh" --kernel "$kernel" --dev-nodes 2 --dev-size 512 --dram 1024 \
		--disk 0 --cpus 2 --timeout 420 --quiet --log "$T/$mode.log" \
		--script tests/guest/perf-guest.sh --add "$TOOL" \
		--file "$T/env-$mode:/guest/perf.env" "$@" >"$T/$mode.rg" 2>&1
}
value() { # mode phase key
	tr -d '\r' <"$T/$1.log" | sed -n "s/^PERFGUEST $2 .*\<$3=\([0-9-]*\).*/\1/p" | head -n1
}
check() { # mode desc phase key want
	local v
	v=$(value "$1" "$3" "$4")
	if [ "$v" = "$5" ]; then ok "[$1] $2 ($4=$v)"; else
		notok "[$1] $2" "$3 $4=${v:-missing}, want $5" \
			"$(tr -d '\r' <"$T/$1.log" | grep PERFGUEST | tail -n 6)"
	fi
}

run_mode() { # mode kernel args...
	local mode=$1 kernel=$2 rc
	shift 2
	boot "$mode" "$kernel" "$@"
	rc=$(tr -d '\r' <"$T/$mode.log" | sed -n 's/^PERFGUEST rc=\([0-9]*\)/\1/p' | tail -n1)
	if [ "$rc" != 0 ]; then
		notok "[$mode] the tool ran in the guest" "rc=${rc:-missing}" \
			"run-guest: $(tail -n 4 "$T/$mode.rg")" \
			"$(tr -d '\r' <"$T/$mode.log" | tail -n 12)"
		return 1
	fi
	ok "[$mode] the tool ran in the guest"
}

# page_owner: at least want pages, or a skip when the guest had none
check_owner() { # mode desc phase key want
	local v why
	v=$(value "$1" "$3" owner)
	if [ "$v" != 1 ]; then
		why=$(tr -d '\r' <"$T/$1.log" | sed -n "s/^PERFGUEST $3 owner=0 owner_skipped=//p" | head -n1)
		skip "[$1] $2" "no page_owner in the guest: ${why:-no line}"
		return
	fi
	v=$(value "$1" "$3" "$4")
	if [ -n "$v" ] && [ "$v" -ge "$5" ]; then ok "[$1] $2 ($4=$v)"; else
		notok "[$1] $2" "$3 $4=${v:-missing}, want >= $5" \
			"$(tr -d '\r' <"$T/$1.log" | grep "PERFGUEST $3" | tail -n 3)"
	fi
}

echo "1..17"
if [ -z "$stock" ]; then
	for i in 1 2 3 4 5 6 7 8 9; do skip "[stock] check $i" "no stock kernel in the cache"; done
elif run_mode stock "$stock" --append page_owner=on; then
	check stock "foreign leak: general pages exact" LEAK general $PAGES
	check stock "foreign leak: nothing lost" LEAK lost 0
	check stock "foreign leak: conclusive" LEAK inconclusive 0
	check stock "explicit workload: explicit pages exact" EXPLICIT explicit $PAGES
	check stock "explicit workload: no general pages" EXPLICIT general 0
	check stock "quiet phase: no general pages" QUIET general 0
	check_owner stock "page_owner: the foreign leak's pages are general" LEAK owner_general $PAGES
	check_owner stock "page_owner: the explicit workload's pages are explicit" EXPLICIT \
		owner_explicit $PAGES
else
	for i in 2 3 4 5 6 7 8 9; do skip "[stock] check $i" "the tool did not run"; done
fi
if [ -z "$patched" ]; then
	for i in 1 2 3 4 5 6 7 8; do skip "[private] check $i" "no patched kernel in the cache"; done
elif run_mode private "$patched" --private; then
	check private "mbind to the opted-in node: explicit pages exact" LEAK explicit $PAGES
	check private "mbind to the opted-in node: no general pages" LEAK general 0
	check private "mm_private_alloc for every explicit page" LEAK series_alloc $PAGES
	check private "nothing lost" LEAK lost 0
	check private "explicit workload: no general pages" EXPLICIT general 0
	check private "explicit workload: mm_private_alloc for every page" EXPLICIT series_alloc $PAGES
	check private "quiet phase: no general pages" QUIET general 0
else
	for i in 2 3 4 5 6 7 8; do skip "[private] check $i" "the tool did not run"; done
fi
