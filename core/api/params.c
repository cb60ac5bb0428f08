// SPDX-License-Identifier: GPL-2.0-only
/*
 * params.c - validate a config's "params" object against an option table
 * and build its canonical form; typed accessors for workloads and collectors.
 *
 * Canonical form (the contract of params.h): an object holding every option
 * of the table, in table order, as
 *   BOOL               -> true/false
 *   INT, DOUBLE        -> number
 *   SIZE               -> number of bytes
 *   DURATION           -> number of milliseconds
 *   STRING, ENUM       -> string
 *   NODES              -> "private", "dram", "all" or a normalised list "0,2,5-7"
 * Every canonical value is itself valid input, so a canonical object can be
 * fed back through pn_params_resolve() and comes out unchanged.
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "params.h"

/* Integers and byte counts travel as JSON (double) numbers: keep them exact. */
#define PN_PARAM_MAX_EXACT 9007199254740992.0 /* 2^53 */

const char *pn_json_type_name(const cJSON *v)
{
	if (cJSON_IsBool(v))
		return "a boolean";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsArray(v))
		return "an array";
	if (cJSON_IsObject(v))
		return "an object";
	if (cJSON_IsNull(v))
		return "null";
	return "an invalid value";
}

/* Quote a user string for a message: at most ~60 characters, control
 * characters and quotes escaped, so hostile input cannot garble the log. */
static const char *quote(const char *s, char *buf, size_t len);

/* quote() without the quotes: a key inside a JSON path. */
static const char *bare(const char *s, char *buf, size_t len)
{
	quote(s, buf, len);
	buf[strlen(buf) - 1] = '\0';
	return buf + 1;
}

static const char *quote(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	buf[o++] = '"';
	for (; *s && o + 8 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (o > 60) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (c == '"' || c == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
		} else {
			buf[o++] = (char)c;
		}
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

const char *pn_opt_type_name(enum pn_opt_type t)
{
	switch (t) {
	case PN_OPT_BOOL: return "bool";
	case PN_OPT_INT: return "int";
	case PN_OPT_DOUBLE: return "double";
	case PN_OPT_SIZE: return "size";
	case PN_OPT_DURATION: return "duration";
	case PN_OPT_STRING: return "string";
	case PN_OPT_ENUM: return "enum";
	case PN_OPT_NODES: return "nodes";
	}
	return "?";
}

static bool has_range(const struct pn_opt *o)
{
	return !(o->min == 0 && o->max == 0);
}

static int range_error(const struct pn_opt *o, const char *file, const char *vpath, double v)
{
	switch (o->type) {
	case PN_OPT_SIZE:
		return pn_error(-EINVAL, "%s: %s: %.0f bytes is out of range [%.0f, %.0f] bytes",
				file, vpath, v, o->min, o->max);
	case PN_OPT_DURATION:
		return pn_error(-EINVAL, "%s: %s: %.0f ms is out of range [%.0f, %.0f] ms", file,
				vpath, v, o->min, o->max);
	default:
		return pn_error(-EINVAL, "%s: %s: %g is out of range [%g, %g]", file, vpath, v,
				o->min, o->max);
	}
}

static int check_range(const struct pn_opt *o, const char *file, const char *vpath, double v)
{
	if (has_range(o) && (v < o->min || v > o->max))
		return range_error(o, file, vpath, v);
	return 0;
}

static int check_size(const struct pn_opt *o, const cJSON *v, const char *file, const char *vpath,
		      double *bytes)
{
	char q[96];
	uint64_t b;

	if (cJSON_IsNumber(v)) {
		double d = v->valuedouble;

		if (!isfinite(d) || d < 0 || d != floor(d) || d > PN_PARAM_MAX_EXACT)
			return pn_error(
				-EINVAL,
				"%s: %s: %g is not a size (a number is a whole count of bytes)",
				file, vpath, d);
		*bytes = d;
	} else if (cJSON_IsString(v)) {
		int ret = pn_parse_size(v->valuestring, &b);

		if (ret && ret != -ERANGE)
			return pn_error(-EINVAL,
					"%s: %s: %s is not a size (examples: 4096, 64K, 2M, 1G)",
					file, vpath, quote(v->valuestring, q, sizeof(q)));
		/* beyond 2^64, or beyond what a JSON number holds exactly */
		if ((ret || (double)b > PN_PARAM_MAX_EXACT) && has_range(o))
			return pn_error(-EINVAL, "%s: %s: %s is out of range [%.0f, %.0f] bytes",
					file, vpath, quote(v->valuestring, q, sizeof(q)), o->min,
					o->max);
		if (ret || (double)b > PN_PARAM_MAX_EXACT)
			return pn_error(-EINVAL, "%s: %s: %s is too large (at most 8P)", file,
					vpath, quote(v->valuestring, q, sizeof(q)));
		*bytes = (double)b;
	} else {
		return pn_error(
			-EINVAL,
			"%s: %s: must be a size such as \"64M\" or a number of bytes, not %s", file,
			vpath, pn_json_type_name(v));
	}
	return check_range(o, file, vpath, *bytes);
}

static int check_duration(const struct pn_opt *o, const cJSON *v, const char *file,
			  const char *vpath, double *ms)
{
	char q[96];
	uint64_t m;

	if (cJSON_IsNumber(v)) {
		double d = v->valuedouble;

		if (!isfinite(d) || d < 0 || d > 1e15)
			return pn_error(
				-EINVAL,
				"%s: %s: %g is not a duration (a number is milliseconds, >= 0)",
				file, vpath, d);
		*ms = (double)llround(d);
	} else if (cJSON_IsString(v)) {
		if (pn_parse_duration_ms(v->valuestring, &m))
			return pn_error(-EINVAL,
					"%s: %s: %s is not a duration (examples: 500ms, 2s, 1m; a "
					"bare number is milliseconds)",
					file, vpath, quote(v->valuestring, q, sizeof(q)));
		*ms = (double)m;
	} else {
		return pn_error(-EINVAL,
				"%s: %s: must be a duration such as \"500ms\" or a number of "
				"milliseconds, not %s",
				file, vpath, pn_json_type_name(v));
	}
	return check_range(o, file, vpath, *ms);
}

static int check_enum(const struct pn_opt *o, const cJSON *v, const char *file, const char *vpath)
{
	char list[512], q[96];
	size_t off = 0;

	if (cJSON_IsString(v) && o->choices) {
		for (const char *const *c = o->choices; *c; c++)
			if (!strcmp(*c, v->valuestring))
				return 0;
	}
	list[0] = '\0';
	for (const char *const *c = o->choices; c && *c; c++) {
		int w = snprintf(list + off, sizeof(list) - off, "%s%s", off ? ", " : "", *c);

		if (w < 0 || (size_t)w >= sizeof(list) - off)
			break;
		off += (size_t)w;
	}
	if (!cJSON_IsString(v))
		return pn_error(-EINVAL, "%s: %s: must be one of %s (a string), not %s", file,
				vpath, list, pn_json_type_name(v));
	return pn_error(-EINVAL, "%s: %s: %s is not one of: %s", file, vpath,
			quote(v->valuestring, q, sizeof(q)), list);
}

static int check_nodes(const cJSON *v, const char *file, const char *vpath, cJSON **out)
{
	struct pn_nodeset s;
	char buf[4096], q[96];
	const char *str;

	if (cJSON_IsArray(v))
		return pn_error(
			-EINVAL,
			"%s: %s: a JSON array in params means one matrix point per element, not a "
			"node list: write the list as a string such as \"0,2,5-7\"",
			file, vpath);
	if (cJSON_IsNumber(v))
		return pn_error(-EINVAL,
				"%s: %s: node lists are strings: write \"%g\" (a JSON array in "
				"params means one matrix point per element, so [1,2] is not a node "
				"list either; use \"1,2\")",
				file, vpath, v->valuedouble);
	if (!cJSON_IsString(v))
		return pn_error(-EINVAL,
				"%s: %s: must be \"private\", \"dram\", \"all\" or a node list "
				"such as \"0,2,5-7\", not %s",
				file, vpath, pn_json_type_name(v));
	str = v->valuestring;
	if (!strcmp(str, "private") || !strcmp(str, "dram") || !strcmp(str, "all")) {
		*out = cJSON_CreateString(str);
		return 0;
	}
	if (pn_nodeset_parse(&s, str) || pn_nodeset_empty(&s))
		return pn_error(-EINVAL,
				"%s: %s: %s is not a node list (use \"private\", \"dram\", \"all\" "
				"or node ids such as \"0,2,5-7\", each < %d)",
				file, vpath, quote(str, q, sizeof(q)), PN_MAX_NODES);
	if (pn_nodeset_format(&s, buf, sizeof(buf)))
		return pn_error(-EINVAL, "%s: %s: node list too long", file, vpath);
	*out = cJSON_CreateString(buf);
	return 0;
}

/* Build a cJSON value from a table's default text, typed so that the
 * ordinary checks apply to it. */
static cJSON *default_value(const struct pn_opt *o)
{
	char *end;
	double d;

	switch (o->type) {
	case PN_OPT_BOOL:
		if (!strcmp(o->def, "true") || !strcmp(o->def, "1"))
			return cJSON_CreateBool(1);
		if (!strcmp(o->def, "false") || !strcmp(o->def, "0"))
			return cJSON_CreateBool(0);
		return cJSON_CreateString(o->def); /* rejected by the check */
	case PN_OPT_INT:
	case PN_OPT_DOUBLE:
		d = strtod(o->def, &end);
		if (end == o->def || *end)
			return cJSON_CreateString(o->def);
		return cJSON_CreateNumber(d);
	default: return cJSON_CreateString(o->def);
	}
}

static int check_bool(const cJSON *v, const char *file, const char *vpath, cJSON **out)
{
	if (!cJSON_IsBool(v))
		return pn_error(-EINVAL, "%s: %s: must be true or false, not %s", file, vpath,
				pn_json_type_name(v));
	*out = cJSON_CreateBool(cJSON_IsTrue(v));
	return 0;
}

static int check_int(const struct pn_opt *o, const cJSON *v, const char *file, const char *vpath,
		     cJSON **out)
{
	char text[32], why[160] = "";
	double d;
	int ret;

	if (!cJSON_IsNumber(v))
		return pn_error(-EINVAL, "%s: %s: must be an integer, not %s", file, vpath,
				pn_json_type_name(v));
	d = v->valuedouble;
	if (!isfinite(d) || d != floor(d) || fabs(d) > PN_PARAM_MAX_EXACT)
		return pn_error(-EINVAL, "%s: %s: %g is not an integer", file, vpath, d);
	ret = check_range(o, file, vpath, d);
	if (ret)
		return ret;
	if (o->check) {
		snprintf(text, sizeof(text), "%.0f", d);
		if (o->check(text, why, sizeof(why)))
			return pn_error(-EINVAL, "%s: %s: %g %s", file, vpath, d, why);
	}
	*out = cJSON_CreateNumber(d);
	return 0;
}

static int check_double(const struct pn_opt *o, const cJSON *v, const char *file, const char *vpath,
			cJSON **out)
{
	int ret;

	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return pn_error(-EINVAL, "%s: %s: must be a number, not %s", file, vpath,
				pn_json_type_name(v));
	ret = check_range(o, file, vpath, v->valuedouble);
	if (!ret)
		*out = cJSON_CreateNumber(v->valuedouble);
	return ret;
}

static int check_string(const struct pn_opt *o, const cJSON *v, const char *file, const char *vpath,
			cJSON **out)
{
	char why[256] = "";

	if (!cJSON_IsString(v))
		return pn_error(-EINVAL, "%s: %s: must be a string, not %s", file, vpath,
				pn_json_type_name(v));
	if (o->check && o->check(v->valuestring, why, sizeof(why)))
		return pn_error(-EINVAL, "%s: %s: %s", file, vpath, why);
	*out = cJSON_CreateString(v->valuestring);
	return 0;
}

/* One value checked against its option's type: 0 with *out the canonical
 * value, or an error naming file and path. */
static int check_typed(const struct pn_opt *o, const cJSON *v, const char *file, const char *vpath,
		       cJSON **out)
{
	double d = 0;
	int ret;

	switch (o->type) {
	case PN_OPT_BOOL: return check_bool(v, file, vpath, out);
	case PN_OPT_INT: return check_int(o, v, file, vpath, out);
	case PN_OPT_DOUBLE: return check_double(o, v, file, vpath, out);
	case PN_OPT_SIZE:
		ret = check_size(o, v, file, vpath, &d);
		if (!ret)
			*out = cJSON_CreateNumber(d);
		return ret;
	case PN_OPT_DURATION:
		ret = check_duration(o, v, file, vpath, &d);
		if (!ret)
			*out = cJSON_CreateNumber(d);
		return ret;
	case PN_OPT_STRING: return check_string(o, v, file, vpath, out);
	case PN_OPT_ENUM:
		ret = check_enum(o, v, file, vpath);
		if (!ret)
			*out = cJSON_CreateString(v->valuestring);
		return ret;
	case PN_OPT_NODES: return check_nodes(v, file, vpath, out);
	default:
		return pn_error(-EINVAL, "%s: %s: option table has an unknown type %d", file, vpath,
				(int)o->type);
	}
}

int pn_param_check(const struct pn_opt *o, const struct cJSON *in, const char *file,
		   const char *vpath, struct cJSON **out)
{
	cJSON *def = NULL;
	const cJSON *v = in;
	int ret;

	*out = NULL;
	if (!v) {
		if (!o->def)
			return pn_error(-EINVAL, "%s: %s: required option is missing (%s%s%s)",
					file, vpath, pn_opt_type_name(o->type), o->help ? ": " : "",
					o->help ? o->help : "");
		def = default_value(o);
		if (!def)
			return -ENOMEM;
		v = def;
	}
	ret = check_typed(o, v, file, vpath, out);
	if (!ret && !*out)
		ret = -ENOMEM;
	if (ret && def)
		pn_warn("%s: %s: the default \"%s\" in the option table is invalid", file, vpath,
			o->def);
	cJSON_Delete(def);
	return ret;
}

size_t pn_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64];

	if (la >= PN_ARRAY_SIZE(row) || lb >= PN_ARRAY_SIZE(row))
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

static const struct pn_opt *find_opt(const struct pn_opt *opts, const char *name)
{
	for (const struct pn_opt *o = opts; o && o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

static int unknown_option(const struct pn_opt *opts, const char *key, const char *file,
			  const char *jpath)
{
	char list[1024], hint[128] = "", q[96], k[96];
	const char *best = NULL;
	size_t off = 0, bestd = 3; /* suggest only near misses */

	list[0] = '\0';
	for (const struct pn_opt *o = opts; o && o->name; o++) {
		size_t dist = pn_edit_distance(key, o->name);
		int w = snprintf(list + off, sizeof(list) - off, "%s%s", off ? ", " : "", o->name);

		if (w > 0 && (size_t)w < sizeof(list) - off)
			off += (size_t)w;
		if (dist < bestd) {
			bestd = dist;
			best = o->name;
		}
	}
	if (best)
		snprintf(hint, sizeof(hint), "did you mean \"%s\"? ", best);
	/* the key escaped and cut (it may be 100 KB with newlines) */
	return pn_error(-EINVAL, "%s: %s.%s: unknown option %s; %svalid options: %s", file, jpath,
			bare(key, k, sizeof(k)), quote(key, q, sizeof(q)), hint,
			off ? list : "(none)");
}

int pn_params_resolve(const struct pn_opt *opts, const struct cJSON *in, const char *file,
		      const char *jpath, struct cJSON **out)
{
	const cJSON *it;
	cJSON *res;
	int ret = 0;

	*out = NULL;
	if (in && !cJSON_IsObject(in))
		return pn_error(-EINVAL, "%s: %s: params must be an object, not %s", file, jpath,
				pn_json_type_name(in));
	for (it = in ? in->child : NULL; it; it = it->next) {
		if (!it->string)
			return pn_error(-EINVAL, "%s: %s: malformed object", file, jpath);
		if (!find_opt(opts, it->string))
			return unknown_option(opts, it->string, file, jpath);
		/* cJSON keeps duplicate keys; only the first would count. */
		for (const cJSON *jt = in->child; jt != it; jt = jt->next)
			if (!strcmp(jt->string, it->string)) {
				char q[96];

				return pn_error(-EINVAL, "%s: %s.%s: duplicate key", file, jpath,
						bare(it->string, q, sizeof(q)));
			}
	}
	res = cJSON_CreateObject();
	if (!res)
		return -ENOMEM;
	for (const struct pn_opt *o = opts; o && o->name; o++) {
		char *vpath;
		cJSON *val;

		if (asprintf(&vpath, "%s.%s", jpath, o->name) < 0) {
			ret = -ENOMEM;
			break;
		}
		ret = pn_param_check(o, in ? cJSON_GetObjectItemCaseSensitive(in, o->name) : NULL,
				     file, vpath, &val);
		free(vpath);
		if (ret)
			break;
		cJSON_AddItemToObject(res, o->name, val);
	}
	if (ret) {
		cJSON_Delete(res);
		return ret;
	}
	*out = res;
	return 0;
}

/* ---- accessors: a wrong name or type is a bug in the caller ---- */

static const cJSON *get(const struct pn_params *p, const char *name, enum pn_opt_type t)
{
	const struct pn_opt *o = find_opt(p->opts, name);
	const cJSON *v;

	assert(o && "option not in the table");
	(void)t;
	assert(o && (o->type == t ||
		     (t == PN_OPT_STRING && (o->type == PN_OPT_ENUM || o->type == PN_OPT_NODES)) ||
		     (t == PN_OPT_DOUBLE && (o->type == PN_OPT_INT || o->type == PN_OPT_SIZE ||
					     o->type == PN_OPT_DURATION))));
	v = p->obj ? cJSON_GetObjectItemCaseSensitive(p->obj, name) : NULL;
	assert(v && "params not resolved against this table");
	return v;
}

bool pn_param_bool(const struct pn_params *p, const char *name)
{
	return cJSON_IsTrue(get(p, name, PN_OPT_BOOL));
}

static double num(const cJSON *v)
{
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

int64_t pn_param_int(const struct pn_params *p, const char *name)
{
	return (int64_t)num(get(p, name, PN_OPT_INT));
}

double pn_param_double(const struct pn_params *p, const char *name)
{
	return num(get(p, name, PN_OPT_DOUBLE));
}

uint64_t pn_param_size(const struct pn_params *p, const char *name)
{
	return (uint64_t)num(get(p, name, PN_OPT_SIZE));
}

uint64_t pn_param_duration_ms(const struct pn_params *p, const char *name)
{
	return (uint64_t)num(get(p, name, PN_OPT_DURATION));
}

const char *pn_param_str(const struct pn_params *p, const char *name)
{
	const char *s = cJSON_GetStringValue(get(p, name, PN_OPT_STRING));

	return s ? s : "";
}

int pn_param_nodes(const struct pn_params *p, const char *name, const struct pn_roles *roles,
		   struct pn_nodeset *out)
{
	const char *s = cJSON_GetStringValue(get(p, name, PN_OPT_NODES));

	pn_nodeset_zero(out);
	if (!s)
		return -EINVAL;
	if (!strcmp(s, "private")) {
		*out = roles->private_nodes;
	} else if (!strcmp(s, "dram")) {
		*out = roles->dram_nodes;
	} else if (!strcmp(s, "all")) {
		pn_nodeset_or(out, &roles->private_nodes, &roles->dram_nodes);
	} else if (pn_nodeset_parse(out, s)) {
		pn_nodeset_zero(out);
		return -EINVAL;
	}
	return pn_nodeset_empty(out) ? -EINVAL : 0;
}
