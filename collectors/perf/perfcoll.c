// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfcoll.c - what the perf collector reports beside the page accounting:
 * lost data per CPU and per event, why a node's events are inconclusive,
 * the node counters the events are reconciled with, and page_owner's
 * allocation stacks of the pages on each tracked node.  See perfcoll_int.h.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgowner.h"
#include "perfcoll_int.h"
#include "core/sys/procfs.h"

/* ---- lost data ---- */

/*
 * Lost samples so far, per ring (CPU) in ring_lost[] if given, and in all:
 * per CPU the larger of the two sources (PERF_RECORD_LOST is written only
 * once a later record fits; PERF_FORMAT_LOST, per event, is immediate).
 * details gets both sources, per CPU and per event.
 */
uint64_t pn_perfcoll_lost(struct perfcoll *p, uint64_t *ring_lost, cJSON *details)
{
	cJSON *pc = details ? cJSON_CreateArray() : NULL,
	      *pe = details ? cJSON_CreateObject() : NULL;
	uint64_t total = p->lost_samples;

	for (size_t i = 0; pe && i < PN_TP_N; i++)
		if (p->dec.td[i].present)
			cJSON_AddArrayToObject(pe, pn_pgdec_names[i]);
	for (size_t r = 0; r < p->nrings; r++) {
		uint64_t fmt = 0;

		for (size_t ev = 0, i = 0; i < PN_TP_N; i++) {
			uint64_t count, lost = 0, id;

			if (!p->dec.td[i].present)
				continue;
			if (!pn_perfring_counts(p->ring, ev++, r, &count, &lost, &id))
				fmt += lost;
			if (pe)
				cJSON_AddItemToArray(cJSON_GetObjectItem(pe, pn_pgdec_names[i]),
						     cJSON_CreateNumber((double)lost));
		}
		if (pc) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddNumberToObject(o, "cpu", pn_perfring_ring_cpu(p->ring, r));
			cJSON_AddNumberToObject(o, "lost_records", (double)p->lost_rec[r]);
			cJSON_AddNumberToObject(o, "format_lost", (double)fmt);
			cJSON_AddItemToArray(pc, o);
		}
		fmt = fmt > p->lost_rec[r] ? fmt : p->lost_rec[r];
		if (ring_lost)
			ring_lost[r] = fmt;
		total += fmt;
	}
	if (details) {
		cJSON *o = cJSON_AddObjectToObject(details, "lost");

		cJSON_AddNumberToObject(o, "lost_samples_records", (double)p->lost_samples);
		cJSON_AddItemToObject(o, "per_cpu", pc);
		cJSON_AddItemToObject(o, "per_event_per_cpu", pe);
	}
	return total;
}

/* Why the events cannot clear the nodes: "57 events lost on CPU 1". */
void pn_perfcoll_reasons(struct perfcoll *p, const uint64_t *ring_lost, struct pn_event_report *rep)
{
	cJSON *arr = cJSON_AddArrayToObject(rep->details, "inconclusive_reasons");
	const cJSON *unknown = cJSON_GetObjectItem(rep->details, "unknown_node_pages");
	char why[128];

	for (size_t r = 0; r < p->nrings; r++) {
		uint64_t d = ring_lost[r] - p->lost_begin_ring[r];

		if (!d)
			continue;
		snprintf(why, sizeof(why), "%llu events lost on CPU %d", (unsigned long long)d,
			 pn_perfring_ring_cpu(p->ring, r));
		cJSON_AddItemToArray(arr, cJSON_CreateString(why));
	}
	if (cJSON_GetNumberValue(unknown) > 0) {
		snprintf(why, sizeof(why), "%.0f pages in no known memory block",
			 cJSON_GetNumberValue(unknown));
		cJSON_AddItemToArray(arr, cJSON_CreateString(why));
	}
}

/* ---- counters beside the events ---- */

void pn_perfcoll_used(const struct perfcoll *p, int64_t *used)
{
	struct pn_nodemem m;
	int node;

	(void)pn_stat_refresh(); /* exact node counters where we may (root) */
	pn_nodeset_for_each (node, &p->nodes)
		used[node] = pn_nodemem_read(node, &m) ? INT64_MIN : m.used;
}

/* Event net pages against the node's MemUsed delta, each with its source. */
void pn_perfcoll_reconcile(struct perfcoll *p, const struct pn_event_report *rep)
{
	static int64_t used_end[PN_MAX_NODES];
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(rep->details, "private_nodes");
	int64_t page = (int64_t)p->map.page_bytes;
	cJSON *o;
	size_t i = 0;

	pn_perfcoll_used(p, used_end);
	cJSON_ArrayForEach (o, arr) {
		const struct pn_event_node *n = &rep->nodes[i++];
		cJSON *r = cJSON_AddObjectToObject(o, "counters");
		int64_t d;

		if (used_end[n->node] == INT64_MIN || p->used_begin[n->node] == INT64_MIN)
			continue;
		d = (used_end[n->node] - p->used_begin[n->node]) / page;
		cJSON_AddStringToObject(r, "source", "nodeN/meminfo MemUsed (after stat_refresh)");
		cJSON_AddNumberToObject(r, "used_delta_pages", (double)d);
		cJSON_AddNumberToObject(r, "event_net_pages", (double)n->net_pages);
		/* pages on per-CPU lists are used for the counters, free for the events */
		cJSON_AddNumberToObject(r, "event_minus_counter_pages", (double)(n->net_pages - d));
	}
}

/* ---- page_owner forensics ---- */

void pn_perfcoll_page_owner(struct perfcoll *p, const struct pn_phase_ctx *ctx,
			    const struct pn_event_report *rep)
{
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(rep->details, "private_nodes"), *o;
	uint32_t *xp = pn_xcalloc(ctx && ctx->npids ? ctx->npids : 1, sizeof(*xp));
	struct pn_pfnrange *r = pn_xcalloc(p->map.n ? p->map.n : 1, sizeof(*r));
	size_t nxp = 0, i = 0;

	for (size_t k = 0; ctx && k < ctx->npids; k++)
		if (ctx->pids[k].explicit_alloc && !ctx->pids[k].background)
			xp[nxp++] = (uint32_t)ctx->pids[k].pid;
	cJSON_ArrayForEach (o, arr) {
		const struct pn_event_node *n = &rep->nodes[i++];
		struct pn_pgowner ow;
		char why[256];
		size_t nr = 0;

		for (size_t k = 0; k < p->map.n; k++)
			if (p->map.r[k].node == n->node)
				r[nr++] = p->map.r[k];
		pn_pgowner_init(&ow, r, nr, xp, nxp);
		if (pn_pgowner_read(&ow, why, sizeof(why))) {
			cJSON *s = cJSON_AddObjectToObject(o, "page_owner");

			cJSON_AddStringToObject(s, "skipped", why);
		} else {
			cJSON_AddItemToObject(o, "page_owner",
					      pn_pgowner_json(&ow, (size_t)p->owner_top));
		}
		pn_pgowner_free(&ow);
	}
	free(r);
	free(xp);
}
