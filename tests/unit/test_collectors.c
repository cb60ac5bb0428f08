// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_collectors.c - the vmstat, nodestat and zoneinfo collectors on the
 * captured trees: columns for every node with memory (sparse ids), values
 * equal to the captured files, two samples through pn_coll_sample(), and
 * supported() reasons on a tree without NUMA.
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

#include "core/api/collector.h"
#include "core/lib/pn.h"

#define KB(x) ((int64_t)(x)*1024)

static void use_tree(const char *name)
{
	const char *d = getenv("PN_FIXTURES");
	char p[4096];

	snprintf(p, sizeof(p), "%s/%s", d ? d : "tests/fixtures", name);
	if (access(p, R_OK)) {
		print_error("fixture tree %s missing (run from the repository root or set "
			    "PN_FIXTURES)\n",
			    p);
		fail();
	}
	pn_sysroot_set(p);
}

static void coll_open(struct pn_coll *c, const char *name)
{
	memset(c, 0, sizeof(*c));
	c->ops = pn_collector_find(name);
	assert_non_null(c->ops);
	assert_string_equal(c->ops->name, name);
	assert_non_null(c->ops->opts);
	c->params.opts = c->ops->opts;
	pn_series_init(&c->series, name);
	assert_int_equal(c->ops->open(c), 0);
	assert_true(c->series.ncols > 0);
}

static void coll_close(struct pn_coll *c)
{
	c->ops->close(c);
	assert_null(c->priv);
	pn_series_free(&c->series);
}

/* Take two samples; both rows must be equal (the tree does not change) and
 * the timestamps monotonic. */
static void sample_twice(struct pn_coll *c)
{
	size_t ncols = c->series.ncols;

	assert_int_equal(pn_coll_sample(c, 0, "a"), 0);
	assert_int_equal(pn_coll_sample(c, 1, "b"), 0);
	assert_int_equal(c->series.nrows, 2);
	assert_int_equal(c->series.ncols, ncols);
	assert_true(c->series.t_ns[1] >= c->series.t_ns[0]);
	assert_int_equal(c->series.iteration[1], 1);
	assert_string_equal(c->series.phase[1], "b");
	assert_memory_equal(pn_series_row(&c->series, 0), pn_series_row(&c->series, 1),
			    ncols * sizeof(int64_t));
}

static int64_t val(const struct pn_coll *c, size_t row, const char *col)
{
	int i = pn_series_find_col(&c->series, col);

	if (i < 0) {
		print_error("%s: no column %s\n", c->series.name, col);
		fail();
	}
	return pn_series_row(&c->series, row)[i];
}

static bool has_col(const struct pn_coll *c, const char *col)
{
	return pn_series_find_col(&c->series, col) >= 0;
}

/* No column of c names node n. */
static bool no_node_cols(const struct pn_coll *c, int n)
{
	char pfx[32];

	snprintf(pfx, sizeof(pfx), "node%d.", n);
	for (size_t i = 0; i < c->series.ncols; i++)
		if (!strncmp(c->series.cols[i], pfx, strlen(pfx)))
			return false;
	return true;
}

static void test_vmstat(void **state)
{
	struct pn_coll c;

	(void)state;
	use_tree("laptop-1node");
	coll_open(&c, "vmstat");
	assert_int_equal(c.series.ncols, 192);
	assert_string_equal(c.series.cols[0], "nr_free_pages");
	sample_twice(&c);
	assert_int_equal(val(&c, 1, "pgalloc_normal"), 52113303);
	assert_int_equal(val(&c, 0, "nr_free_pages"), 1424403);
	coll_close(&c);

	use_tree("qemu-sparse-0-2-5");
	coll_open(&c, "vmstat");
	assert_int_equal(c.series.ncols, 173);
	sample_twice(&c);
	assert_int_equal(val(&c, 0, "pgalloc_dma32"), 11314);
	coll_close(&c);
}

static void test_nodestat_sparse(void **state)
{
	struct pn_coll c;

	(void)state;
	use_tree("qemu-sparse-0-2-5");
	coll_open(&c, "nodestat");
	/* 3 nodes x (6 numastat + 60 vmstat + 36 meminfo) */
	assert_int_equal(c.series.ncols, 3 * (6 + 60 + 36));
	sample_twice(&c);
	assert_true(has_col(&c, "node0.numa_hit"));
	assert_true(has_col(&c, "node2.vmstat.nr_free_pages"));
	assert_int_equal(val(&c, 1, "node5.numa_hit"), 1104);
	assert_int_equal(val(&c, 1, "node5.other_node"), 1104);
	assert_int_equal(val(&c, 1, "node5.vmstat.numa_hit"), 1104);
	assert_int_equal(val(&c, 1, "node5.vmstat.nr_free_pages"), 127238);
	assert_int_equal(val(&c, 1, "node5.meminfo.MemTotal"), KB(515740));
	assert_int_equal(val(&c, 0, "node5.meminfo.MemUsed"), KB(6788));
	assert_int_equal(val(&c, 0, "node5.meminfo.HugePages_Total"), 0);
	assert_int_equal(val(&c, 0, "node2.meminfo.MemTotal"), KB(470660));
	assert_int_equal(val(&c, 0, "node0.meminfo.MemTotal"), KB(1030484));
	for (int n = 1; n < 5; n++)
		if (n != 2)
			assert_true(no_node_cols(&c, n));
	coll_close(&c);
}

static void test_nodestat_3node_and_laptop(void **state)
{
	struct pn_coll c;

	(void)state;
	use_tree("qemu-3node-memonly");
	coll_open(&c, "nodestat");
	sample_twice(&c);
	for (int n = 0; n < 3; n++) {
		char col[64];

		snprintf(col, sizeof(col), "node%d.meminfo.MemFree", n);
		assert_true(val(&c, 0, col) > 0);
	}
	assert_int_equal(val(&c, 0, "node1.meminfo.MemFree"), KB(456888));
	assert_int_equal(val(&c, 0, "node1.numa_hit"), 1116);
	coll_close(&c);

	use_tree("laptop-1node");
	coll_open(&c, "nodestat");
	sample_twice(&c);
	assert_int_equal(val(&c, 0, "node0.meminfo.Slab"), KB(712952));
	assert_int_equal(val(&c, 0, "node0.interleave_hit"), 66653);
	assert_true(no_node_cols(&c, 1));
	coll_close(&c);
}

static void test_zoneinfo(void **state)
{
	struct pn_coll c;

	(void)state;
	use_tree("qemu-sparse-0-2-5");
	coll_open(&c, "zoneinfo");
	/* 3 nodes x 5 zones x 8 keys */
	assert_int_equal(c.series.ncols, 3 * 5 * 8);
	sample_twice(&c);
	assert_int_equal(val(&c, 1, "node5.DMA32.free"), 127238);
	assert_int_equal(val(&c, 1, "node5.DMA32.min"), 5775);
	assert_int_equal(val(&c, 1, "node5.DMA32.low"), 7218);
	assert_int_equal(val(&c, 1, "node5.DMA32.high"), 8661);
	assert_int_equal(val(&c, 1, "node5.DMA32.spanned"), 131040);
	assert_int_equal(val(&c, 1, "node5.DMA32.present"), 131040);
	assert_int_equal(val(&c, 1, "node5.DMA32.managed"), 128935);
	assert_int_equal(val(&c, 1, "node5.DMA32.pcp_count"), 433);
	assert_int_equal(val(&c, 1, "node2.DMA32.pcp_count"), 2196);
	assert_int_equal(val(&c, 1, "node0.DMA32.pcp_count"), 794);
	assert_int_equal(val(&c, 1, "node5.Normal.managed"), 0);
	assert_true(has_col(&c, "node5.Movable.free"));
	assert_true(no_node_cols(&c, 1));
	assert_true(no_node_cols(&c, 4));
	coll_close(&c);

	use_tree("laptop-1node");
	coll_open(&c, "zoneinfo");
	assert_int_equal(c.series.ncols, 5 * 8);
	sample_twice(&c);
	assert_int_equal(val(&c, 0, "node0.Normal.managed"), 1343488);
	assert_int_equal(val(&c, 0, "node0.Normal.pcp_count"), 28420);
	coll_close(&c);
}

static void test_supported(void **state)
{
	char why[256] = "";

	(void)state;
	use_tree("malformed/no-numa");
	assert_int_equal(pn_collector_find("vmstat")->supported(NULL, why, sizeof(why)), 0);
	assert_int_equal(pn_collector_find("zoneinfo")->supported(NULL, why, sizeof(why)), 0);
	assert_true(pn_collector_find("nodestat")->supported(NULL, why, sizeof(why)) < 0);
	assert_non_null(strstr(why, "kernel without NUMA"));

	use_tree("laptop-1node");
	assert_int_equal(pn_collector_find("nodestat")->supported(NULL, why, sizeof(why)), 0);
}

static void test_open_fails_cleanly(void **state)
{
	struct pn_coll c;

	(void)state;
	use_tree("malformed/bad-node-meminfo");
	memset(&c, 0, sizeof(c));
	c.ops = pn_collector_find("nodestat");
	pn_series_init(&c.series, "nodestat");
	assert_int_equal(c.ops->open(&c), -EINVAL);
	assert_null(c.priv);
	pn_series_free(&c.series);

	use_tree("malformed/no-numa");
	memset(&c, 0, sizeof(c));
	c.ops = pn_collector_find("nodestat");
	pn_series_init(&c.series, "nodestat");
	assert_int_equal(c.ops->open(&c), -ENOENT);
	assert_null(c.priv);
	pn_series_free(&c.series);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vmstat),
		cmocka_unit_test(test_nodestat_sparse),
		cmocka_unit_test(test_nodestat_3node_and_laptop),
		cmocka_unit_test(test_zoneinfo),
		cmocka_unit_test(test_supported),
		cmocka_unit_test(test_open_fails_cleanly),
	};

	pn_log_level = PN_LOG_QUIET;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
