// SPDX-License-Identifier: GPL-2.0-only
/*
 * phase_json.c - the results of one phase: how every workload ended, what
 * its cgroup held, the nodes' exact accounting, the explained and general
 * pages and who holds them, where sources disagree, and the event
 * collectors' totals.  What the verdict judges it also records in C as it
 * goes (pn_verdict_record_*: checks, the --exec status, node readings).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cjson/cJSON.h>

#include "core/lib/fmt.h"
#include "phase.h"

/* ------------------------------------------------------------ outcomes */

bool pn_phase_end_matches(const char *expect, enum pn_end e)
{
	if (!expect || !strcmp(expect, "ok"))
		return e == PN_END_OK;
	if (!strcmp(expect, "any"))
		return true;
	if (!strcmp(expect, "killed"))
		return e == PN_END_SIGNAL || e == PN_END_OOM_KILL;
	return !strcmp(expect, pn_end_name(e));
}

static cJSON *outcome_json(const struct slot *s)
{
	cJSON *o = cJSON_CreateObject();
	const char *expect = s->cw->expect ? s->cw->expect : "ok";

	cJSON_AddStringToObject(o, "end", pn_end_name(s->out.end));
	cJSON_AddNumberToObject(o, "exit_code", s->out.exit_code);
	cJSON_AddNumberToObject(o, "signal", s->out.signal);
	if (s->out.signal)
		cJSON_AddStringToObject(o, "signal_name", sigabbrev_np(s->out.signal));
	else
		cJSON_AddNullToObject(o, "signal_name");
	cJSON_AddNumberToObject(o, "oom_kills", (double)s->out.oom_kills);
	cJSON_AddStringToObject(o, "expected", expect);
	cJSON_AddBoolToObject(o, "as_expected", pn_phase_end_matches(expect, s->out.end));
	cJSON_AddStringToObject(o, "detail", s->out.detail);
	return o;
}

/* A leaf's path, limits and numa_stat per role node (cgn NULL: unread). */
static cJSON *leaf_json(const struct phase *p, const char *path, uint64_t max, uint64_t high,
			const struct pn_cgroup_node *cgn)
{
	cJSON *o = cJSON_CreateObject(), *ns;

	cJSON_AddStringToObject(o, "path", path);
	cJSON_AddNumberToObject(o, "version", p->r->cg.version);
	cJSON_AddNumberToObject(o, "memory_max", (double)max);
	cJSON_AddNumberToObject(o, "memory_high", (double)high);
	ns = cJSON_AddObjectToObject(o, "numa_stat");
	for (int k = 0; cgn && k < p->nnodes; k++) {
		char key[16];
		cJSON *nj;

		snprintf(key, sizeof(key), "%d", p->acct[k].node);
		nj = cJSON_AddObjectToObject(ns, key);
		cJSON_AddBoolToObject(nj, "listed", cgn[k].node_listed);
		for (int c = 0; c < PN_CGROUP_NKINDS; c++)
			if (cgn[k].have[c])
				cJSON_AddNumberToObject(nj, pn_cgroup_kind_names[c],
							(double)cgn[k].pages[c]);
	}
	return o;
}

static cJSON *cgroup_json(const struct phase *p, const struct slot *s)
{
	if (!s->child.has_cg)
		return cJSON_CreateNull();
	return leaf_json(p, s->child.cg_path, s->w.memory_max, s->w.memory_high, s->cgn);
}

static void say_why(struct run *r, const struct slot *s, const char *why)
{
	if (pn_fmt_same_but_figures(r->last_why, why))
		return; /* once, not once per phase, iteration or point */
	snprintf(r->last_why, sizeof(r->last_why), "%s", why);
	if (s->skipped)
		pn_info("workload %s skipped: %s", s->w.ops->name, why);
	else
		pn_warn("workload %s failed: %s", s->w.ops->name, why);
}

static const char *slot_status(struct run *r, struct slot *s)
{
	if (s->skipped) {
		say_why(r, s, s->why);
		return "skipped";
	}
	if (!s->started) {
		say_why(r, s, s->why[0] ? s->why : "not started");
		r->failed_workloads++;
		return "failed";
	}
	if (!pn_phase_end_matches(s->cw->expect, s->out.end)) {
		snprintf(s->why, sizeof(s->why), "%s%s%.160s (expected %s)",
			 pn_end_name(s->out.end), s->out.detail[0] ? ": " : "", s->out.detail,
			 s->cw->expect ? s->cw->expect : "ok");
		say_why(r, s, s->why);
		r->failed_workloads++;
		return "failed";
	}
	r->ran_workloads++;
	return "ok";
}

/* Where this phase ran, for the verdict's records. */
static struct pn_verdict_at verdict_at(const struct phase *p)
{
	return (struct pn_verdict_at){
		.point = (int)(p->c - p->r->cs.points),
		.iteration = p->iter,
		.phase = p->ph->name,
	};
}

/* The workload's checks, as its result holds them, into the verdict state. */
static void record_checks(struct phase *p, const struct slot *s)
{
	struct pn_verdict_at at = verdict_at(p);
	struct pn_res_check_rec c;

	for (size_t i = 0; pn_res_check_at(&s->w.res, i, &c); i++)
		pn_verdict_record_check(&p->r->vs, &at, s->w.ops->name, c.name, c.expected,
					c.observed, c.pass);
}

/* The --exec command's exit status is a check of the phase (perf stat users
 * see the command's failure); the same status pn_exec_json() writes. */
static void record_exec_check(struct phase *p)
{
	const struct pn_exec_state *x = &p->exec;
	struct pn_verdict_at at = verdict_at(p);
	bool exited = x->exited && WIFEXITED(x->status);
	char obs[64];

	if (exited)
		snprintf(obs, sizeof(obs), "exit %d", WEXITSTATUS(x->status));
	else
		snprintf(obs, sizeof(obs), "signal %d", x->exited ? WTERMSIG(x->status) : 0);
	pn_verdict_record_check(&p->r->vs, &at, "--exec", "command exit status", "exit 0", obs,
				exited && WEXITSTATUS(x->status) == 0);
}

/* The pressure kinds any workload of the phase had active (its "active"
 * metrics, label kind), each once, in the order first seen. */
static int active_pressure(const struct phase *p, const char **out, int max)
{
	struct pn_res_metric_rec m;
	int n = 0;

	for (size_t i = 0; i < p->nslots; i++) {
		const struct slot *s = &p->slots[i];

		if (s->skipped || !s->started)
			continue;
		for (size_t j = 0; pn_res_metric_at(&s->w.res, j, "kind", &m); j++) {
			bool seen = false;

			if (strcmp(m.name, "active") != 0 || !*m.label || !m.has_value ||
			    m.value <= 0)
				continue;
			for (int k = 0; k < n; k++)
				seen = seen || !strcmp(out[k], m.label);
			if (!seen && n < max)
				out[n++] = m.label;
		}
	}
	return n;
}

static cJSON *slot_json(struct phase *p, struct slot *s)
{
	struct run *r = p->r;
	cJSON *o = cJSON_CreateObject(), *it;
	const char *st = slot_status(r, s);

	cJSON_AddStringToObject(o, "workload", s->w.ops->name);
	cJSON_AddStringToObject(o, "role", s->w.background ? "background" : "foreground");
	cJSON_AddItemToObject(o, "params", cJSON_Duplicate(s->w.params.obj, 1));
	cJSON_AddStringToObject(o, "status", st);
	if (strcmp(st, "ok") != 0)
		cJSON_AddStringToObject(o, "reason", s->why);
	else
		cJSON_AddNullToObject(o, "reason");
	if (s->skipped || !s->started)
		return o;
	cJSON_AddItemToObject(o, "outcome", outcome_json(s));
	cJSON_AddNumberToObject(o, "duration_ns", (double)(s->child.t1_ns - s->child.t0_ns));
	cJSON_AddItemToObject(o, "cgroup", cgroup_json(p, s));
	cJSON_ArrayForEach (it, s->w.res.root)
		cJSON_AddItemToObject(o, it->string, cJSON_Duplicate(it, 1));
	cJSON_AddItemToObject(o, "placement", pn_res_placement_json(&s->w.res));
	record_checks(p, s);
	if (!s->w.background)
		r->misplaced_total += (int64_t)s->w.res.misplaced_pages;
	return o;
}

/* --------------------------------------------------- explained, attributed */

static int64_t cg_pages(const struct pn_cgroup_node *n, int version)
{
	if (version == 1)
		return n->pages[PN_CGROUP_ANON] + n->pages[PN_CGROUP_FILE] +
		       n->pages[PN_CGROUP_UNEVICTABLE];
	return n->pages[PN_CGROUP_ANON] + n->pages[PN_CGROUP_FILE] +
	       n->pages[PN_CGROUP_KERNEL_STACK] + n->pages[PN_CGROUP_PAGETABLES] +
	       n->pages[PN_CGROUP_SLAB];
}

/* cg_pages() by the kinds of a node's reading.  v1's unevictable pages may
 * be anon or file: no kind.  (v1 counts shmem as anon, the node as file.) */
static void cg_kinds(const struct pn_cgroup_node *n, int version, int64_t *kinds)
{
	kinds[PN_KIND_ANON] += n->pages[PN_CGROUP_ANON];
	kinds[PN_KIND_FILE] += n->pages[PN_CGROUP_FILE];
	if (version == 1)
		return;
	kinds[PN_KIND_KERNEL_STACK] += n->pages[PN_CGROUP_KERNEL_STACK];
	kinds[PN_KIND_PAGE_TABLES] += n->pages[PN_CGROUP_PAGETABLES];
	kinds[PN_KIND_SLAB] += n->pages[PN_CGROUP_SLAB];
}

/*
 * The --exec command's explained pages on role node k.  With --explicit,
 * everything its process tree holds on the node is explicit: what its
 * census found mapped at exit, or what its cgroup leaf holds at the
 * after-read (page cache it allocated under its own policy included,
 * children that outlived it too), whichever is more.  Without, nothing.
 * kinds (may be NULL) gets the leaf's pages by kind: they explain growth of
 * their own kind (page cache is not anonymous); the rest is anonymous.
 */
static int64_t exec_explained(const struct phase *p, int k, int64_t *kinds)
{
	const struct pn_exec_state *x = &p->exec;
	int64_t census, in_cg;

	if (!p->exec_mode || !p->r->o->exec_explicit)
		return 0;
	census = x->last_pages[p->acct[k].node];
	in_cg = x->cgn ? cg_pages(&x->cgn[k], p->r->cg.version) : 0;
	if (x->cgn && kinds)
		cg_kinds(&x->cgn[k], p->r->cg.version, kinds);
	return census > in_cg ? census : in_cg;
}

void pn_phase_explain(struct phase *p)
{
	for (int k = 0; k < p->nnodes; k++) {
		struct pn_node_acct *a = &p->acct[k];

		for (size_t i = 0; i < p->nslots; i++) {
			const struct slot *s = &p->slots[i];

			/* a child that died may still have left a verified census
			 * (outcome() reads it from shared memory) */
			if (s->started && !s->w.background &&
			    (s->child.got_result || s->w.res.verified)) {
				a->explained_pages += (int64_t)s->w.res.placed_pages[a->node];
				a->explained_freed_pages += (int64_t)s->w.res.freed_pages[a->node];
			}
		}
		a->explained_pages += exec_explained(p, k, a->explained_kind_pages);
		pn_node_acct_compute(a);
	}
}

/* What the --exec command's leaf holds on node k beyond its explained pages
 * (all of it without --explicit: a leak by the command); disagreements. */
static int64_t exec_attribute(struct phase *p, int k, cJSON *att, cJSON *dis)
{
	const struct pn_exec_state *x = &p->exec;
	const struct pn_node_acct *a = &p->acct[k];
	int64_t own;
	char buf[240];
	cJSON *e;

	if (!p->exec_mode || !x->cgn)
		return 0;
	if (x->last_pages[a->node] > 0 && !x->cgn[k].node_listed) {
		snprintf(buf, sizeof(buf),
			 "memory.numa_stat of the --exec command does not list node %d, though "
			 "its census found %lld of its pages there",
			 a->node, (long long)x->last_pages[a->node]);
		cJSON_AddItemToArray(dis, cJSON_CreateString(buf));
		return 0;
	}
	own = cg_pages(&x->cgn[k], p->r->cg.version) - exec_explained(p, k, NULL);
	if (own <= 0 || !a->is_private)
		return 0;
	e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "source", "cgroup");
	cJSON_AddStringToObject(e, "workload", "--exec");
	cJSON_AddStringToObject(e, "role", "foreground");
	cJSON_AddNumberToObject(e, "pages", (double)own);
	cJSON_AddItemToArray(att, e);
	return own;
}

/* Where the general pages of node k are held, and where sources disagree. */
static void attribute(struct phase *p, int k, cJSON *nj)
{
	struct pn_node_acct *a = &p->acct[k];
	cJSON *att = cJSON_AddArrayToObject(nj, "attribution");
	cJSON *dis = cJSON_AddArrayToObject(nj, "disagreements");
	int64_t held = 0, general = a->general.total > 0 ? a->general.total : 0;
	char buf[320];

	for (size_t i = 0; i < p->nslots; i++) {
		const struct slot *s = &p->slots[i];
		int64_t census = s->w.background ? 0 : (int64_t)s->w.res.placed_pages[a->node];
		int64_t in_cg, own;
		cJSON *e;

		if (!s->started || !s->cgn)
			continue;
		if (census > 0 && !s->cgn[k].node_listed) {
			snprintf(buf, sizeof(buf),
				 "memory.numa_stat of workload %s does not list node %d, though "
				 "move_pages found %lld of its pages there",
				 s->w.ops->name, a->node, (long long)census);
			cJSON_AddItemToArray(dis, cJSON_CreateString(buf));
			continue;
		}
		in_cg = cg_pages(&s->cgn[k], p->r->cg.version);
		if (census > 0 &&
		    s->cgn[k].pages[PN_CGROUP_ANON] + s->cgn[k].pages[PN_CGROUP_UNEVICTABLE] <
			    census) {
			snprintf(buf, sizeof(buf),
				 "memory.numa_stat of workload %s shows %lld anon pages on node "
				 "%d, move_pages %lld",
				 s->w.ops->name, (long long)s->cgn[k].pages[PN_CGROUP_ANON],
				 a->node, (long long)census);
			cJSON_AddItemToArray(dis, cJSON_CreateString(buf));
		}
		own = in_cg - census;
		if (own <= 0 || !a->is_private)
			continue;
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "source", "cgroup");
		cJSON_AddStringToObject(e, "workload", s->w.ops->name);
		cJSON_AddStringToObject(e, "role", s->w.background ? "background" : "foreground");
		cJSON_AddNumberToObject(e, "pages", (double)own);
		cJSON_AddItemToArray(att, e);
		held += own;
	}
	held += exec_attribute(p, k, att, dis);
	if (a->is_private) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "source", "outside");
		cJSON_AddNullToObject(e, "workload");
		cJSON_AddNullToObject(e, "role");
		cJSON_AddNumberToObject(e, "pages", (double)(general > held ? general - held : 0));
		cJSON_AddItemToArray(att, e);
	}
	if (a->explained_pages > a->used_growth_pages + 16) {
		snprintf(buf, sizeof(buf),
			 "node %d grew by %lld pages but the census found %lld explicit pages "
			 "there (memory that was free before the phase cannot explain it)",
			 a->node, (long long)a->used_growth_pages, (long long)a->explained_pages);
		cJSON_AddItemToArray(dis, cJSON_CreateString(buf));
	}
}

/*
 * What a private node's counters could see in this phase: a reading that
 * failed or never settled makes the node's verdict inconclusive (its first
 * such reason is kept); the settled samples taken during the phase bound
 * the transient allocations the counters alone can miss.
 */
static void counters_seen(struct phase *p, const struct pn_node_acct *a)
{
	struct run *r = p->r;
	char *why = r->counters_why[a->node];
	int settled = (int)(a->nsamples - a->unsettled_samples);
	uint64_t iv = pn_phase_sample_ms(p);

	if (iv > r->sample_iv_ms)
		r->sample_iv_ms = iv;
	if (!r->phases_sampled || settled < r->min_samples) {
		r->min_samples = settled;
		r->min_samples_phase_ns = p->t1 > p->t0 ? p->t1 - p->t0 : 0;
	}
	r->phases_sampled++;
	if (why[0])
		return;
	if (a->before.failed || a->after.failed)
		snprintf(why, sizeof(r->counters_why[0]),
			 "node %d: counters unreadable in phase \"%.64s\": %s", a->node,
			 p->ph->name, p->read_why[0] ? p->read_why : "no reading");
	else if (a->before.unsettled || a->after.unsettled)
		snprintf(why, sizeof(r->counters_why[0]),
			 "node %d: the %s reading never settled in phase \"%s\" (%d passes)",
			 a->node, a->before.unsettled ? "before" : "after", p->ph->name,
			 a->before.unsettled ? a->before.passes : a->after.passes);
}

/* An event collector saw every page allocation on the node in this phase
 * (it tracks the node and lost nothing). */
static bool events_whole(const struct phase *p, int node)
{
	const struct run *r = p->r;

	for (size_t i = 0; p->reps && i < r->ncolls; i++) {
		if (r->colls[i].ops->kind != PN_COLL_EVENT)
			continue;
		for (size_t n = 0; n < p->reps[i].nnodes; n++)
			if (p->reps[i].nodes[n].node == node && !p->reps[i].nodes[n].inconclusive)
				return true;
	}
	return false;
}

static cJSON *node_json(struct phase *p, int k, const char *const *pressure, int npressure)
{
	struct run *r = p->r;
	struct pn_verdict_at at = verdict_at(p);
	struct pn_node_acct *a = &p->acct[k];
	cJSON *nj = pn_node_acct_json(a), *src = cJSON_AddObjectToObject(nj, "sources");
	const char *explained = "move_pages census of foreground workloads";
	const char *attribution = "memory.numa_stat of each workload's cgroup";

	cJSON_AddStringToObject(src, "growth",
				r->refresh_ok
					? "nodeN/meminfo - zoneinfo pcp, stat_refresh folded"
					: "nodeN/meminfo - zoneinfo pcp, not folded (not root)");
	if (p->exec_mode && r->o->exec_explicit)
		explained = "move_pages census of foreground workloads; the --exec command's "
			    "census or its cgroup's numa_stat, whichever is more";
	if (p->exec.have_leaf)
		attribution = "memory.numa_stat of each workload's and the --exec command's cgroup";
	cJSON_AddStringToObject(src, "explained", explained);
	cJSON_AddStringToObject(src, "attribution",
				r->cg.version ? attribution : "none (no memory cgroups)");
	attribute(p, k, nj);
	/* the figure the verdict judges, as "judged_moment" says below (a node
	 * that is not private has no judged moment: its peak) */
	pn_verdict_record_reading(&r->vs, &at, a->node,
				  a->is_private && events_whole(p, a->node) ? &a->end : &a->general,
				  pressure, npressure);
	if (a->is_private) {
		/*
		 * With complete events the counters judge the end of the phase
		 * only: a transient allocation is the events' to see, and a
		 * sample can catch pages that are neither free nor anyone's
		 * allocation (compaction's free scanner holds the free pages it
		 * isolated: a device node's "other" grew by 29 pages at one
		 * sample in an isolate guest while the events saw 0 general
		 * allocations there).  Without events the worst sampled moment
		 * counts too: it is all the counters can see of a transient.
		 */
		bool whole = events_whole(p, a->node);
		const struct pn_general *gj = whole ? &a->end : &a->general;
		int64_t g = gj->total > 0 ? gj->total : 0;

		cJSON_AddStringToObject(nj, "judged_moment", whole ? "end" : "end_or_peak");
		counters_seen(p, a);
		if (g > r->worst_general[a->node])
			r->worst_general[a->node] = g;
		if (g)
			pn_info("  node %d: %lld general page(s) at the %s (anon %lld, file %lld, "
				"slab "
				"%lld, other %lld)",
				a->node, (long long)g, gj->at_peak ? "peak" : "end",
				(long long)gj->by_kind[PN_KIND_ANON],
				(long long)gj->by_kind[PN_KIND_FILE],
				(long long)gj->by_kind[PN_KIND_SLAB],
				(long long)gj->by_kind[PN_KIND_OTHER]);
	}
	return nj;
}

/* The events against the counters on one node: allocated - freed of the
 * phase beside the node's used-page growth between its two readings. */
static void reconcile(const struct phase *p, const struct pn_event_node *en, cJSON *nj)
{
	for (int k = 0; k < p->nnodes; k++) {
		const struct pn_node_acct *a = &p->acct[k];

		if (a->node != en->node)
			continue;
		if (a->before.failed || a->after.failed) {
			cJSON_AddNullToObject(nj, "counters_growth_pages");
			cJSON_AddNullToObject(nj, "difference");
			return;
		}
		cJSON_AddNumberToObject(nj, "counters_growth_pages", (double)a->used_growth_pages);
		cJSON_AddNumberToObject(nj, "difference",
					(double)(en->net_pages - a->used_growth_pages));
		return;
	}
}

static cJSON *events_json(struct phase *p)
{
	struct run *r = p->r;
	cJSON *ev = cJSON_CreateObject();

	for (size_t i = 0; i < r->ncolls; i++) {
		struct pn_event_report *rep = &p->reps[i];
		cJSON *cj, *nodes;

		if (r->colls[i].ops->kind != PN_COLL_EVENT)
			continue;
		cj = cJSON_AddObjectToObject(ev, r->colls[i].ops->name);
		cJSON_AddNumberToObject(cj, "events", (double)rep->events);
		cJSON_AddNumberToObject(cj, "lost_events", (double)rep->lost_events);
		nodes = cJSON_AddObjectToObject(cj, "nodes");
		for (size_t n = 0; n < rep->nnodes; n++) {
			const struct pn_event_node *en = &rep->nodes[n];
			cJSON *nj;
			char key[16];

			snprintf(key, sizeof(key), "%d", en->node);
			nj = cJSON_AddObjectToObject(nodes, key);
			cJSON_AddNumberToObject(nj, "explicit_pages", (double)en->explicit_pages);
			cJSON_AddNumberToObject(nj, "general_alloc_pages",
						(double)en->general_alloc_pages);
			cJSON_AddNumberToObject(nj, "general_freed_pages",
						(double)en->general_freed_pages);
			cJSON_AddNumberToObject(nj, "general_pages", (double)en->general_pages);
			cJSON_AddNumberToObject(nj, "net_pages", (double)en->net_pages);
			cJSON_AddNumberToObject(nj, "lost_events", (double)en->lost_events);
			cJSON_AddBoolToObject(nj, "inconclusive", en->inconclusive);
			reconcile(p, en, nj);
			if (en->node >= 0 && en->node < PN_MAX_NODES) {
				int64_t g = en->general_alloc_pages;

				if (g > r->worst_events[en->node])
					r->worst_events[en->node] = g;
				if (en->inconclusive)
					r->inconclusive[en->node] = true;
			}
		}
		if (rep->details)
			cJSON_AddItemToObject(cj, "details", rep->details);
		else
			cJSON_AddNullToObject(cj, "details");
		rep->details = NULL;
	}
	return ev;
}

cJSON *pn_phase_json(struct phase *p, int ret)
{
	cJSON *pj = cJSON_CreateObject(), *wj, *nj;
	const char *pressure[PN_VERDICT_PRESSURE_MAX];
	int npressure;

	cJSON_AddStringToObject(pj, "name", p->ph->name);
	cJSON_AddNumberToObject(pj, "t0_ns", (double)p->t0);
	cJSON_AddNumberToObject(pj, "t1_ns", (double)p->t1);
	cJSON_AddNumberToObject(pj, "duration_ns", ret ? 0 : (double)(p->t1 - p->t0));
	cJSON_AddItemToObject(pj, "knobs", pn_knobs_json(&p->knobs));
	wj = cJSON_AddArrayToObject(pj, "workloads");
	for (size_t i = 0; i < p->nslots; i++)
		cJSON_AddItemToArray(wj, slot_json(p, &p->slots[i]));
	if (p->exec_mode) {
		cJSON *ej = pn_exec_json(p->r, &p->exec);

		cJSON_AddItemToObject(ej, "cgroup",
				      p->exec.have_leaf
					      ? leaf_json(p, p->exec.leaf, 0, 0, p->exec.cgn)
					      : cJSON_CreateNull());
		cJSON_AddItemToObject(pj, "exec", ej);
	}
	if (p->exec_mode)
		record_exec_check(p);
	npressure = active_pressure(p, pressure, PN_VERDICT_PRESSURE_MAX);
	nj = cJSON_AddObjectToObject(pj, "nodes");
	for (int k = 0; k < p->nnodes; k++) {
		char key[16];

		snprintf(key, sizeof(key), "%d", p->acct[k].node);
		cJSON_AddItemToObject(nj, key, node_json(p, k, pressure, npressure));
	}
	cJSON_AddItemToObject(pj, "events", p->reps ? events_json(p) : cJSON_CreateObject());
	return pj;
}
