#!/usr/bin/env bash
# The offline half of `make -C kernel-series fault-trace`, no guest, no gdb:
# kernel-series/bench/fault-trace-stats.py on a tiny synthetic System.map,
# an nm listing and PC lists (per-function instructions, calls, entries,
# rep iterations, the faulting user store, several periods, the typical
# fault, aliases at one address, a PC below every symbol), the A-vs-B diff (sorted by |B-A|, top N
# and the rest, totals, functions on one side only, identical tables),
# malformed input named by file:line; faultbench's FAULTBENCH_ADDR (built
# with -Wall -Wextra -Werror; SKIP where static linking is not possible).  TAP.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
PY=/usr/bin/python3
STATS=kernel-series/bench/fault-trace-stats.py
# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
[ -x "$PY" ] || skipall "no $PY"
T=$(mktemp -d /tmp/pnbench-ftrace-test.XXXXXX)
trap 'rm -rf "$T" "$TRUTH_LOG"' EXIT

cat >"$T/System.map" <<'EOF'
ffffffff81000000 T _stext
ffffffff81000000 T func_a
ffffffff81000030 t __pfx_func_b
ffffffff81000040 t func_b
ffffffff81000080 T clear_page_rep
ffffffff810000c0 D some_data
ffffffff81000100 T func_c
EOF
cat >"$T/user.nm" <<'EOF'
0000000000401000 T main
0000000000402000 T exit
EOF
# one period: the user loop, the store at 401008 faults, func_a calls
# func_b, then clear_page_rep (rep stosq: 3 steps at 82), back to the user
# store (retried).  some_data is no text symbol: 0xc4 is clear_page_rep's.
period() {
	printf '%s\n' 401000 401004 401008 \
		ffffffff81000000 ffffffff81000004 ffffffff81000040 ffffffff81000044 ffffffff81000048 \
		ffffffff81000008 ffffffff81000080 ffffffff81000082 ffffffff81000082 ffffffff81000082 \
		ffffffff810000c4 ffffffff8100000c 401008
}
{
	echo "# row dram base 0x7e0000000000 first_page 100 faults 2"
	echo "# period 0 page 100 addr 0x7e0000064000 steps 16"
	period
	echo "# period 1 page 101 addr 0x7e0000065000 steps 16"
	period
} >"$T/a.pcs"

out=$("$PY" "$STATS" table --map "$T/System.map" --user-map "$T/user.nm" --label "A test" \
	--tsv "$T/a.tsv" "$T/a.pcs" 2>&1)
rc=$?
expect "table: exit 0" "exit $rc: $out" test "$rc" -eq 0
printf '%s\n' "$out" >"$T/a.out"
# row FUNCTION: the table row with runs of blanks made one space
row() { awk -v f="$1" '$1 == f { $1 = $1; print }' "$T/a.out"; }
got=$(row func_a)
expect "func_a: 8 insns, 4.0 per fault, 2 calls, 6 entries (a call and 2 returns a period)" \
	"got: $got" test "$got" = "func_a 8 4.0 2 6 0"
got=$(row func_b)
expect "func_b: 3 per fault, one call each period (its __pfx_ label is not a function)" \
	"got: $got" test "$got" = "func_b 6 3.0 2 2 0"
got=$(row clear_page_rep)
expect "clear_page_rep: the rep iterations are steps and counted apart; a data symbol does not split it" \
	"got: $got" test "$got" = "clear_page_rep 10 5.0 2 2 4"
got=$(row user:main)
expect "user PCs resolved with the nm listing; the store stepped twice (faulting try, retry)" \
	"got: $got" test "$got" = "user:main 8 4.0 0 2 0"
got=$(row total)
expect "total: 32 steps, 16.0 per fault, 4 rep iterations" "got: $got" test "$got" = "total 32 16.0 4"
expect "the faulting user store is named as not in -icount; equivalent 15.0 per fault" "$out" \
	grep -q "faulting user instructions stepped (not retired, not in -icount): 2; -icount equivalent 30 (15.0 per fault)" "$T/a.out"
expect "steps per period listed" "$out" grep -qx "# steps per fault: 16 16" "$T/a.out"
expect "no interrupt symbol in the trace" "$out" grep -qx "# interrupt/softirq symbols in the trace: none" "$T/a.out"
if grep -q "^_stext" "$T/a.out"; then notok "an alias: _stext is a section marker, func_a is named" "$out"; else ok "an alias: _stext is a section marker, func_a is named"; fi

# B: func_b 3 more per fault, clear_page_rep 1 less, func_d new (1), an
# interrupt entry symbol, a PC below every symbol
cat >>"$T/System.map" <<'EOF'
ffffffff81000200 T func_d
ffffffff81000300 T asm_sysvec_apic_timer_interrupt
EOF
{
	echo "# period 0 page 100"
	printf '%s\n' 401000 401004 401008 ffffffff81000000 ffffffff81000004 \
		ffffffff81000040 ffffffff81000044 ffffffff81000048 ffffffff8100004c ffffffff81000050 ffffffff81000054 \
		ffffffff81000008 ffffffff81000080 ffffffff81000082 ffffffff81000082 \
		ffffffff81000200 ffffffff8100000c 401008
} >"$T/b.pcs"
"$PY" "$STATS" table --map "$T/System.map" --user-map "$T/user.nm" --label "B test" \
	--tsv "$T/b.tsv" "$T/b.pcs" >"$T/b.out" 2>&1
expect "table B: exit 0" "$(cat "$T/b.out")" test $? -eq 0
out=$("$PY" "$STATS" diff --top 2 "$T/a.tsv" "$T/b.tsv" 2>&1)
rc=$?
printf '%s\n' "$out" >"$T/diff.out"
expect "diff: exit 0" "exit $rc: $out" test "$rc" -eq 0
drow() { awk -v f="$1" 'index($0, f) == 1 { $1 = $1; print }' "$T/diff.out"; }
got=$(awk '!/^#/ && NR > 2 { print $1; exit }' "$T/diff.out")
expect "the largest |B-A| first: func_b" "$out" test "$got" = func_b
got=$(drow func_b)
expect "per fault values: A 3.0, B 6.0, +3.0 (A has 2 faults, B 1)" "got: $got" test "$got" = "func_b 3.0 6.0 +3.0"
got=$(drow clear_page_rep)
expect "then clear_page_rep: -2.0 (one rep iteration and its last instruction less)" "got: $got" \
	test "$got" = "clear_page_rep 5.0 3.0 -2.0"
got=$(drow "(other")
expect "the rows past --top are one (other N functions) row" "got: $got" \
	test "$got" = "(other 3 functions) 8.0 9.0 +1.0"
got=$(drow total)
expect "totals: 16.0 vs 18.0, +2.0" "got: $got" test "$got" = "total 16.0 18.0 +2.0"
expect "-icount equivalent line (less one faulting store each)" "$out" \
	grep -q "^-icount equivalent  *15.0  *17.0  *+2.0" "$T/diff.out"
expect "a function only in B is named" "$out" grep -qx "# only in B: func_d" "$T/diff.out"
expect "differences are counted" "$out" grep -qx "# differences in 3 function(s)" "$T/diff.out"
out=$("$PY" "$STATS" diff "$T/a.tsv" "$T/a.tsv" 2>&1)
expect "the same table twice: identical" "$out" \
	grep -q "^# identical: every function's insns, calls, entries and rep are the same" <<<"$out"
# the same fault traced once and twice: the same per fault, other counts
{ echo "# period 0"; period; echo "# period 1"; period; } >"$T/two.pcs"
{ echo "# period 0"; period; } >"$T/one-only.pcs"
"$PY" "$STATS" table --map "$T/System.map" --tsv "$T/two.tsv" "$T/two.pcs" >/dev/null 2>&1
"$PY" "$STATS" table --map "$T/System.map" --tsv "$T/one-only.tsv" "$T/one-only.pcs" >/dev/null 2>&1
out=$("$PY" "$STATS" diff "$T/one-only.tsv" "$T/two.tsv" 2>&1)
expect "one fault vs the same fault twice: identical per fault, the fault counts named" "$out" \
	grep -qx "# identical per fault: every function's insns per fault are the same (1 and 2 faults)" <<<"$out"
# one fault each: integers
head -n 18 "$T/a.pcs" >"$T/one.pcs"
"$PY" "$STATS" table --map "$T/System.map" --user-map "$T/user.nm" --tsv "$T/one.tsv" "$T/one.pcs" >/dev/null 2>&1
out=$("$PY" "$STATS" diff "$T/one.tsv" "$T/b.tsv" 2>&1)
expect "one fault on each side: whole numbers" "$out" grep -q "^func_b  *3  *6  *+3$" <<<"$out"

# --typical: the most common PC sequence of the periods (two of three here)
{
	echo "# period 0"; period
	echo "# period 1"; printf '%s\n' 401000 ffffffff81000000 ffffffff81000100 ffffffff81000104 401000
	echo "# period 2"; period
} >"$T/mixed.pcs"
out=$("$PY" "$STATS" table --map "$T/System.map" --user-map "$T/user.nm" --typical "$T/mixed.pcs" 2>&1)
if grep -q "^# typical fault: the 2 of 3 traced faults whose PCs are the most common sequence" <<<"$out" &&
	grep -q "^# faults 2, steps 32 (16.0 per fault)" <<<"$out" && grep -qx "# steps per fault: 16 5 16" <<<"$out" &&
	! grep -q "^func_c " <<<"$out"; then
	ok "--typical keeps the faults of the most common PC sequence (every period's steps still listed)"
else
	notok "--typical keeps the faults of the most common PC sequence (every period's steps still listed)" "$out"
fi
out=$("$PY" "$STATS" table --map "$T/System.map" --user-map "$T/user.nm" "$T/mixed.pcs" 2>&1)
expect "without --typical every fault counts: 37 steps over 3" "$out" \
	grep -q "^# faults 3, steps 37 (12.3 per fault)" <<<"$out"

# without --user-map every user PC is "user"
out=$("$PY" "$STATS" table --map "$T/System.map" "$T/one.pcs" 2>&1)
expect "no nm listing: user PCs are one 'user' row" "$out" grep -q "^user  *4 " <<<"$out"
{ echo "# period 0"; echo ffffffff80000000; } >"$T/low.pcs"
out=$("$PY" "$STATS" table --map "$T/System.map" "$T/low.pcs" 2>&1)
expect "a kernel PC below every symbol is [unknown]" "$out" grep -q "^\[unknown\]  *1 " <<<"$out"
{ echo "# period 0"; printf '%s\n' ffffffff81000300 ffffffff81000304; } >"$T/irq.pcs"
out=$("$PY" "$STATS" table --map "$T/System.map" "$T/irq.pcs" 2>&1)
expect "an interrupt entry in the trace is named" "$out" \
	grep -q "^# interrupt/softirq symbols in the trace: asm_sysvec_apic_timer_interrupt$" <<<"$out"

# malformed input
printf '# period 0\nffffffff81000000\nzzz\n' >"$T/bad.pcs"
out=$("$PY" "$STATS" table --map "$T/System.map" "$T/bad.pcs" 2>&1)
rc=$?
expect "a bad PC: exit 1, named by file:line" "exit $rc: $out" \
	test "$rc" -eq 1 -a -n "$(grep "bad.pcs:3: not a hex PC: 'zzz'" <<<"$out")"
printf 'ffffffff81000000 D data\n' >"$T/nodata.map"
out=$("$PY" "$STATS" table --map "$T/nodata.map" "$T/a.pcs" 2>&1)
expect "a map without text symbols is refused" "$out" grep -q "no text symbols" <<<"$out"
printf 'ffffffff81000000 T\n' >"$T/short.map"
out=$("$PY" "$STATS" table --map "$T/short.map" "$T/a.pcs" 2>&1)
expect "a short map line is named by file:line" "$out" grep -q "short.map:1: not a 'address type name' line" <<<"$out"
printf '# faults\t1\nfunc_a\t1\t2\n' >"$T/bad.tsv"
out=$("$PY" "$STATS" diff "$T/bad.tsv" "$T/a.tsv" 2>&1)
expect "a short TSV line is named" "$out" grep -q "bad.tsv:2: 3 fields, want 5" <<<"$out"
printf '# only comments\n' >"$T/empty.pcs"
out=$("$PY" "$STATS" table --map "$T/System.map" "$T/empty.pcs" 2>&1)
expect "no PCs: exit 1" "$out" grep -q "empty.pcs: no PCs" <<<"$out"
"$PY" "$STATS" >/dev/null 2>&1
expect "no subcommand: usage, exit 2" "exit $?" test $? -eq 2

# faultbench: -Wall -Wextra -Werror, FAULTBENCH_ADDR
if gcc -static -O2 -Wall -Wextra -Werror -o "$T/faultbench" kernel-series/bench/faultbench.c 2>"$T/cc.err"; then
	ok "faultbench builds with -Wall -Wextra -Werror"
	out=$(FAULTBENCH_ADDR=0x7e0000000000 "$T/faultbench" 1 2 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ] && [ "$(grep -c '^R fault round=[01] node=-1 pages=256 on_node=[0-9]* tsc=[0-9]* ns=[0-9]*$' <<<"$out")" -eq 2 ]; then
		ok "FAULTBENCH_ADDR: two rounds at the fixed address, the same output lines"
	else
		notok "FAULTBENCH_ADDR: two rounds at the fixed address, the same output lines" "exit $rc" "$out"
	fi
	out=$(FAULTBENCH_ADDR=0x7e0000000001 "$T/faultbench" 1 1 2>&1)
	expect "FAULTBENCH_ADDR not page aligned: exit 2" "exit $?: $out" test $? -eq 2
else
	skip "faultbench builds with -Wall -Wextra -Werror" "no static libc here: $(head -n1 "$T/cc.err")"
	skip "FAULTBENCH_ADDR runs" "faultbench not built"
	skip "FAULTBENCH_ADDR not page aligned" "faultbench not built"
fi
"$PY" -c 'import sys; compile(open(sys.argv[1]).read(), sys.argv[1], "exec")' \
	kernel-series/bench/fault-trace.py 2>"$T/py.err"
expect "the gdb helper compiles" "$(cat "$T/py.err")" test ! -s "$T/py.err"
echo "1..$n"
