#!/usr/bin/env bash
# fleet/ end to end: three test hosts made as network namespaces (each its own
# UTS name and an sshd on its own veth address, keys made for this run), a
# throw-away PostgreSQL cluster (initdb in a temp dir, a unix socket there),
# and fleet/site.yml really connecting over SSH: --check changes nothing, the
# smoke config runs on every host, one fails on purpose (a bad config) and the
# others land in the index, a second play changes nothing and loads nothing,
# the dashboard from PostgreSQL equals the one from SQLite, the loader role
# cannot read back, update or delete and the dashboard role cannot write,
# compare --db by host and group.  Everything made is torn down at exit, also
# on failure.  Traffic: only to addresses in the namespaces made here.
# TAP; exit 4 when skipped.  FLEET_KEEP=1 keeps the temp dir (not the hosts).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
ROOT=$PWD
PY=/usr/bin/python3
BIN=${PNBENCH_BIN:-build/pnbench}
case $BIN in /*) ;; *) BIN=$ROOT/$BIN ;; esac

# shellcheck source=tests/integration/tap.sh
. tests/integration/tap.sh
[ "$(id -u)" -eq 0 ] || skipall "needs root (network namespaces, sshd, a cluster run as user postgres)"
for c in ip unshare runuser ssh ssh-keygen ansible-playbook /usr/sbin/sshd; do
	command -v "$c" >/dev/null 2>&1 || skipall "$c not installed (make deps)"
done
PGBIN=$(dirname "$(find /usr/lib/postgresql -path '*/bin/initdb' 2>/dev/null | sort -V | tail -n1)")
[ -x "$PGBIN/initdb" ] || skipall "PostgreSQL not installed (make deps: postgresql)"
id postgres >/dev/null 2>&1 || skipall "no user postgres (make deps: postgresql)"
$PY -c 'import psycopg2' 2>/dev/null || skipall "python3-psycopg2 not installed (make deps)"
[ -x "$BIN" ] || skipall "no $BIN (run make first)"
missing=$(scripts/deps.sh --list | while read -r p; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || printf '%s ' "$p"
done)
[ -z "$missing" ] || skipall "make deps has not installed: $missing(the hosts would need the apt archive)"
ID=$(($$ % 100000))
if ! ip netns add "pnfprobe$ID" 2>/dev/null; then
	skipall "ip netns add is not permitted here"
fi
ip netns del "pnfprobe$ID"

T=$(mktemp -d /tmp/pnfleet.XXXXXX)
chmod 755 "$T"
HOSTS=(h1 h2 h3)
SSHD_PIDS=()
PG_UP=0
torn_down=0

teardown() {
	[ "$torn_down" = 1 ] && return 0
	torn_down=1
	local h s
	for s in "$T"/cp/*; do      # ansible's ssh control masters
		[ -S "$s" ] && ssh -o ControlPath="$s" -O exit pnfleet >/dev/null 2>&1
	done
	for s in "${SSHD_PIDS[@]}"; do
		kill "$s" 2>/dev/null
	done
	for h in "${HOSTS[@]}"; do
		if ip netns list | grep -qw "pnf$ID$h"; then
			# sessions still open in a namespace made here
			for s in $(ip netns pids "pnf$ID$h" 2>/dev/null); do kill "$s" 2>/dev/null; done
			ip link del "pf$h-$ID" 2>/dev/null
			ip netns del "pnf$ID$h"
		fi
	done
	if [ "$PG_UP" = 1 ]; then
		runuser -u postgres -- "$PGBIN/pg_ctl" -D "$T/pg/data" -m immediate -w stop >/dev/null 2>&1
		PG_UP=0
	fi
	if [ -n "${FLEET_KEEP:-}" ]; then
		echo "# kept $T" >&2
	else
		rm -rf "$T"
	fi
}
trap teardown EXIT
trap 'exit 130' INT TERM

check() {     # check DESCRIPTION COMMAND...
	local d=$1
	shift
	if "$@"; then ok "$d"; else notok "$d"; fi
}
bail() {
	notok "$*"
	echo "Bail out! $*"
	exit 1
}

out=$(ANSIBLE_CONFIG=fleet/ansible.cfg ANSIBLE_HOME=$T/ansible-home ANSIBLE_LOCAL_TEMP=$T/ansible-tmp \
	ansible-playbook --syntax-check -i fleet/inventory.example.yml fleet/site.yml 2>&1)
check "fleet/site.yml passes ansible-playbook --syntax-check with fleet/inventory.example.yml" \
	test -n "$(printf '%s\n' "$out" | grep -x 'playbook: fleet/site.yml')"

# ---- hosts: a namespace, a veth pair on 198.18.0.0/15 (RFC 2544 benchmark
# addresses, never routed), its own UTS name, its own sshd ----
oct=$((ID % 200 + 20))
while ip -o addr show | grep -q "198\.18\.$oct\."; do oct=$(((oct + 1) % 250)); done
ssh-keygen -q -t ed25519 -N '' -C pnfleet-client -f "$T/client_key" || bail "ssh-keygen"
mkdir -p /run/sshd "$T/cp"
: >"$T/known_hosts"
declare -A ADDR
for i in "${!HOSTS[@]}"; do
	h=${HOSTS[$i]}
	ns=pnf$ID$h
	a="198.18.$oct.$((4 * i + 2))"
	ADDR[$h]=$a
	mkdir -p "$T/$h" "$T/$h/textfile"
	ip netns add "$ns" || bail "ip netns add $ns"
	ip link add "pf$h-$ID" type veth peer name "pn$h-$ID" || bail "veth for $h"
	ip link set "pn$h-$ID" netns "$ns"
	ip addr add "198.18.$oct.$((4 * i + 1))/30" dev "pf$h-$ID"
	ip link set "pf$h-$ID" up
	ip -n "$ns" link set lo up
	ip -n "$ns" addr add "$a/30" dev "pn$h-$ID"
	ip -n "$ns" link set "pn$h-$ID" up
	ssh-keygen -q -t ed25519 -N '' -f "$T/$h/host_key" || bail "host key $h"
	echo "$a $(cut -d' ' -f1-2 "$T/$h/host_key.pub")" >>"$T/known_hosts"
	cat >"$T/$h/sshd_config" <<-EOF
		ListenAddress $a:22
		HostKey $T/$h/host_key
		PidFile $T/$h/sshd.pid
		AuthorizedKeysFile $T/client_key.pub
		PermitRootLogin prohibit-password
		PasswordAuthentication no
		KbdInteractiveAuthentication no
		UsePAM no
		StrictModes no
		MaxSessions 50
		MaxStartups 50
		Subsystem sftp /usr/lib/openssh/sftp-server
	EOF
	ip netns exec "$ns" unshare --uts sh -c \
		"hostname pnfleet-$h-$ID && exec /usr/sbin/sshd -D -f '$T/$h/sshd_config' -E '$T/$h/sshd.log'" &
	SSHD_PIDS+=($!)
done
SSH=(ssh -F /dev/null -i "$T/client_key" -o UserKnownHostsFile="$T/known_hosts" -o StrictHostKeyChecking=yes
	-o BatchMode=yes -o ConnectTimeout=5)
names_ok=1
for h in "${HOSTS[@]}"; do
	got=
	for _ in $(seq 50); do
		got=$("${SSH[@]}" "root@${ADDR[$h]}" hostname 2>/dev/null) && break
		sleep 0.1
	done
	[ "$got" = "pnfleet-$h-$ID" ] || { names_ok=0; echo "# $h: ssh to ${ADDR[$h]} answered '$got'" >&2; }
done
[ "$names_ok" = 1 ] || bail "sshd in every namespace answers with its own host name"
ok "3 namespaces, each with its own UTS name and an sshd on its veth address (host and client keys of this run)"

# ---- a throw-away PostgreSQL cluster: roles owner, loader, reader ----
mkdir -p "$T/pg/sock"
chown -R postgres: "$T/pg"
chmod 700 "$T/pg/sock"
pg() { runuser -u postgres -- "$@"; }
pg "$PGBIN/initdb" -D "$T/pg/data" -A trust -U postgres >"$T/pg/initdb.log" 2>&1 || bail "initdb"
pg "$PGBIN/pg_ctl" -D "$T/pg/data" -l "$T/pg/log" -w \
	-o "-k $T/pg/sock -c listen_addresses='' -p 5432" start >/dev/null || bail "postgres start"
PG_UP=1
PSQL=("$PGBIN/psql" -h "$T/pg/sock" -X -q -v ON_ERROR_STOP=1)
pg "${PSQL[@]}" -U postgres -d postgres -c "CREATE ROLE pnowner LOGIN" -c "CREATE ROLE pnload LOGIN" \
	-c "CREATE ROLE pnread LOGIN" -c "CREATE DATABASE pnbench OWNER pnowner" || bail "roles"
url() { echo "postgresql://$1@/pnbench?host=$T/pg/sock"; }
if out=$($PY report/pnreport.py index-init --db "$(url pnowner)" --loader pnload --reader pnread 2>&1) &&
	$PY report/pnreport.py index-init --db "$(url pnowner)" --loader pnload --reader pnread >/dev/null; then
	ok "index-init applies report/index.sql to PostgreSQL, twice ($out)"
else
	bail "index-init: $out"
fi
q() {     # q ROLE SQL: one value
	runuser -u postgres -- "${PSQL[@]}" -U "$1" -d pnbench -At -c "$2" 2>&1
}

# ---- inventory: h1 copies the binary, h2 builds from source, h3 runs a bad config ----
cat >"$T/inventory.yml" <<EOF
all:
  vars:
    ansible_user: root
    ansible_ssh_private_key_file: $T/client_key
    ansible_ssh_common_args: -F /dev/null -o UserKnownHostsFile=$T/known_hosts -o StrictHostKeyChecking=yes
    fleet_results: $T/results
    fleet_cache: $T/cache
    fleet_db: $(url pnload)
    fleet_campaign: test
    pnbench_local_bin: $BIN
  children:
    pnbench:
      children:
        cxl:
          hosts:
            h1: {ansible_host: ${ADDR[h1]}, pnbench_root: $T/h1/opt, pnbench_install: copy, pnbench_iterations: 3,
                 pnbench_textfile_dir: $T/h1/textfile}
            h2: {ansible_host: ${ADDR[h2]}, pnbench_root: $T/h2/opt, pnbench_install: build, pnbench_iterations: 3}
        plain:
          hosts:
            h2: {}
            h3: {ansible_host: ${ADDR[h3]}, pnbench_root: $T/h3/opt, pnbench_install: copy,
                 pnbench_config: tests/configs-bad/bad-size.json}
EOF
export ANSIBLE_CONFIG=$ROOT/fleet/ansible.cfg ANSIBLE_HOME=$T/ansible-home ANSIBLE_LOCAL_TEMP=$T/ansible-tmp
export ANSIBLE_REMOTE_TMP=$T/remote-tmp ANSIBLE_SSH_CONTROL_PATH_DIR=$T/cp ANSIBLE_NOCOLOR=1
export ANSIBLE_FORCE_COLOR=0 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_LOG_PATH=$T/ansible.log
play() {     # play LOG [ARGS]: rc
	local log=$1
	shift
	local t0=$SECONDS
	ansible-playbook -i "$T/inventory.yml" fleet/site.yml "$@" >"$T/$log" 2>&1
	local rc=$?
	echo "# ansible-playbook $* -> $rc in $((SECONDS - t0)) s ($log)" >&2
	return $rc
}
recap() {     # recap LOG HOST FIELD: the number in the PLAY RECAP line
	sed -n "s/^$2 *:.* $3=\([0-9]*\).*/\1/p" "$T/$1" | tail -n1
}
runs_in_index() { q pnread "SELECT COUNT(*) FROM runs"; }
rows_in_index() { q pnread "SELECT (SELECT COUNT(*) FROM runs) || '/' || (SELECT COUNT(*) FROM metrics) || '/' ||
	(SELECT COUNT(*) FROM samples) || '/' || (SELECT COUNT(*) FROM node_verdicts) || '/' || (SELECT COUNT(*) FROM run_tags)"; }

# ---- --check: says what it would do, does nothing ----
play check.log --check --limit h1,h2,localhost
rc=$?
if [ "$rc" -eq 0 ] && [ ! -e "$T/h1/opt" ] && [ ! -e "$T/h2/opt" ] && [ ! -e "$T/results" ] &&
	[ "$(recap check.log h1 changed)" -gt 0 ] && [ "$(runs_in_index)" = 0 ]; then
	ok "--check: exit 0, changes reported ($(recap check.log h1 changed) on h1), nothing written on hosts or in the index"
else
	notok "--check: exit $rc, h1 changed=$(recap check.log h1 changed), index runs $(runs_in_index)"
	sed 's/^/#   /' "$T/check.log" | tail -n 40 >&2
fi

# ---- the real play: h3 fails, h1 and h2 land ----
play run.log
rc=$?
f1=$(recap run.log h1 failed) f2=$(recap run.log h2 failed) f3=$(recap run.log h3 failed)
if [ "$rc" -ne 0 ] && [ "$f1" = 0 ] && [ "$f2" = 0 ] && [ "$f3" = 1 ] &&
	grep -q 'params.size' "$T/run.log"; then
	ok "play: exit $rc, h3 failed with pnbench's message (bad config), h1 and h2 went on"
else
	notok "play: exit $rc, failed h1=$f1 h2=$f2 h3=$f3"
	sed 's/^/#   /' "$T/run.log" | tail -n 60 >&2
fi
landed=$(find "$T/results/runs" -name run.json | wc -l)
r1=$T/results/runs/h1/test-smoke r2=$T/results/runs/h2/test-smoke
check "results of h1 and h2 landed whole (run.json, CSVs, topology.xml, fleet.json), none of h3" \
	test "$landed" = 2 -a -f "$r1/nodestat.csv" -a -f "$r2/topology.xml" -a -f "$r2/fleet.json" \
	-a ! -e "$T/results/runs/h3"
ciok=0
for r in "$r1" "$r2"; do
	$PY tests/integration/check-ci-outputs.py "$r/run.json" --openmetrics "$r/pnbench.prom" >&2 && ciok=$((ciok + 1))
done
check "each landed run holds its OpenMetrics text (pnbench.prom), parsed and saying what its run.json says" \
	test "$ciok" = 2
check "h1's node_exporter textfile directory holds pnbench-smoke.prom, the landed run's" \
	cmp -s "$T/h1/textfile/pnbench-smoke.prom" "$r1/pnbench.prom"
check "nothing half-written left: no .partial on hosts, no .landing on the controller" \
	test -z "$(find "$T" -name '*.partial' -o -name '.*.landing-*' -o -name '*.tar.gz.tmp')"
check "h3's run is not marked done (a later play retries it)" test ! -e "$T/h3/opt/results/test-bad-size"
hn1=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["host"]["hostname"])' "$r1/run.json")
hn2=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["host"]["hostname"])' "$r2/run.json")
check "the runs ran on the test hosts (run.json host: $hn1, $hn2)" \
	test "$hn1" = "pnfleet-h1-$ID" -a "$hn2" = "pnfleet-h2-$ID"
srcid=$(find "$T/h2/opt/src" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' 2>/dev/null | head -n1)
check "h2 built pnbench from the source tree ${srcid:0:12}, h1 got the controller's binary" \
	test -n "$srcid" -a -x "$T/h2/opt/src/$srcid/build/pnbench" -a -x "$T/h1/opt/bin/pnbench" \
	-a ! -e "$T/h1/opt/src/$srcid"
runs1=$(runs_in_index) rows1=$(rows_in_index)
groups=$(q pnread "SELECT string_agg(t.value, ',' ORDER BY t.value) FROM run_tags t JOIN runs r USING (run_id)
	WHERE t.key = 'group' AND r.hostname = 'pnfleet-h2-$ID'")
check "the index holds the 2 landed runs (rows runs/metrics/samples/verdicts/tags: $rows1), h2 tagged groups $groups" \
	test "$runs1" = 2 -a "$groups" = "cxl,plain,pnbench"

# ---- again: nothing to do, nothing added ----
play again.log
c1=$(recap again.log h1 changed) c2=$(recap again.log h2 changed)
rows2=$(rows_in_index)
if [ "$c1" = 0 ] && [ "$c2" = 0 ] && [ "$(recap again.log h3 failed)" = 1 ] && [ "$rows2" = "$rows1" ] && grep -q ' 0 run(s) added, 0 replaced, 2 already' "$T/again.log"; then
	ok "second play: h1 and h2 changed=0, h3 retried and failed again, the load adds nothing (rows $rows2)"
else
	notok "second play: changed h1=$c1 h2=$c2, rows $rows1 -> $rows2"
	sed 's/^/#   /' "$T/again.log" | tail -n 40 >&2
fi
out=$($PY report/pnreport.py load "$T/results/runs" --db "$(url pnload)" 2>&1)
check "pnreport load by hand, again: $out" test "$(rows_in_index)" = "$rows1" -a -n "$(echo "$out" | grep '0 run(s) added')"

# ---- the same dashboard from PostgreSQL (reader role) and from SQLite ----
$PY report/pnreport.py dashboard --db "$(url pnread)" -o "$T/dash-pg" --csv "$T/pg.csv" >"$T/dash-pg.log" 2>&1
rc_pg=$?
$PY report/pnreport.py dashboard "$T/results/runs" --db "$T/index.sqlite" -o "$T/dash-sqlite" --csv "$T/sqlite.csv" \
	>"$T/dash-sqlite.log" 2>&1
rc_sq=$?
npages=$(find "$T/dash-pg" -name '*.html' | wc -l)
if [ "$rc_pg" = 0 ] && [ "$rc_sq" = 0 ] && [ "$npages" -gt 2 ] && diff -r "$T/dash-pg" "$T/dash-sqlite" >"$T/dash.diff" &&
	cmp -s "$T/pg.csv" "$T/sqlite.csv"; then
	ok "dashboard --db postgresql://pnread… equals the one from SQLite ($npages pages, CSV export too)"
else
	notok "dashboard from PostgreSQL (rc $rc_pg) vs SQLite (rc $rc_sq): $(wc -l <"$T/dash.diff") diff lines"
	head -n 20 "$T/dash.diff" | cut -c1-200 | sed 's/^/#   /' >&2
	cat "$T/dash-pg.log" "$T/dash-sqlite.log" | sed 's/^/#   /' >&2
fi

# ---- privileges ----
denied() {     # denied ROLE SQL...: every statement is refused for lack of privilege
	local role=$1 out sql
	shift
	for sql in "$@"; do
		out=$(q "$role" "$sql")
		case $out in
		*"permission denied"* | *"must be owner"*) ;;
		*)
			echo "# $role: $sql -> $out" >&2
			return 1
			;;
		esac
	done
}
check "loader role cannot SELECT runs/metrics/samples/run_tags" denied pnload "SELECT COUNT(*) FROM runs" \
	"SELECT * FROM samples LIMIT 1" "SELECT 1 FROM metrics" "SELECT 1 FROM run_tags"
check "loader role cannot UPDATE or DELETE" denied pnload "UPDATE runs SET verdict = 'pass'" \
	"DELETE FROM samples" "DELETE FROM runs" "UPDATE index_meta SET value = '0'"
check "dashboard role cannot INSERT, UPDATE or DELETE" denied pnread \
	"INSERT INTO index_meta (key, value) VALUES ('x', 'y')" "DELETE FROM runs" "UPDATE samples SET value = 0"
check "neither can change the schema" denied pnload "DROP TABLE samples" "CREATE TABLE x (a int)"
check "neither can change the schema (reader)" denied pnread "DROP TABLE runs" "CREATE TABLE x (a int)"
check "the index is unchanged by all that ($(rows_in_index))" test "$(rows_in_index)" = "$rows1"

# ---- compare across the fleet ----
cmp_out=$($PY report/pnreport.py compare --db "$(url pnread)" --by host --all 2>&1)
rc=$?
if [ "$rc" = 0 ] && echo "$cmp_out" | grep -q "host=pnfleet-h1-$ID" && echo "$cmp_out" | grep -q "host=pnfleet-h2-$ID" &&
	echo "$cmp_out" | grep -A2 'alloc_fault_throughput' | grep -E -q '\(3\) +[-+]?[0-9.]+ % +[0-9.]+'; then
	ok "compare --db --by host: h1 against h2 with n=3 a side, Welch p"
else
	notok "compare --db --by host: exit $rc"
	printf '%s\n' "$cmp_out" | sed 's/^/#   /' >&2
fi
out=$($PY report/pnreport.py compare --db "$(url pnread)" --by group --where group=cxl --where group=plain --format json 2>&1)
cols=$(echo "$out" | $PY -c 'import json,sys; d=json.load(sys.stdin); print(",".join(r["kernel"] for r in d["runs"]))' 2>/dev/null)
check "compare --db --by group: columns $cols" test "$cols" = "group=cxl,group=plain"
out=$($PY report/pnreport.py compare --db "$(url pnread)" --by kernel 2>&1)
rc=$?
check "compare --db --by kernel on a one-kernel fleet: exit 2, says so" \
	test "$rc" = 2 -a -n "$(echo "$out" | grep 'one kernel only')"
out=$($PY report/pnreport.py load "$T/results/runs" --db "postgresql://pnload@/nosuchdb?host=$T/pg/sock" 2>&1)
rc=$?
check "load into a database that is not there: exit 2, names it" test "$rc" = 2 -a -n "$(echo "$out" | grep nosuchdb)"

# ---- land.py refuses what it must not unpack ----
mkdir -p "$T/evil/x" && echo '{}' >"$T/evil/x/run.json"
tar -C "$T/evil" -czf "$T/evil.tar.gz" --transform 's,^x,x/../../escape,' x/run.json 2>/dev/null
out=$($PY fleet/scripts/land.py "$T/evil.tar.gz" "$T/evil/dest" x 2>&1)
rc=$?
check "land.py refuses a tarball with a path outside its run directory (exit $rc: $out)" \
	test "$rc" = 1 -a ! -e "$T/escape" -a ! -e "$T/evil/escape"

# ---- teardown, checked ----
teardown
left=$(ip netns list | grep -c "pnf$ID" || true)
alive=0
for p in "${SSHD_PIDS[@]}"; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
check "torn down: namespaces deleted ($left left), sshd stopped ($alive alive), cluster stopped, temp dir removed" \
	test "$left" = 0 -a "$alive" = 0 -a "$PG_UP" = 0 -a \( -n "${FLEET_KEEP:-}" -o ! -e "$T" \)
echo "1..$n"
[ "$fails" -eq 0 ]
