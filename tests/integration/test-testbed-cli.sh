#!/usr/bin/env bash
# `pnbench testbed`: every shipped topology and kernel config loads, and each
# kind of bad input is refused with exit 2 and a message naming the file and
# the field (scripts/demo.sh and scripts/vm.sh read the configs only through
# it).  Host-only, seconds.  TAP.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
PN=${PNBENCH_BIN:-build/pnbench}
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
[ -x "$PN" ] || skipall "$PN not built"
T=$(mktemp -d /tmp/pnbench-testbed.XXXXXX)
trap 'rm -rf "$T"' EXIT

for f in configs/topologies/*.json; do
	out=$("$PN" testbed topology "$f" 2>&1)
	rc=$?
	name=$(basename "$f" .json)
	if [ $rc = 0 ] && grep -qx "name=$name" <<<"$out" && grep -q '^device_nodes=2$' <<<"$out"; then
		ok "topology $f loads (name=$name, 2 device nodes)"
	else
		notok "topology $f loads" "exit $rc: $out"
	fi
done
for f in configs/kernels/*.json; do
	out=$("$PN" testbed kernel "$f" 2>&1)
	rc=$?
	name=$(basename "$f" .json)
	if [ $rc = 0 ] && grep -qx "name=$name" <<<"$out" && grep -qx "model=$name" <<<"$out"; then
		ok "kernel $f loads (model $name)"
	else
		notok "kernel $f loads" "exit $rc: $out"
	fi
done
# initiators: 1 when absent, else the config's (run-guest.sh --initiators)
out=$("$PN" testbed topology configs/topologies/reference.json 2>&1)
out2=$("$PN" testbed topology configs/topologies/hmat.json 2>&1)
if grep -qx 'initiators=1' <<<"$out" && grep -qx 'initiators=2' <<<"$out2"; then
	ok "initiators: 1 by default (reference), 2 on hmat"
else
	notok "initiators: 1 by default (reference), 2 on hmat" "$out" "$out2"
fi
good='"name": "t", "cpus": 2, "dram_mib": 1024, "device_nodes": 2, "device_mib": 384, "disk_mib": 512'
bad() { # KIND DESC JSON EXPECTED-IN-MESSAGE
	printf '%s\n' "$3" >"$T/c.json"
	out=$("$PN" testbed "$1" "$T/c.json" 2>&1)
	rc=$?
	if [ $rc = 2 ] && [[ "$out" == *"c.json"*"$4"* ]]; then
		ok "$1: $2: exit 2, the message names it"
	else
		notok "$1: $2: exit 2, the message names '$4'" "exit $rc: $out"
	fi
}
bad topology "not JSON" "{$good" "not a JSON object"
bad topology "trailing garbage" "{$good} x" "not a JSON object"
bad topology "unknown key" "{$good, \"dram\": 5}" '$.dram: unknown key'
bad topology "duplicate key" "{$good, \"cpus\": 1}" '$.cpus: duplicate key'
bad topology "DRAM not a multiple of 16" '{"name": "t", "cpus": 2, "dram_mib": 1000, "device_nodes": 2, "device_mib": 384, "disk_mib": 0}' '$.dram_mib'
bad topology "device node too small" '{"name": "t", "cpus": 2, "dram_mib": 1024, "device_nodes": 2, "device_mib": 128, "disk_mib": 0}' '$.device_mib'
bad topology "cpus a string" '{"name": "t", "cpus": "2", "dram_mib": 1024, "device_nodes": 2, "device_mib": 384, "disk_mib": 0}' '$.cpus'
bad topology "missing device_nodes" '{"name": "t", "cpus": 2, "dram_mib": 1024, "device_mib": 384, "disk_mib": 0}' '$.device_nodes: missing'
bad topology "DRAM + disk above 3 GiB" '{"name": "t", "cpus": 2, "dram_mib": 2048, "device_nodes": 2, "device_mib": 384, "disk_mib": 1024}' '$.disk_mib'
bad topology "online zone unknown" "{$good, \"online\": [\"normal\"]}" '$.online'
bad topology "hmat not a bool" "{$good, \"hmat\": 1}" '$.hmat'
bad topology "initiators not an integer" "{$good, \"initiators\": 1.5}" '$.initiators'
bad topology "initiators a string" "{$good, \"initiators\": \"2\"}" '$.initiators'
bad topology "initiators 0" "{$good, \"initiators\": 0}" '$.initiators'
bad topology "initiators above 4" '{"name": "t", "cpus": 8, "dram_mib": 1024, "device_nodes": 2, "device_mib": 384, "disk_mib": 0, "initiators": 5}' '$.initiators'
bad topology "more initiators than cpus" "{$good, \"initiators\": 3}" '$.initiators: 3 initiators need'
bad topology "name with a shell character" '{"name": "t;rm", "cpus": 2, "dram_mib": 1024, "device_nodes": 2, "device_mib": 384, "disk_mib": 0}' '$.name'
bad kernel "model unknown" '{"name": "k", "kernel": "stock", "model": "other"}' '$.model'
# shellcheck disable=SC2016 # the $(x) is the bad input
bad kernel "append with a shell character" '{"name": "k", "kernel": "patched", "model": "private", "append": "a $(x)"}' '$.append'
bad kernel "private_nodes not a bool" '{"name": "k", "kernel": "patched", "model": "private", "private_nodes": 1}' '$.private_nodes'
bad kernel "kernel missing" '{"name": "k", "model": "private"}' '$.kernel: missing'
out=$("$PN" testbed topology "$T/none.json" 2>&1)
rc=$?
if [ $rc = 2 ] && [[ "$out" == *"none.json"* ]]; then ok "a missing file: exit 2 naming it"; else notok "a missing file: exit 2 naming it" "exit $rc: $out"; fi
echo "1..$n"
