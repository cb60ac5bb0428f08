/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * placement.h - page-exact placement checks and memory guards for workloads.
 */
#ifndef PN_PLACEMENT_H
#define PN_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "core/lib/pn.h"
#include "result.h"

/*
 * Ask the kernel where every page of [addr, addr+len) lives (move_pages with
 * NULL nodes, in batches) and add the counts to r: placed_pages[node],
 * intended_pages (node in `intended`), misplaced_pages (elsewhere),
 * unverified_pages (no answer for the page).  Sets r->verified.
 */
int pn_placement_verify(const void *addr, size_t len, const struct pn_nodeset *intended,
			struct pn_res *r);

/*
 * Refuse allocations that could OOM the machine: -ENOMEM with a message unless
 * bytes <= share * MemAvailable (share in (0,1]).  `what` names the caller
 * for the message ("workload explicit: size").
 */
int pn_mem_guard(uint64_t bytes, double share, const char *what);
/* The same, with the free memory of the nodes in `except` (private nodes)
 * taken out of MemAvailable first. */
int pn_mem_guard_except(uint64_t bytes, double share, const struct pn_nodeset *except,
			const char *what);

#endif /* PN_PLACEMENT_H */
