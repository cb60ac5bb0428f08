// SPDX-License-Identifier: GPL-2.0-only
/*
 * result.c - a workload's result tree (result.h): metrics with labels,
 * tables, checks, notes and the page census, and its wire format between
 * the workload's child process and the runner.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "result.h"

const char *pn_unit_name(enum pn_unit u)
{
	static const char *const names[] = {
		[PN_UNIT_NONE] = "",
		[PN_UNIT_BYTES] = "bytes",
		[PN_UNIT_PAGES] = "pages",
		[PN_UNIT_NS] = "ns",
		[PN_UNIT_BYTES_PER_SEC] = "bytes/s",
		[PN_UNIT_PAGES_PER_SEC] = "pages/s",
		[PN_UNIT_RATIO] = "ratio",
		[PN_UNIT_PERCENT] = "%",
		[PN_UNIT_COUNT] = "count",
		[PN_UNIT_EVENTS_PER_SEC] = "events/s",
	};

	return (size_t)u < PN_ARRAY_SIZE(names) && names[u] ? names[u] : "";
}

const char *pn_better_name(enum pn_better b)
{
	return b == PN_BETTER_HIGHER ? "higher" : b == PN_BETTER_LOWER ? "lower" : NULL;
}

const char *pn_agg_name(enum pn_agg a)
{
	static const char *const names[] = { "median", "mean", "min", "max", "sum", "last" };

	return (size_t)a < PN_ARRAY_SIZE(names) ? names[a] : "median";
}

void pn_res_init(struct pn_res *r, const struct pn_metric_decl *decls, const char *owner)
{
	memset(r, 0, sizeof(*r));
	r->decls = decls;
	r->owner = owner ? owner : "workload";
	r->root = cJSON_CreateObject();
	cJSON_AddArrayToObject(r->root, "metrics");
	cJSON_AddArrayToObject(r->root, "tables");
	cJSON_AddArrayToObject(r->root, "checks");
	cJSON_AddArrayToObject(r->root, "notes");
}

void pn_res_free(struct pn_res *r)
{
	cJSON_Delete(r->root);
	r->root = NULL;
}

static const struct pn_metric_decl *find_decl(const struct pn_res *r, const char *name)
{
	for (const struct pn_metric_decl *d = r->decls; d && d->name; d++)
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}

/* "node=1,src=0" -> {"node": "1", "src": "0"}; -EINVAL on junk. */
static int parse_labels(const char *labels, cJSON *out)
{
	char buf[256], *save = NULL;

	if (!labels || !*labels)
		return 0;
	if (strlen(labels) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, labels);
	for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');

		if (!eq || eq == kv || !eq[1])
			return -EINVAL;
		*eq = '\0';
		if (cJSON_GetObjectItem(out, kv))
			return -EINVAL;
		cJSON_AddStringToObject(out, kv, eq + 1);
	}
	return 0;
}

int pn_res_metric(struct pn_res *r, const char *name, const char *labels, double value)
{
	const struct pn_metric_decl *d = find_decl(r, name);
	cJSON *m, *lj;
	const char *better;

	if (!d)
		return pn_error(-EINVAL, "%s: metric \"%s\" is not declared (internal error)",
				r->owner, name);
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "name", name);
	lj = cJSON_AddObjectToObject(m, "labels");
	if (parse_labels(labels, lj)) {
		cJSON_Delete(m);
		return pn_error(-EINVAL, "%s: metric %s: labels \"%s\" are not key=value,...",
				r->owner, name, labels);
	}
	cJSON_AddStringToObject(m, "unit", pn_unit_name(d->unit));
	better = pn_better_name(d->better);
	if (better)
		cJSON_AddStringToObject(m, "better", better);
	else
		cJSON_AddNullToObject(m, "better");
	cJSON_AddStringToObject(m, "aggregate", pn_agg_name(d->aggregate));
	cJSON_AddNumberToObject(m, "value", value);
	cJSON_AddItemToArray(cJSON_GetObjectItem(r->root, "metrics"), m);
	return 0;
}

static const char *col_type_name(enum pn_col_type t)
{
	return t == PN_COL_INT	 ? "int"
	       : t == PN_COL_NUM ? "number"
	       : t == PN_COL_STR ? "string"
				 : "bool";
}

int pn_res_table(struct pn_res *r, const char *name, const char *description,
		 const struct pn_col *cols, size_t ncols)
{
	cJSON *tables = cJSON_GetObjectItem(r->root, "tables");
	cJSON *t = cJSON_CreateObject(), *cj;

	if (!ncols)
		return pn_error(-EINVAL, "%s: table %s has no columns", r->owner, name);
	cJSON_AddStringToObject(t, "name", name);
	cJSON_AddStringToObject(t, "description", description ? description : "");
	cj = cJSON_AddArrayToObject(t, "columns");
	for (size_t i = 0; i < ncols; i++) {
		cJSON *c = cJSON_CreateObject();

		cJSON_AddStringToObject(c, "name", cols[i].name);
		cJSON_AddStringToObject(c, "type", col_type_name(cols[i].type));
		cJSON_AddStringToObject(c, "unit", pn_unit_name(cols[i].unit));
		cJSON_AddItemToArray(cj, c);
	}
	cJSON_AddArrayToObject(t, "rows");
	cJSON_AddItemToArray(tables, t);
	return cJSON_GetArraySize(tables) - 1;
}

static cJSON *cell(const char *type, va_list *ap)
{
	if (!strcmp(type, "int"))
		return cJSON_CreateNumber((double)va_arg(*ap, int64_t));
	if (!strcmp(type, "number"))
		return cJSON_CreateNumber(va_arg(*ap, double));
	if (!strcmp(type, "bool"))
		return cJSON_CreateBool(va_arg(*ap, int));
	{
		const char *s = va_arg(*ap, const char *);

		return s ? cJSON_CreateString(s) : cJSON_CreateNull();
	}
}

int pn_res_table_row(struct pn_res *r, int table, ...)
{
	cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItem(r->root, "tables"), table), *c, *row;
	va_list ap;

	if (!t)
		return pn_error(-EINVAL, "%s: no table %d", r->owner, table);
	row = cJSON_CreateArray();
	va_start(ap, table);
	cJSON_ArrayForEach (c, cJSON_GetObjectItem(t, "columns"))
		cJSON_AddItemToArray(row, cell(cJSON_GetObjectItem(c, "type")->valuestring, &ap));
	va_end(ap);
	cJSON_AddItemToArray(cJSON_GetObjectItem(t, "rows"), row);
	return 0;
}

static bool add_check(struct pn_res *r, const char *name, bool pass, const char *source,
		      const char *expected, const char *observed)
{
	cJSON *c = cJSON_CreateObject();

	cJSON_AddStringToObject(c, "name", name);
	cJSON_AddStringToObject(c, "expected", expected);
	cJSON_AddStringToObject(c, "observed", observed);
	cJSON_AddBoolToObject(c, "pass", pass);
	cJSON_AddStringToObject(c, "source", source ? source : "workload");
	cJSON_AddItemToArray(cJSON_GetObjectItem(r->root, "checks"), c);
	if (!pass)
		pn_info("%s: check failed: %s: expected %s, observed %s", r->owner, name, expected,
			observed);
	return pass;
}

bool pn_res_check(struct pn_res *r, const char *name, bool pass, const char *source,
		  const char *expected, const char *observed_fmt, ...)
{
	char obs[512];
	va_list ap;

	va_start(ap, observed_fmt);
	vsnprintf(obs, sizeof(obs), observed_fmt, ap);
	va_end(ap);
	return add_check(r, name, pass, source, expected, obs);
}

static bool check_num(struct pn_res *r, const char *name, const char *op, int64_t want, int64_t got,
		      const char *unit, bool pass)
{
	char e[96], o[96];
	const char *u = unit ? unit : "";

	snprintf(e, sizeof(e), "%s %" PRId64 "%s%s", op, want, *u ? " " : "", u);
	snprintf(o, sizeof(o), "%" PRId64 "%s%s", got, *u ? " " : "", u);
	return add_check(r, name, pass, "workload", e, o);
}

bool pn_res_check_eq(struct pn_res *r, const char *name, int64_t expected, int64_t observed,
		     const char *unit)
{
	return check_num(r, name, "==", expected, observed, unit, expected == observed);
}

bool pn_res_check_le(struct pn_res *r, const char *name, int64_t limit, int64_t observed,
		     const char *unit)
{
	return check_num(r, name, "<=", limit, observed, unit, observed <= limit);
}

void pn_res_note(struct pn_res *r, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cJSON_AddItemToArray(cJSON_GetObjectItem(r->root, "notes"), cJSON_CreateString(buf));
}

cJSON *pn_res_placement_json(const struct pn_res *r)
{
	cJSON *p = cJSON_CreateObject(), *per, *fr;
	char key[16];

	cJSON_AddBoolToObject(p, "verified", r->verified);
	cJSON_AddNumberToObject(p, "explicit_pages", (double)r->explicit_pages);
	cJSON_AddNumberToObject(p, "intended_pages", (double)r->intended_pages);
	cJSON_AddNumberToObject(p, "misplaced_pages", (double)r->misplaced_pages);
	cJSON_AddNumberToObject(p, "unverified_pages", (double)r->unverified_pages);
	per = cJSON_AddObjectToObject(p, "per_node");
	for (int n = 0; n < PN_MAX_NODES; n++) {
		if (!r->placed_pages[n])
			continue;
		snprintf(key, sizeof(key), "%d", n);
		cJSON_AddNumberToObject(per, key, (double)r->placed_pages[n]);
	}
	fr = cJSON_AddObjectToObject(p, "freed_per_node");
	for (int n = 0; n < PN_MAX_NODES; n++) {
		if (!r->freed_pages[n])
			continue;
		snprintf(key, sizeof(key), "%d", n);
		cJSON_AddNumberToObject(fr, key, (double)r->freed_pages[n]);
	}
	return p;
}

char *pn_res_serialize(const struct pn_res *r)
{
	cJSON *w = cJSON_Duplicate(r->root, 1);
	char *text;

	cJSON_AddItemToObject(w, "placement", pn_res_placement_json(r));
	text = cJSON_PrintUnformatted(w);
	cJSON_Delete(w);
	return text;
}

static const char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	return cJSON_IsString(v) ? v->valuestring : "";
}

bool pn_res_check_at(const struct pn_res *r, size_t i, struct pn_res_check_rec *out)
{
	const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItem(r->root, "checks"), (int)i);

	if (!c)
		return false;
	out->name = str_of(c, "name");
	out->expected = str_of(c, "expected");
	out->observed = str_of(c, "observed");
	out->pass = cJSON_IsTrue(cJSON_GetObjectItem(c, "pass"));
	return true;
}

bool pn_res_metric_at(const struct pn_res *r, size_t i, const char *label,
		      struct pn_res_metric_rec *out)
{
	const cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItem(r->root, "metrics"), (int)i);
	const cJSON *v = cJSON_GetObjectItem(m, "value");

	if (!m)
		return false;
	out->name = str_of(m, "name");
	out->label = label ? str_of(cJSON_GetObjectItem(m, "labels"), label) : "";
	out->has_value = cJSON_IsNumber(v);
	out->value = out->has_value ? v->valuedouble : 0;
	return true;
}

static uint64_t u64_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	return cJSON_IsNumber(v) && v->valuedouble > 0 ? (uint64_t)v->valuedouble : 0;
}

static void per_node(const cJSON *o, uint64_t *pages)
{
	const cJSON *n;

	memset(pages, 0, PN_MAX_NODES * sizeof(*pages));
	cJSON_ArrayForEach (n, o) {
		char *end;
		long node = strtol(n->string, &end, 10);

		if (*end || node < 0 || node >= PN_MAX_NODES || !cJSON_IsNumber(n))
			continue;
		pages[node] = (uint64_t)n->valuedouble;
	}
}

int pn_res_parse(struct pn_res *r, const char *text)
{
	cJSON *root = cJSON_Parse(text), *p;
	static const char *const arrays[] = { "metrics", "tables", "checks", "notes" };

	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return -EINVAL;
	}
	for (size_t i = 0; i < PN_ARRAY_SIZE(arrays); i++) {
		if (!cJSON_IsArray(cJSON_GetObjectItem(root, arrays[i]))) {
			cJSON_Delete(root);
			return -EINVAL;
		}
	}
	p = cJSON_DetachItemFromObject(root, "placement");
	if (cJSON_IsObject(p)) {
		r->verified = cJSON_IsTrue(cJSON_GetObjectItem(p, "verified"));
		r->explicit_pages = u64_of(p, "explicit_pages");
		r->intended_pages = u64_of(p, "intended_pages");
		r->misplaced_pages = u64_of(p, "misplaced_pages");
		r->unverified_pages = u64_of(p, "unverified_pages");
		per_node(cJSON_GetObjectItem(p, "per_node"), r->placed_pages);
		per_node(cJSON_GetObjectItem(p, "freed_per_node"), r->freed_pages);
	}
	cJSON_Delete(p);
	cJSON_Delete(r->root);
	r->root = root;
	return 0;
}
