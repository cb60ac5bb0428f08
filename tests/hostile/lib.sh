# shellcheck shell=bash
# Shared by tests/hostile/*.sh (sourced): TAP helpers, the binary, a scratch
# directory removed at exit, and what a run must never leave behind.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
PN=${PNBENCH_BIN:-build/pnbench}
PN=$(realpath "$PN" 2>/dev/null || echo "$PN")
# shellcheck source=tests/integration/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../integration/tap.sh"
PY=/usr/bin/python3
export VALIDATE=$PWD/results/schema/validate.py
T=$(mktemp -d /var/tmp/pnbench-hostile.XXXXXX)
need_root() {
	[ -x "$PN" ] || { echo "1..0 # SKIP $PN not built"; exit 4; }
	[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root ($1)"; exit 4; }
}
# Poll (up to 20 s) until CMD succeeds.
wait_for() {
	local _
	for _ in $(seq 200); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
# pnbench cgroups (v1 memory or v2, wherever this shell's cgroup is) of
# processes that are gone: left behind.
stale_cgroups() {
	local d pid
	find /sys/fs/cgroup -maxdepth 6 -type d -name 'pnbench-*' 2>/dev/null |
		while read -r d; do
			pid=${d##*pnbench-}
			[ -d "/proc/$pid" ] || echo "$d"
		done
}
# the cgroup a run says it made (its stderr), or "" without one
run_cgroup() { sed -n 's/^pnbench: workloads run in \([^ ]*\) .*/\1/p' "$1" | head -n 1; }
# mounts, loop devices and images under $T
left_mounts() {
	local m l f
	m=$(grep -c "$T" /proc/self/mounts)
	l=$(losetup -a 2>/dev/null | grep -c "$T")
	f=$(find "$T" -name 'pnbench-scratch-*' 2>/dev/null | wc -l)
	echo $((m + l + f))
}
# What a failed run may have left under $T: put it back, the host unchanged.
cleanup_mounts() {
	local m
	grep "$T" /proc/self/mounts | awk '{print $2}' | while read -r m; do umount -l "$m"; done
	losetup -a 2>/dev/null | grep "$T" | cut -d: -f1 | while read -r m; do losetup -d "$m"; done
}
cleanup_host() {
	cleanup_mounts
	rm -rf "$T"
}
trap cleanup_host EXIT
