// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_membw.c - bandwidth kernels and node-bound buffers on this host:
 * every kernel moves data (and the data is what the kernel should have
 * written), rates are positive, a cache-resident read beats one over 4x
 * the LLC (a ratio printed, no absolute figure asserted), the loaded chase
 * runs beside load threads, and buffers are where move_pages says.
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

#include "workloads/lib/chase.h"
#include "workloads/lib/membw.h"
#include "workloads/lib/nodebuf.h"

static void test_names(void **state)
{
	enum pn_bw_kind k;

	(void)state;
	for (int i = 0; i < PN_BW_NKINDS; i++) {
		assert_int_equal(pn_bw_kind_parse(pn_bw_kind_name((enum pn_bw_kind)i), &k), 0);
		assert_int_equal(k, i);
	}
	assert_int_equal(pn_bw_kind_parse("stream", &k), -EINVAL);
	assert_int_equal(pn_bw_arrays(PN_BW_READ), 1);
	assert_int_equal(pn_bw_arrays(PN_BW_COPY), 2);
	assert_int_equal(pn_bw_arrays(PN_BW_TRIAD), 3);
	assert_string_equal(pn_huge_name(PN_HUGE_HUGETLB), "hugetlb");
}

static void test_cpulist(void **state)
{
	int c[16];

	(void)state;
	assert_int_equal(pn_cpulist_parse("0-3,8,10-11\n", c, 16), 7);
	assert_int_equal(c[0], 0);
	assert_int_equal(c[3], 3);
	assert_int_equal(c[4], 8);
	assert_int_equal(c[6], 11);
	assert_int_equal(pn_cpulist_parse("\n", c, 16), 0);
	assert_int_equal(pn_cpulist_parse("0-3", c, 2), 2);
	assert_int_equal(pn_cpulist_parse("3-1", c, 16), -EINVAL);
	assert_int_equal(pn_cpulist_parse("x", c, 16), -EINVAL);
	/* curve steps: 0, 1, 2, 4, ..., max */
	assert_int_equal(pn_count_steps(0, 6, c, 16), 5);
	assert_true(c[0] == 0 && c[1] == 1 && c[2] == 2 && c[3] == 4 && c[4] == 6);
	assert_int_equal(pn_count_steps(1, 8, c, 16), 4);
	assert_true(c[0] == 1 && c[3] == 8);
	assert_int_equal(pn_count_steps(0, 0, c, 16), 1);
	assert_int_equal(pn_count_steps(1, 1, c, 16), 1);
	assert_int_equal(pn_count_steps(1, 1000, c, 3), 3);
}

static void alloc_arrays(struct pn_nodebuf *b, size_t bytes)
{
	for (int i = 0; i < 3; i++)
		assert_int_equal(pn_nodebuf_alloc(&b[i], 0, bytes, PN_HUGE_AUTO), 0);
}

static void free_arrays(struct pn_nodebuf *b)
{
	for (int i = 0; i < 3; i++)
		pn_nodebuf_free(&b[i]);
}

static struct pn_bw_job job_of(enum pn_bw_kind k, struct pn_nodebuf *b, size_t bytes, int nt,
			       const int *cpus)
{
	struct pn_bw_job j = { .kind = k, .bytes = bytes, .nthreads = nt, .cpus = cpus };

	for (int i = 0; i < 3; i++)
		j.arr[i] = b[i].addr;
	return j;
}

static void test_kernels_move_data(void **state)
{
	static const int cpus[2] = { 0, 1 };
	size_t bytes = 4UL << 20;
	struct pn_nodebuf b[3];
	int nt = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;

	(void)state;
	alloc_arrays(b, bytes);
	for (int k = 0; k < PN_BW_NKINDS; k++) {
		struct pn_bw_job j = job_of((enum pn_bw_kind)k, b, bytes, nt, cpus);
		struct pn_bw_result r;
		double *a = b[0].addr, *y = b[1].addr, *z = b[2].addr;

		if (k == PN_BW_TRIAD) /* a = y + 3 z */
			for (size_t i = 0; i < bytes / sizeof(double); i++) {
				y[i] = 1.0;
				z[i] = 2.0;
			}
		if (k == PN_BW_COPY)
			memset(b[1].addr, 0x5a, bytes);
		memset(b[0].addr, 0, bytes);
		assert_int_equal(pn_bw_measure(&j, 50, &r), 0);
		assert_int_equal(r.nthreads, nt);
		assert_true(r.bytes > 0 && r.bytes_per_sec > 0 && r.wall_ns > 0);
		if (k == PN_BW_COPY)
			assert_int_equal(((unsigned char *)b[0].addr)[4096], 0x5a);
		if (k == PN_BW_TRIAD)
			assert_true(a[100] == 7.0);
		if (k == PN_BW_WRITE || k == PN_BW_WRITE_NT) /* stores landed */
			assert_true(memchr(b[0].addr, 0, 64) == NULL ||
				    memcmp(b[0].addr, (char[64]){ 0 }, 64) != 0);
		printf("%-8s %d thread(s): %.2f GB/s (4 MiB arrays, cache-resident)\n",
		       pn_bw_kind_name((enum pn_bw_kind)k), nt, r.bytes_per_sec / 1e9);
	}
	free_arrays(b);
}

/* MLC's injection delay throttles a load thread, and every line is still done
 * (copy moves every byte): 2000 spins per 64-byte line against none, same
 * cache-resident array, ratio only. */
static void test_delay_throttles(void **state)
{
	static const int cpu0 = 0;
	size_t bytes = 1UL << 20;
	struct pn_nodebuf b[3];
	struct pn_bw_result r0, rd;
	struct pn_bw_job j;

	(void)state;
	alloc_arrays(b, bytes);
	j = job_of(PN_BW_READ, b, bytes, 1, &cpu0);
	assert_int_equal(pn_bw_measure(&j, 50, &r0), 0);
	j.delay = 2000;
	assert_int_equal(pn_bw_measure(&j, 50, &rd), 0);
	printf("read, 1 thread: delay 0 %.3f GB/s, delay 2000 %.3f GB/s, ratio %.0f\n",
	       r0.bytes_per_sec / 1e9, rd.bytes_per_sec / 1e9, r0.bytes_per_sec / rd.bytes_per_sec);
	assert_true(rd.bytes > 0 && r0.bytes_per_sec > 10 * rd.bytes_per_sec);
	j = job_of(PN_BW_COPY, b, 8192, 1, &cpu0);
	j.delay = 10;
	memset(b[1].addr, 0x5a, 8192);
	memset(b[0].addr, 0, 8192);
	assert_int_equal(pn_bw_measure(&j, 50, &rd), 0);
	assert_true(rd.bytes >= 2 * 8192UL);
	for (size_t i = 0; i < 8192; i += 64)
		assert_int_equal(((unsigned char *)b[0].addr)[i + 63], 0x5a);
	free_arrays(b);
}

static void test_bad_jobs(void **state)
{
	struct pn_bw_load *l;
	char x[64] __attribute__((aligned(64)));
	struct pn_bw_job j = { .kind = PN_BW_COPY, .bytes = 1 << 20, .nthreads = 1 };

	(void)state;
	assert_int_equal(pn_bw_start(&j, &l), -EINVAL); /* no arrays */
	j.kind = PN_BW_READ;
	j.arr[0] = x;
	j.bytes = sizeof(x);
	assert_int_equal(pn_bw_start(&j, &l), -EINVAL); /* slice under a page */
	j.nthreads = 0;
	assert_int_equal(pn_bw_start(&j, &l), -EINVAL);
	assert_int_equal(pn_bw_stop(NULL, NULL), -EINVAL);
}

static void test_read_order(void **state)
{
	uint64_t llc = 32UL << 20;
	struct pn_nodebuf small[3], big[3];
	struct pn_bw_result rs, rb;
	struct pn_bw_job j;
	static const int cpu0 = 0;

	(void)state;
	pn_sysroot_set("");
	assert_int_equal(pn_llc_bytes(-1, &llc), 0);
	assert_int_equal(pn_nodebuf_alloc(&small[0], 0, 16 * 1024UL, PN_HUGE_NONE), 0);
	assert_int_equal(pn_nodebuf_alloc(&big[0], 0, (size_t)(4 * llc), PN_HUGE_AUTO), 0);
	j = (struct pn_bw_job){ .kind = PN_BW_READ,
				.arr = { small[0].addr },
				.bytes = 16 * 1024UL,
				.nthreads = 1,
				.cpus = &cpu0 };
	assert_int_equal(pn_bw_measure(&j, 200, &rs), 0);
	j.arr[0] = big[0].addr;
	j.bytes = (size_t)(4 * llc);
	assert_int_equal(pn_bw_measure(&j, 200, &rb), 0);
	printf("read, 1 thread: 16 KiB %.2f GB/s, %llu MiB %.2f GB/s, ratio %.1f\n",
	       rs.bytes_per_sec / 1e9, (unsigned long long)(4 * llc >> 20), rb.bytes_per_sec / 1e9,
	       rs.bytes_per_sec / rb.bytes_per_sec);
	assert_true(rs.bytes_per_sec > rb.bytes_per_sec);
	pn_nodebuf_free(&small[0]);
	pn_nodebuf_free(&big[0]);
}

static void test_loaded_chase(void **state)
{
	static const int cpu1 = 1;
	struct pn_nodebuf cb, lb;
	struct pn_chase c;
	struct pn_bw_load *l;
	struct pn_bw_result r;
	double s[4];
	size_t bytes = 64UL << 20;

	(void)state;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		skip();
	assert_int_equal(pn_nodebuf_alloc(&cb, 0, bytes, PN_HUGE_AUTO), 0);
	assert_int_equal(pn_nodebuf_alloc(&lb, 0, bytes, PN_HUGE_AUTO), 0);
	assert_int_equal(pn_chase_build(&c, cb.addr, bytes, 256, 64 * 4096UL, 9), 0);
	struct pn_bw_job j = {
		.kind = PN_BW_READ, .arr = { lb.addr }, .bytes = bytes, .nthreads = 1, .cpus = &cpu1
	};
	assert_int_equal(pn_pin_thread(0), 0);
	assert_int_equal(pn_bw_start(&j, &l), 0);
	assert_int_equal(pn_chase_sample(&c, 20000, s, PN_ARRAY_SIZE(s)), 0);
	assert_int_equal(pn_bw_stop(l, &r), 0);
	assert_true(s[3] > 0 && r.bytes_per_sec > 0);
	pn_nodebuf_free(&cb);
	pn_nodebuf_free(&lb);
}

static void test_nodebuf_census(void **state)
{
	static const enum pn_huge modes[] = { PN_HUGE_NONE, PN_HUGE_THP, PN_HUGE_AUTO };
	char thp[32];

	(void)state;
	pn_sysroot_set("");
	pn_thp_mode(thp, sizeof(thp));
	for (size_t i = 0; i < PN_ARRAY_SIZE(modes); i++) {
		struct pn_nodebuf b;

		assert_int_equal(pn_nodebuf_alloc(&b, 0, 8UL << 20, modes[i]), 0);
		assert_int_equal(pn_nodebuf_verify(&b), 0);
		assert_int_equal(b.pages_on_node, b.base_pages);
		assert_int_equal(b.pages_elsewhere + b.pages_unverified, 0);
		assert_true(b.huge != PN_HUGE_AUTO);
		if (b.huge == PN_HUGE_NONE)
			assert_int_equal(b.thp_bytes, 0);
		{
			char d[48];

			pn_nodebuf_describe(&b, d, sizeof(d));
			if (b.huge == PN_HUGE_THP)
				assert_non_null(strstr(d, "% of the buffer"));
			else
				assert_string_equal(d, pn_huge_name(b.huge));
		}
		printf("nodebuf %s -> %s, THP mode [%s], AnonHugePages %llu KiB\n",
		       pn_huge_name(modes[i]), pn_huge_name(b.huge), thp,
		       (unsigned long long)(b.thp_bytes >> 10));
		pn_nodebuf_free(&b);
		assert_null(b.addr);
	}
	{
		struct pn_nodebuf b;

		assert_int_equal(pn_nodebuf_alloc(&b, PN_MAX_NODES, 4096, PN_HUGE_NONE), -EINVAL);
		assert_int_equal(pn_nodebuf_alloc(&b, 0, 0, PN_HUGE_NONE), -EINVAL);
	}
}

/* hugetlb only where the node has free 2 MiB pages (never set up here). */
static void test_nodebuf_hugetlb(void **state)
{
	struct pn_nodebuf b;
	uint64_t free_pages = 0;

	(void)state;
	pn_sysroot_set("");
	if (pn_read_u64("/sys/devices/system/node/node0/hugepages/hugepages-2048kB/free_hugepages",
			&free_pages, false) ||
	    free_pages < 2) {
		print_message("SKIP: node 0 has %llu free 2 MiB hugetlb pages (needs 2: "
			      "echo 2 > /sys/devices/system/node/node0/hugepages/"
			      "hugepages-2048kB/nr_hugepages)\n",
			      (unsigned long long)free_pages);
		skip();
	}
	assert_int_equal(pn_nodebuf_alloc(&b, 0, 4UL << 20, PN_HUGE_HUGETLB), 0);
	assert_int_equal(b.huge, PN_HUGE_HUGETLB);
	assert_int_equal(pn_nodebuf_verify(&b), 0);
	assert_int_equal(b.pages_on_node, b.base_pages);
	pn_nodebuf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_kernels_move_data),
		cmocka_unit_test(test_delay_throttles),
		cmocka_unit_test(test_bad_jobs),
		cmocka_unit_test(test_read_order),
		cmocka_unit_test(test_loaded_chase),
		cmocka_unit_test(test_nodebuf_census),
		cmocka_unit_test(test_nodebuf_hugetlb),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
