#!/bin/sh
# Sourced by scripts/demo-guest.sh inside a `pnbench demo` guest: the rows of
# the truth table a reviewer checks beside placement (issue 21), each written
# to /mnt/host/<run>.txt as "key=value" lines and judged on the host by
# report/pnreportlib/demo_contract.py against the model's expected column.
#
#   instrument  the suite calibrated: a transient leak of 8192 pages on the
#               first device (faulted and freed before any sample) and a
#               quiet run (8192 pages on DRAM), under `pnbench run --exec`
#               with default options; their run.json as instrument/leak.json
#               and instrument/quiet.json
#   clients     real clients: numactl --hardware, libnuma (pn-access
#               libnuma), numactl --interleave=all and --membind=<device>
#               over pn-access touch (placement read back page by page) and
#               over memhog, lstopo; without and with the grant
#   access      after the grant, a task in a cpuset of the DRAM nodes only
#               (as root and as nobody) tries bind, preferred, interleave,
#               move_pages and migrate_pages onto the device; root in the top
#               cpuset migrate_pages() such a task's pages there; a task of a
#               cpuset granted the device binds to it
#   revoke      a policy naming the device, then the grant withdrawn (the
#               cpuset's mems; on private kernels also the opt-out): where
#               the next pages go
#   driver      /dev/private_node_test's mmap() over the devices, and over
#               the first for more than it holds (kernels of the series)
#   hotadd      the other kind of memory added to a node whose memory is
#               added but offline (two dax devices on the last device node)
#
# "The grant": on a private kernel the device node's mempolicy opt-in (which
# grants it to the top cpuset, series v3) and a cpuset whose mems name it; on
# stock and isolate kernels the device is ordinary memory that every cpuset
# naming it holds.  Needs from the caller: OUT PN DEVS ROLE model secs now.
# shellcheck disable=SC2154 # model, ROLE, OUT: set by demo-guest.sh
ACC=/usr/local/bin/pn-access
CG=/sys/fs/cgroup
P=${DEVS%% *}
PG=/sys/devices/system/node
DRAM=$(for n in "$PG"/node[0-9]*; do
	n=${n##*node}
	case " $DEVS " in *" $n "*) ;; *) printf '%s,' "$n" ;; esac
done)
DRAM=${DRAM%,}
hexmask() { # node list (commas) -> hex mask
	m=0
	for n in $(echo "$1" | tr ',' ' '); do m=$((m | (1 << n))); done
	printf '%x' "$m"
}
PM=$(hexmask "$P")
DM=$(hexmask "$DRAM")

grant_node() { # NODE 0|1: the mempolicy opt-in of a private kernel
	# (june2026 refuses it: written all the same, the refusal is the model's)
	f=$PG/node$1/private/mempolicy
	case $model in
	private | june2026) [ -e "$f" ] && echo "$2" >"$f" 2>/dev/null ;;
	esac
	return 0
}
grant_all() { for n in $DEVS; do grant_node "$n" "$1"; done; }
in_cg() { # DIR CMD...: CMD as a task of cgroup DIR
	d=$1
	shift
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$d" "$@"
}
cg_setup() { # the confined cpuset (DRAM only) and the granted one (DRAM + P)
	# prints "error=..." when the confined one cannot be made, "grant_error=..."
	# when the grant cannot (a kernel whose cpusets cannot hold P)
	if ! [ -f $CG/cgroup.subtree_control ] || ! echo +cpuset >$CG/cgroup.subtree_control 2>/dev/null; then
		echo "error=no cgroup v2 cpuset controller in the guest"
		return 1
	fi
	mkdir -p $CG/pn-conf $CG/pn-grant
	if ! echo "$DRAM" >$CG/pn-conf/cpuset.mems 2>/tmp/cg.err; then
		echo "error=cannot set a cpuset's mems to $DRAM: $(cat /tmp/cg.err)"
		return 1
	fi
	echo "$DRAM,$P" >$CG/pn-grant/cpuset.mems 2>/tmp/cg.err ||
		echo "grant_error=cpuset.mems $DRAM,$P refused: $(tr '\n' ' ' </tmp/cg.err)"
	return 0
}
cg_teardown() { rmdir $CG/pn-conf $CG/pn-grant 2>/dev/null; }
wait_line() { # FILE REGEX: until a line of FILE matches (10 s at most)
	i=0
	while [ $i -lt 100 ] && ! grep -q "$2" "$1" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
}
ctr_done() { # RUN T0: the run's line in runs.txt
	echo "$1 rc=0 seconds=$(secs "$2")" >>"$OUT/runs.txt"
	echo "DEMO-RUN $1 rc=0 seconds=$(secs "$2")"
}
kvfile() { # RUN: key=value lines on stdin -> $OUT/RUN.txt, atomically
	cat >"/tmp/$1.txt" && cp "/tmp/$1.txt" "$OUT/$1.txt.tmp" && mv "$OUT/$1.txt.tmp" "$OUT/$1.txt"
}
contract_instrument() {
	t0=$(now)
	grant_all 0
	# shellcheck disable=SC2086
	$PN run -o /tmp/instr-leak --exec $ROLE -- /usr/local/bin/pn-leak -t 8192 "$P" 0 >/tmp/instr-leak.log 2>&1
	lrc=$?
	# shellcheck disable=SC2086
	$PN run -o /tmp/instr-quiet --exec $ROLE -- /usr/local/bin/pn-leak 8192 "${DRAM%%,*}" 0 >/tmp/instr-quiet.log 2>&1
	qrc=$?
	{
		echo "node=$P"
		echo "injected=8192"
		echo "leak_rc=$lrc"
		echo "leak_holder=$(grep -v '^[0-9:]* pnbench' /tmp/instr-leak.log | grep 'placed\|refused\|pn-leak' | head -n 1)"
		echo "quiet_rc=$qrc"
	} | kvfile instrument
	mkdir -p "$OUT/instrument"
	cp /tmp/instr-leak/run.json "$OUT/instrument/leak.json" 2>/dev/null
	cp /tmp/instr-quiet/run.json "$OUT/instrument/quiet.json" 2>/dev/null
	cat /tmp/instr-leak.log /tmp/instr-quiet.log >"$OUT/instrument.log" 2>/dev/null
	rm -rf /tmp/instr-leak /tmp/instr-quiet
	ctr_done instrument "$t0"
}

clients_probe() { # PREFIX: what the real clients see and do in this state
	pre=$1
	echo "${pre}_libnuma=$($ACC libnuma 2>&1 | sed 's/^R libnuma //')"
	echo "${pre}_interleave=$(numactl --interleave=all $ACC touch 1024 2>&1 | sed 's/^R touch //' | tr '\n' ' ')"
	numactl --interleave=all memhog 16M >/tmp/memhog.out 2>&1
	echo "${pre}_interleave_memhog_rc=$?"
	echo "${pre}_membind=$(numactl --membind="$P" $ACC touch 256 2>&1 | sed 's/^R touch //' | tr '\n' ' ')"
	numactl --membind="$P" memhog 16M >/tmp/memhog.out 2>&1
	echo "${pre}_membind_memhog_rc=$? $(tail -n 1 /tmp/memhog.out | tr -d '.')"
}

contract_clients() {
	t0=$(now)
	grant_all 0
	{
		numactl --hardware >/tmp/numactl-hw.txt 2>&1
		echo "hardware_rc=$?"
		echo "hardware_available=$(sed -n 's/^available: //p' /tmp/numactl-hw.txt)"
		for n in $DEVS; do
			echo "hardware_node${n}_mb=$(sed -n "s/^node $n size: \([0-9]*\) MB/\1/p" /tmp/numactl-hw.txt)"
		done
		clients_probe nogrant
		grant_all 1
		[ -e "$PG/node$P/private/mempolicy" ] &&
			echo "grant_optin=$(cat "$PG/node$P/private/mempolicy") $($ACC write "$PG/node$P/private/mempolicy" 1)"
		clients_probe grant
		lstopo-no-graphics --no-io -p --of console >/tmp/lstopo.txt 2>&1
		echo "lstopo_rc=$?"
		echo "lstopo_nodes=$(sed -n 's/.*NUMANode[^ ]* P#\([0-9]*\).*/\1/p' /tmp/lstopo.txt | tr '\n' ' ')"
		# hwloc leaves out memory outside the process's Mems_allowed unless asked
		lstopo-no-graphics --whole-system --no-io -p --of console >/tmp/lstopo-all.txt 2>&1
		echo "lstopo_all_nodes=$(sed -n 's/.*NUMANode[^ ]* P#\([0-9]*\).*/\1/p' /tmp/lstopo-all.txt | tr '\n' ' ')"
		lstopo-no-graphics --whole-system -p --memattrs >/tmp/memattrs.txt 2>&1
		# each device's first latency and bandwidth value (HMAT; "-" without)
		for n in $DEVS; do
			echo "memattrs_node$n=$(awk -v n="NUMANode P#$n" '
				/^Memory attribute/ { a = /Latency/ ? "latency" : /Bandwidth/ ? "bandwidth" : "" }
				a != "" && index($0, n " = ") && !(a in v) { v[a] = $4 }
				END { printf "latency=%s bandwidth=%s", ("latency" in v) ? v["latency"] : "-",
					("bandwidth" in v) ? v["bandwidth"] : "-" }' /tmp/memattrs.txt)"
		done
	} | kvfile clients
	mkdir -p "$OUT/clients"
	cp /tmp/numactl-hw.txt /tmp/lstopo.txt /tmp/lstopo-all.txt /tmp/memattrs.txt "$OUT/clients/" 2>/dev/null
	ctr_done clients "$t0"
}

access_calls() { # PREFIX UID: every way onto P from the confined cpuset
	u=
	[ "$2" != 0 ] && u="-u $2"
	for m in bind preferred; do
		# shellcheck disable=SC2086
		echo "$1_mbind_$m=$(in_cg $CG/pn-conf $ACC $u policy $m "$PM" 256 2>&1 | tr '\n' ' ')"
	done
	# shellcheck disable=SC2086
	echo "$1_setpol_interleave=$(in_cg $CG/pn-conf $ACC $u setpol interleave "$(hexmask "$DRAM,$P")" 256 2>&1 | tr '\n' ' ')"
	# shellcheck disable=SC2086
	echo "$1_move_pages=$(in_cg $CG/pn-conf $ACC $u move "$P" 256 2>&1 | tr '\n' ' ')"
	# shellcheck disable=SC2086
	echo "$1_migrate_pages=$(in_cg $CG/pn-conf $ACC $u migrate "$DM" "$PM" 256 2>&1 | tr '\n' ' ')"
}

contract_access() {
	t0=$(now)
	grant_all 1
	{
		if cg_setup; then
			echo "confined_mems=$(in_cg $CG/pn-conf sed -n 's/^Mems_allowed_list:[[:space:]]*//p' /proc/self/status)"
			echo "granted_mems=$(in_cg $CG/pn-grant sed -n 's/^Mems_allowed_list:[[:space:]]*//p' /proc/self/status)"
			access_calls root 0
			access_calls nobody 65534
			# root in the top cpuset (CAP_SYS_NICE) moves a confined task's pages
			rm -f /tmp/go-hold /tmp/holder.out
			# not in_cg: a function in the background is a subshell, and $!
			# must be the pid that execs pn-access
			# shellcheck disable=SC2016
			sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' $CG/pn-conf $ACC hold 256 /tmp/go-hold >/tmp/holder.out 2>&1 &
			h=$!
			wait_line /tmp/holder.out '^R hold-before'
			echo "override_migrate_pid=$($ACC migrate-pid $h "$DM" "$PM" 2>&1)"
			touch /tmp/go-hold
			wait $h
			echo "override_after=$(sed -n 's/^R hold-after //p' /tmp/holder.out)"
			echo "granted_mbind_bind=$(in_cg $CG/pn-grant $ACC policy bind "$PM" 256 2>&1 | tr '\n' ' ')"
		fi
		cg_teardown
	} | kvfile access
	ctr_done access "$t0"
}

revoke_case() { # NAME HOW: bind to P, withdraw the grant by HOW, fault again
	name=$1 how=$2 go=/tmp/go-$1 rv=/tmp/rv-$1.out
	# a file of its own, gone before the tool starts: the wait below must see
	# this case's first report, not an earlier one (then the withdrawal
	# would race the tool's mbind())
	rm -f "$go" "$rv"
	echo "${name}_state=mems_allowed $(sed -n 's/^Mems_allowed_list:[[:space:]]*//p' /proc/self/status) mempolicy_opt_in $(cat "$PG/node$P/private/mempolicy" 2>/dev/null || echo none)"
	if [ "$how" = cpuset ]; then
		in_cg $CG/pn-grant $ACC revoke "$PM" 256 "$go" >"$rv" 2>&1 &
	else
		$ACC revoke "$PM" 256 "$go" >"$rv" 2>&1 &
	fi
	r=$!
	wait_line "$rv" '^R revoke-before'
	if [ "$how" = cpuset ]; then
		echo "$DRAM" >$CG/pn-grant/cpuset.mems
	else
		grant_node "$P" 0
	fi
	touch "$go"
	wait $r
	echo "${name}_rc=$?"
	echo "${name}_before=$(sed -n 's/^R revoke-before //p' "$rv")"
	echo "${name}_after=$(sed -n 's/^R revoke-after //p' "$rv")"
	grant_node "$P" 1
}

contract_revoke() {
	t0=$(now)
	grant_all 1
	{
		if cg_setup; then
			revoke_case cpuset cpuset
			echo "cpuset_mems_after=$(cat $CG/pn-grant/cpuset.mems.effective)"
			if [ "$model" = private ]; then
				revoke_case optout optout
			else
				echo "optout=none: the $model model has no opt-in to withdraw"
			fi
		fi
		cg_teardown
	} | kvfile revoke
	ctr_done revoke "$t0"
}

# The explicit path of a device driver: /dev/private_node_test's mmap() over
# the devices (the series' test device; the only way onto the device in the
# june2026 model), then more than the first device holds through it.
contract_driver() {
	t0=$(now)
	{
		if [ ! -e /dev/private_node_test ]; then
			echo "driver=none: no /dev/private_node_test (a kernel without the series)"
		else
			echo "driver=/dev/private_node_test"
			echo "explicit=$($ACC driver "$(hexmask "$(echo "$DEVS" | tr ' ' ',')")" 8192 2>&1 | tr '\n' ' ')"
			# the first device's size + 1024 pages; a request the kernel
			# cannot serve on a full device must fail (SIGBUS) or fall back,
			# never hang: killed after 120 s
			cap=$(awk '/MemTotal/ { print int($4 / 4) }' "$PG/node$P/meminfo")
			oom0=$(awk '$1 == "oom_kill" { print $2 }' /proc/vmstat)
			echo "exhaust_pages=$((cap + 1024))"
			$ACC driver "$PM" $((cap + 1024)) >/tmp/drv.out 2>&1 &
			d=$!
			i=0
			while kill -0 $d 2>/dev/null && [ $i -lt 1200 ]; do
				sleep 0.1
				i=$((i + 1))
			done
			if kill -0 $d 2>/dev/null; then
				# where it hangs, then killed (a fatal signal ends any
				# killable wait of the allocator)
				echo "exhaust_hung=120 s; $(grep State /proc/$d/status) wchan $(cat /proc/$d/wchan 2>/dev/null)"
				echo "exhaust_hung_vmstat=$(grep -E 'allocstall_|pgscan_direct|compact_stall|pgalloc_private' /proc/vmstat | tr '\n' ' ')"
				echo "exhaust_hung_stack=$(tr '\n' ' ' </proc/$d/stack 2>/dev/null)"
				kill -9 $d
			fi
			wait $d
			echo "exhaust_rc=$?"
			echo "exhaust=$(tr '\n' ' ' </tmp/drv.out)"
			echo "oom_kills=$(($(awk '$1 == "oom_kill" { print $2 }' /proc/vmstat) - oom0))"
		fi
	} | kvfile driver
	ctr_done driver "$t0"
}

# Hot-add kind: node LAST (two dax devices, A and B: demo.sh boots with
# run-guest.sh --split-dev) emptied, then memory of one kind added and left
# offline (auto_online_blocks=offline), then the other kind added: a kernel
# with kinds must refuse it (EBUSY, no new block) and the node must come
# online as the first kind; forward = private first (A with the node in
# kmem.private_nodes), reverse = ordinary first.  A stock kernel has one
# kind: both adds are accepted.  Runs after fault (which removed the node's
# memory already) and leaves the node empty.
HA_KP=/sys/module/kmem/parameters/private_nodes
HA_AO=/sys/devices/system/memory/auto_online_blocks
HA_KMEM=/sys/bus/dax/drivers/kmem
HA_MIX="cannot mix private and ordinary memory"
ha_blocks() {
	for m in "$PG/node$LAST"/memory[0-9]*; do
		[ -e "$m" ] && printf '%s ' "${m##*/}"
	done
}
ha_n() { echo $(($(echo "$1" | wc -w))); }
ha_state() { # offline|online_movable BLOCKS
	for b in $2; do
		[ "$(cat /sys/devices/system/memory/"$b"/state)" = "${1%_*}" ] ||
			timeout 60 sh -c "echo $1 >/sys/devices/system/memory/$b/state" 2>/dev/null
	done
}
ha_clear() {
	ha_state offline "$(ha_blocks)"
	for x in $ha_a $ha_b; do
		[ -e "$HA_KMEM/$x" ] && echo "$x" >"$HA_KMEM/unbind" 2>/dev/null
	done
	ha_left=$(ha_blocks)
}
ha_kp() { # with|without: kmem's private_nodes with or without node LAST
	[ -w "$HA_KP" ] || return 0
	l=$(echo "$DEVICES" | tr ',' '\n' | grep -vx "$LAST" | tr '\n' ',')
	[ "$1" = with ] && l="$l$LAST"
	echo "${l%,}" >"$HA_KP"
}
ha_bind() { # DAX: errno of the kmem bind (0 accepted)
	r=$($ACC write "$HA_KMEM/bind" "$1")
	echo "${r##*errno=}"
}
in_nodelist() { # N LIST: is node N in a sysfs node list ("0,2-3")?
	for r in $(echo "$2" | tr ',' ' '); do
		[ "$1" -ge "${r%-*}" ] && [ "$1" -le "${r#*-}" ] && return 0
	done
	return 1
}
ha_kind() { # node LAST's kind once its blocks are online
	ha_state online_movable "$(ha_blocks)"
	if in_nodelist "$LAST" "$(cat $PG/has_private_memory 2>/dev/null)"; then
		echo private
	elif in_nodelist "$LAST" "$(cat $PG/has_memory)"; then
		echo ordinary
	else
		echo none
	fi
}
ha_mixed() { dmesg | tail -n +"$(($1 + 1))" | grep -c "$HA_MIX"; }
ha_add() { # PREFIX FIRST FIRST-KIND SECOND SECOND-KIND: one direction
	ha_clear
	echo "$1_left_before=$ha_left"
	ha_kp "$3"
	echo "$1_first=$(ha_bind "$2")"
	b1=$(ha_blocks)
	ha_kp "$5"
	m0=$(dmesg | wc -l)
	echo "$1_second=$(ha_bind "$4")"
	echo "$1_new_blocks=$(($(ha_n "$(ha_blocks)") - $(ha_n "$b1")))"
	echo "$1_first_blocks=$(ha_n "$b1")"
	echo "$1_mixlog=$(ha_mixed "$m0")"
	echo "$1_kind=$(ha_kind)"
}
contract_hotadd() {
	t0=$(now)
	{
		ha_a='' ha_b=''
		for d in /sys/bus/dax/devices/dax*; do
			[ "$(cat "$d/target_node" 2>/dev/null)" = "$LAST" ] || continue
			if [ -z "$ha_a" ]; then ha_a=${d##*/}; elif [ -z "$ha_b" ]; then ha_b=${d##*/}; fi
		done
		echo "node=$LAST"
		echo "dax=$ha_a $ha_b"
		echo "kinds=$([ -w "$HA_KP" ] && echo "kmem.private_nodes" || echo "none (kmem has no private_nodes)")"
		if [ -z "$ha_b" ]; then
			echo "error=node$LAST has ${ha_a:-no} dax device${ha_a:+ only}: two needed (run-guest.sh --split-dev)"
		else
			ao0=$(cat $HA_AO)
			kp0=$(cat "$HA_KP" 2>/dev/null)
			echo offline >$HA_AO
			ha_add fwd "$ha_a" with "$ha_b" without
			ha_add rev "$ha_b" without "$ha_a" with
			ha_clear
			echo "left_after=$ha_left"
			[ -w "$HA_KP" ] && echo "$kp0" >"$HA_KP"
			echo "$ao0" >$HA_AO
		fi
	} | kvfile hotadd
	ctr_done hotadd "$t0"
}
