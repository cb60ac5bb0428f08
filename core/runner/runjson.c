// SPDX-License-Identifier: GPL-2.0-only
/*
 * runjson.c - the results tree of a run (run.json): its top level, the
 * status, the atomic rewrite after every phase (with the verdict so far,
 * verdict.c), and the per-point summaries of the workloads' metrics.  The
 * phases' own entries are phase_json.c's; the text summary printed from the
 * same tree is verdict_print.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "account.h"
#include "core/lib/atomicfile.h"
#include "core/sys/provenance.h"
#include "run_int.h"

#define PN_SCHEMA_VERSION 2

static cJSON *argv_json(int argc, char **argv)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; i < argc; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(argv[i]));
	return a;
}

static cJSON *roles_json(const struct pn_roles *roles)
{
	cJSON *o = cJSON_CreateObject();
	char buf[512];

	pn_nodeset_format(&roles->private_nodes, buf, sizeof(buf));
	cJSON_AddStringToObject(o, "private", buf);
	pn_nodeset_format(&roles->dram_nodes, buf, sizeof(buf));
	cJSON_AddStringToObject(o, "dram", buf);
	cJSON_AddBoolToObject(o, "private_auto", roles->private_auto);
	return o;
}

static cJSON *accounting_json(const struct run *r)
{
	cJSON *a = cJSON_CreateObject(), *cg, *st;

	cJSON_AddBoolToObject(a, "counters_refreshed", r->refresh_ok);
	cJSON_AddBoolToObject(a, "pcp_corrected", true);
	/* no deliberate drain: refresh and read until a pass moved nothing */
	st = cJSON_AddObjectToObject(a, "settle");
	cJSON_AddStringToObject(st, "method", "wait");
	cJSON_AddNumberToObject(st, "max_passes_private", PN_SETTLE_PASSES_PRIVATE);
	cJSON_AddNumberToObject(st, "max_passes_other", PN_SETTLE_PASSES_OTHER);
	cJSON_AddNumberToObject(st, "max_passes_sample", PN_SETTLE_PASSES_SAMPLE);
	cg = cJSON_AddObjectToObject(a, "cgroup");
	if (r->cg.version)
		cJSON_AddNumberToObject(cg, "version", r->cg.version);
	else
		cJSON_AddNullToObject(cg, "version");
	cJSON_AddStringToObject(cg, "reason", r->cg.reason);
	return a;
}

cJSON *pn_results_new_root(struct run *r, const struct pn_config *c)
{
	cJSON *root = cJSON_CreateObject(), *tool, *st, *cfg;
	char now[32], hex[65];

	cJSON_AddNumberToObject(root, "schema_version", PN_SCHEMA_VERSION);
	tool = cJSON_AddObjectToObject(root, "tool");
	cJSON_AddStringToObject(tool, "name", "pnbench");
	cJSON_AddStringToObject(tool, "version", PN_VERSION);
	st = cJSON_AddObjectToObject(root, "status");
	cJSON_AddStringToObject(st, "state", "incomplete");
	cJSON_AddStringToObject(st, "reason", "running");
	pn_utc_iso8601(now, sizeof(now));
	cJSON_AddStringToObject(root, "started_at", now);
	cJSON_AddStringToObject(root, "updated_at", now);
	cJSON_AddItemToObject(root, "command", argv_json(r->o->argc, r->o->argv));
	if (r->o->exec_argv) {
		int n = 0;

		while (r->o->exec_argv[n])
			n++;
		cJSON_AddItemToObject(root, "exec_command", argv_json(n, r->o->exec_argv));
	}
	cJSON_AddItemToObject(root, "host", pn_provenance_host());
	cJSON_AddItemToObject(root, "kernel", pn_provenance_kernel());
	cfg = cJSON_AddObjectToObject(root, "config");
	cJSON_AddStringToObject(cfg, "file", r->own_builtin ? "(built-in exec)" : c->file);
	cJSON_AddStringToObject(cfg, "name", c->name);
	if (!r->own_builtin && pn_sha256_file(c->file, hex) == 0)
		cJSON_AddStringToObject(cfg, "sha256", hex);
	else
		cJSON_AddNullToObject(cfg, "sha256");
	cJSON_AddNumberToObject(cfg, "matrix_points", (double)r->cs.n);
	cJSON_AddItemToObject(root, "roles", roles_json(&r->roles));
	cJSON_AddItemToObject(root, "topology", pn_topology_to_json(&r->topo));
	if (r->topo.hwloc_xml)
		cJSON_AddStringToObject(root, "topology_xml", "topology.xml");
	else
		cJSON_AddNullToObject(root, "topology_xml");
	cJSON_AddItemToObject(root, "accounting", accounting_json(r));
	cJSON_AddArrayToObject(root, "collectors");
	r->points_json = cJSON_AddArrayToObject(root, "points");
	cJSON_AddObjectToObject(root, "verdict");
	return root;
}

void pn_results_status(struct run *r, const char *state, const char *reason)
{
	cJSON *st = cJSON_GetObjectItem(r->root, "status");
	char now[32];

	cJSON_ReplaceItemInObject(st, "state", cJSON_CreateString(state));
	cJSON_ReplaceItemInObject(st, "reason",
				  reason ? cJSON_CreateString(reason) : cJSON_CreateNull());
	pn_utc_iso8601(now, sizeof(now));
	cJSON_ReplaceItemInObject(r->root, "updated_at", cJSON_CreateString(now));
}

/* Rewrite run.json atomically; the verdict always reflects what ran so far. */
int pn_results_write(struct run *r)
{
	char path[PATH_MAX + 16];
	char *text;
	int ret;

	pn_results_judge(r);
	text = cJSON_Print(r->root);
	if (!text)
		return pn_error(-ENOMEM, "cannot render run.json");
	snprintf(path, sizeof(path), "%s/run.json", r->outdir);
	ret = pn_atomic_writeat(r->outfd, r->outdir, "run.json", text, strlen(text));
	cJSON_free(text);
	if (ret)
		return pn_error(ret, "%s: %s", path, strerror(-ret));
	return 0;
}

/* ------------------------------------------------------------ summaries */

const char *pn_json_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	return cJSON_IsString(v) ? v->valuestring : "";
}

/* The summary entry of one (phase, workload, metric, labels), created on demand. */
static cJSON *summary_entry(cJSON *list, const char *phase, int idx, const cJSON *wl,
			    const cJSON *m)
{
	char *lab = cJSON_PrintUnformatted(cJSON_GetObjectItem(m, "labels"));
	cJSON *e;

	cJSON_ArrayForEach (e, list) {
		char *el = cJSON_PrintUnformatted(cJSON_GetObjectItem(e, "labels"));
		bool same = !strcmp(pn_json_str(e, "phase"), phase) &&
			    cJSON_GetObjectItem(e, "workload_index")->valueint == idx &&
			    !strcmp(pn_json_str(e, "name"), pn_json_str(m, "name")) &&
			    !strcmp(el, lab);

		cJSON_free(el);
		if (same) {
			cJSON_free(lab);
			return e;
		}
	}
	cJSON_free(lab);
	e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "phase", phase);
	cJSON_AddNumberToObject(e, "workload_index", idx);
	cJSON_AddStringToObject(e, "workload", pn_json_str(wl, "workload"));
	cJSON_AddStringToObject(e, "name", pn_json_str(m, "name"));
	cJSON_AddItemToObject(e, "labels", cJSON_Duplicate(cJSON_GetObjectItem(m, "labels"), 1));
	cJSON_AddStringToObject(e, "unit", pn_json_str(m, "unit"));
	cJSON_AddItemToObject(e, "better", cJSON_Duplicate(cJSON_GetObjectItem(m, "better"), 1));
	cJSON_AddStringToObject(e, "aggregate", pn_json_str(m, "aggregate"));
	cJSON_AddArrayToObject(e, "values");
	cJSON_AddItemToArray(list, e);
	return e;
}

static void summary_stats(cJSON *e)
{
	cJSON *vals = cJSON_GetObjectItem(e, "values"), *v;
	int n = cJSON_GetArraySize(vals), i = 0;
	double *a = pn_xcalloc((size_t)n + 1, sizeof(*a)), sum = 0, sq = 0, last = 0, agg;
	const char *how = pn_json_str(e, "aggregate");

	cJSON_ArrayForEach (v, vals) {
		a[i++] = v->valuedouble;
		sum += v->valuedouble;
		last = v->valuedouble;
	}
	for (i = 0; i < n; i++)
		sq += (a[i] - sum / n) * (a[i] - sum / n);
	cJSON_AddNumberToObject(e, "n", n);
	cJSON_AddNumberToObject(e, "mean", sum / n);
	cJSON_AddNumberToObject(e, "stddev", n > 1 ? sqrt(sq / (n - 1)) : 0.0);
	cJSON_AddNumberToObject(e, "median", pn_median(a, (size_t)n));
	cJSON_AddNumberToObject(e, "min", a[0]);
	cJSON_AddNumberToObject(e, "max", a[n - 1]);
	agg = !strcmp(how, "mean")   ? sum / n
	      : !strcmp(how, "min")  ? a[0]
	      : !strcmp(how, "max")  ? a[n - 1]
	      : !strcmp(how, "sum")  ? sum
	      : !strcmp(how, "last") ? last
				     : pn_median(a, (size_t)n);
	cJSON_AddNumberToObject(e, "value", agg);
	free(a);
}

/* Every foreground metric of the workloads that ran as expected, over the
 * point's iterations; background workloads and failed runs stay out. */
cJSON *pn_results_summarize_point(cJSON *iters)
{
	cJSON *sum = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(sum, "metrics");
	cJSON *it, *ph, *wl, *m, *e;

	cJSON_ArrayForEach (it, iters) {
		cJSON_ArrayForEach (ph, cJSON_GetObjectItem(it, "phases")) {
			const char *phn = pn_json_str(ph, "name");
			int idx = 0;

			cJSON_ArrayForEach (wl, cJSON_GetObjectItem(ph, "workloads")) {
				if (strcmp(pn_json_str(wl, "role"), "foreground") != 0)
					continue;
				idx++;
				if (strcmp(pn_json_str(wl, "status"), "ok") != 0)
					continue;
				cJSON_ArrayForEach (m, cJSON_GetObjectItem(wl, "metrics")) {
					e = summary_entry(list, phn, idx - 1, wl, m);
					cJSON_AddItemToArray(
						cJSON_GetObjectItem(e, "values"),
						cJSON_CreateNumber(cJSON_GetObjectItem(m, "value")
									   ->valuedouble));
				}
			}
		}
	}
	cJSON_ArrayForEach (e, list)
		summary_stats(e);
	return sum;
}
