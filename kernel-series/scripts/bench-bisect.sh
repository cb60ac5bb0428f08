#!/bin/bash
# bench-bisect.sh [--list] -- the fault benchmark (bench/fault-bench.sh) per
# prefix of the series: base + patches 1..i against the stock kernel, to
# find which patch adds instructions per fault.
#
#   make -C kernel-series bench-bisect PREFIXES="6 7 15" [ROUNDS=1 SCENARIOS=...]
#   scripts/bench-bisect.sh --list      # prefixes, tree hashes, cached or not
#
# PREFIXES: patch counts i (0 = the base itself, N = the whole series;
# default every i from 1 to N: a kernel build each, hours on 2 cores).
# Each prefix's kernel is built in one worktree (src/bench-bisect) and one
# object directory (build/bench-bisect-obj), prefixes in ascending order so
# each build recompiles what the next patches changed, and kept in
# kernels/prefix-<key>/ where <key> hashes the prefix's git tree (base +
# patches 1..i as applied), the config fragment and PN_BUILD_VERSION: a tree
# built once is never built again, whatever the series file is called.
# Config as scripts/build.sh (tinyconfig + fragment + olddefconfig); the
# fragment's "series only" symbols are verified for i = N only (earlier
# prefixes may predate them).  The whole series and i = 0 use the cached
# patched and stock kernels when those exist.
# Then, per prefix, fault-bench.sh with KERNEL_A = stock, KERNEL_B = the
# prefix (ROUNDS default 1 here: the counts repeat to a fraction of an
# instruction), and one summary: per prefix and scenario median B, B/A, B-A.
# A scenario a prefix cannot run (private/private before the mempolicy
# opt-in exists) shows "-" and is named; it does not stop the others.
# Exit: 0 every prefix built and measured, 1 a build or a measurement
# failed, 2 usage, 4 qemu or the stock kernel missing.
# Environment: PREFIXES, ROUNDS, REPS, SCENARIOS, BENCH_OUT (default
# $PNBENCH_CACHE/bench/<utc>-bisect), PNBENCH_CACHE, KSRC, JOBS.
set -euo pipefail
PN_PROG=bench-bisect
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

list=0
case "${1:-}" in
--list) list=1 ;;
'') ;;
*) PN_DIE_RC=2 pn_die "usage: bench-bisect.sh [--list] (prefixes in PREFIXES)" ;;
esac
pn_require_patches
mapfile -t patches < <(pn_series_patches)
npatch=${#patches[@]}
prefixes=${PREFIXES:-$(seq -s ' ' 1 "$npatch")}
for i in $prefixes; do
	if ! [[ "$i" =~ ^[0-9]+$ ]] || ((i > npatch)); then
		PN_DIE_RC=2 pn_die "PREFIXES: '$i' is not a patch count 0..$npatch"
	fi
done
prefixes=$(tr ' ' '\n' <<<"$prefixes" | sort -nu | tr '\n' ' ')

base=$("$here/get-base.sh" stock)
wt=$PN_CACHE/src/bench-bisect
obj=$PN_CACHE/build/bench-bisect-obj
mkdir -p "$PN_CACHE/kernels" "$obj"
exec 8>"$PN_CACHE/kernels/.lock-bench-bisect"
flock -n 8 || { pn_log "another bench-bisect is running; waiting"; flock 8; }
if [[ ! -e "$wt/.git" ]]; then
	git -C "$base" worktree prune
	git -C "$base" worktree add -q --detach "$wt" base >/dev/null || pn_die "cannot make the worktree $wt of $base"
fi
log=$PN_CACHE/kernels/bench-bisect.log
: >"$log"

# apply <i>: the worktree holds base + patches 1..i; prints its tree hash
apply() {
	local i=$1 j
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	git -C "$wt" checkout -q --detach base
	git -C "$wt" reset -q --hard base
	for ((j = 0; j < i; j++)); do
		git -C "$wt" am -q --keep-cr "${patches[j]}" >>"$log" 2>&1 ||
			pn_die "patch $(basename "${patches[j]}") does not apply on the previous ones (see $log)"
	done
	git -C "$wt" rev-parse 'HEAD^{tree}'
}
prefix_key() { # <tree>
	printf 'tree %s\nfragment %s\nbuild-version %s\n' "$1" \
		"$(sha256sum <"$PN_FRAGMENT" | cut -d' ' -f1)" "$PN_BUILD_VERSION" | sha256sum | cut -c1-16
}
# build <i> <dir>: compile the worktree (at prefix i) into <dir>
build() {
	local i=$1 dir=$2 kind=stock t0 tmp=$2.tmp
	((i == npatch)) && kind=patched
	rm -rf "$tmp"
	mkdir -p "$tmp"
	t0=$(date +%s)
	pn_log "prefix $i: building (log $tmp/build.log; a full tree takes about an hour on 2 cores)"
	{
		make -C "$wt" O="$obj" tinyconfig
		"$wt/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$PN_FRAGMENT"
		make -C "$wt" O="$obj" olddefconfig
	} >>"$tmp/build.log" 2>&1 || { pn_log "prefix $i: configuration failed, see $tmp/build.log"; return 1; }
	"$here/verify-config.sh" "$PN_FRAGMENT" "$obj/.config" "$kind" || return 1
	nice -n 5 make -C "$wt" O="$obj" -j"${JOBS:-$(nproc)}" LOCALVERSION="-pnbench-prefix$i-$(basename "$dir" | cut -c8-15)" \
		bzImage >>"$tmp/build.log" 2>&1 || { pn_log "prefix $i: build failed, see $tmp/build.log"; return 1; }
	cp "$obj/arch/x86/boot/bzImage" "$obj/System.map" "$obj/.config" "$tmp/"
	cp "$obj/include/config/kernel.release" "$tmp/kernel.release"
	printf 'prefix %s\npatch %s\nseconds %s\n' "$i" "$(basename "${patches[i - 1]:-base}")" \
		"$(($(date +%s) - t0))" >>"$tmp/key.txt"
	touch "$tmp/.complete"
	rm -rf "$dir"
	mv "$tmp" "$dir"
}

declare -A image
failed=0
printf '%-6s %-66s %-40s %s\n' prefix "last patch" tree kernel
for i in $prefixes; do
	name=base
	((i > 0)) && name=$(basename "${patches[i - 1]}")
	if ((i == 0)) && k=$("$here/kernel-path.sh" stock 2>/dev/null); then
		image[$i]=$k tree=base
	elif ((i == npatch)) && k=$("$here/kernel-path.sh" patched 2>/dev/null); then
		image[$i]=$k tree=series
	else
		tree=$(apply "$i")
		dir=$PN_CACHE/kernels/prefix-$(prefix_key "$tree")
		if [[ ! -f "$dir/.complete" ]]; then
			if ((list)); then
				printf '%-6s %-66s %-40s %s\n' "$i" "$name" "$tree" "(not built)"
				continue
			fi
			printf 'tree %s\n' "$tree" >"$dir.key"
			if ! build "$i" "$dir"; then
				failed=1
				continue
			fi
			cat "$dir.key" >>"$dir/key.txt" && rm -f "$dir.key"
		fi
		image[$i]=$dir/bzImage
	fi
	printf '%-6s %-66s %-40s %s\n' "$i" "$name" "$tree" "${image[$i]}"
done
((list)) && exit 0
"$here/kernel-path.sh" stock >/dev/null || PN_DIE_RC=4 pn_die "no stock kernel in cache: run make -C kernel-series kernel-stock"

out=${BENCH_OUT:-$PN_CACHE/bench/$(date -u +%Y%m%dT%H%MZ)-bisect}
[[ -L "$out" ]] && pn_die "BENCH_OUT $out is a symlink: refusing to write through it"
mkdir -p "$out"
summary=$out/.summary.tmp
printf '%-6s %-16s %10s %8s %8s  %s\n' prefix scenario "median B" "B/stock" "B-stock" "last patch" >"$summary"
for i in $prefixes; do
	[[ -n "${image[$i]:-}" ]] || continue
	name=base
	((i > 0)) && name=$(basename "${patches[i - 1]}")
	pn_log "prefix $i: measuring against stock"
	rc=0
	ROUNDS=${ROUNDS:-1} KERNEL_A=stock KERNEL_B="${image[$i]}" LABEL_B="prefix-$i" \
		BENCH_OUT="$out/prefix-$i" "$here/../bench/fault-bench.sh" >"$out/prefix-$i.txt" || rc=$?
	((rc == 0)) || { pn_log "prefix $i: the benchmark exited $rc (see $out/prefix-$i/)"; failed=1; }
	# table rows: scenario rounds medianA medianB ratio diff ...
	awk -v i="$i" -v name="$name" '$1 ~ /^[a-z]+\/[a-z]+$/ && NF >= 6 {
		printf "%-6s %-16s %10s %8s %8s  %s\n", i, $1, $4, $5, $6, name }' "$out/prefix-$i.txt" >>"$summary"
done
mv -f "$summary" "$out/summary.txt"
cat "$out/summary.txt"
pn_log "per-prefix tables and logs: $out"
exit "$failed"
