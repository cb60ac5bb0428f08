#!/usr/bin/env bash
# Install what pnbench needs.  As root: apt-get installs the Debian packages;
# otherwise the exact command is printed (linux-perf is for the perf
# collector's side-by-side benchmark, make perf-bench; ansible-core, postgresql,
# python3-psycopg2 and openssh-* for fleet/ and its test; libcap-dev,
# liburing-dev, bash-static, procps and psmisc for the static mm selftests
# and their guest, make selftests, and bsdextrautils (column) for their
# table; libxml2-utils (xmllint) and python3-prometheus-client to check run
# --junit and --openmetrics output, test-ci-outputs.sh, and for pnreport
# dashboard to read OpenMetrics files).  `deps.sh --list` prints the
# packages, one a line (fleet/ installs the same list on its hosts).
# Then libperf is built from the linux-source-6.12 tree (Debian does not
# package it) into the cache:
#   ${PNBENCH_CACHE:-/var/cache/pnbench}/libperf/{include,lib64}
set -euo pipefail

PKGS=(
	build-essential pkg-config git
	libnuma-dev numactl libhwloc-dev hwloc-nox libcjson-dev libssl-dev
	libcmocka-dev python3-jsonschema python3-matplotlib python3-numpy python3-scipy pyflakes3
	libxml2-utils python3-prometheus-client
	chromium fonts-dejavu-core poppler-utils
	clang libclang-rt-14-dev clang-tidy clang-format cppcheck shellcheck
	linux-source-6.12 linux-libc-dev libtraceevent-dev linux-perf
	qemu-system-x86 busybox-static ndctl daxctl kmod cpio xz-utils
	flex bison libelf-dev bc gdb help2man groff-base
	libcap-dev liburing-dev bash-static procps psmisc bsdextrautils
	ansible-core postgresql python3-psycopg2 openssh-server openssh-client iproute2
)
if [ "${1:-}" = --list ]; then
	printf '%s\n' "${PKGS[@]}"
	exit 0
fi
CACHE=${PNBENCH_CACHE:-/var/cache/pnbench}

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	if [ "$(id -u)" -eq 0 ]; then
		echo "deps: installing ${#missing[@]} package(s): ${missing[*]}" >&2
		apt-get update -q >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
	else
		echo "deps: missing packages; run as root:" >&2
		echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
		exit 1
	fi
else
	echo "deps: Debian packages present" >&2
fi

# libperf from the kernel tree (only tools/ is unpacked).
if [ -f "$CACHE/libperf/lib64/libperf.a" ] && [ -f "$CACHE/libperf/include/perf/core.h" ]; then
	echo "deps: libperf present in $CACHE/libperf" >&2
	exit 0
fi
tarball=$(find /usr/src -maxdepth 1 -name "linux-source-6.12.tar.*" | sort | head -n1)
if [ -z "$tarball" ]; then
	echo "deps: no /usr/src/linux-source-6.12.tar.*: install linux-source-6.12" >&2
	exit 1
fi
mkdir -p "$CACHE"
src="$CACHE/libperf-src"
rm -rf "$src" "$CACHE/libperf" "$CACHE/libperf-build"
mkdir -p "$src"
echo "deps: unpacking tools/ of $tarball" >&2
tar -xf "$tarball" -C "$src" --strip-components=1 --wildcards '*/tools/*' 
mkdir -p "$CACHE/libperf-build"
echo "deps: building libperf" >&2
make -s -C "$src/tools/lib/perf" O="$CACHE/libperf-build" prefix="$CACHE/libperf" \
	install_lib install_headers >&2
cp "$CACHE/libperf-build/libapi.a" "$CACHE/libperf/lib64/" 2>/dev/null || true
echo "deps: libperf installed in $CACHE/libperf" >&2
