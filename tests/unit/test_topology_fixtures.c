// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_topology_fixtures.c - topology of the captured machines
 * (tests/fixtures/<machine>/, replayed via the sysroot) and of the live one.
 *
 * Each check compares what pn_topology_load() reports against the machine's
 * own files, read here independently of the code under test.
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "core/lib/pn.h"
#include "core/sys/topology.h"

#define N "/sys/devices/system/node"

/* ---- reading a tree independently of the code under test ---- */

static bool slurp(const char *root, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return true;
}

static void expect_mask(const char *root, const char *name, const struct pn_nodeset *got)
{
	char rel[128], buf[4096];
	struct pn_nodeset want;

	snprintf(rel, sizeof(rel), N "/%s", name);
	if (!slurp(root, rel, buf, sizeof(buf)))
		return;
	assert_int_equal(pn_nodeset_parse(&want, buf), 0);
	if (!pn_nodeset_equal(&want, got)) {
		char g[4096];

		pn_nodeset_format(got, g, sizeof(g));
		fail_msg("%s: file says \"%s\", topology says \"%s\"", name, buf, g);
	}
}

static uint64_t file_memtotal(const char *root, int node)
{
	char rel[128], buf[16384], *p;
	unsigned long long kb;

	snprintf(rel, sizeof(rel), N "/node%d/meminfo", node);
	if (!slurp(root, rel, buf, sizeof(buf)))
		return 0;
	p = strstr(buf, "MemTotal:");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "MemTotal: %llu kB", &kb), 1);
	return kb * 1024;
}

/* Replay one machine and compare with its files; returns the loaded topology. */
static bool replay(const char *machine, struct pn_topology *t, char *root, size_t rootlen)
{
	const char *base = getenv("PNBENCH_FIXTURES");
	char buf[8192];
	struct stat st;
	int n;

	memset(t, 0, sizeof(*t));
	snprintf(root, rootlen, "%s/%s", base ? base : "tests/fixtures", machine);
	if (stat(root, &st) || !S_ISDIR(st.st_mode)) {
		print_message("SKIP: fixture %s is absent (captured from a QEMU guest by "
			      "tests/fixtures/capture/capture-qemu.sh)\n",
			      root);
		return false;
	}
	pn_sysroot_set(root);
	assert_int_equal(pn_topology_load(t), 0);
	/* With a CPU tree hwloc must load the fixture; without one the
	 * topology degrades to sysfs data (and the fixture should be fixed). */
	snprintf(buf, sizeof(buf), "%s/sys/devices/system/cpu/cpu0/topology", root);
	if (stat(buf, &st) == 0)
		assert_non_null(t->hwloc_xml);
	else
		print_message("note: fixture %s has no CPU topology; hwloc skipped it\n", root);

	/* Node list == online nodes of the fixture. */
	assert_true(slurp(root, N "/online", buf, sizeof(buf)));
	expect_mask(root, "online", &t->online);
	expect_mask(root, "possible", &t->possible);
	expect_mask(root, "has_cpu", &t->with_cpu);
	expect_mask(root, "has_memory", &t->with_memory);
	expect_mask(root, "has_normal_memory", &t->with_normal_memory);
	assert_int_equal(t->kernel_has_private,
			 slurp(root, N "/has_private_memory", buf, sizeof(buf)));
	if (t->kernel_has_private)
		expect_mask(root, "has_private_memory", &t->with_private_memory);
	assert_int_equal(t->nnodes, pn_nodeset_count(&t->online));

	for (int i = 0; i < t->nnodes; i++) {
		const struct pn_node_info *ni = &t->nodes[i];
		char rel[128], *p;

		assert_true(pn_nodeset_test(&t->online, ni->id));
		assert_int_equal(ni->has_cpu, pn_nodeset_test(&t->with_cpu, ni->id));
		assert_int_equal(ni->has_memory, pn_nodeset_test(&t->with_memory, ni->id));
		assert_int_equal(ni->mem_total_bytes, file_memtotal(root, ni->id));

		/* Distances: row of nodeN/distance, columns = online nodes. */
		snprintf(rel, sizeof(rel), N "/node%d/distance", ni->id);
		if (!slurp(root, rel, buf, sizeof(buf)))
			continue;
		p = buf;
		n = -1;
		for (;;) {
			char *end;
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			p = end;
			n = pn_nodeset_next(&t->online, n);
			assert_true(n >= 0);
			assert_int_equal(pn_topology_distance(t, ni->id, n), v);
		}
		assert_int_equal(pn_nodeset_next(&t->online, n), -1);
	}
	return true;
}

static void finish(struct pn_topology *t)
{
	pn_topology_free(t);
	pn_sysroot_set(NULL);
}

static void test_fixture_laptop_1node(void **state)
{
	struct pn_topology t;
	char root[PATH_MAX];

	(void)state;
	if (!replay("laptop-1node", &t, root, sizeof(root)))
		skip();
	assert_int_equal(t.nnodes, 1);
	assert_int_equal(t.nodes[0].id, 0);
	assert_true(t.nodes[0].has_cpu && t.nodes[0].has_memory);
	assert_true(t.nodes[0].mem_total_bytes > 0);
	assert_int_equal(pn_topology_distance(&t, 0, 0), 10);
	assert_true(t.ncpus >= 1);
	finish(&t);
}

static void test_fixture_qemu_3node_memonly(void **state)
{
	struct pn_topology t;
	char root[PATH_MAX];
	int memonly = 0;

	(void)state;
	if (!replay("qemu-3node-memonly", &t, root, sizeof(root)))
		skip();
	assert_int_equal(t.nnodes, 3);
	for (int i = 0; i < t.nnodes; i++) {
		if (!t.nodes[i].has_cpu && t.nodes[i].mem_total_bytes > 0)
			memonly++;
		assert_true(t.nodes[i].mem_total_bytes > 0);
	}
	assert_true(memonly >= 1);
	/* Remote distances are larger than local ones. */
	for (int i = 0; i < t.nnodes; i++)
		for (int j = 0; j < t.nnodes; j++)
			if (i != j && pn_topology_distance(&t, t.nodes[i].id, t.nodes[j].id) >= 0)
				assert_true(pn_topology_distance(&t, t.nodes[i].id, t.nodes[j].id) >
					    pn_topology_distance(&t, t.nodes[i].id, t.nodes[i].id));
	finish(&t);
}

static void test_fixture_qemu_sparse_0_2_5(void **state)
{
	struct pn_topology t;
	char root[PATH_MAX], buf[64];

	(void)state;
	if (!replay("qemu-sparse-0-2-5", &t, root, sizeof(root)))
		skip();
	assert_int_equal(pn_nodeset_format(&t.online, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0,2,5");
	assert_int_equal(t.nnodes, 3);
	if (!t.nodes) { /* cannot happen after the line above; for the analyzer */
		fail();
		return;
	}
	assert_int_equal(t.nodes[0].id, 0);
	assert_int_equal(t.nodes[1].id, 2);
	assert_int_equal(t.nodes[2].id, 5);
	assert_null(pn_topology_node(&t, 1));
	assert_int_equal(pn_topology_distance(&t, 5, 5), 10);
	assert_true(pn_topology_distance(&t, 0, 5) > 10);
	finish(&t);
}

/* Fixture helpers for the negative cases in tests/fixtures/malformed/. */
static bool fixture_dir(const char *name, char *root, size_t rootlen)
{
	const char *base = getenv("PNBENCH_FIXTURES");
	struct stat st;

	snprintf(root, rootlen, "%s/%s", base ? base : "tests/fixtures", name);
	if (stat(root, &st) || !S_ISDIR(st.st_mode)) {
		print_message("SKIP: fixture %s is absent\n", root);
		return false;
	}
	return true;
}

static void test_fixture_no_numa(void **state)
{
	struct pn_topology t;
	char root[PATH_MAX];

	(void)state;
	if (!fixture_dir("malformed/no-numa", root, sizeof(root)))
		skip();
	pn_sysroot_set(root);
	assert_int_equal(pn_topology_load(&t), -ENOENT);
	assert_null(t.nodes);
	assert_null(t.hwloc_xml);
	pn_sysroot_set(NULL);
}

/* node0/meminfo has a line naming node 1: MemTotal is unknown, not half-read. */
static void test_fixture_bad_node_meminfo(void **state)
{
	struct pn_topology t;
	char root[PATH_MAX];

	(void)state;
	if (!fixture_dir("malformed/bad-node-meminfo", root, sizeof(root)))
		skip();
	pn_sysroot_set(root);
	assert_int_equal(pn_topology_load(&t), 0);
	assert_int_equal(t.nnodes, 1);
	assert_int_equal(t.nodes[0].id, 0);
	assert_true(t.nodes[0].has_memory);
	assert_int_equal(t.nodes[0].mem_total_bytes, 0);
	finish(&t);
}

/* The sparse tree is the 3-node tree renamed (1 -> 2, 2 -> 5): same values,
 * and the distance columns follow the online ids, not 0..n-1. */
static void test_fixture_sparse_matches_3node(void **state)
{
	struct pn_topology a, b;
	char root[PATH_MAX];
	static const int map[3][2] = { { 0, 0 }, { 1, 2 }, { 2, 5 } };

	(void)state;
	if (!fixture_dir("qemu-3node-memonly", root, sizeof(root)))
		skip();
	pn_sysroot_set(root);
	assert_int_equal(pn_topology_load(&a), 0);
	if (!fixture_dir("qemu-sparse-0-2-5", root, sizeof(root))) {
		finish(&a);
		skip();
	}
	pn_sysroot_set(root);
	assert_int_equal(pn_topology_load(&b), 0);
	for (int i = 0; i < 3; i++) {
		const struct pn_node_info *x = pn_topology_node(&a, map[i][0]);
		const struct pn_node_info *y = pn_topology_node(&b, map[i][1]);

		assert_non_null(x);
		assert_non_null(y);
		assert_int_equal(x->mem_total_bytes, y->mem_total_bytes);
		assert_int_equal(x->has_cpu, y->has_cpu);
		assert_int_equal(x->ncpus, y->ncpus);
		for (int j = 0; j < 3; j++)
			assert_int_equal(pn_topology_distance(&a, map[i][0], map[j][0]),
					 pn_topology_distance(&b, map[i][1], map[j][1]));
	}
	/* The numbers the capture recorded (tests/fixtures/README.md). */
	assert_int_equal(pn_topology_node(&b, 5)->mem_total_bytes, 515740ULL * 1024);
	assert_int_equal(pn_topology_distance(&b, 2, 5), 20);
	assert_int_equal(pn_topology_distance(&b, 5, 5), 10);
	pn_topology_free(&a);
	finish(&b);
}

static void test_live(void **state)
{
	struct pn_topology t;
	uint64_t total;

	(void)state;
	pn_sysroot_set(NULL);
	if (!slurp("", N "/online", (char[64]){ 0 }, 64)) {
		print_message("SKIP: this kernel has no %s (no NUMA)\n", N);
		skip();
	}
	assert_int_equal(pn_topology_load(&t), 0);
	assert_true(t.nnodes >= 1);
	assert_true(t.ncpus >= 1);
	total = file_memtotal("", t.nodes[0].id);
	assert_int_equal(t.nodes[0].mem_total_bytes, total);
	assert_non_null(t.hwloc_xml);
	assert_non_null(strstr(t.hwloc_xml, "NUMANode"));
	assert_int_equal(pn_topology_distance(&t, t.nodes[0].id, t.nodes[0].id), 10);
	pn_topology_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live),
		cmocka_unit_test(test_fixture_laptop_1node),
		cmocka_unit_test(test_fixture_qemu_3node_memonly),
		cmocka_unit_test(test_fixture_qemu_sparse_0_2_5),
		cmocka_unit_test(test_fixture_sparse_matches_3node),
		cmocka_unit_test(test_fixture_no_numa),
		cmocka_unit_test(test_fixture_bad_node_meminfo),
	};

	pn_log_level = PN_LOG_QUIET;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
