#!/usr/bin/env bash
# demo.sh -- `make demo`, `pnbench demo`: boot the QEMU testbed under the
# stock kernel and the reference series (isolate, private and june2026
# models), with
# the device memory onlined movable and as ZONE_NORMAL, run the demo suite
# (configs/demo/, configs/probes.json) inside each guest, bring the results
# home over virtio-9p and print the truth table.
#
# usage: demo.sh [-o DIR] [--topology NAME|FILE] [--kernels "stock isolate private june2026"]
#                [--online "movable kernel"] [--jobs N] [--timeout SEC]
#                [--runs "probes explicit ..."] [--no-build] [--no-report]
#
#   -o DIR          results (default results/demo/<utc>; results/demo/latest
#                   points at the last one); not a symlink, empty, yours,
#                   writable only by you
#   --topology T    configs/topologies/T.json or a file (default reference)
#   --kernels LIST  names in configs/kernels/ or files (default: stock isolate
#                   private june2026); KERNEL=path/to/bzImage runs a user's
#                   own build instead (KERNEL_MODEL=stock|isolate|private|
#                   june2026 says which expected column applies; default:
#                   what the guest reports; none: shown, not judged)
#   --models LIST   only the kernels of these models (the table's columns)
#   --online LIST   movable and/or kernel (default: the topology's list)
#   --jobs N        guests at a time (default 2)
#   --timeout SEC   per guest (default 900); a guest that hangs or panics is
#                   a failed cell with its console log kept
#   --runs LIST     the guest's runs (default: probes instrument clients
#                   access revoke explicit driver pressure interleave exhaust
#                   multinode fault hotadd) and fastpath: guest instructions per
#                   first-touch fault of each kernel against stock (QEMU
#                   -icount, make -C kernel-series bench ROUNDS=1), counted
#                   once per kernel pair and kept in the cache
#   --no-build      never build a missing kernel (exit 4 instead)
#   --no-report     skip the HTML report
#
# Exit: 0 every cell as expected, 1 a cell is not (printed: which and why),
# 2 usage or a bad config, 3 the demo itself failed, 4 nothing could run
# (no QEMU, no kernel), 128+N interrupted.
#
# Layout of DIR: demo.json (the truth table, report/pnreportlib/demo_table.py),
# report.html, and per cell <kernel>-<topology>-<online>/: cell.txt (what was
# booted), exit.txt (guest exit and seconds), console.log, dmesg.txt,
# guest.txt, runs.txt, <run>/run.json + CSVs + <run>.log, fault.txt.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 3
O=${O:-build}
PN=${PNBENCH_BIN:-$top/$O/pnbench}
PY=/usr/bin/python3

log() { printf '%s demo: %s\n' "$(date -u +%H:%M:%S)" "$*"; }
die() { printf 'pnbench demo: error: %s\n' "$1" >&2; exit "${2:-2}"; }
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
# shellcheck source=scripts/outdir.sh
. "$top/scripts/outdir.sh"

out='' topo=reference kernels='stock isolate private june2026' online='' jobs=2 timeout=900
runs='' build=1 report=1 models=
while (($#)); do
	case "$1" in
	-o | --output) out=$(optval "$@") || exit 2; shift 2 ;;
	--topology) topo=$(optval "$@") || exit 2; shift 2 ;;
	--kernels) kernels=$(optval "$@") || exit 2; shift 2 ;;
	--online) online=$(optval "$@") || exit 2; shift 2 ;;
	--jobs) jobs=$(optval "$@") || exit 2; shift 2 ;;
	--timeout) timeout=$(optval "$@") || exit 2; shift 2 ;;
	--runs) runs=$(optval "$@") || exit 2; shift 2 ;;
	--models) models=$(optval "$@" | tr ',' ' ') || exit 2; shift 2 ;;
	--no-build) build=0; shift ;;
	--no-report) report=0; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "--jobs wants a positive number (got '$jobs')"
[[ "$timeout" =~ ^[1-9][0-9]*$ ]] || die "--timeout wants seconds (got '$timeout')"
GUEST_RUNS="probes instrument clients access revoke explicit driver pressure interleave exhaust multinode fault hotadd"
for r in $runs; do
	case " $GUEST_RUNS fastpath " in *" $r "*) ;;
	*) die "--runs: unknown run '$r' ($GUEST_RUNS fastpath)" ;;
	esac
done
bench=1
[[ -z "$runs" || " $runs " == *" fastpath "* ]] || bench=0
runs=$(for r in ${runs:-$GUEST_RUNS}; do [[ $r == fastpath ]] || printf '%s ' "$r"; done)
[[ -x "$PN" ]] || die "$PN is not built (make)" 3
# a run killed earlier on this machine (SIGKILL, a crash) left knobs, mounts,
# cgroups changed: undo them first (core/sys/journal.h)
"$PN" recover || printf 'pnbench demo: warning: pnbench recover could not undo everything\n' >&2
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found (make deps)" 4

# key=value lines of `pnbench testbed` into the associative array named $1
declare -A T=() K=()
# shellcheck disable=SC2034 # arr is a nameref: it fills the caller's array
read_cfg() { # ARRAY topology|kernel FILE
	local -n arr=$1
	local text line
	arr=()
	text=$("$PN" testbed "$2" "$3") || exit 2
	while IFS= read -r line; do arr[${line%%=*}]=${line#*=}; done <<<"$text"
}
[[ "$topo" == */* || "$topo" == *.json ]] || topo=configs/topologies/$topo.json
[[ -f "$topo" ]] || die "topology $topo not found (configs/topologies/: $(cd configs/topologies && echo *.json))"
read_cfg T topology "$topo"
((T[device_nodes] == 2)) || die "$topo: \$.device_nodes: the demo suite needs exactly 2 device nodes (got ${T[device_nodes]})"
online=${online:-${T[online]}}
for o in $online; do
	[[ "$o" == movable || "$o" == kernel ]] || die "--online wants movable and/or kernel (got '$o')"
done

# ---- kernels: configs/kernels/<name>.json, or KERNEL=bzImage ----------------
declare -A KPATH=() KMODEL=() KAPPEND=() KPRIV=()
knames=()
kernel_of() { # KIND -> cached bzImage, built when missing (kernel-series tooling)
	local kind=$1 path
	if path=$(kernel-series/scripts/kernel-path.sh "$kind" 2>/dev/null); then
		echo "$path"
		return 0
	fi
	((build)) || die "no $kind kernel in the cache (make kernels, or drop --no-build)" 4
	log "building the $kind kernel (make -C kernel-series kernel-$kind; minutes, once)" >&2
	mkdir -p "$out"
	make -C kernel-series "kernel-$kind" >"$out/kernel-$kind.log" 2>&1 ||
		die "building the $kind kernel failed: $out/kernel-$kind.log" 3
	kernel-series/scripts/kernel-path.sh "$kind"
}
# the models with an expected column: the truth table's (demo_contract.MODELS)
known=$(cd report && "$PY" -c 'from pnreportlib import demo_contract; print(*demo_contract.MODELS)') ||
	die "report/pnreportlib does not load (python3 at $PY)" 3
if [[ -n "${KERNEL:-}" ]]; then
	[[ -f "$KERNEL" ]] || die "KERNEL=$KERNEL: no such file"
	is_kernel_image "$KERNEL" || die "KERNEL=$KERNEL: not a kernel boot image (bzImage)"
	[[ " $known auto none " == *" ${KERNEL_MODEL:-auto} "* ]] ||
		die "KERNEL_MODEL wants one of: $known none (got '$KERNEL_MODEL')"
fi
for m in $models; do
	[[ " $known " == *" $m "* ]] || die "--models: unknown model '$m' ($known)"
done
[[ -n "$out" ]] || out=results/demo/$(date -u +%Y%m%dT%H%M%SZ)
safe_outdir "$out"
if [[ -n "${KERNEL:-}" ]]; then
	knames=(custom)
	KPATH[custom]=$(realpath "$KERNEL") KMODEL[custom]=${KERNEL_MODEL:-auto}
	KAPPEND[custom]=${KERNEL_APPEND:-} KPRIV[custom]=1
else
	for k in $kernels; do
		f=$k
		[[ "$f" == */* || "$f" == *.json ]] || f=configs/kernels/$k.json
		[[ -f "$f" ]] || die "kernel $k: $f not found (configs/kernels/: $(cd configs/kernels && echo *.json))"
		read_cfg K kernel "$f"
		n=${K[name]}
		[[ -z "$models" || " $models " == *" ${K[model]} "* ]] || continue
		knames+=("$n")
		case ${K[kernel]} in
		stock | patched) KPATH[$n]=$(kernel_of "${K[kernel]}") || exit $? ;;
		*) [[ -f "${K[kernel]}" ]] || die "$f: \$.kernel: ${K[kernel]}: no such file"
			is_kernel_image "${K[kernel]}" ||
				die "$f: \$.kernel: ${K[kernel]}: not a kernel boot image (bzImage)"
			KPATH[$n]=${K[kernel]} ;;
		esac
		KMODEL[$n]=${K[model]} KAPPEND[$n]=${K[append]} KPRIV[$n]=${K[private_nodes]}
	done
	((${#knames[@]})) || die "--models $models: none of the kernels ($kernels) is of these models"
fi
leak=$top/$O/tests/pn-leak acc=$top/$O/tests/pn-access
for t in "$leak" "$acc"; do
	[[ -x "$t" ]] || make -s "${t#"$top"/}" >/dev/null || die "cannot build $t" 3
done

# ---- cells --------------------------------------------------------------------
cells=()
for k in "${knames[@]}"; do
	for o in $online; do cells+=("$k|$o"); done
done
declare -A PID=() START=() SEEN=()
stopping=0
# shellcheck disable=SC2317 # called from the traps
cleanup() {
	stopping=1
	for c in "${!PID[@]}"; do kill -- "-${PID[$c]}" 2>/dev/null; done
}
trap 'cleanup; log "interrupted: partial results in $out"; exit 130' INT
trap 'cleanup; exit 143' TERM

celldir() { echo "$out/${1%|*}-${T[name]}-${1#*|}"; }
launch() { # CELL: boot its guest in the background (own session: killable as a group)
	local c=$1 k=${1%|*} o=${1#*|} d args=()
	d=$(celldir "$c")
	mkdir -p "$d"
	printf 'kernel=%s\nmodel=%s\nonline=%s\ntopology=%s\nhmat=%s\nkernel_path=%s\nappend=%s\n' \
		"$k" "${KMODEL[$k]}" "$o" "${T[name]}" "${T[hmat]:-0}" "${KPATH[$k]}" "${KAPPEND[$k]}" >"$d/cell.txt"
	echo "RUNS=\"$runs\"" >"$d/.env"
	((KPRIV[$k])) && args+=(--private)
	((T[hmat])) && args+=(--hmat)
	[[ -n "${KAPPEND[$k]}" ]] && args+=(--append " ${KAPPEND[$k]}")
	for f in configs/demo/*.json; do args+=(--file "$f:/guest/demo/${f##*/}"); done
	START[$c]=$(date +%s)
	# --split-dev: the last device node's memory as two dax devices (hotadd)
	setsid kernel-series/qemu/run-guest.sh --kernel "${KPATH[$k]}" "${args[@]}" --online "$o" --split-dev \
		--dev-nodes "${T[device_nodes]}" --dev-size "${T[device_mib]}" --dram "${T[dram_mib]}" \
		--disk "${T[disk_mib]}" --cpus "${T[cpus]}" --initiators "${T[initiators]}" --timeout "$timeout" --quiet \
		--log "$d/console.log" --script scripts/demo-guest.sh --add "$PN" --add "$leak" --add "$acc" \
		--add /usr/bin/numactl --add /usr/bin/memhog --add /usr/bin/lstopo-no-graphics \
		--file scripts/demo-contract.sh:/guest/demo-contract.sh \
		--file configs/probes.json:/guest/demo/probes.json --file "$d/.env:/guest/demo.env" \
		--share "$d" >"$d/run-guest.log" 2>&1 </dev/null &
	PID[$c]=$!
	SEEN[$c]=0
	log "[${d##*/}] booting $(basename "${KPATH[$k]}") (${KPATH[$k]}), device memory online_$o"
}
progress() { # CELL: print the runs the guest finished since last time
	local c=$1 d n line
	d=$(celldir "$c")
	[[ -f "$d/runs.txt" ]] || return 0
	n=0
	while IFS= read -r line; do
		n=$((n + 1))
		((n > SEEN[$c])) && log "[${d##*/}] $line"
	done <"$d/runs.txt"
	SEEN[$c]=$n
}
finish() { # CELL RC
	local c=$1 rc=$2 d secs what
	d=$(celldir "$c")
	progress "$c"
	secs=$(($(date +%s) - START[$c]))
	printf 'rc=%s\nseconds=%s\n' "$rc" "$secs" >"$d/exit.txt.tmp" && mv "$d/exit.txt.tmp" "$d/exit.txt"
	case $rc in
	0) what="guest finished" ;;
	125) what="guest never finished (hang, panic or timeout): console log kept" ;;
	*) what="guest script exit $rc" ;;
	esac
	log "[${d##*/}] $what after ${secs}s"
	unset "PID[$c]"
}

t0=$(date +%s)
log "${#cells[@]} cells (${knames[*]} x online $online) on topology ${T[name]} (device nodes $(seq -s, "${T[initiators]}" $((T[initiators] + T[device_nodes] - 1)))), $jobs at a time, into $out"
next=0
while ((next < ${#cells[@]} || ${#PID[@]} > 0)); do
	while ((next < ${#cells[@]} && ${#PID[@]} < jobs)); do
		launch "${cells[next]}"
		next=$((next + 1))
	done
	sleep 2
	for c in "${!PID[@]}"; do
		if kill -0 "${PID[$c]}" 2>/dev/null; then
			progress "$c"
		else
			wait "${PID[$c]}"
			finish "$c" $?
		fi
	done
done
((stopping)) && exit 130

# ---- fast-path cost: instructions per fault against stock (-icount) -----------
# One bench per kernel other than stock, booted with the kernel's own command
# line (private_node_mode=...), cached under the two kernels' cache names and
# that command line (a user's KERNEL= is counted into the results directory,
# every time).  A model without user policies onto private nodes (june2026)
# has no private/private scenario.  Counts do not depend on host load; the
# guests above are done first anyway.
fastpath() { # KERNEL-NAME STOCK-BZIMAGE: $out/fastpath/<name>/samples.tsv, table.txt
	local k=$1 stock=$2 dst=$out/fastpath/$1 cached tag scen='none/dram private/dram private/private'
	mkdir -p "$dst"
	tag=$(printf '%s' "${KAPPEND[$k]}" | tr -cs 'A-Za-z0-9.=_' '-')
	[[ "${KMODEL[$k]}" == june2026 ]] && scen='none/dram private/dram'
	cached=${PNBENCH_CACHE:-/var/cache/pnbench}/bench/demo-$(basename "$(dirname "$stock")")-vs-$(basename "$(dirname "${KPATH[$k]}")")${tag:+-${tag#-}}
	[[ -n "${KERNEL:-}" ]] && cached=$dst/bench
	# a bench that failed still writes what it counted: used this time,
	# counted again next time (.complete only after exit 0)
	if [[ ! -f "$cached/.complete" ]]; then
		log "fast-path cost: $k against stock, guest instructions per fault (-icount; once per kernel pair)"
		if BENCH_OUT=$cached KERNEL_A=$stock KERNEL_B=${KPATH[$k]} APPEND_B=${KAPPEND[$k]} SCENARIOS=$scen ROUNDS=1 REPS=3 \
			kernel-series/bench/fault-bench.sh >"$dst/bench.log" 2>&1; then
			: >"$cached/.complete"
		else
			log "fast-path bench of $k failed: $dst/bench.log"
		fi
	fi
	cp "$cached/samples.tsv" "$cached/table.txt" "$dst/" 2>/dev/null
	echo "$cached" >"$dst/source.txt"
}
if ((bench)); then
	stock=$(kernel_of stock) || exit $?
	for k in "${knames[@]}"; do [[ "${KPATH[$k]}" == "$stock" ]] || fastpath "$k" "$stock"; done
fi
total=$(($(date +%s) - t0))
ln -sfn "$(basename "$out")" "$(dirname "$out")/latest" 2>/dev/null

# ---- the truth table ------------------------------------------------------------
"$PY" report/pnreport.py demo-table "$out" --seconds "$total" ${models:+--models "$models"}
rc=$?
if ((report)) && ((rc <= 1)); then
	"$PY" report/pnreport.py demo "$out" --cells -o "$out/report.html" >/dev/null ||
		log "the HTML report failed (the table above stands)"
	log "report: $out/report.html"
fi
log "results: $out (total ${total}s)"
exit $rc
