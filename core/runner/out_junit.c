// SPDX-License-Identifier: GPL-2.0-only
/*
 * out_junit.c - `run --junit FILE`: the run's test cases (out_ci.h) as JUnit
 * XML, the Ant format Jenkins, GitLab and GitHub read: one <testsuite> per
 * point and iteration (its checks), one "verdict" <testsuite> (each private
 * node's verdict and the run's).  A failed check or node is a <failure>, a
 * workload or run that failed an <error>, a skipped workload or an
 * inconclusive node a <skipped> with the reason -- never a bare pass.
 * tests/schemas/junit.xsd is the schema it keeps to.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/lib/pn.h"
#include "out_ci.h"

struct junit {
	FILE *f;
	const cJSON *root;
	const struct pn_out_cases *cs;
	char timestamp[20]; /* UTC, without the zone the Ant schema forbids */
	const char *host, *config;
	int id;
};

static void attr(FILE *f, const char *name, const char *value)
{
	fprintf(f, " %s=\"", name);
	pn_out_xml(f, value);
	fputc('"', f);
}

static void property(FILE *f, const char *name, const char *value)
{
	fputs("      <property", f);
	attr(f, "name", name);
	attr(f, "value", value);
	fputs("/>\n", f);
}

static const char *const state_tag[] = {
	[PN_CASE_PASS] = NULL,	    [PN_CASE_FAIL] = "failure",		[PN_CASE_ERROR] = "error",
	[PN_CASE_SKIP] = "skipped", [PN_CASE_INCONCLUSIVE] = "skipped",
};

static void testcase(FILE *f, const struct pn_out_case *c)
{
	const char *tag = state_tag[c->state];
	char cls[32];

	snprintf(cls, sizeof(cls), "pnbench.%s", c->kind);
	fputs("    <testcase", f);
	attr(f, "classname", cls);
	attr(f, "name", c->name);
	fputs(" time=\"0\"", f);
	if (!tag) {
		fputs("/>\n", f);
		return;
	}
	fprintf(f, ">\n      <%s", tag);
	if (c->state == PN_CASE_FAIL || c->state == PN_CASE_ERROR)
		attr(f, "type", c->kind);
	attr(f, "message", c->message);
	if (c->state == PN_CASE_SKIP || c->state == PN_CASE_INCONCLUSIVE) {
		fputs("/>\n    </testcase>\n", f);
		return;
	}
	fputc('>', f);
	if (c->expected) {
		fputs("expected: ", f);
		pn_out_xml(f, c->expected);
		fputs("&#10;observed: ", f);
		pn_out_xml(f, c->observed);
	} else {
		pn_out_xml(f, c->message);
	}
	fprintf(f, "</%s>\n    </testcase>\n", tag);
}

/* The cases of one suite: those of (point, iteration). */
static void suite_counts(const struct pn_out_cases *cs, int pt, int it, int *n, int *fail, int *err,
			 int *skip)
{
	*n = *fail = *err = *skip = 0;
	for (size_t i = 0; i < cs->n; i++) {
		const struct pn_out_case *c = &cs->v[i];

		if (c->point != pt || c->iteration != it)
			continue;
		(*n)++;
		*fail += c->state == PN_CASE_FAIL;
		*err += c->state == PN_CASE_ERROR;
		*skip += c->state == PN_CASE_SKIP || c->state == PN_CASE_INCONCLUSIVE;
	}
}

static void suite_open(struct junit *j, const char *name, int pt, int it, double secs)
{
	int n, fail, err, skip;
	char pkg[160];

	suite_counts(j->cs, pt, it, &n, &fail, &err, &skip);
	snprintf(pkg, sizeof(pkg), "pnbench.%s", j->config);
	fputs("  <testsuite", j->f);
	attr(j->f, "name", name);
	attr(j->f, "package", pkg);
	fprintf(j->f, " id=\"%d\"", j->id++);
	attr(j->f, "hostname", j->host);
	fprintf(j->f,
		" timestamp=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" "
		"time=\"%.3f\">\n    <properties>\n",
		j->timestamp, n, fail, err, skip, secs);
	property(j->f, "config", j->config);
	property(j->f, "state",
		 pn_out_str(cJSON_GetObjectItem(j->root, "status"), "state", "incomplete"));
	property(j->f, "kernel",
		 pn_out_str(cJSON_GetObjectItem(j->root, "kernel"), "release", "?"));
}

static void suite_close(struct junit *j, int pt, int it)
{
	for (size_t i = 0; i < j->cs->n; i++)
		if (j->cs->v[i].point == pt && j->cs->v[i].iteration == it)
			testcase(j->f, &j->cs->v[i]);
	fputs("    <system-out/>\n    <system-err/>\n  </testsuite>\n", j->f);
}

static int index_of(const cJSON *o)
{
	const cJSON *v = cJSON_GetObjectItem(o, "index");

	return cJSON_IsNumber(v) ? v->valueint : 0;
}

static void iteration_suite(struct junit *j, const cJSON *pj, const cJSON *itj)
{
	int pt = index_of(pj), it = index_of(itj);
	const cJSON *ph, *m = cJSON_GetObjectItem(pj, "matrix");
	double ns = 0;
	char name[64], num[16];

	cJSON_ArrayForEach (ph, cJSON_GetObjectItem(itj, "phases")) {
		const cJSON *d = cJSON_GetObjectItem(ph, "duration_ns");

		ns += cJSON_IsNumber(d) ? d->valuedouble : 0;
	}
	snprintf(name, sizeof(name), "point %d iteration %d", pt, it);
	suite_open(j, name, pt, it, ns / 1e9);
	snprintf(num, sizeof(num), "%d", pt);
	property(j->f, "point", num);
	snprintf(num, sizeof(num), "%d", it);
	property(j->f, "iteration", num);
	if (cJSON_IsObject(m)) {
		char *txt = cJSON_PrintUnformatted(m);

		property(j->f, "matrix", txt);
		cJSON_free(txt);
	}
	fputs("    </properties>\n", j->f);
	suite_close(j, pt, it);
}

static void verdict_suite(struct junit *j)
{
	const cJSON *v = cJSON_GetObjectItem(j->root, "verdict");
	const cJSON *code = cJSON_GetObjectItem(v, "exit_code");
	const cJSON *st = cJSON_GetObjectItem(j->root, "status");
	char num[16], *blind = pn_out_blind_spot(j->root);

	suite_open(j, "verdict", -1, -1, 0);
	property(j->f, "result", pn_out_str(v, "result", "incomplete"));
	snprintf(num, sizeof(num), "%d", cJSON_IsNumber(code) ? code->valueint : -1);
	property(j->f, "exit_code", cJSON_IsNumber(code) ? num : "none (not finished)");
	property(j->f, "status_reason", pn_out_str(st, "reason", ""));
	property(j->f, "events",
		 cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(v, "sources"), "events"))
			 ? "on"
			 : "off (counters only)");
	if (blind) {
		property(j->f, "blind_spot", blind);
		free(blind);
	}
	fputs("    </properties>\n", j->f);
	suite_close(j, -1, -1);
}

char *pn_out_junit(const cJSON *root)
{
	struct pn_out_cases cs;
	struct junit j = { .root = root, .cs = &cs };
	const char *started = pn_out_str(root, "started_at", "");
	const cJSON *pj, *itj;
	char *out = NULL, name[200];
	size_t len = 0;

	pn_out_cases_build(root, &cs);
	j.f = open_memstream(&out, &len);
	if (!j.f)
		abort();
	snprintf(j.timestamp, sizeof(j.timestamp), "%s",
		 strlen(started) >= 19 ? started : "1970-01-01T00:00:00");
	j.host = pn_out_str(cJSON_GetObjectItem(root, "host"), "hostname", "localhost");
	if (!*j.host)
		j.host = "localhost";
	j.config = pn_out_str(cJSON_GetObjectItem(root, "config"), "name", "run");
	snprintf(name, sizeof(name), "pnbench %s", j.config);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", j.f);
	attr(j.f, "name", name);
	fprintf(j.f, " tests=\"%zu\" failures=\"%d\" errors=\"%d\">\n", cs.n, cs.failed, cs.errors);
	cJSON_ArrayForEach (pj, cJSON_GetObjectItem(root, "points"))
		cJSON_ArrayForEach (itj, cJSON_GetObjectItem(pj, "iterations"))
			iteration_suite(&j, pj, itj);
	verdict_suite(&j);
	fputs("</testsuites>\n", j.f);
	fclose(j.f);
	pn_out_cases_free(&cs);
	return out;
}
