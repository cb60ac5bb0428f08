// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_config_set.c - `run --set` (core/config/config_set.c) through the
 * config loader: a workload parameter in every phase and the background, a
 * matrix axis replaced, a collector's interval and parameter, config
 * sections, and the errors naming the --set.
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

#include "capture.h"
#include "core/api/params.h"
#include "core/config/config.h"
#include "core/config/config_set.h"

static const char cfg[] =
	"{\"name\": \"t\", \"collectors\": {\"interval\": \"200ms\", \"enabled\": [\"vmstat\", "
	"\"nodestat\"]},"
	" \"background\": [{\"workload\": \"explicit\", \"params\": {\"size\": \"8M\"}}],"
	" \"phases\": [{\"name\": \"a\", \"workloads\": [{\"workload\": \"explicit\", \"params\": "
	"{\"size\": [\"16M\", \"32M\"]}}]},"
	" {\"name\": \"b\", \"workloads\": [{\"workload\": \"explicit\"}]}]}";

static int load(const char *const *sets, size_t n, struct pn_config_set *cs, const char **msg)
{
	int ret;

	pn_config_set_overrides(sets, n);
	capture_begin();
	ret = pn_config_parse(cfg, sizeof(cfg) - 1, "t.json", cs);
	*msg = capture_end();
	pn_config_set_overrides(NULL, 0);
	return ret;
}

static double size_of(const struct pn_config_wl *w)
{
	return cJSON_GetObjectItem(w->params, "size")->valuedouble;
}

static void test_none(void **st)
{
	struct pn_config_set cs;
	const char *msg;

	(void)st;
	assert_int_equal(load(NULL, 0, &cs, &msg), 0);
	assert_int_equal(cs.n, 2); /* the size axis */
	pn_config_set_free(&cs);
}

static void test_workload_everywhere(void **st)
{
	static const char *const sets[] = { "explicit.size=4M", "explicit.touch=false" };
	struct pn_config_set cs;
	const char *msg;

	(void)st;
	assert_int_equal(load(sets, 2, &cs, &msg), 0);
	assert_int_equal(cs.n, 1); /* the matrix array became one value */
	assert_true(size_of(&cs.points[0].background[0]) == 4 << 20);
	assert_true(size_of(&cs.points[0].phases[0].wl[0]) == 4 << 20);
	assert_true(size_of(&cs.points[0].phases[1].wl[0]) == 4 << 20);
	assert_true(
		cJSON_IsFalse(cJSON_GetObjectItem(cs.points[0].phases[1].wl[0].params, "touch")));
	pn_config_set_free(&cs);
}

static void test_collectors(void **st)
{
	static const char *const sets[] = { "collectors.interval=1s", "nodestat.interval=50ms",
					    "iterations=3", "thresholds.general_pages=16" };
	struct pn_config_set cs;
	const char *msg;

	(void)st;
	assert_int_equal(load(sets, 4, &cs, &msg), 0);
	assert_int_equal(cs.points[0].interval_ms, 1000);
	assert_int_equal(cs.points[0].iterations, 3);
	assert_int_equal(cs.points[0].max_general_pages, 16);
	for (size_t i = 0; i < cs.points[0].ncoll; i++) {
		const struct pn_config_coll *c = &cs.points[0].coll[i];

		if (!strcmp(c->ops->name, "nodestat"))
			assert_int_equal(c->interval_ms, 50);
		else if (!strcmp(c->ops->name, "vmstat"))
			assert_int_equal(c->interval_ms, 1000);
	}
	pn_config_set_free(&cs);
}

static void expect_error(const char *set, const char *substr)
{
	const char *sets[] = { set };
	struct pn_config_set cs;
	const char *msg;

	assert_int_equal(load(sets, 1, &cs, &msg), -EINVAL);
	if (!strstr(msg, substr))
		fail_msg("--set %s: \"%s\" lacks \"%s\"", set, msg, substr);
}

static void test_errors(void **st)
{
	(void)st;
	expect_error("explict.size=1G", "did you mean \"explicit\"");
	expect_error("explicit.sise=1G", "explicit has no option \"sise\"; did you mean \"size\"?");
	expect_error("explicit.size=12Q", "$.phases[0].workloads[0].params.size: \"12Q\" is not");
	expect_error("latency.size=1G", "the config runs no workload \"latency\"");
	expect_error("zoneinfo.interval=1s", "collector \"zoneinfo\" is not in collectors.enabled");
	expect_error("limits.max_mem_shar=0.5", "did you mean \"max_mem_share\"");
	expect_error("explicit=1", "the key is OWNER.KEY");
	expect_error("a.b.c=1", "the key is OWNER.KEY");
	expect_error("=1", "not KEY=VALUE");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_workload_everywhere),
		cmocka_unit_test(test_collectors),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
