#!/bin/bash
# mm-selftests.sh [-o DIR] [--kinds "stock patched private"] [-t "CATEGORIES"]
#                 [--test-timeout SEC] [--guest-timeout SEC] [--reruns N]
#                 [--report-only]
#
# The kernel's own mm selftests (tools/testing/selftests/mm of the 6.12.118
# base for the stock kernel, of the patched tree, which adds the series'
# private_node test, for the patched kinds; built static by
# scripts/mm-selftests-build.sh, cached) under QEMU
# (TCG), one guest at a time, VM shape --dev-nodes 2 --dev-size 512
# --dram 2048 --cpus 4:
#   stock          stock kernel, device nodes are ordinary memory
#   patched        patched kernel, device nodes ordinary memory (no --private)
#   private        patched kernel, --private: device memory online private
#   private-optin  as private, and nodeN/private/mempolicy=1 on every private
#                  node before the run (not in the default set)
# The guest (tests/mm-selftests-guest.sh) runs run_vmtests.sh itself (bash-
# static; default set: no -a, no -d), every test under a per-test timeout;
# results come back over the --share 9p directory, never from the console.
# Prints the table test | stock | patched | patched+private and fails on any
# test that passes on stock and fails, times out, is skipped, is missing or
# skips more kselftest cases on another kind, and on a test stock does not
# have (the series' own) that fails or times out, unless
# tests/mm-selftests.known allows it (each entry says why).
# --reruns N (default 2): a test that passed on stock and failed or timed
# out on another kind is run again, N times, on stock and on that kind (its
# run_vmtests.sh category only, into DIR/rerun-<i>/<kind>/); when stock
# fails or times out in it in a rerun, the failure is the test's (a race,
# a timing assumption), shown as "U ... unstable" with the pass counts of
# both kernels and not counted; a failure stock never shows stays a
# regression, whatever the kind did in its reruns ("R ... -- reruns:" with
# the same counts).  0: no reruns.
# Results: DIR (default $PNBENCH_CACHE/selftests/<utc>): table.txt,
# <kind>/{console.log,results.tsv,wall.txt,share/,tests/NN-<test>.log}.
# --report-only: boot nothing, re-read -o DIR's <kind>/share/ (after a
# change to the parser or to mm-selftests.known).
# Exit: 0 no regression, 1 regression (or a guest that never finished),
# 2 usage, 4 skipped (no qemu, no kernel).
# Environment: MMST_STOCK_KERNEL / MMST_PATCHED_KERNEL (bzImage paths).
set -uo pipefail
PN_PROG=mm-selftests
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../scripts/lib.sh
. "$here/../scripts/lib.sh"
# shellcheck source=mm-selftests-lib.sh
. "$here/mm-selftests-lib.sh"

out='' kinds='stock patched private' cats='' test_timeout=900 guest_timeout=10800 report_only=0 reruns=2
while (($#)); do
	case "$1" in
	-o) out=$2; shift 2 ;;
	--kinds) kinds=$2; shift 2 ;;
	-t) cats=$2; shift 2 ;;
	--test-timeout) test_timeout=$2; shift 2 ;;
	--guest-timeout) guest_timeout=$2; shift 2 ;;
	--reruns) reruns=$2; shift 2 ;;
	--report-only) report_only=1; shift ;;
	-h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) PN_DIE_RC=2 pn_die "unknown argument '$1' (see --help)" ;;
	esac
done
for k in $kinds; do
	case "$k" in
	stock | patched | private | private-optin) ;;
	*) PN_DIE_RC=2 pn_die "unknown kind '$k' (stock, patched, private, private-optin)" ;;
	esac
done
for v in test_timeout guest_timeout reruns; do
	[[ "${!v}" =~ ^[0-9]+$ ]] || PN_DIE_RC=2 pn_die "--${v/_/-} wants seconds (got '${!v}')"
done

read -ra kind_list <<<"$kinds"
if ((report_only)); then
	[[ -n "$out" && -d "$out" ]] || PN_DIE_RC=2 pn_die "--report-only wants -o DIR of an earlier run"
	for d in "${kind_list[@]/#/$out/}" "$out"/rerun-*/*; do
		[[ -d $d/share ]] || continue
		rm -rf "$d/tests" && mkdir -p "$d/tests"
		mmst_split "$d/share/run_vmtests.tap" "$d/tests" >"$d/results.tsv"
	done
	mmst_report "$out" "$here/mm-selftests.known" "${kind_list[@]}"
	exit
fi

command -v qemu-system-x86_64 >/dev/null ||
	PN_DIE_RC=4 pn_die "SKIP: qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"
for t in bash-static pgrep killall timeout column; do
	command -v "$t" >/dev/null || pn_die "'$t' not found (make deps: bash-static procps psmisc coreutils bsdextrautils)"
done

# kernel_for KIND: print the bzImage, or exit 4 naming the missing one.
kernel_for() {
	local kind=$1 k
	if [[ $kind == stock ]]; then
		k=${MMST_STOCK_KERNEL:-$("$here/../scripts/kernel-path.sh" stock 2>/dev/null)}
	else
		k=${MMST_PATCHED_KERNEL:-$("$here/../scripts/kernel-path.sh" patched 2>/dev/null)}
		if [[ -z "$k" ]]; then
			k=$(find "$PN_CACHE"/kernels -path '*/patched-*/bzImage' -printf '%T@ %p\n' 2>/dev/null |
				sort -rn | head -n1 | cut -d' ' -f2-)
			[[ -n "$k" ]] && pn_log "no patched kernel for the current series in the cache: using the newest, $k"
		fi
	fi
	[[ -n "$k" && -f "$k" ]] ||
		PN_DIE_RC=4 pn_die "SKIP: no ${kind/private*/patched} kernel in cache: run make -C kernel-series kernel-${kind/private*/patched}"
	printf '%s\n' "$k"
}

declare -A kernel
for k in $kinds; do kernel[$k]=$(kernel_for "$k") || exit $?; done

[[ -n "$out" ]] || out=$PN_CACHE/selftests/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out" || pn_die "cannot create $out"
declare -A build
for k in $kinds; do
	b=stock
	[[ $k == stock ]] || b=patched
	[[ -n "${build[$b]:-}" ]] ||
		build[$b]=$("$here/../scripts/mm-selftests-build.sh" "$b") || pn_die "building the $b mm selftests failed"
	pn_log "selftests for $k: ${build[$b]}"
done
pn_log "results: $out"

# run_kind KIND [DIR [CATEGORIES]]: boot its guest (results in DIR, default
# OUT/KIND; CATEGORIES default -t's), split the TAP into per-test logs.
run_kind() {
	local kind=$1 d=${2:-$out/$1} c=${3-$cats} extra=() t0 rc
	rm -rf "$d"
	mkdir -p "$d/share" "$d/tests"
	printf 'KIND=%s\nTEST_TIMEOUT=%s\nCATEGORIES="%s"\nOPTIN=%s\n' "$kind" "$test_timeout" "$c" \
		"$([[ $kind == private-optin ]] && echo 1 || echo 0)" >"$d/mmst.env"
	[[ $kind == private* ]] && extra+=(--private)
	pn_log "[$kind] booting ${kernel[$kind]} (console: $d/console.log)"
	t0=$(date +%s)
	nice -n 10 "$here/../qemu/run-guest.sh" --kernel "${kernel[$kind]}" \
		--dev-nodes 2 --dev-size 512 --dram 2048 --cpus 4 --disk 0 \
		--timeout "$guest_timeout" --quiet --log "$d/console.log" --share "$d/share" \
		--script "$here/mm-selftests-guest.sh" --file "$d/mmst.env:/guest/mmst.env" \
		--file "${build[$([[ $kind == stock ]] && echo stock || echo patched)]}/mm-selftests.tar:/guest/mm-selftests.tar" \
		--add "$(command -v bash-static)" --add "$(command -v timeout)" \
		--add "$(command -v pgrep)" --add "$(command -v killall)" "${extra[@]}"
	rc=$?
	echo "$(($(date +%s) - t0))" >"$d/wall.txt"
	pn_log "[$kind] guest exit $rc after $(cat "$d/wall.txt")s"
	[[ -f "$d/share/done" ]] || pn_log "[$kind] run_vmtests.sh did not finish: tests it did not reach count as missing"
	mmst_split "$d/share/run_vmtests.tap" "$d/tests" >"$d/results.tsv"
}

# rerun_tests OUT: run the categories of the failed or timed-out regressions
# again, --reruns times, on stock and on each kind that regressed; 1 when
# there is nothing to rerun.
rerun_tests() {
	local out=$1 line label rest t k rv cats='' rkinds='' c i
	rv=$(mktemp) || return 1
	tar -xOf "${build[stock]}/mm-selftests.tar" ./run_vmtests.sh >"$rv" 2>/dev/null
	while IFS= read -r line; do
		read -r _ label rest <<<"$line"
		case $rest in *": new test: "*) continue ;; *": fail" | *": timeout") ;; *) continue ;; esac
		t=${rest%: *}
		case $label in patched+private) k=private ;; private+opt-in) k=private-optin ;; *) k=$label ;; esac
		c=$(mmst_category "$rv" "$t")
		if [[ -z $c ]]; then
			pn_log "rerun: no run_vmtests.sh category starts '$t': not rerun"
			continue
		fi
		[[ " $cats " == *" $c "* ]] || cats+="$c "
		[[ " $rkinds " == *" $k "* ]] || rkinds+="$k "
	done < <(mmst_regressions "$out" "$here/mm-selftests.known" "${kind_list[@]}" | grep '^R ')
	rm -f "$rv"
	[[ -n $cats ]] || return 1
	cats=${cats% }
	pn_log "rerunning categories '$cats' $reruns times on stock and $rkinds(--reruns)"
	for ((i = 1; i <= reruns; i++)); do
		for k in stock $rkinds; do run_kind "$k" "$out/rerun-$i/$k" "$cats"; done
	done
}

t_all=$(date +%s)
for k in $kinds; do run_kind "$k"; done
mmst_report "$out" "$here/mm-selftests.known" "${kind_list[@]}"
rc=$?
if ((rc == 1 && reruns > 0)) && [[ " $kinds " == *" stock "* ]]; then
	rerun_tests "$out" && {
		pn_log "the report after the reruns:"
		mmst_report "$out" "$here/mm-selftests.known" "${kind_list[@]}"
		rc=$?
	}
fi
pn_log "total wall time $(($(date +%s) - t_all))s; results in $out"
exit "$rc"
