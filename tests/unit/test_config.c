// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_config.c - suite configs: defaults, nodes, collectors, matrix
 * expansion, canonical "resolved" objects, structural error messages (JSON
 * path) and size limits.  Malformed JSON, UTF-8, the broken configs of
 * tests/configs-bad/ and the shipped configs: test_config_files.c.
 *
 * Uses the real registry: the workload "explicit" (options size, policy,
 * nodes) and the collectors vmstat, nodestat, zoneinfo.  A test whose
 * workload or option is missing from this build SKIPs and says why.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "configtest.h"

/* ---- helpers ---- */

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
		cmocka_unit_test(test_size_up_to_1p),
	};

	(void)argc;
	(void)argv;
	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
