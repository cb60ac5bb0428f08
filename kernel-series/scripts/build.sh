#!/bin/bash
# build.sh <stock|patched>
#
# Build a kernel out of tree and cache it. On success prints the cache
# directory (bzImage, System.map, .config, build.log, key.txt) on stdout.
# A cache hit rebuilds nothing. Progress goes to stderr.
#
#   stock   - base tree (see get-base.sh) + config fragment
#   patched - base + kernel-series/patches/series + config fragment
#             (fails with "no patches in series" until patches exist)
# Sources and objects live in one tree per kind (src/<kind>, build/<kind>),
# so a changed series or fragment rebuilds incrementally; finished kernels
# are kept per key in kernels/<kind>-<key>/.
#
# Config: make tinyconfig; merge config/pnbench.config (merge_config.sh -m);
# make olddefconfig; verify-config.sh (fails naming missing symbols).
# Environment: PNBENCH_CACHE, KSRC, JOBS (default: nproc).
set -euo pipefail
PN_PROG=build
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

(($# == 1)) || PN_DIE_RC=2 pn_die "usage: build.sh <stock|patched>"
kind=$1
pn_check_kind "$kind"
[[ "$kind" == stock ]] || pn_require_patches
for tool in make gcc flex bison bc perl; do
	command -v "$tool" >/dev/null || pn_die "'$tool' is needed to build a kernel but is not installed"
done
[[ -f /usr/include/libelf.h || -f /usr/include/gelf.h ]] || pn_die "libelf-dev is needed (objtool) but not installed"

key=$(pn_key "$kind")
out=$PN_CACHE/kernels/$kind-$key
if [[ -f "$out/bzImage" && -f "$out/.complete" ]]; then
	pn_log "cache hit: $out"
	printf '%s\n' "$out"
	exit 0
fi

mkdir -p "$PN_CACHE/kernels" "$PN_CACHE/build" || pn_die "cannot write to $PN_CACHE (set PNBENCH_CACHE)"
# One lock per kind: all builds of a kind share its source and object trees.
exec 8>"$PN_CACHE/kernels/.lock-$kind"
if ! flock -n 8; then
	pn_log "another $kind build is running; waiting"
	flock 8
fi
if [[ -f "$out/bzImage" && -f "$out/.complete" ]]; then
	pn_log "cache hit: $out"
	printf '%s\n' "$out"
	exit 0
fi

src=$("$here/get-base.sh" "$kind")
# Stable object directory per kind (link build/<kind>): a new key rebuilds
# incrementally; the resolved path keeps Kbuild's recorded commands stable.
if [[ ! -L "$PN_CACHE/build/$kind" ]]; then
	mkdir -p "$PN_CACHE/build/$kind-obj"
	ln -sfn "$kind-obj" "$PN_CACHE/build/$kind"
fi
obj=$(readlink -f "$PN_CACHE/build/$kind")
tmp=$out.tmp
rm -rf "$tmp"
mkdir -p "$obj" "$tmp"
log=$tmp/build.log
jobs=${JOBS:-$(nproc)}
start=$(date +%s)

pn_log "building $kind kernel, key $key, source $src, objects $obj, log $log"
{
	printf 'kind %s\nkey %s\nbase %s\nbuild-version %s\nfragment-sha256 %s\n' \
		"$kind" "$key" "$(pn_base_id)" "$PN_BUILD_VERSION" "$(sha256sum <"$PN_FRAGMENT" | cut -d' ' -f1)"
	if [[ "$kind" == patched ]]; then
		while IFS= read -r p; do
			printf 'patch %s %s\n' "$(basename "$p")" "$(sha256sum <"$p" | cut -d' ' -f1)"
		done < <(pn_series_patches)
		printf 'head %s\n' "$(git -C "$src" rev-parse HEAD)"
	fi
} >"$tmp/key.txt"

pn_log "configuring (tinyconfig + $(basename "$PN_FRAGMENT"))"
{
	make -C "$src" O="$obj" tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$PN_FRAGMENT"
	make -C "$src" O="$obj" olddefconfig
} >>"$log" 2>&1 || pn_die "configuration failed, see $log"
"$here/verify-config.sh" "$PN_FRAGMENT" "$obj/.config" "$kind"

pn_log "compiling with -j$jobs (several minutes; a progress line every 60 s)"
# uname -r inside a guest names the exact build: <version>-pnbench-<kind>-<key8>
make -C "$src" O="$obj" -j"$jobs" LOCALVERSION="-pnbench-$kind-${key:0:8}" bzImage >>"$log" 2>&1 &
mpid=$!
while kill -0 "$mpid" 2>/dev/null; do
	for _ in $(seq 60); do
		kill -0 "$mpid" 2>/dev/null || break
		sleep 1
	done
	if kill -0 "$mpid" 2>/dev/null; then
		pn_log "... $(($(date +%s) - start)) s, $(grep -c '^  CC ' "$log" || true) files compiled"
	fi
done
if ! wait "$mpid"; then
	grep -E 'error|Error' "$log" | head -n 20 >&2 || true
	pn_die "kernel build failed ($kind), full log: $log"
fi

cp "$obj/arch/x86/boot/bzImage" "$obj/System.map" "$obj/.config" "$tmp/"
cp "$obj/include/config/kernel.release" "$tmp/kernel.release"
secs=$(($(date +%s) - start))
printf 'build-seconds %s\njobs %s\n' "$secs" "$jobs" >>"$tmp/key.txt"
touch "$tmp/.complete"
rm -rf "$out"
mv "$tmp" "$out"
pn_log "built $kind kernel $(cat "$out/kernel.release") in ${secs} s: $out"
printf '%s\n' "$out"
