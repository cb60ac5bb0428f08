/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pgacct.h - page accounting from allocator events: per node allocations
 * and frees, and for every private node the classification of each page
 * (explicit or general), by kind (gfp flags, order, migratetype), by
 * process, the first examples, and which of its general pages were freed
 * again within the phase.
 *
 * Events arrive in time order (pn_perfmerge()) as struct pn_pgev, already
 * decoded and with the node of their pfn.  The accounting is single
 * threaded: the caller serialises apply() with the phase calls.
 *
 * A page allocated on a private node is explicit when the request carried
 * the private context - the gfp bit the format names __GFP_PRIVATE - or
 * when a foreground explicit workload's process (or a process it forked
 * after the phase began) made it; otherwise it is general.
 */
#ifndef PN_PAGEACCT_H
#define PN_PAGEACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/api/collector.h"
#include "core/lib/pn.h"
#include "tpfmt.h"

enum pn_pgev_kind {
	PN_PGEV_ALLOC = 1,  /* kmem:mm_page_alloc */
	PN_PGEV_FREE,	    /* kmem:mm_page_free */
	PN_PGEV_PRIV_ALLOC, /* kmem:mm_private_alloc (reference series) */
	PN_PGEV_PRIV_SKIP,  /* kmem:mm_private_skip (reference series) */
	PN_PGEV_FORK,	    /* PERF_RECORD_FORK */
};

struct pn_pgev {
	uint64_t time_ns; /* first: the merge orders by it */
	uint64_t pfn;	  /* ALLOC/FREE/PRIV_SKIP; FORK: the parent's pid */
	uint64_t gfp;	  /* ALLOC/PRIV_ALLOC: gfp flags; PRIV_SKIP: reason */
	uint32_t pid, cpu;
	int32_t node; /* node of pfn (PN_PFNNODE_UNKNOWN); PRIV_*: the event's nid */
	int32_t aux;  /* ALLOC: migratetype; PRIV_ALLOC: preferred nid */
	uint8_t kind, order, fallback;
};

struct pn_pgacct_cfg {
	struct pn_nodeset private_nodes;
	uint64_t private_gfp;		    /* the __GFP_PRIVATE bit, 0 where the kernel has none */
	size_t nexamples;		    /* first N general allocations kept per node */
	const struct pn_tpflags *gfp_names; /* for decoding kinds; may be NULL */
	const struct pn_tpflags *skip_reasons;
};

struct pn_pgacct;

int pn_pgacct_new(struct pn_pgacct **out, const struct pn_pgacct_cfg *cfg);
void pn_pgacct_free(struct pn_pgacct *a);

/* One event (hot path). */
void pn_pgacct_apply(struct pn_pgacct *a, const struct pn_pgev *e);
/* The same for an ALLOC/FREE event of a node that is not tracked
 * (pn_pgacct_tracked() false): only the totals, in any order, and only pfn,
 * order, kind and node are read.  Returns the pages counted, 0 for a failed
 * allocation or an impossible order. */
int64_t pn_pgacct_count(struct pn_pgacct *a, const struct pn_pgev *e);
/* Is node one whose pages are classified (a private node)?  Events of other
 * nodes only add to per-node totals, in any order. */
bool pn_pgacct_tracked(const struct pn_pgacct *a, int node);
/* Optional: warm the cache for a page whose event will be applied soon. */
void pn_pgacct_prefetch(struct pn_pgacct *a, int node, uint64_t pfn);
/* The command name of pid (PERF_RECORD_COMM); otherwise read from /proc at
 * first sight. */
void pn_pgacct_comm(struct pn_pgacct *a, uint32_t pid, const char *comm);

/* A phase begins: per-phase totals restart, ctx's explicit pids are noted. */
void pn_pgacct_phase_begin(struct pn_pgacct *a, const struct pn_phase_ctx *ctx);
/*
 * The phase ended (every event up to now applied): fill rep->nodes (one per
 * private node, owned by a until the next phase_end or free) and
 * rep->details (handed over).  lost is what the rings lost during the phase:
 * every private node is inconclusive when lost > 0, or when pages whose pfn
 * maps to no known memory block were seen.
 */
int pn_pgacct_phase_end(struct pn_pgacct *a, int64_t lost, struct pn_event_report *rep);

/* Totals since creation, for tests and the benchmark. */
struct pn_pgacct_totals {
	int64_t events, alloc_pages, free_pages, unknown_node_pages;
};
void pn_pgacct_totals(const struct pn_pgacct *a, struct pn_pgacct_totals *t);
/* Pages pid allocated on private node `node` since the last phase_begin()
 * or phase_end(), and of those, freed again. */
int64_t pn_pgacct_pid_pages(const struct pn_pgacct *a, int node, uint32_t pid, int64_t *freed);

#endif /* PN_PAGEACCT_H */
