// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_label.c - matrix point labels (core/lib/label.c): the shortest
 * unique JSONPath suffix, values as written, no point without a matrix, a
 * label too long for its buffer marked as cut.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "core/lib/label.h"

static void expect_label(const char *json, const char *want)
{
	cJSON *m = json ? cJSON_Parse(json) : NULL;
	char buf[128];

	if (json)
		assert_non_null(m);
	assert_string_equal(pn_point_label(m, buf, sizeof(buf)), want);
	cJSON_Delete(m);
}

static void test_last_step(void **st)
{
	(void)st;
	expect_label("{\"$.phases[0].workloads[0].params.size\":\"16M\","
		     "\"$.phases[1].workloads[0].params.spill\":\"after\"}",
		     "size=16M spill=after");
}

static void test_shared_name(void **st)
{
	(void)st;
	/* two "size" axes: one more step tells them apart */
	expect_label("{\"$.phases[0].workloads[0].params.size\":\"16M\","
		     "\"$.phases[0].workloads[1].params.size\":\"1G\"}",
		     "workloads[0].params.size=16M workloads[1].params.size=1G");
}

static void test_values(void **st)
{
	(void)st;
	expect_label("{\"$.iterations\":3,\"$.x.touch\":true}", "iterations=3 touch=true");
}

static void test_none(void **st)
{
	(void)st;
	expect_label(NULL, "");
	expect_label("{}", "");
}

static void test_cut(void **st)
{
	cJSON *m = cJSON_Parse("{\"$.a.size\":\"0123456789abcdef\"}");
	char buf[12];

	(void)st;
	assert_string_equal(pn_point_label(m, buf, sizeof(buf)), "size=012...");
	cJSON_Delete(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_last_step), cmocka_unit_test(test_shared_name),
		cmocka_unit_test(test_values),	  cmocka_unit_test(test_none),
		cmocka_unit_test(test_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
