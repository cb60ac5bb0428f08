# shellcheck shell=bash
# Sourced by the integration scripts (after PN is set): the TAP helpers (ok,
# notok, skip, expect; skipall ends a script that cannot run here; json
# prints a field of a JSON file; fails counts the not-ok lines) and pnrun,
# the one way they run pnbench in the foreground.  pnrun runs "$PN" ARGS
# and, when the run wrote a run.json under its -o DIR, checks that the
# file's verdict.exit_code is the exit status the process returned (one exit
# truth); truth_report, called before the plan line, turns what it saw into
# one test.  A run.json the run did not write (refused before it, an older
# one) or a verdict still "incomplete" (a run killed mid-phase) is not
# checked.  pnrun runs in the script's own shell (not in $(...) or a
# pipeline): its log is made on the first call, so sourcing this file
# leaves nothing behind.
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() {
	n=$((n + 1))
	fails=$((fails + 1))
	echo "not ok $n - $1"
	shift
	local l
	for l in "$@"; do echo "#   $l"; done
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
skipall() { echo "1..0 # SKIP $*"; exit 4; }
expect() { # expect DESC DETAIL CMD...: ok when CMD succeeds, else DETAIL
	local d=$1 detail=$2
	shift 2
	if "$@"; then ok "$d"; else notok "$d" "$detail"; fi
}
# json FILE EXPR: print EXPR of the JSON document d in FILE
json() { ${PY:-/usr/bin/python3} -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null; }

TRUTH_LOG=
TRUTH_N=0
pnrun() {
	local rc out='' prev='' a got before=none
	for a in "$@"; do
		case $prev in -o | --output) out=$a ;; esac
		case $a in --output=*) out=${a#--output=} ;; -o?*) out=${a#-o} ;; esac
		prev=$a
	done
	# what was there before: a run.json the run writes is a new file (an
	# atomic rename: another inode), whatever the clock's granularity
	[ -n "$TRUTH_LOG" ] || TRUTH_LOG=$(mktemp /tmp/pnbench-truth.XXXXXX)
	[ -n "$out" ] && before=$(stat -c '%i %y' "$out/run.json" 2>/dev/null || echo none)
	"$PN" "$@"
	rc=$?
	if [ -n "$out" ] && [ -f "$out/run.json" ] &&
		[ "$(stat -c '%i %y' "$out/run.json" 2>/dev/null)" != "$before" ]; then
		got=$(/usr/bin/python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))["verdict"].get("exit_code")
print("null" if v is None else v)' "$out/run.json" 2>/dev/null)
		if [ "$got" != null ]; then
			TRUTH_N=$((TRUTH_N + 1))
			[ "$got" = "$rc" ] ||
				echo "pnbench $*: exit $rc, run.json verdict.exit_code ${got:-unreadable}" >>"$TRUTH_LOG"
		fi
	fi
	return $rc
}
truth_report() {
	local d="run.json's verdict.exit_code is the process's exit status in each of the $TRUTH_N runs checked"
	if [ -n "$TRUTH_LOG" ] && [ -s "$TRUTH_LOG" ]; then
		notok "$d" "$(cat "$TRUTH_LOG")"
	elif [ "$TRUTH_N" -gt 0 ]; then
		ok "$d"
	fi
	[ -z "$TRUTH_LOG" ] || rm -f "$TRUTH_LOG"
}
