#!/usr/bin/env bash
# pack-source.sh REPO CACHE_DIR: the tracked files of the pnbench checkout
# REPO as they are in the work tree (uncommitted edits included, untracked
# files not), packed once per source tree id as CACHE_DIR/pnbench-ID.tar.gz
# whose top directory is ID.  Prints: ID TARBALL new|present.
set -euo pipefail
repo=$1 cache=$2
if ! git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
	echo "pack-source: $repo: not a git checkout (the build mode ships its tracked files)" >&2
	exit 2
fi
commit=$(git -C "$repo" stash create 2>/dev/null || true)
[ -n "$commit" ] || commit=$(git -C "$repo" rev-parse HEAD)
id=$(git -C "$repo" rev-parse "$commit^{tree}")
out=$cache/pnbench-$id.tar.gz
if [ -f "$out" ]; then
	echo "$id $out present"
	exit 0
fi
mkdir -p "$cache"
git -C "$repo" archive --format=tar.gz --prefix="$id/" -o "$out.tmp.$$" "$commit"
mv "$out.tmp.$$" "$out"
echo "$id $out new"
