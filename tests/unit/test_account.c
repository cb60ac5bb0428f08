// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the exact per-node accounting (account.c): per-CPU free
 * lists corrected, kinds that add up to the total at every moment, explained
 * pages, the peak moment, and a live reading of this machine's nodes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/runner/account.h"
#include "core/sys/procfs.h"

#define PS    ((int64_t)4096)
#define MB(x) ((int64_t)(x) << 20)

static struct pn_nodemem mem(int64_t used, int64_t anon, int64_t file, int64_t slab)
{
	struct pn_nodemem m;

	memset(&m, 0, sizeof(m));
	m.total = MB(1024);
	m.used = used;
	m.free = m.total - used;
	m.anon = anon;
	m.file = file;
	m.slab = slab;
	return m;
}

static struct pn_node_read rd(int64_t used, int64_t anon, int64_t file, int64_t slab, int64_t pcp,
			      uint64_t t)
{
	struct pn_nodemem m = mem(used, anon, file, slab);
	struct pn_node_read r;

	pn_node_read_from(&m, pcp, PS, &r);
	r.t_ns = t;
	return r;
}

static int64_t kind_sum(const struct pn_general *g)
{
	int64_t s = 0;

	for (int k = 0; k < PN_NKINDS; k++)
		s += g->by_kind[k];
	return s;
}

/* A reading's kinds add up to its used pages; pcp pages are not used. */
static void test_read_sums(void **state)
{
	struct pn_node_read r = rd(MB(100), MB(40), MB(30), MB(10), 500, 1);
	int64_t s = 0;

	(void)state;
	for (int k = 0; k < PN_NKINDS; k++)
		s += r.kinds[k];
	assert_int_equal(r.used, MB(100) / PS - 500);
	assert_int_equal(s, r.used);
	assert_int_equal(r.kinds[PN_KIND_OTHER], (MB(20)) / PS - 500);
}

/* Nothing moved: exactly 0, also when the per-CPU lists changed size. */
static void test_quiet(void **state)
{
	struct pn_node_acct a = { .node = 1, .is_private = true };

	(void)state;
	a.before = rd(MB(64), MB(8), MB(8), MB(1), 100, 1);
	/* 63 pages went from the buddy lists to a pcp list: MemFree dropped,
	 * nothing was allocated. */
	a.after = rd(MB(64) + 63 * PS, MB(8), MB(8), MB(1), 163, 2);
	pn_node_acct_compute(&a);
	assert_int_equal(a.used_growth_pages, 0);
	assert_int_equal(a.general.total, 0);
	assert_int_equal(kind_sum(&a.general), 0);
}

/* A known leak of N anon pages is N, all anon. */
static void test_known_leak(void **state)
{
	struct pn_node_acct a = { .node = 2, .is_private = true };
	int64_t n = 16384;

	(void)state;
	a.before = rd(MB(10), MB(1), 0, 0, 40, 1);
	a.after = rd(MB(10) + n * PS, MB(1) + n * PS, 0, 0, 40, 2);
	pn_node_acct_compute(&a);
	assert_int_equal(a.general.total, n);
	assert_int_equal(a.general.by_kind[PN_KIND_ANON], n);
	assert_int_equal(kind_sum(&a.general), a.general.total);
	assert_false(a.general.at_peak);
}

/* Declared-explicit pages are explained to the page; the rest is general. */
static void test_explained(void **state)
{
	struct pn_node_acct a = { .node = 1, .is_private = true, .explained_pages = 8192 };

	(void)state;
	a.before = rd(MB(10), MB(1), MB(1), 0, 10, 1);
	a.after = rd(MB(10) + 8192 * PS + 7 * PS, MB(1) + 8192 * PS, MB(1) + 7 * PS, 0, 10, 2);
	pn_node_acct_compute(&a);
	assert_int_equal(a.general.total, 7);
	assert_int_equal(a.general.by_kind[PN_KIND_ANON], 0);
	assert_int_equal(a.general.by_kind[PN_KIND_FILE], 7);
	assert_int_equal(kind_sum(&a.general), 7);
}

/*
 * Explained pages of a known kind (the --exec --explicit command's page
 * cache, from its cgroup's numa_stat) explain growth of that kind; the rest
 * stay anonymous.  More of a kind than the kind grew hides nothing else.
 */
static void test_explained_kind(void **state)
{
	struct pn_node_acct a = { .node = 1, .is_private = true, .explained_pages = 8192 + 100 };
	struct pn_node_acct b = { .node = 1, .is_private = true, .explained_pages = 9000 };

	(void)state;
	a.explained_kind_pages[PN_KIND_FILE] = 8192;
	a.before = rd(MB(10), MB(1), MB(1), 0, 10, 1);
	a.after = rd(MB(10) + 8292 * PS, MB(1) + 100 * PS, MB(1) + 8192 * PS, 0, 10, 2);
	pn_node_acct_compute(&a);
	assert_int_equal(a.general.total, 0);
	assert_int_equal(kind_sum(&a.general), 0);

	b.explained_kind_pages[PN_KIND_FILE] = 9000;
	b.before = a.before;
	b.after = rd(MB(10) + 8242 * PS, MB(1) + 50 * PS, MB(1) + 8192 * PS, 0, 10, 2);
	pn_node_acct_compute(&b);
	assert_int_equal(b.general.by_kind[PN_KIND_FILE], 0);
	assert_int_equal(b.general.by_kind[PN_KIND_ANON], 50);
	assert_int_equal(b.general.total, 50);
}

/*
 * Transient allocations: page cache at one moment, slab at another, both
 * gone at the end.  The general pages are those of the worse moment, with
 * that moment's kinds (a field-wise maximum would add both and no moment
 * ever held that much).
 */
static void test_peak_is_one_moment(void **state)
{
	struct pn_node_acct a = { .node = 1, .is_private = true };
	struct pn_node_read s1 = rd(MB(10) + 300 * PS, MB(1), 300 * PS, 0, 0, 5);
	struct pn_node_read s2 = rd(MB(10) + 200 * PS, MB(1), 0, 200 * PS, 0, 6);

	(void)state;
	a.before = rd(MB(10), MB(1), 0, 0, 0, 1);
	a.after = a.before;
	a.after.t_ns = 9;
	pn_node_acct_sample(&a, &s1);
	pn_node_acct_sample(&a, &s2);
	pn_node_acct_compute(&a);
	assert_int_equal(a.end.total, 0);
	assert_int_equal(a.general.total, 300);
	assert_true(a.general.at_peak);
	assert_int_equal(a.general.t_ns, 5);
	assert_int_equal(a.general.by_kind[PN_KIND_FILE], 300);
	assert_int_equal(a.general.by_kind[PN_KIND_SLAB], 0);
	assert_int_equal(kind_sum(&a.general), a.general.total);
	pn_node_acct_free(&a);
}

/* Page cache reclaimed while slab arrived: the slab is general, the net is
 * negative, and the kinds still add up to the total. */
static void test_shrink_does_not_hide(void **state)
{
	struct pn_node_acct a = { .node = 1, .is_private = true };

	(void)state;
	a.before = rd(MB(20), MB(1), 300 * PS, 0, 0, 1);
	a.after = rd(MB(20) - 100 * PS, MB(1), 0, 200 * PS, 0, 2);
	pn_node_acct_compute(&a);
	assert_int_equal(a.general.total, 200);
	assert_int_equal(a.general.by_kind[PN_KIND_SLAB], 200);
	assert_int_equal(a.general.by_kind[PN_KIND_FILE], 0);
	assert_int_equal(a.general.net, -100);
	assert_int_equal(kind_sum(&a.general), a.general.total);
}

/* Mid-phase, a huge page of the explicit workload is allocated but not yet
 * mapped: in "other", not anon.  It is explained; a slab page is not. */
static void test_inflight_huge_page(void **state)
{
	struct pn_node_acct a = { .node = 1, .is_private = true, .explained_pages = 2048 };
	struct pn_node_read mid =
		rd(MB(10) + 1024 * PS + 512 * PS + 3 * PS, MB(1) + 1024 * PS, 0, 3 * PS, 0, 5);

	(void)state;
	a.before = rd(MB(10), MB(1), 0, 0, 0, 1);
	a.after = rd(MB(10) + 2048 * PS, MB(1) + 2048 * PS, 0, 0, 0, 9);
	pn_node_acct_sample(&a, &mid);
	pn_node_acct_compute(&a);
	assert_int_equal(a.general.total, 3);
	assert_int_equal(a.general.by_kind[PN_KIND_SLAB], 3);
	assert_int_equal(a.general.by_kind[PN_KIND_OTHER], 0);
	assert_true(a.general.at_peak);
	pn_node_acct_free(&a);
}

/* Explicit pages freed before the end explain the moments they were held. */
static void test_freed_explicit(void **state)
{
	struct pn_node_acct a = {
		.node = 1, .is_private = true, .explained_pages = 100, .explained_freed_pages = 1000
	};
	struct pn_node_read mid = rd(MB(10) + 1100 * PS, MB(1) + 1100 * PS, 0, 0, 0, 5);

	(void)state;
	a.before = rd(MB(10), MB(1), 0, 0, 0, 1);
	a.after = rd(MB(10) + 100 * PS, MB(1) + 100 * PS, 0, 0, 0, 9);
	pn_node_acct_sample(&a, &mid);
	pn_node_acct_compute(&a);
	assert_int_equal(a.general.total, 0);
	/* without the declaration the same moment is 1000 general pages */
	a.explained_freed_pages = 0;
	pn_node_acct_compute(&a);
	assert_int_equal(a.general.total, 1000);
	pn_node_acct_free(&a);
}

/* A sample whose readings never agreed is left out of the peak. */
static void test_unsettled_sample(void **state)
{
	struct pn_node_acct a = { .node = 1, .is_private = true };
	struct pn_node_read noisy = rd(MB(10) + 5 * PS, MB(1), 0, 0, 0, 5);

	(void)state;
	noisy.unsettled = true;
	a.before = rd(MB(10), MB(1), 0, 0, 0, 1);
	a.after = a.before;
	pn_node_acct_sample(&a, &noisy);
	pn_node_acct_compute(&a);
	assert_int_equal(a.general.total, 0);
	assert_int_equal(a.unsettled_samples, 1);
	noisy.unsettled = false;
	a.samples[0] = noisy;
	pn_node_acct_compute(&a);
	assert_int_equal(a.general.total, 5);
	pn_node_acct_free(&a);
}

/* Mid-phase, explicit pages are still arriving: never blamed. */
static void test_peak_never_blames_explicit(void **state)
{
	struct pn_node_acct a = { .node = 1, .is_private = true, .explained_pages = 1000 };
	struct pn_node_read mid = rd(MB(10) + 500 * PS, MB(1) + 500 * PS, 0, 0, 0, 5);

	(void)state;
	a.before = rd(MB(10), MB(1), 0, 0, 0, 1);
	a.after = rd(MB(10) + 1000 * PS, MB(1) + 1000 * PS, 0, 0, 0, 9);
	pn_node_acct_sample(&a, &mid);
	pn_node_acct_compute(&a);
	assert_int_equal(a.general.total, 0);
	pn_node_acct_free(&a);
}

/* A live reading of this machine: kinds add up, pcp pages are counted. */
static void test_live(void **state)
{
	struct pn_nodeset nodes;
	struct pn_node_read r[PN_MAX_NODES];
	int n;

	(void)state;
	if (pn_nodes_with_memory(&nodes)) {
		print_message("SKIP: no NUMA node files here\n");
		skip();
	}
	n = pn_nodeset_count(&nodes);
	assert_int_equal(pn_node_read_set(&nodes, geteuid() == 0, 3, r, NULL), 0);
	for (int i = 0; i < n; i++) {
		int64_t s = 0;

		for (int k = 0; k < PN_NKINDS; k++)
			s += r[i].kinds[k];
		assert_int_equal(s, r[i].used);
		assert_true(r[i].used > 0);
		assert_true(r[i].pcp >= 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_sums),
		cmocka_unit_test(test_quiet),
		cmocka_unit_test(test_known_leak),
		cmocka_unit_test(test_explained),
		cmocka_unit_test(test_explained_kind),
		cmocka_unit_test(test_peak_is_one_moment),
		cmocka_unit_test(test_shrink_does_not_hide),
		cmocka_unit_test(test_peak_never_blames_explicit),
		cmocka_unit_test(test_inflight_huge_page),
		cmocka_unit_test(test_freed_explicit),
		cmocka_unit_test(test_unsettled_sample),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
