#!/usr/bin/env bash
# The layer rule of the C tree (docs/HACKING.md), from its #include lines:
# tests/tools/check-layers.py on this tree finds no upward include, no
# include of a missing file and no circle; and on small trees made here it
# finds each kind of break (so the check itself can fail).  Then the same
# for calls: check-layers.py --objects on the build's core/ objects
# ($PNBENCH_BUILD, else build/; SKIP when it is absent) finds no call
# circle between two .c files, and on scratch objects calling each other it
# finds one.  TAP output.
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
# case_fails DESC PATTERN ROOT [--objects]: the check on ROOT fails and
# prints PATTERN
case_fails() {
	local d=$1 pat=$2 root=$3 got rc
	got=$("$PY" "$CHECK" ${4:+"$4"} "$root" 2>&1)
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

# ---- calls: circles between the objects of core/ (nm) ----
BUILD=${PNBENCH_BUILD:-build}
if ls "$BUILD"/core/*/*.o >/dev/null 2>&1; then
	out=$("$PY" "$CHECK" --objects "$BUILD" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ] && [ -z "$out" ]; then
		ok "no call circle between the modules of core/ ($BUILD)"
	else
		mapfile -t lines <<<"$out"
		notok "no call circle between the modules of core/ (exit $rc)" "${lines[@]}"
	fi
else
	skip "no call circle between the modules of core/" "no objects under $BUILD/core (build first)"
fi

# objs NAME FILE=CALLS...: scratch objects NAME/FILE.o (under core/), FILE
# defining a function named after it that calls each of CALLS
objs() {
	local root=$T/$1 spec f calls c body decl
	shift
	for spec in "$@"; do
		f=${spec%%=*} calls=${spec#*=} body='' decl=''
		mkdir -p "$root/$(dirname "$f")"
		IFS=, read -ra list <<<"$calls"
		for c in "${list[@]}"; do
			[ -n "$c" ] && decl+="void $c(void); " && body+="$c(); "
		done
		printf '%s\nvoid %s(void);\nvoid %s(void) { %s}\n' "$decl" \
			"$(basename "$f")" "$(basename "$f")" "$body" >"$root/$f.c"
		cc -c -o "$root/$f.o" "$root/$f.c" || return 1
	done
	echo "$root"
}
if ! command -v cc >/dev/null || ! command -v nm >/dev/null; then
	skip "scratch objects: the call check finds a circle" "no cc or nm"
else
	r=$(objs down core/sys/lo= core/sys/hi=lo core/runner/top=hi,lo)
	got=$("$PY" "$CHECK" --objects "$r" 2>&1)
	expect "objects calling only down pass" "exit $?: $got" test -z "$got"
	r=$(objs pair core/sys/ping=pong core/sys/pong=ping core/sys/other=ping)
	case_fails "two objects calling each other are found" \
		"object circle: core/sys/ping <-> core/sys/pong" "$r" --objects
	r=$(objs far core/sys/a=b core/sys/b=c core/runner/c=a)
	case_fails "a circle of three objects across folders is found" \
		"object circle: core/runner/c <-> core/sys/a <-> core/sys/b" "$r" --objects
	got=$("$PY" "$CHECK" --objects "$T/none" 2>&1)
	rc=$?
	expect "a build directory without objects is an error (exit 2), not a pass" \
		"exit $rc: $got" test "$rc" -eq 2
fi
echo "1..$n"
