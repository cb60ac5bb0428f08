#!/bin/sh
# shellcheck shell=sh
# "Hot-add kind" section of tests/e2e-guest.sh, which sources it last (busybox
# sh; e2e.sh ships it as /guest/e2e-hotadd.sh).  Uses that script's helpers
# (ok, nok, skip, info, check, in_list, field) and MODE, ONLINE, T, NODE, P, Q.
#
# A node holds one kind of memory: while any memory block of the node exists,
# online or offline, hot-adding the other kind fails with -EBUSY and the
# kernel logs "node N: cannot mix private and ordinary memory"; the kind is
# chosen again only once all of the node's blocks are removed (CONTRACT.md,
# series v3).  Series v2 looked at online memory only, so memory added but
# not onlined let the other kind in, and the node's kind flipped: offline
# private blocks came online as ordinary memory, an ordinary DIMM private.
#
# Node Q boots with two dax devices, A and B (e2e.sh runs the private kind
# with run-guest.sh --split-dev: two legacy pmem regions; a label-less region
# has one namespace of fixed size, which ndctl cannot split).  Memory that
# kmem hot-adds here stays offline until the section onlines it
# (auto_online_blocks=offline): "added but offline" is the state under test.
#   setup    Q's blocks offlined, A and B unbound from kmem: no block left.
#   forward  A bound with Q in kmem's private_nodes: private, offline.  Q
#            dropped from private_nodes, B bound: refused (EBUSY), no new
#            block, "cannot mix" logged.  A's blocks onlined: Q is in
#            has_private_memory and not in has_memory.
#   reverse  Q emptied again; B bound without Q in private_nodes: ordinary,
#            offline.  Q put back, A bound: refused the same way.  B's blocks
#            onlined (online_movable, so that they can go offline again
#            whatever kernel allocations do meanwhile): Q is in has_memory
#            and not in has_private_memory.  Offlined again.
#            Between the two, A is added with kmem.private_tolerate narrowed to
#            mempolicy,reclaim: kmem registers as node Q's owner with those, and
#            the node's other opt-ins refuse writes with EPERM (sysfs narrows
#            what the owner declares, never widens it).
#   restore  Q as the section found it: A and B bound to kmem as private
#            memory, as many blocks, online if they were, private_nodes and
#            auto_online_blocks as before.
HA_KP=/sys/module/kmem/parameters/private_nodes
HA_TOL=/sys/module/kmem/parameters/private_tolerate
HA_AO=/sys/devices/system/memory/auto_online_blocks
HA_KMEM=/sys/bus/dax/drivers/kmem
HA_MEM=/sys/devices/system/memory
HA_MIX="node $Q: cannot mix private and ordinary memory"

ha_blocks() { # node Q's memory blocks, e.g. "memory37 memory39 "
	for m in "$NODE/node$Q"/memory[0-9]*; do
		[ -e "$m" ] && printf '%s ' "${m##*/}"
	done
}
ha_n() { echo $(($(echo "$1" | wc -w))); }
ha_online() { # ha_online <blocks>: how many are online
	c=0
	for b in $1; do
		[ "$(cat "$HA_MEM/$b/state")" = online ] && c=$((c + 1))
	done
	echo $c
}
ha_state() { # ha_state <online_movable|online_kernel|offline> <blocks>: prints failures
	f=0
	for b in $2; do
		s=$(cat "$HA_MEM/$b/state")
		[ "$s" = "${1%_*}" ] && continue
		echo "$1" >"$HA_MEM/$b/state" 2>/dev/null || f=$((f + 1))
	done
	echo $f
}
ha_bind() { # ha_bind <dax>: kmem probe through the driver's bind file; sets ha_errno
	r=$($T write "$HA_KMEM/bind" "$1")
	ha_errno=$(field errno "$r")
	ha_errno=${ha_errno:-"? ($r)"}
}
ha_unbind() { # ha_unbind <dax>...: from kmem, where bound
	for x in "$@"; do
		[ -e "$HA_KMEM/$x" ] && echo "$x" >"$HA_KMEM/unbind" 2>/dev/null
	done
	true
}
ha_bound() { # dax devices bound to kmem
	for x in "$HA_KMEM"/dax*; do
		[ -e "$x" ] && printf '%s ' "${x##*/}"
	done
}
ha_clear() { # offline and remove all of node Q's memory; sets ha_left (blocks left)
	ha_state offline "$(ha_blocks)" >/dev/null
	ha_unbind "$ha_a" "$ha_b"
	ha_left=$(ha_blocks)
}
ha_ids() { # ha_ids <nodelist>: its node ids, one a line
	echo "$1" | tr ',' '\n' | while IFS=- read -r a b; do
		[ -n "$a" ] && seq "$a" "${b:-$a}"
	done
}
# ha_kp <with|without>: kmem's private_nodes as found, with or without node Q
# (from the list: node Q's sysfs directory goes away while it has no memory)
ha_kp() {
	l=''
	for n in $(ha_ids "$ha_kp0"); do
		[ "$n" = "$Q" ] || l="$l${l:+,}$n"
	done
	[ "$1" = with ] && l="$l${l:+,}$Q"
	echo "$l" >"$HA_KP"
}
ha_kinds() { # the node lists, e.g. "has_memory=0 has_private_memory=1-2"
	echo "has_memory=$(cat "$NODE/has_memory") has_private_memory=$(cat "$NODE/has_private_memory")"
}
ha_kind() { # node Q's kind as the node lists show it
	k=''
	in_list "$Q" "$(cat "$NODE/has_memory")" && k=ordinary
	in_list "$Q" "$(cat "$NODE/has_private_memory")" && k="$k${k:+ and }private"
	echo "${k:-in neither list}"
}
ha_mixlog() { dmesg | tail -n +"$(($1 + 1))" | grep -c "$HA_MIX"; }
# ha_refused <label> <dax> <before-blocks>: bind <dax>, expect the kind rule to refuse it
ha_refused() {
	m0=$(dmesg | wc -l)
	ha_bind "$2"
	after=$(ha_blocks)
	mix=$(ha_mixlog "$m0")
	new=$(($(ha_n "$after") - $(ha_n "$3")))
	info "$1: bind $2 -> errno $ha_errno; node$Q blocks '$3' -> '$after'; '$HA_MIX' logged $mix time(s); $(ha_kinds)"
	check "[ '$ha_errno' = 16 ] && [ $new = 0 ] && [ $mix -ge 1 ]" \
		"$1 (kmem bind of $2: errno $ha_errno, EBUSY = 16 expected; node$Q memory blocks $(ha_n "$3") -> $(ha_n "$after"); 'cannot mix' in dmesg $mix time(s))" \
		"bind errno $ha_errno, $new new block(s) ($after), 'cannot mix' logged $mix time(s): the other kind was added to node$Q"
}

L1="hot-add kind: ordinary memory to node$Q (dax B, node$Q not in kmem private_nodes) while its private memory (dax A) is added but offline: refused"
L2="hot-add kind: dax A's private blocks onlined after that: node$Q in has_private_memory, not in has_memory (the kind did not flip)"
L3="hot-add kind (reverse): private memory to node$Q (dax A, node$Q in kmem private_nodes) while its ordinary memory (dax B) is added but offline: refused"
L4="hot-add kind (reverse): dax B's ordinary blocks onlined after that: node$Q in has_memory, not in has_private_memory"
L6="owner: node$Q added while kmem.private_tolerate was 'mempolicy,reclaim': private/owner kmem, private/tolerates 'mempolicy reclaim'; compaction, numa_balancing and demotion opt-ins refused (EPERM), reclaim accepted"
L5="hot-add kind: node$Q restored (dax A and B bound as private memory, blocks, private_nodes, auto_online_blocks as found)"
# ha_kept <label> <blocks> <in> <out>: online <blocks>; they all come online
# and node Q is in has_<in>, not in has_<out> (memory, private_memory): the
# kind the earlier add decided is the one the node has
ha_kept() {
	f=$(ha_state online_movable "$2")
	on=$(ha_online "$2")
	hin=$(cat "$NODE/has_$3")
	hout=$(cat "$NODE/has_$4")
	check "[ $on = $(ha_n "$2") ] && in_list $Q '$hin' && ! in_list $Q '$hout'" \
		"$1: $on of $(ha_n "$2") blocks online, has_$3 '$hin', has_$4 '$hout'" \
		"$f online failure(s); node$Q came online $(ha_kind)"
}
# ha_owner: node Q (private, online) as kmem registered it with the narrowed
# tolerances; its opt-ins turned off again
ha_owner() {
	o=$(cat "$NODE/node$Q/private/owner" 2>/dev/null)
	t=$(cat "$NODE/node$Q/private/tolerates" 2>/dev/null)
	e=''
	for f in compaction numa_balancing demotion reclaim; do
		r=$($T write "$(opt "$Q" $f)" 1)
		e="$e $f=$(field errno "$r")$(cat "$(opt "$Q" $f)")"
	done
	echo 0 >"$(opt "$Q" reclaim)"
	info "owner: node$Q owner '$o', tolerates '$t'; write 1 -> errno and value:$e"
	check "[ '$o' = kmem ] && [ '$t' = 'mempolicy reclaim' ] && [ '$e' = ' compaction=10 numa_balancing=10 demotion=10 reclaim=01' ]" \
		"$L6" "owner '$o', tolerates '$t', errno/value per opt-in:$e"
}
ha_skip_all() { # ha_skip_all <reason> [first [last]]: skip checks L<first>..L<last>
	i=0
	for l in "$L1" "$L2" "$L3" "$L4" "$L5" "$L6"; do
		i=$((i + 1))
		[ $i -ge "${2:-1}" ] && [ $i -le "${3:-6}" ] && skip "$l # $1"
	done
}

ha_a='' ha_b=''
for d in /sys/bus/dax/devices/dax*; do
	[ -e "$d/target_node" ] || continue
	[ "$(cat "$d/target_node")" = "$Q" ] || continue
	if [ -z "$ha_a" ]; then ha_a=${d##*/}; elif [ -z "$ha_b" ]; then ha_b=${d##*/}; fi
done
if [ "$MODE" = stock ]; then
	ha_skip_all "stock kernel: no private memory, no kind to keep"
elif [ "$MODE" != private ]; then
	ha_skip_all "isolate mode: device nodes are N_MEMORY too (has_memory lists them), so the kind is not seen where this checks it; checked in private mode"
elif [ "$P" = "$Q" ]; then
	ha_skip_all "one device node only: node$Q is also the node the other sections use"
elif [ -z "$ha_b" ] || [ ! -w $HA_KP ] || [ ! -w $HA_TOL ] || [ ! -w $HA_AO ] || [ ! -e $HA_KMEM/bind ]; then
	nok "hot-add kind: node$Q has two dax devices and kmem's private_nodes and private_tolerate are writable # dax devices of node$Q: '$ha_a${ha_b:+ $ha_b}' (run-guest.sh --split-dev gives it two); $HA_KP $([ -w $HA_KP ] || echo 'not ')writable; $HA_TOL $([ -w $HA_TOL ] || echo 'not ')writable"
	ha_skip_all "no second dax device on node$Q or no writable kmem private_nodes"
else
	ha_kp0=$(cat $HA_KP)
	ha_tol0=$(cat $HA_TOL)
	ha_ao0=$(cat $HA_AO)
	ha_all0=$(ha_blocks)
	ha_on0=$(ha_online "$ha_all0")
	info "hot-add kind: node$Q dax devices A=$ha_a B=$ha_b; blocks '$ha_all0' ($ha_on0 online); private_nodes '$ha_kp0'; auto_online_blocks $ha_ao0; $(ha_kinds)"
	echo offline >$HA_AO
	ha_clear
	info "hot-add kind setup: node$Q's blocks offlined, $ha_a and $ha_b unbound: blocks left '$ha_left'; bound to kmem '$(ha_bound)'; auto_online_blocks $(cat $HA_AO); $(ha_kinds)"
	if [ -n "$ha_left" ] || [ -e "$HA_KMEM/$ha_a" ] || [ -e "$HA_KMEM/$ha_b" ]; then
		nok "hot-add kind setup: node$Q's $(ha_n "$ha_all0") blocks offlined and removed # blocks left '$ha_left'; bound to kmem: '$(ha_bound)'"
		ha_skip_all "setup failed: node$Q's memory could not be removed"
	else
		# --- forward: private added (offline), then ordinary -------------
		ha_kp with
		echo mempolicy,reclaim >$HA_TOL
		ha_bind "$ha_a"
		echo "$ha_tol0" >$HA_TOL
		ha_ablk=$(ha_blocks)
		info "hot-add kind: private_nodes '$(cat $HA_KP)': bind $ha_a -> errno $ha_errno; node$Q blocks '$ha_ablk' ($(ha_online "$ha_ablk") online)"
		if [ "$ha_errno" != 0 ] || [ -z "$ha_ablk" ] || [ "$(ha_online "$ha_ablk")" != 0 ]; then
			nok "$L1 # setup: private bind of $ha_a errno $ha_errno, node$Q blocks '$ha_ablk' ($(ha_online "$ha_ablk") online; expected some, none online)"
			ha_skip_all "the private memory (dax A) was not added offline" 2 4
			ha_skip_all "the private memory (dax A) was not added offline" 6 6
		else
			ha_kp without
			info "hot-add kind: private_nodes now '$(cat $HA_KP)'"
			ha_refused "$L1" "$ha_b" "$ha_ablk"
			ha_kept "$L2" "$ha_ablk" private_memory memory
			ha_owner

			# --- reverse: ordinary added (offline), then private ---------
			ha_clear
			ha_bind "$ha_b"
			ha_bblk=$(ha_blocks)
			info "hot-add kind (reverse): node$Q emptied (blocks left '$ha_left'); private_nodes '$(cat $HA_KP)': bind $ha_b -> errno $ha_errno; node$Q blocks '$ha_bblk' ($(ha_online "$ha_bblk") online)"
			if [ -n "$ha_left" ] || [ "$ha_errno" != 0 ] || [ -z "$ha_bblk" ] || [ "$(ha_online "$ha_bblk")" != 0 ]; then
				nok "$L3 # setup: blocks left after removal '$ha_left'; ordinary bind of $ha_b errno $ha_errno, node$Q blocks '$ha_bblk' ($(ha_online "$ha_bblk") online; expected some, none online)"
				ha_skip_all "the ordinary memory (dax B) was not added offline" 4 4
			else
				ha_kp with
				info "hot-add kind (reverse): private_nodes now '$(cat $HA_KP)'"
				ha_refused "$L3" "$ha_a" "$ha_bblk"
				ha_kept "$L4" "$ha_bblk" memory private_memory
			fi
		fi

		# --- restore ------------------------------------------------------
		ha_clear
		ha_left1=$ha_left
		echo "$ha_kp0" >$HA_KP
		ha_bind "$ha_a"
		ea=$ha_errno
		ha_bind "$ha_b"
		eb=$ha_errno
		ha_all=$(ha_blocks)
		f=0
		[ "$ha_on0" -gt 0 ] && f=$(ha_state "online_$ONLINE" "$ha_all")
		echo "$ha_ao0" >$HA_AO
		on=$(ha_online "$ha_all")
		kp=$(cat $HA_KP)
		ao=$(cat $HA_AO)
		hp=$(cat "$NODE/has_private_memory")
		info "hot-add kind restore: blocks left before it '$ha_left1'; bind $ha_a errno $ea, $ha_b errno $eb; node$Q blocks '$ha_all' ($on online, $f failure(s)); private_nodes '$kp'; auto_online_blocks $ao; $(ha_kinds)"
		check "[ '$ea$eb' = 00 ] && [ $(ha_n "$ha_all") = $(ha_n "$ha_all0") ] && [ $on = $ha_on0 ] && [ '$kp' = '$ha_kp0' ] && [ '$ao' = '$ha_ao0' ] && { [ $on = 0 ] || in_list $Q '$hp'; }" \
			"$L5: $(ha_n "$ha_all") blocks ($on online) of $(ha_n "$ha_all0") ($ha_on0)" \
			"bind errno $ea/$eb; private_nodes '$kp' (was '$ha_kp0'), auto_online_blocks '$ao' (was '$ha_ao0'); $(ha_kinds)"
	fi
fi
