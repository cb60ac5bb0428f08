// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_set.c - `run --set KEY=VALUE`: overrides written into a config's
 * JSON tree after it is read and before it is checked, so an overridden
 * value meets exactly the checks a value in the file meets.
 *
 *   WORKLOAD.PARAM=V    params.PARAM of every use of WORKLOAD (phases and
 *                       background); a matrix array there becomes V
 *   COLLECTOR.PARAM=V   params.PARAM of a listed collector (.interval: its
 *                       own interval)
 *   SECTION.KEY=V       collectors.interval|events|enabled, nodes.private|dram,
 *                       thresholds.*, limits.*, verdict.require
 *   iterations=N
 *
 * A key that names nothing in the config or the tables is an error naming
 * the --set and, for near misses, what was meant.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "config_set.h"
#include "core/api/collector.h"
#include "core/api/params.h"
#include "core/api/workload.h"
#include "core/lib/pn.h"

static const char *const *set_list;
static size_t set_n;

void pn_config_set_overrides(const char *const *sets, size_t n)
{
	set_list = sets;
	set_n = n;
}

struct section {
	const char *name;
	const char *const keys[4];
};

static const struct section sections[] = {
	{ "collectors", { "interval", "events", "enabled", NULL } },
	{ "nodes", { "private", "dram", NULL } },
	{ "thresholds", { "general_pages", "misplaced_pages", NULL } },
	{ "limits", { "max_mem_share", NULL } },
	{ "verdict", { "require", NULL } },
};

/* " did you mean \"X\"?" when one of names is a near miss of key, else "". */
static const char *near(const char *key, const char *const *names, size_t n, char *buf, size_t len)
{
	size_t best = 3;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t d = pn_edit_distance(key, names[i]);

		if (d < best) {
			best = d;
			snprintf(buf, len, "; did you mean \"%s\"?", names[i]);
		}
	}
	return buf;
}

/* The value as JSON: a number or true/false when it reads as one and
 * want_text is false, else the text (sizes, durations, node lists). */
static cJSON *value_of(const char *v, bool want_text)
{
	char *end;

	if (!want_text) {
		if (!strcmp(v, "true") || !strcmp(v, "false"))
			return cJSON_CreateBool(!strcmp(v, "true"));
		if (*v) {
			double d = strtod(v, &end);

			if (!*end)
				return cJSON_CreateNumber(d);
		}
	}
	return cJSON_CreateString(v);
}

static void put(cJSON *obj, const char *key, cJSON *val)
{
	if (cJSON_GetObjectItemCaseSensitive(obj, key))
		cJSON_ReplaceItemInObjectCaseSensitive(obj, key, val);
	else
		cJSON_AddItemToObject(obj, key, val);
}

static cJSON *object_at(cJSON *parent, const char *key)
{
	cJSON *o = cJSON_GetObjectItemCaseSensitive(parent, key);

	if (!cJSON_IsObject(o)) {
		o = cJSON_CreateObject();
		put(parent, key, o);
	}
	return o;
}

static bool text_type(const struct pn_opt *o)
{
	return !o || (o->type != PN_OPT_BOOL && o->type != PN_OPT_INT && o->type != PN_OPT_DOUBLE);
}

static int param_check(const char *set, const char *owner, const struct pn_opt *opts,
		       const char *param, const struct pn_opt **out)
{
	const char *names[64];
	char hint[96];
	size_t n = 0;

	for (const struct pn_opt *o = opts; o && o->name; o++) {
		if (!strcmp(o->name, param)) {
			*out = o;
			return 0;
		}
		if (n < PN_ARRAY_SIZE(names))
			names[n++] = o->name;
	}
	return pn_error(-EINVAL, "--set %s: %s has no option \"%s\"%s (see pnbench list %s)", set,
			owner, param, near(param, names, n, hint, sizeof(hint)), owner);
}

/* Every workload entry of a list whose "workload" is name: params.param = v. */
static int set_in_list(cJSON *list, const char *name, const char *param, const char *v, bool text)
{
	cJSON *e;
	int hits = 0;

	cJSON_ArrayForEach (e, list) {
		const char *w =
			cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "workload"));

		if (w && !strcmp(w, name)) {
			put(object_at(e, "params"), param, value_of(v, text));
			hits++;
		}
	}
	return hits;
}

static int set_workload(cJSON *root, const char *set, const struct pn_workload *w,
			const char *param, const char *v)
{
	const struct pn_opt *o;
	cJSON *ph;
	int hits, ret = param_check(set, w->name, w->opts, param, &o);

	if (ret)
		return ret;
	hits = set_in_list(cJSON_GetObjectItemCaseSensitive(root, "background"), w->name, param, v,
			   text_type(o));
	cJSON_ArrayForEach (ph, cJSON_GetObjectItemCaseSensitive(root, "phases"))
		hits += set_in_list(cJSON_GetObjectItemCaseSensitive(ph, "workloads"), w->name,
				    param, v, text_type(o));
	if (!hits)
		return pn_error(-EINVAL, "--set %s: the config runs no workload \"%s\"", set,
				w->name);
	return 0;
}

static int set_collector(cJSON *root, const char *set, const struct pn_collector *c,
			 const char *param, const char *v)
{
	cJSON *en = cJSON_GetObjectItemCaseSensitive(object_at(root, "collectors"), "enabled");
	const struct pn_opt *o = NULL;
	bool interval = !strcmp(param, "interval");
	cJSON *e;

	if (!interval && param_check(set, c->name, c->opts, param, &o))
		return -EINVAL;
	cJSON_ArrayForEach (e, en) {
		const char *nm =
			cJSON_IsString(e)
				? e->valuestring
				: cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));

		if (!nm || strcmp(nm, c->name) != 0)
			continue;
		if (cJSON_IsString(e)) {
			cJSON *obj = cJSON_CreateObject();

			cJSON_AddStringToObject(obj, "name", c->name);
			cJSON_ReplaceItemViaPointer(en, e, obj);
			e = obj;
		}
		if (interval)
			put(e, "interval", value_of(v, true));
		else
			put(object_at(e, "params"), param, value_of(v, text_type(o)));
		return 0;
	}
	return pn_error(-EINVAL, "--set %s: collector \"%s\" is not in collectors.enabled", set,
			c->name);
}

static cJSON *list_of(const char *v)
{
	cJSON *a = cJSON_CreateArray();
	char *dup = pn_strdup(v), *save = NULL;

	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save))
		cJSON_AddItemToArray(a, cJSON_CreateString(t));
	free(dup);
	return a;
}

static int set_section(cJSON *root, const char *set, const struct section *s, const char *key,
		       const char *v)
{
	cJSON *obj;
	char hint[96];
	size_t n = 0;

	while (s->keys[n] && strcmp(s->keys[n], key) != 0)
		n++;
	if (!s->keys[n]) {
		while (s->keys[n])
			n++;
		return pn_error(-EINVAL, "--set %s: no key \"%s\" in %s%s", set, key, s->name,
				near(key, (const char *const *)s->keys, n, hint, sizeof(hint)));
	}
	obj = object_at(root, s->name);
	if (!strcmp(key, "enabled") || !strcmp(key, "require"))
		put(obj, key, list_of(v));
	else
		put(obj, key, value_of(v, !strcmp(s->name, "nodes") || !strcmp(key, "interval")));
	return 0;
}

/* Everything a key's first part can name, for the hint. */
static int unknown_owner(const char *set, const char *owner)
{
	const char *names[128];
	char hint[96];
	size_t n = 0;

	for (size_t i = 0; i < pn_nworkloads && n < PN_ARRAY_SIZE(names); i++)
		names[n++] = pn_workloads[i]->name;
	for (size_t i = 0; i < pn_ncollectors && n < PN_ARRAY_SIZE(names); i++)
		names[n++] = pn_collectors[i]->name;
	for (size_t i = 0; i < PN_ARRAY_SIZE(sections) && n < PN_ARRAY_SIZE(names); i++)
		names[n++] = sections[i].name;
	return pn_error(-EINVAL,
			"--set %s: \"%s\" is no workload, collector or config section%s "
			"(keys: WORKLOAD.PARAM, COLLECTOR.PARAM, collectors.interval, ...)",
			set, owner, near(owner, names, n, hint, sizeof(hint)));
}

static int apply_one(cJSON *root, const char *set)
{
	char owner[64], key[64];
	const char *eq = strchr(set, '='), *dot;
	const struct pn_workload *w;
	const struct pn_collector *c;

	if (!eq || eq == set)
		return pn_error(-EINVAL, "--set %s: not KEY=VALUE (e.g. explicit.size=1G)", set);
	if ((size_t)(eq - set) == strlen("iterations") && !strncmp(set, "iterations", 10)) {
		put(root, "iterations", value_of(eq + 1, false));
		return 0;
	}
	dot = memchr(set, '.', (size_t)(eq - set));
	if (!dot || dot == set || dot + 1 == eq || (size_t)(dot - set) >= sizeof(owner) ||
	    (size_t)(eq - dot - 1) >= sizeof(key) || memchr(dot + 1, '.', (size_t)(eq - dot - 1)))
		return pn_error(-EINVAL,
				"--set %s: the key is OWNER.KEY (explicit.size, "
				"collectors.interval) or iterations",
				set);
	snprintf(owner, sizeof(owner), "%.*s", (int)(dot - set), set);
	snprintf(key, sizeof(key), "%.*s", (int)(eq - dot - 1), dot + 1);
	for (size_t i = 0; i < PN_ARRAY_SIZE(sections); i++)
		if (!strcmp(owner, sections[i].name))
			return set_section(root, set, &sections[i], key, eq + 1);
	w = pn_workload_find(owner);
	if (w)
		return set_workload(root, set, w, key, eq + 1);
	c = pn_collector_find(owner);
	if (c)
		return set_collector(root, set, c, key, eq + 1);
	return unknown_owner(set, owner);
}

int pn_config_apply_overrides(struct cJSON *root)
{
	if (!cJSON_IsObject(root))
		return 0; /* the loader says what is wrong with it */
	for (size_t i = 0; i < set_n; i++) {
		int ret = apply_one(root, set_list[i]);

		if (ret)
			return ret;
	}
	return 0;
}
