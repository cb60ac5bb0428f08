#!/bin/bash
# get-base.sh [stock|patched]
#
# Prepare a kernel source tree in the cache and print its path on stdout.
#   stock   - the base: Debian's linux-source-6.12 tarball (installed with
#             apt-get when missing and running as root), or any tree given
#             as KSRC=<dir>. Unpacked once, `git init`ed, committed as "base".
#   patched - a git worktree of the base (branch "patched", link src/patched)
#             with every patch of kernel-series/patches/series applied by
#             `git am` in series order; a changed series re-applies only from
#             the first changed patch. Fails naming the patch that does not apply.
# Progress goes to stderr. Environment: PNBENCH_CACHE, KSRC.
set -euo pipefail
PN_PROG=get-base
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

kind=${1:-stock}
pn_check_kind "$kind"

export GIT_AUTHOR_NAME=pnbench GIT_AUTHOR_EMAIL=pnbench@localhost
export GIT_COMMITTER_NAME=pnbench GIT_COMMITTER_EMAIL=pnbench@localhost

if [[ -z "${KSRC:-}" && ! -f "$PN_DEBIAN_TARBALL" ]]; then
	if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
		pn_log "installing $PN_DEBIAN_PACKAGE with apt-get"
		apt-get install -y "$PN_DEBIAN_PACKAGE" >&2 ||
			pn_die "apt-get install $PN_DEBIAN_PACKAGE failed"
	fi
	[[ -f "$PN_DEBIAN_TARBALL" ]] ||
		pn_die "$PN_DEBIAN_TARBALL missing: install $PN_DEBIAN_PACKAGE (as root) or pass KSRC=<kernel tree>"
fi

mkdir -p "$PN_CACHE/src" || pn_die "cannot create $PN_CACHE/src (set PNBENCH_CACHE to a writable directory)"
exec 9>"$PN_CACHE/src/.lock"
flock 9

base_id=$(pn_base_id)
base=$PN_CACHE/src/base-$base_id

if [[ ! -f "$base/.pnbench-base-ready" ]]; then
	rm -rf "$base" "$base.tmp"
	mkdir -p "$base.tmp"
	if [[ -n "${KSRC:-}" ]]; then
		pn_log "copying $KSRC into $base (excluding .git)"
		tar -C "$KSRC" --exclude=.git -cf - . | tar -C "$base.tmp" -xf -
	else
		pn_log "unpacking $PN_DEBIAN_TARBALL (about a minute)"
		tar -C "$base.tmp" --strip-components=1 -xJf "$PN_DEBIAN_TARBALL"
	fi
	[[ -f "$base.tmp/Makefile" ]] || pn_die "unpacked tree has no top-level Makefile"
	pn_log "committing the base tree to git (about a minute)"
	git -C "$base.tmp" init -q -b base
	git -C "$base.tmp" config core.autocrlf false
	# No background auto-gc: it would repack ~80k objects and hold our lock fd.
	git -C "$base.tmp" config gc.auto 0
	# -f: some tracked upstream files match .gitignore patterns.
	git -C "$base.tmp" add -A -f
	ver=$(make -s --no-print-directory -C "$base.tmp" kernelversion)
	git -C "$base.tmp" commit -q -m "base: Linux $ver ($base_id)"
	mv "$base.tmp" "$base"
	# git records absolute worktree paths; none exist yet, so the move is safe.
	touch "$base/.pnbench-base-ready"
	pn_log "base tree ready: $base (Linux $ver)"
fi

# Sanity: BASE (written by the patch author) should name this version.
if [[ -f "$PN_SERIES_DIR/BASE" ]]; then
	want=$(grep -oE '[0-9]+\.[0-9]+(\.[0-9]+)?' "$PN_SERIES_DIR/BASE" | head -n1 || true)
	have=$(make -s --no-print-directory -C "$base" kernelversion)
	if [[ -n "$want" && "$want" != "$have" ]]; then
		pn_die "kernel-series/BASE names $want but the base tree is $have"
	fi
fi

if [[ "$kind" == stock ]]; then
	printf '%s\n' "$base"
	exit 0
fi

pn_require_patches
# One worktree serves every revision of the series, reached through the
# stable link src/patched. A new revision is applied with `git am` in a
# scratch worktree (src/patched-am); the real worktree then moves to the
# result with `git reset --hard`, which rewrites only files whose content
# differs, so the (equally stable) object directory rebuilds incrementally
# even when every patch file changed cosmetically (re-exported hashes).
# $tree/.pnbench-applied: one line per applied patch, "<sha256> <commit> <name>".
link=$PN_CACHE/src/patched
git -C "$base" worktree prune
if [[ -L "$link" && -e "$(readlink -f "$link")/.git" ]]; then
	tree=$(readlink -f "$link")
else
	tree=$PN_CACHE/src/patched-tree
	rm -rf "$tree"
	git -C "$base" branch -D patched >/dev/null 2>&1 || true
	pn_log "creating worktree $tree"
	git -C "$base" worktree add -q -b patched "$tree" base
	: >"$tree/.pnbench-applied"
	ln -sfn "$(basename "$tree")" "$link"
fi

mapfile -t want < <(pn_series_patches)
wanted=$(for p in "${want[@]}"; do printf '%s %s\n' "$(sha256sum <"$p" | cut -d' ' -f1)" "$(basename "$p")"; done)
applied=$(awk '{ print $1, $3 }' "$tree/.pnbench-applied" 2>/dev/null || true)
last=$(tail -n1 "$tree/.pnbench-applied" 2>/dev/null | cut -d' ' -f2)
if [[ "$wanted" == "$applied" && "$last" == "$(git -C "$tree" rev-parse HEAD)" ]] &&
	git -C "$tree" diff --quiet HEAD; then
	printf '%s\n' "$tree"
	exit 0
fi

scratch=$PN_CACHE/src/patched-am
if [[ ! -e "$scratch/.git" ]]; then
	rm -rf "$scratch"
	pn_log "creating scratch worktree $scratch (once, about a minute)"
	git -C "$base" worktree add -q --detach "$scratch" base
fi
git -C "$scratch" am --abort >/dev/null 2>&1 || true
git -C "$scratch" reset -q --hard base
list=''
for ((i = 0; i < ${#want[@]}; i++)); do
	p=${want[i]}
	pn_log "applying [$((i + 1))] $(basename "$p")"
	if ! git -C "$scratch" am -q --keep-cr "$p" >&2; then
		git -C "$scratch" am --abort >/dev/null 2>&1 || true
		pn_die "patch $((i + 1)) ($(basename "$p")) does not apply to $base_id (on top of the $i before it)"
	fi
	list+="$(sha256sum <"$p" | cut -d' ' -f1) $(git -C "$scratch" rev-parse HEAD) $(basename "$p")"$'\n'
done
new=$(git -C "$scratch" rev-parse HEAD)
git -C "$tree" am --abort >/dev/null 2>&1 || true
pn_log "moving $tree to the new series ($(git -C "$tree" diff --name-only HEAD "$new" | wc -l) files differ)"
git -C "$tree" reset -q --hard "$new"
printf '%s' "$list" >"$tree/.pnbench-applied"
pn_log "applied ${#want[@]} patches: $tree"
printf '%s\n' "$tree"
