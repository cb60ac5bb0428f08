// SPDX-License-Identifier: GPL-2.0-only
/*
 * verdict.c - the verdict of a run, composed from its sources, and the text
 * summary, both read from the results tree.
 *
 *   fail          a private node holds general pages over the threshold by
 *                 the counters or by the events, a check failed, or explicit
 *                 pages are off their nodes beyond the threshold   (exit 1)
 *   inconclusive  nothing failed, but an event collector lost events that
 *                 could have touched a private node                (exit 5)
 *   pass          something was judged and nothing failed          (exit 0)
 *   not_applicable  nothing to judge: no private node, no check    (exit 4)
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "account.h"
#include "runner.h"

static const char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static void add_failure(cJSON *failures, const cJSON *pt, const cJSON *it, const cJSON *ph,
			const char *workload, const char *name, const char *expected,
			const char *observed)
{
	cJSON *f = cJSON_CreateObject();

	cJSON_AddNumberToObject(f, "point", cJSON_GetObjectItem(pt, "index")->valuedouble);
	cJSON_AddNumberToObject(f, "iteration", cJSON_GetObjectItem(it, "index")->valuedouble);
	cJSON_AddStringToObject(f, "phase", str_of(ph, "name"));
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
			add_failure(t->failures, pt, it, ph, str_of(wl, "workload"),
				    str_of(ck, "name"), str_of(ck, "expected"),
				    str_of(ck, "observed"));
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
				gp = cJSON_GetObjectItem(
					cJSON_GetObjectItem(cJSON_GetObjectItem(ph, "nodes"), key),
					"general_pages");
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
			const char *kind = str_of(cJSON_GetObjectItem(m, "labels"), "kind");
			const cJSON *x;
			bool seen = false;

			if (strcmp(str_of(m, "name"), "active") != 0 || !*kind ||
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
	cJSON_AddStringToObject(wj, "phase", str_of(w.ph, "name"));
	cJSON_AddNumberToObject(wj, "general_pages", w.total);
	cJSON_AddStringToObject(wj, "moment", str_of(w.gp, "moment"));
	kj = cJSON_AddObjectToObject(wj, "kinds");
	off = (size_t)snprintf(txt, len, "; worst in phase \"%s\" (point %d, iteration %d):",
			       str_of(w.ph, "name"), cJSON_GetObjectItem(w.pt, "index")->valueint,
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

/* One private node: pass unless counters or events exceed the threshold. */
static bool judge_node(const struct run *r, int n, cJSON *nodes, cJSON *reasons, bool *any,
		       bool *inconclusive)
{
	int64_t thr = r->c0->max_general_pages, cnt = r->worst_general[n], ev = r->worst_events[n];
	bool pass = true;
	cJSON *o, *src;
	char key[16], where[400];

	if (cnt < 0 && ev < 0)
		return true;
	*any = true;
	snprintf(key, sizeof(key), "%d", n);
	o = cJSON_AddObjectToObject(nodes, key);
	cJSON_AddNumberToObject(o, "general_pages_max", (double)(cnt > ev ? cnt : ev));
	src = cJSON_AddObjectToObject(o, "sources");
	cJSON_AddNumberToObject(src, "counters", (double)cnt);
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
	cJSON_AddBoolToObject(o, "inconclusive", r->inconclusive[n]);
	if (r->inconclusive[n] && pass)
		*inconclusive = true;
	cJSON_AddBoolToObject(o, "pass", pass);
	return pass;
}

int pn_results_judge(struct run *r)
{
	const struct pn_config *c = r->c0;
	cJSON *v, *nodes, *reasons, *checks, *thr;
	bool any = false, fail = false, inconclusive = false;
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
		if (!judge_node(r, n, nodes, reasons, &any, &inconclusive))
			fail = true;
	checks = cJSON_AddObjectToObject(v, "checks");
	collect_checks(r, checks);
	if (cJSON_GetObjectItem(checks, "total")->valueint > 0)
		any = true;
	if (cJSON_GetObjectItem(checks, "failed")->valueint > 0) {
		fail = true;
		reason(reasons, "%d check(s) failed (verdict.checks.failures)",
		       cJSON_GetObjectItem(checks, "failed")->valueint);
	}
	cJSON_AddNumberToObject(v, "misplaced_pages", (double)r->misplaced_total);
	if (c->max_misplaced_pages >= 0 && r->misplaced_total > c->max_misplaced_pages) {
		fail = true;
		reason(reasons, "explicit pages off their intended nodes: %lld (threshold %lld)",
		       (long long)r->misplaced_total, (long long)c->max_misplaced_pages);
	}
	if (r->exec_failed) {
		fail = true;
		reason(reasons, "the --exec command failed in %d phase(s)", r->exec_failed);
	}
	result = fail ? "fail" : inconclusive ? "inconclusive" : any ? "pass" : "not_applicable";
	code = fail	      ? PN_EXIT_VERDICT
	       : inconclusive ? PN_EXIT_INCONCLUSIVE
	       : any	      ? PN_EXIT_PASS
			      : PN_EXIT_SKIP;
	cJSON_AddStringToObject(v, "result", result);
	cJSON_AddNumberToObject(v, "exit_code", code);
	return code;
}

static void print_labels(const cJSON *labels, char *buf, size_t len)
{
	const cJSON *l;
	size_t used = 0;

	buf[0] = '\0';
	cJSON_ArrayForEach (l, labels) {
		int k = snprintf(buf + used, len - used, "%s%s=%s", used ? "," : "{", l->string,
				 cJSON_IsString(l) ? l->valuestring : "?");

		if (k < 0 || (size_t)k >= len - used)
			break;
		used += (size_t)k;
	}
	if (used && used + 2 < len)
		strcat(buf, "}");
}

static void print_point(const cJSON *pt)
{
	cJSON *mx = cJSON_GetObjectItem(pt, "matrix"), *e;
	char *mtext = mx && cJSON_IsObject(mx) ? cJSON_PrintUnformatted(mx) : NULL;
	char lab[160], name[256];

	printf("point %d%s%s\n", cJSON_GetObjectItem(pt, "index")->valueint, mtext ? " " : "",
	       mtext ? mtext : "");
	cJSON_free(mtext);
	cJSON_ArrayForEach (e, cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "summary"), "metrics")) {
		print_labels(cJSON_GetObjectItem(e, "labels"), lab, sizeof(lab));
		snprintf(name, sizeof(name), "%s/%d:%s %s%s", str_of(e, "phase"),
			 cJSON_GetObjectItem(e, "workload_index")->valueint, str_of(e, "workload"),
			 str_of(e, "name"), lab);
		printf("  %-52s %s %14.6g  min %14.6g  max %14.6g  %s (n=%d)\n", name,
		       str_of(e, "aggregate"), cJSON_GetObjectItem(e, "value")->valuedouble,
		       cJSON_GetObjectItem(e, "min")->valuedouble,
		       cJSON_GetObjectItem(e, "max")->valuedouble, str_of(e, "unit"),
		       cJSON_GetObjectItem(e, "n")->valueint);
	}
}

void pn_results_print(struct run *r)
{
	cJSON *pt, *v = cJSON_GetObjectItem(r->root, "verdict"), *n, *x;
	cJSON *checks = cJSON_GetObjectItem(v, "checks");

	printf("pnbench run: %s\n", r->outdir);
	cJSON_ArrayForEach (pt, r->points_json)
		print_point(pt);
	cJSON_ArrayForEach (n, cJSON_GetObjectItem(v, "nodes")) {
		cJSON *src = cJSON_GetObjectItem(n, "sources"),
		      *ev = cJSON_GetObjectItem(src, "events");

		char evs[32] = "n/a";

		if (cJSON_IsNumber(ev))
			snprintf(evs, sizeof(evs), "%.0f", ev->valuedouble);
		printf("general allocations on private node %s: %.0f pages (counters %.0f, events "
		       "%s) "
		       "%s%s\n",
		       n->string, cJSON_GetObjectItem(n, "general_pages_max")->valuedouble,
		       cJSON_GetObjectItem(src, "counters")->valuedouble, evs,
		       cJSON_IsTrue(cJSON_GetObjectItem(n, "pass")) ? "PASS" : "FAIL",
		       cJSON_IsTrue(cJSON_GetObjectItem(n, "inconclusive")) ? " (events lost)"
									    : "");
	}
	printf("checks: %d passed, %d failed\n", cJSON_GetObjectItem(checks, "passed")->valueint,
	       cJSON_GetObjectItem(checks, "failed")->valueint);
	cJSON_ArrayForEach (x, cJSON_GetObjectItem(checks, "failures"))
		printf("  FAIL %s/%s %s: expected %s, observed %s\n", str_of(x, "phase"),
		       str_of(x, "workload"), str_of(x, "name"), str_of(x, "expected"),
		       str_of(x, "observed"));
	printf("explicit pages off their intended nodes: %.0f\n",
	       cJSON_GetObjectItem(v, "misplaced_pages")->valuedouble);
	cJSON_ArrayForEach (x, cJSON_GetObjectItem(v, "reasons"))
		printf("reason: %s\n", x->valuestring);
	printf("verdict: %s\n", str_of(v, "result"));
}
