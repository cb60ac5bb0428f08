/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mpol.h - interleave node math of the kernel's memory policies, and the
 * weighted-interleave weights in sysfs.
 *
 * For a private anonymous mapping, Linux 6.12 places a fault at `addr` by
 * its interleave index ilx = (vm_pgoff >> order) + ((addr - vm_start) >>
 * (PAGE_SHIFT + order)) with vm_pgoff = vm_start >> PAGE_SHIFT
 * (get_vma_policy()); weighted_interleave_nid() takes ilx % sum(w) and walks
 * the policy's nodes in node-id order, node n covering w[n] consecutive
 * positions (a weight of 0 counts as 1).  MPOL_INTERLEAVE is the same walk
 * with every weight 1 (interleave_nid()).  So every page's node is a pure
 * function of its virtual page number (or of its folio's, with THP), which
 * is what pn_mpol_ilmap_compare() checks a move_pages(2) result against.
 */
#ifndef PN_MPOL_H
#define PN_MPOL_H

#include <stddef.h>
#include <stdint.h>

#include "core/lib/pn.h"

/* Debian 12's numaif.h predates Linux 6.9's weighted interleave. */
#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE 6
#endif

/* The weights directory, relative to the sysroot. */
#define PN_WIL_DIR "/sys/kernel/mm/mempolicy/weighted_interleave"

/* An interleave policy's node walk: nodes ascending, each with its weight. */
struct pn_mpol_ilmap {
	int nnodes;
	int node[PN_MAX_NODES];
	unsigned int weight[PN_MAX_NODES]; /* by position in node[] */
	uint64_t total;			   /* sum of weights */
};

/*
 * Build the walk over `nodes` with weights by node id (weights[n] for node
 * n; NULL = all 1, as MPOL_INTERLEAVE).  A weight of 0 counts as 1 (6.12).
 * -EINVAL for an empty set.
 */
int pn_mpol_ilmap_init(struct pn_mpol_ilmap *m, const struct pn_nodeset *nodes,
		       const unsigned int *weights);

/* The node of interleave index ilx (weighted_interleave_nid()). */
int pn_mpol_ilmap_nid(const struct pn_mpol_ilmap *m, uint64_t ilx);

/* Interleave index of a fault at addr of order `order` in a private
 * anonymous VMA that starts at vm_start (page_shift: 12 for 4 KiB pages). */
uint64_t pn_mpol_ilx_anon(uint64_t vm_start, uint64_t addr, unsigned int order,
			  unsigned int page_shift);

/* The outcome of comparing every page of a range with the walk. */
struct pn_mpol_ilcmp {
	uint64_t pages;		/* pages compared */
	uint64_t matched;	/* on the node the walk puts them on */
	uint64_t mismatched;	/* on another node */
	uint64_t unverified;	/* no node from move_pages (status < 0) */
	uint64_t folio_blocks;	/* whole folio-sized blocks on their folio's node */
	int64_t first_mismatch; /* page index, -1 if none */
	int first_expected, first_actual;
	uint64_t expected[PN_MAX_NODES]; /* pages the walk puts on each node */
	uint64_t actual[PN_MAX_NODES];	 /* pages move_pages found on each node */
};

/*
 * Compare status[i] (move_pages(2) node of page i of the mapping that
 * starts at vm_start, i < npages; negative = unknown) with the walk.
 * folio_order 0: every page by its own index.  folio_order > 0 (THP): an
 * aligned block of 2^order pages that lies wholly on the node of its folio
 * index counts as one folio; any other block is compared page by page
 * (the fault fell back to small pages).  With two or more nodes the two
 * readings never coincide for a whole block (weights are at most 255 <
 * 512), so the classification is unambiguous.  Accumulates into out (zero
 * it first).
 */
void pn_mpol_ilmap_compare(const struct pn_mpol_ilmap *m, uint64_t vm_start, size_t page_bytes,
			   unsigned int folio_order, const int *status, size_t npages,
			   struct pn_mpol_ilcmp *out);

/* move_pages(2) query of npages pages from addr into status (batched). */
int pn_mpol_query(const void *addr, size_t npages, size_t page_bytes, int *status);

/*
 * Which nodes have a weight file in PN_WIL_DIR (6.12: every possible node;
 * later kernels: nodes with memory).  -ENOENT when the directory is missing
 * (a kernel before 6.9, or without NUMA).
 */
int pn_mpol_wil_probe(struct pn_nodeset *have);
/* Node n's weight (1..255); -errno if unreadable. */
int pn_mpol_wil_read(int node, unsigned int *weight);
/*
 * The file of the weights' automatic mode (6.16+: "true" = the kernel
 * computes the weights from HMAT bandwidth; writing any nodeN turns it
 * "false" and nothing turns it back).  The kernel names the attribute
 * "auto", but in kernels built while compiler.h defined `auto` as
 * `__auto_type` the sysfs file is "__auto_type": both are probed.
 * Writes the sysroot-relative path; -ENOENT when neither exists.
 */
int pn_mpol_wil_auto_path(char *rel, size_t len);

/* Parse "3,1" (one weight per node of a set, in node-id order) into
 * weights[node]; -EINVAL (message in why) for a count mismatch or a value
 * outside 1..255. */
int pn_mpol_wil_parse(const char *s, const struct pn_nodeset *nodes, unsigned int *weights,
		      char *why, size_t whylen);

#endif /* PN_MPOL_H */
