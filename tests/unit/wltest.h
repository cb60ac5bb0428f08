/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wltest.h - a workload under unit test: its parameters resolved through its
 * own option table, roles, topology and result tree, set up as the runner
 * does; and lookups into the result tree.  Header only (static inline), for
 * cmocka tests: include after <cmocka.h>.
 */
#ifndef PN_WLTEST_H
#define PN_WLTEST_H

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/api/params.h"
#include "core/lib/pn.h"
#include "core/api/workload.h"

struct wlt {
	struct pn_wl w;
	struct pn_roles roles;
	cJSON *obj;
};

/*
 * in: the parameters as given in a config (consumed); dram, priv: node lists
 * of the roles (NULL: none); topo may be NULL.
 */
static inline void wlt_init_obj(struct wlt *c, const struct pn_workload *wl, cJSON *in,
				const char *dram, const char *priv, struct pn_topology *topo)
{
	assert_non_null(in);
	memset(c, 0, sizeof(*c));
	assert_int_equal(pn_params_resolve(wl->opts, in, "test", "$.params", &c->obj), 0);
	cJSON_Delete(in);
	if (dram)
		assert_int_equal(pn_nodeset_parse(&c->roles.dram_nodes, dram), 0);
	if (priv)
		assert_int_equal(pn_nodeset_parse(&c->roles.private_nodes, priv), 0);
	c->w.ops = wl;
	c->w.params.opts = wl->opts;
	c->w.params.obj = c->obj;
	c->w.roles = &c->roles;
	c->w.topo = topo;
	pn_res_init(&c->w.res, wl->metrics, wl->name);
}

static inline void wlt_init(struct wlt *c, const struct pn_workload *wl, const char *json,
			    const char *dram, const char *priv, struct pn_topology *topo)
{
	wlt_init_obj(c, wl, cJSON_Parse(json), dram, priv, topo);
}

/* The runner's teardown (after the child's, when child_too), then the frees. */
static inline void wlt_fini(struct wlt *c, bool child_too)
{
	if (child_too) {
		c->w.in_child = true;
		c->w.ops->teardown(&c->w);
		c->w.in_child = false;
	}
	c->w.ops->teardown(&c->w);
	assert_null(c->w.priv);
	pn_res_free(&c->w.res);
	cJSON_Delete(c->obj);
}

/*
 * The first item of the result tree's array (metrics, tables, checks) whose
 * "name" is name, or (prefix) starts with it; NULL when there is none.
 */
static inline const cJSON *wlt_find(const struct pn_res *r, const char *array, const char *name,
				    bool prefix)
{
	const cJSON *t;

	cJSON_ArrayForEach (t, cJSON_GetObjectItem(r->root, array)) {
		const char *n = cJSON_GetObjectItem(t, "name")->valuestring;

		if (prefix ? !strncmp(n, name, strlen(name)) : !strcmp(n, name))
			return t;
	}
	return NULL;
}

/* The first check whose name starts with prefix, or NULL. */
static inline const cJSON *wlt_check(const struct pn_res *r, const char *prefix)
{
	return wlt_find(r, "checks", prefix, true);
}

/* A table by name; fails the test when missing. */
static inline const cJSON *wlt_table(const struct pn_res *r, const char *name)
{
	const cJSON *t = wlt_find(r, "tables", name, false);

	if (!t)
		fail_msg("table %s missing", name);
	return t;
}

/* The value of metric name whose label lk is lv (lk NULL: the first by that
 * name; lv NULL: one without that label); fails the test when missing. */
static inline double wlt_mval(const struct pn_res *r, const char *name, const char *lk,
			      const char *lv)
{
	const cJSON *m;

	cJSON_ArrayForEach (m, cJSON_GetObjectItem(r->root, "metrics")) {
		const cJSON *l =
			lk ? cJSON_GetObjectItem(cJSON_GetObjectItem(m, "labels"), lk) : NULL;

		if (strcmp(cJSON_GetObjectItem(m, "name")->valuestring, name) != 0)
			continue;
		bool match = !lk || (!lv && !l);

		if (lk && lv && l)
			match = !strcmp(l->valuestring, lv);
		if (match)
			return cJSON_GetObjectItem(m, "value")->valuedouble;
	}
	fail_msg("metric %s{%s=%s} missing", name, lk ? lk : "", lv ? lv : "");
	return 0;
}

/* Does any note contain text? */
static inline bool wlt_note_has(const struct pn_res *r, const char *text)
{
	const cJSON *n;

	cJSON_ArrayForEach (n, cJSON_GetObjectItem(r->root, "notes"))
		if (strstr(n->valuestring, text))
			return true;
	return false;
}

/* Run fn with stderr captured into buf (for checking error messages). */
static inline int wlt_capture_stderr(int (*fn)(struct pn_wl *), struct pn_wl *w, char *buf,
				     size_t len)
{
	FILE *tmp = tmpfile();
	int saved = dup(2), ret;
	size_t n;

	assert_non_null(tmp);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	pn_log_level = PN_LOG_ERROR;
	ret = fn(w);
	pn_log_level = PN_LOG_QUIET;
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, len - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
	return ret;
}

#endif /* PN_WLTEST_H */
