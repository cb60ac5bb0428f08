// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_workload.c - core/api/workload.c: a workload's declared needs checked
 * in one place (pn_workload_supported), each unmet need with its reason, the
 * workload's own supported() asked only after them, and `list -v`'s spelling
 * of the needs.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <numa.h>

#include "core/api/params.h"
#include "core/api/workload.h"

static int own_calls;

static int own_refuses(const struct pn_env *env, char *why, size_t whylen)
{
	(void)env;
	own_calls++;
	snprintf(why, whylen, "its own reason");
	return -EPERM;
}

static void test_nodes(void **state)
{
	struct pn_workload w = { .name = "t", .needs = PN_NEED_NODES };
	struct pn_roles roles;
	struct pn_env env = { .roles = &roles };
	char why[256] = "";

	(void)state;
	memset(&roles, 0, sizeof(roles));
	assert_int_equal(pn_workload_supported(&w, &env, why, sizeof(why)), -ENODEV);
	assert_string_equal(why, "the run has no private or dram nodes to allocate on");
	pn_nodeset_set(&roles.private_nodes, 1);
	why[0] = '\0';
	assert_int_equal(pn_workload_supported(&w, &env, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	memset(&roles, 0, sizeof(roles));
	pn_nodeset_set(&roles.dram_nodes, 0);
	assert_int_equal(pn_workload_supported(&w, &env, why, sizeof(why)), 0);
}

/* supported() speaks only after the needs are met; without needs, alone. */
static void test_own_after_needs(void **state)
{
	struct pn_workload w = { .name = "t", .needs = PN_NEED_NODES, .supported = own_refuses };
	struct pn_roles roles;
	struct pn_env env = { .roles = &roles };
	char why[256] = "";

	(void)state;
	memset(&roles, 0, sizeof(roles));
	own_calls = 0;
	assert_int_equal(pn_workload_supported(&w, &env, why, sizeof(why)), -ENODEV);
	assert_int_equal(own_calls, 0);
	pn_nodeset_set(&roles.dram_nodes, 0);
	assert_int_equal(pn_workload_supported(&w, &env, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "its own reason");
	assert_int_equal(own_calls, 1);
	w.needs = 0;
	memset(&roles, 0, sizeof(roles));
	assert_int_equal(pn_workload_supported(&w, &env, why, sizeof(why)), -EPERM);
	w.supported = NULL;
	assert_int_equal(pn_workload_supported(&w, &env, why, sizeof(why)), 0);
}

static void test_numa(void **state)
{
	struct pn_workload w = { .name = "t", .needs = PN_NEED_NUMA | PN_NEED_NODES };
	struct pn_roles roles;
	struct pn_env env = { .roles = &roles };
	char why[256] = "";

	(void)state;
	memset(&roles, 0, sizeof(roles));
	if (numa_available() < 0) {
		/* NUMA is checked first: its reason, not the nodes' */
		assert_int_equal(pn_workload_supported(&w, &env, why, sizeof(why)), -EOPNOTSUPP);
		assert_non_null(strstr(why, "NUMA is not available here"));
		return;
	}
	assert_int_equal(pn_workload_supported(&w, &env, why, sizeof(why)), -ENODEV);
	pn_nodeset_set(&roles.dram_nodes, 0);
	assert_int_equal(pn_workload_supported(&w, &env, why, sizeof(why)), 0);
}

/* A bit this build does not know refuses rather than passes unchecked. */
static void test_unknown_need(void **state)
{
	struct pn_workload w = { .name = "t", .needs = 1u << 30 };
	struct pn_env env = { 0 };
	char why[256] = "";

	(void)state;
	assert_int_equal(pn_workload_supported(&w, &env, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "an unknown need 0x40000000");
}

static void test_format(void **state)
{
	char b[64], small[8];

	(void)state;
	assert_string_equal(pn_workload_needs_format(0, b, sizeof(b)), "none");
	assert_string_equal(pn_workload_needs_format(PN_NEED_NODES, b, sizeof(b)), "nodes");
	assert_string_equal(pn_workload_needs_format(PN_NEED_NUMA | PN_NEED_NODES, b, sizeof(b)),
			    "numa, nodes");
	/* cut short, still a string */
	pn_workload_needs_format(PN_NEED_NUMA | PN_NEED_NODES, small, sizeof(small));
	assert_true(strlen(small) < sizeof(small));
}

/* The three NUMA workloads declare the same needs (they had three copies
 * of one supported()). */
static void test_registered(void **state)
{
	static const char *const names[] = { "explicit", "interleave", "exhaust" };

	(void)state;
	for (size_t i = 0; i < PN_ARRAY_SIZE(names); i++) {
		const struct pn_workload *w = pn_workload_find(names[i]);

		assert_non_null(w);
		assert_int_equal(w->needs, PN_NEED_NUMA | PN_NEED_NODES);
		assert_null(w->supported);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nodes),  cmocka_unit_test(test_own_after_needs),
		cmocka_unit_test(test_numa),   cmocka_unit_test(test_unknown_need),
		cmocka_unit_test(test_format), cmocka_unit_test(test_registered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
