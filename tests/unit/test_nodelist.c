// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_nodelist.c - command-line node lists in numactl's forms (nodelist.c):
 * all, ranges, "!" inversion, "+" relative, and the errors (a node that is
 * not in the set, a list that leaves nothing, junk).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/api/params.h"

/* Memory nodes 0, 1, 2, 4 (sparse, like a machine with node 3 offline). */
static struct pn_nodeset machine(void)
{
	struct pn_nodeset s;

	pn_nodeset_zero(&s);
	pn_nodeset_set(&s, 0);
	pn_nodeset_set(&s, 1);
	pn_nodeset_set(&s, 2);
	pn_nodeset_set(&s, 4);
	return s;
}

static void expect_set(const char *in, const char *want)
{
	struct pn_nodeset set = machine(), out;
	char why[160] = "", got[64];

	assert_int_equal(pn_nodelist_parse(in, &set, &out, why, sizeof(why)), 0);
	pn_nodeset_format(&out, got, sizeof(got));
	assert_string_equal(got, want);
	assert_string_equal(why, "");
}

static void expect_err(const char *in, const char *substr)
{
	struct pn_nodeset set = machine(), out;
	char why[160] = "";

	assert_int_equal(pn_nodelist_parse(in, &set, &out, why, sizeof(why)), -EINVAL);
	if (!strstr(why, substr))
		fail_msg("\"%s\": reason \"%s\" lacks \"%s\"", in, why, substr);
	assert_true(pn_nodeset_empty(&out));
}

static void test_plain(void **st)
{
	(void)st;
	expect_set("1", "1");
	expect_set("0-2,4", "0-2,4");
	expect_set("4,0", "0,4");
}

static void test_all(void **st)
{
	(void)st;
	expect_set("all", "0-2,4");
}

static void test_invert(void **st)
{
	(void)st;
	expect_set("!0", "1-2,4");
	expect_set("!0-1", "2,4");
	expect_set("!+0", "1-2,4");
}

static void test_relative(void **st)
{
	(void)st;
	expect_set("+3", "4"); /* the 4th memory node is node 4 (3 is absent) */
	expect_set("+0-1", "0-1");
	expect_set("+2-3", "2,4");
}

static void test_errors(void **st)
{
	(void)st;
	expect_err("3", "node 3 is not a memory node here (nodes: 0-2,4)");
	expect_err("+4", "+4: there are only 4 nodes");
	expect_err("!0-2,4", "leaves no node");
	expect_err("", "is not a node list");
	expect_err("x", "is not a node list");
	expect_err("!", "is not a node list");
	expect_err("1-", "is not a node list");
	expect_err("2-1", "is not a node list");
	expect_err("-1", "is not a node list");
}

static void test_empty_set(void **st)
{
	struct pn_nodeset none, out;
	char why[160] = "";

	(void)st;
	pn_nodeset_zero(&none);
	assert_int_equal(pn_nodelist_parse("all", &none, &out, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "no nodes"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),  cmocka_unit_test(test_all),
		cmocka_unit_test(test_invert), cmocka_unit_test(test_relative),
		cmocka_unit_test(test_errors), cmocka_unit_test(test_empty_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
