#!/bin/bash
# mkinitramfs.sh -o OUT.cpio.gz [--script GUEST_SCRIPT] [--add HOST_BINARY]...
#                [--file HOST_PATH:GUEST_PATH]...
#
# Build the testbed initramfs: busybox-static, ndctl/daxctl with their shared
# libraries, the guest /init (qemu/init), an optional guest script installed
# as /guest/run.sh, extra host binaries (installed in /usr/local/bin, their
# shared libraries found with ldd) and extra files at chosen guest paths.
set -euo pipefail
PN_PROG=mkinitramfs
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../scripts/lib.sh
. "$here/../scripts/lib.sh"

out='' script='' adds=() files=()
while (($#)); do
	case "$1" in
	-o) out=$2; shift 2 ;;
	--script) script=$2; shift 2 ;;
	--add) adds+=("$2"); shift 2 ;;
	--file) files+=("$2"); shift 2 ;;
	*) PN_DIE_RC=2 pn_die "unknown argument '$1' (usage: -o OUT [--script F] [--add BIN]... [--file SRC:DST]...)" ;;
	esac
done
[[ -n "$out" ]] || PN_DIE_RC=2 pn_die "missing -o OUT"
busybox=$(command -v busybox || true)
[[ -n "$busybox" ]] || pn_die "busybox not found: apt-get install busybox-static"
file -L "$busybox" | grep -q 'statically linked' || pn_die "$busybox is not static: apt-get install busybox-static"
for t in cpio gzip ldd; do command -v "$t" >/dev/null || pn_die "'$t' not found"; done

root=$(mktemp -d /tmp/pnbench-initramfs.XXXXXX)
trap 'rm -rf "$root"' EXIT
# mktemp made it 0700 and cpio keeps that for the guest's /: unprivileged
# guest processes (mm selftests' on-fault-limit) must reach the tree
chmod 0755 "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,lib64,lib/x86_64-linux-gnu,etc,guest,proc,sys,dev,tmp,run,root}
cp "$busybox" "$root/bin/busybox"
install -m 0755 "$here/init" "$root/init"

# copy_with_libs BIN DEST_DIR: the binary and every library ldd resolves.
copy_with_libs() {
	local bin=$1 dest=$2 lib
	[[ -f "$bin" ]] || bin=$(command -v "$1" || true)
	[[ -n "$bin" && -f "$bin" ]] || pn_die "host binary '$1' not found"
	cp -L "$bin" "$root$dest/"
	if ldd "$bin" >/dev/null 2>&1; then
		while read -r lib; do
			[[ -n "$lib" && -f "$lib" ]] || continue
			mkdir -p "$root$(dirname "$lib")"
			cp -Ln "$lib" "$root$lib"
		done < <(ldd "$bin" | awk '/=>/ {print $3} !/=>/ && $1 ~ /^\// {print $1}')
	fi
}

for t in ndctl daxctl; do
	command -v "$t" >/dev/null || pn_die "'$t' not found: apt-get install $t"
	copy_with_libs "$t" /usr/bin
done
for b in "${adds[@]}"; do copy_with_libs "$b" /usr/local/bin; done
for f in "${files[@]}"; do
	src=${f%%:*} dst=${f#*:}
	[[ "$f" == *:* && -n "$dst" ]] || PN_DIE_RC=2 pn_die "--file wants HOST_PATH:GUEST_PATH (got '$f')"
	[[ -e "$src" ]] || pn_die "--file source $src does not exist"
	mkdir -p "$root$(dirname "$dst")"
	cp -L "$src" "$root$dst"
done
if [[ -n "$script" ]]; then
	[[ -f "$script" ]] || pn_die "guest script $script does not exist"
	install -m 0755 "$script" "$root/guest/run.sh"
fi
echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
echo 'root:x:0:' >"$root/etc/group"

(cd "$root" && find . -print0 | cpio --null -o -H newc --owner=0:0 --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
pn_log "initramfs $out ($(du -h "$out" | cut -f1))"
