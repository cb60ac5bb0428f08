#!/usr/bin/env bash
# Result files are never written through what is planted in the results
# directory: a symlink named vmstat.csv, run.json or topology.xml leaves its
# target untouched, a FIFO does not hang the run; each is refused naming the
# file, exit 2.  A -o that is itself a symlink is refused, naming its target.
# With --force, an earlier run's CSV that is a hard link of another file is
# replaced, not written through.
# shellcheck source=tests/hostile/lib.sh
. "$(dirname "$0")/lib.sh"
need_root "results directories of root's runs"
cfg=$T/c.json
cat >"$cfg" <<'EOF'
{"name": "hostile-files", "nodes": {"private": "", "dram": "auto"},
 "collectors": {"interval": "100ms", "enabled": ["vmstat", "nodestat"]},
 "phases": [{"name": "p", "workloads": [
   {"workload": "explicit", "params": {"size": "4M", "chunk": "1M", "nodes": "dram"}}]}]}
EOF
echo precious >"$T/target"
for f in vmstat.csv run.json topology.xml; do
	d=$T/sym-${f%%.*}
	mkdir "$d"
	ln -s "$T/target" "$d/$f"
	timeout 60 "$PN" run -q -o "$d" "$cfg" >/dev/null 2>"$d.err"
	rc=$?
	expect "a $f symlink planted in -o: exit $rc (2), target untouched, the error names $f" \
		"rc=$rc target=$(cat "$T/target") $(tail -n 2 "$d.err")" \
		test $rc -eq 2 -a "$(cat "$T/target")" = precious -a -n "$(grep -F "$d/$f" "$d.err")"
done
d=$T/fifo
mkdir "$d"
mkfifo "$d/nodestat.csv"
timeout 60 "$PN" run -q -o "$d" "$cfg" >/dev/null 2>"$d.err"
rc=$?
expect "a nodestat.csv FIFO: exit $rc (2, not a hang: 124), the error names it" \
	"rc=$rc $(tail -n 2 "$d.err")" test $rc -eq 2 -a -n "$(grep -F "$d/nodestat.csv" "$d.err")"
d=$T/fifojson
mkdir "$d"
mkfifo "$d/run.json"
timeout 60 "$PN" run -q -o "$d" "$cfg" >/dev/null 2>"$d.err"
rc=$?
expect "a run.json FIFO: exit $rc (2), the error names it" \
	"rc=$rc $(tail -n 2 "$d.err")" test $rc -eq 2 -a -n "$(grep -F "$d/run.json" "$d.err")"

# -o itself a symlink to a directory: refused, nothing written into the target
mkdir "$T/real"
ln -s "$T/real" "$T/link"
pnrun run -q -o "$T/link" "$cfg" >/dev/null 2>"$T/link.err"
rc=$?
expect "-o a symlink: exit $rc (2), refused naming its target, nothing written there" \
	"rc=$rc $(ls "$T/real") $(tail -n 2 "$T/link.err")" \
	test $rc -eq 2 -a -z "$(ls "$T/real")" -a -n "$(grep -F "$T/real" "$T/link.err")"

# --force over an earlier run whose vmstat.csv is a hard link of another file
d=$T/force
pnrun run -q -o "$d" "$cfg" >/dev/null 2>&1
rm -f "$d/vmstat.csv"
ln "$T/target" "$d/vmstat.csv"
pnrun run -q --force -o "$d" "$cfg" >/dev/null 2>"$d.err"
rc=$?
val=$($PY "$VALIDATE" "$d" 2>&1)
vrc=$?
expect "--force over a hard-linked vmstat.csv: exit $rc, the other name keeps its contents, results valid" \
	"rc=$rc target=$(cat "$T/target") $val $(tail -n 2 "$d.err")" \
	test $rc -eq 0 -a "$(cat "$T/target")" = precious -a $vrc -eq 0
expect "no temporary file left in the results directory" "$(ls "$d")" \
	test -z "$(find "$d" -name '*.tmp*')"
# A full disk: the error says so (ENOSPC), not "Input/output error"
mkdir "$T/full"
if mount -t tmpfs -o size=4k pnbench-full "$T/full" 2>/dev/null; then
	pnrun run -q -o "$T/full/r" "$cfg" >/dev/null 2>"$T/full.err"
	rc=$?
	expect "results on a full filesystem: exit $rc (3), the error says No space left on device" \
		"rc=$rc $(head -n 2 "$T/full.err")" \
		test $rc -eq 3 -a -n "$(grep -F "No space left on device" "$T/full.err")"
	umount "$T/full"
else
	skip "results on a full filesystem" "cannot mount a tmpfs here"
fi
truth_report
echo "1..$n"
