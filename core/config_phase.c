// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_phase.c - the lists of a config: phases, their workloads, the
 * background workloads and the collectors.  Each entry is checked against
 * its option table (config_matrix.c records its matrix axes).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "config_int.h"
#include "params.h"

static void list_workloads(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < pn_nworkloads && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
					pn_workloads[i]->name);
	if (!pn_nworkloads)
		snprintf(buf, len, "(none)");
}

static void list_collectors(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < pn_ncollectors && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
					pn_collectors[i]->name);
	if (!pn_ncollectors)
		snprintf(buf, len, "(none)");
}

static int parse_workload(struct parser *ps, const cJSON *v, struct raw_ent *e)
{
	static const char *const keys[] = { "workload", "params", NULL };
	const struct pn_workload *w;
	const cJSON *name;
	char path[160], list[512], q[96];
	int ret;

	ret = pn_cfg_get_object(ps, v, e->jpath);
	if (!ret)
		ret = pn_cfg_check_keys(ps, v, e->jpath, keys);
	if (ret)
		return ret;
	name = pn_cfg_field(v, "workload");
	snprintf(path, sizeof(path), "%s.workload", e->jpath);
	if (!name)
		return pn_cfg_perr(ps, path, "required: the name of a workload");
	if (!cJSON_IsString(name))
		return pn_cfg_perr(ps, path, "must be a string, not %s", pn_json_type_name(name));
	w = pn_workload_find(name->valuestring);
	if (!w) {
		list_workloads(list, sizeof(list));
		return pn_cfg_perr(ps, path, "unknown workload \"%s\" (known: %s)",
				   pn_cfg_clean(name->valuestring, q, sizeof(q)), list);
	}
	e->ops = w;
	e->opts = w->opts;
	e->params = pn_cfg_field(v, "params");
	snprintf(path, sizeof(path), "%s.params", e->jpath);
	return pn_cfg_check_params(ps, e, path);
}

int pn_cfg_parse_wl_list(struct parser *ps, const cJSON *v, const char *jpath, struct raw_ent **out,
			 size_t *n)
{
	size_t i = 0;
	int ret;

	if (!cJSON_IsArray(v))
		return pn_cfg_perr(
			ps, jpath,
			"must be an array of {\"workload\": ..., \"params\": {...}}, not %s",
			pn_json_type_name(v));
	/* An empty list is legal: a phase without workloads measures an idle
	 * system (or the command of `pnbench run --exec`). */
	*n = (size_t)cJSON_GetArraySize(v);
	*out = pn_xcalloc(*n ? *n : 1, sizeof(**out));
	for (const cJSON *e = v->child; e; e = e->next, i++) {
		snprintf((*out)[i].jpath, sizeof((*out)[i].jpath), "%s[%zu]", jpath, i);
		ret = parse_workload(ps, e, &(*out)[i]);
		if (ret)
			return ret;
	}
	return 0;
}

int pn_cfg_parse_phases(struct parser *ps, const cJSON *v)
{
	static const char *const keys[] = { "name", "workloads", NULL };
	size_t i = 0;
	int ret;

	if (!v)
		return pn_cfg_perr(ps, "$.phases",
				   "required: a list of phases, e.g. [{\"name\": \"alloc\", "
				   "\"workloads\": [...]}]");
	if (!cJSON_IsArray(v))
		return pn_cfg_perr(ps, "$.phases", "must be an array, not %s",
				   pn_json_type_name(v));
	ps->nphases = (size_t)cJSON_GetArraySize(v);
	if (!ps->nphases)
		return pn_cfg_perr(ps, "$.phases", "needs at least one phase");
	ps->phases = pn_xcalloc(ps->nphases, sizeof(*ps->phases));
	for (const cJSON *p = v->child; p; p = p->next, i++) {
		struct raw_phase *ph = &ps->phases[i];
		char path[96], sub[128];

		snprintf(path, sizeof(path), "$.phases[%zu]", i);
		ret = pn_cfg_get_object(ps, p, path);
		if (!ret)
			ret = pn_cfg_check_keys(ps, p, path, keys);
		if (ret)
			return ret;
		snprintf(sub, sizeof(sub), "%s.name", path);
		ret = pn_cfg_get_name(ps, pn_cfg_field(p, "name"), sub);
		if (ret)
			return ret;
		ph->name = pn_cfg_field(p, "name")->valuestring;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(ps->phases[j].name, ph->name))
				return pn_cfg_perr(
					ps, sub, "duplicate phase name \"%s\" (also $.phases[%zu])",
					ph->name, j);
		snprintf(sub, sizeof(sub), "%s.workloads", path);
		if (!pn_cfg_field(p, "workloads"))
			return pn_cfg_perr(ps, sub, "required: the workloads of this phase");
		ret = pn_cfg_parse_wl_list(ps, pn_cfg_field(p, "workloads"), sub, &ph->wl,
					   &ph->nwl);
		if (ret)
			return ret;
	}
	return 0;
}

static int parse_collector(struct parser *ps, const cJSON *v, struct raw_ent *e)
{
	static const char *const keys[] = { "name", "interval", "params", NULL };
	const struct pn_collector *c;
	const cJSON *name = v;
	char path[160], list[512], q[96];
	int ret;

	e->interval_ms = ps->tmpl.interval_ms;
	if (cJSON_IsObject(v)) {
		ret = pn_cfg_check_keys(ps, v, e->jpath, keys);
		if (ret)
			return ret;
		name = pn_cfg_field(v, "name");
		snprintf(path, sizeof(path), "%s.name", e->jpath);
		if (!name)
			return pn_cfg_perr(ps, path, "required: the name of a collector");
	} else {
		snprintf(path, sizeof(path), "%s", e->jpath);
	}
	if (!cJSON_IsString(name))
		return pn_cfg_perr(ps, path,
				   "must be a collector name or {\"name\": ..., \"interval\": ..., "
				   "\"params\": {...}}, not %s",
				   pn_json_type_name(name));
	c = pn_collector_find(name->valuestring);
	if (!c) {
		list_collectors(list, sizeof(list));
		return pn_cfg_perr(ps, path, "unknown collector \"%s\" (known: %s)",
				   pn_cfg_clean(name->valuestring, q, sizeof(q)), list);
	}
	e->ops = c;
	e->opts = c->opts;
	if (!cJSON_IsObject(v))
		return pn_cfg_check_params(ps, e, e->jpath);
	if (pn_cfg_field(v, "interval")) {
		snprintf(path, sizeof(path), "%s.interval", e->jpath);
		ret = pn_cfg_get_duration(ps, pn_cfg_field(v, "interval"), path, &e->interval_ms);
		if (ret)
			return ret;
	}
	e->params = pn_cfg_field(v, "params");
	snprintf(path, sizeof(path), "%s.params", e->jpath);
	return pn_cfg_check_params(ps, e, path);
}

int pn_cfg_parse_collectors(struct parser *ps, const cJSON *v)
{
	static const char *const keys[] = { "interval", "enabled", NULL };
	const cJSON *en;
	size_t i = 0;
	int ret;

	ps->tmpl.interval_ms = PN_COLL_INTERVAL_DEF_MS;
	if (!v)
		return 0;
	ret = pn_cfg_get_object(ps, v, "$.collectors");
	if (!ret)
		ret = pn_cfg_check_keys(ps, v, "$.collectors", keys);
	if (!ret && pn_cfg_field(v, "interval"))
		ret = pn_cfg_get_duration(ps, pn_cfg_field(v, "interval"), "$.collectors.interval",
					  &ps->tmpl.interval_ms);
	if (ret)
		return ret;
	en = pn_cfg_field(v, "enabled");
	if (!en)
		return 0;
	if (!cJSON_IsArray(en))
		return pn_cfg_perr(ps, "$.collectors.enabled",
				   "must be an array of collector names, not %s",
				   pn_json_type_name(en));
	ps->ncoll = (size_t)cJSON_GetArraySize(en);
	ps->coll = pn_xcalloc(ps->ncoll ? ps->ncoll : 1, sizeof(*ps->coll));
	for (const cJSON *e = en->child; e; e = e->next, i++) {
		struct raw_ent *r = &ps->coll[i];

		snprintf(r->jpath, sizeof(r->jpath), "$.collectors.enabled[%zu]", i);
		ret = parse_collector(ps, e, r);
		if (ret)
			return ret;
		for (size_t j = 0; j < i; j++)
			if (ps->coll[j].ops == r->ops)
				return pn_cfg_perr(ps, r->jpath,
						   "collector \"%s\" is enabled twice (also "
						   "$.collectors.enabled[%zu])",
						   ((const struct pn_collector *)r->ops)->name, j);
	}
	return 0;
}
