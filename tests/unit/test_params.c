// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_params.c - option tables: validation, canonical values, defaults,
 * error messages (file + JSON path), accessors.  Uses its own option tables,
 * so it does not depend on any workload's or collector's options.
 */
#include <errno.h>
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
#include "core/api/params.h"
#include "core/api/workload.h"

static const char *const policies[] = { "bind", "preferred", "interleave", NULL };

static const struct pn_opt opts[] = {
	{ "size", PN_OPT_SIZE, "64M", "bytes to map", NULL, 4096, 1099511627776.0 },
	{ "chunk", PN_OPT_SIZE, "4096", "bytes per chunk", NULL, 0, 0 },
	{ "policy", PN_OPT_ENUM, "bind", "mempolicy", policies, 0, 0 },
	{ "touch", PN_OPT_BOOL, "true", "write every page", NULL, 0, 0 },
	{ "threads", PN_OPT_INT, "1", "worker threads", NULL, 1, 64 },
	{ "ratio", PN_OPT_DOUBLE, "0.25", "share", NULL, 0, 1 },
	{ "period", PN_OPT_DURATION, "500ms", "period", NULL, 1, 60000 },
	{ "label", PN_OPT_STRING, "", "free text", NULL, 0, 0 },
	{ "nodes", PN_OPT_NODES, "private", "target nodes", NULL, 0, 0 },
	{ NULL },
};

static const struct pn_opt opts_required[] = {
	{ "target", PN_OPT_NODES, NULL, "target nodes", NULL, 0, 0 },
	{ "count", PN_OPT_INT, "3", "how many", NULL, 0, 0 },
	{ NULL },
};

/* Resolve a JSON text against a table; on failure return the message. */
static int resolve_text(const struct pn_opt *table, const char *json, cJSON **out, const char **msg)
{
	cJSON *in = json ? cJSON_Parse(json) : NULL;
	int ret;

	if (json)
		assert_non_null(in);
	capture_begin();
	ret = pn_params_resolve(table, in, "t.json", "$.phases[0].workloads[0].params", out);
	*msg = capture_end();
	cJSON_Delete(in);
	return ret;
}

static void expect_error(const struct pn_opt *table, const char *json, const char *substr)
{
	const char *msg;
	cJSON *out = (cJSON *)0x1;
	int ret = resolve_text(table, json, &out, &msg);

	assert_int_equal(ret, -EINVAL);
	assert_null(out);
	if (!strstr(msg, substr))
		fail_msg("error for %s\n  was: %s  expected to contain: %s", json, msg, substr);
	/* every message names the file */
	assert_non_null(strstr(msg, "pnbench: error: t.json: $.phases[0].workloads[0].params"));
}

static cJSON *expect_ok(const struct pn_opt *table, const char *json)
{
	const char *msg;
	cJSON *out = NULL;
	int ret = resolve_text(table, json, &out, &msg);

	if (ret)
		fail_msg("%s: unexpected error %d: %s", json ? json : "(null)", ret, msg);
	assert_non_null(out);
	assert_string_equal(msg, "");
	return out;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	assert_true(cJSON_IsString(v));
	return v->valuestring;
}

static void test_defaults_filled(void **state)
{
	cJSON *o = expect_ok(opts, NULL);
	const cJSON *it;
	size_t i = 0;

	(void)state;
	/* every option present, in table order, nothing else */
	cJSON_ArrayForEach (it, o) {
		assert_non_null(opts[i].name);
		assert_string_equal(it->string, opts[i].name);
		i++;
	}
	assert_null(opts[i].name);
	assert_true(num(o, "size") == 64.0 * 1024 * 1024);
	assert_true(num(o, "chunk") == 4096);
	assert_string_equal(str(o, "policy"), "bind");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "touch")));
	assert_true(num(o, "threads") == 1);
	assert_true(num(o, "ratio") == 0.25);
	assert_true(num(o, "period") == 500);
	assert_string_equal(str(o, "label"), "");
	assert_string_equal(str(o, "nodes"), "private");
	cJSON_Delete(o);

	/* an empty object is the same as no object */
	o = expect_ok(opts, "{}");
	assert_true(num(o, "size") == 64.0 * 1024 * 1024);
	cJSON_Delete(o);
}

static void test_values_canonical(void **state)
{
	cJSON *o =
		expect_ok(opts, "{\"size\": \"1G\", \"chunk\": 8192, \"policy\": \"interleave\","
				" \"touch\": false, \"threads\": 8, \"ratio\": 0.5,"
				" \"period\": \"2s\", \"label\": \"x y\", \"nodes\": \"5,0-2,3\"}");

	(void)state;
	assert_true(num(o, "size") == 1073741824.0);
	assert_true(num(o, "chunk") == 8192);
	assert_string_equal(str(o, "policy"), "interleave");
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(o, "touch")));
	assert_true(num(o, "threads") == 8);
	assert_true(num(o, "ratio") == 0.5);
	assert_true(num(o, "period") == 2000);
	assert_string_equal(str(o, "label"), "x y");
	assert_string_equal(str(o, "nodes"), "0-3,5"); /* normalised */
	cJSON_Delete(o);

	o = expect_ok(opts, "{\"period\": 250, \"size\": \"64KiB\", \"nodes\": \"all\"}");
	assert_true(num(o, "period") == 250); /* bare number = ms */
	assert_true(num(o, "size") == 65536);
	assert_string_equal(str(o, "nodes"), "all");
	cJSON_Delete(o);
}

static void test_canonical_is_fixed_point(void **state)
{
	cJSON *a = expect_ok(opts, "{\"size\": \"3M\", \"period\": \"1m\", \"nodes\": \"2,1\","
				   " \"policy\": \"preferred\"}");
	char *text = cJSON_PrintUnformatted(a);
	cJSON *b = expect_ok(opts, text);

	(void)state;
	assert_true(cJSON_Compare(a, b, 1));
	free(text);
	cJSON_Delete(a);
	cJSON_Delete(b);
}

static void test_bad_size(void **state)
{
	(void)state;
	expect_error(opts, "{\"size\": \"12Q\"}",
		     "params.size: \"12Q\" is not a size (examples: 4096, 64K, 2M, 1G)");
	expect_error(opts, "{\"size\": -4096}", "params.size: -4096 is not a size");
	expect_error(opts, "{\"size\": 4096.5}", "params.size: 4096.5 is not a size");
	expect_error(opts, "{\"size\": true}", "params.size: must be a size");
	expect_error(opts, "{\"size\": 1024}", "params.size: 1024 bytes is out of range [4096,");
	expect_error(opts, "{\"size\": \"2T\"}",
		     "params.size: 2199023255552 bytes is out of range");
	/* no range: the limit is what a JSON number holds exactly (2^53) */
	expect_error(opts, "{\"chunk\": \"16384P\"}",
		     "params.chunk: \"16384P\" is too large (at most 8P)");
	expect_error(opts, "{\"chunk\": \"9P\"}", "params.chunk: \"9P\" is too large (at most 8P)");
}

static void test_bad_duration(void **state)
{
	(void)state;
	expect_error(opts, "{\"period\": \"5x\"}", "params.period: \"5x\" is not a duration");
	expect_error(opts, "{\"period\": \"2h\"}",
		     "params.period: 7200000 ms is out of range [1, 60000] ms");
	expect_error(opts, "{\"period\": -1}", "params.period: -1 is not a duration");
	expect_error(opts, "{\"period\": {}}", "params.period: must be a duration");
}

static void test_bad_enum_lists_choices(void **state)
{
	(void)state;
	expect_error(opts, "{\"policy\": \"bnid\"}",
		     "params.policy: \"bnid\" is not one of: bind, preferred, interleave");
	expect_error(opts, "{\"policy\": 1}",
		     "params.policy: must be one of bind, preferred, interleave");
}

static void test_bad_scalars(void **state)
{
	(void)state;
	expect_error(opts, "{\"touch\": \"yes\"}",
		     "params.touch: must be true or false, not a string");
	expect_error(opts, "{\"touch\": 1}", "params.touch: must be true or false, not a number");
	expect_error(opts, "{\"threads\": 0}", "params.threads: 0 is out of range [1, 64]");
	expect_error(opts, "{\"threads\": 65}", "params.threads: 65 is out of range [1, 64]");
	expect_error(opts, "{\"threads\": 2.5}", "params.threads: 2.5 is not an integer");
	expect_error(opts, "{\"threads\": \"4\"}",
		     "params.threads: must be an integer, not a string");
	expect_error(opts, "{\"ratio\": 1.5}", "params.ratio: 1.5 is out of range [0, 1]");
	expect_error(opts, "{\"ratio\": null}", "params.ratio: must be a number, not null");
	expect_error(opts, "{\"label\": 3}", "params.label: must be a string, not a number");
}

static void test_bad_nodes(void **state)
{
	(void)state;
	expect_error(opts, "{\"nodes\": \"1,x\"}", "params.nodes: \"1,x\" is not a node list");
	expect_error(opts, "{\"nodes\": \"\"}", "params.nodes: \"\" is not a node list");
	expect_error(opts, "{\"nodes\": \"3-1\"}", "params.nodes: \"3-1\" is not a node list");
	expect_error(opts, "{\"nodes\": \"4096\"}", "is not a node list");
	/* a number or an array: the message explains that arrays mean a matrix */
	expect_error(opts, "{\"nodes\": 1}", "params.nodes: node lists are strings: write \"1\"");
	expect_error(opts, "{\"nodes\": 1}", "one matrix point per element");
	expect_error(opts, "{\"nodes\": [1, 2]}",
		     "params.nodes: a JSON array in params means one matrix point per element, not "
		     "a node list");
}

static void test_unknown_option(void **state)
{
	(void)state;
	expect_error(opts, "{\"szie\": \"1M\"}",
		     "params.szie: unknown option \"szie\"; did you mean \"size\"? valid options: "
		     "size, chunk, policy, touch, threads, ratio, period, label, nodes");
	/* no suggestion when nothing is close */
	expect_error(opts, "{\"frobnicate\": 1}",
		     "params.frobnicate: unknown option \"frobnicate\"; valid options: size,");
	expect_error(opts_required, "{\"target\": \"1\", \"x\": 1}",
		     "valid options: target, count");
}

static void test_required_and_structure(void **state)
{
	cJSON *o;

	(void)state;
	expect_error(opts_required, NULL,
		     "params.target: required option is missing (nodes: target nodes)");
	expect_error(opts_required, "{\"count\": 1}", "params.target: required option is missing");
	o = expect_ok(opts_required, "{\"target\": \"dram\"}");
	assert_true(num(o, "count") == 3);
	cJSON_Delete(o);
	expect_error(opts, "[1]", "params must be an object, not an array");
	expect_error(opts, "\"64M\"", "params must be an object, not a string");
	expect_error(opts, "{\"size\": \"1M\", \"size\": \"2M\"}", "params.size: duplicate key");
}

static void test_param_check_names_value_path(void **state)
{
	cJSON *in = cJSON_CreateString("7Z"), *out = (cJSON *)0x1;
	const char *msg;
	int ret;

	(void)state;
	capture_begin();
	ret = pn_param_check(&opts[0], in, "f.json", "$.a.params.size[2]", &out);
	msg = capture_end();
	assert_int_equal(ret, -EINVAL);
	assert_null(out);
	assert_non_null(
		strstr(msg, "pnbench: error: f.json: $.a.params.size[2]: \"7Z\" is not a size"));
	cJSON_Delete(in);

	/* NULL = the default */
	assert_int_equal(pn_param_check(&opts[2], NULL, "f.json", "$.p", &out), 0);
	assert_string_equal(out->valuestring, "bind");
	cJSON_Delete(out);
}

static void test_bad_default_in_table(void **state)
{
	static const struct pn_opt bad[] = {
		{ "size", PN_OPT_SIZE, "lots", "", NULL, 0, 0 },
		{ NULL },
	};
	const char *msg;
	cJSON *out;

	(void)state;
	assert_int_equal(resolve_text(bad, NULL, &out, &msg), -EINVAL);
	assert_non_null(strstr(msg, "\"lots\" is not a size"));
	assert_non_null(strstr(msg, "the default \"lots\" in the option table is invalid"));
}

static void test_hostile_text_is_escaped(void **state)
{
	const char *msg;
	cJSON *out;

	(void)state;
	assert_int_equal(resolve_text(opts, "{\"size\": \"\\u001b[31mred\\n\"}", &out, &msg),
			 -EINVAL);
	assert_null(strchr(msg, '\x1b'));
	assert_non_null(strstr(msg, "\\x1b[31mred\\x0a"));
}

static void test_accessors(void **state)
{
	cJSON *o = expect_ok(
		opts, "{\"size\": \"2M\", \"threads\": 4, \"ratio\": 0.75, \"touch\": false,"
		      " \"period\": \"3s\", \"label\": \"hello\", \"policy\": \"preferred\"}");
	struct pn_params p = { .opts = opts, .obj = o };

	(void)state;
	assert_int_equal(pn_param_size(&p, "size"), 2 * 1024 * 1024);
	assert_int_equal(pn_param_int(&p, "threads"), 4);
	assert_true(pn_param_double(&p, "ratio") == 0.75);
	assert_false(pn_param_bool(&p, "touch"));
	assert_int_equal(pn_param_duration_ms(&p, "period"), 3000);
	assert_string_equal(pn_param_str(&p, "label"), "hello");
	assert_string_equal(pn_param_str(&p, "policy"), "preferred");
	assert_string_equal(pn_param_str(&p, "nodes"), "private");
	cJSON_Delete(o);
}

static void nodes_case(const char *value, const struct pn_roles *roles, int want_ret,
		       const char *want_list)
{
	char json[128], buf[128];
	struct pn_nodeset set;
	cJSON *o;
	struct pn_params p = { .opts = opts };

	snprintf(json, sizeof(json), "{\"nodes\": \"%s\"}", value);
	o = expect_ok(opts, json);
	p.obj = o;
	assert_int_equal(pn_param_nodes(&p, "nodes", roles, &set), want_ret);
	assert_int_equal(pn_nodeset_format(&set, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want_list);
	cJSON_Delete(o);
}

static void test_param_nodes_roles(void **state)
{
	struct pn_roles roles, none;

	(void)state;
	memset(&roles, 0, sizeof(roles));
	memset(&none, 0, sizeof(none));
	pn_nodeset_set(&roles.private_nodes, 2);
	pn_nodeset_set(&roles.private_nodes, 5);
	pn_nodeset_set(&roles.dram_nodes, 0);
	pn_nodeset_set(&none.dram_nodes, 0);

	nodes_case("private", &roles, 0, "2,5");
	nodes_case("dram", &roles, 0, "0");
	nodes_case("all", &roles, 0, "0,2,5");
	nodes_case("7,9", &roles, 0, "7,9");
	/* no private role on this machine: "private" resolves to nothing */
	nodes_case("private", &none, -EINVAL, "");
	nodes_case("all", &none, 0, "0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_filled),
		cmocka_unit_test(test_values_canonical),
		cmocka_unit_test(test_canonical_is_fixed_point),
		cmocka_unit_test(test_bad_size),
		cmocka_unit_test(test_bad_duration),
		cmocka_unit_test(test_bad_enum_lists_choices),
		cmocka_unit_test(test_bad_scalars),
		cmocka_unit_test(test_bad_nodes),
		cmocka_unit_test(test_unknown_option),
		cmocka_unit_test(test_required_and_structure),
		cmocka_unit_test(test_param_check_names_value_path),
		cmocka_unit_test(test_bad_default_in_table),
		cmocka_unit_test(test_hostile_text_is_escaped),
		cmocka_unit_test(test_accessors),
		cmocka_unit_test(test_param_nodes_roles),
	};

	return cmocka_run_group_tests_name("params", tests, NULL, NULL);
}
