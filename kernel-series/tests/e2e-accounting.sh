#!/bin/sh
# shellcheck shell=sh
# "System-wide accounting: meminfo, dirty limits, min_free_kbytes" section of tests/e2e-guest.sh, which sources it
# (busybox sh; e2e.sh ships it as /guest/e2e-accounting.sh). Uses that script's
# helpers and variables (check, skip, info, field, nmem, in_cg, T, P, Q, MODE).
# shellcheck disable=SC2153,SC2154
# Private memory serves only explicit requests: /proc/meminfo's MemTotal,
# MemFree and MemAvailable leave it out (PrivateTotal/PrivateFree report it),
# the global dirty limit is computed without it, and private zones take no
# share of min_free_kbytes from DRAM's zones.  Stock and isolate count the
# device memory as ordinary memory: the same figures are printed as info.
gm() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
sum_nodes() { # sum_nodes <meminfo key> <node...>: kB
	t=0
	for n in $2; do t=$((t + $(nmem "$n" "$1"))); done
	echo $t
}
allnodes=$(for n in "$NODE"/node[0-9]*; do printf '%s ' "${n##*node}"; done)
memnodes=$(for n in $allnodes; do case " $devnodes " in *" $n "*) ;; *) echo "$n" ;; esac; done | tr '\n' ' ')
tot_all=$(sum_nodes MemTotal "$allnodes")
tot_dev=$(sum_nodes MemTotal "$devnodes")
free_mem=$(sum_nodes MemFree "$memnodes")
file_kb=$(($(gm 'Active(file)') + $(gm 'Inactive(file)')))
avail=$(gm MemAvailable)
# the global dirty limit: dirty_ratio % of (free - reserves + file pages)
ratio=$(cat /proc/sys/vm/dirty_ratio)
thr_kb=$(($(vm nr_dirty_threshold) * 4))
bound_kb=$(((free_mem + file_kb) * ratio / 100 + 4))
# node 0's lowmem zones with memory (an empty or movable zone has a min of its own)
minsum=$(awk '$1 == "Node" { z = ($2 == "0," && $4 != "Movable") }
	z && $1 == "min" { mn = $2 } z && $1 == "managed" && $2 > 0 { s += mn } END { print s + 0 }' /proc/zoneinfo)
wmin=$(($(cat /proc/sys/vm/min_free_kbytes) / 4))
info "meminfo: MemTotal $(gm MemTotal) PrivateTotal $(gm PrivateTotal) MemFree $(gm MemFree) PrivateFree $(gm PrivateFree) MemAvailable $avail kB; nodes: all $tot_all, device $tot_dev, free on memory nodes $free_mem kB; dirty threshold $thr_kb kB (bound without the devices $bound_kb); node0 min watermarks $minsum pages of min_free_kbytes/4 = $wmin"
if [ "$MODE" = private ]; then
	ptot=$(gm PrivateTotal)
	check "[ '$ptot' = $tot_dev ]" "/proc/meminfo PrivateTotal = the device nodes' MemTotal ($tot_dev kB)" "PrivateTotal ${ptot:-absent}"
	check "[ $(($(gm MemTotal) + ${ptot:-0})) = $tot_all ]" "MemTotal + PrivateTotal = every node's MemTotal ($tot_all kB)" "MemTotal $(gm MemTotal), PrivateTotal ${ptot:-absent}"
	# PrivateFree is a counter kept by the buddy allocator (v3), the
	# nodes' MemFree a sum over their zones: equal but for per-cpu drift
	free_dev=$(sum_nodes MemFree "$devnodes")
	pfree=$(gm PrivateFree)
	dfree=$(( ${pfree:-0} - free_dev ))
	check "[ -n '$pfree' ] && [ ${dfree#-} -le 4096 ]" "/proc/meminfo PrivateFree = the device nodes' MemFree ($free_dev kB) within 4 MiB of per-cpu drift" "PrivateFree ${pfree:-absent}, difference $dfree kB"
	check "[ $avail -le $((free_mem + file_kb + $(gm KReclaimable))) ]" "MemAvailable ($avail kB) counts no private memory (<= free + file + reclaimable of the memory nodes)" "free $free_mem file $file_kb"
	check "[ $thr_kb -le $bound_kb ]" "global dirty threshold ($thr_kb kB) computed without the device nodes (<= $bound_kb kB)" "ratio $ratio"
	# rounding: one page per zone
	check "[ $minsum -ge $((wmin - 4)) ] && [ $minsum -le $((wmin + 4)) ]" "node0 keeps all of min_free_kbytes as min watermarks ($minsum of $wmin pages)" "$minsum"
fi

# The limits user space sizes by MemTotal agree with it, page-exactly, in every
# mode (the ABI patch: totalram_general_pages()): CommitLimit is
# (MemTotal - huge pages) * overcommit_ratio% + SwapTotal, a tmpfs mounted
# without size= holds MemTotal/2, one with size=10% a tenth of MemTotal.
mt_p=$(($(gm MemTotal) / 4))
hp_p=$(($(gm HugePages_Total) * $(gm Hugepagesize) / 4))
ocr=$(cat /proc/sys/vm/overcommit_ratio)
if [ "$(cat /proc/sys/vm/overcommit_kbytes)" = 0 ]; then
	want=$((((mt_p - hp_p) * ocr / 100) * 4 + $(gm SwapTotal)))
	check "[ '$(gm CommitLimit)' = $want ]" "CommitLimit ($(gm CommitLimit) kB) = (MemTotal - huge pages) x $ocr% + SwapTotal = $want kB" \
		"CommitLimit $(gm CommitLimit) kB, $(( ($(gm CommitLimit) - want) / 1024 )) MiB more"
else
	skip "CommitLimit from MemTotal # vm.overcommit_kbytes is set"
fi
tm=/tmp/pn-e2e-tmpfs
mkdir -p $tm
for sz in default 10%; do
	o=''
	[ $sz = default ] || o="-o size=$sz"
	# shellcheck disable=SC2086
	if mount -t tmpfs $o pn-e2e $tm 2>/dev/null; then
		got=$(df -k $tm | awk 'NR == 2 { print $2 }')
		# whole pages first, as the kernel counts them
		# shellcheck disable=SC2017
		if [ $sz = default ]; then want=$((mt_p / 2 * 4)); else want=$(((mt_p * 4096 / 10 + 4095) / 4096 * 4)); fi
		check "[ '$got' = $want ]" "tmpfs ($sz size) holds $want kB of MemTotal $(gm MemTotal) kB" "df says ${got:-?} kB, $(( (${got:-0} - want) / 1024 )) MiB more"
		umount $tm
	else
		skip "tmpfs ($sz size) from MemTotal # mount -t tmpfs failed"
	fi
done
