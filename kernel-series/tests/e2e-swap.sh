#!/bin/sh
# shellcheck shell=sh
# "Swap-in keeps the private context" section of tests/e2e-guest.sh, which
# sources it from its reclaim section while swap is on and node P allows
# mempolicy and reclaim (busybox sh; e2e.sh ships it as /guest/e2e-swap.sh).
# Uses that script's helpers (check, skip, info, field) and T, P.
#
# Anonymous pages of a policy naming P were allocated there with the private
# context (vma_alloc_folio()); paged out (MADV_PAGEOUT) and read back they
# must come back to P, whichever path brings them in:
#   fault     do_swap_page()'s direct path on a synchronous swap device
#             (vma_alloc_folio(), right since series v2: the control);
#   fork      a swap entry shared with a child goes through the swap cache,
#             swapin_readahead(), with VMA readahead and with cluster
#             readahead (vma_ra_enabled=false reads the faulting slot only
#             under a private grant: the neighbouring slots may be anybody's);
#   willneed  madvise(MADV_WILLNEED), read_swap_cache_async().
# Series v3 before the fix brought fork and willneed pages back on DRAM.
#   neighbours  cluster readahead around bound pages read in order: 2 of
#             any 8 consecutive swap slots hold another mapping's pages (no
#             policy); read through the swap cache, none of them may come
#             back on P (they would under the bound pages' grant: the series
#             reads only the faulting slot then).
SW_RA=/sys/kernel/mm/swap/vma_ra_enabled
sw_pages=1024
sw_ra=$(cat $SW_RA 2>/dev/null)
for sw_case in vma:fault vma:fork vma:willneed cluster:fork cluster:neighbours; do
	ra=${sw_case%%:*}
	way=${sw_case#*:}
	if [ -z "$sw_ra" ]; then
		[ "$ra" = cluster ] && { skip "swap-in with cluster readahead # no $SW_RA"; continue; }
	elif [ "$ra" = cluster ]; then
		echo false >$SW_RA
	else
		echo true >$SW_RA
	fi
	r=$($T swapin "$P" $sw_pages "$way")
	info "$r ($ra readahead)"
	sw_out=$(field swapped "$r")
	if [ "${sw_out:-0}" -lt $((sw_pages / 2)) ]; then
		check "false" "swap-in ($way, $ra readahead): MADV_PAGEOUT swaps node$P's pages out" "only ${sw_out:-?} of $sw_pages swapped: $r"
		continue
	fi
	check "[ '$(field before "$r")' = $sw_pages ] && [ '$(field on_node "$r")' = $sw_pages ]" "swap-in ($way, $ra readahead): all $sw_pages pages back on node$P after ${sw_out} were swapped out" "$r"
	[ "$way" = neighbours ] || continue
	sw_oth=$(field others_swapped "$r")
	sw_n=$(field others "$r")
	check "[ ${sw_oth:-0} -ge $((${sw_n:-2} / 2)) ] && [ '$(field others_on_node "$r")' = 0 ]" "swap-in ($way, $ra readahead, page-cluster $(cat /proc/sys/vm/page-cluster 2>/dev/null)): none of the ${sw_oth:-?} swapped pages of a mapping without policy, in the slots between the bound ones, comes back on node$P" "$r"
done
[ -n "$sw_ra" ] && echo "$sw_ra" >$SW_RA
check "[ \"\$(cat $SW_RA 2>/dev/null)\" = '$sw_ra' ]" "swap readahead mode restored ($sw_ra)" "reads $(cat $SW_RA 2>/dev/null)"
