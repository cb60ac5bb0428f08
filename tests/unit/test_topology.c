// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_topology.c - topology from synthetic sysfs trees: sparse node ids,
 * with and without hwloc, stock kernels, nodes hwloc does not show, a
 * missing tree, JSON and print.  The captured machines and the live one:
 * test_topology_fixtures.c.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sparse_with_hwloc),
		cmocka_unit_test(test_sparse_without_hwloc),
		cmocka_unit_test(test_stock_kernel_no_private),
		cmocka_unit_test(test_node_hidden_from_hwloc),
		cmocka_unit_test(test_missing_tree),
		cmocka_unit_test(test_json_and_print),
	};

	pn_log_level = PN_LOG_QUIET;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
