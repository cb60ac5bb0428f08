#!/bin/sh
# shellcheck shell=sh
# "Opting out revokes: policies set while node P was opted in" section of tests/e2e-guest.sh, which sources it
# (busybox sh; e2e.sh ships it as /guest/e2e-revoke.sh). Uses that script's
# helpers and variables (check, skip, info, field, nmem, in_cg, T, P, Q, MODE).
# shellcheck disable=SC2153,SC2154
# Turning node P's mempolicy opt-in off (echo 0) must reach the policies made
# while it was on: from then on P's bit in them counts for what it counts in a
# policy made after the opt-out, "ignored like an offline node's" (CONTRACT.md),
# and no new page goes to P.  A process binds, touches RV pages (on P), waits
# on a fifo while the opt-in is turned off, keeping its mapping and policy,
# then touches RV more.  Expected for those RV new pages:
#   MPOL_BIND {P}, by mbind() or set_mempolicy(): all on DRAM node 0, no
#     SIGBUS, no OOM kill.  Without P the mask names no node the fault may
#     use, and the series' rule for such a mask is that the request ignores
#     the policy instead of failing (a request without the private context
#     under a policy of private nodes only: patch 0009 and
#     Documentation/mm/private_nodes.rst), so the fault is served by the
#     local node.  Failing would not be clean for an anonymous fault: its
#     only ways to fail are SIGBUS, which the series keeps for hugetlb (a
#     private node has no pool), and the OOM killer, which would kill a task
#     for an administrator's opt-out with DRAM free.
#   MPOL_BIND {0,P}: all on node 0, what is left of the mask.
# The RV pages touched before the opt-out stay on P (an opt-out migrates
# nothing): reported as info, not checked.  The opt-in is set to 1 before each
# variant and restored to what it was at the end (checked: the sections below
# need node P opted in).
RV=1024
revoke_run() { # revoke_run <mbind|setpol> <mask_hex> [<cpuset dir>]: sets r1, r2, rrc, off
	# without a cpuset: revoked by echo 0 > the opt-in, off = the opt-in
	# after it; in <cpuset dir>: revoked by cpuset.mems 0, off = mems.effective
	knob=$(opt "$P" mempolicy)
	echo 1 >"$knob"
	rdir=$(mktemp -d /tmp/pn-revoke.XXXXXX)
	mkfifo "$rdir/in" "$rdir/out"
	if [ -n "$3" ]; then
		in_cg "$3" "$T" revoke "$1" "$2" $RV <"$rdir/in" >"$rdir/out" &
		knob=$3/cpuset.mems
	else
		$T revoke "$1" "$2" $RV <"$rdir/in" >"$rdir/out" &
	fi
	rpid=$!
	# the same order of opens as the helper's redirections: no deadlock
	exec 3>"$rdir/in" 4<"$rdir/out"
	r1='' off='not written'
	IFS= read -r r1 <&4
	if [ "$(field ok "$r1")" = 1 ]; then
		if echo 0 2>/dev/null >"$knob"; then
			off=$(cat "$knob")
			[ -n "$3" ] && off=$(cat "$3/cpuset.mems.effective")
		else
			off="write refused, reads $(cat "$knob")"
		fi
		# the helper is waiting for this line; should it have died, a
		# write to the fifo must not take SIGPIPE down with this shell
		(
			trap '' PIPE
			echo go >&3
		) 2>/dev/null
	fi
	exec 3>&-
	r2=$(cat <&4)
	exec 4<&-
	wait $rpid
	rrc=$?
	rm -rf "$rdir"
	echo 1 >"$(opt "$P" mempolicy)"
}
revoke_check() { # revoke_check <mbind|setpol> <mask_hex> <label>
	revoke_run "$1" "$2"
	info "$r1"
	info "${r2:-no second line}; helper exit $rrc; node$P/private/mempolicy after echo 0: $off"
	a=$(field "node$P" "$r1")
	check "[ '$(field ok "$r1")' = 1 ] && [ '${a:-0}' = $RV ]" "$3 while node$P is opted in: the first $RV pages on node$P (${a:-0})" "${r1:-no output, helper exit $rrc}"
	b0=$(field node0 "$r2")
	bp=$(field "node$P" "$r2")
	sb=$(field sigbus "$r2")
	un=$(field unknown "$r2")
	check "[ '$off' = 0 ] && [ $rrc = 0 ] && [ '${sb:-x}' = 0 ] && [ '${bp:-0}' = 0 ] && [ '${b0:-0}' = $RV ]" \
		"$3 after echo 0 > node$P/private/mempolicy: the next $RV pages go to node0, none to node$P (node0 ${b0:-0}, node$P ${bp:-0})" \
		"of $RV pages touched after the opt-out: node$P ${bp:-0}, node0 ${b0:-0}, sigbus ${sb:-?}, not faulted in ${un:-?}; opt-in reads '$off', helper exit $rrc; ${r2:-no second line}"
	fp=$(field "first_node$P" "$r2")
	f0=$(field first_node0 "$r2")
	info "$3: of the $RV pages touched before the opt-out, node$P holds ${fp:-0} and node0 ${f0:-0} now (not checked)"
}
rlabels="mbind(MPOL_BIND,{$P}) set_mempolicy(MPOL_BIND,{$P}) mbind(MPOL_BIND,{0,$P})"
if [ "$MODE" = private ]; then
	was=$(cat "$(opt "$P" mempolicy)")
	revoke_check mbind "$(printf '%x' $((1 << P)))" "revoke: mbind(MPOL_BIND,{$P})"
	revoke_check setpol "$(printf '%x' $((1 << P)))" "revoke: set_mempolicy(MPOL_BIND,{$P})"
	revoke_check mbind "$(printf '%x' $((1 | (1 << P))))" "revoke: mbind(MPOL_BIND,{0,$P})"
	echo "$was" >"$(opt "$P" mempolicy)"
	check "[ \"\$(cat $(opt "$P" mempolicy))\" = '$was' ]" "node$P mempolicy opt-in restored after the revocation checks ($was)" "reads $(cat "$(opt "$P" mempolicy)")"
else
	why="stock kernel: no private node, no mempolicy opt-in to revoke"
	[ "$MODE" = isolate ] && why="isolate mode: node$P is ordinary memory (N_MEMORY), mbind() to it needs no opt-in, none to revoke"
	for l in $rlabels; do
		skip "revoke: $l after echo 0 > node$P/private/mempolicy: no new page on node$P # $why"
	done
fi
