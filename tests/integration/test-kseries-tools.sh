#!/usr/bin/env bash
# Two kernel-series tools on made-up inputs, no kernel build: export-series.sh
# on a small git tree (the series and its cover letter leave out the commits
# with a Not-for-upstream: trailer, which go to patches/testbed/ and last in
# series; such a commit before an upstream one is refused and nothing is
# written) and build-profile.py on an object tree with chosen times (the gap
# before each product is charged to its directory, the link stages to
# "link", products older than the configure are left out).  TAP.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
EXPORT=kernel-series/scripts/export-series.sh
PROFILE=kernel-series/scripts/build-profile.py
command -v git >/dev/null || skipall "git is not installed"
T=$(mktemp -d /tmp/pnbench-kseries.XXXXXX)
trap 'rm -rf "$T" "$TRUTH_LOG"' EXIT
export GIT_AUTHOR_NAME=tester GIT_AUTHOR_EMAIL=tester@example.invalid
export GIT_COMMITTER_NAME=tester GIT_COMMITTER_EMAIL=tester@example.invalid

# commit TREE FILE TEXT SUBJECT [TRAILER]
commit() {
	printf '%s\n' "$3" >"$1/$2"
	git -C "$1" add "$2"
	if [ -n "${5:-}" ]; then
		git -C "$1" commit -q -m "$4" -m "Body of $4." -m "$5"
	else
		git -C "$1" commit -q -m "$4" -m "Body of $4."
	fi
}
# tree DIR: a base branch with one file
tree() {
	mkdir -p "$1"
	git -C "$1" init -q -b base
	commit "$1" a.c base "base"
}
cover() {
	mkdir -p "$1"
	cat >"$1/0000-cover-letter.patch" <<'EOF'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: tester <tester@example.invalid>
Subject: [PATCH 0/9] the subject
 of the series

The blurb, kept.

tester (9):
  old
EOF
}

# ---- export-series.sh: upstream commits, then one Not-for-upstream ----
tree "$T/good"
git -C "$T/good" checkout -q -b dev
commit "$T/good" a.c one "mm: first change"
commit "$T/good" b.c two "mm: second change"
commit "$T/good" c.c model "testbed: a comparison model" "Not-for-upstream: testbed comparison model"
cover "$T/p"
PN_PATCH_DIR="$T/p" $EXPORT "$T/good" base >"$T/good.out" 2>&1
rc=$?
expect "export-series.sh exits 0" "rc=$rc: $(tail -n 2 "$T/good.out")" [ $rc -eq 0 ]
series=$(tr '\n' '|' <"$T/p/series" 2>/dev/null)
want="0001-mm-first-change.patch|0002-mm-second-change.patch|# not for upstream: the testbed's comparison models, applied after the series|testbed/0001-testbed-a-comparison-model.patch|"
expect "series lists the upstream patches, then the marked one from testbed/" "series: $series" [ "$series" = "$want" ]
expect "the marked commit is not among the mailed patches" "$(ls "$T/p")" [ ! -e "$T/p/0003-testbed-a-comparison-model.patch" ]
expect "the cover letter counts the upstream patches only: [PATCH 0/2]" "$(grep '^Subject' "$T/p/0000-cover-letter.patch")" \
	grep -q '^Subject: \[PATCH 0/2\] the subject of the series' "$T/p/0000-cover-letter.patch"
expect "the cover letter keeps its blurb and leaves the marked commit out of the shortlog" "$(sed -n '/blurb/,$p' "$T/p/0000-cover-letter.patch" | head -n 8)" \
	sh -c "grep -q 'The blurb, kept.' '$T/p/0000-cover-letter.patch' && grep -q 'tester (2):' '$T/p/0000-cover-letter.patch' && ! grep -q 'comparison model' '$T/p/0000-cover-letter.patch'"
expect "the marked commit's patch says NOT-FOR-UPSTREAM" "$(grep '^Subject' "$T/p/testbed/"*.patch)" \
	grep -q '^Subject: \[PATCH NOT-FOR-UPSTREAM\] testbed: a comparison model' "$T/p/testbed/0001-testbed-a-comparison-model.patch"

# ---- a marked commit before an upstream one is refused, nothing written ----
tree "$T/bad"
git -C "$T/bad" checkout -q -b dev
commit "$T/bad" a.c one "mm: first change"
commit "$T/bad" c.c model "testbed: a comparison model" "Not-for-upstream: testbed comparison model"
commit "$T/bad" b.c two "mm: late change"
before=$(cd "$T/p" && find . -type f -exec sha256sum {} + | sort)
PN_PATCH_DIR="$T/p" $EXPORT "$T/bad" base >"$T/bad.out" 2>&1
rc=$?
expect "an upstream commit after a Not-for-upstream one: non-zero exit naming it" "rc=$rc: $(cat "$T/bad.out")" \
	sh -c "[ $rc -ne 0 ] && grep -q 'mm: late change' '$T/bad.out'"
after=$(cd "$T/p" && find . -type f -exec sha256sum {} + | sort)
expect "the refused export leaves patches/ as it was" "files changed" [ "$before" = "$after" ]

# ---- build-profile.py ----
o=$T/obj
mkdir -p "$o/mm" "$o/drivers/acpi/acpica" "$o/arch/x86/boot" "$o/fs"
t0=1700000000
at() { touch -d "@$((t0 + $1))" "$o/$2"; }
touch "$o/mm/a.o" "$o/mm/b.o" "$o/drivers/acpi/acpica/x.o" "$o/vmlinux" "$o/arch/x86/boot/bzImage" "$o/fs/old.o" "$o/.config"
at -50 fs/old.o
at 0 .config
at 10 mm/a.o
at 12 mm/b.o
at 20 drivers/acpi/acpica/x.o
at 24 vmlinux
at 25 arch/x86/boot/bzImage
out=$(/usr/bin/python3 $PROFILE --depth 2 "$o" 2>&1)
rc=$?
row() { awk -v d="$1" 'index($0, d) == 1 { print $(NF - 2), $NF }' <<<"$out"; }
expect "build-profile exits 0" "rc=$rc: $out" [ $rc -eq 0 ]
expect "mm is charged the gaps before its two products: 12 s" "$(row mm)" [ "$(row mm)" = "12.0 2" ]
expect "drivers/acpi (depth 2) is charged 8 s" "$(row drivers/acpi)" [ "$(row drivers/acpi)" = "8.0 1" ]
expect "vmlinux and bzImage are charged to link: 5 s" "$(row link)" [ "$(row link)" = "5.0 2" ]
expect "a product older than the configure is left out: total 25 s over 5" "$(row total)" [ "$(row total)" = "25.0 5" ]
/usr/bin/python3 $PROFILE "$T" >/dev/null 2>"$T/prof.err"
rc=$?
expect "a directory without .config: exit 2, named" "rc=$rc: $(cat "$T/prof.err")" \
	sh -c "[ $rc -eq 2 ] && grep -q 'no .config' '$T/prof.err'"

truth_report
echo "1..$n"
[ "$fails" -eq 0 ]
