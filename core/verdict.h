/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verdict.h - verdict v0 from counters: growth of a private node's used memory
 * that the workloads' own verified explicit pages do not explain, by kind.
 */
#ifndef PN_VERDICT_H
#define PN_VERDICT_H

#include <stdbool.h>
#include <stdint.h>

#include "procfs.h"

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

struct pn_node_delta {
	int node;
	bool is_private;
	struct pn_nodemem before, after;
	struct pn_nodemem peak; /* field-wise maximum over the phase's samples */
	bool have_peak;
	int64_t explained_pages; /* verified explicit pages of workloads on this node */
	/* computed by pn_node_delta_compute(), pages */
	int64_t used_growth_pages;
	int64_t growth_pages[PN_NKINDS];
	int64_t peak_used_growth_pages; /* from peak, 0 without samples */
	/* max(0, used growth - explained), growth taken at the end of the phase or
	 * at its peak, whichever is larger: general allocations that came and went
	 * during the phase still count.  Explained pages only grow while a
	 * workload runs, so the peak form never blames explicit pages. */
	int64_t general_pages;
	int64_t general_by_kind[PN_NKINDS]; /* anon is net of explained pages */
	int64_t numa_hit_delta, numa_miss_delta, numa_foreign_delta, private_fallback_delta;
};

void pn_node_delta_compute(struct pn_node_delta *d, long page_size);
/* Fold a sample into d->peak. */
void pn_node_delta_sample(struct pn_node_delta *d, const struct pn_nodemem *m);
struct cJSON *pn_node_delta_to_json(const struct pn_node_delta *d);

#endif
