// SPDX-License-Identifier: GPL-2.0-only
/*
 * pgacct_report.c - what pgacct.c found in a phase, as the report the verdict
 * reads (struct pn_event_report) and its JSON details: per private node the
 * totals, the series' events, by kind (gfp decoded), by process, examples.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgacct_int.h"

static void add_num(cJSON *o, const char *k, int64_t v)
{
	cJSON_AddNumberToObject(o, k, (double)v);
}

static void gfp_str(const struct pn_pgacct *a, uint64_t gfp, char *buf, size_t len)
{
	if (!a->cfg.gfp_names || pn_tpflags_decode(a->cfg.gfp_names, gfp, buf, len) < 0)
		snprintf(buf, len, "0x%llx", (unsigned long long)gfp);
}

static cJSON *kinds_json(const struct pn_pgacct *a, const struct pnode *n)
{
	cJSON *arr = cJSON_CreateArray();
	char g[256];

	for (size_t i = 0; i < n->nkinds; i++) {
		const struct kind *k = &n->kinds[i];
		cJSON *o = cJSON_CreateObject();

		gfp_str(a, k->gfp, g, sizeof(g));
		cJSON_AddStringToObject(o, "class",
					k->cls == CLS_EXPLICIT ? "explicit" : "general");
		cJSON_AddStringToObject(o, "gfp", g);
		snprintf(g, sizeof(g), "0x%llx", (unsigned long long)k->gfp);
		cJSON_AddStringToObject(o, "gfp_raw", g);
		add_num(o, "order", k->order);
		add_num(o, "migratetype", k->mt);
		add_num(o, "pages", k->pages);
		add_num(o, "events", k->events);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static int cmp_pid(const void *x, const void *y)
{
	const struct pidacct *a = x, *b = y;
	int64_t pa = a->general_pages + a->explicit_pages,
		pb = b->general_pages + b->explicit_pages;

	return pa > pb ? -1 : pa < pb;
}

static bool is_cpid(const struct pn_pgacct *a, uint32_t pid)
{
	for (size_t i = 0; i < a->ncp; i++)
		if (a->cpids[i] == pid)
			return true;
	return false;
}

/* The 32 processes with most pages, and every process of the phase. */
static cJSON *pids_json(struct pn_pgacct *a, struct pnode *n)
{
	cJSON *arr = cJSON_CreateArray();

	if (n->npids)
		qsort(n->pids, n->npids, sizeof(*n->pids), cmp_pid);
	for (size_t i = 0; i < n->npids; i++) {
		const struct pidacct *p = &n->pids[i];
		cJSON *o;

		if (i >= 32 && !is_cpid(a, p->pid) && !pn_pgacct_is_xpid(a, p->pid))
			continue;
		o = cJSON_CreateObject();
		add_num(o, "pid", p->pid);
		cJSON_AddStringToObject(o, "comm", pn_pgacct_comm_of(a, p->pid));
		add_num(o, "general_pages", p->general_pages);
		add_num(o, "explicit_pages", p->explicit_pages);
		add_num(o, "freed_pages", p->freed_pages);
		add_num(o, "events", p->events);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static cJSON *examples_json(struct pn_pgacct *a, const struct pnode *n)
{
	cJSON *arr = cJSON_CreateArray();
	char g[256];

	for (size_t i = 0; i < n->nex; i++) {
		const struct pn_pgev *e = &n->ex[i];
		cJSON *o = cJSON_CreateObject();

		add_num(o, "t_ns", (int64_t)e->time_ns);
		add_num(o, "cpu", e->cpu);
		add_num(o, "pid", e->pid);
		cJSON_AddStringToObject(o, "comm", pn_pgacct_comm_of(a, e->pid));
		snprintf(g, sizeof(g), "0x%llx", (unsigned long long)e->pfn);
		cJSON_AddStringToObject(o, "pfn", g);
		add_num(o, "order", e->order);
		gfp_str(a, e->gfp, g, sizeof(g));
		cJSON_AddStringToObject(o, "gfp", g);
		add_num(o, "migratetype", e->aux);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static cJSON *series_json(const struct pn_pgacct *a, const struct pnode *n)
{
	cJSON *o = cJSON_CreateObject(), *sk = cJSON_CreateObject();
	char r[128];

	add_num(o, "private_alloc_pages", n->series_alloc_pages);
	add_num(o, "private_fallback_pages", n->series_fallback_pages);
	for (size_t i = 0; i < n->nreasons; i++) {
		if (!a->cfg.skip_reasons ||
		    pn_tpflags_decode(a->cfg.skip_reasons, n->reasons[i].reason, r, sizeof(r)) < 0)
			snprintf(r, sizeof(r), "%llu", (unsigned long long)n->reasons[i].reason);
		add_num(sk, r, n->reasons[i].events);
	}
	cJSON_AddItemToObject(o, "skips", sk);
	return o;
}

static cJSON *node_json(struct pn_pgacct *a, struct pnode *n, const struct pn_event_node *r)
{
	cJSON *o = cJSON_CreateObject();

	add_num(o, "node", n->node);
	add_num(o, "alloc_pages", n->alloc_pages);
	add_num(o, "free_pages", n->free_pages);
	add_num(o, "net_pages", r->net_pages);
	add_num(o, "explicit_pages", n->explicit_pages);
	add_num(o, "explicit_freed_pages", n->explicit_freed_pages);
	add_num(o, "general_alloc_pages", n->general_alloc_pages);
	add_num(o, "general_freed_pages", n->general_freed_pages);
	add_num(o, "general_pages", r->general_pages);
	add_num(o, "before_phase_general_pages", n->before_phase_general_pages);
	add_num(o, "unmatched_free_pages", n->unmatched_free_pages);
	add_num(o, "live_realloc_events", n->live_realloc_events);
	cJSON_AddItemToObject(o, "series", series_json(a, n));
	cJSON_AddItemToObject(o, "by_kind", kinds_json(a, n));
	cJSON_AddItemToObject(o, "by_process", pids_json(a, n));
	cJSON_AddItemToObject(o, "examples", examples_json(a, n));
	return o;
}

static cJSON *per_node_json(const struct pn_pgacct *a)
{
	cJSON *o = cJSON_CreateObject();
	char k[16];

	for (size_t i = 0; i <= PN_MAX_NODES; i++) {
		cJSON *n;

		if (!a->node_alloc[i] && !a->node_free[i])
			continue;
		snprintf(k, sizeof(k), "%d", (int)i - 1);
		n = cJSON_AddObjectToObject(o, i ? k : "unknown");
		add_num(n, "alloc_pages", a->node_alloc[i]);
		add_num(n, "free_pages", a->node_free[i]);
	}
	return o;
}

int pn_pgacct_phase_end(struct pn_pgacct *a, int64_t lost, struct pn_event_report *rep)
{
	cJSON *d = cJSON_CreateObject(), *nodes = cJSON_CreateArray();

	for (size_t i = 0; i < a->nnodes; i++) {
		struct pnode *n = &a->nodes[i];
		struct pn_event_node *r = &a->rep[i];

		n->alloc_pages = a->node_alloc[n->node + 1];
		n->free_pages = a->node_free[n->node + 1];
		*r = (struct pn_event_node){
			.node = n->node,
			.explicit_pages = n->explicit_pages,
			.general_alloc_pages = n->general_alloc_pages,
			.general_freed_pages = n->general_freed_pages,
			.general_pages = n->general_alloc_pages - n->general_freed_pages,
			.net_pages = n->alloc_pages - n->free_pages,
			.lost_events = lost,
			.inconclusive = lost > 0 || a->unknown_pages > 0,
		};
		cJSON_AddItemToArray(nodes, node_json(a, n, r));
	}
	add_num(d, "events", a->events);
	add_num(d, "failed_allocs", a->failed_allocs);
	add_num(d, "bad_order_events", a->bad_events);
	add_num(d, "unknown_node_pages", a->unknown_pages);
	cJSON_AddItemToObject(d, "per_node", per_node_json(a));
	cJSON_AddItemToObject(d, "private_nodes", nodes);
	rep->nnodes = a->nnodes;
	rep->nodes = a->rep;
	rep->events = a->events;
	rep->lost_events = lost;
	rep->details = d;
	a->in_phase = false;
	/* what comes until the next phase_begin() is counted from zero and
	 * reported there as before_phase_general_pages */
	pn_pgacct_phase_reset(a);
	return 0;
}
