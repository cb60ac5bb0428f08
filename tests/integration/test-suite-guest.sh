#!/usr/bin/env bash
# pnbench inside QEMU guests of the reference kernels (kernel-series/): on the
# patched kernel the device nodes are found by "auto" (has_private_memory),
# explicit allocations land on them page-exactly and a general allocation
# storm leaves them alone (verdict pass); on stock, with the same nodes named
# --private 1,2, the storm leaks onto them (verdict fail, exit 1).  Every
# run.json is validated against the schema on the host.  TAP output.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
PN=${PNBENCH_BIN:-build/pnbench}
KS="./kernel-series"
n=0
expect() { # expect DESC FAILDETAIL CMD...: ok when CMD succeeds
	local desc=$1 detail=$2
	shift 2
	if "$@"; then ok "$desc"; else notok "$desc" "$detail"; fi
}
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
skipall() { echo "1..0 # SKIP $1"; exit 4; }

command -v qemu-system-x86_64 >/dev/null || skipall "qemu-system-x86_64 not installed (make deps)"
[ -x "$PN" ] || skipall "$PN not built"
stock=$("$KS/scripts/kernel-path.sh" stock 2>/dev/null) || skipall "no stock kernel in the cache (make kernels)"
patched=$("$KS/scripts/kernel-path.sh" patched 2>/dev/null) || skipall "no patched kernel in the cache (make kernels)"
T=$(mktemp -d /tmp/pnbench-guest.XXXXXX)
trap 'rm -rf "$T"' EXIT
gcc -static -O2 -o "$T/pn-e2e-test" "$KS/tests/pn-e2e-test.c" || skipall "cannot build the static guest helper"

boot() { # mode kernel [run-guest args]
	local mode=$1 kernel=$2
	shift 2
	echo "MODE=$mode" >"$T/env-$mode"
	"$KS/qemu/run-guest.sh" --kernel "$kernel" --dev-nodes 2 --dev-size 512 --dram 1024 \
		--disk 1536 --cpus 2 --timeout 480 --quiet --log "$T/$mode.log" \
		--script tests/guest/suite-guest.sh --add "$PN" --add "$T/pn-e2e-test" \
		--file "$T/env-$mode:/guest/suite.env" --file tests/guest/explicit.json:/guest/explicit.json \
		"$@" >/dev/null 2>&1
}
rc_of() { tr -d '\r' <"$T/$1.log" | sed -n "s/^SUITE $2 rc=\([0-9]*\).*/\1/p" | tail -n1; }
json_of() { # mode name -> file
	tr -d '\r' <"$T/$1.log" | sed -n "/^SUITE-JSON-BEGIN $2\$/,/^SUITE-JSON-END $2\$/p" | sed '1d;$d' |
		base64 -d >"$T/$1-$2.json" 2>/dev/null
	echo "$T/$1-$2.json"
}
py() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null; }

for mode in private stock; do
	if [ $mode = private ]; then boot private "$patched" --private; else boot stock "$stock"; fi
	grc=$?
	if [ $grc -ne 0 ]; then
		notok "[$mode] guest ran the suite" "run-guest exit $grc" "$(tr -d '\r' <"$T/$mode.log" | tail -n 5)"
		continue
	fi
	for name in explicit storm; do
		j=$(json_of $mode $name)
		if /usr/bin/python3 results/schema/validate.py "$j" >/dev/null 2>&1; then
			ok "[$mode] $name: run.json from the guest is valid"
		else
			notok "[$mode] $name: run.json from the guest is valid" "$(/usr/bin/python3 results/schema/validate.py "$j" 2>&1 | head -n 3)"
		fi
	done
	ex=$T/$mode-explicit.json st=$T/$mode-storm.json
	erc=$(rc_of $mode explicit) src=$(rc_of $mode storm)
	roles=$(py "$ex" 'd["roles"]["private"] + (" auto" if d["roles"]["private_auto"] else "")')
	placed=$(py "$ex" 'sum(w["placement"]["intended_pages"] for p in d["points"] for i in p["iterations"] for ph in i["phases"] for w in ph["workloads"] if w["status"]=="ok")')
	mis=$(py "$ex" 'd["verdict"]["misplaced_pages"]')
	gen=$(py "$st" 'max([v["general_pages_max"] for v in d["verdict"]["nodes"].values()] or [-1])')
	if [ $mode = private ]; then
		expect "[private] nodes.private auto finds the kernel's private nodes ($roles)" \
			"roles=$roles" test "$roles" = "1-2 auto"
		expect "[private] explicit bind/preferred on private nodes: $placed pages verified there, 0 misplaced, exit 0" \
			"rc=$erc placed=$placed misplaced=$mis" \
			test "$erc" = 0 -a "${placed:-0}" -gt 0 -a "$mis" = 0
		expect "[private] general allocation storm: $gen general pages on the private nodes, verdict pass" \
			"rc=$src general=$gen" test "$src" = 0 -a "$gen" = 0
	else
		expect "[stock] explicit bind/preferred on nodes 1,2: $placed pages verified, exit 0" \
			"rc=$erc placed=$placed misplaced=$mis" test "$erc" = 0 -a "$mis" = 0
		expect "[stock] the same storm leaks onto the device nodes: $gen general pages, verdict fail (exit 1)" \
			"rc=$src general=$gen" test "$src" = 1 -a "${gen:-0}" -gt 0
	fi
done
echo "1..$n"
