/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fallback.h - the kernel's own counters of allocations that did not land
 * where they asked to, read before and after a workload spills.
 */
#ifndef PN_FALLBACK_H
#define PN_FALLBACK_H

#include <stdint.h>

#include "core/lib/pn.h"

struct pn_fallback {
	int64_t private_fallback;	   /* /proc/vmstat pgalloc_private_fallback, -1 absent */
	int64_t node_private_fallback;	   /* nodeN/vmstat numa_private_fallback summed over the
					    * policy nodes, -1 absent (reference series only) */
	int64_t miss_elsewhere;		   /* numa_miss summed over the other nodes */
	int64_t foreign_policy;		   /* numa_foreign summed over the policy nodes */
	int64_t oom_kill;		   /* /proc/vmstat oom_kill, -1 absent */
	int64_t free_policy[PN_MAX_NODES]; /* free pages (MemFree) of each policy node */
};

/* A /proc/vmstat item through the sysroot; -1 if absent or unreadable. */
int64_t pn_vmstat_item(const char *key);

/* Read every counter; nodes that cannot be read are left out. */
void pn_fallback_read(const struct pn_nodeset *policy, const struct pn_nodeset *others,
		      struct pn_fallback *c);

#endif /* PN_FALLBACK_H */
