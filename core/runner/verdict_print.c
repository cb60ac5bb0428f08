// SPDX-License-Identifier: GPL-2.0-only
/*
 * verdict_print.c - the text summary of a run, read from the results tree:
 * the matrix points' metrics, each private node's general pages by source,
 * the checks, the reasons, and the verdict with what it could not see.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

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

static void print_point(const cJSON *pt)
{
	cJSON *mx = cJSON_GetObjectItem(pt, "matrix"), *e;
	char *mtext = mx && cJSON_IsObject(mx) ? cJSON_PrintUnformatted(mx) : NULL;
	char lab[160], name[256];

	printf("point %d%s%s\n", cJSON_GetObjectItem(pt, "index")->valueint, mtext ? " " : "",
	       mtext ? mtext : "");
	cJSON_free(mtext);
	cJSON_ArrayForEach (e, cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "summary"), "metrics")) {
		if (!strcmp(pn_json_str(e, "workload"), "--exec"))
			continue; /* after the verdict, with its table (exec_print.c) */
		print_labels(cJSON_GetObjectItem(e, "labels"), lab, sizeof(lab));
		snprintf(name, sizeof(name), "%s/%d:%s %s%s", pn_json_str(e, "phase"),
			 cJSON_GetObjectItem(e, "workload_index")->valueint,
			 pn_json_str(e, "workload"), pn_json_str(e, "name"), lab);
		printf("  %-52s %s %14.6g  min %14.6g  max %14.6g  %s (n=%d)\n", name,
		       pn_json_str(e, "aggregate"), cJSON_GetObjectItem(e, "value")->valuedouble,
		       cJSON_GetObjectItem(e, "min")->valuedouble,
		       cJSON_GetObjectItem(e, "max")->valuedouble, pn_json_str(e, "unit"),
		       cJSON_GetObjectItem(e, "n")->valueint);
	}
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

	printf("pnbench run: %s\n", r->outdir);
	cJSON_ArrayForEach (pt, r->points_json)
		print_point(pt);
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
