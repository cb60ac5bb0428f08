#!/bin/bash
# check-bisect.sh -- every prefix of the series builds: base + patches 1..i,
# for each i, compiled and fully linked (bzImage) with the suite's config.
#
# The steps run in order in one git worktree of the base (src/bisect) and
# one object directory (build/bisect-obj), so each step recompiles only
# what its patch changed.  A step that built before is cached by its key
# (base, patches 1..i, config fragment, script version) in bisect/<key>.ok
# and only applied, not built.  Stops at the first step that fails and
# names the patch; prints one line per step: patch, result, seconds, the
# compiler warnings in the files that step recompiled.
# Exit: 0 every step builds, 1 a step fails, 2 usage.
# Environment: PNBENCH_CACHE, KSRC, JOBS (default: nproc).
set -euo pipefail
PN_PROG=check-bisect
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
BISECT_VERSION=1

(($# == 0)) || PN_DIE_RC=2 pn_die "usage: check-bisect.sh (no arguments)"
pn_require_patches
mapfile -t patches < <(pn_series_patches)
base=$("$here/get-base.sh" stock)
wt=$PN_CACHE/src/bisect
obj=$PN_CACHE/build/bisect-obj
okdir=$PN_CACHE/bisect
mkdir -p "$obj" "$okdir"
exec 8>"$okdir/.lock"
flock -n 8 || { pn_log "another check-bisect is running; waiting"; flock 8; }

# step_key <i>: cache key of base + patches 1..i
step_key() {
	local i=$1 j
	{
		printf 'base %s\nversion %s %s\nfragment %s\n' "$(pn_base_id)" "$PN_BUILD_VERSION" \
			"$BISECT_VERSION" "$(sha256sum <"$PN_FRAGMENT" | cut -d' ' -f1)"
		for ((j = 0; j < i; j++)); do
			printf 'patch %s\n' "$(sha256sum <"${patches[j]}" | cut -d' ' -f1)"
		done
	} | sha256sum | cut -c1-16
}

if [[ ! -d "$wt/.git" && ! -f "$wt/.git" ]]; then
	git -C "$base" worktree prune
	git -C "$base" worktree add -q --detach "$wt" base >/dev/null ||
		pn_die "cannot make the worktree $wt of $base"
fi
git -C "$wt" am --abort >/dev/null 2>&1 || true
git -C "$wt" checkout -q --detach base
git -C "$wt" reset -q --hard base

log=$okdir/build.log
: >"$log"
if [[ ! -f "$obj/.config" ]] || ! cmp -s "$PN_FRAGMENT" "$obj/.fragment"; then
	pn_log "configuring (tinyconfig + $(basename "$PN_FRAGMENT"))"
	{
		make -C "$wt" O="$obj" tinyconfig
		"$wt/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$PN_FRAGMENT"
		make -C "$wt" O="$obj" olddefconfig
	} >>"$log" 2>&1 || pn_die "configuration failed, see $log"
	cp "$PN_FRAGMENT" "$obj/.fragment"
fi
jobs=${JOBS:-$(nproc)}
total=0 built=0 cached=0
printf '%-4s %-66s %-7s %7s %s\n' step patch result seconds warnings
for ((i = 1; i <= ${#patches[@]}; i++)); do
	p=${patches[i - 1]}
	name=$(basename "$p")
	git -C "$wt" am -q --keep-cr "$p" >>"$log" 2>&1 || pn_die "patch $name does not apply on the previous ones (see $log)"
	key=$(step_key "$i")
	if [[ -f "$okdir/$key.ok" ]]; then
		printf '%-4s %-66s %-7s %7s %s\n' "$i" "$name" cached "$(sed -n 's/^seconds //p' "$okdir/$key.ok")" \
			"$(sed -n 's/^warnings //p' "$okdir/$key.ok")"
		cached=$((cached + 1))
		continue
	fi
	# every file that differs from what the objects were last built from
	# was rewritten by the reset or by `git am` above: newer, recompiled
	slog=$okdir/step-$i.log
	t0=$(date +%s)
	if ! nice -n 5 make -C "$wt" O="$obj" -j"$jobs" LOCALVERSION=-bisect bzImage >"$slog" 2>&1; then
		printf '%-4s %-66s %-7s %7s\n' "$i" "$name" FAIL "$(($(date +%s) - t0))"
		grep -E 'error|Error' "$slog" | head -n 20 >&2 || true
		pn_log "step $i ($name) does not build; log: $slog"
		exit 1
	fi
	secs=$(($(date +%s) - t0))
	warn=$(grep -c ' warning: ' "$slog" || true)
	printf 'seconds %s\nwarnings %s\npatch %s\n' "$secs" "$warn" "$name" >"$okdir/$key.ok"
	printf '%-4s %-66s %-7s %7s %s\n' "$i" "$name" ok "$secs" "$warn"
	((warn == 0)) || grep ' warning: ' "$slog" | sed 's/^/     /' | head -n 10
	total=$((total + secs))
	built=$((built + 1))
done
pn_log "every step of ${#patches[@]} builds ($built built in ${total} s, $cached cached)"
