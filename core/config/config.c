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
				ps->file, jpath,
				"\"%s\" is not a node list (use \"auto\", a list such as "
				"\"0,2,5-7\" or [0, 2])",
				pn_cfg_clean(v->valuestring, q, sizeof(q)));
		return 0;
	}
	if (cJSON_IsNumber(v)) {
		int64_t n;
		int ret = pn_cfg_get_int(ps->file, v, jpath, 0, PN_MAX_NODES - 1, &n);

		if (!ret)
			pn_nodeset_set(set, (int)n);
		return ret;
	}
	if (!cJSON_IsArray(v))
		return pn_cfg_perr(
			ps->file, jpath,
			"must be \"auto\", a node list string or an array of node ids, not %s",
			pn_json_type_name(v));
	for (const cJSON *e = v->child; e; e = e->next, i++) {
		char ep[160];
		int64_t n;
		int ret;

		snprintf(ep, sizeof(ep), "%s[%d]", jpath, i);
		ret = pn_cfg_get_int(ps->file, e, ep, 0, PN_MAX_NODES - 1, &n);
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
		ret = pn_cfg_get_object(ps->file, v, "$.nodes");
		if (!ret)
			ret = pn_cfg_check_keys(ps->file, v, "$.nodes", keys);
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
		return pn_cfg_perr(ps->file, "$.nodes",
				   "node(s) %s cannot be both private and dram", buf);
	}
	return 0;
}

static int get_threshold(const struct parser *ps, const cJSON *v, const char *jpath, int64_t *out)
{
	double d;

	if (!v)
		return 0;
	if (!cJSON_IsNumber(v))
		return pn_cfg_perr(ps->file, jpath,
				   "must be an integer page count (>= 0, or -1 to report without a "
				   "verdict), not %s",
				   pn_json_type_name(v));
	d = v->valuedouble;
	if (!isfinite(d) || d != floor(d) || d < -1 || d > PN_MAX_EXACT)
		return pn_cfg_perr(
			ps->file, jpath,
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
	ret = pn_cfg_get_object(ps->file, v, "$.thresholds");
	if (!ret)
		ret = pn_cfg_check_keys(ps->file, v, "$.thresholds", keys);
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
	ret = pn_cfg_get_object(ps->file, v, "$.limits");
	if (!ret)
		ret = pn_cfg_check_keys(ps->file, v, "$.limits", keys);
	if (ret)
		return ret;
	s = pn_cfg_field(v, "max_mem_share");
	if (!s)
		return 0;
	if (!cJSON_IsNumber(s))
		return pn_cfg_perr(ps->file, "$.limits.max_mem_share", "must be a number, not %s",
				   pn_json_type_name(s));
	if (!(s->valuedouble > 0 && s->valuedouble <= PN_MEM_SHARE_MAX))
		return pn_cfg_perr(
			ps->file, "$.limits.max_mem_share",
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
	ret = pn_cfg_get_object(ps->file, v, "$.verdict");
	if (!ret)
		ret = pn_cfg_check_keys(ps->file, v, "$.verdict", keys);
	if (ret)
		return ret;
	req = pn_cfg_field(v, "require");
	if (!req)
		return 0;
	if (!cJSON_IsArray(req))
		return pn_cfg_perr(ps->file, "$.verdict.require",
				   "must be an array of sources (\"events\"), not %s",
				   pn_json_type_name(req));
	cJSON_ArrayForEach (e, req) {
		char path[48], q[96];

		snprintf(path, sizeof(path), "$.verdict.require[%d]", i++);
		if (!cJSON_IsString(e))
			return pn_cfg_perr(ps->file, path,
					   "must be a source name (\"events\"), not %s",
					   pn_json_type_name(e));
		if (strcmp(e->valuestring, "events") != 0)
			return pn_cfg_perr(ps->file, path, "unknown source \"%s\" (known: events)",
					   pn_cfg_clean(e->valuestring, q, sizeof(q)));
		ps->tmpl.require_events = true;
	}
	if (ps->tmpl.require_events && ps->tmpl.events_off)
		return pn_cfg_perr(ps->file, "$.verdict.require",
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
		return pn_cfg_perr(ps->file, "$", "a config must be a JSON object, not %s",
				   pn_json_type_name(r));
	ret = pn_cfg_check_keys(ps->file, r, "$", keys);
	if (!ret)
		ret = pn_cfg_get_name(ps->file, pn_cfg_field(r, "name"), "$.name");
	if (ret)
		return ret;
	ps->tmpl.name = pn_cfg_field(r, "name")->valuestring;
	v = pn_cfg_field(r, "description");
	if (v && !cJSON_IsString(v))
		return pn_cfg_perr(ps->file, "$.description", "must be a string, not %s",
				   pn_json_type_name(v));
	ps->tmpl.description = v ? v->valuestring : "";
	ret = parse_nodes(ps, pn_cfg_field(r, "nodes"));
	if (ret)
		return ret;
	if (pn_cfg_field(r, "iterations")) {
		ret = pn_cfg_get_int(ps->file, pn_cfg_field(r, "iterations"), "$.iterations", 1,
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
	int ret;

	out->n = 0;
	out->points = NULL;
	if (len > PN_CONFIG_MAX_BYTES)
		return pn_error(-EINVAL, "%s: too large (%zu bytes, at most %d)", ps.file, len,
				PN_CONFIG_MAX_BYTES);
	ret = pn_cfg_json_parse(buf, len, ps.file, &ps.root);
	if (!ret)
		ret = pn_config_apply_overrides(ps.root); /* run --set, checked as the file is */
	/* Strings end up in run.json, which must be valid JSON, i.e. UTF-8. */
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
