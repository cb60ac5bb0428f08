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
 * This file: loading, the shared field checkers, and the top-level keys
 * (name, description, nodes, iterations, thresholds, limits).  Phases,
 * workloads and collectors are in config_phase.c; matrix axes and the
 * expansion into points in config_matrix.c; the parser state in config_int.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "config_int.h"
#include "config_set.h"
#include "core/api/params.h"
#include "core/lib/utf8.h"

/* A user string made safe for one log line: printable ASCII, bounded. */
const char *pn_cfg_clean(const char *s, char *buf, size_t len)
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

__attribute__((format(printf, 3, 4))) int pn_cfg_perr(const struct parser *ps, const char *jpath,
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
int pn_cfg_check_keys(const struct parser *ps, const cJSON *obj, const char *jpath,
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
					ps->file, jpath, pn_cfg_clean(it->string, k, sizeof(k)),
					list);
		for (const cJSON *jt = obj->child; jt != it; jt = jt->next)
			if (!strcmp(jt->string, it->string))
				return pn_error(-EINVAL, "%s: %s.%s: duplicate key", ps->file,
						jpath, pn_cfg_clean(it->string, k, sizeof(k)));
	}
	return 0;
}

const cJSON *pn_cfg_field(const cJSON *obj, const char *name)
{
	return obj ? cJSON_GetObjectItemCaseSensitive(obj, name) : NULL;
}

int pn_cfg_get_object(const struct parser *ps, const cJSON *v, const char *jpath)
{
	if (!cJSON_IsObject(v))
		return pn_cfg_perr(ps, jpath, "must be an object, not %s", pn_json_type_name(v));
	return 0;
}

int pn_cfg_get_int(const struct parser *ps, const cJSON *v, const char *jpath, int64_t min,
		   int64_t max, int64_t *out)
{
	double d;

	if (!cJSON_IsNumber(v))
		return pn_cfg_perr(ps, jpath, "must be an integer, not %s", pn_json_type_name(v));
	d = v->valuedouble;
	if (!isfinite(d) || d != floor(d))
		return pn_cfg_perr(ps, jpath, "%g is not an integer", d);
	if (d < (double)min || d > (double)max)
		return pn_cfg_perr(ps, jpath, "%g is out of range [%lld, %lld]", d, (long long)min,
				   (long long)max);
	*out = (int64_t)d;
	return 0;
}

int pn_cfg_get_name(const struct parser *ps, const cJSON *v, const char *jpath)
{
	char q[96];
	const char *s;

	if (!v)
		return pn_cfg_perr(ps, jpath, "required, a name made of [a-z0-9_-]");
	if (!cJSON_IsString(v))
		return pn_cfg_perr(ps, jpath, "must be a string, not %s", pn_json_type_name(v));
	s = v->valuestring;
	if (!*s || strlen(s) > PN_CONFIG_NAME_MAX ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(s))
		return pn_cfg_perr(ps, jpath,
				   "\"%s\" is not a valid name (1 to %d characters of [a-z0-9_-])",
				   pn_cfg_clean(s, q, sizeof(q)), PN_CONFIG_NAME_MAX);
	return 0;
}

int pn_cfg_get_duration(const struct parser *ps, const cJSON *v, const char *jpath, uint64_t *ms)
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
			return pn_cfg_perr(
				ps, jpath,
				"\"%s\" is not a node list (use \"auto\", a list such as "
				"\"0,2,5-7\" or [0, 2])",
				pn_cfg_clean(v->valuestring, q, sizeof(q)));
		return 0;
	}
	if (cJSON_IsNumber(v)) {
		int64_t n;
		int ret = pn_cfg_get_int(ps, v, jpath, 0, PN_MAX_NODES - 1, &n);

		if (!ret)
			pn_nodeset_set(set, (int)n);
		return ret;
	}
	if (!cJSON_IsArray(v))
		return pn_cfg_perr(
			ps, jpath,
			"must be \"auto\", a node list string or an array of node ids, not %s",
			pn_json_type_name(v));
	for (const cJSON *e = v->child; e; e = e->next, i++) {
		char ep[160];
		int64_t n;
		int ret;

		snprintf(ep, sizeof(ep), "%s[%d]", jpath, i);
		ret = pn_cfg_get_int(ps, e, ep, 0, PN_MAX_NODES - 1, &n);
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
		ret = pn_cfg_get_object(ps, v, "$.nodes");
		if (!ret)
			ret = pn_cfg_check_keys(ps, v, "$.nodes", keys);
		if (ret)
			return ret;
	}
	ret = parse_node_role(ps, pn_cfg_field(v, "private"), "$.nodes.private", &c->private_auto,
			      &c->private_nodes);
	if (!ret)
		ret = parse_node_role(ps, pn_cfg_field(v, "dram"), "$.nodes.dram", &c->dram_auto,
				      &c->dram_nodes);
	if (ret)
		return ret;
	pn_nodeset_and(&both, &c->private_nodes, &c->dram_nodes);
	if (!pn_nodeset_empty(&both)) {
		if (pn_nodeset_format(&both, buf, sizeof(buf)))
			snprintf(buf, sizeof(buf), "several");
		return pn_cfg_perr(ps, "$.nodes", "node(s) %s cannot be both private and dram",
				   buf);
	}
	return 0;
}

static int get_threshold(const struct parser *ps, const cJSON *v, const char *jpath, int64_t *out)
{
	double d;

	if (!v)
		return 0;
	if (!cJSON_IsNumber(v))
		return pn_cfg_perr(ps, jpath,
				   "must be an integer page count (>= 0, or -1 to report without a "
				   "verdict), not %s",
				   pn_json_type_name(v));
	d = v->valuedouble;
	if (!isfinite(d) || d != floor(d) || d < -1 || d > PN_MAX_EXACT)
		return pn_cfg_perr(
			ps, jpath,
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
	ret = pn_cfg_get_object(ps, v, "$.thresholds");
	if (!ret)
		ret = pn_cfg_check_keys(ps, v, "$.thresholds", keys);
	if (!ret)
		ret = get_threshold(ps, pn_cfg_field(v, "general_pages"),
				    "$.thresholds.general_pages", &ps->tmpl.max_general_pages);
	if (!ret)
		ret = get_threshold(ps, pn_cfg_field(v, "misplaced_pages"),
				    "$.thresholds.misplaced_pages", &ps->tmpl.max_misplaced_pages);
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
	ret = pn_cfg_get_object(ps, v, "$.limits");
	if (!ret)
		ret = pn_cfg_check_keys(ps, v, "$.limits", keys);
	if (ret)
		return ret;
	s = pn_cfg_field(v, "max_mem_share");
	if (!s)
		return 0;
	if (!cJSON_IsNumber(s))
		return pn_cfg_perr(ps, "$.limits.max_mem_share", "must be a number, not %s",
				   pn_json_type_name(s));
	if (!(s->valuedouble > 0 && s->valuedouble <= PN_MEM_SHARE_MAX))
		return pn_cfg_perr(
			ps, "$.limits.max_mem_share",
			"%g is out of range (0, %g]: the share of MemAvailable workloads may use",
			s->valuedouble, PN_MEM_SHARE_MAX);
	ps->tmpl.max_mem_share = s->valuedouble;
	return 0;
}

/* "verdict": {"require": ["events"]}: the sources the verdict must have. */
static int parse_verdict(struct parser *ps, const cJSON *v)
{
	static const char *const keys[] = { "require", NULL };
	const cJSON *req, *e;
	int ret, i = 0;

	ps->tmpl.require_events = false;
	if (!v)
		return 0;
	ret = pn_cfg_get_object(ps, v, "$.verdict");
	if (!ret)
		ret = pn_cfg_check_keys(ps, v, "$.verdict", keys);
	if (ret)
		return ret;
	req = pn_cfg_field(v, "require");
	if (!req)
		return 0;
	if (!cJSON_IsArray(req))
		return pn_cfg_perr(ps, "$.verdict.require",
				   "must be an array of sources (\"events\"), not %s",
				   pn_json_type_name(req));
	cJSON_ArrayForEach (e, req) {
		char path[48], q[96];

		snprintf(path, sizeof(path), "$.verdict.require[%d]", i++);
		if (!cJSON_IsString(e))
			return pn_cfg_perr(ps, path, "must be a source name (\"events\"), not %s",
					   pn_json_type_name(e));
		if (strcmp(e->valuestring, "events") != 0)
			return pn_cfg_perr(ps, path, "unknown source \"%s\" (known: events)",
					   pn_cfg_clean(e->valuestring, q, sizeof(q)));
		ps->tmpl.require_events = true;
	}
	if (ps->tmpl.require_events && ps->tmpl.events_off)
		return pn_cfg_perr(ps, "$.verdict.require",
				   "requires events, but $.collectors.events is \"off\"");
	return 0;
}

static int parse_top(struct parser *ps)
{
	static const char *const keys[] = {
		"name",	      "description", "nodes",  "iterations", "collectors", "phases",
		"background", "thresholds",  "limits", "verdict",    NULL,
	};
	const cJSON *r = ps->root, *v;
	int64_t it = 1;
	int ret;

	if (!cJSON_IsObject(r))
		return pn_cfg_perr(ps, "$", "a config must be a JSON object, not %s",
				   pn_json_type_name(r));
	ret = pn_cfg_check_keys(ps, r, "$", keys);
	if (!ret)
		ret = pn_cfg_get_name(ps, pn_cfg_field(r, "name"), "$.name");
	if (ret)
		return ret;
	ps->tmpl.name = pn_cfg_field(r, "name")->valuestring;
	v = pn_cfg_field(r, "description");
	if (v && !cJSON_IsString(v))
		return pn_cfg_perr(ps, "$.description", "must be a string, not %s",
				   pn_json_type_name(v));
	ps->tmpl.description = v ? v->valuestring : "";
	ret = parse_nodes(ps, pn_cfg_field(r, "nodes"));
	if (ret)
		return ret;
	if (pn_cfg_field(r, "iterations")) {
		ret = pn_cfg_get_int(ps, pn_cfg_field(r, "iterations"), "$.iterations", 1,
				     PN_CONFIG_ITER_MAX, &it);
		if (ret)
			return ret;
	}
	ps->tmpl.iterations = (int)it;
	ret = pn_cfg_parse_collectors(ps, pn_cfg_field(r, "collectors"));
	if (!ret)
		ret = pn_cfg_parse_phases(ps, pn_cfg_field(r, "phases"));
	if (ret)
		return ret;
	if (pn_cfg_field(r, "background")) {
		ret = pn_cfg_parse_wl_list(ps, pn_cfg_field(r, "background"), "$.background",
					   &ps->bg, &ps->nbg);
		if (ret)
			return ret;
	}
	ret = parse_thresholds(ps, pn_cfg_field(r, "thresholds"));
	if (!ret)
		ret = parse_limits(ps, pn_cfg_field(r, "limits"));
	if (!ret)
		ret = parse_verdict(ps, pn_cfg_field(r, "verdict"));
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
	mark_nul_escapes(text, len);
	ps.root = cJSON_ParseWithOpts(text, &end, 1);
	if (!ps.root && end && nesting_at(text, end + 1) > CJSON_NESTING_LIMIT) {
		ret = pn_error(-EINVAL, "%s: arrays and objects nested deeper than %d levels",
			       ps.file, CJSON_NESTING_LIMIT);
		free(text);
		return ret;
	}
	if (!ps.root) {
		ret = json_error(ps.file, text, len, end);
		free(text);
		return ret;
	}
	free(text);
	/* Strings end up in run.json, which must be valid JSON, i.e. UTF-8. */
	ret = pn_config_apply_overrides(ps.root); /* run --set, checked as the file is */
	if (!ret)
		ret = pn_json_check_utf8(ps.root, ps.file, "$");
	if (!ret)
		ret = parse_top(&ps);
	if (!ret)
		ret = pn_cfg_expand(&ps, out);
	parser_free(&ps);
	if (ret)
		pn_config_set_free(out);
	return ret;
}

int pn_config_load(const char *path, struct pn_config_set *out)
{
	char *buf = NULL;
	size_t len = 0;
	struct stat st;
	FILE *f;
	int ret, fd;

	out->n = 0;
	out->points = NULL;
	/* O_NONBLOCK: a FIFO named as the config must not block the open */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		return pn_error(ret, "cannot open config %s: %s", path, strerror(-ret));
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return pn_error(-EINVAL, "config %s is not a regular file", path);
	}
	f = fdopen(fd, "r");
	if (!f) {
		ret = -errno;
		close(fd);
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
			for (size_t k = 0; k < c->phases[i].nknobs; k++) {
				free(c->phases[i].knobs[k].key);
				free(c->phases[i].knobs[k].value);
			}
			free(c->phases[i].knobs);
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
