# shellcheck shell=bash
# Shared helpers for the kernel-series scripts. Source it; do not run it.
#
# Cache layout (outside the repository):
#   ${PNBENCH_CACHE:-/var/cache/pnbench}/
#     src/base-<id>/              git tree of the unpacked base, branch "base"
#     src/patched -> ...          git worktree of base + `git am` of the series
#                                 (one for all series revisions, see get-base.sh)
#     build/<kind> -> ...         out-of-tree object directory (O=), one per kind
#     kernels/<kind>-<key>/       bzImage System.map .config build.log key.txt
#
# <key> = sha256 over: base id, every patch file (name + content) in series
# order (none for "stock"), the config fragment, and PN_BUILD_VERSION.

PN_BUILD_VERSION=3

PN_SERIES_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PN_CACHE=${PNBENCH_CACHE:-/var/cache/pnbench}
PN_FRAGMENT=$PN_SERIES_DIR/config/pnbench.config
PN_PATCH_DIR=${PN_PATCH_DIR:-$PN_SERIES_DIR/patches} # tests point it elsewhere
PN_DEBIAN_TARBALL=/usr/src/linux-source-6.12.tar.xz
PN_DEBIAN_PACKAGE=linux-source-6.12

pn_log() { printf '%s: %s\n' "${PN_PROG:-pnbench}" "$*" >&2; }
pn_die() { pn_log "error: $*"; exit "${PN_DIE_RC:-1}"; }

# Identity of the base tree: "debian-<tarball sha256 prefix>" or
# "ksrc-<sha of the tree's path + kernelversion>" when KSRC= is given.
pn_base_id() {
	if [[ -n "${KSRC:-}" ]]; then
		[[ -f "$KSRC/Makefile" ]] || pn_die "KSRC=$KSRC is not a kernel tree (no Makefile)"
		local ver
		ver=$(make -s --no-print-directory -C "$KSRC" kernelversion 2>/dev/null) || pn_die "cannot read kernelversion from KSRC=$KSRC"
		printf 'ksrc-%s-%s\n' "$ver" "$(realpath "$KSRC" | sha256sum | cut -c1-12)"
	else
		[[ -f "$PN_DEBIAN_TARBALL" ]] || pn_die "$PN_DEBIAN_TARBALL missing: run scripts/get-base.sh as root (installs $PN_DEBIAN_PACKAGE) or pass KSRC=<kernel tree>"
		# Hashing 140 MB each call is slow; memoise on size+mtime.
		local stamp memo
		stamp=$(stat -c '%s-%Y' "$PN_DEBIAN_TARBALL")
		memo=$PN_CACHE/src/.tarball-$stamp
		if [[ -s "$memo" ]]; then
			cat "$memo"
		else
			local id
			id="debian-$(sha256sum "$PN_DEBIAN_TARBALL" | cut -c1-16)"
			if mkdir -p "$PN_CACHE/src" 2>/dev/null; then
				printf '%s\n' "$id" >"$memo" 2>/dev/null || true
			fi
			printf '%s\n' "$id"
		fi
	fi
}

# Patch file paths, in series order (quilt format: one name per line,
# '#' comments, optional trailing options such as -p1 ignored).
pn_series_patches() {
	local series=$PN_PATCH_DIR/series line name
	[[ -f "$series" ]] || return 0
	while IFS= read -r line || [[ -n "$line" ]]; do
		line=${line%%#*}
		read -r name _ <<<"$line" || true
		[[ -n "${name:-}" ]] || continue
		[[ -f "$PN_PATCH_DIR/$name" ]] || pn_die "series lists $name but $PN_PATCH_DIR/$name does not exist"
		printf '%s\n' "$PN_PATCH_DIR/$name"
	done <"$series"
}

# pn_key <stock|patched>: print the cache key.
pn_key() {
	local kind=$1 base p
	base=$(pn_base_id)
	{
		printf 'base %s\nkind %s\nbuild-version %s\n' "$base" "$kind" "$PN_BUILD_VERSION"
		if [[ "$kind" == patched ]]; then
			while IFS= read -r p; do
				printf 'patch %s %s\n' "$(basename "$p")" "$(sha256sum <"$p" | cut -d' ' -f1)"
			done < <(pn_series_patches)
		fi
		printf 'fragment %s\n' "$(sha256sum <"$PN_FRAGMENT" | cut -d' ' -f1)"
	} | sha256sum | cut -c1-16
}

pn_check_kind() {
	case "${1:-}" in
	stock | patched) ;;
	*) PN_DIE_RC=2 pn_die "kind must be 'stock' or 'patched' (got '${1:-}')" ;;
	esac
}

pn_require_patches() {
	local n
	n=$(pn_series_patches | wc -l)
	((n > 0)) || pn_die "no patches in series ($PN_PATCH_DIR/series is missing or empty): the patched kernel cannot be built yet"
}

# pn_bench_scenarios LIST: the guest setups and rows of the fault benchmark's
# scenarios (none/dram, private/dram, private/private), into the caller's
# setups, none_rows and private_rows; another word dies with exit 2.
pn_bench_scenarios() {
	local s
	setups='' none_rows='' private_rows=''
	for s in $1; do
		case "$s" in
		none/dram) none_rows=dram ;;
		private/dram | private/private) private_rows+="${private_rows:+ }${s#private/}" ;;
		*) PN_DIE_RC=2 pn_die "SCENARIOS: unknown scenario '$s' (none/dram, private/dram, private/private)" ;;
		esac
	done
	[[ -n "$none_rows" ]] && setups+=' none'
	[[ -n "$private_rows" ]] && setups+=' private'
	return 0
}

# pn_bench_kernel stock|patched|PATH WHAT: the bzImage to boot (exit 4 when
# it is missing; WHAT names what is skipped then)
pn_bench_kernel() {
	case "$1" in
	stock | patched)
		"$PN_SERIES_DIR/scripts/kernel-path.sh" "$1" ||
			PN_DIE_RC=4 pn_die "no $1 kernel in cache: run make -C kernel-series kernels ($2 skipped)"
		;;
	*) [[ -f "$1" ]] || PN_DIE_RC=4 pn_die "kernel image '$1' not found"; printf '%s\n' "$1" ;;
	esac
}
