// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests of verdict v0: growth by kind, explained pages, phase peaks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "verdict.h"

#define PS    4096
#define MB(x) ((int64_t)(x) << 20)

static struct pn_nodemem mem(int64_t used, int64_t anon, int64_t file)
{
	struct pn_nodemem m;

	memset(&m, 0, sizeof(m));
	m.used = used;
	m.anon = anon;
	m.file = file;
	m.other = used - anon - file;
	return m;
}

/* Explicit pages explain anon growth: nothing general. */
static void test_explained(void **state)
{
	struct pn_node_delta d = { .node = 1, .is_private = true };

	(void)state;
	d.before = mem(MB(10), 0, 0);
	d.after = mem(MB(74), MB(64), 0);
	d.explained_pages = MB(64) / PS;
	pn_node_delta_compute(&d, PS);
	assert_int_equal(d.used_growth_pages, MB(64) / PS);
	assert_int_equal(d.general_pages, 0);
	assert_int_equal(d.general_by_kind[PN_KIND_ANON], 0);
}

/* Page cache left behind is general, attributed to file. */
static void test_file_leak(void **state)
{
	struct pn_node_delta d = { .node = 1, .is_private = true };

	(void)state;
	d.before = mem(MB(10), 0, 0);
	d.after = mem(MB(42), 0, MB(32));
	pn_node_delta_compute(&d, PS);
	assert_int_equal(d.general_pages, MB(32) / PS);
	assert_int_equal(d.general_by_kind[PN_KIND_FILE], MB(32) / PS);
	assert_int_equal(d.general_by_kind[PN_KIND_ANON], 0);
}

/* A general allocation that came and went during the phase is caught by the
 * peak, though the end snapshot shows nothing. */
static void test_transient_peak(void **state)
{
	struct pn_node_delta d = { .node = 2, .is_private = true };
	struct pn_nodemem mid = mem(MB(110), MB(100), 0);

	(void)state;
	d.before = mem(MB(10), 0, 0);
	d.after = mem(MB(10), 0, 0);
	pn_node_delta_compute(&d, PS);
	assert_int_equal(d.general_pages, 0);
	pn_node_delta_sample(&d, &d.before);
	pn_node_delta_sample(&d, &mid);
	pn_node_delta_sample(&d, &d.after);
	pn_node_delta_compute(&d, PS);
	assert_int_equal(d.peak_used_growth_pages, MB(100) / PS);
	assert_int_equal(d.general_pages, MB(100) / PS);
	assert_int_equal(d.general_by_kind[PN_KIND_ANON], MB(100) / PS);
}

/* Explicit pages growing over the phase are never blamed by the peak. */
static void test_peak_does_not_blame_explicit(void **state)
{
	struct pn_node_delta d = { .node = 1, .is_private = true };

	(void)state;
	d.before = mem(MB(10), 0, 0);
	for (int i = 0; i <= 8; i++) {
		struct pn_nodemem m = mem(MB(10 + 8 * i), MB(8 * i), 0);

		pn_node_delta_sample(&d, &m);
	}
	d.after = mem(MB(74), MB(64), 0);
	pn_node_delta_sample(&d, &d.after);
	d.explained_pages = MB(64) / PS;
	pn_node_delta_compute(&d, PS);
	assert_int_equal(d.general_pages, 0);
}

/* Memory freed during the phase is not negative general memory. */
static void test_shrink_clamps(void **state)
{
	struct pn_node_delta d = { .node = 1, .is_private = true };

	(void)state;
	d.before = mem(MB(100), MB(50), MB(40));
	d.after = mem(MB(20), MB(10), MB(5));
	pn_node_delta_compute(&d, PS);
	assert_true(d.used_growth_pages < 0);
	assert_int_equal(d.general_pages, 0);
	for (int k = 0; k < PN_NKINDS; k++)
		assert_true(d.general_by_kind[k] >= 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_explained),
		cmocka_unit_test(test_file_leak),
		cmocka_unit_test(test_transient_peak),
		cmocka_unit_test(test_peak_does_not_blame_explicit),
		cmocka_unit_test(test_shrink_clamps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
