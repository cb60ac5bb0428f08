#!/bin/bash
# fault-trace.sh: instruction-exact, per-function profile of first-touch
# anonymous faults, kernel A vs B: where the instructions that
# `make bench` counts per fault go.
#
#   make -C kernel-series fault-trace [KERNEL_A=stock] [KERNEL_B=patched] ...
#
# Each guest boots as in the benchmark (run-guest.sh --icount: one vCPU,
# 1 GiB DRAM node 0, two 512 MiB device nodes; setup "none" leaves them
# offline, "private" hot-plugs them with kmem.private_nodes=) plus --gdb, and
# runs bench/bench-guest.sh with TRACE_ADDR: per row a warm-up faultbench
# round with its buffer at WARMUP_ADDR, then one measured round at
# TRACE_ADDR.  gdb (bench/fault-trace.py) waits until the retried user store
# that completes the fault of page TRACE_PAGE-1 has run (an access watchpoint on
# that byte: the one stop before the trace), then single-steps TRACE_FAULTS
# periods of faultbench's loop and records every PC: the user loop, the store
# that faults, the exception entry, handle_mm_fault(), allocation, zeroing,
# the exit, up to and including the retried store.  One period is what the
# benchmark's RDTSC loop counts per page, plus one step: the first try of
# the store faults without retiring, which -icount does not count.
# bench/fault-trace-stats.py symbolizes the PCs with each kernel's System.map
# (and faultbench's own symbols), prints per kernel and scenario a table per
# function (instructions, calls, entries, rep iterations) and per scenario
# the diff A vs B sorted by |B-A|.
#
# Environment: KERNEL_A, KERNEL_B (bzImage path or stock|patched; default
# stock and patched from the cache), MAP_A, MAP_B (System.map; default the
# one beside the bzImage), LABEL_A, LABEL_B, SCENARIOS (default none/dram
# private/dram private/private), TRACE_PAGE (100: first page traced, >= 1),
# TRACE_FAULTS (8: consecutive faults traced; from 2 on the tables come
# twice, the mean over them and the typical fault), TRACE_REPEAT (1: boots per
# kernel and setup; from 2 on each repeat's tables are compared with the
# first's: the determinism check), TRACE_TRIGGER (watch, or break:
# `break handle_mm_fault if $rsi == <page-1 address>` armed at a sync(2) cue
# the guest gives before the measured round; every hit is a stop, and each
# stop moves the icount clock to the next timer deadline, so ~100 extra
# ticks land in the faults before the traced one), MIB (64), WARMUP (1),
# TOP (20: rows of the diff tables), TRACE_OUT (default
# $PNBENCH_CACHE/fault-trace/<utc>-<labelA>-vs-<labelB>), TRACE_TIMEOUT
# (900 s per boot).
# Exit: 0 every trace was taken, 1 a boot or a trace failed, 2 usage, 4 qemu,
# gdb or a kernel missing.
set -euo pipefail
PN_PROG=fault-trace
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../scripts/lib.sh
. "$here/../scripts/lib.sh"

page=${TRACE_PAGE:-100} faults=${TRACE_FAULTS:-8} repeat=${TRACE_REPEAT:-1} mib=${MIB:-64}
warmup=${WARMUP:-1} top=${TOP:-20} btimeout=${TRACE_TIMEOUT:-900} trigger=${TRACE_TRIGGER:-watch}
scenarios=${SCENARIOS:-none/dram private/dram private/private}
trace_addr=0x7e0000000000 warmup_addr=0x7d0000000000
for v in page faults repeat mib warmup top btimeout; do
	[[ "${!v}" =~ ^[0-9]+$ ]] || PN_DIE_RC=2 pn_die "${v^^} wants a number (got '${!v}')"
done
((page >= 1 && faults >= 1 && repeat >= 1 && mib >= 1)) ||
	PN_DIE_RC=2 pn_die "TRACE_PAGE must be >= 1, TRACE_FAULTS, TRACE_REPEAT and MIB >= 1"
((page + faults <= mib * 256)) ||
	PN_DIE_RC=2 pn_die "TRACE_PAGE + TRACE_FAULTS ($((page + faults))) must fit in MIB=$mib ($((mib * 256)) pages)"
case "$trigger" in watch | break) ;; *) PN_DIE_RC=2 pn_die "TRACE_TRIGGER wants watch or break (got '$trigger')" ;; esac
pn_bench_scenarios "$scenarios"
[[ -n "$setups" ]] || PN_DIE_RC=2 pn_die "SCENARIOS is empty"
command -v qemu-system-x86_64 >/dev/null || PN_DIE_RC=4 pn_die "qemu-system-x86_64 not installed: skipping the trace"
command -v gdb >/dev/null || PN_DIE_RC=4 pn_die "gdb not installed (apt-get install gdb): skipping the trace"
gdb -q -nx -batch -ex 'python import gdb' >/dev/null 2>&1 ||
	PN_DIE_RC=4 pn_die "this gdb has no Python: skipping the trace"

# sym MAP NAME: the address of text symbol NAME in MAP (hex, no 0x)
sym() { awk -v n="$2" '$3 == n && $2 ~ /^[TtWw]$/ { print $1; exit }' "$1"; }

declare -A kernel label map hmf gate
for side in A B; do
	k=KERNEL_$side l=LABEL_$side m=MAP_$side
	kernel[$side]=$(pn_bench_kernel "${!k:-$([[ $side == A ]] && echo stock || echo patched)}" trace)
	name=$(basename "${kernel[$side]}")
	[[ "$name" == bzImage ]] && name=$(basename "$(dirname "${kernel[$side]}")")
	label[$side]=${!l:-$name}
	map[$side]=${!m:-$(dirname "${kernel[$side]}")/System.map}
	[[ -f "${map[$side]}" ]] || PN_DIE_RC=4 pn_die "no System.map for ${kernel[$side]} (set MAP_$side)"
	hmf[$side]=$(sym "${map[$side]}" handle_mm_fault)
	gate[$side]=$(sym "${map[$side]}" __x64_sys_sync)
	[[ -n "${hmf[$side]}" ]] || pn_die "${map[$side]}: no handle_mm_fault"
	[[ -n "${gate[$side]}" || "$trigger" != break ]] || pn_die "${map[$side]}: no __x64_sys_sync (TRACE_TRIGGER=break)"
done

out=${TRACE_OUT:-$PN_CACHE/fault-trace/$(date -u +%Y%m%dT%H%MZ)-${label[A]}-vs-${label[B]}}
[[ -L "$out" ]] && pn_die "TRACE_OUT $out is a symlink: refusing to write through it"
mkdir -p "$out" || pn_die "cannot create $out"
work=$(mktemp -d /tmp/pnbench-ftrace.XXXXXX)
guest_sid=''
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	# a guest still running (gdb gave up): end its session, QEMU included
	if [[ -n "$guest_sid" ]]; then
		ps -o pid= --sid "$guest_sid" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
gcc -static -O2 -Wall -Wextra -Werror -o "$work/faultbench" "$here/faultbench.c" ||
	pn_die "gcc -static failed for bench/faultbench.c"
nm -n "$work/faultbench" >"$out/faultbench.nm"
cp "${map[A]}" "$out/System.map.A"
cp "${map[B]}" "$out/System.map.B"
pn_log "A = ${kernel[A]} (${map[A]})"
pn_log "B = ${kernel[B]} (${map[B]})"
pn_log "scenarios [$scenarios], page $page, $faults fault(s), $repeat repeat(s), trigger $trigger; results in $out"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

failed=0
# boot <side> <setup> <repeat>: one guest under gdb; <side>-<setup>-<row>.rN.pcs
boot() {
	local side=$1 setup=$2 r=$3 rows args=(--private) tag port gdir rc=0 grc=0 row
	rows=$none_rows
	[[ "$setup" == private ]] && rows=$private_rows
	[[ "$setup" == none ]] && args+=(--no-online)
	tag=$side-$setup.r$r
	gdir=$work/$tag
	mkdir -p "$gdir"
	printf 'MIB=%s\nROUNDS=1\nWARMUP=%s\nROWS="%s"\nTRACE_ADDR=%s\nWARMUP_ADDR=%s\n' \
		"$mib" "$warmup" "$rows" "$trace_addr" "$warmup_addr" >"$work/bench.env"
	port=$(free_port)
	pn_log "repeat $r/$repeat: $side (${label[$side]}), setup $setup, rows [$rows], gdb port $port"
	# a session of its own (setsid does not fork here: a background job of a
	# script is no process-group leader), so that QEMU can be ended with it
	setsid "$here/../qemu/run-guest.sh" --kernel "${kernel[$side]}" --icount --dev-nodes 2 --dev-size 512 \
		--dram 1024 --disk 0 --timeout "$btimeout" --quiet --log "$gdir/console.log" \
		--script "$here/bench-guest.sh" --add "$work/faultbench" \
		--file "$work/bench.env:/guest/bench.env" "${args[@]}" --gdb "$port" \
		--append " pnbench.dmesg=0 nokaslr" >"$gdir/run-guest.out" 2>&1 &
	local pid=$!
	guest_sid=$pid
	FT_PORT=$port FT_HMF=${hmf[$side]} FT_GATE=${gate[$side]:-0} FT_BASE=$trace_addr FT_PAGE=$page \
		FT_FAULTS=$faults FT_ROWS=$rows FT_OUT=$gdir FT_TRIGGER=$trigger \
		timeout -s KILL "$btimeout" gdb -q -nx -batch -x "$here/fault-trace.py" \
		>"$gdir/gdb.out" 2>&1 || grc=$?
	grep '^fault-trace.py:' "$gdir/gdb.out" | sed 's/^/  /' >&2 || true
	if ((grc != 0)); then
		pn_log "$tag: gdb failed (exit $grc); stopping the guest; see $out/$tag.gdb.out"
		ps -o pid= --sid "$pid" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
	fi
	wait "$pid" || rc=$?
	guest_sid=''
	cp "$gdir/console.log" "$out/$tag.console.log" 2>/dev/null || true
	cp "$gdir/gdb.out" "$out/$tag.gdb.out"
	cp "$gdir/run-guest.out" "$out/$tag.run-guest.out"
	[[ -f "$gdir/gdb-info.txt" ]] && cp "$gdir/gdb-info.txt" "$out/gdb-info.txt"
	if ((rc != 0 || grc != 0)); then
		pn_log "$tag: failed (run-guest exit $rc, gdb exit $grc)"
		failed=1
	fi
	for row in $rows; do
		if [[ -f "$gdir/$row.pcs" ]]; then
			cp "$gdir/$row.pcs" "$out/$side-$setup-$row.r$r.pcs"
		else
			pn_log "$tag: no trace of row $row"
			failed=1
		fi
	done
}

for ((r = 1; r <= repeat; r++)); do
	for setup in $setups; do
		for side in A B; do
			boot "$side" "$setup" "$r"
		done
	done
done

stats=$here/fault-trace-stats.py
summary=$work/summary.txt
{
	echo "# fault-trace: A = ${label[A]} (${kernel[A]}), B = ${label[B]} (${kernel[B]})"
	echo "# page $page of the measured round, $faults fault(s), trigger $trigger, MIB $mib, warm-up $warmup, repeats $repeat"
	[[ -f "$out/gdb-info.txt" ]] && sed 's/^/# gdb: /' "$out/gdb-info.txt"
} >"$summary"
# variants: every traced fault ("": the mean per fault, what the benchmark
# averages) and, with TRACE_FAULTS > 1, the typical fault (".typical": the
# most common PC sequence, free of the batch work only some faults do)
variants=('')
((faults > 1)) && variants+=(.typical)
declare -A have
for s in $scenarios; do
	slug=${s//\//-}
	for ((r = 1; r <= repeat; r++)); do
		for side in A B; do
			pcs=$out/$side-$slug.r$r.pcs
			[[ -f "$pcs" ]] || continue
			for v in "${variants[@]}"; do
				base=${pcs%.pcs}$v
				if python3 "$stats" table --map "${map[$side]}" --user-map "$out/faultbench.nm" \
					--label "${label[$side]} $s (repeat $r)${v:+, typical fault}" --tsv "$base.tsv" \
					${v:+--typical} "$pcs" >"$base.table.txt"; then
					have[$side-$slug.r$r$v]=1
				else
					pn_log "$pcs: symbolizing failed"
					failed=1
				fi
			done
		done
	done
	for v in "${variants[@]}"; do
		[[ -n "${have[A-$slug.r1$v]:-}" && -n "${have[B-$slug.r1$v]:-}" ]] || continue
		python3 "$stats" diff --top "$top" --label-a "${label[A]}" --label-b "${label[B]}" \
			"$out/A-$slug.r1$v.tsv" "$out/B-$slug.r1$v.tsv" >"$out/diff-$slug$v.txt"
		{
			echo
			if [[ -n "$v" ]]; then
				echo "## $s, typical fault: A vs B, top $top by |B-A|"
			else
				echo "## $s: A vs B, top $top by |B-A|$( ((faults > 1)) && echo ", mean of $faults faults")"
			fi
			cat "$out/diff-$slug$v.txt"
		} >>"$summary"
	done
	for ((r = 2; r <= repeat; r++)); do
		for side in A B; do
			for v in "${variants[@]}"; do
				[[ -n "${have[$side-$slug.r1$v]:-}" && -n "${have[$side-$slug.r$r$v]:-}" ]] || continue
				python3 "$stats" diff --top "$top" --label-a "${label[$side]} r1" --label-b "${label[$side]} r$r" \
					"$out/$side-$slug.r1$v.tsv" "$out/$side-$slug.r$r$v.tsv" >"$out/same-$side-$slug.r$r$v.txt"
				echo "# determinism $s $side (${label[$side]})${v:+ typical fault} repeat 1 vs $r: $(tail -n1 "$out/same-$side-$slug.r$r$v.txt" | sed 's/^# //')" >>"$summary"
			done
		done
	done
done
{
	echo
	echo "## per kernel and scenario (repeat 1): steps per fault, -icount equivalent (less the faulting store)"
	for s in $scenarios; do
		slug=${s//\//-}
		for side in A B; do
			t=$out/$side-$slug.r1.table.txt
			[[ -f "$t" ]] || continue
			line="faults $(sed -n 's/^# faults \([0-9]*\), steps \([0-9]*\) (\([0-9.]*\) per fault).*/\1 steps \2 (\3 per fault)/p' "$t")"
			line+=", icount-equivalent $(sed -n 's/.*-icount equivalent [0-9]* (\([0-9.]*\) per fault)/\1/p' "$t")"
			if [[ -f "$out/$side-$slug.r1.typical.table.txt" ]]; then
				line+=", typical fault $(sed -n 's/^# faults \([0-9]*\), steps [0-9]* (\([0-9.]*\) per fault).*/\2 steps (\1 of '"$faults"')/p' "$out/$side-$slug.r1.typical.table.txt")"
			fi
			printf '%-16s %s %-28s %s\n' "$s" "$side" "${label[$side]}" "$line"
		done
	done
} >>"$summary"
cat "$summary"
cp "$summary" "$out/.summary.txt.tmp" && mv -f "$out/.summary.txt.tmp" "$out/summary.txt"
pn_log "traces (*.pcs), tables (*.table.txt, *.tsv), diffs and summary.txt: $out"
((failed == 0)) || pn_log "a boot or a trace failed: exit 1 (tables above are from the rest)"
exit "$failed"
