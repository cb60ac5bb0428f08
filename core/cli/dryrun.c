// SPDX-License-Identifier: GPL-2.0-only
/*
 * dryrun.c - `pnbench run --dry-run`: the config loaded, checked and
 * expanded (with --set, -n and --private applied) and what a run would do,
 * printed without touching the machine: matrix points with their labels,
 * iterations, phases, workloads with every parameter, knobs, collectors,
 * thresholds.  --format json prints each point's resolved config instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "cli.h"
#include "core/config/config.h"
#include "core/lib/fmt.h"
#include "core/lib/label.h"
#include "core/lib/pn.h"

#define DRY_WIDTH 96 /* wrap parameter lists before this column */

static const struct pn_opt *opt_named(const struct pn_opt *opts, const char *name)
{
	for (const struct pn_opt *o = opts; o && o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

/* One canonical parameter value as people write it. */
static void param_text(const struct pn_opt *o, const cJSON *v, char *buf, size_t len)
{
	char *js;

	if (cJSON_IsString(v)) {
		snprintf(buf, len, "%s", v->valuestring);
		return;
	}
	if (o && o->type == PN_OPT_SIZE && cJSON_IsNumber(v)) {
		pn_fmt_bytes(v->valuedouble, buf, len);
		return;
	}
	if (o && o->type == PN_OPT_DURATION && cJSON_IsNumber(v)) {
		pn_fmt_ns(v->valuedouble * 1e6, buf, len);
		return;
	}
	js = cJSON_PrintUnformatted(v);
	snprintf(buf, len, "%s", js ? js : "?");
	free(js);
}

/* "name=value" items after an indent, wrapped before DRY_WIDTH. */
static void print_params(const struct pn_opt *opts, const cJSON *params, int indent)
{
	const cJSON *it;
	int col = indent;

	printf("%*s", indent, "");
	cJSON_ArrayForEach (it, params) {
		char val[96], item[160];
		int w;

		param_text(opt_named(opts, it->string), it, val, sizeof(val));
		w = snprintf(item, sizeof(item), "%s=%s", it->string, val);
		if (col > indent && col + 1 + w > DRY_WIDTH) {
			printf("\n%*s", indent, "");
			col = indent;
		}
		col += printf("%s%s", col > indent ? " " : "", item);
	}
	printf("\n");
}

static void print_wl(const struct pn_config_wl *w, const char *prefix)
{
	char buf[PN_FMT_LEN];

	printf("    %s%s", prefix, w->ops->name);
	if (w->expect && strcmp(w->expect, "ok") != 0)
		printf("  expect %s", w->expect);
	if (w->timeout_ms)
		printf("  timeout %s", pn_fmt_ns((double)w->timeout_ms * 1e6, buf, sizeof(buf)));
	if (w->memory_max)
		printf("  memory.max %s", pn_fmt_bytes((double)w->memory_max, buf, sizeof(buf)));
	printf("\n");
	print_params(w->ops->opts, w->params, 6);
}

static void print_point(const struct pn_config *c, size_t i, size_t n)
{
	char label[512];

	pn_point_label(c->matrix_point, label, sizeof(label));
	printf("point %zu/%zu%s%s\n", i + 1, n, label[0] ? "  " : "", label);
	for (size_t b = 0; b < c->nbackground; b++)
		print_wl(&c->background[b], "background: ");
	for (size_t p = 0; p < c->nphases; p++) {
		const struct pn_config_phase *ph = &c->phases[p];

		printf("  phase %s\n", ph->name);
		for (size_t k = 0; k < ph->nknobs; k++)
			printf("    knob %s = %s\n", ph->knobs[k].key, ph->knobs[k].value);
		for (size_t w = 0; w < ph->nwl; w++)
			print_wl(&ph->wl[w], "");
		if (!ph->nwl)
			printf("    (no workload: the --exec command runs here)\n");
	}
}

static void print_head(const struct pn_config *c, const struct pn_dry_run *d, size_t npoints)
{
	char buf[PN_FMT_LEN], list[128];
	size_t nph = 0;

	printf("config %s: %s\n", c->file, c->name);
	if (d->exec_argv) {
		printf("command:");
		for (char **a = d->exec_argv; *a; a++)
			printf(" %s", *a);
		printf("\n");
	}
	pn_nodeset_format(&c->private_nodes, list, sizeof(list));
	printf("private nodes: %s\n", d->private_override ? d->private_override
				      : c->private_auto	  ? "auto (the kernel's has_private_memory)"
							  : list);
	printf("collectors:");
	for (size_t k = 0; k < c->ncoll; k++)
		if (!c->coll[k].automatic)
			printf(" %s%s%s%s", c->coll[k].ops->name,
			       c->coll[k].interval_ms != c->interval_ms ? " (every " : "",
			       c->coll[k].interval_ms != c->interval_ms
				       ? pn_fmt_ns((double)c->coll[k].interval_ms * 1e6, buf,
						   sizeof(buf))
				       : "",
			       c->coll[k].interval_ms != c->interval_ms ? ")" : "");
	printf(", every %s; events:", pn_fmt_ns((double)c->interval_ms * 1e6, buf, sizeof(buf)));
	for (size_t k = 0; k < c->ncoll; k++)
		if (c->coll[k].automatic)
			printf(" %s (where the kernel allows it)", c->coll[k].ops->name);
	printf("%s\n", c->events_off ? " off" : "");
	printf("thresholds: general pages per private node %lld, misplaced pages %s; "
	       "memory share %.0f %%\n",
	       (long long)c->max_general_pages,
	       c->max_misplaced_pages < 0 ? "report only"
					  : pn_fmt_count(c->max_misplaced_pages, buf, sizeof(buf)),
	       c->max_mem_share * 100.0);
	for (size_t p = 0; p < npoints; p++)
		nph += d->cs->points[p].nphases;
	printf("would run: %zu point%s x %d iteration%s, %zu phase%s in all\n", npoints,
	       npoints == 1 ? "" : "s", c->iterations, c->iterations == 1 ? "" : "s",
	       nph * (size_t)c->iterations, nph * (size_t)c->iterations == 1 ? "" : "s");
}

int pn_dry_run(const struct pn_dry_run *d)
{
	const struct pn_config_set *cs = d->cs;

	if (d->format == PN_FMT_JSON) {
		cJSON *a = cJSON_CreateArray();
		char *s;

		for (size_t p = 0; p < cs->n; p++) {
			cJSON *pt = cJSON_CreateObject();
			char label[512];

			cJSON_AddStringToObject(
				pt, "label",
				pn_point_label(cs->points[p].matrix_point, label, sizeof(label)));
			if (cs->points[p].matrix_point)
				cJSON_AddItemToObject(
					pt, "matrix",
					cJSON_Duplicate(cs->points[p].matrix_point, 1));
			cJSON_AddItemToObject(pt, "config",
					      cJSON_Duplicate(cs->points[p].resolved, 1));
			cJSON_AddItemToArray(a, pt);
		}
		s = cJSON_Print(a);
		puts(s);
		cJSON_free(s);
		cJSON_Delete(a);
		return 0;
	}
	print_head(&cs->points[0], d, cs->n);
	for (size_t p = 0; p < cs->n; p++)
		print_point(&cs->points[p], p, cs->n);
	return 0;
}
