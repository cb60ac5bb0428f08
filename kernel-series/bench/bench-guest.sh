#!/bin/sh
# In-guest half of bench/fault-bench.sh: one warm-up run, then the timed run.
MIB=64 ROUNDS=12
# shellcheck disable=SC1091
[ -f /guest/bench.env ] && . /guest/bench.env
echo "BENCH has_memory=$(cat /sys/devices/system/node/has_memory) has_private_memory=$(cat /sys/devices/system/node/has_private_memory 2>/dev/null)"
/usr/local/bin/faultbench "$MIB" 2 >/dev/null
/usr/local/bin/faultbench "$MIB" "$ROUNDS"
