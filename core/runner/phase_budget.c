// SPDX-License-Identifier: GPL-2.0-only
/*
 * phase_budget.c - the memory budget of a phase's workloads together: all
 * of them within limits.max_mem_share of MemAvailable, and their anonymous
 * memory on general nodes within what general allocations can use.
 */
#include <stdint.h>
#include <stdio.h>

#include "phase.h"
#include "core/api/placement.h"

/* Refuse every workload of the phase that takes memory, for one reason. */
static void refuse_all(struct phase *p, const char *why)
{
	for (size_t i = 0; i < p->nslots; i++) {
		struct slot *s = &p->slots[i];

		if (!s->setup_ok || !s->w.mem_bytes)
			continue;
		s->setup_ok = false;
		snprintf(s->why, sizeof(s->why), "%s", why);
	}
}

/*
 * Anonymous memory on general nodes, held by the phase's workloads together
 * (foreground and background), against what general allocations can use:
 * each workload checks its own, but two that each fit can together exceed
 * DRAM on a private-node kernel, where MemAvailable no longer stretches onto
 * the devices, and without swap that is an OOM of the machine.
 */
static void check_general_anon(struct phase *p, double share)
{
	uint64_t sum = 0;
	char why[256];

	for (size_t i = 0; i < p->nslots; i++)
		if (p->slots[i].setup_ok)
			sum += p->slots[i].w.general_anon_bytes;
	if (!sum ||
	    !pn_mem_guard_except(sum, share, &p->r->topo.with_private_memory,
				 "the phase's workloads' anonymous memory on general nodes "
				 "together (MemAvailable less the private nodes' free memory)"))
		return;
	snprintf(why, sizeof(why),
		 "refused: the phase's workloads together hold %llu MiB of anonymous memory on "
		 "general nodes, over %.0f%% of what general allocations can use",
		 (unsigned long long)(sum >> 20), share * 100);
	refuse_all(p, why);
}

/* Every workload of the phase together within limits.max_mem_share. */
void pn_phase_check_budget(struct phase *p)
{
	uint64_t sum = 0;
	double share = p->r->c0->max_mem_share > 0 ? p->r->c0->max_mem_share : 0.9;

	for (size_t i = 0; i < p->nslots; i++)
		if (p->slots[i].setup_ok)
			sum += p->slots[i].w.mem_bytes;
	/* Against MemAvailable with the private nodes' free memory counted in
	 * (pn_mem_available(): the same figure on every kernel).  Workloads
	 * whose memory is not reclaimable size themselves without it, see
	 * pressure.c; pn_mem_guard_except() takes nodes out. */
	if (sum && pn_mem_guard(sum, share, "the phase's workloads together")) {
		char why[256];

		snprintf(why, sizeof(why),
			 "refused: the phase's workloads together need %llu MiB, over %.0f%% of "
			 "MemAvailable (limits.max_mem_share)",
			 (unsigned long long)(sum >> 20), share * 100);
		refuse_all(p, why);
		return;
	}
	check_general_anon(p, share);
}
