#!/usr/bin/env bash
# The layer rule of the C tree (docs/HACKING.md), from its #include lines:
# tests/tools/check-layers.py on this tree finds no upward include, no
# include of a missing file and no circle; and on small trees made here it
# finds each kind of break (so the check itself can fail).  TAP output.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
PY=/usr/bin/python3
CHECK=tests/tools/check-layers.py
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
T=$(mktemp -d /tmp/pnbench-layers.XXXXXX)
trap 'rm -rf "$T" "$TRUTH_LOG"' EXIT

out=$("$PY" "$CHECK" . 2>&1)
rc=$?
if [ "$rc" -eq 0 ] && [ -z "$out" ]; then
	ok "the tree keeps the layer rule and has no circle"
else
	mapfile -t lines <<<"$out"
	notok "the tree keeps the layer rule and has no circle (exit $rc)" "${lines[@]}"
fi

# tree NAME FILE=INCLUDES... : a scratch tree where FILE includes each of
# INCLUDES (comma-separated header paths)
tree() {
	local root=$T/$1 spec f incs i
	shift
	for spec in "$@"; do
		f=${spec%%=*} incs=${spec#*=}
		mkdir -p "$root/$(dirname "$f")"
		: >>"$root/$f"
		IFS=, read -ra list <<<"$incs"
		for i in "${list[@]}"; do
			[ -n "$i" ] && echo "#include \"$i\"" >>"$root/$f"
		done
	done
	echo "$root"
}
# case DESC PATTERN ROOT: the check on ROOT fails and prints PATTERN
case_fails() {
	local d=$1 pat=$2 root=$3 got rc
	got=$("$PY" "$CHECK" "$root" 2>&1)
	rc=$?
	if [ "$rc" -eq 1 ] && grep -q -- "$pat" <<<"$got"; then
		ok "$d"
	else
		notok "$d" "exit $rc, wanted 1 and \"$pat\"" "$got"
	fi
}

r=$(tree clean core/lib/pn.h= core/sys/procfs.h=core/lib/pn.h core/sys/procfs.c=procfs.h \
	core/api/workload.h=core/lib/pn.h workloads/x.c=core/api/workload.h,core/sys/procfs.h)
got=$("$PY" "$CHECK" "$r" 2>&1)
expect "a tree that keeps the rule passes" "exit $?: $got" test -z "$got"
r=$(tree up core/lib/pn.h=core/sys/procfs.h core/sys/procfs.h=)
case_fails "an upward include (lib -> sys) is found" "core/lib/pn.h: includes core/sys/procfs.h" "$r"
r=$(tree wl core/runner/run.h= core/api/workload.h= workloads/x.c=core/api/workload.h,core/runner/run.h)
case_fails "a workload including the runner is found" "workloads/x.c: includes core/runner/run.h" "$r"
r=$(tree circle core/sys/a.h= core/sys/a.c=b.h core/sys/b.h= core/sys/b.c=a.h)
case_fails "a circle of two modules is found" "circle: core/sys/a <-> core/sys/b" "$r"
r=$(tree stale core/lib/pn.h=core/lib/gone.h)
case_fails "an include of a missing file is found" "names no file of the tree" "$r"
r=$(tree nolayer core/extra/x.c=)
case_fails "a folder without a layer is found" "core/extra/ has no layer" "$r"
echo "1..$n"
