// SPDX-License-Identifier: GPL-2.0-only
/*
 * config.c - load a suite config (JSON), validate it against the workload and
 * collector option tables, and expand its matrix.  The format is documented
 * in configs/README.md.
 *
 * Two passes.  The first walks the raw tree once, checks every field (and
 * every element of every matrix array, so that errors name "...size[2]"),
 * and records the matrix axes.  The second builds one struct pn_config per
 * matrix point; nothing in it can fail on input any more, only on memory.
 *
 * Matrix: inside a workload's or collector's "params", an array value means
 * one matrix point per element.  Axes are ordered collectors, phases (in
 * order, workloads in order), background, and within one params object in
 * file order; points are the cartesian product with the first axis varying
 * slowest, like nested loops.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "params.h"

#define PN_CONFIG_MAX_BYTES	(1 << 20)
#define PN_CONFIG_NAME_MAX	64
#define PN_CONFIG_ITER_MAX	1000
#define PN_COLL_INTERVAL_DEF_MS 200
#define PN_COLL_INTERVAL_MIN_MS 1
#define PN_COLL_INTERVAL_MAX_MS 3600000
#define PN_MEM_SHARE_DEF	0.5
#define PN_MEM_SHARE_MAX	0.9
#define PN_MAX_EXACT		9007199254740992.0 /* 2^53: exact in a JSON number */

/* One matrix axis: an array value inside some params object. */
struct axis {
	const cJSON *arr; /* in the raw tree */
	char *jpath;	  /* "$.phases[0].workloads[0].params.size" */
	int n;
};

/* A workload or collector entry as found in the raw tree. */
struct raw_ent {
	const void *ops; /* struct pn_workload or pn_collector */
	const struct pn_opt *opts;
	const cJSON *params;  /* raw, may be NULL */
	char jpath[128];      /* of the entry: "$.phases[0].workloads[1]" */
	uint64_t interval_ms; /* collectors only */
	size_t axis0, naxis;  /* its matrix axes: ps->axes[axis0 .. axis0 + naxis) */
};

struct raw_phase {
	const char *name;
	size_t nwl;
	struct raw_ent *wl;
};

struct parser {
	const char *file;
	cJSON *root;
	struct pn_config tmpl; /* the fields every point shares */
	size_t ncoll, nbg, nphases;
	struct raw_ent *coll, *bg;
	struct raw_phase *phases;
	size_t naxes;
	struct axis *axes;
};

/* A user string made safe for one log line: printable ASCII, bounded. */
static const char *clean(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; s && *s && o + 5 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (o > 60) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (c < 0x20 || c >= 0x7f)
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	buf[o] = '\0';
	return buf;
}

__attribute__((format(printf, 3, 4))) static int perr(const struct parser *ps, const char *jpath,
						      const char *fmt, ...)
{
	char msg[1536];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return pn_error(-EINVAL, "%s: %s: %s", ps->file, jpath, msg);
}

/* Reject unknown and duplicate keys: a typo must never be ignored. */
static int check_keys(const struct parser *ps, const cJSON *obj, const char *jpath,
		      const char *const *allowed)
{
	char list[512], k[96];
	size_t off = 0;

	list[0] = '\0';
	for (const char *const *a = allowed; *a; a++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", off ? ", " : "",
					*a);
	for (const cJSON *it = obj->child; it; it = it->next) {
		const char *const *a;

		for (a = allowed; *a; a++)
			if (it->string && !strcmp(*a, it->string))
				break;
		if (!*a)
			return pn_error(-EINVAL, "%s: %s.%s: unknown key (valid keys here: %s)",
					ps->file, jpath, clean(it->string, k, sizeof(k)), list);
		for (const cJSON *jt = obj->child; jt != it; jt = jt->next)
			if (!strcmp(jt->string, it->string))
				return pn_error(-EINVAL, "%s: %s.%s: duplicate key", ps->file,
						jpath, it->string);
	}
	return 0;
}

static const cJSON *field(const cJSON *obj, const char *name)
{
	return obj ? cJSON_GetObjectItemCaseSensitive(obj, name) : NULL;
}

static int get_object(const struct parser *ps, const cJSON *v, const char *jpath)
{
	if (!cJSON_IsObject(v))
		return perr(ps, jpath, "must be an object, not %s", pn_json_type_name(v));
	return 0;
}

static int get_int(const struct parser *ps, const cJSON *v, const char *jpath, int64_t min,
		   int64_t max, int64_t *out)
{
	double d;

	if (!cJSON_IsNumber(v))
		return perr(ps, jpath, "must be an integer, not %s", pn_json_type_name(v));
	d = v->valuedouble;
	if (!isfinite(d) || d != floor(d))
		return perr(ps, jpath, "%g is not an integer", d);
	if (d < (double)min || d > (double)max)
		return perr(ps, jpath, "%g is out of range [%lld, %lld]", d, (long long)min,
			    (long long)max);
	*out = (int64_t)d;
	return 0;
}

static int get_name(const struct parser *ps, const cJSON *v, const char *jpath)
{
	char q[96];
	const char *s;

	if (!v)
		return perr(ps, jpath, "required, a name made of [a-z0-9_-]");
	if (!cJSON_IsString(v))
		return perr(ps, jpath, "must be a string, not %s", pn_json_type_name(v));
	s = v->valuestring;
	if (!*s || strlen(s) > PN_CONFIG_NAME_MAX ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(s))
		return perr(ps, jpath,
			    "\"%s\" is not a valid name (1 to %d characters of [a-z0-9_-])",
			    clean(s, q, sizeof(q)), PN_CONFIG_NAME_MAX);
	return 0;
}

static int get_duration(const struct parser *ps, const cJSON *v, const char *jpath, uint64_t *ms)
{
	static const struct pn_opt opt = {
		.name = "interval",
		.type = PN_OPT_DURATION,
		.def = NULL,
		.min = PN_COLL_INTERVAL_MIN_MS,
		.max = PN_COLL_INTERVAL_MAX_MS,
	};
	cJSON *c;
	int ret = pn_param_check(&opt, v, ps->file, jpath, &c);

	if (ret)
		return ret;
	*ms = (uint64_t)c->valuedouble;
	cJSON_Delete(c);
	return 0;
}

/* ---- nodes ---- */

static int parse_node_role(const struct parser *ps, const cJSON *v, const char *jpath,
			   bool *is_auto, struct pn_nodeset *set)
{
	char q[96];
	int i = 0;

	*is_auto = false;
	pn_nodeset_zero(set);
	if (!v || (cJSON_IsString(v) && !strcmp(v->valuestring, "auto"))) {
		*is_auto = true;
		return 0;
	}
	if (cJSON_IsString(v)) {
		if (pn_nodeset_parse(set, v->valuestring))
			return perr(ps, jpath,
				    "\"%s\" is not a node list (use \"auto\", a list such as "
				    "\"0,2,5-7\" or [0, 2])",
				    clean(v->valuestring, q, sizeof(q)));
		return 0;
	}
	if (cJSON_IsNumber(v)) {
		int64_t n;
		int ret = get_int(ps, v, jpath, 0, PN_MAX_NODES - 1, &n);

		if (!ret)
			pn_nodeset_set(set, (int)n);
		return ret;
	}
	if (!cJSON_IsArray(v))
		return perr(ps, jpath,
			    "must be \"auto\", a node list string or an array of node ids, not %s",
			    pn_json_type_name(v));
	for (const cJSON *e = v->child; e; e = e->next, i++) {
		char ep[160];
		int64_t n;
		int ret;

		snprintf(ep, sizeof(ep), "%s[%d]", jpath, i);
		ret = get_int(ps, e, ep, 0, PN_MAX_NODES - 1, &n);
		if (ret)
			return ret;
		pn_nodeset_set(set, (int)n);
	}
	return 0;
}

static int parse_nodes(struct parser *ps, const cJSON *v)
{
	static const char *const keys[] = { "private", "dram", NULL };
	struct pn_config *c = &ps->tmpl;
	struct pn_nodeset both;
	char buf[64];
	int ret;

	if (v) {
		ret = get_object(ps, v, "$.nodes");
		if (!ret)
			ret = check_keys(ps, v, "$.nodes", keys);
		if (ret)
			return ret;
	}
	ret = parse_node_role(ps, field(v, "private"), "$.nodes.private", &c->private_auto,
			      &c->private_nodes);
	if (!ret)
		ret = parse_node_role(ps, field(v, "dram"), "$.nodes.dram", &c->dram_auto,
				      &c->dram_nodes);
	if (ret)
		return ret;
	pn_nodeset_and(&both, &c->private_nodes, &c->dram_nodes);
	if (!pn_nodeset_empty(&both)) {
		if (pn_nodeset_format(&both, buf, sizeof(buf)))
			snprintf(buf, sizeof(buf), "several");
		return perr(ps, "$.nodes", "node(s) %s cannot be both private and dram", buf);
	}
	return 0;
}

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
static int check_params(struct parser *ps, struct raw_ent *e, const char *jpath)
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
		return perr(ps, jpath, "params must be an object, not %s", pn_json_type_name(raw));
	for (const cJSON *it = raw->child; it; it = it->next) {
		const struct pn_opt *o = opt_find(opts, it->string);
		char vpath[256];
		int i = 0;

		if (!cJSON_IsArray(it) || !o)
			continue; /* unknown keys: reported by the resolve below */
		snprintf(vpath, sizeof(vpath), "%s.%s", jpath, o->name);
		if (!it->child)
			return perr(ps, vpath,
				    "empty array (an array in params means one matrix point per "
				    "element)");
		for (const cJSON *el = it->child; el; el = el->next, i++) {
			char epath[288];
			cJSON *c;

			snprintf(epath, sizeof(epath), "%s[%d]", vpath, i);
			if (cJSON_IsArray(el))
				return perr(ps, epath,
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

	ret = get_object(ps, v, e->jpath);
	if (!ret)
		ret = check_keys(ps, v, e->jpath, keys);
	if (ret)
		return ret;
	name = field(v, "workload");
	snprintf(path, sizeof(path), "%s.workload", e->jpath);
	if (!name)
		return perr(ps, path, "required: the name of a workload");
	if (!cJSON_IsString(name))
		return perr(ps, path, "must be a string, not %s", pn_json_type_name(name));
	w = pn_workload_find(name->valuestring);
	if (!w) {
		list_workloads(list, sizeof(list));
		return perr(ps, path, "unknown workload \"%s\" (known: %s)",
			    clean(name->valuestring, q, sizeof(q)), list);
	}
	e->ops = w;
	e->opts = w->opts;
	e->params = field(v, "params");
	snprintf(path, sizeof(path), "%s.params", e->jpath);
	return check_params(ps, e, path);
}

static int parse_wl_list(struct parser *ps, const cJSON *v, const char *jpath, struct raw_ent **out,
			 size_t *n)
{
	size_t i = 0;
	int ret;

	if (!cJSON_IsArray(v))
		return perr(ps, jpath,
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

static int parse_phases(struct parser *ps, const cJSON *v)
{
	static const char *const keys[] = { "name", "workloads", NULL };
	size_t i = 0;
	int ret;

	if (!v)
		return perr(ps, "$.phases",
			    "required: a list of phases, e.g. [{\"name\": \"alloc\", "
			    "\"workloads\": [...]}]");
	if (!cJSON_IsArray(v))
		return perr(ps, "$.phases", "must be an array, not %s", pn_json_type_name(v));
	ps->nphases = (size_t)cJSON_GetArraySize(v);
	if (!ps->nphases)
		return perr(ps, "$.phases", "needs at least one phase");
	ps->phases = pn_xcalloc(ps->nphases, sizeof(*ps->phases));
	for (const cJSON *p = v->child; p; p = p->next, i++) {
		struct raw_phase *ph = &ps->phases[i];
		char path[96], sub[128];

		snprintf(path, sizeof(path), "$.phases[%zu]", i);
		ret = get_object(ps, p, path);
		if (!ret)
			ret = check_keys(ps, p, path, keys);
		if (ret)
			return ret;
		snprintf(sub, sizeof(sub), "%s.name", path);
		ret = get_name(ps, field(p, "name"), sub);
		if (ret)
			return ret;
		ph->name = field(p, "name")->valuestring;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(ps->phases[j].name, ph->name))
				return perr(ps, sub,
					    "duplicate phase name \"%s\" (also $.phases[%zu])",
					    ph->name, j);
		snprintf(sub, sizeof(sub), "%s.workloads", path);
		if (!field(p, "workloads"))
			return perr(ps, sub, "required: the workloads of this phase");
		ret = parse_wl_list(ps, field(p, "workloads"), sub, &ph->wl, &ph->nwl);
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
		ret = check_keys(ps, v, e->jpath, keys);
		if (ret)
			return ret;
		name = field(v, "name");
		snprintf(path, sizeof(path), "%s.name", e->jpath);
		if (!name)
			return perr(ps, path, "required: the name of a collector");
	} else {
		snprintf(path, sizeof(path), "%s", e->jpath);
	}
	if (!cJSON_IsString(name))
		return perr(ps, path,
			    "must be a collector name or {\"name\": ..., \"interval\": ..., "
			    "\"params\": {...}}, not %s",
			    pn_json_type_name(name));
	c = pn_collector_find(name->valuestring);
	if (!c) {
		list_collectors(list, sizeof(list));
		return perr(ps, path, "unknown collector \"%s\" (known: %s)",
			    clean(name->valuestring, q, sizeof(q)), list);
	}
	e->ops = c;
	e->opts = c->opts;
	if (!cJSON_IsObject(v))
		return check_params(ps, e, e->jpath);
	if (field(v, "interval")) {
		snprintf(path, sizeof(path), "%s.interval", e->jpath);
		ret = get_duration(ps, field(v, "interval"), path, &e->interval_ms);
		if (ret)
			return ret;
	}
	e->params = field(v, "params");
	snprintf(path, sizeof(path), "%s.params", e->jpath);
	return check_params(ps, e, path);
}

static int parse_collectors(struct parser *ps, const cJSON *v)
{
	static const char *const keys[] = { "interval", "enabled", NULL };
	const cJSON *en;
	size_t i = 0;
	int ret;

	ps->tmpl.interval_ms = PN_COLL_INTERVAL_DEF_MS;
	if (!v)
		return 0;
	ret = get_object(ps, v, "$.collectors");
	if (!ret)
		ret = check_keys(ps, v, "$.collectors", keys);
	if (!ret && field(v, "interval"))
		ret = get_duration(ps, field(v, "interval"), "$.collectors.interval",
				   &ps->tmpl.interval_ms);
	if (ret)
		return ret;
	en = field(v, "enabled");
	if (!en)
		return 0;
	if (!cJSON_IsArray(en))
		return perr(ps, "$.collectors.enabled",
			    "must be an array of collector names, not %s", pn_json_type_name(en));
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
				return perr(ps, r->jpath,
					    "collector \"%s\" is enabled twice (also "
					    "$.collectors.enabled[%zu])",
					    ((const struct pn_collector *)r->ops)->name, j);
	}
	return 0;
}

static int get_threshold(const struct parser *ps, const cJSON *v, const char *jpath, int64_t *out)
{
	double d;

	if (!v)
		return 0;
	if (!cJSON_IsNumber(v))
		return perr(ps, jpath,
			    "must be an integer page count (>= 0, or -1 to report without a "
			    "verdict), not %s",
			    pn_json_type_name(v));
	d = v->valuedouble;
	if (!isfinite(d) || d != floor(d) || d < -1 || d > PN_MAX_EXACT)
		return perr(ps, jpath,
			    "%g is not a threshold: use a page count >= 0, or -1 to report without "
			    "a verdict",
			    d);
	*out = (int64_t)d;
	return 0;
}

static int parse_thresholds(struct parser *ps, const cJSON *v)
{
	static const char *const keys[] = { "general_pages", "misplaced_pages", NULL };
	int ret;

	ps->tmpl.max_general_pages = 0;
	ps->tmpl.max_misplaced_pages = -1;
	if (!v)
		return 0;
	ret = get_object(ps, v, "$.thresholds");
	if (!ret)
		ret = check_keys(ps, v, "$.thresholds", keys);
	if (!ret)
		ret = get_threshold(ps, field(v, "general_pages"), "$.thresholds.general_pages",
				    &ps->tmpl.max_general_pages);
	if (!ret)
		ret = get_threshold(ps, field(v, "misplaced_pages"), "$.thresholds.misplaced_pages",
				    &ps->tmpl.max_misplaced_pages);
	return ret;
}

static int parse_limits(struct parser *ps, const cJSON *v)
{
	static const char *const keys[] = { "max_mem_share", NULL };
	const cJSON *s;
	int ret;

	ps->tmpl.max_mem_share = PN_MEM_SHARE_DEF;
	if (!v)
		return 0;
	ret = get_object(ps, v, "$.limits");
	if (!ret)
		ret = check_keys(ps, v, "$.limits", keys);
	if (ret)
		return ret;
	s = field(v, "max_mem_share");
	if (!s)
		return 0;
	if (!cJSON_IsNumber(s))
		return perr(ps, "$.limits.max_mem_share", "must be a number, not %s",
			    pn_json_type_name(s));
	if (!(s->valuedouble > 0 && s->valuedouble <= PN_MEM_SHARE_MAX))
		return perr(
			ps, "$.limits.max_mem_share",
			"%g is out of range (0, %g]: the share of MemAvailable workloads may use",
			s->valuedouble, PN_MEM_SHARE_MAX);
	ps->tmpl.max_mem_share = s->valuedouble;
	return 0;
}

static int parse_top(struct parser *ps)
{
	static const char *const keys[] = {
		"name",	  "description", "nodes",      "iterations", "collectors",
		"phases", "background",	 "thresholds", "limits",     NULL,
	};
	const cJSON *r = ps->root, *v;
	int64_t it = 1;
	int ret;

	if (!cJSON_IsObject(r))
		return perr(ps, "$", "a config must be a JSON object, not %s",
			    pn_json_type_name(r));
	ret = check_keys(ps, r, "$", keys);
	if (!ret)
		ret = get_name(ps, field(r, "name"), "$.name");
	if (ret)
		return ret;
	ps->tmpl.name = field(r, "name")->valuestring;
	v = field(r, "description");
	if (v && !cJSON_IsString(v))
		return perr(ps, "$.description", "must be a string, not %s", pn_json_type_name(v));
	ps->tmpl.description = v ? v->valuestring : "";
	ret = parse_nodes(ps, field(r, "nodes"));
	if (ret)
		return ret;
	if (field(r, "iterations")) {
		ret = get_int(ps, field(r, "iterations"), "$.iterations", 1, PN_CONFIG_ITER_MAX,
			      &it);
		if (ret)
			return ret;
	}
	ps->tmpl.iterations = (int)it;
	ret = parse_collectors(ps, field(r, "collectors"));
	if (!ret)
		ret = parse_phases(ps, field(r, "phases"));
	if (ret)
		return ret;
	if (field(r, "background")) {
		ret = parse_wl_list(ps, field(r, "background"), "$.background", &ps->bg, &ps->nbg);
		if (ret)
			return ret;
	}
	ret = parse_thresholds(ps, field(r, "thresholds"));
	if (!ret)
		ret = parse_limits(ps, field(r, "limits"));
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
	return perr(ps, "$",
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
	return resolve_ent(ps, r, idx, &w->params);
}

static cJSON *wl_json(const struct pn_config_wl *w)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "workload", w->ops->name);
	cJSON_AddItemToObject(o, "params", cJSON_Duplicate(w->params, 1));
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
	a = cJSON_AddArrayToObject(o, "enabled");
	for (size_t i = 0; i < c->ncoll; i++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "name", c->coll[i].ops->name);
		cJSON_AddNumberToObject(e, "interval", (double)c->coll[i].interval_ms);
		cJSON_AddItemToObject(e, "params", cJSON_Duplicate(c->coll[i].params, 1));
		cJSON_AddItemToArray(a, e);
	}
	a = cJSON_AddArrayToObject(r, "phases");
	for (size_t i = 0; i < c->nphases; i++) {
		cJSON *p = cJSON_CreateObject(), *wa;

		cJSON_AddStringToObject(p, "name", c->phases[i].name);
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
		ret = resolve_ent(ps, &ps->coll[i], idx, &c->coll[i].params);
	}
	c->nphases = ps->nphases;
	c->phases = pn_xcalloc(ps->nphases, sizeof(*c->phases));
	for (size_t i = 0; i < ps->nphases && !ret; i++) {
		struct pn_config_phase *ph = &c->phases[i];

		ph->name = pn_strdup(ps->phases[i].name);
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

static int expand(const struct parser *ps, struct pn_config_set *out)
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

/* ---- entry points ---- */

static int json_error(const char *file, const char *buf, size_t len, const char *at)
{
	size_t off = at && at >= buf && at <= buf + len ? (size_t)(at - buf) : len;
	unsigned line = 1, col = 1;
	char near[96], raw[24];
	size_t n = 0;

	for (size_t i = 0; i < off; i++) {
		if (buf[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	while (off + n < len && n < sizeof(raw) - 1 && buf[off + n] != '\n' && buf[off + n]) {
		raw[n] = buf[off + n];
		n++;
	}
	raw[n] = '\0';
	if (n)
		return pn_error(-EINVAL, "%s:%u:%u: invalid JSON at line %u, column %u, near '%s'",
				file, line, col, line, col, clean(raw, near, sizeof(near)));
	return pn_error(-EINVAL, "%s:%u:%u: invalid JSON at line %u, column %u (%s)", file, line,
			col, line, col,
			off >= len	   ? "unexpected end of file"
			: buf[off] == '\0' ? "a NUL byte"
					   : "at the end of the line");
}

static void parser_free(struct parser *ps)
{
	for (size_t i = 0; i < ps->nphases; i++)
		free(ps->phases[i].wl);
	free(ps->phases);
	free(ps->coll);
	free(ps->bg);
	for (size_t i = 0; i < ps->naxes; i++)
		free(ps->axes[i].jpath);
	free(ps->axes);
	cJSON_Delete(ps->root);
}

int pn_config_parse(const char *buf, size_t len, const char *name, struct pn_config_set *out)
{
	struct parser ps = { .file = name ? name : "(config)" };
	const char *end = NULL;
	char *text;
	int ret;

	out->n = 0;
	out->points = NULL;
	if (len > PN_CONFIG_MAX_BYTES)
		return pn_error(-EINVAL, "%s: too large (%zu bytes, at most %d)", ps.file, len,
				PN_CONFIG_MAX_BYTES);
	if (memchr(buf, '\0', len))
		return json_error(ps.file, buf, len, memchr(buf, '\0', len));
	/* cJSON wants a NUL-terminated string; fuzzers give bare bytes. */
	text = pn_xmalloc(len + 1);
	memcpy(text, buf, len);
	text[len] = '\0';
	ps.root = cJSON_ParseWithOpts(text, &end, 1);
	if (!ps.root) {
		ret = json_error(ps.file, text, len, end);
		free(text);
		return ret;
	}
	free(text);
	ret = parse_top(&ps);
	if (!ret)
		ret = expand(&ps, out);
	parser_free(&ps);
	if (ret)
		pn_config_set_free(out);
	return ret;
}

int pn_config_load(const char *path, struct pn_config_set *out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	out->n = 0;
	out->points = NULL;
	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		return pn_error(ret, "cannot open config %s: %s", path, strerror(-ret));
	}
	buf = pn_xmalloc(PN_CONFIG_MAX_BYTES + 1);
	len = fread(buf, 1, PN_CONFIG_MAX_BYTES + 1, f);
	if (ferror(f)) {
		ret = pn_error(-EIO, "cannot read config %s", path);
		goto out;
	}
	if (len > PN_CONFIG_MAX_BYTES) {
		ret = pn_error(-EINVAL, "%s: too large (more than %d bytes)", path,
			       PN_CONFIG_MAX_BYTES);
		goto out;
	}
	ret = pn_config_parse(buf, len, path, out);
out:
	fclose(f);
	free(buf);
	return ret;
}

static void wl_free(struct pn_config_wl *w)
{
	cJSON_Delete(w->params);
	free(w->jpath);
}

void pn_config_set_free(struct pn_config_set *s)
{
	for (size_t p = 0; p < s->n; p++) {
		struct pn_config *c = &s->points[p];

		for (size_t i = 0; c->phases && i < c->nphases; i++) {
			for (size_t j = 0; c->phases[i].wl && j < c->phases[i].nwl; j++)
				wl_free(&c->phases[i].wl[j]);
			free(c->phases[i].wl);
			free(c->phases[i].name);
		}
		free(c->phases);
		for (size_t i = 0; c->background && i < c->nbackground; i++)
			wl_free(&c->background[i]);
		free(c->background);
		for (size_t i = 0; c->coll && i < c->ncoll; i++)
			cJSON_Delete(c->coll[i].params);
		free(c->coll);
		cJSON_Delete(c->resolved);
		cJSON_Delete(c->matrix_point);
		free(c->file);
		free(c->name);
		free(c->description);
	}
	free(s->points);
	s->points = NULL;
	s->n = 0;
}
