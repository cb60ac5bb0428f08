#!/bin/sh
# shellcheck shell=sh
# "/dev/private_node_test" section of tests/e2e-guest.sh, which sources it in
# private mode (busybox sh; e2e.sh ships it as /guest/e2e-driver.sh). Uses
# that script's helpers (check, skip, info, field, nmem) and T, P, ONLINE.
#
# The series' test device is a driver handing out device memory through its
# own mmap(): its faults take pages with dax/kmem's owner handle
# (node_private_alloc_pages()), strict (this node only, SIGBUS when full) or
# with fallback to DRAM. A driver without the owner's handle gets nothing
# there (series v3 before owner handles: any caller's __GFP_PRIVATE did).
# Its pages are movable (non-LRU movable pages: the driver migrates a page
# and zaps the user mappings, which fault the new page in), so device memory
# onlined ZONE_MOVABLE, or any block holding them, can still be offlined
# while they are mapped. Series v3 before the fix allocated them GFP_HIGHUSER_MOVABLE
# but could not move them: offlining such a block retried until killed
# (ZONE_MOVABLE) or failed with EBUSY (ZONE_NORMAL).
if [ -c /dev/private_node_test ]; then
	mask=$(printf '%x' $((1 << P)))
	pf=$(($(nmem "$P" MemFree) / 4))
	r=$($T chardev "$mask" fallback gfp 1024)
	info "$r"
	check "[ '$(field private_pages "$r")' = 1024 ] && [ '$(field sigbus "$r")' = 0 ]" "private_node_test fallback: 1024 pages on node$P" "$r"
	r=$($T chardev "$mask" strict gfp 1024)
	info "$r"
	check "[ '$(field private_pages "$r")' = 1024 ]" "private_node_test strict: 1024 pages on node$P" "$r"
	# Only the owner's handle opens the node: with one that owns nothing
	# each fault gets no page, on node P or in DRAM.
	r=$($T chardev "$mask" fallback unowned 256)
	info "$r"
	check "[ '$(field touched "$r")' = 0 ] && [ '$(field sigbus "$r")' = 256 ] && [ '$(field private_pages "$r")' = 0 ] && [ '$(field fallback_pages "$r")' = 0 ]" "private_node_test without the owner's handle: 0 of 256 pages, none on node$P, none in DRAM (SIGBUS)" "$r"
	# One request API (__GFP_PRIVATE): v2's second entry point and its
	# flag bit 1 are gone, and unknown flag bits are refused.
	r=$($T chardev "$mask" fallback ctx 1)
	info "$r"
	check "[ '$(field set_cfg_errno "$r")' = 22 ]" "private_node_test refuses flag bit 1 (v2's alloc-context API) with EINVAL" "$r"
	over=$((pf + 4096))
	r=$($T chardev "$mask" fallback gfp $over)
	info "$r"
	check "[ '$(field sigbus "$r")' = 0 ] && [ ${r:+$(field fallback_pages "$r")}0 -gt 0 ]" "private_node_test fallback beyond capacity ($over pages): falls back to DRAM, no SIGBUS" "$r"
	r=$($T chardev "$mask" strict gfp $over)
	info "$r"
	check "[ ${r:+$(field sigbus "$r")}0 -gt 0 ] && [ '$(field fallback_pages "$r")' = 0 ]" "private_node_test strict beyond capacity: SIGBUS, nothing on DRAM" "$r"
	check "! dmesg | grep -q 'invoked oom-killer'" "no OOM killer from strict device exhaustion" "oom-killer ran"
	# The device's pages move: offline the blocks of node P that hold them
	# while they are mapped (60 s per block, then the writer is killed).
	r=$($T drvmove "$mask" 1024 60)
	info "$r ($ONLINE)"
	nb=$(field blocks "$r")
	check "[ '$(field ok "$r")' = 1 ] && [ '$(field before "$r")' = 1024 ] && [ ${nb:-0} -gt 0 ] && [ '$(field offlined "$r")' = '$nb' ] && [ '$(field mismatched "$r")' = 0 ] && [ '$(field after "$r")' = 0 ]" "private_node_test's pages are movable: offlining the ${nb:-?} block(s) of node$P holding 1024 mapped device pages succeeds, every page keeps its contents and leaves node$P" "$r"
	hpm=$(cat "$NODE/has_private_memory" 2>/dev/null)
	check "[ '$(field restored "$r")' = '$(field offlined "$r")' ] && in_list $P '$hpm'" "the offlined block(s) online again, node$P still private (has_private_memory $hpm)" "$r"
else
	skip "/dev/private_node_test # CONFIG_TEST_PRIVATE_NODE device not present"
fi
