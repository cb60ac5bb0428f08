// SPDX-License-Identifier: GPL-2.0-only
/*
 * out_openmetrics.c - `run --openmetrics FILE`: the run as OpenMetrics text
 * for a Prometheus textfile collector (node_exporter
 * --collector.textfile.directory), one file per run, `# EOF` at the end.
 *
 * Gauges only, no timestamps, no UNIT lines: the same file is valid
 * Prometheus text format 0.0.4, which the textfile collector reads.  Every
 * sample carries config="NAME", so the files of several configs can share
 * one directory without two samples of the same labels.
 *
 *   pnbench_run_info{config,host,kernel,version,state,result,events}  1
 *                                    (events="off": a counters-only verdict)
 *   pnbench_run_started_seconds{config}  when it started (Unix time)
 *   pnbench_run_complete{config}     1 once the verdict is final, 0 while
 *                                    the run goes on or when it was
 *                                    interrupted (figures so far)
 *   pnbench_exit_code{config}        the process's exit status (absent
 *                                    until the run ends)
 *   pnbench_verdict{config,node,kernel}  per private node: 0 pass, 1 fail,
 *                                    2 inconclusive (also: nothing found so
 *                                    far in a run not finished), 3 not judged
 *   pnbench_general_pages{config,node,kind}  what the verdict judged:
 *                                    kind="total" the most general pages
 *                                    (counters or events), the others the
 *                                    counters' kinds in the worst phase
 *   pnbench_checks{config,result="passed"|"failed"}
 *   pnbench_misplaced_pages{config}  explicit pages off their nodes
 *   pnbench_metric{config,point,matrix,phase,workload_index,workload,
 *                  metric,labels,unit,better,aggregate}  each metric's
 *                                    summary over the point's iterations
 *                                    (matrix: the point's values as JSON,
 *                                    "" without a matrix; labels: the
 *                                    metric's own, "k=v,k=v" sorted by key)
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "account.h"
#include "core/lib/pn.h"
#include "out_ci.h"

struct om {
	FILE *f;
	const char *config;
};

static void family(struct om *m, const char *name, const char *help)
{
	fprintf(m->f, "# TYPE %s gauge\n# HELP %s %s\n", name, name, help);
}

/* name{config="..",k1="v1",..} value; labels: NULL-terminated pairs */
static void sample(struct om *m, const char *name, double v, const char *const *labels)
{
	fprintf(m->f, "%s{config=\"", name);
	pn_out_om_label(m->f, m->config);
	fputc('"', m->f);
	for (; labels && labels[0]; labels += 2) {
		fprintf(m->f, ",%s=\"", labels[0]);
		pn_out_om_label(m->f, labels[1] ? labels[1] : "");
		fputc('"', m->f);
	}
	fputs("} ", m->f);
	pn_out_om_value(m->f, v);
	fputc('\n', m->f);
}

static double num(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* started_at ("2026-12-05T07:14:40Z") as Unix time */
static bool started(const cJSON *root, time_t *t)
{
	const char *s = pn_out_str(root, "started_at", "");
	struct tm tm;
	const char *end;

	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!end || *end)
		return false;
	*t = timegm(&tm);
	return *t != (time_t)-1;
}

static void run_families(struct om *m, const cJSON *root)
{
	const cJSON *st = cJSON_GetObjectItem(root, "status"),
		    *v = cJSON_GetObjectItem(root, "verdict");
	const char *state = pn_out_str(st, "state", "incomplete");
	const char *const info[] = {
		"host",
		pn_out_str(cJSON_GetObjectItem(root, "host"), "hostname", ""),
		"kernel",
		pn_out_str(cJSON_GetObjectItem(root, "kernel"), "release", ""),
		"version",
		pn_out_str(cJSON_GetObjectItem(root, "tool"), "version", ""),
		"state",
		state,
		"result",
		pn_out_str(v, "result", "incomplete"),
		"events",
		cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(v, "sources"), "events"))
			? "on"
			: "off",
		NULL,
	};
	const cJSON *code = cJSON_GetObjectItem(v, "exit_code");
	const cJSON *checks = cJSON_GetObjectItem(v, "checks");
	time_t t0;

	family(m, "pnbench_run_info",
	       "The run: host, kernel, tool version, state, result, events on or off (always 1).");
	sample(m, "pnbench_run_info", 1, info);
	if (started(root, &t0)) {
		family(m, "pnbench_run_started_seconds", "When the run started, Unix time.");
		sample(m, "pnbench_run_started_seconds", (double)t0, NULL);
	}
	family(m, "pnbench_run_complete",
	       "1 when the run finished and its verdict is final, 0 while it runs or once "
	       "interrupted (figures so far).");
	sample(m, "pnbench_run_complete",
	       strcmp(state, "incomplete") != 0 && cJSON_IsNumber(code) ? 1 : 0, NULL);
	if (cJSON_IsNumber(code)) {
		family(m, "pnbench_exit_code",
		       "The exit status of pnbench run (0 pass, 1 fail, 3 error, 4 not applicable, "
		       "5 inconclusive, 128+N signal N).");
		sample(m, "pnbench_exit_code", code->valuedouble, NULL);
	}
	family(m, "pnbench_checks", "Checks of the run by result.");
	sample(m, "pnbench_checks", num(checks, "passed", 0),
	       (const char *const[]){ "result", "passed", NULL });
	sample(m, "pnbench_checks", num(checks, "failed", 0),
	       (const char *const[]){ "result", "failed", NULL });
	family(m, "pnbench_misplaced_pages", "Explicit pages found off their intended nodes.");
	sample(m, "pnbench_misplaced_pages", num(v, "misplaced_pages", 0), NULL);
}

static void node_families(struct om *m, const cJSON *root, const struct pn_nodeset *priv)
{
	static const double value[] = {
		[PN_CASE_PASS] = 0, [PN_CASE_FAIL] = 1,	 [PN_CASE_INCONCLUSIVE] = 2,
		[PN_CASE_SKIP] = 3, [PN_CASE_ERROR] = 3,
	};
	const cJSON *v = cJSON_GetObjectItem(root, "verdict");
	const char *kernel = pn_out_str(cJSON_GetObjectItem(root, "kernel"), "release", "");
	int n;

	family(m, "pnbench_verdict",
	       "Per private node: 0 pass, 1 fail, 2 inconclusive, 3 not judged.");
	pn_nodeset_for_each (n, priv) {
		char node[16];

		snprintf(node, sizeof(node), "%d", n);
		sample(m, "pnbench_verdict", value[pn_out_node_state(root, n)],
		       (const char *const[]){ "node", node, "kernel", kernel, NULL });
	}
	family(m, "pnbench_general_pages",
	       "General pages on a private node as judged: kind total (counters or events, the "
	       "larger), the others by kind in the worst phase (counters).");
	pn_nodeset_for_each (n, priv) {
		const cJSON *nj, *kinds;
		char node[16];

		snprintf(node, sizeof(node), "%d", n);
		nj = cJSON_GetObjectItem(cJSON_GetObjectItem(v, "nodes"), node);
		if (!nj)
			continue; /* not judged: no figure rather than a 0 */
		kinds = cJSON_GetObjectItem(cJSON_GetObjectItem(nj, "worst"), "kinds");
		sample(m, "pnbench_general_pages", num(nj, "general_pages_max", 0),
		       (const char *const[]){ "node", node, "kind", "total", NULL });
		for (size_t k = 0; k < PN_NKINDS; k++)
			sample(m, "pnbench_general_pages", num(kinds, pn_kind_names[k], 0),
			       (const char *const[]){ "node", node, "kind", pn_kind_names[k],
						      NULL });
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* A metric's own labels as "k=v,k=v", sorted by key (malloc'd). */
static char *labels_text(const cJSON *labels)
{
	int n = cJSON_GetArraySize(labels), i = 0;
	const cJSON **v = pn_xcalloc((size_t)n + 1, sizeof(const cJSON *)), *it;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		abort();
	cJSON_ArrayForEach (it, labels)
		if (it->string && i < n)
			v[i++] = it;
	qsort(v, (size_t)i, sizeof(const cJSON *), by_name);
	for (int k = 0; k < i; k++) {
		char *val = cJSON_IsString(v[k]) ? NULL : cJSON_PrintUnformatted(v[k]);

		fprintf(f, "%s%s=%s", k ? "," : "", v[k]->string, val ? val : v[k]->valuestring);
		cJSON_free(val);
	}
	fclose(f);
	free(v);
	return out;
}

static void metric_family(struct om *m, const cJSON *root)
{
	const cJSON *pj, *e;

	family(m, "pnbench_metric",
	       "Each workload metric summarized over the point's iterations (its aggregate).");
	cJSON_ArrayForEach (pj, cJSON_GetObjectItem(root, "points")) {
		const cJSON *mx = cJSON_GetObjectItem(pj, "matrix");
		char point[16], *matrix = cJSON_IsObject(mx) ? cJSON_PrintUnformatted(mx) : NULL;

		snprintf(point, sizeof(point), "%.0f", num(pj, "index", 0));
		cJSON_ArrayForEach (
			e, cJSON_GetObjectItem(cJSON_GetObjectItem(pj, "summary"), "metrics")) {
			char idx[16], *lab = labels_text(cJSON_GetObjectItem(e, "labels"));

			snprintf(idx, sizeof(idx), "%.0f", num(e, "workload_index", 0));
			sample(m, "pnbench_metric", num(e, "value", 0),
			       (const char *const[]){ "point",
						      point,
						      "matrix",
						      matrix ? matrix : "",
						      "phase",
						      pn_out_str(e, "phase", ""),
						      "workload_index",
						      idx,
						      "workload",
						      pn_out_str(e, "workload", ""),
						      "metric",
						      pn_out_str(e, "name", ""),
						      "labels",
						      lab,
						      "unit",
						      pn_out_str(e, "unit", ""),
						      "better",
						      pn_out_str(e, "better", ""),
						      "aggregate",
						      pn_out_str(e, "aggregate", ""),
						      NULL });
			free(lab);
		}
		cJSON_free(matrix);
	}
}

char *pn_out_openmetrics(const cJSON *root)
{
	struct om m = { .config = pn_out_str(cJSON_GetObjectItem(root, "config"), "name", "") };
	struct pn_nodeset priv;
	char *out = NULL;
	size_t len = 0;

	m.f = open_memstream(&out, &len);
	if (!m.f)
		abort();
	if (pn_nodeset_parse(&priv, pn_out_str(cJSON_GetObjectItem(root, "roles"), "private", "")))
		pn_nodeset_zero(&priv);
	run_families(&m, root);
	node_families(&m, root, &priv);
	metric_family(&m, root);
	fputs("# EOF\n", m.f);
	fclose(m.f);
	return out;
}
