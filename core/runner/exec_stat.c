// SPDX-License-Identifier: GPL-2.0-only
/*
 * exec_stat.c - every run of the --exec command kept in the runner's state
 * (exec_stat.h): taken from the phase's own structures once its accounting
 * is done (the census, the nodes' readings, the command's cgroup, its
 * counters, the event collectors' report), never read back from run.json.
 * (The --exit-status rule that reads them is exec_status.c.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cjson/cJSON.h>

#include "exec_stat.h"
#include "phase.h"

/* What a cgroup leaf holds on a node: the kinds the attribution sums
 * (phase_json.c): v1 anon, file, unevictable; v2 anon, file, kernel stack,
 * page tables, slab. */
static int64_t leaf_pages(const struct pn_cgroup_node *n, int version)
{
	int64_t p = n->pages[PN_CGROUP_ANON] + n->pages[PN_CGROUP_FILE];

	if (version == 1)
		return p + n->pages[PN_CGROUP_UNEVICTABLE];
	return p + n->pages[PN_CGROUP_KERNEL_STACK] + n->pages[PN_CGROUP_PAGETABLES] +
	       n->pages[PN_CGROUP_SLAB];
}

/* An event collector saw the whole phase on the node: the verdict judges
 * its end, else the larger of end and peak (phase_json.c node_json()). */
static bool events_whole(const struct phase *p, int node)
{
	for (size_t i = 0; p->reps && i < p->r->ncolls; i++) {
		if (p->r->colls[i].ops->kind != PN_COLL_EVENT)
			continue;
		for (size_t n = 0; n < p->reps[i].nnodes; n++)
			if (p->reps[i].nodes[n].node == node && !p->reps[i].nodes[n].inconclusive)
				return true;
	}
	return false;
}

static struct pn_exec_node *node_of(struct pn_exec_run *e, int node)
{
	for (int i = 0; i < e->nnodes; i++)
		if (e->nodes[i].node == node)
			return &e->nodes[i];
	e->nodes = pn_xrealloc(e->nodes, (size_t)(e->nnodes + 1) * sizeof(*e->nodes));
	memset(&e->nodes[e->nnodes], 0, sizeof(*e->nodes));
	e->nodes[e->nnodes].node = node;
	e->nodes[e->nnodes].numa_maps = -1;
	return &e->nodes[e->nnodes++];
}

static void record_nodes(struct phase *p, struct pn_exec_run *e)
{
	const struct pn_exec_state *x = &p->exec;
	long ps = p->r->page_size > 0 ? p->r->page_size : 4096;

	for (int k = 0; k < p->nnodes; k++) {
		const struct pn_node_acct *a = &p->acct[k];
		struct pn_exec_node *n = node_of(e, a->node);
		const struct pn_general *g = events_whole(p, a->node) ? &a->end : &a->general;

		n->role = true;
		n->is_private = a->is_private;
		n->growth = a->used_growth_pages;
		n->general = g->total > 0 ? g->total : 0;
		memcpy(n->general_kind, g->by_kind, sizeof(n->general_kind));
		n->in_leaf = x->cgn ? leaf_pages(&x->cgn[k], p->r->cg.version) : 0;
	}
	for (int node = 0; node < PN_MAX_NODES; node++) {
		int64_t nm = x->have_numa_maps
				     ? (int64_t)(x->numa_maps.node_bytes[node] / (uint64_t)ps)
				     : 0;
		struct pn_exec_node *n;

		if (!x->peak_pages[node] && !nm && !pn_nodeset_test(&p->nodes, node))
			continue;
		n = node_of(e, node);
		n->peak = x->peak_pages[node];
		n->last = x->last_pages[node];
		n->anon = x->last_anon_pages[node];
		n->numa_maps = x->have_numa_maps ? nm : -1;
	}
}

static void take_sites(const cJSON *list, struct pn_exec_site **out, int *nout, bool procs)
{
	const cJSON *it;

	cJSON_ArrayForEach (it, list) {
		struct pn_exec_site *s;

		*out = pn_xrealloc(*out, (size_t)(*nout + 1) * sizeof(**out));
		s = &(*out)[(*nout)++];
		memset(s, 0, sizeof(*s));
		snprintf(s->what, sizeof(s->what), "%s", pn_json_str(it, procs ? "comm" : "gfp"));
		snprintf(s->cls, sizeof(s->cls), "%s", pn_json_str(it, "class"));
		s->order =
			(int)cJSON_GetNumberValue(cJSON_GetObjectItem(it, procs ? "pid" : "order"));
		s->npids = 1;
		s->pages = (int64_t)cJSON_GetNumberValue(
			cJSON_GetObjectItem(it, procs ? "general_pages" : "pages"));
		if (procs)
			s->pages2 = (int64_t)cJSON_GetNumberValue(
				cJSON_GetObjectItem(it, "explicit_pages"));
		s->events = (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(it, "events"));
	}
}

/* The event collectors' report of the phase, still the collectors' (the
 * phase's JSON takes it over next): per private node, by kind and process. */
static void record_events(struct phase *p, struct pn_exec_run *e)
{
	for (size_t i = 0; p->reps && i < p->r->ncolls; i++) {
		const cJSON *pn;

		if (p->r->colls[i].ops->kind != PN_COLL_EVENT)
			continue;
		cJSON_ArrayForEach (pn, cJSON_GetObjectItem(p->reps[i].details, "private_nodes")) {
			struct pn_exec_events *ev;

			e->ev = pn_xrealloc(e->ev, (size_t)(e->nev + 1) * sizeof(*e->ev));
			ev = &e->ev[e->nev++];
			memset(ev, 0, sizeof(*ev));
			ev->node = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(pn, "node"));
			ev->general_alloc = (int64_t)cJSON_GetNumberValue(
				cJSON_GetObjectItem(pn, "general_alloc_pages"));
			ev->explicit_pages = (int64_t)cJSON_GetNumberValue(
				cJSON_GetObjectItem(pn, "explicit_pages"));
			take_sites(cJSON_GetObjectItem(pn, "by_kind"), &ev->sites, &ev->nsites,
				   false);
			take_sites(cJSON_GetObjectItem(pn, "by_process"), &ev->procs, &ev->nprocs,
				   true);
		}
	}
}

void pn_exec_record(struct phase *p)
{
	struct run *r = p->r;
	struct pn_exec_state *x = &p->exec;
	struct pn_exec_log *l;
	struct pn_exec_run *e;
	char why[256];

	pn_exec_metrics_end(x);
	if (!x->started)
		return;
	if (!r->exec_log)
		r->exec_log = pn_xcalloc(1, sizeof(*r->exec_log));
	l = r->exec_log;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->runs = pn_xrealloc(l->runs, l->cap * sizeof(*l->runs));
	}
	e = &l->runs[l->n++];
	memset(e, 0, sizeof(*e));
	e->point = (size_t)(p->c - r->cs.points);
	snprintf(e->phase, sizeof(e->phase), "%s", p->ph->name);
	e->started = true;
	e->exited = x->exited && (WIFEXITED(x->status) || WIFSIGNALED(x->status));
	e->interrupted = pn_should_stop() != 0;
	if (e->exited)
		e->status =
			WIFEXITED(x->status) ? WEXITSTATUS(x->status) : 128 + WTERMSIG(x->status);
	e->census = x->method ? x->method : "none";
	e->have_elapsed = x->go_ns && x->exit_ns > x->go_ns;
	e->elapsed_ns = e->have_elapsed ? x->exit_ns - x->go_ns : 0;
	e->have_counts = x->have_counts;
	e->counts = x->counts;
	if (!x->have_counts)
		snprintf(e->sw_why, sizeof(e->sw_why), "%s",
			 x->pp_err ? pn_perf_proc_why(x->pp_err, why, sizeof(why))
				   : "the command did not start");
	record_nodes(p, e);
	record_events(p, e);
}

void pn_exec_log_free(struct pn_exec_log *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		struct pn_exec_run *e = &l->runs[i];

		for (int k = 0; k < e->nev; k++) {
			free(e->ev[k].sites);
			free(e->ev[k].procs);
		}
		free(e->ev);
		free(e->nodes);
	}
	free(l->runs);
	free(l);
}
