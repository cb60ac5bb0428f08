// SPDX-License-Identifier: GPL-2.0-only
/*
 * verdict_print.c - the text summary of a run, read from the results tree:
 * the matrix points' metrics, each private node's general pages by source,
 * the checks, the reasons, and the verdict with what it could not see.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/lib/fmt.h"
#include "core/lib/label.h"
#include "run_int.h"

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

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* "phase/i:workload metric{labels}" */
static void metric_name(const cJSON *e, char *name, size_t len)
{
	char lab[160];

	print_labels(cJSON_GetObjectItem(e, "labels"), lab, sizeof(lab));
	snprintf(name, len, "%s/%d:%s %s%s", pn_json_str(e, "phase"), (int)num(e, "workload_index"),
		 pn_json_str(e, "workload"), pn_json_str(e, "name"), lab);
}

/* One metric in 100 columns: name, value (its aggregate), the range over
 * the iterations when there were several; a long name gets its own line. */
static void print_metric(const cJSON *e)
{
	const char *unit = pn_json_str(e, "unit");
	char name[256], v[PN_FMT_LEN], lo[PN_FMT_LEN], hi[PN_FMT_LEN];
	int n = (int)num(e, "n");

	metric_name(e, name, sizeof(name));
	pn_fmt_unit(num(e, "value"), unit, v, sizeof(v));
	if ((int)strlen(name) > 44)
		printf("  %s\n  %-44s", name, "");
	else
		printf("  %-44s", name);
	printf(" %13s %-6s", v, pn_json_str(e, "aggregate"));
	if (n > 1 && num(e, "min") != num(e, "max"))
		printf(" %s .. %s (n=%d)\n", pn_fmt_unit(num(e, "min"), unit, lo, sizeof(lo)),
		       pn_fmt_unit(num(e, "max"), unit, hi, sizeof(hi)), n);
	else
		printf(" (n=%d)\n", n);
}

static void print_point(const cJSON *pt, int npoints)
{
	char label[512];
	cJSON *e;

	pn_point_label(cJSON_GetObjectItem(pt, "matrix"), label, sizeof(label));
	if (npoints > 1 || label[0])
		printf("point %d%s%s\n", (int)num(pt, "index"), label[0] ? "  " : "", label);
	cJSON_ArrayForEach (e, cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "summary"), "metrics"))
		print_metric(e);
}

/* --format csv: one row per metric, per private node, and the verdict. */
static void csv_row(const char *point, const char *label, const char *metric, const char *labels,
		    const char *agg, double v, double lo, double hi, const char *unit, int n)
{
	const char *cells[] = { point, label, metric, labels, agg };

	for (size_t i = 0; i < PN_ARRAY_SIZE(cells); i++) {
		const char *c = cells[i] ? cells[i] : "";

		if (strpbrk(c, ",\"\n")) {
			putchar('"');
			for (; *c; c++)
				printf(*c == '"' ? "\"\"" : "%c", *c);
			putchar('"');
		} else {
			fputs(c, stdout);
		}
		putchar(',');
	}
	printf("%.12g,", v);
	if (!isnan(lo))
		printf("%.12g", lo);
	putchar(',');
	if (!isnan(hi))
		printf("%.12g", hi);
	printf(",%s,%d\n", unit, n);
}

static void print_csv(struct run *r, const cJSON *v)
{
	const cJSON *pt, *e, *n;

	printf("point,label,metric,labels,aggregate,value,min,max,unit,n\n");
	cJSON_ArrayForEach (pt, r->points_json) {
		char label[512], idx[16], name[256];

		pn_point_label(cJSON_GetObjectItem(pt, "matrix"), label, sizeof(label));
		snprintf(idx, sizeof(idx), "%d", (int)num(pt, "index"));
		cJSON_ArrayForEach (
			e, cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "summary"), "metrics")) {
			char lab[160];

			snprintf(name, sizeof(name), "%s/%d:%s %s", pn_json_str(e, "phase"),
				 (int)num(e, "workload_index"), pn_json_str(e, "workload"),
				 pn_json_str(e, "name"));
			print_labels(cJSON_GetObjectItem(e, "labels"), lab, sizeof(lab));
			csv_row(idx, label, name, lab, pn_json_str(e, "aggregate"), num(e, "value"),
				num(e, "min"), num(e, "max"), pn_json_str(e, "unit"),
				(int)num(e, "n"));
		}
	}
	cJSON_ArrayForEach (n, cJSON_GetObjectItem(v, "nodes")) {
		char lab[48];

		snprintf(lab, sizeof(lab), "{node=%s}", n->string);
		csv_row("", "", "general_pages", lab, "max", num(n, "general_pages_max"), NAN, NAN,
			"pages", 1);
	}
	csv_row("", "", "verdict", pn_json_str(v, "result"), "", num(v, "exit_code"), NAN, NAN,
		"exit_code", 1);
}

/* --format json: the run directory, the verdict and each point's label and
 * metrics, as run.json has them. */
static void print_json(struct run *r, const cJSON *v)
{
	cJSON *doc = cJSON_CreateObject(), *pts, *pt;
	char *text;

	cJSON_AddStringToObject(doc, "run_dir", r->outdir);
	cJSON_AddItemToObject(doc, "verdict", cJSON_Duplicate(v, 1));
	pts = cJSON_AddArrayToObject(doc, "points");
	cJSON_ArrayForEach (pt, r->points_json) {
		cJSON *o = cJSON_CreateObject();
		char label[512];

		cJSON_AddNumberToObject(o, "index", num(pt, "index"));
		cJSON_AddStringToObject(
			o, "label",
			pn_point_label(cJSON_GetObjectItem(pt, "matrix"), label, sizeof(label)));
		cJSON_AddItemToObject(
			o, "metrics",
			cJSON_Duplicate(
				cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "summary"), "metrics"),
				1));
		cJSON_AddItemToArray(pts, o);
	}
	text = cJSON_Print(doc);
	puts(text);
	cJSON_free(text);
	cJSON_Delete(doc);
}

/* "pass (counters only: ...)": what the verdict could and could not see. */
static void print_verdict_line(const cJSON *v)
{
	const cJSON *src = cJSON_GetObjectItem(v, "sources");
	const cJSON *bs = cJSON_GetObjectItem(v, "blind_spot");
	const char *result = pn_json_str(v, "result");

	printf("verdict: %s", result);
	if (cJSON_IsObject(bs) && strcmp(result, "interrupted") != 0) {
		const cJSON *iv = cJSON_GetObjectItem(bs, "sample_interval_ms");
		const cJSON *ms = cJSON_GetObjectItem(bs, "min_samples_per_phase");
		const cJSON *ph = cJSON_GetObjectItem(bs, "phase_ms_with_min_samples");

		printf(" (counters only: allocations that live < %.0f ms between samples are "
		       "invisible",
		       cJSON_IsNumber(iv) ? iv->valuedouble : 0);
		if (cJSON_IsNumber(ms) && cJSON_IsNumber(ph))
			printf("; the phase with the fewest got %.0f sample(s) in %.1f s",
			       ms->valuedouble, ph->valuedouble / 1000);
		printf("; no events: %s", pn_json_str(bs, "why"));
		if (!strstr(pn_json_str(bs, "why"), "off"))
			printf("; run as root with tracefs for events");
		printf(")");
	} else if (cJSON_IsTrue(cJSON_GetObjectItem(src, "events")) &&
		   cJSON_GetArraySize(cJSON_GetObjectItem(v, "nodes")) > 0 &&
		   (!strcmp(result, "pass") || !strcmp(result, "fail"))) {
		printf(" (events: every page allocated on the private nodes seen; counters "
		       "cross-check)");
	}
	printf("\n");
}

void pn_results_print(struct run *r)
{
	cJSON *pt, *v = cJSON_GetObjectItem(r->root, "verdict"), *n, *x;
	cJSON *checks = cJSON_GetObjectItem(v, "checks");

	if (r->o->summary_format == 1) {
		print_json(r, v);
		return;
	}
	if (r->o->summary_format == 2) {
		print_csv(r, v);
		return;
	}
	printf("pnbench run: %s\n", r->outdir);
	cJSON_ArrayForEach (pt, r->points_json)
		print_point(pt, cJSON_GetArraySize(r->points_json));
	cJSON_ArrayForEach (n, cJSON_GetObjectItem(v, "nodes")) {
		cJSON *src = cJSON_GetObjectItem(n, "sources"),
		      *ev = cJSON_GetObjectItem(src, "events");
		bool incon = cJSON_IsTrue(cJSON_GetObjectItem(n, "inconclusive"));
		char evs[32] = "n/a";

		if (cJSON_IsNumber(ev))
			snprintf(evs, sizeof(evs), "%.0f", ev->valuedouble);
		printf("general allocations on private node %s: %.0f pages (counters %.0f, events "
		       "%s) %s\n",
		       n->string, cJSON_GetObjectItem(n, "general_pages_max")->valuedouble,
		       cJSON_GetObjectItem(src, "counters")->valuedouble, evs,
		       !cJSON_IsTrue(cJSON_GetObjectItem(n, "pass")) ? "FAIL"
		       : incon					     ? "INCONCLUSIVE"
								     : "PASS");
	}
	printf("checks: %d passed, %d failed\n", cJSON_GetObjectItem(checks, "passed")->valueint,
	       cJSON_GetObjectItem(checks, "failed")->valueint);
	cJSON_ArrayForEach (x, cJSON_GetObjectItem(checks, "failures"))
		printf("  FAIL %s/%s %s: expected %s, observed %s\n", pn_json_str(x, "phase"),
		       pn_json_str(x, "workload"), pn_json_str(x, "name"),
		       pn_json_str(x, "expected"), pn_json_str(x, "observed"));
	printf("explicit pages off their intended nodes: %.0f\n",
	       cJSON_GetObjectItem(v, "misplaced_pages")->valuedouble);
	cJSON_ArrayForEach (x, cJSON_GetObjectItem(v, "reasons"))
		printf("reason: %s\n", x->valuestring);
	print_verdict_line(v);
}
