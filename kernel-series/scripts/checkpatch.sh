#!/bin/bash
# checkpatch.sh: run the base tree's scripts/checkpatch.pl on every patch of
# kernel-series/patches/series, in series order. Prints each patch's verdict
# and a summary; exits 1 when any patch has errors (warnings are reported but
# do not fail), 2 when there is nothing to check.
set -euo pipefail
PN_PROG=checkpatch
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

mapfile -t patches < <(pn_series_patches)
((${#patches[@]})) || PN_DIE_RC=2 pn_die "no patches in series ($PN_PATCH_DIR/series): nothing to check"
base=$("$here/get-base.sh" stock)
cp=$base/scripts/checkpatch.pl
[[ -x "$cp" || -f "$cp" ]] || pn_die "$cp not found in the base tree"

errs=0 warns=0 checks=0 bad=0 i=0
for p in "${patches[@]}"; do
	i=$((i + 1))
	out=$(cd "$base" && perl "$cp" --no-color --show-types --summary-file "$p" 2>&1) || true
	e=$(grep -cE '^ERROR:' <<<"$out" || true)
	w=$(grep -cE '^WARNING:' <<<"$out" || true)
	c=$(grep -cE '^CHECK:' <<<"$out" || true)
	errs=$((errs + e)) warns=$((warns + w)) checks=$((checks + c))
	printf '[%02d] %-70s %d errors, %d warnings\n' "$i" "$(basename "$p")" "$e" "$w"
	if ((e + w)); then
		grep -E '^(ERROR|WARNING):' <<<"$out" | sed 's/^/       /'
	fi
	((e == 0)) || bad=$((bad + 1))
done
echo "checkpatch: ${#patches[@]} patches, $errs errors, $warns warnings ($bad patches with errors)"
((errs == 0))
