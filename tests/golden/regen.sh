#!/usr/bin/env bash
# Regenerate the golden results with the suite itself (never by hand):
#   tests/golden/regen.sh [BUILD_DIR]
# Run as root on a one-node machine (the goldens say so in their host block).
set -euo pipefail
cd "$(dirname "$0")/../.."
PN=${1:-build}/pnbench
T=$(mktemp -d /tmp/pnbench-golden.XXXXXX)
trap 'rm -rf "$T"' EXIT

"$PN" run -q configs/smoke.json -o "$T/smoke" >/dev/null
cp "$T/smoke/run.json" tests/golden/smoke-complete.json

cat >"$T/long.json" <<'CFG'
{"name": "interrupted", "iterations": 200,
 "nodes": {"private": "auto", "dram": "auto"},
 "collectors": {"interval": "100ms", "enabled": ["vmstat", "nodestat"]},
 "phases": [{"name": "alloc", "workloads": [
   {"workload": "explicit", "params": {"size": "32M", "chunk": "1M", "nodes": "dram", "fault": "write"}}]}]}
CFG
"$PN" run -q "$T/long.json" -o "$T/int" >/dev/null &
pid=$!
sleep 2
kill -INT "$pid"
wait "$pid" || true
cp "$T/int/run.json" tests/golden/interrupted-incomplete.json

"$PN" run -q --private 0 -o "$T/exec" --exec -- sh -c "head -c 32M /dev/urandom > $T/f; sync" \
	>/dev/null || true
cp "$T/exec/run.json" tests/golden/exec-leak-fail.json

cat >"$T/killed.json" <<'CFG'
{"name": "killed", "iterations": 1,
 "nodes": {"private": "auto", "dram": "auto"},
 "phases": [{"name": "bounded", "workloads": [
   {"workload": "explicit", "params": {"size": "64M", "chunk": "1M", "nodes": "dram"},
    "cgroup": {"memory.max": "16M"}, "expect": "oom_kill"}]}]}
CFG
"$PN" run -q "$T/killed.json" -o "$T/killed" >/dev/null || true
cp "$T/killed/run.json" tests/golden/cgroup-oom-kill.json
for g in tests/golden/*.json; do /usr/bin/python3 results/schema/validate.py "$g"; done
