// SPDX-License-Identifier: GPL-2.0-only
/*
 * verdict.c - the verdict of a run, composed from its sources, and the one
 * exit code the process returns and run.json records.
 *
 * Sources, per private node: the events (an event collector: every page the
 * allocator put on the node, transient ones included) are the ground truth
 * wherever they run; the counters (exact node readings around each phase and
 * at every sample) are the independent cross-check, and the only source when
 * events are off -- then the verdict names what it cannot see.
 *
 *   interrupted     the user's signal stopped the run            (128+N)
 *   fail            a private node holds general pages over the threshold
 *                   by the counters or by the events, or explicit pages
 *                   are off their nodes beyond the threshold      (exit 1)
 *   error           the run failed: a phase, a workload, the --exec
 *                   command, or writing the results               (exit 3)
 *   fail            a check failed                                (exit 1)
 *   inconclusive    nothing failed, but a source the verdict depends on
 *                   failed: counters unreadable or never settled, lost
 *                   events, a collector the config lists did not run, or
 *                   events required and not running               (exit 5)
 *   not_applicable  nothing ran, or nothing to judge              (exit 4)
 *   pass            something was judged and nothing failed      (exit 0)
 * in this order: a leak found wins over a failed run and over "nothing
 * ran"; while the run goes on, run.json says "incomplete".
 *
 * It reads C state only, never the results tree: struct run's figures and
 * struct pn_verdict_state (run_int.h), which phase_json.c fills through
 * pn_verdict_record_*() as each phase records its checks and readings.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "account.h"
#include "run_int.h"

/* ---- the state, as the phases record it (phase_json.c) ---- */

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(pn_xmalloc(n), s, n);
}

void pn_verdict_record_check(struct pn_verdict_state *vs, const struct pn_verdict_at *at,
			     const char *workload, const char *name, const char *expected,
			     const char *observed, bool pass)
{
	struct pn_verdict_fail *f;

	vs->checks++;
	if (pass)
		return;
	vs->fail = pn_xrealloc(vs->fail, (size_t)(vs->checks_failed + 1) * sizeof(*vs->fail));
	f = &vs->fail[vs->checks_failed++];
	*f = (struct pn_verdict_fail){
		.point = at->point,
		.iteration = at->iteration,
		.phase = at->phase,
		.workload = workload,
		.name = xstrdup(name),
		.expected = xstrdup(expected),
		.observed = xstrdup(observed),
	};
}

void pn_verdict_record_reading(struct pn_verdict_state *vs, const struct pn_verdict_at *at,
			       int node, const struct pn_general *g, const char *const *pressure,
			       int npressure)
{
	struct pn_verdict_worst *w;

	if (node < 0 || node >= PN_MAX_NODES || g->total <= vs->worst[node].total)
		return;
	w = &vs->worst[node];
	for (int i = 0; i < w->npressure; i++)
		free(w->pressure[i]);
	*w = (struct pn_verdict_worst){
		.set = true,
		.point = at->point,
		.iteration = at->iteration,
		.phase = at->phase,
		.total = g->total,
		.at_peak = g->at_peak,
	};
	memcpy(w->kinds, g->by_kind, sizeof(w->kinds));
	for (int i = 0; i < npressure && i < PN_VERDICT_PRESSURE_MAX; i++)
		w->pressure[w->npressure++] = xstrdup(pressure[i]);
}

void pn_verdict_state_free(struct pn_verdict_state *vs)
{
	for (int i = 0; i < vs->checks_failed; i++) {
		free(vs->fail[i].name);
		free(vs->fail[i].expected);
		free(vs->fail[i].observed);
	}
	free(vs->fail);
	for (int n = 0; n < PN_MAX_NODES; n++)
		for (int i = 0; i < vs->worst[n].npressure; i++)
			free(vs->worst[n].pressure[i]);
	memset(vs, 0, sizeof(*vs));
}

/* ---- the verdict ---- */

/* Every check the workloads and the --exec command made; the failed ones
 * listed with where they came from. */
static void collect_checks(const struct pn_verdict_state *vs, cJSON *out)
{
	cJSON *failures;

	cJSON_AddNumberToObject(out, "total", vs->checks);
	cJSON_AddNumberToObject(out, "passed", vs->checks - vs->checks_failed);
	cJSON_AddNumberToObject(out, "failed", vs->checks_failed);
	failures = cJSON_AddArrayToObject(out, "failures");
	for (int i = 0; i < vs->checks_failed; i++) {
		const struct pn_verdict_fail *f = &vs->fail[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "point", f->point);
		cJSON_AddNumberToObject(o, "iteration", f->iteration);
		cJSON_AddStringToObject(o, "phase", f->phase);
		cJSON_AddStringToObject(o, "workload", f->workload);
		cJSON_AddStringToObject(o, "name", f->name);
		cJSON_AddStringToObject(o, "expected", f->expected);
		cJSON_AddStringToObject(o, "observed", f->observed);
		cJSON_AddItemToArray(failures, o);
	}
}

__attribute__((format(printf, 2, 3))) static void reason(cJSON *reasons, const char *fmt, ...)
{
	char buf[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cJSON_AddItemToArray(reasons, cJSON_CreateString(buf));
}

/*
 * Where node n's worst general pages were: node object "worst" (point,
 * iteration, phase, pages by kind, the cgroup attribution, the pressure
 * kinds active) and a text for the reason ("" when there is none).
 */
static void describe_worst(const struct run *r, int n, cJSON *o, char *txt, size_t len)
{
	const struct pn_verdict_worst *w = &r->vs.worst[n];
	cJSON *wj, *kj, *act;
	size_t off;

	txt[0] = '\0';
	if (!w->set)
		return;
	wj = cJSON_AddObjectToObject(o, "worst");
	cJSON_AddNumberToObject(wj, "point", w->point);
	cJSON_AddNumberToObject(wj, "iteration", w->iteration);
	cJSON_AddStringToObject(wj, "phase", w->phase);
	cJSON_AddNumberToObject(wj, "general_pages", (double)w->total);
	cJSON_AddStringToObject(wj, "moment", w->at_peak ? "peak" : "end");
	kj = cJSON_AddObjectToObject(wj, "kinds");
	off = (size_t)snprintf(txt, len,
			       "; worst in phase \"%s\" (point %d, iteration %d):", w->phase,
			       w->point, w->iteration);
	for (size_t k = 0; k < PN_NKINDS; k++) {
		if (w->kinds[k] <= 0)
			continue;
		cJSON_AddNumberToObject(kj, pn_kind_names[k], (double)w->kinds[k]);
		if (off < len)
			off += (size_t)snprintf(txt + off, len - off, " %s %lld", pn_kind_names[k],
						(long long)w->kinds[k]);
	}
	act = cJSON_AddArrayToObject(wj, "pressure_active");
	if (w->npressure && off < len)
		off += (size_t)snprintf(txt + off, len - off, "; pressure active:");
	for (int i = 0; i < w->npressure; i++) {
		cJSON_AddItemToArray(act, cJSON_CreateString(w->pressure[i]));
		if (off < len)
			off += (size_t)snprintf(txt + off, len - off, " %s", w->pressure[i]);
	}
}

/*
 * Why node n's verdict cannot rest on its sources ("" when it can).  Events
 * that saw every page of the node are the ground truth: then counters that
 * failed (unreadable, never settled) are a failed cross-check, said in the
 * node's "cross_check", not a reason to doubt the verdict.  Without them the
 * counters are the only source, and their failure makes it inconclusive.
 */
static void node_inconclusive(const struct run *r, int n, char *why, size_t len)
{
	bool events_whole = r->events_on && r->worst_events[n] >= 0 && !r->inconclusive[n];

	why[0] = '\0';
	if (r->inconclusive[n])
		snprintf(why, len, "node %d: the event collector lost events", n);
	else if (r->counters_why[n][0] && !events_whole)
		snprintf(why, len, "%s", r->counters_why[n]);
}

/* One private node: pass unless counters or events exceed the threshold. */
static bool judge_node(const struct run *r, int n, cJSON *nodes, cJSON *reasons, bool *any,
		       bool *inconclusive)
{
	int64_t thr = r->c0->max_general_pages, cnt = r->worst_general[n], ev = r->worst_events[n];
	bool pass = true;
	cJSON *o, *src;
	char key[16], where[400], why[400];

	node_inconclusive(r, n, why, sizeof(why));
	if (cnt < 0 && ev < 0 && !why[0])
		return true;
	*any = true;
	snprintf(key, sizeof(key), "%d", n);
	o = cJSON_AddObjectToObject(nodes, key);
	cJSON_AddNumberToObject(o, "general_pages_max", (double)(cnt > ev ? cnt : ev));
	src = cJSON_AddObjectToObject(o, "sources");
	cJSON_AddNumberToObject(src, "counters", (double)(cnt > 0 ? cnt : 0));
	if (ev >= 0)
		cJSON_AddNumberToObject(src, "events", (double)ev);
	else
		cJSON_AddNullToObject(src, "events");
	where[0] = '\0';
	if (cnt > 0)
		describe_worst(r, n, o, where, sizeof(where));
	if (thr < 0) {
		/* -1: report the figures, judge nothing */
	} else if (cnt > thr) {
		pass = false;
		reason(reasons,
		       "general allocations on private node %d: %lld pages by the counters "
		       "(threshold %lld)%s",
		       n, (long long)cnt, (long long)thr, where);
	}
	if (thr >= 0 && ev > thr) {
		pass = false;
		reason(reasons,
		       "general allocations on private node %d: %lld pages by the events "
		       "(threshold %lld)",
		       n, (long long)ev, (long long)thr);
	}
	if (r->counters_why[n][0] && !why[0])
		cJSON_AddStringToObject(o, "cross_check", r->counters_why[n]);
	cJSON_AddBoolToObject(o, "inconclusive", thr >= 0 && why[0]);
	if (thr >= 0 && why[0]) {
		cJSON_AddStringToObject(o, "inconclusive_reason", why);
		if (pass) {
			*inconclusive = true;
			reason(reasons, "inconclusive: %s", why);
		}
	}
	cJSON_AddBoolToObject(o, "pass", pass);
	return pass;
}

/* The verdict's sources as run.json states them, and the run-wide reasons
 * it cannot pass. */
static bool judge_sources(const struct run *r, cJSON *v, cJSON *reasons)
{
	cJSON *s = cJSON_AddObjectToObject(v, "sources"), *bs;
	bool incon = false;
	double seen_ms;

	cJSON_AddBoolToObject(s, "events", r->events_on);
	if (r->events_on)
		cJSON_AddNullToObject(s, "events_reason");
	else
		cJSON_AddStringToObject(s, "events_reason", r->events_why);
	cJSON_AddBoolToObject(s, "events_required", r->c0->require_events);
	cJSON_AddStringToObject(s, "counters", "node readings around each phase and every sample");
	if (r->coll_failed[0]) {
		incon = true;
		reason(reasons, "inconclusive: a collector the config lists did not run (%s)",
		       r->coll_failed);
	}
	if (r->c0->require_events && !r->events_on) {
		incon = true;
		reason(reasons,
		       "inconclusive: the config requires events (verdict.require), and "
		       "there are none: %s",
		       r->events_why);
	}
	if (r->events_on || pn_nodeset_empty(&r->roles.private_nodes)) {
		cJSON_AddNullToObject(v, "blind_spot");
		return incon;
	}
	/* counters only: a transient between two samples is invisible */
	bs = cJSON_AddObjectToObject(v, "blind_spot");
	cJSON_AddStringToObject(bs, "why", r->events_why);
	cJSON_AddNumberToObject(bs, "sample_interval_ms", (double)r->sample_iv_ms);
	cJSON_AddNumberToObject(bs, "node_phases", r->phases_sampled);
	cJSON_AddNumberToObject(bs, "min_samples_per_phase", r->min_samples);
	seen_ms = (double)r->min_samples_phase_ns / 1e6;
	cJSON_AddNumberToObject(bs, "phase_ms_with_min_samples", seen_ms);
	cJSON_AddStringToObject(
		bs, "invisible",
		"general pages allocated and freed between two samples, or within a phase "
		"shorter than the sampling interval");
	return incon;
}

int pn_verdict_code(const struct pn_verdict_in *in, const char **result)
{
	static const struct {
		const char *result;
		int code;
	} table[] = {
		{ "fail", PN_EXIT_VERDICT },
		{ "error", PN_EXIT_ERROR },
		{ "inconclusive", PN_EXIT_INCONCLUSIVE },
		{ "not_applicable", PN_EXIT_SKIP },
		{ "pass", PN_EXIT_PASS },
	};
	int k;

	if (in->signal) {
		*result = "interrupted";
		return 128 + in->signal;
	}
	/* a leak found wins over a failed run; a failed run over failed checks */
	if (in->leak || (in->checks_failed && !in->run_failed))
		k = 0;
	else if (in->run_failed)
		k = 1;
	else if (in->inconclusive)
		k = 2;
	else if (in->nothing_ran || !in->judged)
		k = 3;
	else
		k = 4;
	*result = table[k].result;
	return table[k].code;
}

int pn_results_judge(struct run *r)
{
	const struct pn_config *c = r->c0;
	cJSON *v, *nodes, *reasons, *checks, *thr;
	struct pn_verdict_in o = { 0 };
	const char *result;
	int n, code;

	cJSON_DeleteItemFromObject(r->root, "verdict");
	v = cJSON_AddObjectToObject(r->root, "verdict");
	thr = cJSON_AddObjectToObject(v, "thresholds");
	cJSON_AddNumberToObject(thr, "general_pages", (double)c->max_general_pages);
	cJSON_AddNumberToObject(thr, "misplaced_pages", (double)c->max_misplaced_pages);
	nodes = cJSON_AddObjectToObject(v, "nodes");
	reasons = cJSON_AddArrayToObject(v, "reasons");
	pn_nodeset_for_each (n, &r->roles.private_nodes)
		if (!judge_node(r, n, nodes, reasons, &o.judged, &o.inconclusive))
			o.leak = true;
	if (judge_sources(r, v, reasons))
		o.inconclusive = true;
	checks = cJSON_AddObjectToObject(v, "checks");
	collect_checks(&r->vs, checks);
	if (r->vs.checks > 0)
		o.judged = true;
	if (r->vs.checks_failed > 0) {
		o.checks_failed = true;
		reason(reasons, "%d check(s) failed (verdict.checks.failures)",
		       r->vs.checks_failed);
	}
	cJSON_AddNumberToObject(v, "misplaced_pages", (double)r->misplaced_total);
	if (c->max_misplaced_pages >= 0 && r->misplaced_total > c->max_misplaced_pages) {
		o.leak = true;
		reason(reasons, "explicit pages off their intended nodes: %lld (threshold %lld)",
		       (long long)r->misplaced_total, (long long)c->max_misplaced_pages);
	}
	if (r->exec_failed)
		reason(reasons, "the --exec command failed in %d phase(s)", r->exec_failed);
	if (r->failed_workloads)
		reason(reasons, "%d workload(s) failed (see their reason)", r->failed_workloads);
	if (r->run_error)
		reason(reasons, "the run failed: %s", r->stop_reason);
	o.signal = r->stop_signal;
	o.run_failed = r->run_error || r->failed_workloads || r->exec_failed;
	o.nothing_ran = r->ran_workloads == 0 && !r->o->exec_argv;
	code = pn_verdict_code(&o, &result);
	if (!r->finished) {
		/* rewritten after every phase: what was judged so far */
		cJSON_AddStringToObject(v, "result", "incomplete");
		cJSON_AddNullToObject(v, "exit_code");
		return code;
	}
	cJSON_AddStringToObject(v, "result", result);
	cJSON_AddNumberToObject(v, "exit_code", code);
	return code;
}
