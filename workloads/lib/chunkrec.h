/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * chunkrec.h - one chunk's census for the exhaust workload: where the pages
 * of one mapping landed (pages per node, from move_pages(2) statuses) and
 * its fault time, small enough to sit in a page shared with the parent, and
 * what a run of them says: pages off the policy's nodes, the first chunk
 * that spilled.
 */
#ifndef PN_CHUNKREC_H
#define PN_CHUNKREC_H

#include <stddef.h>
#include <stdint.h>

#include "core/lib/pn.h"

#define PN_CHUNKREC_SLOTS 4 /* nodes recorded per chunk; the rest are summed in `other` */

struct pn_chunkrec {
	uint64_t lat_ns;
	uint32_t pages, unknown, other;	 /* unknown: no node (status < 0) */
	int16_t node[PN_CHUNKREC_SLOTS]; /* -1 past the last node seen */
	uint32_t on[PN_CHUNKREC_SLOTS];
};

/* The census of npages move_pages(2) statuses (node, or -errno) into rec;
 * rec->lat_ns is left as it is. */
void pn_chunkrec_fill(struct pn_chunkrec *rec, const int *status, size_t npages);
/* Pages of rec on the nodes of set. */
uint64_t pn_chunkrec_on(const struct pn_chunkrec *rec, const struct pn_nodeset *set);
/* "1:510,0:2" (node:pages, in the order first seen) and ",other:N". */
void pn_chunkrec_nodes_str(const struct pn_chunkrec *rec, char *buf, size_t len);
/* The node holding most of rec's pages, -1 if none. */
int pn_chunkrec_dominant(const struct pn_chunkrec *rec);
/* Over recs[0..n): pages with a node off set; the first chunk with such a
 * page (n if none). */
uint64_t pn_chunkrec_spilled(const struct pn_chunkrec *recs, size_t n,
			     const struct pn_nodeset *set);
size_t pn_chunkrec_first_spill(const struct pn_chunkrec *recs, size_t n,
			       const struct pn_nodeset *set);

#endif /* PN_CHUNKREC_H */
