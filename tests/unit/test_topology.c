// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_topology.c - topology from synthetic sysfs trees, the live machine and
 * the captured fixtures (tests/fixtures/<machine>/, replayed via the sysroot).
 *
 * Fixture checks compare what pn_topology_load() reports against the
 * fixture's own files, read here independently of the code under test.
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

/* ---- building synthetic trees ---- */

static void mkdir_p(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(buf, 0755);
		*p = '/';
	}
	mkdir(buf, 0755);
}

__attribute__((format(printf, 3, 4))) static void put(const char *root, const char *rel,
						      const char *fmt, ...)
{
	char path[PATH_MAX], dir[PATH_MAX];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	mkdir_p(dir);
	f = fopen(path, "w");
	assert_non_null(f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	assert_int_equal(fclose(f), 0);
}

static void rm_rf(const char *path)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	assert_int_equal(system(cmd), 0);
}

#define N "/sys/devices/system/node"

/*
 * A private-node kernel's view of nodes 0, 2, 5: node 0 has the CPUs, node 2
 * is memory-only DRAM/CXL, node 5 has only private memory (so it is not in
 * has_memory).  with_cpu_tree adds the /sys/devices/system/cpu files hwloc
 * needs; without them hwloc refuses the tree and topology must degrade.
 */
static char *make_sparse_tree(bool with_cpu_tree, bool with_private)
{
	char tmpl[] = "/tmp/pn-topo-XXXXXX";
	char *root = pn_strdup(mkdtemp(tmpl));

	put(root, N "/possible", "0-7\n");
	put(root, N "/online", "0,2,5\n");
	put(root, N "/has_cpu", "0\n");
	put(root, N "/has_memory", "0,2\n");
	put(root, N "/has_normal_memory", "0\n");
	if (with_private)
		put(root, N "/has_private_memory", "5\n");
	put(root, N "/node0/cpulist", "0-1\n");
	put(root, N "/node2/cpulist", "\n");
	put(root, N "/node5/cpulist", "\n");
	put(root, N "/node0/cpumap", "3\n");
	put(root, N "/node2/cpumap", "0\n");
	put(root, N "/node5/cpumap", "0\n");
	put(root, N "/node0/meminfo",
	    "Node 0 MemTotal:       4096000 kB\n"
	    "Node 0 MemFree:        1000000 kB\n");
	put(root, N "/node2/meminfo", "Node 2 MemTotal:       2097152 kB\n");
	put(root, N "/node5/meminfo", "Node 5 MemTotal:       1048576 kB\n");
	/* Columns are the online nodes in id order: 0, 2, 5. */
	put(root, N "/node0/distance", "10 20 30\n");
	put(root, N "/node2/distance", "20 10 40\n");
	put(root, N "/node5/distance", "30 40 10\n");
	put(root, N "/node2/access0/initiators/read_latency", "150\n");
	put(root, N "/node2/access0/initiators/write_latency", "170\n");
	put(root, N "/node2/access0/initiators/read_bandwidth", "8000\n");
	put(root, N "/node2/access0/initiators/write_bandwidth", "6000\n");
	put(root, N "/node2/access1/initiators/read_latency", "160\n");
	put(root, "/sys/devices/virtual/memory_tiering/memory_tier4/nodelist", "0\n");
	put(root, "/sys/devices/virtual/memory_tiering/memory_tier22/nodelist", "2,5\n");
	if (with_cpu_tree) {
		const char *c = "/sys/devices/system/cpu";
		char rel[256];

		put(root, "/sys/devices/system/cpu/online", "0-1\n");
		put(root, "/sys/devices/system/cpu/possible", "0-1\n");
		put(root, "/sys/devices/system/cpu/present", "0-1\n");
		for (int i = 0; i < 2; i++) {
#define T(f, ...)                                                                                  \
	do {                                                                                       \
		snprintf(rel, sizeof(rel), "%s/cpu%d/topology/" f, c, i);                          \
		put(root, rel, __VA_ARGS__);                                                       \
	} while (0)
			T("physical_package_id", "0\n");
			T("core_id", "%d\n", i);
			T("thread_siblings", "%x\n", 1 << i);
			T("thread_siblings_list", "%d\n", i);
			T("core_cpus", "%x\n", 1 << i);
			T("core_cpus_list", "%d\n", i);
			T("core_siblings", "3\n");
			T("core_siblings_list", "0-1\n");
			T("package_cpus", "3\n");
			T("package_cpus_list", "0-1\n");
#undef T
		}
	}
	return root;
}

static void check_sparse(const struct pn_topology *t, bool with_private)
{
	const struct pn_node_info *n0, *n2, *n5;
	char buf[64];

	assert_int_equal(t->nnodes, 3);
	assert_int_equal(t->nodes[0].id, 0);
	assert_int_equal(t->nodes[1].id, 2);
	assert_int_equal(t->nodes[2].id, 5);
	assert_int_equal(pn_nodeset_format(&t->online, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0,2,5");
	assert_int_equal(pn_nodeset_format(&t->possible, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0-7");
	assert_int_equal(t->ncpus, 2);
	assert_null(pn_topology_node(t, 1));
	assert_null(pn_topology_node(t, 6));

	n0 = pn_topology_node(t, 0);
	n2 = pn_topology_node(t, 2);
	n5 = pn_topology_node(t, 5);
	assert_non_null(n0);
	assert_non_null(n2);
	assert_non_null(n5);
	assert_true(n0->has_cpu && n0->has_memory && n0->has_normal_memory);
	assert_false(n0->has_private_memory);
	assert_int_equal(n0->ncpus, 2);
	assert_string_equal(n0->cpulist, "0-1");
	assert_true(!n2->has_cpu && n2->has_memory && !n2->has_normal_memory);
	assert_int_equal(n2->ncpus, 0);
	assert_false(n5->has_cpu);
	assert_false(n5->has_memory);
	assert_int_equal(n5->has_private_memory, with_private);
	assert_int_equal(t->kernel_has_private, with_private);

	assert_int_equal(n0->mem_total_bytes, 4096000ULL * 1024);
	assert_int_equal(n2->mem_total_bytes, 2097152ULL * 1024);
	assert_int_equal(n5->mem_total_bytes, 1048576ULL * 1024);

	/* Sparse ids: column k of nodeN/distance is the k-th online node. */
	assert_int_equal(pn_topology_distance(t, 0, 0), 10);
	assert_int_equal(pn_topology_distance(t, 0, 2), 20);
	assert_int_equal(pn_topology_distance(t, 0, 5), 30);
	assert_int_equal(pn_topology_distance(t, 5, 2), 40);
	assert_int_equal(pn_topology_distance(t, 2, 5), 40);
	assert_int_equal(pn_topology_distance(t, 0, 1), -1);

	assert_int_equal(n0->memory_tier, 4);
	assert_int_equal(n2->memory_tier, 22);
	assert_int_equal(n5->memory_tier, 22);

	assert_false(n0->has_hmat);
	assert_true(n2->has_hmat);
	assert_int_equal(n2->hmat[0].read_latency_ns, 150);
	assert_int_equal(n2->hmat[0].write_latency_ns, 170);
	assert_int_equal(n2->hmat[0].read_bandwidth_mbps, 8000);
	assert_int_equal(n2->hmat[0].write_bandwidth_mbps, 6000);
	assert_int_equal(n2->hmat[1].read_latency_ns, 160);
	assert_int_equal(n2->hmat[1].read_bandwidth_mbps, 0);
}

static void test_sparse_with_hwloc(void **state)
{
	struct pn_topology t;
	char *root = make_sparse_tree(true, true);

	(void)state;
	pn_sysroot_set(root);
	assert_int_equal(pn_topology_load(&t), 0);
	check_sparse(&t, true);
	/* hwloc read the same tree: its XML lists the sparse nodes. */
	assert_non_null(t.hwloc_xml);
	assert_non_null(strstr(t.hwloc_xml, "<topology"));
	assert_non_null(strstr(t.hwloc_xml, "type=\"NUMANode\" os_index=\"5\""));
	assert_non_null(strstr(t.hwloc_xml, "type=\"NUMANode\" os_index=\"2\""));
	assert_true(t.hwloc_version[0] >= '2' && t.hwloc_version[0] <= '9');
	/* The replay must not leak into the environment. */
	assert_null(getenv("HWLOC_FSROOT"));
	assert_null(getenv("HWLOC_COMPONENTS"));
	pn_topology_free(&t);
	pn_sysroot_set(NULL);
	rm_rf(root);
	free(root);
}

static void test_sparse_without_hwloc(void **state)
{
	struct pn_topology t;
	char *root = make_sparse_tree(false, true);

	(void)state;
	pn_sysroot_set(root);
	/* No cpu tree: hwloc refuses it, the sysfs data must still be complete. */
	assert_int_equal(pn_topology_load(&t), 0);
	check_sparse(&t, true);
	assert_null(t.hwloc_xml);
	pn_topology_free(&t);
	pn_sysroot_set(NULL);
	rm_rf(root);
	free(root);
}

static void test_stock_kernel_no_private(void **state)
{
	struct pn_topology t;
	char *root = make_sparse_tree(true, false);

	(void)state;
	pn_sysroot_set(root);
	assert_int_equal(pn_topology_load(&t), 0);
	check_sparse(&t, false);
	assert_true(pn_nodeset_empty(&t.with_private_memory));
	pn_topology_free(&t);
	pn_sysroot_set(NULL);
	rm_rf(root);
	free(root);
}

/* A node hwloc does not show (no nodeN directory) is kept from "online". */
static void test_node_hidden_from_hwloc(void **state)
{
	struct pn_topology t;
	char *root = make_sparse_tree(true, true), dir[PATH_MAX];

	(void)state;
	snprintf(dir, sizeof(dir), "%s" N "/node5", root);
	rm_rf(dir);
	pn_sysroot_set(root);
	assert_int_equal(pn_topology_load(&t), 0);
	assert_int_equal(t.nnodes, 3);
	assert_non_null(pn_topology_node(&t, 5));
	assert_true(pn_topology_node(&t, 5)->has_private_memory);
	assert_int_equal(pn_topology_node(&t, 5)->mem_total_bytes, 0);
	/* Its distances are still known from the other nodes' rows. */
	assert_int_equal(pn_topology_distance(&t, 0, 5), 30);
	assert_int_equal(pn_topology_distance(&t, 5, 0), -1);
	assert_non_null(t.hwloc_xml);
	assert_null(strstr(t.hwloc_xml, "os_index=\"5\""));
	pn_topology_free(&t);
	pn_sysroot_set(NULL);
	rm_rf(root);
	free(root);
}

static void test_missing_tree(void **state)
{
	struct pn_topology t;

	(void)state;
	pn_sysroot_set("/nonexistent/pnbench-root");
	assert_int_equal(pn_topology_load(&t), -ENOENT);
	pn_topology_free(&t);
	pn_sysroot_set(NULL);
}

static void test_json_and_print(void **state)
{
	struct pn_topology t;
	char *root = make_sparse_tree(true, true), *text = NULL;
	const cJSON *nodes, *n, *d;
	size_t len = 0;
	cJSON *j;
	FILE *f;

	(void)state;
	pn_sysroot_set(root);
	assert_int_equal(pn_topology_load(&t), 0);
	j = pn_topology_to_json(&t);
	assert_non_null(j);
	assert_string_equal(cJSON_GetObjectItem(j, "online")->valuestring, "0,2,5");
	assert_string_equal(cJSON_GetObjectItem(j, "has_private_memory")->valuestring, "5");
	assert_string_equal(cJSON_GetObjectItem(j, "has_memory")->valuestring, "0,2");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "kernel_has_private")));
	assert_string_equal(cJSON_GetObjectItem(j, "hwloc_version")->valuestring, t.hwloc_version);
	nodes = cJSON_GetObjectItem(j, "nodes");
	assert_int_equal(cJSON_GetArraySize(nodes), 3);
	n = cJSON_GetArrayItem(nodes, 2);
	assert_int_equal(cJSON_GetObjectItem(n, "id")->valueint, 5);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(n, "has_private_memory")));
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(n, "has_memory")));
	assert_true(cJSON_GetObjectItem(n, "mem_total_bytes")->valuedouble == 1048576.0 * 1024);
	assert_null(cJSON_GetObjectItem(n, "hmat"));
	n = cJSON_GetArrayItem(nodes, 1);
	assert_int_equal(
		cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(n, "hmat"), "access0"),
				    "read_bandwidth_mbps")
			->valueint,
		8000);
	assert_int_equal(cJSON_GetObjectItem(n, "memory_tier")->valueint, 22);
	d = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "distances"), "5");
	assert_non_null(d);
	assert_int_equal(cJSON_GetObjectItem(d, "2")->valueint, 40);
	assert_null(cJSON_GetObjectItem(d, "1"));
	cJSON_Delete(j);

	f = open_memstream(&text, &len);
	assert_non_null(f);
	pn_topology_print(&t, f);
	fclose(f);
	assert_non_null(strstr(text, "3 nodes"));
	assert_non_null(strstr(text, "private"));
	assert_non_null(strstr(text, "memory-only"));
	assert_non_null(strstr(text, "5:40"));
	assert_non_null(strstr(text, "hmat access0"));
	free(text);
	pn_topology_free(&t);
	pn_sysroot_set(NULL);
	rm_rf(root);
	free(root);
}

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
		cmocka_unit_test(test_sparse_with_hwloc),
		cmocka_unit_test(test_sparse_without_hwloc),
		cmocka_unit_test(test_stock_kernel_no_private),
		cmocka_unit_test(test_node_hidden_from_hwloc),
		cmocka_unit_test(test_missing_tree),
		cmocka_unit_test(test_json_and_print),
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
