#!/bin/sh
# In-guest half of kernel-series/tests/e2e.sh (busybox sh).
# Reads MODE (private|isolate|stock) and ONLINE (movable|kernel: the zone the
# device memory was onlined to) from /guest/e2e.env and prints
#   E2E ok <description>
#   E2E not ok <description> # <why>
#   E2E skip <description> # <reason>
#   E2E info <text>
# The host turns these into TAP and adds the KUnit and dmesg checks.
# Helpers are also called through eval (check), which shellcheck cannot see.
# shellcheck disable=SC2317
MODE=private
ONLINE=movable
# shellcheck disable=SC1091
[ -f /guest/e2e.env ] && . /guest/e2e.env
T=/usr/local/bin/pn-e2e-test
NODE=/sys/devices/system/node
opt() { echo "$NODE/node$1/private/$2"; } # per-node opt-in file (sysfs)

ok() { echo "E2E ok $*"; }
nok() { echo "E2E not ok $*"; }
skip() { echo "E2E skip $*"; }
info() { echo "E2E info $*"; }
check() { # check <condition-as-shell-test> <description> <why-if-not>
	if eval "$1"; then ok "$2"; else nok "$2 # $3"; fi
}
vm() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print "" }' /proc/vmstat; }
nvm() { awk -v k="$2" '$1 == k { print $2 }' "$NODE/node$1/vmstat" 2>/dev/null; }
nnuma() { awk -v k="$2" '$1 == k { print $2 }' "$NODE/node$1/numastat"; }
nmem() { awk -v k="$2:" '$3 == k { print $4 }' "$NODE/node$1/meminfo"; }
d() { echo $(($2 - $1)); }
in_list() { # in_list <n> <nodelist like 1-2,4>
	echo "$2" | tr ',' '\n' | while IFS=- read -r a b; do
		[ -n "$a" ] || continue
		[ -n "$b" ] || b=$a
		[ "$1" -ge "$a" ] && [ "$1" -le "$b" ] && echo yes
	done | grep -q yes
}
zones() { # zones <node>: zones with present pages, e.g. "Normal"
	awk -v n="$1" '$1 == "Node" { z = ($2 == n",") ? $4 : "" }
		z != "" && $1 == "present" && $2 > 0 { printf "%s%s", s, z; s = "," }' /proc/zoneinfo
}
field() { # field <key> <line>
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n1
}
in_cg() { # in_cg <cgroup dir> <command...>: run the command as a task of the cgroup
	icg=$1
	shift
	sh -c "echo \$\$ >$icg/cgroup.procs && exec $*"
}
mems_allowed() { awk '$1 == "Mems_allowed_list:" { print $2 }'; } # of a /proc/<pid>/status
section() { # section <name>: the checks in /guest/e2e-<name>.sh (tests/e2e-<name>.sh)
	if [ -f "/guest/e2e-$1.sh" ]; then
		# shellcheck source=/dev/null
		. "/guest/e2e-$1.sh"
	else
		nok "$1 section # /guest/e2e-$1.sh missing from the initramfs"
	fi
}

devnodes=''
for n in "$NODE"/node[0-9]*; do
	i=${n##*node}
	has_cpu=no
	for c in "$n"/cpu[0-9]*; do [ -e "$c" ] && has_cpu=yes; done
	[ $has_cpu = yes ] || devnodes="$devnodes $i"
done
devnodes=${devnodes# }
info "mode=$MODE online=$ONLINE device_nodes=$devnodes kernel=$(uname -r)"
[ -n "$devnodes" ] || { nok "device nodes present # no CPU-less node"; exit 1; }
P=${devnodes%% *}
Q=${devnodes##* }
pmem=/dev/pmem0

# --- node state ------------------------------------------------------------
has_mem=$(cat $NODE/has_memory)
has_priv=$(cat $NODE/has_private_memory 2>/dev/null)
info "has_memory=$has_mem has_private_memory=$has_priv"
for n in $devnodes; do
	tot=$(nmem "$n" MemTotal)
	info "node$n MemTotal=${tot}kB"
	check "[ ${tot:-0} -gt 0 ]" "node$n: device memory hot-plugged through dax/kmem" "MemTotal=${tot:-?}"
	want=Movable
	[ "$ONLINE" = kernel ] && want=Normal
	z=$(zones "$n")
	check "[ '$z' = $want ]" "node$n: device memory onlined to ZONE_$(echo "$want" | tr "[:lower:]" "[:upper:]") (online_$ONLINE)" "zones with pages: '$z'"
done
if [ "$MODE" != stock ]; then
	for n in $devnodes; do
		check "in_list $n '$has_priv'" "node$n listed in has_private_memory" "has_private_memory='$has_priv'"
		if [ "$MODE" = private ]; then
			check "! in_list $n '$has_mem'" "node$n not in has_memory" "has_memory='$has_mem'"
		else
			check "in_list $n '$has_mem'" "node$n in has_memory (isolate mode)" "has_memory='$has_mem'"
		fi
	done
	m=$(cat $NODE/private_node_mode 2>/dev/null)
	check "[ '$m' = '$MODE' ]" "sysfs node/private_node_mode reads $MODE" "read '$m'"
	check "[ -f $(opt "$P" mempolicy) ]" "sysfs opt-in knobs exist for node$P" "missing $(opt "$P" mempolicy)"
	check "[ -f $(opt 0 mempolicy) ] && ! echo 1 2>/dev/null >$(opt 0 mempolicy)" "node0/private/mempolicy exists and refuses writes (node0 is not private)" "files: $(echo "$NODE"/node0/private/*)"
	if [ "$MODE" = private ]; then
		o=$(cat "$(opt "$P" owner)" 2>/dev/null)
		t=$(cat "$(opt "$P" tolerates)" 2>/dev/null)
		o0=$(cat "$(opt 0 owner)" 2>/dev/null)
		check "[ '$o' = kmem ] && [ '$t' = 'mempolicy numa_balancing compaction reclaim demotion' ] && [ '$o0' = none ]" \
			"node$P owned by kmem, which hot-added it, tolerating every opt-in (kmem.private_tolerate=all); node0 has no owner" \
			"node$P owner '$o', tolerates '$t'; node0 owner '$o0'"
	fi
fi

# --- the series' kselftest (tools/testing/selftests/mm/private_node.c) ----------
# Run before any opt-in is turned on (it wants nodes that did not opt in);
# each of its TAP results becomes one E2E line.
if [ "$MODE" = private ]; then
	if [ -x /usr/local/bin/private_node ]; then
		/usr/local/bin/private_node >/tmp/kselftest.tap 2>&1
		krc=$?
		while IFS= read -r line; do
			case "$line" in
			"ok "*"# SKIP"*) t=${line#ok * }; skip "kselftest ${t%% # *} # ${t#* # SKIP }" ;;
			"ok "*) ok "kselftest ${line#ok * }" ;;
			"not ok "*) nok "kselftest ${line#not ok * } # see its log below" ;;
			esac
		done </tmp/kselftest.tap
		grep -q '^ok \|^not ok ' /tmp/kselftest.tap || nok "kselftest private_node ran # exit $krc, no TAP result"
		[ $krc = 0 ] || sed 's/^/E2E info kselftest: /' /tmp/kselftest.tap | grep -v '^E2E info kselftest: #  RUN\|OK  ' | head -n 40
	else
		skip "kselftest private_node # not built (no patched tree)"
	fi
fi

# --- what describes the memory sees a private node: memory tier, HMAT ----------
# A device node is in a lower memory tier than node0's DRAM (node_is_toptier()
# false, so what is demoted into it can come back), and with an HMAT its
# access0 initiator attributes exist (the HMAT callback saw it come online).
tier_of() { # tier_of <node>: N of the memory_tierN listing the node
	for t in /sys/devices/virtual/memory_tiering/memory_tier*; do
		[ -f "$t/nodelist" ] && in_list "$1" "$(cat "$t/nodelist")" && echo "${t##*memory_tier}" && return
	done
}
t0=$(tier_of 0)
hmat=no
[ -e /sys/firmware/acpi/tables/HMAT ] && hmat=yes
info "memory tiers: $(for t in /sys/devices/virtual/memory_tiering/memory_tier*; do [ -f "$t/nodelist" ] && printf '%s=%s ' "${t##*/}" "$(cat "$t/nodelist")"; done)HMAT=$hmat"
for n in $devnodes; do
	tn=$(tier_of "$n")
	check "[ -n '$tn' ] && [ -n '$t0' ] && [ '$tn' -gt '$t0' ]" "node$n: in a memory tier below node0's (memory_tier${tn:-none} vs memory_tier${t0:-none})" \
		"node$n tier '${tn:-none}', node0 tier '${t0:-none}'"
	a=$NODE/node$n/access0/initiators
	if [ $hmat = yes ]; then
		lat=$(cat "$a/read_latency" 2>/dev/null) bw=$(cat "$a/read_bandwidth" 2>/dev/null)
		check "[ -n '$lat' ] && [ -n '$bw' ] && [ -e '$a/node0' ]" "node$n: HMAT access0 initiator node0, read latency ${lat:-none} ns, bandwidth ${bw:-none} MB/s" \
			"$a holds: $(echo "$a"/*)"
	else
		skip "node$n: HMAT access0 attributes # the guest has no ACPI HMAT"
	fi
done

# --- explicit mbind --------------------------------------------------------
if [ "$MODE" = private ]; then
	r=$($T mbind "$Q" bind 64)
	case "$r" in
	*"errno=22"*) ok "mbind on non-opted-in private node$Q -> EINVAL" ;;
	*) nok "mbind on non-opted-in private node$Q -> EINVAL # got: $r" ;;
	esac
	echo 1 >"$(opt "$P" mempolicy)" 2>/dev/null
	check "[ \"\$(cat $(opt "$P" mempolicy))\" = 1 ]" "node$P mempolicy opt-in via sysfs" "reads $(cat "$(opt "$P" mempolicy)" 2>/dev/null)"
	a0=$(vm pgalloc_private)
	r=$($T mbind "$P" bind 1024)
	a1=$(vm pgalloc_private)
	info "$r"
	on=$(field on_node "$r")
	check "[ '${on:-0}' = 1024 ]" "mbind(MPOL_BIND, node$P) after opt-in: 1024/1024 pages on node$P (move_pages)" "$r"
	check "[ $(d "${a0:-0}" "${a1:-0}") -ge 1024 ]" "pgalloc_private grew by >= 1024 ($(d "${a0:-0}" "${a1:-0}"))" "pgalloc_private ${a0:-absent} -> ${a1:-absent}"
	r=$($T mbind "$P" preferred 256)
	on=$(field on_node "$r")
	check "[ '${on:-0}' = 256 ]" "mbind(MPOL_PREFERRED, node$P): 256/256 pages on node$P" "$r"
	# shared (shmem) policies never get the private context: one naming only
	# node P is refused, P's bit beside node 0 is ignored
	r=$($T shmem "$(printf '%x' $((1 << P)))" 256)
	info "$r"
	check "[ '$(field ok "$r")' = 0 ] && [ '$(field errno "$r")' = 22 ]" "shmem mbind(MPOL_BIND, {$P}) with node$P opted in: EINVAL (shmem never serves a private node)" "$r"
	r=$($T shmem "$(printf '%x' $((1 | (1 << P))))" 256)
	info "$r"
	check "[ '$(field ok "$r")' = 1 ] && [ '$(field node0 "$r")' = 256 ]" "shmem mbind(MPOL_BIND, {0,$P}): accepted, 256/256 pages on node0, none on node$P" "$r"
elif [ "$MODE" = isolate ]; then
	r=$($T mbind "$P" bind 1024)
	info "isolate: $r"
fi

# --- opting out revokes (tests/e2e-revoke.sh) ----------------------------------
section revoke

# --- "all nodes" masks (numactl --interleave=all) ------------------------------
# Bits of private nodes that did not opt in are ignored like those of offline
# nodes; only a mask naming nothing else fails (EINVAL, checked above).
hex() { printf '%x' "$1"; }
r=$($T setpol all interleave 256)
info "$r"
check "[ '$(field ok "$r")' = 1 ]" "set_mempolicy(MPOL_INTERLEAVE, all 64 node bits) accepted" "$r"
if [ "$MODE" = private ]; then
	check "[ '$(field "node$Q" "$r")' = '' ]" "interleave over all nodes puts nothing on non-opted-in node$Q" "$r"
	r=$($T mbind-mask "$(hex $((1 | (1 << Q))))" bind 256)
	info "$r"
	check "[ '$(field ok "$r")' = 1 ] && [ '$(field node0 "$r")' = 256 ]" "mbind(MPOL_BIND, {0,$Q}) with node$Q not opted in: accepted, 256/256 pages on node0" "$r"
fi

# --- move_pages() / migrate_pages() to a device node -----------------------------
# (private mode: node P opted in to mempolicy above)
r=$($T move "$P" 512)
info "$r"
check "[ '$(field rc "$r")' = 0 ] && [ '$(field on_node "$r")' = 512 ]" "move_pages() of 512 DRAM pages to node$P: all moved" "$r"
r=$($T migrate 1 "$(hex $((1 << P)))" 512)
info "$r"
check "[ '$(field rc "$r")' = 0 ] && [ '$(field "node$P" "$r")' = 512 ]" "migrate_pages(node0 -> node$P) of 512 pages: all moved" "$r"
if [ "$MODE" = private ]; then
	r=$($T move "$Q" 64)
	info "$r"
	check "[ '$(field errno "$r")' = 19 ] && [ '$(field on_node "$r")' = 0 ]" "move_pages() to non-opted-in private node$Q -> ENODEV" "$r"
	# root has CAP_SYS_NICE, which lets migrate_pages() leave a cpuset for
	# ordinary nodes only
	r=$($T migrate 1 "$(hex $((1 << Q)))" 64)
	info "$r"
	check "[ '$(field errno "$r")' = 1 ] && [ '$(field node0 "$r")' = 64 ] && [ -z '$(field "node$Q" "$r")' ]" "migrate_pages(node0 -> non-opted-in private node$Q) by root -> EPERM, 64/64 pages stay on node0" "$r"
fi

# --- access through cpusets (tests/e2e-access.sh) ---------------------------------
section access

# --- system-wide accounting (tests/e2e-accounting.sh) -----------------------------
section accounting

# --- per-node reports: numa_maps and memory.numa_stat ------------------------------
CG=/sys/fs/cgroup
if [ -f $CG/cgroup.subtree_control ] && echo +memory >$CG/cgroup.subtree_control 2>/dev/null &&
	mkdir -p $CG/pn-e2e && [ -f $CG/pn-e2e/memory.numa_stat ]; then
	r=$($T report "$P" 8192 $CG/pn-e2e)
	info "$r"
	check "[ '$(field numa_maps_pages "$r")' = 8192 ]" "numa_maps shows N$P=8192 for 8192 pages bound to node$P" "$r"
	check "[ '$(field numa_stat_anon_bytes "$r")' = $((8192 * 4096)) ]" "memory.numa_stat anon N$P = $((8192 * 4096)) bytes" "$r"
	rmdir $CG/pn-e2e 2>/dev/null
else
	skip "numa_maps / memory.numa_stat per-node report # no cgroup v2 memory controller"
	r=$($T report "$P" 8192)
	check "[ '$(field numa_maps_pages "$r")' = 8192 ]" "numa_maps shows N$P=8192 for 8192 pages bound to node$P" "$r"
fi

# --- mlock()/munlock() of pages bound to a device node -----------------------------
# Faulting under VM_LOCKED mlocks the pages; munlock() must clear that again
# (a private node without the reclaim opt-in is left out of mlock() itself).
r=$($T mlock "$P" 2048)
info "$r"
mb=$(field mlocked_before_kb "$r")
ma=$(field mlocked_after_kb "$r")
check "[ -n '$ma' ] && [ ${ma:-1} -le ${mb:-0} ]" "munlock() of 2048 pages on node$P leaves no Mlocked behind (${mb:-?} -> $(field mlocked_locked_kb "$r") -> ${ma:-?} kB)" "$r"

# --- DAMON (physical address space) acting on a device node's pages -------------
# migrate_cold to node 0 over the physical range of 2048 pages bound to node P:
# a private node's folios stay unless it opted in to numa_balancing (moving
# them elsewhere is placement policy); stock and isolate move them.
if [ -e /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds ]; then
	r=$($T damon "$P" 2048 migrate_cold 0)
	info "$r"
	on=$(field on_node "$r")
	if [ "$MODE" = private ]; then
		check "[ '$(field ok "$r")' = 1 ] && [ '${on:-0}' = 2048 ] && [ '$(field sz_applied "$r")' = 0 ]" "DAMON migrate_cold leaves node$P's folios alone without the opt-in (2048 of 2048 stay, 0 bytes applied)" "$r"
		echo 1 >"$(opt "$P" numa_balancing)"
		r=$($T damon "$P" 2048 migrate_cold 0)
		echo 0 >"$(opt "$P" numa_balancing)"
		info "$r"
		on=$(field on_node "$r")
		check "[ -n '$on' ] && [ '$(field ok "$r")' = 1 ] && [ ${on:-2048} -lt 2048 ]" "DAMON migrate_cold moves node$P's folios after the numa_balancing opt-in (${on:-?} of 2048 stay)" "$r"
	else
		check "[ '$(field ok "$r")' = 1 ] && [ ${on:-2048} -lt 2048 ]" "DAMON migrate_cold moves device-node folios to node0 ($MODE): ${on:-?} of 2048 stay" "$r"
	fi
else
	skip "DAMON migrate_cold on device-node pages # no DAMON sysfs"
fi

# --- demotion: reclaim of DRAM pages with demotion enabled and no swap ------------
# Stock kernels demote into dax/kmem nodes (a lower memory tier); isolate mode
# must do the same (it only drops the nodes from the fallback lists); private
# nodes receive nothing without the demotion opt-in.
DEM=/sys/kernel/mm/numa/demotion_enabled
if [ -w $DEM ] && [ -d $CG ] && mkdir -p $CG/pn-demote && [ -f $CG/pn-demote/memory.reclaim ]; then
	echo 1 >$DEM
	d0=$(vm pgdemote_direct)
	r=$($T demote $CG/pn-demote 4096)
	d1=$(vm pgdemote_direct)
	echo 0 >$DEM
	rmdir $CG/pn-demote 2>/dev/null
	info "$r; pgdemote_direct ${d0:-absent} -> ${d1:-absent}"
	dem=$(field demoted "$r")
	if [ "$MODE" = private ]; then
		check "[ '${dem:-x}' = 0 ]" "memory.reclaim with demotion enabled: nothing demoted into private nodes without opt-in" "$r"
	else
		check "[ ${dem:-0} -gt 0 ]" "memory.reclaim with demotion enabled demotes DRAM pages into the device nodes ($MODE, like stock): ${dem:-0} of 4096" "$r"
	fi
else
	skip "demotion into device nodes # no $DEM or no cgroup v2 memory.reclaim"
fi

# --- one request across several device nodes: MPOL_BIND / PREFERRED_MANY {P,Q} --------
if [ "$P" != "$Q" ]; then
	if [ "$MODE" = private ]; then
		echo 1 >"$(opt "$Q" mempolicy)" 2>/dev/null
	fi
	pq=$(hex $(((1 << P) | (1 << Q))))
	for mode in bind preferred_many; do
		n=$(($(nmem "$P" MemFree) / 4 + 16384))
		r=$($T mbind-mask "$pq" "$mode" "$n")
		rc=$?
		info "$r"
		onp=$(field "node$P" "$r")
		onq=$(field "node$Q" "$r")
		if [ "$MODE" = isolate ]; then
			# "only dropped from the fallback lists": node P's list does
			# not reach node Q, so the request never gets node Q's memory:
			# a strict bind is OOM-killed once P is full, preferred_many
			# spills to DRAM
			if [ "$mode" = bind ]; then
				check "[ $rc != 0 ] && [ ${onq:-0} = 0 ]" "$mode {$P,$Q} for $n pages (node$P free + 64 MiB), isolate model: not served across the devices (rc=$rc, node$Q ${onq:-0})" "rc=$rc $r"
			else
				check "[ $rc = 0 ] && [ ${onq:-0} = 0 ]" "$mode {$P,$Q} for $n pages, isolate model: node$P (${onp:-0}), none on node$Q, the rest on DRAM" "rc=$rc $r"
			fi
			continue
		fi
		check "[ $rc = 0 ] && [ $((${onp:-0} + ${onq:-0})) = $n ] && [ ${onq:-0} -gt 0 ]" "$mode {$P,$Q} for $n pages (node$P free + 64 MiB): all $n on node$P (${onp:-0}) and node$Q (${onq:-0})" "rc=$rc $r"
	done
	if [ "$MODE" = isolate ]; then
		ooms=$(dmesg | grep -c 'invoked oom-killer')
		check "[ $ooms = 1 ]" "isolate model: exactly one OOM kill, the strict bind across the devices ($ooms)" "$ooms OOM kills"
		[ "$ooms" -gt 0 ] && echo "PNBENCH-E2E-EXPECTED-OOM 1"
	else
		check "! dmesg | grep -q 'invoked oom-killer'" "no OOM killer with node$Q free" "oom-killer ran"
	fi
fi

# --- for_each_node-style spreading: hugetlb nr_hugepages ---------------------
# The pool is spread over N_MEMORY nodes; a private node must get none, an
# isolate-mode or stock device node does (the model's known leak).
HP=/proc/sys/vm/nr_hugepages
if [ -w $HP ]; then
	echo 24 >$HP
	got=$(cat $HP)
	for n in $devnodes; do
		h=$(cat "$NODE/node$n/hugepages/hugepages-2048kB/nr_hugepages" 2>/dev/null)
		if [ "$MODE" = private ]; then
			check "[ '${h:-0}' = 0 ]" "hugetlb nr_hugepages=24 spreading puts no huge page on node$n" "node$n got $h of $got"
		else
			info "hugetlb nr_hugepages=24 ($got allocated): node$n got ${h:-?} huge pages"
		fi
	done
	echo 0 >$HP
	# MPOL_BIND to a device node for a hugetlb page, with the pool on DRAM:
	# a private node has no pool, so the fault must fail (SIGBUS), never
	# silently take a DRAM huge page; stock/isolate get it on the node.
	echo 4 >$HP
	r=$($T hugetlb "$P")
	echo 0 >$HP
	info "$r"
	if [ "$MODE" = private ]; then
		check "[ '$(field sigbus "$r")' = 1 ]" "hugetlb fault under mbind(MPOL_BIND, node$P) fails (SIGBUS) instead of using DRAM" "$r"
	else
		info "hugetlb under mbind(MPOL_BIND, node$P): $r"
	fi
fi

# --- general allocation storm ------------------------------------------------
storm_file=''
if [ -b $pmem ] && mke2fs -q $pmem >/dev/null 2>&1 && mkdir -p /mnt/scratch && mount -t ext2 $pmem /mnt/scratch; then
	disk_mib=$(($(cat /sys/block/${pmem#/dev/}/size) / 2048))
	storm_file=/mnt/scratch/storm
else
	info "no scratch disk: page-cache part of the storm uses tmpfs-less fallback (anon only)"
fi
# MemAvailable with the device nodes' free memory in (kernels that report
# PrivateFree leave it out), less that memory: what DRAM offers
avail=$(awk '$1 == "MemAvailable:" || $1 == "PrivateFree:" { s += $2 } END { print s }' /proc/meminfo)
free_dev=0
for n in $devnodes; do free_dev=$((free_dev + $(nmem "$n" MemFree))); done
dram_avail_mib=$(((avail - free_dev) / 1024))
file_mib=0
if [ -n "$storm_file" ]; then
	file_mib=$((dram_avail_mib * 13 / 10))
	[ $file_mib -gt $((disk_mib - 64)) ] && file_mib=$((disk_mib - 64))
fi
for n in $devnodes; do
	eval "miss0_$n=$(nnuma "$n" numa_miss)"
	eval "used0_$n=$(nmem "$n" MemUsed)"
done
den0=$(vm pgalloc_private_denied)
pa0=$(vm pgalloc_private)
t0=$(cut -d' ' -f1 /proc/uptime)
out=$($T storm 50 "$file_mib" "${storm_file:-/tmp/none}" 5 2>&1)
src=$?
t1=$(cut -d' ' -f1 /proc/uptime)
echo "$out" | sed 's/^/E2E info storm: /'
den1=$(vm pgalloc_private_denied)
pa1=$(vm pgalloc_private)
info "storm took $(awk "BEGIN { print $t1 - $t0 }") s; pgalloc_private_denied ${den0:-absent} -> ${den1:-absent}; pgalloc_private ${pa0:-absent} -> ${pa1:-absent}"
check "[ $src = 0 ]" "storm (anon 50% + shmem 5% of DRAM, ${file_mib} MiB page cache) completed without OOM" "exit $src"
leak_kb=0
for n in $devnodes; do
	g=$(echo "$out" | sed -n "s/^R storm node=$n .*growth_kb=\([-0-9]*\).*/\1/p")
	m0=0
	eval "m0=\$miss0_$n"
	m1=$(nnuma "$n" numa_miss)
	miss=$((m1 - m0))
	leak_kb=$((leak_kb + ${g:-0}))
	info "node$n: MemUsed growth during storm ${g:-?} kB, numa_miss +$miss"
	if [ "$MODE" = stock ]; then
		echo "E2E leak node=$n growth_kb=${g:-0} numa_miss=$miss"
	else
		# tolerance: 1 MiB of per-node bookkeeping noise
		check "[ ${g:-999999} -le 1024 ]" "storm: node$n MemUsed growth ~0 (${g:-?} kB)" "grew ${g:-?} kB"
		check "[ $miss = 0 ]" "storm: node$n numa_miss stays 0" "numa_miss +$miss"
	fi
done

# --- the reclaim opt-in under memory cgroups and cpusets -------------------------
# Node P opted in to reclaim, swap on the scratch disk.  memory.reclaim of a
# cgroup whose pages sit on P must reach them (memcg reclaim walks the local
# node's zonelist, which lists no private zone), and a strict bind larger than
# P's free memory by a task in a child cpuset granted P (cpuset.mems 0,P) must
# reclaim P instead of OOM-killing or spilling to node 0 (shrink_zones() and
# wakeup_kswapd() reach P for a request the gate would serve there).
if [ "$MODE" = private ]; then
	[ -n "$storm_file" ] && rm -f "$storm_file"
	sw=/mnt/scratch/swap
	if [ -z "$storm_file" ] || [ ! -f $CG/cgroup.subtree_control ]; then
		skip "reclaim opt-in under memcg and cpusets # no scratch disk for swap or no cgroup v2"
	elif ! { dd if=/dev/zero of=$sw bs=1M count=384 2>/dev/null && mkswap $sw >/dev/null 2>&1 && swapon $sw; }; then
		skip "reclaim opt-in under memcg and cpusets # swapon $sw failed"
	else
		r=$($T damon "$P" 2048 pageout 0)
		info "$r"
		check "[ '$(field ok "$r")' = 1 ] && [ '$(field on_node "$r")' = 2048 ]" "DAMON pageout leaves node$P's folios alone without the reclaim opt-in ($(field on_node "$r") of 2048 stay)" "$r"
		echo 1 >"$(opt "$P" reclaim)"
		r=$($T damon "$P" 2048 pageout 0)
		info "$r"
		on=$(field on_node "$r")
		check "[ -n '$on' ] && [ '$(field ok "$r")' = 1 ] && [ ${on:-2048} -lt 2048 ]" "DAMON pageout swaps node$P's folios out with the reclaim opt-in (${on:-?} of 2048 stay)" "$r"
		mkdir -p $CG/pn-reclaim
		s0=$(vm pswpout)
		r=$($T reclaim $CG/pn-reclaim "$P" 8192)
		s1=$(vm pswpout)
		info "$r; pswpout ${s0:-absent} -> ${s1:-absent}"
		rmdir $CG/pn-reclaim 2>/dev/null
		rec=$(field reclaimed "$r")
		check "[ ${rec:-0} -ge 4096 ]" "memory.reclaim reaches node$P's pages with the reclaim opt-in: ${rec:-?} of 8192 swapped out" "$r"
		if echo +cpuset >$CG/cgroup.subtree_control 2>/dev/null && mkdir -p $CG/pn-cpuset &&
			echo "0,$P" >$CG/pn-cpuset/cpuset.mems 2>/dev/null; then
			n=$(($(nmem "$P" MemFree) / 4 + 8192))
			o0=$(dmesg | grep -c 'invoked oom-killer')
			s0=$(vm pswpout)
			r=$(in_cg $CG/pn-cpuset "$T" mbind "$P" bind "$n")
			rc=$?
			s1=$(vm pswpout)
			o1=$(dmesg | grep -c 'invoked oom-killer')
			dram=$(field node0 "$r")
			info "$r; pswpout ${s0:-absent} -> ${s1:-absent}; cpuset.mems $(cat $CG/pn-cpuset/cpuset.mems.effective)"
			check "[ $rc = 0 ] && [ $o1 = $o0 ] && [ $(d "${s0:-0}" "${s1:-0}") -gt 0 ] && [ -z '$dram' ]" "strict bind to node$P of $n pages (free + 32 MiB) from a child cpuset granted it (mems 0,$P): none on DRAM node0 (${dram:-0}; the rest of the $n is node$P's $(field on_node "$r") and swap), node$P reclaimed (+$(d "${s0:-0}" "${s1:-0}") pswpout), no OOM kill" "exit $rc, $((o1 - o0)) OOM kill(s): $r"
			rmdir $CG/pn-cpuset 2>/dev/null
		else
			skip "reclaim opt-in in a child cpuset # no cgroup v2 cpuset controller"
		fi
		section swap
		echo 0 >"$(opt "$P" reclaim)"
		swapoff $sw
		rm -f $sw
	fi
fi
[ -n "$storm_file" ] && umount /mnt/scratch

# --- explicit request larger than the device falls back to DRAM ---------------
if [ "$MODE" = private ]; then
	pfree=$(($(nmem "$P" MemFree) / 1024))
	big=$((pfree + 128))
	f0=$(vm pgalloc_private_fallback)
	nf0=$(nvm "$P" numa_private_fallback)
	a0=$(vm pgalloc_private)
	r=$($T prefer-big "$P" "$big")
	rc=$?
	f1=$(vm pgalloc_private_fallback)
	nf1=$(nvm "$P" numa_private_fallback)
	a1=$(vm pgalloc_private)
	info "$r"
	info "pgalloc_private ${a0:-absent} -> ${a1:-absent}, pgalloc_private_fallback ${f0:-absent} -> ${f1:-absent}, node$P numa_private_fallback ${nf0:-absent} -> ${nf1:-absent}"
	on=$(field on_node "$r")
	els=$(field elsewhere "$r")
	check "[ $rc = 0 ] && [ ${els:-0} -gt 0 ] && [ ${on:-0} -gt 0 ]" "MPOL_PREFERRED node$P for ${big} MiB (free ${pfree} MiB): completes, ${on:-?} pages on node$P, ${els:-?} on DRAM" "rc=$rc $r"
	check "[ $(d "${f0:-0}" "${f1:-0}") -gt 0 ]" "pgalloc_private_fallback moved (+$(d "${f0:-0}" "${f1:-0}"))" "${f0:-absent} -> ${f1:-absent}"
	check "[ $(d "${nf0:-0}" "${nf1:-0}") -gt 0 ]" "node$P numa_private_fallback moved (+$(d "${nf0:-0}" "${nf1:-0}"))" "${nf0:-absent} -> ${nf1:-absent}"
	check "[ $(d "${a0:-0}" "${a1:-0}") -ge ${on:-1} ]" "pgalloc_private moved with the pages placed (+$(d "${a0:-0}" "${a1:-0}"))" "${a0:-absent} -> ${a1:-absent}"
	check "! dmesg | grep -q 'invoked oom-killer'" "no OOM killer during fallback" "oom-killer ran"
fi

# --- /dev/private_node_test (tests/e2e-driver.sh) -------------------------------
if [ "$MODE" = private ]; then
	section driver
fi

# --- offline the device memory -------------------------------------------------
for n in $devnodes; do
	[ "$MODE" = private ] || [ "$MODE" = isolate ] || continue
	total=0 failed=0
	for m in "$NODE/node$n"/memory[0-9]*; do
		[ -e "$m/state" ] || continue
		[ "$(cat "$m/state")" = online ] || continue
		total=$((total + 1))
		echo offline >"$m/state" 2>/dev/null || failed=$((failed + 1))
	done
	if [ "$MODE" = isolate ] && [ "$ONLINE" = kernel ]; then
		# isolate model, ZONE_NORMAL: N_MEMORY iterators may have put
		# unmovable kernel memory there, so offline can legitimately fail
		info "isolate/online_kernel: offline of node$n: $failed of $total blocks failed"
	else
		check "[ $total -gt 0 ] && [ $failed = 0 ]" "offline of node$n's $total private memory blocks" "$failed of $total failed"
	fi
	info "after offline: node$n MemTotal=$(nmem "$n" MemTotal) kB has_private_memory=$(cat $NODE/has_private_memory 2>/dev/null)"
done

# --- hot-add kind: node Q's memory removed and added again, one kind per node ---
# (tests/e2e-hotadd.sh, last: it takes node Q's memory apart and restores it)
section hotadd
exit 0
