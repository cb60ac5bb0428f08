// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_perf_pageowner.c - page_owner forensics against a replayed
 * /sys/kernel/debug/page_owner (tests/fixtures/pageowner-2node): records
 * filtered to a private node's pfn range, explicit pages told apart, general
 * ones grouped by stack, malformed records counted; and the skip reason
 * where the file is missing.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "collectors/perf/pgowner.h"
#include "perftest.h"
#include "core/lib/pn.h"

static void use(const char *tree)
{
	char root[4096];

	fixture(root, sizeof(root), tree);
	pn_sysroot_set(root);
}

static const char *num_str(const cJSON *o, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static double num(const cJSON *o, const char *k)
{
	return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static void test_grouped(void **state)
{
	/* node 2: pfns 0x48000-0x50000; pid 960 is an explicit workload's */
	static const struct pn_pfnrange r[] = { { 0x48000, 0x50000, 2 } };
	static const uint32_t xpids[] = { 960 };
	struct pn_pgowner o;
	char why[256] = "";
	cJSON *j, *top, *s0, *s1;

	(void)state;
	use("pageowner-2node");
	pn_pgowner_init(&o, r, 1, xpids, 1);
	assert_int_equal(pn_pgowner_read(&o, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_int_equal(o.records, 8); /* all well-formed records, in range or not */
	assert_int_equal(o.malformed, 1);
	/* dd 3 + order-2 slab 4 + __GFP_PRIVATE 1 + pid 960 1 */
	assert_int_equal(o.pages, 9);
	assert_int_equal(o.explicit_pages, 2);
	assert_int_equal(o.n, 2);
	j = pn_pgowner_json(&o, 1);
	assert_int_equal(num(j, "general_pages"), 7);
	assert_int_equal(num(j, "stacks_total"), 2);
	top = cJSON_GetObjectItemCaseSensitive(j, "top_stacks");
	assert_int_equal(cJSON_GetArraySize(top), 1); /* top 1 */
	s0 = cJSON_GetArrayItem(top, 0);
	/* the order-2 slab page (4 pages) outweighs dd's three */
	assert_int_equal(num(s0, "pages"), 4);
	assert_int_equal(num(s0, "allocations"), 1);
	assert_string_equal(num_str(s0, "first_comm"), "a (weird) name");
	assert_int_equal(num(s0, "first_pid"), 900);
	assert_string_equal(num_str(s0, "first_pfn"), "0x48004");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(
				    cJSON_GetObjectItemCaseSensitive(s0, "stack"), 5)),
			    "__kmalloc_noprof+0x2d6/0x3e0");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s0, "stack")), 6);
	assert_non_null(strstr(num_str(j, "source"), "page_owner"));
	cJSON_Delete(j);
	j = pn_pgowner_json(&o, 8);
	s1 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "top_stacks"), 1);
	assert_int_equal(num(s1, "pages"), 3);
	assert_int_equal(num(s1, "allocations"), 3);
	assert_string_equal(num_str(s1, "first_comm"), "dd");
	assert_string_equal(num_str(s1, "gfp"), "GFP_HIGHUSER_MOVABLE|__GFP_COMP");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s1, "stack")), 10);
	cJSON_Delete(j);
	pn_pgowner_free(&o);
	pn_sysroot_set("");
}

static void test_feed_edges(void **state)
{
	static const struct pn_pfnrange r[] = { { 0x10, 0x20, 1 } };
	static const char *const bad[] = {
		"",
		"Page allocated via order 0, mask 0x0(none), pid 1, tgid 1 (x), ts 1 ns",
		"Page allocated via order 0, mask 0x0(none), pid 1, tgid 1 (x), ts 1 ns\nPFN zz",
		"Page allocated via order 0, mask 0x0 pid 1\nPFN 0x10 type",
		"Page allocated via order 0, mask 0x0(none), pid 1, tgid 1 x, ts 1 ns\nPFN 0x10",
	};
	const char *ok = "Page allocated via order 1, mask 0x0(none), pid 1, tgid 7 (x), ts 1 ns\n"
			 "PFN 0x11 type Movable\n";
	struct pn_pgowner o;

	(void)state;
	pn_pgowner_init(&o, r, 1, NULL, 0);
	for (size_t i = 0; i < PN_ARRAY_SIZE(bad); i++)
		assert_int_equal(pn_pgowner_feed(&o, bad[i], strlen(bad[i])), -EINVAL);
	assert_int_equal(o.malformed, (int64_t)PN_ARRAY_SIZE(bad));
	/* a record without frames groups under the empty stack */
	assert_int_equal(pn_pgowner_feed(&o, ok, strlen(ok)), 0x11);
	assert_int_equal(o.pages, 2);
	assert_int_equal(o.n, 1);
	assert_string_equal(o.s[0].stack, "");
	assert_int_equal(o.s[0].pid, 7);
	pn_pgowner_free(&o);
}

static void test_missing(void **state)
{
	static const struct pn_pfnrange r[] = { { 0, 1, 0 } };
	struct pn_pgowner o;
	char why[256];

	(void)state;
	use("laptop-1node"); /* no debugfs in the capture */
	pn_pgowner_init(&o, r, 1, NULL, 0);
	assert_int_equal(pn_pgowner_read(&o, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "CONFIG_PAGE_OWNER"));
	pn_pgowner_free(&o);
	pn_sysroot_set("");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grouped),
		cmocka_unit_test(test_feed_edges),
		cmocka_unit_test(test_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
