#!/usr/bin/env bash
# vm.sh -- `pnbench vm`: run a program of yours inside a testbed guest (QEMU
# TCG) under pnbench's collectors and print where its pages went, on a
# kernel and machine you may not have.
#
# usage: vm.sh [--kernel NAME|bzImage] [--topology NAME|FILE] [--online movable|kernel]
#              [-o DIR] [--timeout SEC] --exec PROG [ARGS...]
#
#   --kernel K      a name in configs/kernels/ (stock, isolate, private, june2026; default
#                   private) or a bzImage of your own
#   --topology T    configs/topologies/T.json or a file (default reference)
#   --online Z      movable (default) or kernel (ZONE_NORMAL)
#   -o DIR          results (default results/vm/<utc>): exec/run.json, exec.log,
#                   dmesg.txt, console.log; made after every argument is
#                   checked; not a symlink, empty, yours, writable only by you
#   --exec PROG ... the program (static or dynamic: its shared libraries are
#                   copied with it) and its arguments; it runs as root in /tmp
#                   of the guest.  The device nodes follow the topology's
#                   CPU nodes: 1 and 2 with one initiator (reference), 2 and 3
#                   with two (hmat); the guest reads them from its command
#                   line (pnbench.devices=).  On the private kernel user
#                   policies may name them (opted in).
# Exit: pnbench run's exit status in the guest (0 pass, 1 general pages on a
# device node, 3 the program failed, ...), 2 usage, 4 no QEMU or kernel,
# 125 the guest never finished (console log kept).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
O=${O:-build}
PN=${PNBENCH_BIN:-$top/$O/pnbench}
die() { printf 'pnbench vm: error: %s\n' "$1" >&2; exit "${2:-2}"; }
# shellcheck source=scripts/outdir.sh
. "$top/scripts/outdir.sh"

kernel=private topo=reference online=movable out='' timeout=900 prog=()
while (($#)); do
	case "$1" in
	--kernel) kernel=$(optval "$@") || exit 2; shift 2 ;;
	--topology) topo=$(optval "$@") || exit 2; shift 2 ;;
	--online) online=$(optval "$@") || exit 2; shift 2 ;;
	-o | --output) out=$(optval "$@") || exit 2; shift 2 ;;
	--timeout) timeout=$(optval "$@") || exit 2; shift 2 ;;
	--exec) shift; prog=("$@"); break ;;
	-h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
((${#prog[@]})) || die "--exec PROG [ARGS...] is required"
bin=${prog[0]}
[[ -f "$bin" ]] || bin=$(command -v "$bin" || true)
[[ -n "$bin" && -f "$bin" && -x "$bin" ]] || die "--exec ${prog[0]}: not an executable file"
bin=$(realpath "$bin")
[[ "$online" == movable || "$online" == kernel ]] || die "--online wants movable or kernel (got '$online')"
[[ "$timeout" =~ ^[1-9][0-9]*$ ]] || die "--timeout wants seconds (got '$timeout')"
[[ -x "$PN" ]] || die "$PN is not built (make)" 3
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found (make deps)" 4
[[ -n "$out" ]] || out=$top/results/vm/$(date -u +%Y%m%dT%H%M%SZ)
[[ "$out" == /* ]] || out=$PWD/$out
outdir_name_ok "$out"
cd "$top" || exit 3

declare -A T=() K=()
[[ "$topo" == */* || "$topo" == *.json ]] || topo=configs/topologies/$topo.json
[[ -f "$topo" ]] || die "topology $topo not found"
while IFS= read -r l; do T[${l%%=*}]=${l#*=}; done < <("$PN" testbed topology "$topo" || echo FAIL=1)
[[ -z "${T[FAIL]:-}" ]] || exit 2
if [[ -f "$kernel" && "$kernel" != *.json ]]; then
	is_kernel_image "$kernel" || die "--kernel $kernel: not a kernel boot image (bzImage)"
	K=([kernel]=$(realpath "$kernel") [append]='' [private_nodes]=1 [model]=auto)
else
	f=$kernel
	[[ "$f" == */* || "$f" == *.json ]] || f=configs/kernels/$kernel.json
	[[ -f "$f" ]] || die "--kernel $kernel: neither a bzImage nor $f"
	while IFS= read -r l; do K[${l%%=*}]=${l#*=}; done < <("$PN" testbed kernel "$f" || echo FAIL=1)
	[[ -z "${K[FAIL]:-}" ]] || exit 2
	kind=${K[kernel]}
	case $kind in
	stock | patched) K[kernel]=$(kernel-series/scripts/kernel-path.sh "$kind") ||
		die "no $kind kernel in the cache (make kernels)" 4 ;;
	esac
	is_kernel_image "${K[kernel]}" || die "--kernel $kernel: ${K[kernel]} is not a kernel boot image (bzImage)"
fi
# every argument checked: only now the results directory
safe_outdir "$out"
out=$(realpath "$out")

printf '%s\n' "/usr/local/bin/${bin##*/}" "${prog[@]:1}" >"$out/.exec.args"
echo 'DEMO_EXEC=1' >"$out/.env"
args=()
((K[private_nodes])) && args+=(--private)
((T[hmat])) && args+=(--hmat)
[[ -n "${K[append]}" ]] && args+=(--append " ${K[append]}")
devs=$(seq -s, "${T[initiators]}" $((T[initiators] + T[device_nodes] - 1)))
echo "pnbench vm: ${prog[*]} on $(basename "${K[kernel]}") (${K[kernel]}), topology ${T[name]}, device nodes $devs, online_$online" >&2
kernel-series/qemu/run-guest.sh --kernel "${K[kernel]}" "${args[@]}" --online "$online" \
	--dev-nodes "${T[device_nodes]}" --dev-size "${T[device_mib]}" --dram "${T[dram_mib]}" \
	--disk "${T[disk_mib]}" --cpus "${T[cpus]}" --initiators "${T[initiators]}" --timeout "$timeout" --quiet \
	--log "$out/console.log" --script scripts/demo-guest.sh --add "$PN" --add "$bin" \
	--file "$out/.exec.args:/guest/exec.args" --file "$out/.env:/guest/demo.env" \
	--share "$out" >"$out/run-guest.log" 2>&1 </dev/null
rc=$?
if [[ ! -f "$out/exec.log" ]]; then
	echo "pnbench vm: the guest brought nothing home (exit $rc); console: $out/console.log" >&2
	tail -n 20 "$out/console.log" >&2
	exit $((rc ? rc : 3))
fi
cat "$out/exec.log"
[[ -f "$out/exec/run.json" ]] && /usr/bin/python3 - "$out/exec/run.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["points"]:
    for it in p["iterations"]:
        for ph in it["phases"]:
            ex = ph.get("exec") or {}
            pl = ex.get("last_pages_per_node")
            if pl is not None:
                print(f"phase {ph['name']}: the program's pages per node at its last census "
                      f"({ex.get('census')}): " + ", ".join(f"node {n}: {v}" for n, v in sorted(pl.items())))
            gen = {n: v["general_pages"]["total"] for n, v in ph.get("nodes", {}).items()
                   if v.get("role") == "private"}
            if gen:
                print(f"phase {ph['name']}: general pages on the device nodes: " +
                      ", ".join(f"node {n}: {v}" for n, v in sorted(gen.items())))
PY
echo "pnbench vm: results in $out (guest exit $rc)" >&2
exit "$rc"
