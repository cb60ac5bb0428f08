// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_phase.c - the lists of a config: phases, their workloads, the
 * background workloads and the collectors.  Each entry is checked against
 * its option table (config_matrix.c records its matrix axes).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "config_int.h"
#include "core/sys/knob.h"
#include "core/api/params.h"

static const char *const expect_names[] = {
	"ok", "error", "signal", "oom_kill", "timeout", "killed", "any", NULL,
};

static int get_size(const struct parser *ps, const cJSON *v, const char *jpath, uint64_t *out)
{
	char q[64];

	if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= PN_MAX_EXACT &&
	    v->valuedouble == (double)(uint64_t)v->valuedouble) {
		*out = (uint64_t)v->valuedouble;
		return 0;
	}
	if (cJSON_IsString(v) && !pn_parse_size(v->valuestring, out))
		return 0;
	return pn_cfg_perr(ps->file, jpath, "%s is not a size (e.g. \"256M\" or a number of bytes)",
			   cJSON_IsString(v) ? pn_cfg_clean(v->valuestring, q, sizeof(q))
					     : pn_json_type_name(v));
}

/* A cgroup limit: 0 means "no limit" inside the runner, so a config's 0
 * (which the kernel would take as "nothing at all") is refused. */
static int get_limit(const struct parser *ps, const cJSON *v, const char *jpath, uint64_t *out)
{
	int ret = get_size(ps, v, jpath, out);

	if (!ret && *out == 0)
		return pn_cfg_perr(ps->file, jpath,
				   "0 is not a limit: give a size > 0, or leave the key out for "
				   "no limit");
	return ret;
}

/* "expect", "timeout" and "cgroup" of a workload entry. */
static int parse_wl_extras(struct parser *ps, const cJSON *v, struct raw_ent *e)
{
	static const char *const cg_keys[] = { "memory.max", "memory.high", NULL };
	const cJSON *x;
	char path[192], q[64];
	int ret = 0;

	if ((x = pn_cfg_field(v, "expect"))) {
		snprintf(path, sizeof(path), "%s.expect", e->jpath);
		for (size_t i = 0; cJSON_IsString(x) && expect_names[i]; i++)
			if (!strcmp(x->valuestring, expect_names[i]))
				e->expect = expect_names[i];
		if (!e->expect)
			return pn_cfg_perr(ps->file, path,
					   "%s is not one of ok, error, signal, oom_kill, timeout, "
					   "killed, any",
					   cJSON_IsString(x)
						   ? pn_cfg_clean(x->valuestring, q, sizeof(q))
						   : pn_json_type_name(x));
	}
	if ((x = pn_cfg_field(v, "timeout"))) {
		snprintf(path, sizeof(path), "%s.timeout", e->jpath);
		ret = pn_cfg_get_duration(ps->file, x, path, &e->timeout_ms);
		if (ret)
			return ret;
	}
	if ((x = pn_cfg_field(v, "cgroup"))) {
		snprintf(path, sizeof(path), "%s.cgroup", e->jpath);
		ret = pn_cfg_get_object(ps->file, x, path);
		if (!ret)
			ret = pn_cfg_check_keys(ps->file, x, path, cg_keys);
		if (!ret && pn_cfg_field(x, "memory.max")) {
			snprintf(path, sizeof(path), "%s.cgroup[\"memory.max\"]", e->jpath);
			ret = get_limit(ps, pn_cfg_field(x, "memory.max"), path, &e->memory_max);
		}
		if (!ret && pn_cfg_field(x, "memory.high")) {
			snprintf(path, sizeof(path), "%s.cgroup[\"memory.high\"]", e->jpath);
			ret = get_limit(ps, pn_cfg_field(x, "memory.high"), path, &e->memory_high);
		}
	}
	return ret;
}

/* A knob value is one line of text (pn_knob_control_char()). */
static int check_knob_text(const struct parser *ps, const char *s, const char *path)
{
	const char *c = pn_knob_control_char(s);

	if (c)
		return pn_cfg_perr(ps->file, path,
				   "the value has a control character (0x%02x at offset "
				   "%zu): a knob value is one line of text",
				   (unsigned)(unsigned char)*c, (size_t)(c - s));
	return 0;
}

/* A phase's "knobs": {"kernel.numa_balancing": 1, "thp.enabled": "never"}. */
static int check_knobs(const struct parser *ps, const cJSON *v, const char *jpath)
{
	char path[192], why[256], p[PATH_MAX];
	const cJSON *k;
	int ret = pn_cfg_get_object(ps->file, v, jpath);

	if (ret)
		return ret;
	for (k = v->child; k; k = k->next) {
		snprintf(path, sizeof(path), "%s[\"%.64s\"]", jpath, k->string);
		if (pn_knob_path(k->string, p, sizeof(p), why, sizeof(why)))
			return pn_cfg_perr(ps->file, path, "%s", why);
		if (!pn_knob_allowed(k->string, p))
			return pn_cfg_perr(
				ps->file, path,
				"%s (%s) is not on the knob allow-list (" PN_KNOB_ALLOW_TEXT
				"): a config runs as root; pass --allow-knob %s to set it",
				k->string, p, k->string);
		if (!cJSON_IsString(k) && !cJSON_IsBool(k) &&
		    !(cJSON_IsNumber(k) && k->valuedouble == (double)(int64_t)k->valuedouble))
			return pn_cfg_perr(ps->file, path,
					   "must be a string, an integer or a bool, not %s",
					   pn_json_type_name(k));
		if (cJSON_IsString(k) && (ret = check_knob_text(ps, k->valuestring, path)))
			return ret;
		for (const cJSON *j = v->child; j != k; j = j->next)
			if (!strcmp(j->string, k->string))
				return pn_cfg_perr(ps->file, path, "set twice");
	}
	return 0;
}

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
	static const char *const keys[] = { "workload", "params", "expect",
					    "timeout",	"cgroup", NULL };
	const struct pn_workload *w;
	const cJSON *name;
	char path[160], list[512], q[96];
	int ret;

	ret = pn_cfg_get_object(ps->file, v, e->jpath);
	if (!ret)
		ret = pn_cfg_check_keys(ps->file, v, e->jpath, keys);
	if (ret)
		return ret;
	name = pn_cfg_field(v, "workload");
	snprintf(path, sizeof(path), "%s.workload", e->jpath);
	if (!name)
		return pn_cfg_perr(ps->file, path, "required: the name of a workload");
	if (!cJSON_IsString(name))
		return pn_cfg_perr(ps->file, path, "must be a string, not %s",
				   pn_json_type_name(name));
	w = pn_workload_find(name->valuestring);
	if (!w) {
		list_workloads(list, sizeof(list));
		return pn_cfg_perr(ps->file, path, "unknown workload \"%s\" (known: %s)",
				   pn_cfg_clean(name->valuestring, q, sizeof(q)), list);
	}
	e->ops = w;
	e->opts = w->opts;
	e->params = pn_cfg_field(v, "params");
	ret = parse_wl_extras(ps, v, e);
	if (ret)
		return ret;
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
			ps->file, jpath,
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
	static const char *const keys[] = { "name", "workloads", "knobs", NULL };
	size_t i = 0;
	int ret;

	if (!v)
		return pn_cfg_perr(ps->file, "$.phases",
				   "required: a list of phases, e.g. [{\"name\": \"alloc\", "
				   "\"workloads\": [...]}]");
	if (!cJSON_IsArray(v))
		return pn_cfg_perr(ps->file, "$.phases", "must be an array, not %s",
				   pn_json_type_name(v));
	ps->nphases = (size_t)cJSON_GetArraySize(v);
	if (!ps->nphases)
		return pn_cfg_perr(ps->file, "$.phases", "needs at least one phase");
	ps->phases = pn_xcalloc(ps->nphases, sizeof(*ps->phases));
	for (const cJSON *p = v->child; p; p = p->next, i++) {
		struct raw_phase *ph = &ps->phases[i];
		char path[96], sub[128];

		snprintf(path, sizeof(path), "$.phases[%zu]", i);
		ret = pn_cfg_get_object(ps->file, p, path);
		if (!ret)
			ret = pn_cfg_check_keys(ps->file, p, path, keys);
		if (ret)
			return ret;
		snprintf(sub, sizeof(sub), "%s.name", path);
		ret = pn_cfg_get_name(ps->file, pn_cfg_field(p, "name"), sub);
		if (ret)
			return ret;
		ph->name = pn_cfg_field(p, "name")->valuestring;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(ps->phases[j].name, ph->name))
				return pn_cfg_perr(
					ps->file, sub,
					"duplicate phase name \"%s\" (also $.phases[%zu])",
					ph->name, j);
		snprintf(sub, sizeof(sub), "%s.workloads", path);
		if (!pn_cfg_field(p, "workloads"))
			return pn_cfg_perr(ps->file, sub, "required: the workloads of this phase");
		ret = pn_cfg_parse_wl_list(ps, pn_cfg_field(p, "workloads"), sub, &ph->wl,
					   &ph->nwl);
		if (ret)
			return ret;
		ph->knobs = pn_cfg_field(p, "knobs");
		snprintf(sub, sizeof(sub), "%s.knobs", path);
		if (ph->knobs && (ret = check_knobs(ps, ph->knobs, sub)))
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
		ret = pn_cfg_check_keys(ps->file, v, e->jpath, keys);
		if (ret)
			return ret;
		name = pn_cfg_field(v, "name");
		snprintf(path, sizeof(path), "%s.name", e->jpath);
		if (!name)
			return pn_cfg_perr(ps->file, path, "required: the name of a collector");
	} else {
		snprintf(path, sizeof(path), "%s", e->jpath);
	}
	if (!cJSON_IsString(name))
		return pn_cfg_perr(ps->file, path,
				   "must be a collector name or {\"name\": ..., \"interval\": ..., "
				   "\"params\": {...}}, not %s",
				   pn_json_type_name(name));
	c = pn_collector_find(name->valuestring);
	if (!c) {
		list_collectors(list, sizeof(list));
		return pn_cfg_perr(ps->file, path, "unknown collector \"%s\" (known: %s)",
				   pn_cfg_clean(name->valuestring, q, sizeof(q)), list);
	}
	e->ops = c;
	e->opts = c->opts;
	if (!cJSON_IsObject(v))
		return pn_cfg_check_params(ps, e, e->jpath);
	if (pn_cfg_field(v, "interval")) {
		snprintf(path, sizeof(path), "%s.interval", e->jpath);
		ret = pn_cfg_get_duration(ps->file, pn_cfg_field(v, "interval"), path,
					  &e->interval_ms);
		if (ret)
			return ret;
	}
	e->params = pn_cfg_field(v, "params");
	snprintf(path, sizeof(path), "%s.params", e->jpath);
	return pn_cfg_check_params(ps, e, path);
}

/* "events": "auto" (default) or "off". */
static int parse_events(struct parser *ps, const cJSON *v)
{
	ps->tmpl.events_off = false;
	if (!v)
		return 0;
	if (!cJSON_IsString(v) ||
	    (strcmp(v->valuestring, "auto") != 0 && strcmp(v->valuestring, "off") != 0))
		return pn_cfg_perr(ps->file, "$.collectors.events",
				   "must be \"auto\" (the event collector runs where the kernel "
				   "allows it) or \"off\" (counters only)");
	ps->tmpl.events_off = !strcmp(v->valuestring, "off");
	return 0;
}

/*
 * With "events": "auto" and no event collector listed, the perf collector
 * runs with its defaults: events are the verdict's ground truth wherever the
 * kernel allows them.  Where it cannot run, the verdict says it is counters
 * only and what that cannot see.
 */
static void add_auto_events(struct parser *ps)
{
	const struct pn_collector *perf = pn_collector_find("perf");
	struct raw_ent *e;

	if (ps->tmpl.events_off || !perf)
		return;
	for (size_t i = 0; i < ps->ncoll; i++)
		if (((const struct pn_collector *)ps->coll[i].ops)->kind == PN_COLL_EVENT)
			return;
	ps->coll = pn_xrealloc(ps->coll, (ps->ncoll + 1) * sizeof(*ps->coll));
	e = &ps->coll[ps->ncoll++];
	memset(e, 0, sizeof(*e));
	e->ops = perf;
	e->opts = perf->opts;
	e->interval_ms = ps->tmpl.interval_ms;
	e->automatic = true;
	snprintf(e->jpath, sizeof(e->jpath), "$.collectors.events");
}

static int parse_enabled(struct parser *ps, const cJSON *en)
{
	size_t i = 0;
	int ret;

	if (!cJSON_IsArray(en))
		return pn_cfg_perr(ps->file, "$.collectors.enabled",
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
				return pn_cfg_perr(ps->file, r->jpath,
						   "collector \"%s\" is enabled twice (also "
						   "$.collectors.enabled[%zu])",
						   ((const struct pn_collector *)r->ops)->name, j);
	}
	return 0;
}

int pn_cfg_parse_collectors(struct parser *ps, const cJSON *v)
{
	static const char *const keys[] = { "interval", "enabled", "events", NULL };
	int ret = 0;

	ps->tmpl.interval_ms = PN_COLL_INTERVAL_DEF_MS;
	ps->tmpl.events_off = false;
	if (v) {
		ret = pn_cfg_get_object(ps->file, v, "$.collectors");
		if (!ret)
			ret = pn_cfg_check_keys(ps->file, v, "$.collectors", keys);
		if (!ret && pn_cfg_field(v, "interval"))
			ret = pn_cfg_get_duration(ps->file, pn_cfg_field(v, "interval"),
						  "$.collectors.interval", &ps->tmpl.interval_ms);
		if (!ret)
			ret = parse_events(ps, pn_cfg_field(v, "events"));
		if (!ret && pn_cfg_field(v, "enabled"))
			ret = parse_enabled(ps, pn_cfg_field(v, "enabled"));
	}
	if (!ret)
		add_auto_events(ps);
	return ret;
}
