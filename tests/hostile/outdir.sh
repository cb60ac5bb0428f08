#!/usr/bin/env bash
# Output directories that are no place for results: "" and a name longer
# than PATH_MAX are usage errors (exit 2) that create nothing; a -o inside
# cgroupfs, tracefs or procfs is refused before a mkdir there makes a cgroup
# or a tracing instance.  `pnbench vm` checks its arguments (an option
# without its value, a --kernel that is no kernel image) before it makes -o,
# and refuses a symlinked -o.  The fleet role's files are made with O_EXCL,
# and the controller unpacks into a directory of its own (mkdtemp).
# tracefs and debugfs mounted by a run are unmounted at its end.
# shellcheck source=tests/hostile/lib.sh
. "$(dirname "$0")/lib.sh"
need_root "mkdir in cgroupfs and tracefs is what is refused"
cfg=$T/c.json
echo '{"name": "hostile-outdir", "phases": [{"name": "p", "workloads": []}]}' >"$cfg"
cg=/sys/fs/cgroup/memory/pnbench-hostile-$$
tr=/sys/kernel/tracing/instances/pnbench-hostile-$$
trap 'rmdir "$cg/sub" "$cg" "$tr" 2>/dev/null; cleanup_host' EXIT

pnrun run -q -o "" "$cfg" >/dev/null 2>"$T/e.err"
rc=$?
expect "-o \"\": exit $rc (2), says so" "$(cat "$T/e.err")" \
	test $rc -eq 2 -a -n "$(grep -F 'empty directory name' "$T/e.err")"

long=$T/$(printf 'd%.0s' $(seq 250))
for _ in $(seq 17); do long=$long/$(printf 'd%.0s' $(seq 250)); done
pnrun run -q -o "$long" "$cfg" >/dev/null 2>"$T/l.err"
rc=$?
made=$(find "$T" -mindepth 1 -type d | wc -l)
expect "-o of ${#long} bytes: exit $rc (2), nothing created ($made directories)" "$(cat "$T/l.err")" \
	test $rc -eq 2 -a "$made" = 0

for d in "$cg" "$cg/sub" "$tr" /proc/pnbench-hostile-$$; do
	case $d in
	"$cg"*) fs=/sys/fs/cgroup/memory ;;
	"$tr") fs=${tr%/*} ;;
	*) fs=/proc ;;
	esac
	[ -d "$fs" ] || { skip "-o $d refused" "no $fs here"; continue; }
	pnrun run -q -o "$d" "$cfg" >/dev/null 2>"$T/p.err"
	rc=$?
	expect "-o $d: exit $rc (2), refused by filesystem type, not created" "$(cat "$T/p.err")" \
		test $rc -eq 2 -a ! -e "$d" -a ! -e "$cg" -a -n "$(grep -F 'real filesystem' "$T/p.err")"
done

# ---- pnbench vm: arguments first, then the directory ----
PNV=("$PN" vm)
"${PNV[@]}" --kernel >/dev/null 2>"$T/v1.err"
rc=$?
expect "pnbench vm --kernel (no value): exit $rc (2), a message, not a shell error" "$(cat "$T/v1.err")" \
	test $rc -eq 2 -a -n "$(grep -F -- '--kernel needs a value' "$T/v1.err")"
"${PNV[@]}" -o "$T/vm1" --kernel /etc/passwd --exec /bin/true >/dev/null 2>"$T/v2.err"
rc=$?
expect "pnbench vm --kernel /etc/passwd: exit $rc (2), not a kernel image, -o not created" \
	"$(cat "$T/v2.err")" \
	test $rc -eq 2 -a ! -e "$T/vm1" -a -n "$(grep -F 'not a kernel boot image' "$T/v2.err")"
"${PNV[@]}" -o "$T/vm2" --topology nosuch --exec /bin/true >/dev/null 2>"$T/v3.err"
rc=$?
expect "pnbench vm with a bad --topology: exit $rc (2), -o not created" "$(cat "$T/v3.err")" \
	test $rc -eq 2 -a ! -e "$T/vm2"
mkdir "$T/vmreal"
ln -s "$T/vmreal" "$T/vmlink"
"${PNV[@]}" -o "$T/vmlink" --kernel stock --exec /bin/true >/dev/null 2>"$T/v4.err"
rc=$?
expect "pnbench vm -o SYMLINK: exit $rc (2), refused naming its target" "$(cat "$T/v4.err")" \
	test $rc -eq 2 -a -n "$(grep -F "is a symlink (to $T/vmreal)" "$T/v4.err")"

# ---- the fleet role packs without following a planted symlink ----
mkdir -p "$T/fleet/NAME"
echo '{"pnbench_rc": 0}' >"$T/fleet/NAME/fleet.json"
echo precious >"$T/target"
ln -s "$T/target" "$T/fleet/NAME.tar.gz.tmp"
$PY - "$T/fleet/NAME" >"$T/f.out" 2>&1 <<'EOF'
import importlib.machinery, sys
m = importlib.machinery.SourceFileLoader("fleet_run", "fleet/roles/pnbench/files/fleet-run.py").load_module()
try:
    m.pack(sys.argv[1], 0, "packed")
except OSError as e:
    print("refused:", e)
EOF
expect "fleet-run.py: a symlink planted at NAME.tar.gz.tmp is refused, its target untouched" \
	"$(cat "$T/f.out")" test "$(cat "$T/target")" = precious -a -n "$(grep refused "$T/f.out")"

# land.py (the controller) unpacks into a directory of its own: a symlink
# planted under the name it used to pick (.NAME.landing-PID; exec keeps the
# pid of the sh that plants it) is not extracted through
mkdir -p "$T/evil/NAME" "$T/dest"
echo precious >"$T/evil/NAME/fleet.json"
cp "$T/fleet/NAME/fleet.json" "$T/fleet/NAME/run.json"
rm -f "$T/fleet/NAME.tar.gz.tmp"
$PY -c 'import importlib.machinery, sys
importlib.machinery.SourceFileLoader("fleet_run", "fleet/roles/pnbench/files/fleet-run.py").load_module().pack(sys.argv[1], 0, "packed")' \
	"$T/fleet/NAME" >/dev/null 2>&1
LAND=${LAND:-fleet/scripts/land.py}
# shellcheck disable=SC2016 # expanded by the inner sh
sh -c 'ln -s "$1/evil" "$1/dest/.NAME.landing-$$"; exec "$2" "$3" "$1/fleet/NAME.tar.gz" "$1/dest" NAME' \
	sh "$T" "$PY" "$LAND" >"$T/land.out" 2>&1
expect "land.py: a symlink planted at its landing name is not extracted through" \
	"$(cat "$T/land.out"; ls -RA "$T/evil")" \
	test "$(cat "$T/evil/NAME/fleet.json" 2>&1)" = precious -a -f "$T/dest/NAME/run.json"

# ---- tracefs and debugfs: a run unmounts what it mounted ----
if ! "$PN" list 2>/dev/null | grep -q '^  perf  *ok'; then
	skip "tracefs and debugfs mounted by a run are unmounted at its end" "no perf collector here"
elif ! command -v unshare >/dev/null; then
	skip "tracefs and debugfs mounted by a run are unmounted at its end" "no unshare(1)"
else
	cat >"$T/perf.json" <<'EOF'
{"name": "hostile-mounts", "nodes": {"private": "", "dram": "auto"},
 "collectors": {"enabled": ["perf"]},
 "phases": [{"name": "p", "workloads": [
   {"workload": "explicit", "params": {"size": "4M", "chunk": "1M", "nodes": "dram"}}]}]}
EOF
	# a mount namespace of its own, without tracefs and debugfs: the host's
	# mounts are not touched
	# shellcheck disable=SC2016 # expanded by the inner sh
	unshare -m --propagation private sh -c '
		umount -l /sys/kernel/debug 2>/dev/null; umount -l /sys/kernel/tracing 2>/dev/null
		before=$(grep -cE " /sys/kernel/(debug|tracing)" /proc/self/mounts)
		"$1" run -q -o "$2/perf" "$2/perf.json" >/dev/null 2>"$2/perf.err"
		echo "rc=$? before=$before after=$(grep -cE " /sys/kernel/(debug|tracing)" /proc/self/mounts)"
	' sh "$PN" "$T" >"$T/ns.out" 2>&1
	res=$(cat "$T/ns.out")
	perf_st=$(json "$T/perf/run.json" '[c["status"] for c in d["collectors"] if c["collector"] == "perf"][0]')
	expect "a run with the perf collector ($perf_st) unmounts the tracefs/debugfs it mounted ($res)" \
		"$res $(tail -n 3 "$T/perf.err")" \
		test "$perf_st" = ok -a -n "$(grep -E 'before=0 after=0$' <<<"$res")"
fi
truth_report
echo "1..$n"
