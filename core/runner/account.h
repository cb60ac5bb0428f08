/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * account.h - exact per-node accounting of a phase.
 *
 * A node's "used" memory is its managed pages - free pages - pages on the
 * per-CPU free lists (zoneinfo "pagesets ... count": free, but not in
 * MemFree), read after /proc/sys/vm/stat_refresh folds the per-CPU counter
 * deltas, from one pass over /proc/zoneinfo together with the kinds (its
 * per-node stats), so that they describe one moment.  The same refresh lets
 * the per-CPU lists decay, and the pages it frees are deltas it did not
 * fold (mm/vmstat.c refresh_cpu_vm_stats(): fold, then decay_pcp_high()):
 * a reading counts only once a pass moved nothing on the node's lists.  The kinds add up to
 * the total exactly: "other" is what no kind explains (vmalloc, percpu,
 * socket buffers, zsmalloc, raw driver pages, memmap).
 *
 * General pages on a private node = growth - the foreground workloads'
 * explicit pages there (their move_pages census), by kind (explicit pages
 * are anonymous, except those whose kind a cgroup's numa_stat gives: the
 * --exec --explicit command's page cache is netted from file growth), taken
 * at the end of the phase and at every sampled moment;
 * the moment with the most general pages wins (a transient allocation still
 * counts).  General pages by kind are each kind's growth beyond the explained
 * pages, never negative, and the total is their exact sum: page cache that
 * was reclaimed cannot hide slab that arrived.  The signed net growth is kept
 * beside it.  Explicit pages only grow during a phase, so comparing a
 * mid-phase moment with the final census never blames them.
 */
#ifndef PN_ACCOUNT_H
#define PN_ACCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sys/procfs.h"

struct cJSON;

enum pn_kind {
	PN_KIND_ANON,
	PN_KIND_FILE,
	PN_KIND_SLAB,
	PN_KIND_KERNEL_STACK,
	PN_KIND_PAGE_TABLES,
	PN_KIND_HUGETLB,
	PN_KIND_OTHER,
	PN_NKINDS
};
extern const char *const pn_kind_names[PN_NKINDS];

/* One exact reading of a node, pages. */
struct pn_node_read {
	uint64_t t_ns;
	int64_t used; /* total - free - pcp */
	int64_t pcp;
	int64_t pcp_moved; /* pages on/off its per-CPU lists in the last pass; -1: one pass */
	int64_t kinds[PN_NKINDS]; /* sum == used */
	int passes;		  /* stat_refresh + zoneinfo passes it took */
	bool unsettled;		  /* never settled: taken while the node was busy */
	bool failed;		  /* the counters could not be read: no reading */
};

/*
 * Passes a reading may take (pn_node_read_set()).  After a large free a
 * node's per-CPU lists shrink by an eighth of their high mark per pass down
 * to its floor, and a node without CPUs then gives up a batch every third
 * pass: about 50 passes for 4096 pages on a 512 MiB node (measured in the
 * reference guests, see tests/integration/test-suite-guest.sh).
 */
#define PN_SETTLE_PASSES_PRIVATE 96 /* before/after readings of private nodes */
#define PN_SETTLE_PASSES_OTHER	 12 /* of the others (not judged) */
#define PN_SETTLE_PASSES_SAMPLE	 6  /* samples during a phase (left out unless settled) */

/* Read every node in `nodes` (stat_refresh, then one pass over /proc/zoneinfo
 * for all of them), repeated until each node settled -- the pass before its
 * reading moved no page on or off its per-CPU lists, and the reading agrees
 * with the one before -- at most `passes` times.  out[i] and, if mem is not
 * NULL, mem[i] for the i-th node of the set; a node that never settled has
 * its last reading, marked unsettled. */
int pn_node_read_set(const struct pn_nodeset *nodes, bool refresh, int passes,
		     struct pn_node_read *out, struct pn_nodemem *mem);
/* Kinds from a snapshot plus its pcp pages. */
void pn_node_read_from(const struct pn_nodemem *m, int64_t pcp_pages, long page_size,
		       struct pn_node_read *out);

struct pn_general {
	int64_t total;		    /* sum of by_kind */
	int64_t by_kind[PN_NKINDS]; /* growth of each kind beyond explained pages, >= 0 */
	int64_t net;		    /* signed: growth - explained, kinds that shrank included */
	uint64_t t_ns;
	bool at_peak; /* the moment was a sample during the phase, not the end */
};

struct pn_node_acct {
	int node;
	bool is_private;
	struct pn_nodemem before_mem, after_mem;
	struct pn_node_read before, after;
	struct pn_node_read *samples; /* during the phase (private nodes) */
	size_t nsamples, capsamples;
	size_t unsettled_samples;      /* left out of the peak (computed) */
	int64_t explained_pages;       /* foreground explicit census on this node */
	int64_t explained_freed_pages; /* verified explicit pages freed before the end */
	/* of explained_pages, those of a known kind (from a cgroup's numa_stat),
	 * netted from that kind; the rest are anonymous (then "other") */
	int64_t explained_kind_pages[PN_NKINDS];
	/* computed by pn_node_acct_compute() */
	int64_t used_growth_pages; /* end - before */
	int64_t growth[PN_NKINDS];
	struct pn_general end, peak, general; /* general = the larger of end and peak */
	int64_t numa_hit_delta, numa_miss_delta, numa_foreign_delta, private_fallback_delta;
};

void pn_node_acct_sample(struct pn_node_acct *a, const struct pn_node_read *r);
void pn_node_acct_compute(struct pn_node_acct *a);
/* General pages at one moment against the final explained count, of which
 * explained_kind[k] (NULL: none) are of kind k. */
void pn_general_at(const struct pn_node_read *before, const struct pn_node_read *now,
		   int64_t explained, const int64_t *explained_kind, struct pn_general *g);
struct cJSON *pn_node_acct_json(const struct pn_node_acct *a);
void pn_node_acct_free(struct pn_node_acct *a);

#endif /* PN_ACCOUNT_H */
