#!/bin/bash
# fault-bench.sh: first-touch anonymous fault cost of two kernels, A and B,
# counted in guest instructions (QEMU -icount shift=0, one vCPU), not time.
#
#   make -C kernel-series bench [KERNEL_A=stock] [KERNEL_B=patched] [ROUNDS=3] ...
#
# Under run-guest.sh --icount the guest's TSC advances one per guest
# instruction the vCPU executes; faultbench reads it around its touch loop
# (one byte written per 4 KiB page, THP off), so insn / pages = guest
# instructions per first-touch fault, including the user loop, the fault
# entry and exit, page allocation, zeroing and any interrupt taken meanwhile.
# The same boot gives the same count to within a few hundred instructions
# per 16384 faults: the figures need no wall clock and no quiet host.
#
# Scenarios (SCENARIOS, default all three), same VM shape everywhere (1 vCPU,
# 1 GiB DRAM node 0, 2 CPU-less 512 MiB device nodes 1-2):
#   none/dram        device memory not hot-plugged (no private node); faults on DRAM
#   private/dram     device memory hot-plugged with kmem.private_nodes=1-2 (private
#                    nodes on a patched kernel, ordinary nodes on stock); faults on DRAM
#   private/private  the same boot; faults mbind()-ed to node 1 (opted in to
#                    user mempolicy first where the kernel has the knob)
# The two private/* scenarios share one boot.  A round boots A and B once per
# setup (none, private), alternating which goes first; ROUNDS rounds; each
# boot runs WARMUP discarded then REPS measured faultbench rounds of MIB MiB.
# Every measured round checks with move_pages() that all its pages landed on
# the scenario's node.  bench/kbench-stats.py prints, per scenario, median A,
# median B, B/A, B-A and the per-round spread.  Never gates on the figures.
#
# Environment: KERNEL_A, KERNEL_B (bzImage path or stock|patched; default
# stock and patched from the cache), APPEND_A, APPEND_B (more kernel command
# line for that side, e.g. private_node_mode=isolate), LABEL_A, LABEL_B,
# ROUNDS (3), REPS (5),
# WARMUP (1), MIB (64), SCENARIOS, BENCH_OUT (directory for logs, samples.tsv
# and table.txt; default $PNBENCH_CACHE/bench/<utc>-<labelA>-vs-<labelB>),
# BENCH_TIMEOUT (600 s per boot).
# Exit: 0 every boot ran and every page landed where it should, 1 a boot
# failed or a sample is misplaced (the table still prints), 2 usage, 4 qemu
# or a kernel missing.
set -euo pipefail
PN_PROG=fault-bench
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../scripts/lib.sh
. "$here/../scripts/lib.sh"

rounds=${ROUNDS:-3} reps=${REPS:-5} warmup=${WARMUP:-1} mib=${MIB:-64}
scenarios=${SCENARIOS:-none/dram private/dram private/private} btimeout=${BENCH_TIMEOUT:-600}
for v in rounds reps warmup mib btimeout; do
	[[ "${!v}" =~ ^[0-9]+$ ]] || PN_DIE_RC=2 pn_die "${v^^} wants a number (got '${!v}')"
done
((rounds >= 1 && reps >= 1)) || PN_DIE_RC=2 pn_die "ROUNDS and REPS must be >= 1"
pn_bench_scenarios "$scenarios"
command -v qemu-system-x86_64 >/dev/null || PN_DIE_RC=4 pn_die "qemu-system-x86_64 not installed: skipping the benchmark"

declare -A kernel label append
kernel[A]=$(pn_bench_kernel "${KERNEL_A:-stock}" benchmark)
kernel[B]=$(pn_bench_kernel "${KERNEL_B:-patched}" benchmark)
append[A]=${APPEND_A:-} append[B]=${APPEND_B:-}
for side in A B; do
	l=LABEL_$side
	# a cached kernel is named by its directory (stock-<key>), another by its file
	name=$(basename "${kernel[$side]}")
	[[ "$name" == bzImage ]] && name=$(basename "$(dirname "${kernel[$side]}")")
	label[$side]=${!l:-$name}
done

out=${BENCH_OUT:-$PN_CACHE/bench/$(date -u +%Y%m%dT%H%MZ)-${label[A]}-vs-${label[B]}}
[[ -L "$out" ]] && pn_die "BENCH_OUT $out is a symlink: refusing to write through it"
mkdir -p "$out" || pn_die "cannot create $out"
work=$(mktemp -d /tmp/pnbench-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
gcc -static -O2 -Wall -o "$work/faultbench" "$here/faultbench.c" || pn_die "gcc -static failed for bench/faultbench.c"

samples=$work/samples.tsv
{
	echo "# A ${label[A]} ${kernel[A]}"
	echo "# B ${label[B]} ${kernel[B]}"
	echo "# append A=${append[A]} B=${append[B]}"
	echo "# rounds=$rounds reps=$reps warmup=$warmup mib=$mib scenarios=$scenarios"
	echo "# side scenario round rep pages on_node insn"
} >"$samples"
pn_log "A = ${kernel[A]}"
pn_log "B = ${kernel[B]}"
pn_log "$rounds round(s) x setups [${setups# }] x 2 kernels, $reps x $mib MiB per boot; logs in $out"

failed=0
# boot <side> <setup> <round>: one guest, its samples appended to $samples
boot() {
	local side=$1 setup=$2 r=$3 rows args=(--private) log rc=0
	rows=$none_rows
	[[ "$setup" == private ]] && rows=$private_rows
	[[ "$setup" == none ]] && args+=(--no-online)
	log=$work/$setup-$side-$r.log
	printf 'MIB=%s\nROUNDS=%s\nWARMUP=%s\nROWS="%s"\n' "$mib" "$reps" "$warmup" "$rows" >"$work/bench.env"
	pn_log "round $r/$rounds: $side (${label[$side]}), setup $setup"
	"$here/../qemu/run-guest.sh" --kernel "${kernel[$side]}" --icount --dev-nodes 2 --dev-size 512 \
		--dram 1024 --disk 0 --timeout "$btimeout" --quiet --log "$log" \
		--script "$here/bench-guest.sh" --add "$work/faultbench" \
		--file "$work/bench.env:/guest/bench.env" "${args[@]}" --append " pnbench.dmesg=0${append[$side]:+ ${append[$side]}}" || rc=$?
	[[ -f "$log" ]] || : >"$log"
	cp "$log" "$out/$setup-$side-$r.log"
	if ((rc != 0)); then
		pn_log "round $r: $side ($setup) failed (run-guest exit $rc); log $out/$setup-$side-$r.log"
		failed=1
	fi
	python3 "$here/kbench-stats.py" --from-log "$side" "$setup" "$r" "$log" >>"$samples" || failed=1
	local row n
	for row in $rows; do
		n=$(grep -c "^R fault row=$row " "$log" || true)
		if ((n != reps)); then
			pn_log "round $r: $side $setup/$row has $n of $reps samples"
			failed=1
		fi
	done
}

for ((r = 1; r <= rounds; r++)); do
	order='A B'
	((r % 2 == 0)) && order='B A'
	for setup in $setups; do
		for side in $order; do
			boot "$side" "$setup" "$r"
		done
	done
done

src=0
python3 "$here/kbench-stats.py" "$samples" >"$work/table.txt" || src=$?
cat "$work/table.txt"
# results land whole or not at all: copy to a temporary name, then rename
for f in samples.tsv table.txt; do
	cp "$work/$f" "$out/.$f.tmp" && mv -f "$out/.$f.tmp" "$out/$f"
done
pn_log "samples and table: $out"
((src == 0)) || failed=1
((failed == 0)) || pn_log "a boot failed or a sample was misplaced: exit 1 (figures above are from the rest)"
exit "$failed"
