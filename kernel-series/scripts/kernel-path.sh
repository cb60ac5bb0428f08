#!/bin/bash
# kernel-path.sh <stock|patched> [file]
# Print the path of a cached kernel file (default bzImage; also System.map,
# .config, build.log, key.txt, kernel.release) without building anything.
# Exit 1 with a message on stderr when that kernel is not in the cache.
set -euo pipefail
PN_PROG=kernel-path
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
kind=${1:-}
pn_check_kind "$kind"
file=${2:-bzImage}
[[ "$kind" == stock ]] || pn_require_patches
dir=$PN_CACHE/kernels/$kind-$(pn_key "$kind")
[[ -f "$dir/.complete" && -f "$dir/$file" ]] ||
	pn_die "no $kind kernel in cache ($dir): run make -C kernel-series kernel-$kind"
printf '%s\n' "$dir/$file"
