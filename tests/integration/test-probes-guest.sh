#!/usr/bin/env bash
# The leak probes (workloads/probes/probe*.c) in QEMU guests of the reference kernels,
# device memory onlined as ZONE_NORMAL (memhp_default_state=online), where
# kernel allocations can reach it:
#   stock    every probe that runs puts pages on the device nodes
#   isolate  (series, private_node_mode=isolate) every probe still does:
#            the nodes are only dropped from the fallback lists, so named-node
#            paths, per-node loops and demotion (memory tiers) reach them
#   private  (series) every probe reports 0 pages on either device node
# plus guests with the memory onlined movable (the default), where the
# kernel-object probes skip: stock-movable leaks through the others,
# private-movable gives 0.
# Each guest runs tests/tools/pn-probes.c (built -static) through
# tests/guest/probes-guest.sh, one probe at a time, then (when pnbench is
# built) the probes workload under the runner with configs/probes.json: its
# run.json must validate, its probe checks fail on stock/isolate (verdict
# exit 1) and all pass on private (exit 0), where the runner's own count,
# verdict.nodes.<n>.general_pages_max, is 0 on both device nodes (the
# config's threshold is 0: anything else fails the run).  Prints the measured table
# (probe x kernel, pages on nodes 1,2) as TAP comments.
# Environment: PROBES_KINDS (default "stock isolate private private-movable
# stock-movable"),
# PROBES_LOGS=DIR keeps the console logs.  TAP; exit 4 when skipped.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
KS=./kernel-series
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh

command -v qemu-system-x86_64 >/dev/null || skipall "qemu-system-x86_64 not installed (make deps)"
stock=$("$KS/scripts/kernel-path.sh" stock 2>/dev/null) || skipall "no stock kernel in the cache (make kernels)"
patched=$("$KS/scripts/kernel-path.sh" patched 2>/dev/null) || skipall "no patched kernel in the cache (make kernels)"
T=$(mktemp -d /tmp/pnbench-probes.XXXXXX)
trap 'rm -rf "$T"' EXIT
PN=${PNBENCH_BIN:-build/pnbench}
gcc -std=gnu11 -D_GNU_SOURCE -I. -static -O2 -o "$T/pn-probes" tests/tools/pn-probes.c \
	workloads/probes/probe_*.c core/lib/{log,signals,sysroot,nodeset,clock,stats,alloc}.c -lm 2>"$T/gcc.err" || skipall "cannot build the static probe driver: $(head -n 2 "$T/gcc.err")"

boot() { # kind -> $T/kind.log; returns run-guest's status
	local kind=$1 args=()
	case $kind in
	stock) args=(--kernel "$stock" --append memhp_default_state=online) ;;
	isolate) args=(--kernel "$patched" --private --append "private_node_mode=isolate memhp_default_state=online") ;;
	private) args=(--kernel "$patched" --private --append memhp_default_state=online) ;;
	private-movable) args=(--kernel "$patched" --private) ;;
	stock-movable) args=(--kernel "$stock") ;;
	esac
	[ -x "$PN" ] && args+=(--add "$PN" --file configs/probes.json:/guest/probes.json)
	"$KS/qemu/run-guest.sh" "${args[@]}" --dev-nodes 2 --dev-size 512 --dram 1024 --cpus 2 \
		--timeout 600 --quiet --log "$T/$kind.log" --script tests/guest/probes-guest.sh \
		--add "$T/pn-probes" >"$T/$kind.out" 2>&1
}
# field KIND PROBE KEY -> value of KEY= on the probe's PROBE line
field() {
	grep "^PROBE $2 " "$T/$1.log" | tail -n1 | sed 's/ why=.*//' | tr ' ' '\n' | sed -n "s/^$3=//p"
}
# sum of the per-node values "1:4096,2:4096" ("-" counts as nothing)
total() { tr ',' '\n' <<<"$1" | awk -F: '$2 != "-" { s += $2 } END { print s + 0 }'; }

# The probes workload under the runner: run.json valid; exit 1 with every
# probe check of a leaking probe failed on stock/isolate, exit 0 on private.
runner_checks() {
	local kind=$1 j=$T/$1.json rc nfail nleak
	[ -x "$PN" ] || { ok "[$kind] probes workload under the runner # SKIP $PN not built"; return; }
	rc=$(sed -n 's/^PNRUN rc=\([0-9]*\).*/\1/p' "$T/$kind.log" | tail -n1)
	sed -n '/^PNRUN-JSON-BEGIN/,/^PNRUN-JSON-END/p' "$T/$kind.log" | sed '1d;$d' | base64 -d >"$j" 2>/dev/null
	if /usr/bin/python3 results/schema/validate.py "$j" >"$T/validate.out" 2>&1; then
		ok "[$kind] run.json of the probes workload is valid"
	else
		notok "[$kind] run.json of the probes workload is valid" "$(head -n 3 "$T/validate.out")"
	fi
	nfail=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"]["checks"]["failed"])' "$j" 2>/dev/null)
	nleak=$(awk -v k="$kind" '$1 == k && $3 == "ran" && $5 > 0 { c += ($4 ~ /1:[1-9]/) + ($4 ~ /2:[1-9]/) } END { print c + 0 }' "$T/table")
	# the runner's whole-node count per private node: "1:<pages> 2:<pages>"
	gen=$(/usr/bin/python3 -c 'import json,sys; n=json.load(open(sys.argv[1]))["verdict"]["nodes"]; print(" ".join("%s:%s" % (k, n[k]["general_pages_max"]) for k in sorted(n)))' "$j" 2>/dev/null)
	case $kind in
	private*) if [ "$rc" = 0 ] && [ "$nfail" = 0 ]; then ok "[$kind] runner: every probe check passes, verdict pass (exit 0)"
		else notok "[$kind] runner: every probe check passes, verdict pass" "exit $rc, failed checks $nfail" "$(grep '^PNRUN-LOG' "$T/$kind.log" | head -n 6)"; fi
		if [ "$gen" = "1:0 2:0" ]; then ok "[$kind] runner: general_pages_max 0 on private nodes 1 and 2"
		else notok "[$kind] runner: general_pages_max 0 on private nodes 1 and 2" "verdict.nodes: ${gen:-none}"; fi ;;
	*) if [ "$rc" = 1 ] && [ "${nfail:-0}" -ge "$nleak" ] && [ "$nleak" -gt 0 ]; then ok "[$kind] runner: $nfail probe checks fail (driver: $nleak leaking probe x node), verdict fail (exit 1)"
		else notok "[$kind] runner: the leaking probes fail their checks, verdict fail" "exit $rc, failed checks $nfail, driver leaks $nleak"; fi
		echo "# [$kind] runner: general_pages_max per device node ${gen:-none}" ;;
	esac
	echo "# [$kind] runner collectors: $(/usr/bin/python3 -c 'import json,sys; print(" ".join("%s=%s" % (c.get("collector"), c.get("status", "?")) for c in json.load(open(sys.argv[1])).get("collectors", [])))' "$j" 2>/dev/null)"
}

kinds=${PROBES_KINDS:-stock isolate private private-movable stock-movable}
probes=$("$T/pn-probes" --names)
for kind in $kinds; do
	boot "$kind"
	rc=$?
	[ -n "${PROBES_LOGS:-}" ] && mkdir -p "$PROBES_LOGS" && cp "$T/$kind.log" "$PROBES_LOGS/"
	if [ $rc -ne 0 ] || ! grep -q '^PROBES rc=' "$T/$kind.log"; then
		notok "[$kind] guest ran the probes" "run-guest exit $rc" "$(tail -n 3 "$T/$kind.out")"
		continue
	fi
	zones=$(sed -n 's/^PROBES-NODE node=\([0-9]*\) zones=\(.*\)/node\1:\2/p' "$T/$kind.log" | tr '\n' ' ')
	bad=$(sed -n '/^PNBENCH-DMESG-BEGIN/,/^PNBENCH-DMESG-END/p' "$T/$kind.log" |
		grep -E 'WARNING:|BUG:|Oops|cut here|Call Trace' | head -n 3)
	if [ -z "$bad" ]; then ok "[$kind] guest dmesg has no WARN/BUG/Oops ($zones)"; else notok "[$kind] guest dmesg clean" "$bad"; fi
	for p in $probes; do
		st=$(field "$kind" "$p" status) pages=$(field "$kind" "$p" pages)
		pk=$(field "$kind" "$p" kind) why=$(sed -n "s/^PROBE $p .*why=\"\\([^\"]*\\)\".*/\\1/p" "$T/$kind.log" | tail -n1)
		trig=$(field "$kind" "$p" triggered) refu=$(field "$kind" "$p" refused)
		sum=$(total "$pages") asked=$((${trig:-0} + ${refu:-0}))
		echo "$kind $p ${st:-missing} ${pages:--} $sum" >>"$T/table"
		case $kind:$st in
		*:) notok "[$kind] $p reported" "no PROBE line" ;;
		*:error) notok "[$kind] $p ran" "error: $why" ;;
		private*:skip | *-movable:skip) ok "[$kind] $p # SKIP $why" ;;
		*:skip) notok "[$kind] $p runs with ZONE_NORMAL device memory" "skipped: $why" ;;
		stock*:ran) if [ "$sum" -gt 0 ]; then ok "[$kind] $p leaks onto the device nodes ($pages pages)"; else notok "[$kind] $p leaks onto the device nodes" "pages=$pages"; fi ;;
		isolate:ran)
			if [ "$sum" -gt 0 ]; then ok "[isolate] $p ($pk): the path still reaches the device nodes ($pages pages)"
			else notok "[isolate] $p ($pk): the path still reaches the device nodes" "pages=$pages"; fi ;;
		private*:ran)
			# 0 counts only when the kernel was asked (accepted or refused the trigger)
			if [ "$sum" -eq 0 ] && [ "$asked" -gt 0 ]; then ok "[$kind] $p: 0 pages on the private nodes ($trig triggers accepted, $refu refused)"
			else notok "[$kind] $p: 0 pages on the private nodes, the trigger reached the kernel" "pages=$pages triggers=$asked" "$(grep "^PROBE $p " "$T/$kind.log" | sed 's/.*note=//')"; fi ;;
		esac
	done
	runner_checks "$kind"
done
if [ -f "$T/table" ]; then
	echo "# pages on device nodes 1,2 per probe (status ran unless marked):"
	printf '# %-15s' probe
	for k in $kinds; do printf ' %-17s' "$k"; done
	echo
	for p in $probes; do
		printf '# %-15s' "$p"
		for k in $kinds; do
			c=$(awk -v k="$k" -v p="$p" '$1 == k && $2 == p { print ($3 == "ran" ? $4 : $3) }' "$T/table")
			printf ' %-17s' "${c:--}"
		done
		echo
	done
fi
echo "1..$n"
[ "$fails" -eq 0 ]
