/* SPDX-License-Identifier: GPL-2.0-only
 *
 * nodebuf.h - measurement buffers bound to one NUMA node, with huge pages
 * when the machine offers them, and a page census of where they really are.
 */
#ifndef PN_NODEBUF_H
#define PN_NODEBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/lib/pn.h"

enum pn_huge {
	PN_HUGE_NONE,	 /* base pages only (asked for) */
	PN_HUGE_AUTO,	 /* request: hugetlb if the node has free 2 MiB pages, else THP */
	PN_HUGE_THP,	 /* madvise(MADV_HUGEPAGE) */
	PN_HUGE_HUGETLB, /* MAP_HUGETLB, 2 MiB */
};
const char *pn_huge_name(enum pn_huge h); /* "none", "auto", "thp", "hugetlb" */

struct pn_nodebuf {
	void *addr;
	size_t bytes;	   /* mapped length (rounded up to 2 MiB) */
	int node;	   /* the node it is bound to (MPOL_BIND) */
	enum pn_huge huge; /* what was used (never AUTO) */
	/* census after pn_nodebuf_verify() */
	uint64_t pages_on_node, pages_elsewhere, pages_unverified, base_pages;
	uint64_t thp_bytes;   /* AnonHugePages of the mapping (smaps), THP only */
	int first_other_node; /* a node where misplaced pages were found, -1 none */
};

/*
 * Map `bytes` bound to `node`, with the huge page mode `want` (AUTO picks
 * hugetlb when nodeN has enough free 2 MiB pages, THP when THP is not
 * "never", else none), and write every page so it is faulted in.
 * Returns 0 or -errno (message printed).
 */
int pn_nodebuf_alloc(struct pn_nodebuf *b, int node, size_t bytes, enum pn_huge want);
/* move_pages census of every base page (and AnonHugePages for THP). */
int pn_nodebuf_verify(struct pn_nodebuf *b);
void pn_nodebuf_free(struct pn_nodebuf *b);
/* "none", "hugetlb", or for THP how much of it THP backed at the census:
 * "thp (100% of the buffer)". */
void pn_nodebuf_describe(const struct pn_nodebuf *b, char *buf, size_t len);

/* THP mode from /sys/kernel/mm/transparent_hugepage/enabled: "always",
 * "madvise", "never" or "" when absent (through the sysroot). */
void pn_thp_mode(char *buf, size_t len);

#endif /* PN_NODEBUF_H */
