#!/bin/bash
# fault-bench.sh: first-touch anonymous fault cost, stock vs patched kernel.
#
# Boots the stock and the patched kernel alternately (same VM shape: 2 vCPUs,
# 1 GiB DRAM node, 2 CPU-less 512 MiB device nodes) in two scenarios:
#   none     device memory not hot-plugged (no private node present)
#   private  device memory hot-plugged with kmem.private_nodes=1-2 (private on
#            the patched kernel; ordinary memory on stock)
# and runs bench/faultbench (<MIB> MiB, <ROUNDS> rounds, pinned to CPU 0) in
# each boot. Prints per-boot medians, the median over boots per kernel and
# scenario, and the ratio patched/stock (goal <= 1.01). A benchmark, not a
# test: never fails on time. TCG timing is noisy; read ratios with that in mind.
# Environment: BOOTS (default 3), MIB (64), ROUNDS (12), SCENARIOS ("none private"),
# BENCH_STOCK_KERNEL / BENCH_PATCHED_KERNEL (bzImage paths instead of the cache).
# Exit 4 when qemu or a kernel is missing.
set -euo pipefail
PN_PROG=fault-bench
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../scripts/lib.sh
. "$here/../scripts/lib.sh"

boots=${BOOTS:-3} mib=${MIB:-64} rounds=${ROUNDS:-12} scenarios=${SCENARIOS:-none private}
command -v qemu-system-x86_64 >/dev/null || PN_DIE_RC=4 pn_die "qemu-system-x86_64 not installed: skipping the benchmark"
declare -A kernel
kernel[stock]=${BENCH_STOCK_KERNEL:-} kernel[patched]=${BENCH_PATCHED_KERNEL:-}
for k in stock patched; do
	[[ -n "${kernel[$k]}" ]] && continue
	kernel[$k]=$("$here/../scripts/kernel-path.sh" "$k") ||
		PN_DIE_RC=4 pn_die "no $k kernel in cache: run make kernels (benchmark skipped)"
done

work=$(mktemp -d /tmp/pnbench-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
gcc -static -O2 -Wall -o "$work/faultbench" "$here/faultbench.c" || pn_die "gcc -static failed for bench/faultbench.c"
printf 'MIB=%s\nROUNDS=%s\n' "$mib" "$rounds" >"$work/bench.env"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan"; exit } if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "# fault-bench: ${mib} MiB x ${rounds} rounds per boot, ${boots} boots per kernel and scenario"
echo "# stock:   ${kernel[stock]}"
echo "# patched: ${kernel[patched]}"
for ((b = 1; b <= boots; b++)); do
	for s in $scenarios; do
		for k in stock patched; do
			args=(--private)
			[[ "$s" == none ]] && args+=(--no-online)
			log=$work/$s-$k-$b.log
			pn_log "boot $b/$boots: $k, scenario $s"
			"$here/../qemu/run-guest.sh" --kernel "${kernel[$k]}" --dev-nodes 2 --dev-size 512 \
				--dram 1024 --disk 0 --cpus 2 --timeout 600 --quiet --log "$log" \
				--script "$here/bench-guest.sh" --add "$work/faultbench" \
				--file "$work/bench.env:/guest/bench.env" "${args[@]}" --append " pnbench.dmesg=0" ||
				pn_log "boot $b ($k, $s) failed; see nothing recorded for it"
			sed -n 's/^R fault .*ns_per_fault=\([0-9.]*\).*/\1/p' "$log" >"$work/$s-$k-$b.ns"
			m=$(median <"$work/$s-$k-$b.ns")
			echo "$m" >>"$work/$s-$k.boot-medians"
			cat "$work/$s-$k-$b.ns" >>"$work/$s-$k.all"
			printf 'boot %d %-8s %-8s median %s ns/fault (%s rounds)  %s\n' "$b" "$s" "$k" "$m" \
				"$(wc -l <"$work/$s-$k-$b.ns")" "$(grep -a '^BENCH' "$log" | cut -d' ' -f2- || true)"
		done
	done
done
echo
printf '%-9s %14s %14s %10s %22s\n' scenario "stock ns/flt" "patched ns/flt" ratio "(pooled rounds ratio)"
for s in $scenarios; do
	ms=$(median <"$work/$s-stock.boot-medians")
	mp=$(median <"$work/$s-patched.boot-medians")
	ps=$(median <"$work/$s-stock.all")
	pp=$(median <"$work/$s-patched.all")
	printf '%-9s %14s %14s %10s %22s\n' "$s" "$ms" "$mp" \
		"$(awk -v a="$mp" -v b="$ms" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "nan" }')" \
		"$(awk -v a="$pp" -v b="$ps" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "nan" }')"
done
echo "# ratio = patched/stock median of per-boot medians (goal <= 1.01); TCG emulation, figures only"
