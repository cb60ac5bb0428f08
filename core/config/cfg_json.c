// SPDX-License-Identifier: GPL-2.0-only
/*
 * cfg_json.c - the JSON layer under the config parser: the config text
 * parsed into a tree (an error names file, line and column), and the field
 * getters config.c, config_phase.c and config_matrix.c check every value
 * with (an error names the file and the JSON path).  It calls nothing of
 * theirs: the parser's files call down into it, never the reverse.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cfg_json.h"
#include "core/api/params.h"
#include "core/lib/utf8.h"

const char *pn_cfg_clean(const char *s, char *buf, size_t len)
{
	return pn_escape(s, buf, len, 60);
}

__attribute__((format(printf, 3, 4))) int pn_cfg_perr(const char *file, const char *jpath,
						      const char *fmt, ...)
{
	char msg[1536];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return pn_error(-EINVAL, "%s: %s: %s", file, jpath, msg);
}

int pn_cfg_check_keys(const char *file, const cJSON *obj, const char *jpath,
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
					file, jpath, pn_cfg_clean(it->string, k, sizeof(k)), list);
		for (const cJSON *jt = obj->child; jt != it; jt = jt->next)
			if (!strcmp(jt->string, it->string))
				return pn_error(-EINVAL, "%s: %s.%s: duplicate key", file, jpath,
						pn_cfg_clean(it->string, k, sizeof(k)));
	}
	return 0;
}

const cJSON *pn_cfg_field(const cJSON *obj, const char *name)
{
	return obj ? cJSON_GetObjectItemCaseSensitive(obj, name) : NULL;
}

int pn_cfg_get_object(const char *file, const cJSON *v, const char *jpath)
{
	if (!cJSON_IsObject(v))
		return pn_cfg_perr(file, jpath, "must be an object, not %s", pn_json_type_name(v));
	return 0;
}

int pn_cfg_get_int(const char *file, const cJSON *v, const char *jpath, int64_t min, int64_t max,
		   int64_t *out)
{
	double d;

	if (!cJSON_IsNumber(v))
		return pn_cfg_perr(file, jpath, "must be an integer, not %s", pn_json_type_name(v));
	d = v->valuedouble;
	if (!isfinite(d) || d != floor(d))
		return pn_cfg_perr(file, jpath, "%g is not an integer", d);
	if (d < (double)min || d > (double)max)
		return pn_cfg_perr(file, jpath, "%g is out of range [%lld, %lld]", d,
				   (long long)min, (long long)max);
	*out = (int64_t)d;
	return 0;
}

int pn_cfg_get_name(const char *file, const cJSON *v, const char *jpath)
{
	char q[96];
	const char *s;

	if (!v)
		return pn_cfg_perr(file, jpath, "required, a name made of [a-z0-9_-]");
	if (!cJSON_IsString(v))
		return pn_cfg_perr(file, jpath, "must be a string, not %s", pn_json_type_name(v));
	s = v->valuestring;
	if (!*s || strlen(s) > PN_CONFIG_NAME_MAX ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(s))
		return pn_cfg_perr(file, jpath,
				   "\"%s\" is not a valid name (1 to %d characters of [a-z0-9_-])",
				   pn_cfg_clean(s, q, sizeof(q)), PN_CONFIG_NAME_MAX);
	return 0;
}

int pn_cfg_get_duration(const char *file, const cJSON *v, const char *jpath, uint64_t *ms)
{
	static const struct pn_opt opt = {
		.name = "interval",
		.type = PN_OPT_DURATION,
		.def = NULL,
		.min = PN_COLL_INTERVAL_MIN_MS,
		.max = PN_COLL_INTERVAL_MAX_MS,
	};
	cJSON *c;
	int ret = pn_param_check(&opt, v, file, jpath, &c);

	if (ret)
		return ret;
	*ms = (uint64_t)c->valuedouble;
	cJSON_Delete(c);
	return 0;
}

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
				file, line, col, line, col, pn_cfg_clean(raw, near, sizeof(near)));
	return pn_error(-EINVAL, "%s:%u:%u: invalid JSON at line %u, column %u (%s)", file, line,
			col, line, col,
			off >= len	   ? "unexpected end of file"
			: buf[off] == '\0' ? "a NUL byte"
					   : "at the end of the line");
}

/*
 * cJSON decodes "\u0000" into a C string that ends there: the rest of the
 * value would silently vanish.  Rewrite each such escape (same length) to
 * "\uffff", a noncharacter no config has, which pn_json_check_utf8() then
 * refuses with the value's JSON path.
 */
static void mark_nul_escapes(char *t, size_t len)
{
	bool in_str = false;

	for (size_t i = 0; i < len; i++) {
		if (!in_str) {
			in_str = t[i] == '"';
			continue;
		}
		if (t[i] == '"') {
			in_str = false;
		} else if (t[i] == '\\' && i + 1 < len) {
			if (t[i + 1] == 'u' && i + 5 < len && !strncmp(t + i + 2, "0000", 4))
				memset(t + i + 2, 'f', 4);
			i++; /* the escaped character */
		}
	}
}

/* How deep arrays and objects nest before `end` (outside strings). */
static int nesting_at(const char *t, const char *end)
{
	bool in_str = false;
	int depth = 0, max = 0;

	for (const char *p = t; p < end && *p; p++) {
		if (in_str) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				in_str = false;
		} else if (*p == '"') {
			in_str = true;
		} else if (*p == '[' || *p == '{') {
			max = ++depth > max ? depth : max;
		} else if (*p == ']' || *p == '}') {
			depth--;
		}
	}
	return max;
}

int pn_cfg_json_parse(const char *buf, size_t len, const char *file, cJSON **root)
{
	const char *end = NULL;
	char *text;
	int ret;

	*root = NULL;
	if (memchr(buf, '\0', len))
		return json_error(file, buf, len, memchr(buf, '\0', len));
	/* cJSON wants a NUL-terminated string; fuzzers give bare bytes. */
	text = pn_xmalloc(len + 1);
	memcpy(text, buf, len);
	text[len] = '\0';
	mark_nul_escapes(text, len);
	*root = cJSON_ParseWithOpts(text, &end, 1);
	if (!*root && end && nesting_at(text, end + 1) > CJSON_NESTING_LIMIT) {
		ret = pn_error(-EINVAL, "%s: arrays and objects nested deeper than %d levels", file,
			       CJSON_NESTING_LIMIT);
		free(text);
		return ret;
	}
	if (!*root) {
		ret = json_error(file, text, len, end);
		free(text);
		return ret;
	}
	free(text);
	/* Strings end up in run.json, which must be valid JSON, i.e. UTF-8. */
	ret = pn_json_check_utf8(*root, file, "$");
	if (ret) {
		cJSON_Delete(*root);
		*root = NULL;
	}
	return ret;
}
