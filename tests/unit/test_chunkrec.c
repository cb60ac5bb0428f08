// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_chunkrec.c - workloads/lib/chunkrec.c: the exhaust workload's census
 * of one chunk from move_pages(2) statuses (slots in first-seen order, the
 * fifth node and later summed in `other`, errors as unknown), and what a run
 * of chunks says: the pages off the policy's nodes, the first chunk that
 * spilled.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "workloads/lib/chunkrec.h"

static void test_fill(void **state)
{
	/* node 1 first, then 0, an error, then nodes 2, 3, 4 and 5 */
	static const int st[] = { 1, 1, 0, -EFAULT, 1, 2, 3, 4, 5, 4 };
	struct pn_chunkrec r;
	char buf[128];

	(void)state;
	memset(&r, 0x5a, sizeof(r)); /* fill() owns every field but lat_ns */
	r.unknown = r.other = 0;
	pn_chunkrec_fill(&r, st, PN_ARRAY_SIZE(st));
	assert_int_equal(r.pages, 10);
	assert_int_equal(r.unknown, 1);
	assert_int_equal(r.node[0], 1);
	assert_int_equal(r.on[0], 3);
	assert_int_equal(r.node[1], 0);
	assert_int_equal(r.on[1], 1);
	assert_int_equal(r.node[3], 3);
	assert_int_equal(r.other, 3); /* 4, 5, 4: past the slots */
	assert_int_equal(pn_chunkrec_dominant(&r), 1);
	pn_chunkrec_nodes_str(&r, buf, sizeof(buf));
	assert_string_equal(buf, "1:3,0:1,2:1,3:1,other:3");
}

static void test_empty_slots(void **state)
{
	static const int st[] = { -ENOENT, -ENOENT };
	struct pn_chunkrec r = { 0 };
	char buf[16];

	(void)state;
	pn_chunkrec_fill(&r, st, 2);
	for (int k = 0; k < PN_CHUNKREC_SLOTS; k++)
		assert_int_equal(r.node[k], -1);
	assert_int_equal(pn_chunkrec_dominant(&r), -1);
	pn_chunkrec_nodes_str(&r, buf, sizeof(buf));
	assert_string_equal(buf, "");
}

/* Policy {1}: chunk 0 all on 1, chunk 1 two pages on 0, chunk 2 all on 0. */
static void test_spill(void **state)
{
	static const int c0[] = { 1, 1, 1, 1 }, c1[] = { 1, 0, 1, 0 }, c2[] = { 0, 0, 0, -EFAULT };
	struct pn_chunkrec recs[3] = { { 0 } };
	struct pn_nodeset pol, both;

	(void)state;
	pn_nodeset_zero(&pol);
	pn_nodeset_set(&pol, 1);
	pn_nodeset_zero(&both);
	pn_nodeset_set(&both, 0);
	pn_nodeset_set(&both, 1);
	pn_chunkrec_fill(&recs[0], c0, 4);
	pn_chunkrec_fill(&recs[1], c1, 4);
	pn_chunkrec_fill(&recs[2], c2, 4);
	assert_int_equal(pn_chunkrec_on(&recs[1], &pol), 2);
	assert_int_equal(pn_chunkrec_spilled(recs, 3, &pol), 2 + 3);
	assert_int_equal(pn_chunkrec_first_spill(recs, 3, &pol), 1);
	assert_int_equal(pn_chunkrec_spilled(recs, 1, &pol), 0);
	assert_int_equal(pn_chunkrec_first_spill(recs, 1, &pol), 1); /* none: n */
	assert_int_equal(pn_chunkrec_spilled(recs, 3, &both), 0);
	assert_int_equal(pn_chunkrec_first_spill(recs, 3, &both), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill),
		cmocka_unit_test(test_empty_slots),
		cmocka_unit_test(test_spill),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
