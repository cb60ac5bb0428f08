#!/bin/sh
# Runs inside the QEMU HMAT guest (tests/integration/test-latency-guest.sh):
# the latency workload over every initiator and target, then the run.json
# base64-encoded between LATENCY-JSON markers for the host to check.
cd /tmp || exit 1
/usr/local/bin/pnbench run /guest/latency.json -o /tmp/latency > /tmp/latency.out 2>&1
echo "LATENCY rc=$?"
sed 's/^/LATENCY-LOG: /' /tmp/latency.out | tail -n 20
echo "LATENCY-JSON-BEGIN"
base64 /tmp/latency/run.json
echo "LATENCY-JSON-END"
exit 0
