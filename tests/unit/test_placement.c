// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_placement.c - page-exact placement checks against the running kernel,
 * and the memory guard against live and replayed /proc/meminfo.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <numa.h>
#include <numaif.h>

#include "core/api/placement.h"

static size_t psz;

/* Memory nodes this process may allocate on; returns how many, fills ids. */
static int memory_nodes(int *ids, int max)
{
	int n = 0;

	if (numa_available() < 0)
		return 0;
	for (int i = 0; i <= numa_max_node() && n < max; i++)
		if (numa_bitmask_isbitset(numa_all_nodes_ptr, (unsigned)i))
			ids[n++] = i;
	return n;
}

static void *map_on(size_t pages, int node)
{
	unsigned long mask[PN_MAX_NODES / (8 * sizeof(unsigned long))] = { 0 };
	void *a =
		mmap(NULL, pages * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(a != MAP_FAILED);
	if (node >= 0) {
		mask[node / (8 * sizeof(unsigned long))] |= 1UL
							    << (node % (8 * sizeof(unsigned long)));
		assert_int_equal(mbind(a, pages * psz, MPOL_BIND, mask, PN_MAX_NODES + 1, 0), 0);
	}
	return a;
}

static void touch(void *a, size_t pages)
{
	for (size_t i = 0; i < pages; i++)
		((volatile char *)a)[i * psz] = 1;
}

static int first_node_or_skip(void)
{
	int ids[1] = { 0 };

	if (memory_nodes(ids, 1) < 1) {
		print_message("SKIP: NUMA is not available here\n");
		skip();
	}
	return ids[0];
}

static void test_all_pages_on_node(void **state)
{
	struct pn_res r;
	struct pn_nodeset want;
	size_t pages = 4096 + 17; /* more than one batch, not a multiple */
	int node = first_node_or_skip();
	void *a = map_on(pages, node);

	(void)state;
	memset(&r, 0, sizeof(r));
	touch(a, pages);
	pn_nodeset_zero(&want);
	pn_nodeset_set(&want, node);
	assert_int_equal(pn_placement_verify(a, pages * psz, &want, &r), 0);
	assert_true(r.verified);
	assert_int_equal(r.intended_pages, pages);
	assert_int_equal(r.misplaced_pages, 0);
	assert_int_equal(r.unverified_pages, 0);
	assert_int_equal(r.placed_pages[node], pages);
	/* Counts accumulate over calls. */
	assert_int_equal(pn_placement_verify(a, psz, &want, &r), 0);
	assert_int_equal(r.intended_pages, pages + 1);
	munmap(a, pages * psz);
}

static void test_untouched_page_unverified(void **state)
{
	struct pn_res r;
	struct pn_nodeset want;
	int node = first_node_or_skip();
	char *a = map_on(8, node);

	(void)state;
	memset(&r, 0, sizeof(r));
	touch(a, 3);
	touch(a + 4 * psz, 4); /* page 3 is never faulted in */
	pn_nodeset_zero(&want);
	pn_nodeset_set(&want, node);
	assert_int_equal(pn_placement_verify(a, 8 * psz, &want, &r), 0);
	assert_int_equal(r.intended_pages, 7);
	assert_int_equal(r.unverified_pages, 1);
	assert_int_equal(r.misplaced_pages, 0);
	munmap(a, 8 * psz);
}

static void test_unmapped_unverified(void **state)
{
	struct pn_res r;
	struct pn_nodeset want;
	char *a;

	(void)state;
	first_node_or_skip();
	a = map_on(4, -1);
	assert_int_equal(munmap(a, 4 * psz), 0);
	memset(&r, 0, sizeof(r));
	pn_nodeset_zero(&want);
	pn_nodeset_set(&want, 0);
	assert_int_equal(pn_placement_verify(a, 4 * psz, &want, &r), 0);
	assert_int_equal(r.unverified_pages, 4);
	assert_int_equal(r.intended_pages + r.misplaced_pages, 0);
}

/* An unaligned range covers every page it touches. */
static void test_unaligned_range(void **state)
{
	struct pn_res r;
	struct pn_nodeset want;
	int node = first_node_or_skip();
	char *a = map_on(4, node);

	(void)state;
	touch(a, 4);
	memset(&r, 0, sizeof(r));
	pn_nodeset_zero(&want);
	pn_nodeset_set(&want, node);
	assert_int_equal(pn_placement_verify(a + 100, psz, &want, &r), 0);
	assert_int_equal(r.intended_pages, 2);
	assert_int_equal(pn_placement_verify(a, 0, &want, &r), 0);
	assert_int_equal(r.intended_pages, 2);
	munmap(a, 4 * psz);
}

/* Pages on a node outside the intended set are counted as misplaced, one by
 * one: here the intended set names only a node the pages are not on. */
static void test_wrong_intended_set_counts_misplaced(void **state)
{
	struct pn_res r;
	struct pn_nodeset want;
	int node = first_node_or_skip();
	char *a = map_on(16, node);

	(void)state;
	touch(a, 16);
	memset(&r, 0, sizeof(r));
	pn_nodeset_zero(&want);
	pn_nodeset_set(&want, node + 1);
	assert_int_equal(pn_placement_verify(a, 16 * psz, &want, &r), 0);
	assert_int_equal(r.misplaced_pages, 16);
	assert_int_equal(r.intended_pages, 0);
	assert_int_equal(r.placed_pages[node], 16);
	munmap(a, 16 * psz);
}

/* Two real nodes: half the pages bound to each; the intended set names one. */
static void test_misplacement_two_nodes(void **state)
{
	struct pn_res r;
	struct pn_nodeset want;
	int ids[2] = { 0 }, n = memory_nodes(ids, 2);
	char *a, *b;

	(void)state;
	if (n < 2) {
		print_message("SKIP: needs >= 2 memory nodes, this machine has %d\n", n);
		skip();
	}
	a = map_on(32, ids[0]);
	b = map_on(32, ids[1]);
	touch(a, 32);
	touch(b, 32);
	memset(&r, 0, sizeof(r));
	pn_nodeset_zero(&want);
	pn_nodeset_set(&want, ids[0]);
	assert_int_equal(pn_placement_verify(a, 32 * psz, &want, &r), 0);
	assert_int_equal(pn_placement_verify(b, 32 * psz, &want, &r), 0);
	assert_int_equal(r.intended_pages, 32);
	assert_int_equal(r.misplaced_pages, 32);
	assert_int_equal(r.placed_pages[ids[0]], 32);
	assert_int_equal(r.placed_pages[ids[1]], 32);
	munmap(a, 32 * psz);
	munmap(b, 32 * psz);
}

static void test_mem_guard_live(void **state)
{
	(void)state;
	pn_sysroot_set(NULL);
	assert_int_equal(pn_mem_guard(1 << 20, 0.5, "test"), 0);
	assert_int_equal(pn_mem_guard(UINT64_C(1) << 60, 0.5, "test"), -ENOMEM);
	assert_int_equal(pn_mem_guard(1, 0.0, "test"), -EINVAL);
	assert_int_equal(pn_mem_guard(1, 1.5, "test"), -EINVAL);
}

/* The guard reads MemAvailable through the sysroot. */
static void test_mem_guard_replayed(void **state)
{
	char tmpl[] = "/tmp/pn-place-XXXXXX", path[PATH_MAX], cmd[PATH_MAX + 16];
	char *root = mkdtemp(tmpl);
	FILE *f;

	(void)state;
	assert_non_null(root);
	snprintf(path, sizeof(path), "%s/proc", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/proc/meminfo", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "MemTotal:        8000 kB\nMemFree:         2000 kB\n"
		   "MemAvailable:    1000 kB\nBuffers:          100 kB\n");
	fclose(f);
	pn_sysroot_set(root);
	assert_int_equal(pn_mem_guard(UINT64_C(500) * 1024, 0.5, "test"), 0);
	assert_int_equal(pn_mem_guard(UINT64_C(501) * 1024, 0.5, "test"), -ENOMEM);
	assert_int_equal(pn_mem_guard(UINT64_C(900) * 1024, 0.9, "test"), 0);
	/* No meminfo: refuse rather than guess. */
	assert_int_equal(unlink(path), 0);
	assert_true(pn_mem_guard(1, 0.5, "test") < 0);
	pn_sysroot_set(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_pages_on_node),
		cmocka_unit_test(test_untouched_page_unverified),
		cmocka_unit_test(test_unmapped_unverified),
		cmocka_unit_test(test_unaligned_range),
		cmocka_unit_test(test_wrong_intended_set_counts_misplaced),
		cmocka_unit_test(test_misplacement_two_nodes),
		cmocka_unit_test(test_mem_guard_live),
		cmocka_unit_test(test_mem_guard_replayed),
	};

	psz = (size_t)sysconf(_SC_PAGESIZE);
	pn_log_level = PN_LOG_QUIET;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
