/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pfnnode.h - which NUMA node a page frame number belongs to, from the
 * memory-block layout in sysfs (through the sysroot):
 *
 *   /sys/devices/system/memory/block_size_bytes   hex, no 0x ("8000000")
 *   /sys/devices/system/node/nodeN/memoryM        block M is on node N
 *
 * Block M covers pfns [M * block_pages, (M + 1) * block_pages).  Hot-plug
 * adds and removes blocks during a run (what private devices do), so the
 * map is reloaded: pn_pfnnode_refresh() rebuilds it when the layout changed.
 * A pfn in no known block is PN_PFNNODE_UNKNOWN, which callers count.
 *
 * Users: the perf collector (the node of every traced page, and the
 * tracepoint filter below) and the pagemap census (pagemap.h).
 */
#ifndef PN_PFNNODE_H
#define PN_PFNNODE_H

#include <stddef.h>
#include <stdint.h>

#define PN_PFNNODE_UNKNOWN (-1)

struct pn_pfnrange {
	uint64_t start_pfn, end_pfn; /* [start, end) */
	int node;
};

struct pn_pfnnode {
	size_t n;
	struct pn_pfnrange *r; /* sorted by start_pfn, adjacent same-node blocks merged */
	uint64_t block_pages;  /* pages per memory block */
	uint64_t page_bytes;
	size_t nblocks;		 /* memory blocks found on some node */
	unsigned int generation; /* bumped by every reload that changed the map */
};

/*
 * (Re)load the layout (page size from sysconf unless page_bytes is set).
 * m is zeroed (page_bytes aside) or holds a map, which a reload frees, also
 * on failure (m is then empty).  Returns 0; -ENOENT without
 * /sys/devices/system/memory (no memory hot-plug support, or a sysroot
 * without it); -EINVAL (logged) for a block size that is not a power of two
 * multiple of the page, or a block linked from two nodes; other -errno from
 * reading the tree.
 */
int pn_pfnnode_load(struct pn_pfnnode *m);
/* Reload; 1 if the map changed, 0 if not, -errno (the old map is kept). */
int pn_pfnnode_refresh(struct pn_pfnnode *m);
/* Node of pfn, or PN_PFNNODE_UNKNOWN.  Binary search over the ranges. */
int pn_pfnnode_lookup(const struct pn_pfnnode *m, uint64_t pfn);
/* The range holding pfn (valid until the next refresh), or NULL. */
const struct pn_pfnrange *pn_pfnnode_find(const struct pn_pfnnode *m, uint64_t pfn);
void pn_pfnnode_free(struct pn_pfnnode *m);

struct pn_nodeset;
/*
 * A tracepoint filter (PERF_EVENT_IOC_SET_FILTER syntax) on field `field`
 * that drops the pfns of every known range whose node is not in keep:
 * "!(pfn >= 0x0 && pfn < 0x80000) && ...".  Pfns in no known range (a block
 * hot-added since the last reload) pass.  "" when nothing is dropped.
 * Returns the length or -ENOSPC.
 */
int pn_pfnnode_filter(const struct pn_pfnnode *m, const struct pn_nodeset *keep, const char *field,
		      char *buf, size_t len);

#endif /* PN_PFNNODE_H */
