/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pagemap.h - where a process's pages are, page by page, from
 * /proc/PID/pagemap, each PFN mapped to its node by the memory-block layout
 * (pfnnode.h).
 *
 * Used where numa_maps and memory.numa_stat are blind (private nodes on
 * kernels that leave them out) and where move_pages(2) is not wanted: the
 * runner's --exec placement.
 *
 * Reading PFNs needs CAP_SYS_ADMIN (since Linux 4.2 they read as 0
 * otherwise): the census then returns -EPERM and callers fall back to
 * move_pages(2).  Every path goes through the sysroot (pn.h), so tests replay
 * captured /sys trees and synthetic /proc/PID/{maps,pagemap} files.
 */
#ifndef PN_PAGEMAP_H
#define PN_PAGEMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/lib/pn.h"
#include "pfnnode.h"

/* A virtual address range [start, end), bytes (page aligned or rounded out). */
struct pn_range {
	uint64_t start, end;
};

/*
 * Census of the base pages of some ranges.  pages = present + swapped +
 * none + unread; present = sum(node_pages) + unknown_pfn.  A transparent
 * huge page or a hugetlb page counts as its base pages (pagemap has one
 * entry per base page).
 */
struct pn_census {
	uint64_t page_bytes;		   /* base page size */
	uint64_t pages;			   /* base pages in the ranges */
	uint64_t present;		   /* in RAM (bit 63) */
	uint64_t swapped;		   /* in swap (bit 62) */
	uint64_t none;			   /* neither: never touched, or dropped */
	uint64_t unread;		   /* beyond what pagemap returned (above TASK_SIZE) */
	uint64_t unknown_pfn;		   /* present, PFN in no known block */
	uint64_t node_pages[PN_MAX_NODES]; /* present pages per node */
};

/*
 * Census of every VMA of /proc/PID/maps (pid 0: the calling process).
 * Cost: on Linux >= 6.7 the PAGEMAP_SCAN ioctl finds the present and swapped
 * regions, and only their entries are read (a 1 TiB reservation with 1000
 * touched pages: 0.2 ms); older kernels read 8 bytes per base page of
 * virtual size, populated or not (the same range: 3.2 s).  PAGEMAP_SCAN
 * skips VM_PFNMAP mappings ([vvar], device mmaps), which then count as none;
 * without it their present entries count (as unknown_pfn when the PFN is
 * outside every memory block).
 * Returns 0; -EPERM when PFNs are hidden (no CAP_SYS_ADMIN: a present page
 * reads PFN 0); -ENOENT when the process is gone; -EINVAL for malformed
 * maps; other -errno from open/pread.  *out is zeroed first and left zeroed
 * on failure.
 */
int pn_pagemap_census(pid_t pid, const struct pn_pfnnode *m, struct pn_census *out);
/* The same over the given ranges only (pid 0: the calling process, e.g. a
 * workload counting its own mappings without move_pages). */
int pn_pagemap_census_ranges(pid_t pid, const struct pn_range *r, size_t n,
			     const struct pn_pfnnode *m, struct pn_census *out);

#endif /* PN_PAGEMAP_H */
