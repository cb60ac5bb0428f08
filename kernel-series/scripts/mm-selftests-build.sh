#!/bin/bash
# mm-selftests-build.sh [stock|patched]
# Build tools/testing/selftests/mm of the base tree (get-base.sh stock; the
# default) or of the patched tree (get-base.sh patched: the base's tests
# plus the series' own, selftests/mm/private_node in run_vmtests.sh's
# category private_node), statically linked, out of tree, and print the
# directory holding
#   install/            binaries + the scripts run_vmtests.sh calls
#   mm-selftests.tar    the same, packed for the guest initramfs
#   build.log key.txt .complete
# The base tree is never written to: the few source files the mm selftests
# include are copied into <dir>/src (check_config.sh writes local_config.*
# next to the Makefile), the uapi headers come from `make headers` with O=.
# Cached in $PNBENCH_CACHE/build/mm-selftests/<key>; <key> covers the base
# id (and for patched every patch, as the patched kernel's key does),
# MMST_BUILD_VERSION, the make variables and the compiler version, so a
# second run builds nothing.
# Build quirks of 6.12.118 handled with make variables only:
#   khugepaged.c uses KSFT_SKIP without kselftest.h   -> -DKSFT_SKIP=4
#   the x86 pkey rules link with CFLAGS, not LDFLAGS  -> -static in EXTRA_CFLAGS
#   ksm_tests.c includes include/vdso/time64.h        -> include/vdso copied
#   no rsync on the host (headers_install wants it)  -> `make headers`, KHDR_INCLUDES
#   32-bit pkey tests need gcc-multilib               -> not built (the Makefile warns)
set -euo pipefail
PN_PROG='mm-selftests-build'
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

MMST_BUILD_VERSION=1
EXTRA=(-DKSFT_SKIP=4 -static)
# Paths (relative to the kernel tree) the mm selftests build reads.
SRC_PATHS=(
	tools/testing/selftests/mm tools/testing/selftests/lib.mk
	tools/testing/selftests/kselftest.h tools/testing/selftests/kselftest_harness.h
	tools/testing/selftests/kselftest tools/testing/selftests/x86/check_cc.sh
	tools/testing/selftests/x86/trivial_program.c
	tools/testing/selftests/x86/trivial_32bit_program.c
	tools/testing/selftests/x86/trivial_64bit_program.c
	tools/include include/vdso mm/gup_test.h lib/test_hmm_uapi.h
)
which=${1:-stock}
(($# <= 1)) || PN_DIE_RC=2 pn_die "usage: mm-selftests-build.sh [stock|patched]"
pn_check_kind "$which"
# Scripts run_vmtests.sh runs or that those scripts call.
SCRIPTS=(run_vmtests.sh test_vmalloc.sh test_hmm.sh va_high_addr_switch.sh
	charge_reserved_hugetlb.sh hugetlb_reparenting_test.sh write_hugetlb_memory.sh settings)

for lib in libnuma.a libcap.a liburing.a; do
	[[ -f /usr/lib/x86_64-linux-gnu/$lib ]] ||
		pn_die "/usr/lib/x86_64-linux-gnu/$lib missing: apt-get install libnuma-dev libcap-dev liburing-dev (make deps)"
done
command -v gcc >/dev/null || pn_die "gcc not found: apt-get install build-essential"

base=$("$here/get-base.sh" "$which") || pn_die "get-base.sh $which failed"
key=$({
	printf 'base %s\nversion %s\nextra %s\n' "$(pn_base_id)" "$MMST_BUILD_VERSION" "${EXTRA[*]}"
	[[ $which == stock ]] || printf 'tree %s\n' "$(pn_key patched)"
	gcc --version | head -n1
} | sha256sum | cut -c1-16)
dir=$PN_CACHE/build/mm-selftests/$key
if [[ -f "$dir/.complete" ]]; then
	printf '%s\n' "$dir"
	exit 0
fi

mkdir -p "$PN_CACHE/build/mm-selftests"
exec 9>"$PN_CACHE/build/mm-selftests/.lock"
flock 9
[[ -f "$dir/.complete" ]] && { printf '%s\n' "$dir"; exit 0; }
rm -rf "$dir"
mkdir -p "$dir"/{src,hdr,out,install}
log=$dir/build.log
printf 'base %s\nkey %s\nextra %s\n' "$base" "$key" "${EXTRA[*]}" >"$dir/key.txt"

pn_log "copying the mm selftests sources of $base"
tar -C "$base" -cf - "${SRC_PATHS[@]}" | tar -C "$dir/src" -xf - ||
	pn_die "cannot copy ${SRC_PATHS[*]} from $base"
pn_log "uapi headers (make headers O=$dir/hdr; log $log)"
nice -n 10 make -C "$base" O="$dir/hdr" headers >>"$log" 2>&1 ||
	pn_die "make headers failed: see $log"
pn_log "building (static; log $log)"
mm=$dir/src/tools/testing/selftests/mm
nice -n 10 make -C "$mm" -j"$(nproc)" OUTPUT="$dir/out" \
	KHDR_INCLUDES="-isystem $dir/hdr/usr/include" LDFLAGS=-static \
	EXTRA_CFLAGS="${EXTRA[*]}" >>"$log" 2>&1 || pn_die "selftests build failed: see $log"

dyn=$(file -- "$dir"/out/* | grep ELF | grep -v 'statically linked' || true)
[[ -z "$dyn" ]] || pn_die "not statically linked: $dyn"
cp -a "$dir/out/." "$dir/install/"
for s in "${SCRIPTS[@]}"; do cp "$mm/$s" "$dir/install/"; done
tar -C "$dir/install" -cf "$dir/mm-selftests.tar" .
touch "$dir/.complete"
pn_log "built $(find "$dir/install" -type f | wc -l) files into $dir"
printf '%s\n' "$dir"
