#!/bin/sh
# shellcheck shell=sh
# "Access through cpusets" section of tests/e2e-guest.sh, which sources it
# (busybox sh; e2e.sh ships it as /guest/e2e-access.sh). Uses that script's
# helpers and variables (check, skip, info, field, nmem, in_cg, T, P, Q, MODE).
# shellcheck disable=SC2153,SC2154
# A private node that opted in to mempolicy is granted to the top cpuset, and
# from it to every cpuset whose cpuset.mems names it (or names none); a task in
# a cpuset not granted the node can name it in no policy and have no page moved
# to it, whoever asks: CAP_SYS_NICE lets migrate_pages() go outside a target's
# cpuset for ordinary nodes only (CONTRACT.md, series v3).  Refusals and DRAM
# placement are as expected; a page on node P from the confined cpuset is a
# leak.  Taking P out of a cpuset's mems revokes it like the opt-out does.
ACG=/sys/fs/cgroup
mems_in() { in_cg "$1" cat /proc/self/status | mems_allowed; } # of a task in cgroup $1
acc_labels="Mems_allowed mbind-bind mbind-preferred setpol-bind setpol-interleave interleave-0P move_pages migrate_pages migrate_pages-other granted-bind revoke-cpuset"
if [ "$MODE" != private ]; then
	for l in $acc_labels; do
		skip "access through cpusets: $l # $MODE kernel: node$P is ordinary memory, cpusets hand it out like any node"
	done
elif ! { [ -f $ACG/cgroup.subtree_control ] && echo +cpuset >$ACG/cgroup.subtree_control 2>/dev/null &&
	mkdir -p $ACG/pn-conf $ACG/pn-grant && echo 0 >$ACG/pn-conf/cpuset.mems 2>/dev/null &&
	echo "0,$P" >$ACG/pn-grant/cpuset.mems 2>/dev/null; }; then
	for l in $acc_labels; do
		skip "access through cpusets: $l # no cgroup v2 cpuset controller"
	done
else
	pm=$(hex $((1 << P)))
	m=$(mems_allowed </proc/self/status)
	mc=$(mems_in $ACG/pn-conf)
	mg=$(mems_in $ACG/pn-grant)
	check "in_list $P '$m' && ! in_list $Q '$m' && [ '$mc' = 0 ] && in_list $P '$mg'" \
		"access: Mems_allowed has opted-in node$P in the top cpuset ($m) and in a cpuset granted it ($mg), not node$Q, and only node0 in a cpuset of mems 0 ($mc)" \
		"top '$m', granted '$mg', confined '$mc'"
	for mode in bind preferred; do
		r=$(in_cg $ACG/pn-conf "$T" mbind "$P" $mode 64)
		check "[ '$(field errno "$r")' = 22 ] && [ -z '$(field "node$P" "$r")' ]" "access: mbind(MPOL_$(echo $mode | tr "[:lower:]" "[:upper:]"), node$P) from a cpuset of mems 0 -> EINVAL" "$r"
	done
	for mode in bind interleave; do
		r=$(in_cg $ACG/pn-conf "$T" setpol "$pm" $mode 64)
		check "[ '$(field errno "$r")' = 22 ] && [ -z '$(field "node$P" "$r")' ]" "access: set_mempolicy(MPOL_$(echo $mode | tr "[:lower:]" "[:upper:]"), {$P}) from a cpuset of mems 0 -> EINVAL" "$r"
	done
	r=$(in_cg $ACG/pn-conf "$T" mbind-mask "$(hex $((1 | (1 << P))))" interleave 256)
	check "[ '$(field ok "$r")' = 1 ] && [ '$(field node0 "$r")' = 256 ]" "access: mbind(MPOL_INTERLEAVE, {0,$P}) from a cpuset of mems 0: accepted, 256/256 on node0 (node$P ignored like an offline node)" "$r"
	r=$(in_cg $ACG/pn-conf "$T" move "$P" 64)
	check "[ '$(field errno "$r")' = 13 ] && [ '$(field on_node "$r")' = 0 ]" "access: move_pages() to node$P from a cpuset of mems 0 -> EACCES, none moved" "$r"
	r=$(in_cg $ACG/pn-conf "$T" migrate 1 "$pm" 64)
	check "[ '$(field rc "$r")' != 0 ] && [ -z '$(field "node$P" "$r")' ]" "access: migrate_pages(node0 -> node$P) from a cpuset of mems 0: refused, none moved" "$r"
	# not in_cg: $! must be the pid that execs sleep in pn-conf, not a subshell's
	sh -c "echo \$\$ >$ACG/pn-conf/cgroup.procs && exec sleep 60" &
	spid=$!
	sleep 1
	r=$($T migrate-pid $spid 1 "$pm")
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
	check "[ '$(field errno "$r")' = 1 ]" "access: migrate_pages() by root in the top cpuset of a task in a cpuset of mems 0 to node$P -> EPERM (CAP_SYS_NICE grants no private node)" "$r"
	r=$(in_cg $ACG/pn-grant "$T" mbind "$P" bind 256)
	check "[ '$(field on_node "$r")' = 256 ]" "access: mbind(MPOL_BIND, node$P) from a cpuset granted node$P (mems 0,$P): 256/256 on node$P" "$r"
	revoke_run mbind "$pm" $ACG/pn-grant
	info "$r1"
	info "${r2:-no second line}; helper exit $rrc; pn-grant cpuset.mems.effective after echo 0 > cpuset.mems: $off"
	a=$(field "node$P" "$r1")
	b0=$(field node0 "$r2")
	bp=$(field "node$P" "$r2")
	check "[ '${a:-0}' = $RV ] && [ '$off' = 0 ] && [ $rrc = 0 ] && [ '$(field sigbus "$r2")' = 0 ] && [ -z '$bp' ] && [ '${b0:-0}' = $RV ]" \
		"access: revoke by cpuset: mbind(MPOL_BIND,{$P}) in a cpuset granted node$P (first $RV pages on node$P: ${a:-0}), then cpuset.mems 0: the next $RV on node0 (${b0:-0}), none on node$P" \
		"before: ${r1:-none}; after: ${r2:-none}; mems.effective '$off', helper exit $rrc"
	rmdir $ACG/pn-conf $ACG/pn-grant 2>/dev/null
fi
