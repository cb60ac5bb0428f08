#!/bin/sh
# In-guest half of kernel-series/tests/mm-selftests.sh (busybox sh).
# Runs the kernel's own tools/testing/selftests/mm/run_vmtests.sh, unmodified,
# with bash-static, from /mm (unpacked from /guest/mm-selftests.tar), and
# writes everything to the host share (/mnt/host, run-guest.sh --share):
#   run_vmtests.tap   the script's TAP output (the host splits it per test)
#   guest-info.txt    kernel, node states, per-node memory, opt-ins
#   dmesg.txt         kernel log after the run
#   vmstat-before.txt, vmstat-after.txt   /proc/vmstat around the run
#   done              run_vmtests.sh's exit status (written last)
# /guest/mmst.env sets KIND, TEST_TIMEOUT (seconds per test), CATEGORIES
# (run_vmtests.sh -t; empty = all) and OPTIN (1: write 1 to
# nodeN/private/mempolicy of every private node before the run).
# Per-test timeout without editing run_vmtests.sh: every test it starts as
# ./NAME is replaced by a wrapper that runs the real file (/mm/.real/NAME)
# under GNU timeout and prints "MMST-TIMEOUT <limit>s" when it fired and
# "MMST-ELAPSED <s>s"; `bash ./x.sh` reaches a bash wrapper in PATH; `sudo`
# (for `sudo -u nobody ./on-fault-limit` and `sudo tee`) is a shim over su.
KIND=unknown
TEST_TIMEOUT=900
CATEGORIES=''
OPTIN=0
# shellcheck disable=SC1091
[ -f /guest/mmst.env ] && . /guest/mmst.env
OUT=/mnt/host
MM=/mm
BASH_STATIC=/usr/local/bin/bash-static
TMO=/usr/local/bin/timeout
NODE=/sys/devices/system/node

die() { echo "MMST error: $*"; exit 1; }

# Helpers run_vmtests.sh or its scripts expect: their tests call these by
# name, not the ones a test starts.
UNWRAPPED='run_vmtests.sh settings write_to_hugetlbfs write_hugetlb_memory.sh
test_vmalloc.sh test_hmm.sh va_high_addr_switch.sh'

unwrapped() {
	for u in $UNWRAPPED; do [ "$1" = "$u" ] && return 0; done
	return 1
}

write_wrapper() { # write_wrapper PATH REAL
	cat >"$1" <<EOF
#!/bin/sh
t0=\$(date +%s)
$TMO -k 10 $TEST_TIMEOUT $2 "\$@"
rc=\$?
s=\$((\$(date +%s) - t0))
# 124: timed out; 137 after -k: TERM was ignored (137 sooner: SIGKILL, e.g. OOM)
if [ \$rc = 124 ] || { [ \$rc = 137 ] && [ \$s -ge $TEST_TIMEOUT ]; }; then echo "MMST-TIMEOUT ${TEST_TIMEOUT}s"; fi
echo "MMST-ELAPSED \${s}s"
exit \$rc
EOF
	chmod 0755 "$1"
}

install_tests() {
	mkdir -p "$MM/.real" "$MM/.bin" || die "mkdir $MM"
	tar -x -f /guest/mm-selftests.tar -C "$MM" || die "cannot unpack the selftests"
	rm -f /guest/mm-selftests.tar
	for f in "$MM"/*; do
		n=${f##*/}
		[ -x "$f" ] || continue
		unwrapped "$n" && continue
		mv "$f" "$MM/.real/$n"
		write_wrapper "$f" "$MM/.real/$n"
	done
	write_wrapper "$MM/.bin/bash" "$BASH_STATIC"
	cat >"$MM/.bin/sudo" <<'EOF'
#!/bin/sh
# sudo [-u USER] CMD [ARGS]: the two forms run_vmtests.sh uses
if [ "$1" = -u ]; then
	u=$2
	shift 2
	exec su -s /bin/sh "$u" -c 'exec "$0" "$@"' "$@"
fi
exec "$@"
EOF
	chmod 0755 "$MM/.bin/sudo" "$MM" "$MM/.real" "$MM/.bin"
}

setup_system() {
	[ -x "$BASH_STATIC" ] || die "$BASH_STATIC missing"
	[ -x "$TMO" ] || die "$TMO (GNU timeout) missing"
	ln -sf "$BASH_STATIC" /bin/bash
	# on-fault-limit runs as nobody: it must reach / and /mm
	chmod 0755 /
	grep -q '^nobody:' /etc/passwd || echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/sh' >>/etc/passwd
	grep -q '^nogroup:' /etc/group || echo 'nogroup:x:65534:' >>/etc/group
}

optin() {
	priv=$(cat "$NODE/has_private_memory" 2>/dev/null)
	[ -n "$priv" ] || { echo "MMST no private nodes to opt in"; return; }
	for n in "$NODE"/node[0-9]*; do
		f=$n/private/mempolicy
		[ -w "$f" ] && echo 1 >"$f" 2>/dev/null && echo "MMST opted in ${n##*/}"
	done
}

guest_info() {
	echo "kind=$KIND"
	echo "kernel=$(uname -r)"
	echo "cpus=$(nproc)"
	echo "mems_allowed=$(awk '/^Mems_allowed_list:/ { print $2 }' /proc/self/status)"
	for f in online has_memory has_normal_memory has_cpu has_private_memory private_node_mode; do
		[ -e "$NODE/$f" ] && echo "node_$f=$(cat "$NODE/$f")"
	done
	for n in "$NODE"/node[0-9]*; do
		nn=${n##*/}
		echo "${nn}_meminfo=$(awk '$3 ~ /^Mem(Total|Free):$/ { sub(/:$/, "", $3); printf "%s%s=%skB", s, $3, $4; s = " " }' "$n/meminfo")"
		[ -d "$n/private" ] && echo "${nn}_private=$(cd "$n/private" && grep -H . ./* 2>/dev/null | tr '\n' ' ')"
	done
	grep -E '^(MemTotal|MemFree|HugePages_Total|Hugepagesize):' /proc/meminfo
	echo "filesystems=$(awk '{ print $NF }' /proc/filesystems | tr '\n' ' ')"
}

grep -q " $OUT 9p " /proc/mounts || die "$OUT is not mounted (run-guest.sh --share)"
rm -f "$OUT/done"
setup_system
install_tests
[ "$OPTIN" = 1 ] && optin
guest_info >"$OUT/guest-info.txt" 2>&1
cp /proc/vmstat "$OUT/vmstat-before.txt"
echo "MMST kind=$KIND running run_vmtests.sh ${CATEGORIES:+-t \"$CATEGORIES\"} (per-test timeout ${TEST_TIMEOUT}s)"
cd "$MM" || die "cd $MM"
if [ -n "$CATEGORIES" ]; then
	PATH=$MM/.bin:$PATH "$BASH_STATIC" ./run_vmtests.sh -t "$CATEGORIES" >"$OUT/run_vmtests.tap" 2>&1
else
	PATH=$MM/.bin:$PATH "$BASH_STATIC" ./run_vmtests.sh >"$OUT/run_vmtests.tap" 2>&1
fi
rc=$?
echo "MMST run_vmtests.sh exit $rc"
dmesg >"$OUT/dmesg.txt"
cp /proc/vmstat "$OUT/vmstat-after.txt"
echo "$rc" >"$OUT/done"
sync
exit 0
