// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_matrix.c - matrix axes and the expansion of a config into points.
 *
 * Matrix: inside a workload's or collector's "params", an array value means
 * one matrix point per element.  Axes are ordered collectors, phases (in
 * order, workloads in order), background, and within one params object in
 * file order; points are the cartesian product with the first axis varying
 * slowest, like nested loops.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "config_int.h"
#include "core/api/params.h"

/* ---- params with matrix arrays ---- */

static const struct axis *find_axis(const struct parser *ps, const struct raw_ent *e,
				    const cJSON *v)
{
	for (size_t i = e->axis0; i < e->axis0 + e->naxis; i++)
		if (ps->axes[i].arr == v)
			return &ps->axes[i];
	return NULL;
}

/*
 * A params object as one matrix point sees it: every array replaced by its
 * element idx[axis].  Children are references into the raw tree, so deleting
 * the view frees only the view.  idx NULL = element 0 of every array.
 */
static cJSON *params_view(const struct parser *ps, const struct raw_ent *e, const int *idx)
{
	const cJSON *raw = e->params;
	cJSON *view;

	if (!raw)
		return NULL;
	view = cJSON_CreateObject();
	if (!view)
		return NULL;
	for (const cJSON *it = raw->child; it; it = it->next) {
		const struct axis *a = cJSON_IsArray(it) ? find_axis(ps, e, it) : NULL;
		const cJSON *v = it;

		if (a)
			v = cJSON_GetArrayItem(a->arr, idx ? idx[a - ps->axes] : 0);
		cJSON_AddItemReferenceToObject(view, it->string, (cJSON *)v);
	}
	return view;
}

static const struct pn_opt *opt_find(const struct pn_opt *opts, const char *name)
{
	for (const struct pn_opt *o = opts; o && o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

/* Check a raw params object, record its arrays as matrix axes. */
int pn_cfg_check_params(struct parser *ps, struct raw_ent *e, const char *jpath)
{
	const struct pn_opt *opts = e->opts;
	const cJSON *raw = e->params;
	cJSON *view, *canon = NULL;
	int ret;

	e->axis0 = ps->naxes;
	e->naxis = 0;
	if (!raw)
		goto resolve;
	if (!cJSON_IsObject(raw))
		return pn_cfg_perr(ps->file, jpath, "params must be an object, not %s",
				   pn_json_type_name(raw));
	for (const cJSON *it = raw->child; it; it = it->next) {
		const struct pn_opt *o = opt_find(opts, it->string);
		char vpath[256];
		int i = 0;

		if (!cJSON_IsArray(it) || !o)
			continue; /* unknown keys: reported by the resolve below */
		snprintf(vpath, sizeof(vpath), "%s.%s", jpath, o->name);
		if (!it->child)
			return pn_cfg_perr(
				ps->file, vpath,
				"empty array (an array in params means one matrix point per "
				"element)");
		for (const cJSON *el = it->child; el; el = el->next, i++) {
			char epath[288];
			cJSON *c;

			snprintf(epath, sizeof(epath), "%s[%d]", vpath, i);
			if (cJSON_IsArray(el))
				return pn_cfg_perr(
					ps->file, epath,
					"nested array (an array in params already means one "
					"matrix point per element)");
			ret = pn_param_check(o, el, ps->file, epath, &c);
			if (ret)
				return ret;
			cJSON_Delete(c);
		}
		ps->axes = pn_xrealloc(ps->axes, (ps->naxes + 1) * sizeof(*ps->axes));
		ps->axes[ps->naxes++] = (struct axis){
			.arr = it,
			.jpath = pn_strdup(vpath),
			.n = i,
		};
		e->naxis++;
	}
resolve:
	view = params_view(ps, e, NULL);
	ret = pn_params_resolve(opts, view, ps->file, jpath, &canon);
	cJSON_Delete(view);
	cJSON_Delete(canon);
	return ret;
}

/* ---- expansion ---- */

static int count_points(const struct parser *ps, size_t *n)
{
	double total = 1;
	char list[768];
	size_t off = 0;

	for (size_t i = 0; i < ps->naxes; i++)
		total *= ps->axes[i].n;
	if (total <= PN_CONFIG_MAX_POINTS) {
		*n = (size_t)total;
		return 0;
	}
	list[0] = '\0';
	for (size_t i = 0; i < ps->naxes && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s has %d",
					i ? ", " : "", ps->axes[i].jpath, ps->axes[i].n);
	return pn_cfg_perr(ps->file, "$",
			   "the matrix expands to %.0f points, more than the limit of %d "
			   "(PN_CONFIG_MAX_POINTS): %s; split the config",
			   total, PN_CONFIG_MAX_POINTS, list);
}

static const char *nodes_text(bool is_auto, const struct pn_nodeset *s, char *buf, size_t len)
{
	if (is_auto)
		return "auto";
	if (pn_nodeset_format(s, buf, len))
		buf[0] = '\0';
	return buf;
}

static int resolve_ent(const struct parser *ps, const struct raw_ent *r, const int *idx,
		       cJSON **out)
{
	char path[160];
	cJSON *view = params_view(ps, r, idx);
	int ret;

	if (r->params && !view)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s.params", r->jpath);
	ret = pn_params_resolve(r->opts, view, ps->file, path, out);
	cJSON_Delete(view);
	return ret;
}

static int build_wl(const struct parser *ps, const struct raw_ent *r, const int *idx,
		    struct pn_config_wl *w)
{
	w->ops = r->ops;
	w->jpath = pn_strdup(r->jpath);
	w->expect = r->expect;
	w->timeout_ms = r->timeout_ms;
	w->memory_max = r->memory_max;
	w->memory_high = r->memory_high;
	return resolve_ent(ps, r, idx, &w->params);
}

/* A knob value as the text written to its file. */
static char *knob_text(const cJSON *v)
{
	char buf[64];

	if (cJSON_IsString(v))
		return pn_strdup(v->valuestring);
	if (cJSON_IsBool(v))
		return pn_strdup(cJSON_IsTrue(v) ? "1" : "0");
	snprintf(buf, sizeof(buf), "%lld", (long long)v->valuedouble);
	return pn_strdup(buf);
}

static void build_knobs(const struct raw_phase *rp, struct pn_config_phase *ph)
{
	const cJSON *k;
	size_t i = 0;

	ph->nknobs = rp->knobs ? (size_t)cJSON_GetArraySize(rp->knobs) : 0;
	ph->knobs = pn_xcalloc(ph->nknobs + 1, sizeof(*ph->knobs));
	for (k = rp->knobs ? rp->knobs->child : NULL; k; k = k->next, i++) {
		ph->knobs[i].key = pn_strdup(k->string);
		ph->knobs[i].value = knob_text(k);
	}
}

static cJSON *wl_json(const struct pn_config_wl *w)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "workload", w->ops->name);
	cJSON_AddItemToObject(o, "params", cJSON_Duplicate(w->params, 1));
	if (w->expect)
		cJSON_AddStringToObject(o, "expect", w->expect);
	if (w->timeout_ms)
		cJSON_AddNumberToObject(o, "timeout", (double)w->timeout_ms);
	if (w->memory_max || w->memory_high) {
		cJSON *cg = cJSON_AddObjectToObject(o, "cgroup");

		if (w->memory_max)
			cJSON_AddNumberToObject(cg, "memory.max", (double)w->memory_max);
		if (w->memory_high)
			cJSON_AddNumberToObject(cg, "memory.high", (double)w->memory_high);
	}
	return o;
}

/* The point as a canonical config: defaults filled, values canonical, and
 * itself a valid config that loads to the same point. */
static cJSON *resolved_json(const struct pn_config *c)
{
	cJSON *r = cJSON_CreateObject(), *o, *a;
	char buf[4096];

	cJSON_AddStringToObject(r, "name", c->name);
	cJSON_AddStringToObject(r, "description", c->description);
	o = cJSON_AddObjectToObject(r, "nodes");
	cJSON_AddStringToObject(o, "private",
				nodes_text(c->private_auto, &c->private_nodes, buf, sizeof(buf)));
	cJSON_AddStringToObject(o, "dram",
				nodes_text(c->dram_auto, &c->dram_nodes, buf, sizeof(buf)));
	cJSON_AddNumberToObject(r, "iterations", c->iterations);
	o = cJSON_AddObjectToObject(r, "collectors");
	cJSON_AddNumberToObject(o, "interval", (double)c->interval_ms);
	cJSON_AddStringToObject(o, "events", c->events_off ? "off" : "auto");
	a = cJSON_AddArrayToObject(o, "enabled");
	for (size_t i = 0; i < c->ncoll; i++) {
		cJSON *e;

		if (c->coll[i].automatic)
			continue; /* "events": "auto" adds it again */
		e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "name", c->coll[i].ops->name);
		cJSON_AddNumberToObject(e, "interval", (double)c->coll[i].interval_ms);
		cJSON_AddItemToObject(e, "params", cJSON_Duplicate(c->coll[i].params, 1));
		cJSON_AddItemToArray(a, e);
	}
	a = cJSON_AddArrayToObject(r, "phases");
	for (size_t i = 0; i < c->nphases; i++) {
		cJSON *p = cJSON_CreateObject(), *wa;

		cJSON_AddStringToObject(p, "name", c->phases[i].name);
		if (c->phases[i].nknobs) {
			cJSON *kj = cJSON_AddObjectToObject(p, "knobs");

			for (size_t k = 0; k < c->phases[i].nknobs; k++)
				cJSON_AddStringToObject(kj, c->phases[i].knobs[k].key,
							c->phases[i].knobs[k].value);
		}
		wa = cJSON_AddArrayToObject(p, "workloads");
		for (size_t j = 0; j < c->phases[i].nwl; j++)
			cJSON_AddItemToArray(wa, wl_json(&c->phases[i].wl[j]));
		cJSON_AddItemToArray(a, p);
	}
	a = cJSON_AddArrayToObject(r, "background");
	for (size_t i = 0; i < c->nbackground; i++)
		cJSON_AddItemToArray(a, wl_json(&c->background[i]));
	o = cJSON_AddObjectToObject(r, "thresholds");
	cJSON_AddNumberToObject(o, "general_pages", (double)c->max_general_pages);
	cJSON_AddNumberToObject(o, "misplaced_pages", (double)c->max_misplaced_pages);
	o = cJSON_AddObjectToObject(r, "limits");
	cJSON_AddNumberToObject(o, "max_mem_share", c->max_mem_share);
	o = cJSON_AddObjectToObject(r, "verdict");
	a = cJSON_AddArrayToObject(o, "require");
	if (c->require_events)
		cJSON_AddItemToArray(a, cJSON_CreateString("events"));
	return r;
}

static int build_point(const struct parser *ps, const int *idx, struct pn_config *c)
{
	int ret = 0;

	*c = ps->tmpl;
	c->file = pn_strdup(ps->file);
	c->name = pn_strdup(ps->tmpl.name);
	c->description = pn_strdup(ps->tmpl.description);
	c->coll = NULL;
	c->phases = NULL;
	c->background = NULL;
	c->resolved = NULL;
	c->matrix_point = NULL;

	c->ncoll = ps->ncoll;
	c->coll = pn_xcalloc(ps->ncoll ? ps->ncoll : 1, sizeof(*c->coll));
	for (size_t i = 0; i < ps->ncoll && !ret; i++) {
		c->coll[i].ops = ps->coll[i].ops;
		c->coll[i].interval_ms = ps->coll[i].interval_ms;
		c->coll[i].automatic = ps->coll[i].automatic;
		ret = resolve_ent(ps, &ps->coll[i], idx, &c->coll[i].params);
	}
	c->nphases = ps->nphases;
	c->phases = pn_xcalloc(ps->nphases, sizeof(*c->phases));
	for (size_t i = 0; i < ps->nphases && !ret; i++) {
		struct pn_config_phase *ph = &c->phases[i];

		ph->name = pn_strdup(ps->phases[i].name);
		build_knobs(&ps->phases[i], ph);
		ph->nwl = ps->phases[i].nwl;
		ph->wl = pn_xcalloc(ph->nwl ? ph->nwl : 1, sizeof(*ph->wl));
		for (size_t j = 0; j < ph->nwl && !ret; j++)
			ret = build_wl(ps, &ps->phases[i].wl[j], idx, &ph->wl[j]);
	}
	c->nbackground = ps->nbg;
	c->background = pn_xcalloc(ps->nbg ? ps->nbg : 1, sizeof(*c->background));
	for (size_t i = 0; i < ps->nbg && !ret; i++)
		ret = build_wl(ps, &ps->bg[i], idx, &c->background[i]);
	if (ret)
		return ret;
	c->resolved = resolved_json(c);
	if (ps->naxes) {
		c->matrix_point = cJSON_CreateObject();
		for (size_t a = 0; a < ps->naxes; a++)
			cJSON_AddItemToObject(
				c->matrix_point, ps->axes[a].jpath,
				cJSON_Duplicate(cJSON_GetArrayItem(ps->axes[a].arr, idx[a]), 1));
	}
	if (!c->resolved || (ps->naxes && !c->matrix_point))
		return -ENOMEM;
	return 0;
}

int pn_cfg_expand(const struct parser *ps, struct pn_config_set *out)
{
	size_t n = 0;
	int *idx;
	int ret = count_points(ps, &n);

	if (ret)
		return ret;
	out->points = pn_xcalloc(n, sizeof(*out->points));
	idx = pn_xcalloc(ps->naxes ? ps->naxes : 1, sizeof(*idx));
	for (size_t p = 0; p < n; p++) {
		size_t rest = p;

		/* mixed radix, last axis fastest */
		for (size_t a = ps->naxes; a-- > 0;) {
			idx[a] = (int)(rest % (size_t)ps->axes[a].n);
			rest /= (size_t)ps->axes[a].n;
		}
		out->n = p + 1; /* so that a failure frees what was built */
		ret = build_point(ps, idx, &out->points[p]);
		if (ret)
			break;
	}
	free(idx);
	return ret;
}
