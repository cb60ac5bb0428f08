// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_config.c - suite configs: defaults, nodes, collectors, matrix
 * expansion, canonical "resolved" objects, error messages (file, JSON path,
 * line/column), every broken config in tests/configs-bad/ against its
 * expected message, and every shipped config in configs/.
 *
 * Uses the real registry: the workload "explicit" (options size, policy,
 * nodes) and the collectors vmstat, nodestat, zoneinfo.  A test whose
 * workload or option is missing from this build SKIPs and says why.
 */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "capture.h"
#include "core/config/config.h"
#include "core/api/params.h"
#include "core/lib/utf8.h"

static char srcdir[PATH_MAX];

/* ---- helpers ---- */

/* snprintf that fails the test instead of truncating */
#define fmt(buf, ...)                                                                              \
	do {                                                                                       \
		int n_ = snprintf((buf), sizeof(buf), __VA_ARGS__);                                \
		if (n_ < 0 || (size_t)n_ >= sizeof(buf))                                           \
			fail_msg("path or message too long for %s", #buf);                         \
	} while (0)

static bool wl_has_opt(const char *wl, const char *opt)
{
	const struct pn_workload *w = pn_workload_find(wl);

	if (!w)
		return false;
	for (const struct pn_opt *o = w->opts; o && o->name; o++)
		if (!strcmp(o->name, opt))
			return true;
	return false;
}

/* The registry entries these tests rely on; false (with a message) if
 * this build lacks them. */
static bool have_registry(void)
{
	static const char *const opts[] = { "size", "policy", "nodes" };
	static const char *const colls[] = { "vmstat", "nodestat", "zoneinfo" };

	for (size_t i = 0; i < PN_ARRAY_SIZE(opts); i++) {
		if (!wl_has_opt("explicit", opts[i])) {
			print_message("skip: this build has no workload \"explicit\" with option "
				      "\"%s\"\n",
				      opts[i]);
			return false;
		}
	}
	for (size_t i = 0; i < PN_ARRAY_SIZE(colls); i++) {
		if (!pn_collector_find(colls[i])) {
			print_message("skip: this build has no collector \"%s\"\n", colls[i]);
			return false;
		}
	}
	return true;
}

#define NEED_REGISTRY()                                                                            \
	do {                                                                                       \
		if (!have_registry()) {                                                            \
			skip();                                                                    \
			return;                                                                    \
		}                                                                                  \
	} while (0)

static int parse(const char *json, struct pn_config_set *cs, const char **msg)
{
	int ret;

	capture_begin();
	ret = pn_config_parse(json, strlen(json), "t.json", cs);
	*msg = capture_end();
	return ret;
}

static void parse_ok(const char *json, struct pn_config_set *cs)
{
	const char *msg;
	int ret = parse(json, cs, &msg);

	if (ret)
		fail_msg("unexpected error %d: %s\nconfig: %s", ret, msg, json);
	assert_string_equal(msg, "");
	assert_true(cs->n >= 1);
}

static void parse_err(const char *json, const char *substr)
{
	struct pn_config_set cs = { .n = 99 };
	const char *msg;
	int ret = parse(json, &cs, &msg);

	assert_int_equal(ret, -EINVAL);
	assert_int_equal(cs.n, 0);
	assert_null(cs.points);
	if (!strstr(msg, substr))
		fail_msg("error was: %s  expected to contain: %s", msg, substr);
	assert_non_null(strstr(msg, "pnbench: error: t.json"));
}

static const cJSON *jget(const cJSON *o, const char *path)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && o; tok = strtok_r(NULL, ".", &save)) {
		char *end;
		long idx = strtol(tok, &end, 10);

		if (*end == '\0')
			o = cJSON_GetArrayItem(o, (int)idx);
		else
			o = cJSON_GetObjectItemCaseSensitive(o, tok);
	}
	if (!o)
		fail_msg("no %s", path);
	return o;
}

static double jnum(const cJSON *o, const char *path)
{
	const cJSON *v = jget(o, path);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static const char *jstr(const cJSON *o, const char *path)
{
	const cJSON *v = jget(o, path);

	assert_true(cJSON_IsString(v));
	return v->valuestring;
}

static const char *nodes_fmt(const struct pn_nodeset *s)
{
	static char buf[256];

	assert_int_equal(pn_nodeset_format(s, buf, sizeof(buf)), 0);
	return buf;
}

#define MINIMAL_PHASES                                                                             \
	"\"phases\": [{\"name\": \"a\", \"workloads\": [{\"workload\": \"explicit\"}]}]"

/* ---- tests ---- */

static void test_minimal_defaults(void **state)
{
	struct pn_config_set cs;
	const struct pn_config *c;

	(void)state;
	NEED_REGISTRY();
	parse_ok("{\"name\": \"t\", " MINIMAL_PHASES "}", &cs);
	assert_int_equal(cs.n, 1);
	c = &cs.points[0];
	assert_string_equal(c->file, "t.json");
	assert_string_equal(c->name, "t");
	assert_string_equal(c->description, "");
	assert_true(c->private_auto);
	assert_true(c->dram_auto);
	assert_int_equal(c->iterations, 1);
	/* "events": "auto" by default: the perf collector, not listed */
	assert_false(c->events_off);
	assert_false(c->require_events);
	assert_int_equal(c->ncoll, 1);
	assert_string_equal(c->coll[0].ops->name, "perf");
	assert_true(c->coll[0].automatic);
	assert_int_equal(c->interval_ms, 200);
	assert_int_equal(c->max_general_pages, 0);
	assert_int_equal(c->max_misplaced_pages, -1);
	assert_true(c->max_mem_share == 0.5);
	assert_int_equal(c->nphases, 1);
	assert_string_equal(c->phases[0].name, "a");
	assert_int_equal(c->phases[0].nwl, 1);
	assert_ptr_equal(c->phases[0].wl[0].ops, pn_workload_find("explicit"));
	assert_string_equal(c->phases[0].wl[0].jpath, "$.phases[0].workloads[0]");
	/* params canonical with every option present */
	for (const struct pn_opt *o = c->phases[0].wl[0].ops->opts; o && o->name; o++)
		assert_non_null(
			cJSON_GetObjectItemCaseSensitive(c->phases[0].wl[0].params, o->name));
	assert_int_equal(c->nbackground, 0);
	assert_null(c->matrix_point);
	assert_non_null(c->resolved);
	assert_string_equal(jstr(c->resolved, "nodes.private"), "auto");
	assert_string_equal(jstr(c->resolved, "nodes.dram"), "auto");
	assert_true(jnum(c->resolved, "iterations") == 1);
	assert_true(jnum(c->resolved, "collectors.interval") == 200);
	assert_true(jnum(c->resolved, "thresholds.general_pages") == 0);
	assert_true(jnum(c->resolved, "thresholds.misplaced_pages") == -1);
	assert_true(jnum(c->resolved, "limits.max_mem_share") == 0.5);
	assert_string_equal(jstr(c->resolved, "phases.0.workloads.0.workload"), "explicit");
	pn_config_set_free(&cs);
	assert_int_equal(cs.n, 0);
}

static void test_full_config(void **state)
{
	static const char json[] =
		"{\"name\": \"full_1-x\", \"description\": \"all fields\","
		" \"nodes\": {\"private\": [2, 5], \"dram\": \"0\"},"
		" \"iterations\": 7,"
		" \"collectors\": {\"interval\": \"1s\", \"enabled\": [\"vmstat\","
		"   {\"name\": \"zoneinfo\", \"interval\": 50, \"params\": {}}, {\"name\": "
		"\"nodestat\"}]},"
		" \"phases\": [{\"name\": \"one\", \"workloads\": [{\"workload\": \"explicit\","
		"   \"params\": {\"size\": \"2M\", \"policy\": \"preferred\", \"nodes\": "
		"\"dram\"}}]},"
		"   {\"name\": \"idle\", \"workloads\": []}],"
		" \"background\": [{\"workload\": \"explicit\", \"params\": {\"size\": 8192}}],"
		" \"thresholds\": {\"general_pages\": 16, \"misplaced_pages\": 0},"
		" \"limits\": {\"max_mem_share\": 0.25}}";
	struct pn_config_set cs;
	const struct pn_config *c;
	struct pn_params p;

	(void)state;
	NEED_REGISTRY();
	parse_ok(json, &cs);
	assert_int_equal(cs.n, 1);
	c = &cs.points[0];
	assert_string_equal(c->name, "full_1-x");
	assert_string_equal(c->description, "all fields");
	assert_false(c->private_auto);
	assert_string_equal(nodes_fmt(&c->private_nodes), "2,5");
	assert_false(c->dram_auto);
	assert_string_equal(nodes_fmt(&c->dram_nodes), "0");
	assert_int_equal(c->iterations, 7);
	assert_int_equal(c->interval_ms, 1000);
	assert_int_equal(c->ncoll, 4); /* + perf, added by "events": "auto" */
	assert_true(c->coll[3].automatic);
	assert_false(c->coll[0].automatic);
	assert_string_equal(c->coll[0].ops->name, "vmstat");
	assert_int_equal(c->coll[0].interval_ms, 1000); /* inherits the default */
	assert_string_equal(c->coll[1].ops->name, "zoneinfo");
	assert_int_equal(c->coll[1].interval_ms, 50);
	assert_string_equal(c->coll[2].ops->name, "nodestat");
	assert_non_null(c->coll[2].params);
	assert_int_equal(c->nphases, 2);
	assert_int_equal(c->phases[1].nwl, 0);
	p = (struct pn_params){ .opts = c->phases[0].wl[0].ops->opts,
				.obj = c->phases[0].wl[0].params };
	assert_int_equal(pn_param_size(&p, "size"), 2 << 20);
	assert_string_equal(pn_param_str(&p, "policy"), "preferred");
	assert_string_equal(pn_param_str(&p, "nodes"), "dram");
	assert_int_equal(c->nbackground, 1);
	assert_string_equal(c->background[0].jpath, "$.background[0]");
	assert_true(jnum(c->background[0].params, "size") == 8192);
	assert_int_equal(c->max_general_pages, 16);
	assert_int_equal(c->max_misplaced_pages, 0);
	assert_true(c->max_mem_share == 0.25);
	assert_string_equal(jstr(c->resolved, "nodes.private"), "2,5");
	assert_string_equal(jstr(c->resolved, "collectors.enabled.1.name"), "zoneinfo");
	assert_true(jnum(c->resolved, "collectors.enabled.1.interval") == 50);
	assert_string_equal(jstr(c->resolved, "background.0.workload"), "explicit");
	pn_config_set_free(&cs);
}

static void nodes_case(const char *nodes, bool pauto, const char *priv, bool dauto,
		       const char *dram)
{
	char json[512];
	struct pn_config_set cs;

	snprintf(json, sizeof(json), "{\"name\": \"n\", \"nodes\": %s, " MINIMAL_PHASES "}", nodes);
	parse_ok(json, &cs);
	assert_int_equal(cs.points[0].private_auto, pauto);
	assert_string_equal(nodes_fmt(&cs.points[0].private_nodes), priv);
	assert_int_equal(cs.points[0].dram_auto, dauto);
	assert_string_equal(nodes_fmt(&cs.points[0].dram_nodes), dram);
	pn_config_set_free(&cs);
}

static void test_nodes(void **state)
{
	(void)state;
	NEED_REGISTRY();
	nodes_case("{}", true, "", true, "");
	nodes_case("{\"private\": \"auto\", \"dram\": \"auto\"}", true, "", true, "");
	nodes_case("{\"private\": \"1,2\"}", false, "1-2", true, "");
	nodes_case("{\"private\": [5, 2]}", false, "2,5", true, "");
	nodes_case("{\"private\": 3, \"dram\": \"0-1\"}", false, "3", false, "0-1");
	/* explicitly empty: no private role */
	nodes_case("{\"private\": \"\"}", false, "", true, "");
	nodes_case("{\"private\": []}", false, "", true, "");

	parse_err("{\"name\": \"n\", \"nodes\": {\"private\": [1, \"2\"]}, " MINIMAL_PHASES "}",
		  "t.json: $.nodes.private[1]: must be an integer, not a string");
	parse_err("{\"name\": \"n\", \"nodes\": {\"private\": [1024]}, " MINIMAL_PHASES "}",
		  "$.nodes.private[0]: 1024 is out of range [0, 1023]");
	parse_err("{\"name\": \"n\", \"nodes\": {\"dram\": true}, " MINIMAL_PHASES "}",
		  "$.nodes.dram: must be \"auto\", a node list string or an array of node ids, not "
		  "a boolean");
	parse_err("{\"name\": \"n\", \"nodes\": {\"privat\": \"1\"}, " MINIMAL_PHASES "}",
		  "$.nodes.privat: unknown key (valid keys here: private, dram)");
	parse_err("{\"name\": \"n\", \"nodes\": \"auto\", " MINIMAL_PHASES "}",
		  "$.nodes: must be an object, not a string");
}

static void test_matrix_order_and_points(void **state)
{
	static const char json[] = "{\"name\": \"m\", \"phases\": [{\"name\": \"a\", "
				   "\"workloads\": [{\"workload\": \"explicit\","
				   " \"params\": {\"size\": [\"16M\", 33554432], \"policy\": "
				   "[\"bind\", \"preferred\"],"
				   " \"nodes\": \"private\"}}]}]}";
	static const struct {
		double size;
		const char *policy;
	} want[] = {
		{ 16 << 20, "bind" },
		{ 16 << 20, "preferred" },
		{ 32 << 20, "bind" },
		{ 32 << 20, "preferred" },
	};
	struct pn_config_set cs;

	(void)state;
	NEED_REGISTRY();
	parse_ok(json, &cs);
	assert_int_equal(cs.n, 4);
	for (size_t i = 0; i < cs.n; i++) {
		const struct pn_config *c = &cs.points[i];
		const cJSON *mp = c->matrix_point, *v;
		int nkeys = 0;

		/* the first axis varies slowest */
		assert_true(jnum(c->phases[0].wl[0].params, "size") == want[i].size);
		assert_string_equal(jstr(c->phases[0].wl[0].params, "policy"), want[i].policy);
		assert_true(jnum(c->resolved, "phases.0.workloads.0.params.size") == want[i].size);
		assert_non_null(mp);
		cJSON_ArrayForEach (v, mp)
			nkeys++;
		assert_int_equal(nkeys, 2);
		v = cJSON_GetObjectItemCaseSensitive(mp, "$.phases[0].workloads[0].params.policy");
		assert_true(cJSON_IsString(v));
		assert_string_equal(v->valuestring, want[i].policy);
		/* matrix_point keeps the value as written */
		v = cJSON_GetObjectItemCaseSensitive(mp, "$.phases[0].workloads[0].params.size");
		if (i < 2)
			assert_string_equal(cJSON_GetStringValue(v), "16M");
		else
			assert_true(cJSON_IsNumber(v) && v->valuedouble == 33554432);
		/* every point is a complete, separately owned config */
		assert_string_equal(c->name, "m");
		if (i)
			assert_ptr_not_equal(c->name, cs.points[0].name);
	}
	pn_config_set_free(&cs);
}

static void test_matrix_across_entries(void **state)
{
	/* axes: collectors first, then phases in order, then background */
	static const char json[] =
		"{\"name\": \"m\","
		" \"phases\": [{\"name\": \"a\", \"workloads\": [{\"workload\": \"explicit\","
		"   \"params\": {\"size\": [\"1M\", \"2M\", \"3M\"]}}]},"
		"  {\"name\": \"b\", \"workloads\": [{\"workload\": \"explicit\","
		"   \"params\": {\"policy\": [\"bind\", \"preferred\"]}}]}],"
		" \"background\": [{\"workload\": \"explicit\", \"params\": {\"size\": [\"4M\", "
		"\"5M\"]}}]}";
	struct pn_config_set cs;

	(void)state;
	NEED_REGISTRY();
	parse_ok(json, &cs);
	assert_int_equal(cs.n, 12);
	for (size_t i = 0; i < cs.n; i++) {
		const struct pn_config *c = &cs.points[i];

		assert_true(jnum(c->phases[0].wl[0].params, "size") == (double)((i / 4 + 1) << 20));
		assert_string_equal(jstr(c->phases[1].wl[0].params, "policy"),
				    (i / 2) % 2 ? "preferred" : "bind");
		assert_true(jnum(c->background[0].params, "size") == (double)((i % 2 + 4) << 20));
	}
	pn_config_set_free(&cs);
}

static void test_matrix_errors(void **state)
{
	char json[2048];
	size_t off;

	(void)state;
	NEED_REGISTRY();
	parse_err("{\"name\": \"m\", \"phases\": [{\"name\": \"a\", \"workloads\": [{\"workload\": "
		  "\"explicit\","
		  " \"params\": {\"size\": []}}]}]}",
		  "$.phases[0].workloads[0].params.size: empty array (an array in params means one "
		  "matrix point per element)");
	parse_err("{\"name\": \"m\", \"phases\": [{\"name\": \"a\", \"workloads\": [{\"workload\": "
		  "\"explicit\","
		  " \"params\": {\"size\": [\"1M\", [\"2M\"]]}}]}]}",
		  "$.phases[0].workloads[0].params.size[1]: nested array");
	parse_err("{\"name\": \"m\", \"phases\": [{\"name\": \"a\", \"workloads\": [{\"workload\": "
		  "\"explicit\","
		  " \"params\": {\"policy\": [\"bind\", \"nope\"]}}]}]}",
		  "$.phases[0].workloads[0].params.policy[1]: \"nope\" is not one of: bind");
	parse_err("{\"name\": \"m\", \"phases\": [{\"name\": \"a\", \"workloads\": [{\"workload\": "
		  "\"explicit\","
		  " \"params\": {\"nodes\": [0, 1]}}]}]}",
		  "$.phases[0].workloads[0].params.nodes[0]: node lists are strings: write \"0\"");
	/* exactly at the cap is fine, one more axis element is not */
	off = (size_t)snprintf(json, sizeof(json),
			       "{\"name\": \"m\", \"phases\": [{\"name\": \"a\", \"workloads\": [");
	for (int w = 0; w < 10; w++)
		off += (size_t)snprintf(json + off, sizeof(json) - off,
					"%s{\"workload\": \"explicit\", \"params\": {\"policy\": "
					"[\"bind\", \"preferred\"]}}",
					w ? "," : "");
	snprintf(json + off, sizeof(json) - off, "]}]}");
	{
		struct pn_config_set cs;

		parse_ok(json, &cs);
		assert_int_equal(cs.n, PN_CONFIG_MAX_POINTS);
		pn_config_set_free(&cs);
	}
	off = (size_t)snprintf(json, sizeof(json),
			       "{\"name\": \"m\", \"phases\": [{\"name\": \"a\", \"workloads\": [");
	for (int w = 0; w < 11; w++)
		off += (size_t)snprintf(json + off, sizeof(json) - off,
					"%s{\"workload\": \"explicit\", \"params\": {\"policy\": "
					"[\"bind\", \"preferred\"]}}",
					w ? "," : "");
	snprintf(json + off, sizeof(json) - off, "]}]}");
	parse_err(json, "$: the matrix expands to 2048 points, more than the limit of 1024 "
			"(PN_CONFIG_MAX_POINTS): "
			"$.phases[0].workloads[0].params.policy has 2, ");
}

static void test_resolved_round_trip(void **state)
{
	static const char json[] =
		"{\"name\": \"rt\", \"nodes\": {\"private\": \"3,1-2\", \"dram\": [0]}, "
		"\"iterations\": 2,"
		" \"collectors\": {\"interval\": \"2s\", \"enabled\": [\"nodestat\", {\"name\": "
		"\"vmstat\", \"interval\": \"100ms\"}]},"
		" \"phases\": [{\"name\": \"a\", \"workloads\": [{\"workload\": \"explicit\","
		"   \"params\": {\"size\": [\"1M\", \"1G\"], \"policy\": [\"bind\", "
		"\"preferred\"]}}]}],"
		" \"thresholds\": {\"misplaced_pages\": 5}}";
	struct pn_config_set cs;

	(void)state;
	NEED_REGISTRY();
	parse_ok(json, &cs);
	assert_int_equal(cs.n, 4);
	for (size_t i = 0; i < cs.n; i++) {
		char *text = cJSON_Print(cs.points[i].resolved);
		struct pn_config_set again;

		/* the canonical object is a valid config describing the same point */
		parse_ok(text, &again);
		assert_int_equal(again.n, 1);
		assert_null(again.points[0].matrix_point);
		assert_true(cJSON_Compare(again.points[0].resolved, cs.points[i].resolved, 1));
		assert_true(pn_nodeset_equal(&again.points[0].private_nodes,
					     &cs.points[i].private_nodes));
		assert_int_equal(again.points[0].coll[1].interval_ms, 100);
		free(text);
		pn_config_set_free(&again);
	}
	pn_config_set_free(&cs);
}

static void test_collectors(void **state)
{
	(void)state;
	NEED_REGISTRY();
	parse_err("{\"name\": \"c\", \"collectors\": {\"enabled\": [\"vmstat\", {\"name\": "
		  "\"vmstat\"}]}, " MINIMAL_PHASES "}",
		  "$.collectors.enabled[1]: collector \"vmstat\" is enabled twice (also "
		  "$.collectors.enabled[0])");
	parse_err("{\"name\": \"c\", \"collectors\": {\"enabled\": [{\"interval\": "
		  "\"1s\"}]}, " MINIMAL_PHASES "}",
		  "$.collectors.enabled[0].name: required");
	parse_err("{\"name\": \"c\", \"collectors\": {\"enabled\": [{\"name\": \"vmstat\", "
		  "\"every\": 1}]}, " MINIMAL_PHASES "}",
		  "$.collectors.enabled[0].every: unknown key (valid keys here: name, interval, "
		  "params)");
	parse_err("{\"name\": \"c\", \"collectors\": {\"enabled\": [{\"name\": \"vmstat\", "
		  "\"interval\": 0}]}, " MINIMAL_PHASES "}",
		  "$.collectors.enabled[0].interval: 0 ms is out of range [1, 3600000] ms");
	parse_err("{\"name\": \"c\", \"collectors\": {\"enabled\": [7]}, " MINIMAL_PHASES "}",
		  "$.collectors.enabled[0]: must be a collector name or");
	parse_err("{\"name\": \"c\", \"collectors\": {\"enabled\": \"vmstat\"}, " MINIMAL_PHASES
		  "}",
		  "$.collectors.enabled: must be an array of collector names, not a string");
	parse_err("{\"name\": \"c\", \"collectors\": {\"enabled\": [\"vmstat\"], \"params\": "
		  "{}}, " MINIMAL_PHASES "}",
		  "$.collectors.params: unknown key (valid keys here: interval, enabled, events)");
	/* events: auto / off; the verdict's required sources */
	parse_err("{\"name\": \"c\", \"collectors\": {\"events\": \"on\"}, " MINIMAL_PHASES "}",
		  "$.collectors.events: must be \"auto\"");
	parse_err("{\"name\": \"c\", \"verdict\": {\"require\": [\"counters\"]}, " MINIMAL_PHASES
		  "}",
		  "$.verdict.require[0]: unknown source \"counters\" (known: events)");
	parse_err("{\"name\": \"c\", \"verdict\": {\"require\": \"events\"}, " MINIMAL_PHASES "}",
		  "$.verdict.require: must be an array");
	parse_err("{\"name\": \"c\", \"collectors\": {\"events\": \"off\"}, \"verdict\": "
		  "{\"require\": [\"events\"]}, " MINIMAL_PHASES "}",
		  "$.verdict.require: requires events, but $.collectors.events is \"off\"");
	/* the perf ring is a power of two: refused at load, not at run time */
	parse_err("{\"name\": \"c\", \"collectors\": {\"enabled\": [{\"name\": \"perf\", "
		  "\"params\": {\"ring_pages\": 9}}]}, " MINIMAL_PHASES "}",
		  "$.collectors.enabled[0].params.ring_pages: 9 is not a power of two");
}

/* "events": "auto" adds perf once (not when an event collector is listed),
 * "off" adds nothing; the resolved config reloads to the same collectors. */
static void test_events_default(void **state)
{
	struct pn_config_set cs;
	const cJSON *r;

	(void)state;
	NEED_REGISTRY();
	parse_ok("{\"name\": \"e\", \"collectors\": {\"enabled\": [\"perf\", \"vmstat\"]}, "
		 "\"verdict\": {\"require\": [\"events\"]}, " MINIMAL_PHASES "}",
		 &cs);
	assert_int_equal(cs.points[0].ncoll, 2);
	assert_false(cs.points[0].coll[0].automatic);
	assert_true(cs.points[0].require_events);
	r = cJSON_GetObjectItem(cJSON_GetObjectItem(cs.points[0].resolved, "verdict"), "require");
	assert_int_equal(cJSON_GetArraySize(r), 1);
	pn_config_set_free(&cs);
	parse_ok("{\"name\": \"e\", \"collectors\": {\"events\": \"off\", \"enabled\": "
		 "[\"vmstat\"]}, " MINIMAL_PHASES "}",
		 &cs);
	assert_true(cs.points[0].events_off);
	assert_int_equal(cs.points[0].ncoll, 1);
	pn_config_set_free(&cs);
	parse_ok("{\"name\": \"e\", " MINIMAL_PHASES "}", &cs);
	r = cJSON_GetObjectItem(cJSON_GetObjectItem(cs.points[0].resolved, "collectors"),
				"enabled");
	assert_int_equal(cJSON_GetArraySize(r), 0); /* perf is implied, not listed */
	assert_string_equal(
		cJSON_GetObjectItem(cJSON_GetObjectItem(cs.points[0].resolved, "collectors"),
				    "events")
			->valuestring,
		"auto");
	pn_config_set_free(&cs);
}

static void test_structure_errors(void **state)
{
	(void)state;
	NEED_REGISTRY();
	parse_err("{" MINIMAL_PHASES "}", "t.json: $.name: required");
	parse_err("{\"name\": \"\", " MINIMAL_PHASES "}", "$.name: \"\" is not a valid name");
	parse_err("{\"name\": \"x\", \"description\": 1, " MINIMAL_PHASES "}",
		  "$.description: must be a string, not a number");
	parse_err("{\"name\": \"x\", \"iterations\": 1001, " MINIMAL_PHASES "}",
		  "$.iterations: 1001 is out of range [1, 1000]");
	parse_err("{\"name\": \"x\", \"iterations\": 1.5, " MINIMAL_PHASES "}",
		  "$.iterations: 1.5 is not an integer");
	parse_err("{\"name\": \"x\", \"phases\": {}}", "$.phases: must be an array, not an object");
	parse_err("{\"name\": \"x\", \"phases\": [{\"name\": \"a\"}]}",
		  "$.phases[0].workloads: required");
	parse_err("{\"name\": \"x\", \"phases\": [{\"name\": \"a\", \"workloads\": [{}]}]}",
		  "$.phases[0].workloads[0].workload: required");
	parse_err("{\"name\": \"x\", \"phases\": [{\"name\": \"a\", \"workloads\": [{\"workload\": "
		  "\"explicit\", \"param\": {}}]}]}",
		  "$.phases[0].workloads[0].param: unknown key (valid keys here: workload, params, "
		  "expect, timeout, cgroup)");
	parse_err("{\"name\": \"x\", \"phases\": [{\"name\": \"a\", \"workloads\": [{\"workload\": "
		  "\"explicit\", \"params\": [1]}]}]}",
		  "$.phases[0].workloads[0].params: params must be an object, not an array");
	parse_err("{\"name\": \"x\", \"phases\": [{\"name\": \"A\", \"workloads\": []}]}",
		  "$.phases[0].name: \"A\" is not a valid name");
	parse_err("{\"name\": \"x\", " MINIMAL_PHASES
		  ", \"background\": [{\"workload\": \"nope\"}]}",
		  "$.background[0].workload: unknown workload \"nope\" (known: ");
	parse_err("{\"name\": \"x\", " MINIMAL_PHASES ", \"background\": {}}",
		  "$.background: must be an array");
	parse_err("{\"name\": \"x\", " MINIMAL_PHASES
		  ", \"thresholds\": {\"general_pages\": \"0\"}}",
		  "$.thresholds.general_pages: must be an integer page count");
	parse_err("{\"name\": \"x\", " MINIMAL_PHASES ", \"limits\": {\"max_mem_share\": 0}}",
		  "$.limits.max_mem_share: 0 is out of range (0, 0.9]");
	parse_err("{\"name\": \"x\", " MINIMAL_PHASES ", \"limits\": {\"max_mem\": 0.5}}",
		  "$.limits.max_mem: unknown key (valid keys here: max_mem_share)");
}

static void test_json_errors_line_col(void **state)
{
	static const char nul[] = "{\"name\": \"x\"\0}";
	struct pn_config_set cs;
	const char *msg;

	(void)state;
	parse_err("", "t.json:1:1: invalid JSON at line 1, column 1 (unexpected end");
	/* cJSON reports the position just after the offending character */
	parse_err("{\n  \"name\": \"x\",\n\t\"iterations\": 2,,\n}",
		  "t.json:3:19: invalid JSON at line 3, column 19 (at the end of the line)");
	parse_err("{\n  \"name\": \"x\",\n  \"iterations\": 2\n  \"phases\": []\n}",
		  "t.json:4:3: invalid JSON at line 4, column 3, near '\"phases\": []'");
	parse_err("{\"name\": \"x\"",
		  "t.json:1:13: invalid JSON at line 1, column 13 (unexpected end of file)");
	parse_err("\n\n  {\"name\": tru}", "t.json:3:12: invalid JSON");
	parse_err("{} {}", "t.json:1:4: invalid JSON");
	parse_err("42", "t.json: $: a config must be a JSON object, not a number");
	capture_begin();
	assert_int_equal(pn_config_parse(nul, sizeof(nul) - 1, "t.json", &cs), -EINVAL);
	msg = capture_end();
	assert_non_null(strstr(msg, "t.json:1:13: invalid JSON at line 1, column 13 (a NUL byte)"));
}

static void test_load_missing_file(void **state)
{
	struct pn_config_set cs;
	const char *msg;

	(void)state;
	capture_begin();
	assert_int_equal(pn_config_load("/nonexistent/pnbench.json", &cs), -ENOENT);
	msg = capture_end();
	assert_non_null(strstr(msg, "cannot open config /nonexistent/pnbench.json"));
	assert_int_equal(cs.n, 0);
}

/* The explicit workload's size goes up to 1P: "1P" loads, one byte more or
 * "1025P" is out of range, 2^64 and beyond is too large. */
static void test_size_up_to_1p(void **state)
{
	static const char *const tmpl = "{\"name\": \"x\", \"phases\": [{\"name\": \"p\", "
					"\"workloads\": [{\"workload\": \"explicit\", \"params\": "
					"{\"size\": \"%s\"}}]}]}";
	struct pn_config_set cs;
	const cJSON *v;
	char json[512];

	(void)state;
	NEED_REGISTRY();
	fmt(json, tmpl, "1P");
	parse_ok(json, &cs);
	v = cJSON_GetObjectItemCaseSensitive(cs.points[0].phases[0].wl[0].params, "size");
	assert_true(cJSON_IsNumber(v));
	assert_true(v->valuedouble == 1125899906842624.0);
	pn_config_set_free(&cs);
	fmt(json, tmpl, "1.5T");
	parse_ok(json, &cs);
	v = cJSON_GetObjectItemCaseSensitive(cs.points[0].phases[0].wl[0].params, "size");
	assert_true(v->valuedouble == 1649267441664.0);
	pn_config_set_free(&cs);
	fmt(json, tmpl, "1125899906842625");
	parse_err(json, "params.size: 1125899906842625 bytes is out of range [4096, "
			"1125899906842624] bytes");
	fmt(json, tmpl, "1025P");
	parse_err(json, "params.size: \"1025P\" is out of range [4096, 1125899906842624] bytes");
	fmt(json, tmpl, "2P");
	parse_err(json, "params.size: 2251799813685248 bytes is out of range [4096, "
			"1125899906842624] bytes");
	fmt(json, tmpl, "18446744073709551616");
	parse_err(json, "params.size: \"18446744073709551616\" is out of range [4096, "
			"1125899906842624] bytes");
	fmt(json, tmpl, "16384P");
	parse_err(json, "params.size: \"16384P\" is out of range");
}

/* Strings end up in run.json: every key and string value must be valid
 * UTF-8, checked at load with the JSON path and the offset of the bad byte. */
static void test_utf8(void **state)
{
	static const struct {
		const char *desc, *want;
	} bad[] = {
		{ "caf\xe9", "$.description: not valid UTF-8 (byte 0xe9 at offset 3)" },
		{ "\x80", "(byte 0x80 at offset 0)" },		    /* lone continuation */
		{ "a\xc0\xaf", "(byte 0xc0 at offset 1)" },	    /* overlong '/' */
		{ "ab\xe0\x80\xaf", "(byte 0xe0 at offset 2)" },    /* overlong, 3 bytes */
		{ "\xed\xa0\x80", "(byte 0xed at offset 0)" },	    /* surrogate U+D800 */
		{ "x\xf4\x90\x80\x80", "(byte 0xf4 at offset 1)" }, /* U+110000 */
		{ "ok \xe2\x82", "(byte 0xe2 at offset 3)" },	    /* truncated at the end */
		{ "\xe2\x82x", "(byte 0xe2 at offset 0)" },	    /* truncated inside */
		{ "\xff", "(byte 0xff at offset 0)" },
	};
	struct pn_config_set cs;
	const cJSON *d;
	char json[512];

	(void)state;
	for (size_t i = 0; i < PN_ARRAY_SIZE(bad); i++) {
		fmt(json,
		    "{\"name\": \"x\", \"description\": \"%s\", \"phases\": [{\"name\": "
		    "\"p\", \"workloads\": []}]}",
		    bad[i].desc);
		parse_err(json, bad[i].want);
		parse_err(json, "$.description: not valid UTF-8");
	}
	/* a key, and a string deep inside a matrix array of params */
	parse_err("{\"name\": \"x\", \"phases\": [{\"name\": \"p\", \"workloads\": []}], "
		  "\"o\xfek\": 1}",
		  "t.json: $.o\\xfek: key not valid UTF-8 (byte 0xfe at offset 1)");
	parse_err("{\"name\": \"x\", \"phases\": [{\"name\": \"p\", \"workloads\": [{\"workload\": "
		  "\"explicit\", \"params\": {\"nodes\": [\"0\", \"1\xa0\"]}}]}]}",
		  "t.json: $.phases[0].workloads[0].params.nodes[1]: not valid UTF-8 (byte 0xa0 "
		  "at offset 1)");
	/* \u escapes are decoded by cJSON and are as good as raw UTF-8 */
	NEED_REGISTRY();
	parse_ok("{\"name\": \"x\", \"description\": \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e "
		 "\\u00e9\", \"phases\": [{\"name\": \"p\", \"workloads\": []}]}",
		 &cs);
	d = cJSON_GetObjectItemCaseSensitive(cs.points[0].resolved, "description");
	assert_non_null(d);
	assert_string_equal(d->valuestring, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e \xc3\xa9");
	pn_config_set_free(&cs);
}

static void test_utf8_check(void **state)
{
	(void)state;
	assert_int_equal(pn_utf8_check("", 0), -1);
	assert_int_equal(pn_utf8_check("plain", 5), -1);
	assert_int_equal(pn_utf8_check("\xc2\x80\xdf\xbf", 4), -1);	    /* U+0080, U+07FF */
	assert_int_equal(pn_utf8_check("\xe0\xa0\x80\xef\xbf\xbf", 6), -1); /* U+0800, U+FFFF */
	assert_int_equal(pn_utf8_check("\xed\x9f\xbf\xee\x80\x80", 6), -1); /* around surrogates */
	assert_int_equal(pn_utf8_check("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", 8), -1);
	assert_int_equal(pn_utf8_check("\xc1\xbf", 2), 0);
	assert_int_equal(pn_utf8_check("\xed\xbf\xbf", 3), 0);
	assert_int_equal(pn_utf8_check("\xf0\x8f\xbf\xbf", 4), 0);
	assert_int_equal(pn_utf8_check("\xf5\x80\x80\x80", 4), 0);
	assert_int_equal(pn_utf8_check("ab\xc3", 3), 2);
	/* the length bounds the check: a cut sequence is bad even before a NUL */
	assert_int_equal(pn_utf8_check("\xc3\xa9", 1), 0);
}

/* Every file in tests/configs-bad/ is listed in EXPECTED and fails with
 * exactly one error line that names the file and the expected text. */
static void test_bad_configs(void **state)
{
	char dir[PATH_MAX], path[PATH_MAX + 256], line[1024];
	char listed[64][256];
	size_t nlisted = 0;
	struct dirent *de;
	FILE *f;
	DIR *d;

	(void)state;
	NEED_REGISTRY();
	fmt(dir, "%s/tests/configs-bad", srcdir);
	fmt(path, "%s/EXPECTED", dir);
	f = fopen(path, "r");
	if (!f) {
		fail_msg("cannot open %s: %s", path, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		struct pn_config_set cs = { .n = 99 };
		char *sp, want[PATH_MAX + 1600];
		const char *msg;
		int ret, nerr = 0;

		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		sp = strchr(line, ' ');
		assert_non_null(sp);
		*sp = '\0';
		assert_true(nlisted < PN_ARRAY_SIZE(listed));
		fmt(listed[nlisted], "%s", line);
		nlisted++;
		fmt(path, "%s/%s", dir, line);
		capture_begin();
		ret = pn_config_load(path, &cs);
		msg = capture_end();
		if (ret != -EINVAL)
			fail_msg("%s: expected -EINVAL, got %d; stderr: %s", line, ret, msg);
		assert_int_equal(cs.n, 0);
		/* file name then the expected text */
		fmt(want, "pnbench: error: %s%s", path, sp + 1);
		if (!strstr(msg, want))
			fail_msg("%s: error was:\n  %s\nexpected to contain:\n  %s", line, msg,
				 want);
		for (const char *m = msg; (m = strstr(m, "pnbench: error:")); m++)
			nerr++;
		if (nerr != 1)
			fail_msg("%s: %d error lines, expected exactly one:\n%s", line, nerr, msg);
	}
	fclose(f);
	assert_true(nlisted >= 15);

	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name), i;

		if (len < 5 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		for (i = 0; i < nlisted; i++)
			if (!strcmp(listed[i], de->d_name))
				break;
		if (i == nlisted)
			fail_msg("%s/%s is not listed in EXPECTED", dir, de->d_name);
	}
	closedir(d);
}

/* Every shipped config validates. */
/* Every config in DIR (relative to the source tree) loads and is named after
 * its file; returns how many there were. */
static int load_configs_in(const char *sub)
{
	char dir[PATH_MAX], path[PATH_MAX + 256];
	struct dirent *de;
	int n = 0;
	DIR *d;

	fmt(dir, "%s/%s", srcdir, sub);
	d = opendir(dir);
	if (!d) {
		fail_msg("cannot open %s: %s", dir, strerror(errno));
		return 0;
	}
	while ((de = readdir(d))) {
		struct pn_config_set cs;
		size_t len = strlen(de->d_name);
		const char *msg;
		int ret;

		if (len < 5 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		fmt(path, "%s/%s", dir, de->d_name);
		capture_begin();
		ret = pn_config_load(path, &cs);
		msg = capture_end();
		if (ret)
			fail_msg("%s does not load: %s", path, msg);
		/* the config's name is its file name */
		assert_int_equal(strncmp(cs.points[0].name, de->d_name, len - 5), 0);
		assert_int_equal(strlen(cs.points[0].name), len - 5);
		pn_config_set_free(&cs);
		n++;
	}
	closedir(d);
	return n;
}

/* configs/ and the suite `pnbench demo` runs in its guests (configs/demo/) */
static void test_shipped_configs(void **state)
{
	(void)state;
	NEED_REGISTRY();
	assert_true(load_configs_in("configs") >= 4);
	assert_true(load_configs_in("configs/demo") >= 5);
}

/* Test data lives in the source tree: $PNBENCH_SRCDIR, the current
 * directory (tests/run.sh runs from the top), or two levels above the
 * binary (build/tests/test_config). */
static void find_srcdir(const char *argv0)
{
	char exe[PATH_MAX];
	const char *env = getenv("PNBENCH_SRCDIR");
	int n;

	if (env)
		n = snprintf(srcdir, sizeof(srcdir), "%s", env);
	else if (access("tests/configs-bad/EXPECTED", R_OK) == 0)
		n = snprintf(srcdir, sizeof(srcdir), ".");
	else {
		n = snprintf(exe, sizeof(exe), "%s", argv0);
		if (n >= 0 && (size_t)n < sizeof(exe))
			n = snprintf(srcdir, sizeof(srcdir), "%s/../..", dirname(exe));
	}
	if (n < 0 || (size_t)n >= sizeof(srcdir))
		srcdir[0] = '\0'; /* the tests that need it fail with the path */
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal_defaults),
		cmocka_unit_test(test_full_config),
		cmocka_unit_test(test_nodes),
		cmocka_unit_test(test_matrix_order_and_points),
		cmocka_unit_test(test_matrix_across_entries),
		cmocka_unit_test(test_matrix_errors),
		cmocka_unit_test(test_resolved_round_trip),
		cmocka_unit_test(test_collectors),
		cmocka_unit_test(test_events_default),
		cmocka_unit_test(test_structure_errors),
		cmocka_unit_test(test_json_errors_line_col),
		cmocka_unit_test(test_load_missing_file),
		cmocka_unit_test(test_size_up_to_1p),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_utf8_check),
		cmocka_unit_test(test_bad_configs),
		cmocka_unit_test(test_shipped_configs),
	};

	(void)argc;
	find_srcdir(argv[0]);
	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
