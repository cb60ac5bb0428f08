// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_chase.c - the chase's permutation (one cycle, window property, no
 * sequential runs), its errors, LLC discovery from live and replayed trees,
 * and on this host: an L1-sized chase is faster than one 4x the LLC,
 * measured side by side (a ratio, never an absolute time).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "workloads/lib/chase.h"
#include "fixture.h"
#include "workloads/lib/membw.h"
#include "workloads/lib/nodebuf.h"

#define PAGE 4096UL

static size_t elem_of(const struct pn_chase *c, const void *p)
{
	size_t off = (size_t)((const char *)p - c->buf);

	assert_true((const char *)p >= c->buf && off < c->bytes);
	assert_int_equal(off % c->stride, 0);
	return off / c->stride;
}

static void *next_of(const void *p)
{
	void *n;

	memcpy(&n, p, sizeof(n));
	return n;
}

/*
 * Walk the whole cycle from c->start and check: every element once, back at
 * the start after exactly nelems hops, each window visited in one run of
 * its full size, and few hops to the next element in memory.
 */
static void check_cycle(const struct pn_chase *c)
{
	size_t n = c->nelems, w = c->window_elems, nwin = (n + w - 1) / w;
	unsigned char *seen = calloc(n, 1), *win_done = calloc(nwin, 1);
	size_t runs = 0, run_len = 0, cur_win = SIZE_MAX, sequential = 0;
	const void *p = c->start;

	assert_non_null(seen);
	assert_non_null(win_done);
	for (size_t i = 0; i < n; i++) {
		size_t e = elem_of(c, p), nx;

		assert_false(seen[e]);
		seen[e] = 1;
		if (e / w != cur_win) {
			if (cur_win != SIZE_MAX) {
				size_t full = cur_win + 1 < nwin ? w : n - cur_win * w;

				assert_int_equal(run_len, full);
			}
			cur_win = e / w;
			assert_false(win_done[cur_win]); /* no window is entered twice */
			win_done[cur_win] = 1;
			runs++;
			run_len = 0;
		}
		run_len++;
		p = next_of(p);
		nx = elem_of(c, p);
		if (nx == e + 1)
			sequential++;
	}
	assert_ptr_equal(p, c->start);
	assert_int_equal(runs, nwin);
	/* A random order inside a window of w elements has about n/w ascending
	 * neighbours; a sequential chase would have n - 1. */
	if (n >= 64)
		assert_true(sequential * 20 < n);
	free(seen);
	free(win_done);
}

static void test_cycle_windows(void **state)
{
	/* 4 full windows of 64 pages and a short fifth one, stride 256. */
	size_t win = 64 * PAGE, bytes = 4 * win + 10 * PAGE;
	char *buf = aligned_alloc(PAGE, bytes);
	struct pn_chase c;

	(void)state;
	assert_non_null(buf);
	assert_int_equal(pn_chase_build(&c, buf, bytes, 256, win, 42), 0);
	assert_int_equal(c.nelems, bytes / 256);
	assert_int_equal(c.window_elems, win / 256);
	check_cycle(&c);
	free(buf);
}

static void test_cycle_shapes(void **state)
{
	static const size_t strides[] = { 128, 256, 4096 };
	size_t bytes = 1UL << 21;
	char *buf = aligned_alloc(PAGE, bytes);
	struct pn_chase c;

	(void)state;
	assert_non_null(buf);
	for (size_t s = 0; s < PN_ARRAY_SIZE(strides); s++) {
		/* one window over everything, and 64-page windows */
		assert_int_equal(pn_chase_build(&c, buf, bytes, strides[s], 0, s), 0);
		assert_int_equal(c.window_elems, c.nelems);
		check_cycle(&c);
		assert_int_equal(pn_chase_build(&c, buf, bytes, strides[s], 64 * PAGE, s), 0);
		check_cycle(&c);
	}
	/* two elements: the smallest cycle */
	assert_int_equal(pn_chase_build(&c, buf, 256, 128, 0, 1), 0);
	check_cycle(&c);
	free(buf);
}

static void test_seed(void **state)
{
	size_t bytes = 64 * PAGE;
	char *a = aligned_alloc(PAGE, bytes), *b = aligned_alloc(PAGE, bytes);
	struct pn_chase ca, cb;
	size_t same = 0;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(pn_chase_build(&ca, a, bytes, 128, 0, 7), 0);
	assert_int_equal(pn_chase_build(&cb, b, bytes, 128, 0, 7), 0);
	for (size_t off = 0; off < bytes; off += 128)
		assert_int_equal((char *)next_of(a + off) - a, (char *)next_of(b + off) - b);
	assert_int_equal(pn_chase_build(&cb, b, bytes, 128, 0, 8), 0);
	for (size_t off = 0; off < bytes; off += 128)
		same += (char *)next_of(a + off) - a == (char *)next_of(b + off) - b;
	assert_true(same < bytes / 128 / 4);
	free(a);
	free(b);
}

static void test_bad_geometry(void **state)
{
	char *buf = aligned_alloc(PAGE, PAGE);
	struct pn_chase c;

	(void)state;
	assert_non_null(buf);
	assert_int_equal(pn_chase_build(&c, buf, PAGE, 192, 0, 1), -EINVAL); /* not 2^k */
	assert_int_equal(pn_chase_build(&c, buf, PAGE, 4, 0, 1), -EINVAL);   /* < pointer */
	assert_int_equal(pn_chase_build(&c, buf, 128, 128, 0, 1), -EINVAL);  /* 1 element */
	assert_int_equal(pn_chase_build(&c, buf, PAGE, 128, 200, 1), -EINVAL);
	assert_int_equal(pn_chase_build(&c, NULL, PAGE, 128, 0, 1), -EINVAL);
	assert_int_equal(pn_chase_build(&c, buf + 1, PAGE - 1, 128, 0, 1), -EINVAL);
	free(buf);
}

static void test_stats(void **state)
{
	double v[] = { 5, 1, 4, 2, 3 };
	struct pn_lat_stats s;

	(void)state;
	pn_lat_stats(v, PN_ARRAY_SIZE(v), &s);
	assert_int_equal(s.n, 5);
	assert_true(s.min_ns == 1 && s.max_ns == 5 && s.median_ns == 3);
	assert_true(s.p99_ns > 4.9 && s.p99_ns <= 5);
	assert_true(s.mean_ns == 3);
	/* one disturbed sample moves the mean (MLC's, multichase -a), not min or median */
	{
		double w[] = { 100, 101, 102, 103, 900 };

		pn_lat_stats(w, PN_ARRAY_SIZE(w), &s);
		assert_true(s.min_ns == 100 && s.median_ns == 102 && s.mean_ns == 261.2);
	}
	/* disturbed: the median more than 1.25x the best sample */
	{
		double quiet[] = { 100, 110, 120, 124, 124.9 },
		       busy[] = { 100, 120, 126, 300, 400 };

		pn_lat_stats(quiet, PN_ARRAY_SIZE(quiet), &s);
		assert_false(pn_lat_disturbed(&s));
		pn_lat_stats(busy, PN_ARRAY_SIZE(busy), &s);
		assert_true(pn_lat_disturbed(&s));
	}
	pn_lat_stats(v, 0, &s);
	assert_int_equal(s.n, 0);
	assert_false(pn_lat_disturbed(&s));
}

static void test_llc_fixtures(void **state)
{
	uint64_t b = 0;

	(void)state;
	/* The captured QEMU guest: L3 of its "QEMU Virtual CPU" (read independently). */
	use_fixture("qemu-hmat-4node");
	assert_int_equal(pn_llc_bytes(0, &b), 0);
	assert_int_equal(b, 16UL << 20);
	use_fixture("malformed/no-numa");
	assert_int_equal(pn_llc_bytes(0, &b), -ENOENT);
	pn_sysroot_set("");
	assert_int_equal(pn_llc_bytes(-1, &b), 0);
	assert_true(b >= 64 * 1024UL);
}

/* Median ns per hop of a chase over `bytes` on node 0 (THP when offered). */
static double chase_median(size_t bytes, struct pn_nodebuf *nb)
{
	struct pn_chase c;
	struct pn_lat_stats st;
	double s[8];
	uint64_t hops;

	assert_int_equal(pn_nodebuf_alloc(nb, 0, bytes, PN_HUGE_AUTO), 0);
	assert_int_equal(
		pn_chase_build(&c, nb->addr, bytes, 128, bytes >= 64 * PAGE ? 64 * PAGE : 0, 3), 0);
	assert_int_equal(pn_cache_flush(nb->addr, bytes), 0);
	hops = pn_chase_calibrate(&c, 20ULL * 1000 * 1000);
	assert_int_equal(pn_chase_sample(&c, hops, s, PN_ARRAY_SIZE(s)), 0);
	pn_lat_stats(s + 1, PN_ARRAY_SIZE(s) - 1, &st); /* the first sample dropped */
	assert_true(st.min_ns > 0);
	return st.median_ns;
}

static void test_latency_order(void **state)
{
	struct pn_nodebuf small, big;
	uint64_t llc = 32UL << 20;
	double l1, mem;

	(void)state;
	pn_sysroot_set("");
	assert_int_equal(pn_llc_bytes(-1, &llc), 0);
	assert_int_equal(pn_pin_thread(0), 0);
	l1 = chase_median(16 * 1024UL, &small);
	mem = chase_median((size_t)(4 * llc), &big);
	printf("chase on this host: 16 KiB %.2f ns/hop, %llu MiB (4x LLC, %s) %.2f ns/hop, "
	       "ratio %.1f\n",
	       l1, (unsigned long long)(4 * llc >> 20), pn_huge_name(big.huge), mem, mem / l1);
	assert_true(mem > 2 * l1);
	pn_nodebuf_free(&small);
	pn_nodebuf_free(&big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cycle_windows), cmocka_unit_test(test_cycle_shapes),
		cmocka_unit_test(test_seed),	      cmocka_unit_test(test_bad_geometry),
		cmocka_unit_test(test_stats),	      cmocka_unit_test(test_llc_fixtures),
		cmocka_unit_test(test_latency_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
