#!/usr/bin/env bash
# The latency workload inside a QEMU TCG guest with an ACPI HMAT (the machine
# of tests/fixtures/qemu-hmat-4node: two CPU nodes, two memory-only nodes,
# declared latency and bandwidth per initiator): the matrix has a row per
# (initiator, target) pair, the declared value sits beside each measured
# one where the kernel exposes it (best initiators only), every row is
# marked meaningless because the guest is emulated, and every chase buffer
# is on its node.  Prints the matrix.  TAP output.  PNBENCH_KEEP=DIR keeps
# the console log and run.json.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
PN=${PNBENCH_BIN:-build/pnbench}
KS=./kernel-series
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh

command -v qemu-system-x86_64 >/dev/null || skipall "qemu-system-x86_64 not installed (make deps)"
[ -x "$PN" ] || skipall "$PN not built"
kernel=$("$KS/scripts/kernel-path.sh" stock 2>/dev/null) || skipall "no stock kernel in the cache (make kernels)"
T=$(mktemp -d /tmp/pnbench-latency.XXXXXX)
trap 'rm -rf "$T"' EXIT
# shellcheck source=tests/fixtures/capture/hmat-layout.sh
. tests/fixtures/capture/hmat-layout.sh
"$KS/qemu/mkinitramfs.sh" -o "$T/initrd.gz" --script tests/guest/latency-guest.sh --add "$PN" \
	--file tests/guest/latency.json:/guest/latency.json >/dev/null 2>&1 ||
	skipall "cannot build the guest initramfs"
# single-threaded TCG, as run-guest.sh boots every other guest: multi-threaded
# TCG crashed a boot of the stock kernel at 0.84 s (a NULL dereference in an
# async init work, "Fatal exception in interrupt"; a cold make check on
# 2026-12-06), like the boot crash at a jump-label site run-guest.sh records
timeout -s KILL 600 qemu-system-x86_64 -accel tcg,thread=single -cpu qemu64 "${PN_HMAT_QEMU_ARGS[@]}" \
	-kernel "$kernel" -initrd "$T/initrd.gz" \
	-append "console=ttyS0,115200 quiet panic=-1 no_timer_check pnbench.dmesg=0" \
	-nographic -no-reboot -monitor none -serial stdio </dev/null >"$T/console.log" 2>&1
tr -d '\r' <"$T/console.log" >"$T/log"
sed -n '/^LATENCY-JSON-BEGIN$/,/^LATENCY-JSON-END$/p' "$T/log" | sed '1d;$d' | base64 -d >"$T/run.json" 2>/dev/null
# PNBENCH_KEEP=DIR keeps the console log and run.json for a look afterwards.
[ -n "${PNBENCH_KEEP:-}" ] && mkdir -p "$PNBENCH_KEEP" && cp "$T/log" "$T/run.json" "$PNBENCH_KEEP/"
rc=$(sed -n 's/^LATENCY rc=\([0-9]*\).*/\1/p' "$T/log" | tail -n1)
if [ "$rc" != 0 ]; then
	notok "the latency suite ran in the HMAT guest" "rc=${rc:-none}" "$(grep LATENCY-LOG "$T/log" | tail -n 8)" \
		"$(tail -n 5 "$T/log")"
	echo "1..$n"
	exit 1
fi
ok "the latency suite ran in the HMAT guest"
/usr/bin/python3 - "$T/run.json" "${PN_HMAT_LAT[*]}" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
lat = [int(x) for x in sys.argv[2].split()]
best = {0: 0, 1: 1, 2: 0, 3: 1}  # target -> its HMAT initiator (hmat-layout.sh)
n = 0
def check(ok, desc, detail=""):
    global n
    n += 1
    print(("ok %d - %s" if ok else "not ok %d - %s") % (n, desc))
    if not ok and detail:
        print("#   " + str(detail))
def tables(o):
    if isinstance(o, dict):
        if isinstance(o.get("tables"), list) and o["tables"]:
            yield o
        for v in o.values():
            yield from tables(v)
    elif isinstance(o, list):
        for v in o:
            yield from tables(v)
res = next(tables(d), None)
check(res is not None, "the workload result has tables")
if res is None:
    print("1..%d" % n); sys.exit(1)
t = {x["name"]: x for x in res["tables"]}
m = t.get("latency_matrix")
check(m is not None, "latency_matrix table present")
cols = [c["name"] for c in m["columns"]]
rows = [dict(zip(cols, r)) for r in m["rows"]]
check(sorted((r["initiator"], r["target"]) for r in rows) == [(i, j) for i in (0, 1) for j in range(4)],
      "one row per (initiator, target): 2 x 4", [(r["initiator"], r["target"]) for r in rows])
for r in rows:
    i, j = r["initiator"], r["target"]
    want = lat[i * 4 + j] if best[j] == i else None
    got = r["declared_latency"]
    check(got == want, "declared latency %d->%d: %s" % (i, j, want), "got %r (%s)" % (got, r["declared_source"]))
check(all(r["class"] == "meaningless (emulated)" for r in rows), "every row marked meaningless under TCG",
      set(r["class"] for r in rows))
check(all(r["latency_median"] > 0 and r["latency_min"] <= r["latency_median"] <= r["latency_p99"] for r in rows),
      "min <= median <= p99, all positive")
check(all(r["role"] == ("private" if r["target"] >= 2 else "dram") for r in rows), "roles from the config")
check(all(r["huge_pages"] == "none" for r in rows), "huge pages as the config asked (none)")
checks = res.get("checks", [])
bufs = [c for c in checks if c["name"].startswith("buffers on node")]
check(len(bufs) == 4 and all(c["pass"] for c in bufs), "every buffer on its node (move_pages)",
      [(c["name"], c["observed"]) for c in bufs])
check(any("emulated" in s for s in res.get("notes", [])), "a note says the figures mean nothing here")
bw = t.get("bandwidth")
check(bw is not None and len(bw["rows"]) == 2 * 4 * 3, "bandwidth: 3 kernels x 8 pairs x 1 thread")
print("# initiator target role    min/median/p99 ns (TCG)   declared  source        class")
for r in rows:
    print("# %9d %6d %-7s %7.0f/%7.0f/%7.0f  %8s  %-12s  %s" % (
        r["initiator"], r["target"], r["role"], r["latency_min"], r["latency_median"], r["latency_p99"],
        "-" if r["declared_latency"] is None else "%d" % r["declared_latency"], r["declared_source"], r["class"]))
if bw:
    bc = [c["name"] for c in bw["columns"]]
    for row in bw["rows"]:
        b = dict(zip(bc, row))
        print("# bw %d->%d %-8s %d thr %.3f GB/s (%.1f%% of %s)" % (b["initiator"], b["target"], b["kernel"],
              b["threads"], b["gbps"], b["share"] if b["share"] is not None else float("nan"), b["theoretical_gbps"]))
print("1..%d" % n)
sys.exit(0)
PY
