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
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "account.h"
#include "run_int.h"

static void add_failure(cJSON *failures, const cJSON *pt, const cJSON *it, const cJSON *ph,
			const char *workload, const char *name, const char *expected,
			const char *observed)
{
	cJSON *f = cJSON_CreateObject();

	cJSON_AddNumberToObject(f, "point", cJSON_GetObjectItem(pt, "index")->valuedouble);
	cJSON_AddNumberToObject(f, "iteration", cJSON_GetObjectItem(it, "index")->valuedouble);
	cJSON_AddStringToObject(f, "phase", pn_json_str(ph, "name"));
	cJSON_AddStringToObject(f, "workload", workload);
	cJSON_AddStringToObject(f, "name", name);
	cJSON_AddStringToObject(f, "expected", expected);
	cJSON_AddStringToObject(f, "observed", observed);
	cJSON_AddItemToArray(failures, f);
}

static const char *exec_observed(const cJSON *ex)
{
	static __thread char buf[64];
	const cJSON *code = cJSON_GetObjectItem(ex, "exit_code");
	const cJSON *sig = cJSON_GetObjectItem(ex, "signal");

	if (cJSON_IsNumber(code))
		snprintf(buf, sizeof(buf), "exit %d", code->valueint);
	else
		snprintf(buf, sizeof(buf), "signal %d", cJSON_IsNumber(sig) ? sig->valueint : 0);
	return buf;
}

/* Walk every workload's checks; failures are listed with where they came from. */
struct tally {
	int total, failed;
	cJSON *failures;
};

/* The checks of one phase: its workloads' and, with --exec, the command's
 * exit status (perf stat users see the command's failure). */
static void phase_checks(struct tally *t, const cJSON *pt, const cJSON *it, const cJSON *ph)
{
	const cJSON *wl, *ck, *ex = cJSON_GetObjectItem(ph, "exec");

	cJSON_ArrayForEach (wl, cJSON_GetObjectItem(ph, "workloads")) {
		cJSON_ArrayForEach (ck, cJSON_GetObjectItem(wl, "checks")) {
			t->total++;
			if (cJSON_IsTrue(cJSON_GetObjectItem(ck, "pass")))
				continue;
			t->failed++;
			add_failure(t->failures, pt, it, ph, pn_json_str(wl, "workload"),
				    pn_json_str(ck, "name"), pn_json_str(ck, "expected"),
				    pn_json_str(ck, "observed"));
		}
	}
	if (!ex)
		return;
	t->total++;
	if (cJSON_IsNumber(cJSON_GetObjectItem(ex, "exit_code")) &&
	    cJSON_GetObjectItem(ex, "exit_code")->valueint == 0)
		return;
	t->failed++;
	add_failure(t->failures, pt, it, ph, "--exec", "command exit status", "exit 0",
		    exec_observed(ex));
}

static void collect_checks(const struct run *r, cJSON *out)
{
	struct tally t = { 0, 0, cJSON_CreateArray() };
	const cJSON *pt, *it, *ph;

	cJSON_ArrayForEach (pt, r->points_json)
		cJSON_ArrayForEach (it, cJSON_GetObjectItem(pt, "iterations"))
			cJSON_ArrayForEach (ph, cJSON_GetObjectItem(it, "phases"))
				phase_checks(&t, pt, it, ph);
	cJSON_AddNumberToObject(out, "total", t.total);
	cJSON_AddNumberToObject(out, "passed", t.total - t.failed);
	cJSON_AddNumberToObject(out, "failed", t.failed);
	cJSON_AddItemToObject(out, "failures", t.failures);
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

/* The phase where node n held the most general pages by the counters. */
struct worst {
	const cJSON *pt, *it, *ph, *gp; /* gp: that phase's nodes.<n>.general_pages */
	double total;
};

static void find_worst(const struct run *r, int n, struct worst *w)
{
	const cJSON *pt, *it, *ph, *gp;
	char key[16];

	memset(w, 0, sizeof(*w));
	snprintf(key, sizeof(key), "%d", n);
	cJSON_ArrayForEach (pt, r->points_json)
		cJSON_ArrayForEach (it, cJSON_GetObjectItem(pt, "iterations"))
			cJSON_ArrayForEach (ph, cJSON_GetObjectItem(it, "phases")) {
				const cJSON *nj =
					cJSON_GetObjectItem(cJSON_GetObjectItem(ph, "nodes"), key);
				const cJSON *jm = cJSON_GetObjectItem(nj, "judged_moment");

				/* the figure the verdict took (phase_json.c) */
				gp = cJSON_GetObjectItem(
					nj, cJSON_IsString(jm) && !strcmp(jm->valuestring, "end")
						    ? "general_end"
						    : "general_pages");
				if (!cJSON_IsNumber(cJSON_GetObjectItem(gp, "total")) ||
				    cJSON_GetObjectItem(gp, "total")->valuedouble <= w->total)
					continue;
				*w = (struct worst){
					pt, it, ph, gp,
					cJSON_GetObjectItem(gp, "total")->valuedouble
				};
			}
}

/* The pressure kinds any workload of the phase had active ("active" metrics). */
static cJSON *active_pressure(const cJSON *ph)
{
	cJSON *out = cJSON_CreateArray();
	const cJSON *wl, *m;

	cJSON_ArrayForEach (wl, cJSON_GetObjectItem(ph, "workloads"))
		cJSON_ArrayForEach (m, cJSON_GetObjectItem(wl, "metrics")) {
			const char *kind = pn_json_str(cJSON_GetObjectItem(m, "labels"), "kind");
			const cJSON *x;
			bool seen = false;

			if (strcmp(pn_json_str(m, "name"), "active") != 0 || !*kind ||
			    !cJSON_IsNumber(cJSON_GetObjectItem(m, "value")) ||
			    cJSON_GetObjectItem(m, "value")->valuedouble <= 0)
				continue;
			cJSON_ArrayForEach (x, out)
				seen = seen || !strcmp(x->valuestring, kind);
			if (!seen)
				cJSON_AddItemToArray(out, cJSON_CreateString(kind));
		}
	return out;
}

/*
 * Where node n's worst general pages were: node object "worst" (point,
 * iteration, phase, pages by kind, the cgroup attribution, the pressure
 * kinds active) and a text for the reason ("" when there is none).
 */
static void describe_worst(const struct run *r, int n, cJSON *o, char *txt, size_t len)
{
	cJSON *wj, *kj, *act, *x;
	struct worst w;
	size_t off;

	txt[0] = '\0';
	find_worst(r, n, &w);
	if (!w.ph)
		return;
	wj = cJSON_AddObjectToObject(o, "worst");
	cJSON_AddNumberToObject(wj, "point", cJSON_GetObjectItem(w.pt, "index")->valuedouble);
	cJSON_AddNumberToObject(wj, "iteration", cJSON_GetObjectItem(w.it, "index")->valuedouble);
	cJSON_AddStringToObject(wj, "phase", pn_json_str(w.ph, "name"));
	cJSON_AddNumberToObject(wj, "general_pages", w.total);
	cJSON_AddStringToObject(wj, "moment", pn_json_str(w.gp, "moment"));
	kj = cJSON_AddObjectToObject(wj, "kinds");
	off = (size_t)snprintf(txt, len, "; worst in phase \"%s\" (point %d, iteration %d):",
			       pn_json_str(w.ph, "name"),
			       cJSON_GetObjectItem(w.pt, "index")->valueint,
			       cJSON_GetObjectItem(w.it, "index")->valueint);
	for (size_t k = 0; k < PN_NKINDS; k++) {
		const cJSON *v = cJSON_GetObjectItem(w.gp, pn_kind_names[k]);

		if (!cJSON_IsNumber(v) || v->valuedouble <= 0)
			continue;
		cJSON_AddNumberToObject(kj, pn_kind_names[k], v->valuedouble);
		if (off < len)
			off += (size_t)snprintf(txt + off, len - off, " %s %.0f", pn_kind_names[k],
						v->valuedouble);
	}
	act = active_pressure(w.ph);
	cJSON_AddItemToObject(wj, "pressure_active", act);
	if (cJSON_GetArraySize(act) && off < len)
		off += (size_t)snprintf(txt + off, len - off, "; pressure active:");
	cJSON_ArrayForEach (x, act)
		if (off < len)
			off += (size_t)snprintf(txt + off, len - off, " %s", x->valuestring);
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
	collect_checks(r, checks);
	if (cJSON_GetObjectItem(checks, "total")->valueint > 0)
		o.judged = true;
	if (cJSON_GetObjectItem(checks, "failed")->valueint > 0) {
		o.checks_failed = true;
		reason(reasons, "%d check(s) failed (verdict.checks.failures)",
		       cJSON_GetObjectItem(checks, "failed")->valueint);
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
	code = pn_exec_exit_status(r, v, code); /* --exit-status */
	cJSON_AddNumberToObject(v, "exit_code", code);
	return code;
}
