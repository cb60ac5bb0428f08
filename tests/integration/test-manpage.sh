#!/usr/bin/env bash
# pnbench(1): the build makes it from the binary's own help texts
# (scripts/manpage.sh, help2man) and `make install` installs it.  Every
# command `pnbench --help` lists has its section, holding that command's
# help verbatim; groff renders the page without a warning; DESTDIR install
# puts the binary and the page where PREFIX says.  TAP.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
PN=${PNBENCH_BIN:-build/pnbench}
O=$(dirname "$PN")
PAGE=$O/pnbench.1
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
T=$(mktemp -d /tmp/pnbench-man.XXXXXX)
trap 'rm -rf "$T" "$TRUTH_LOG"' EXIT
[[ -x "$PN" ]] || skipall "no $PN (make first)"
[[ -f "$PAGE" ]] || skipall "no $PAGE (make builds it; help2man missing?)"

expect "the page is section 1 and names pnbench" "$(head -c 300 "$PAGE")" grep -q '^\.TH PNBENCH "1"' "$PAGE"
cmds=$("$PN" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ && $1 != "help" {print $1} on && /^$/ {exit}')
expect "pnbench --help lists commands" "got: '$cmds'" test "$(wc -w <<<"$cmds")" -ge 8
for c in $cmds; do
	first=$("$PN" help "$c" 2>&1 | head -n1)
	# the page holds each help text verbatim: roff escapes backslashes as \e
	want=${first//\\/\\e}
	# shellcheck disable=SC2016 # awk's own $0, read from the environment
	expect "section $c with its help's first line" "want '$want'" \
		env C=".SS $c" W="$want" awk '$0 == ENVIRON["C"] {s = 1; next} s && /^\.SS / {exit 1} s && index($0, ENVIRON["W"]) {f = 1; exit} END {exit !f}' "$PAGE"
done
if command -v groff >/dev/null; then
	warn=$(groff -man -Tutf8 -ww -z "$PAGE" 2>&1)
	expect "groff renders the page without a warning" "$warn" test -z "$warn"
	expect "the rendered page has SYNOPSIS and COMMANDS" "" \
		sh -c "groff -man -Tascii -P-bcou '$PAGE' 2>/dev/null | grep -q '^SYNOPSIS' && groff -man -Tascii -P-bcou '$PAGE' 2>/dev/null | grep -q '^COMMANDS'"
else
	skip "groff renders the page" "groff not installed (groff-base)"
	skip "the rendered page has SYNOPSIS and COMMANDS" "groff not installed (groff-base)"
fi
if make -s --no-print-directory install O="$O" DESTDIR="$T/root" PREFIX=/usr >"$T/install.log" 2>&1; then
	expect "make install: the binary in PREFIX/bin" "$(cat "$T/install.log")" test -x "$T/root/usr/bin/pnbench"
	expect "make install: the page in PREFIX/share/man/man1, as built" "" cmp -s "$PAGE" "$T/root/usr/share/man/man1/pnbench.1"
else
	notok "make install DESTDIR=... PREFIX=/usr" "$(tail -5 "$T/install.log")"
fi
echo "1..$n"
[ "$fails" -eq 0 ]
