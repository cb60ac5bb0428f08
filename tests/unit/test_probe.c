// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_probe.c - the leak-probe library (workloads/probes/probe*.c) on this host: the
 * catalogue is complete, the generic skip reasons (root, device node,
 * movable-only memory) come from the sysroot, the vmallocinfo and slab
 * parsers count only what is new per node, and what a probe holds is undone
 * by pn_probe_release().  No probe is triggered here: they need a guest
 * (tests/integration/test-probes-guest.sh).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "workloads/probes/probe.h"

#define SCRATCHTREE_NAME "probe"
#include "scratchtree.h"

static void test_catalogue(void **state)
{
	const char *subsys[64];
	size_t i, j, nsub = 0;

	(void)state;
	assert_true(pn_nprobes >= 8);
	for (i = 0; i < pn_nprobes; i++) {
		const struct pn_probe *p = &pn_probes[i];
		bool seen = false;

		assert_non_null(strstr(p->kpath, ".c:"));
		assert_true(strlen(p->trigger) > 10 && strlen(p->private_expect) > 10);
		assert_true(strlen(p->cleanup) > 5);
		assert_non_null(p->run);
		assert_ptr_equal(pn_probe_find(p->name), p);
		for (j = 0; j < i; j++)
			assert_string_not_equal(pn_probes[j].name, p->name);
		for (j = 0; j < nsub; j++)
			seen |= !strcmp(subsys[j], p->subsys);
		if (!seen)
			subsys[nsub++] = p->subsys;
	}
	assert_true(nsub >= 6);
	assert_null(pn_probe_find("no_such_probe"));
}

static const char zoneinfo_normal[] = "Node 1, zone   Normal\n  pages free     100\n"
				      "        managed  32768\n"
				      "Node 1, zone  Movable\n  pages free     0\n"
				      "        managed  0\n"
				      "Node 2, zone   Normal\n  pages free     0\n"
				      "        managed  0\n"
				      "Node 2, zone  Movable\n  pages free     9\n"
				      "        managed  98304\n";

static void test_zones(void **state)
{
	(void)state;
	put("/proc/zoneinfo", zoneinfo_normal);
	assert_int_equal(pn_probe_node_kernel_pages(1), 32768);
	assert_int_equal(pn_probe_node_kernel_pages(2), 0);
	assert_int_equal(pn_probe_node_kernel_pages(7), 0);
}

static void test_supported_generic(void **state)
{
	struct pn_probe_env env = { .home_node = 0, .is_root = true };
	const struct pn_probe *normal = pn_probe_find("memcg_create");
	const struct pn_probe *movable = pn_probe_find("move_pages");
	char why[256];

	(void)state;
	put("/proc/zoneinfo", zoneinfo_normal);
	put("/sys/devices/system/node/node1/meminfo", "Node 1 MemFree: 4 kB\n");
	put("/sys/devices/system/node/node2/meminfo", "Node 2 MemFree: 4 kB\n");
	put("/sys/fs/cgroup/cgroup.controllers", "cpuset memory hugetlb\n");
	assert_int_equal(pn_probe_supported(movable, &env, why, sizeof(why)), -ENODEV);
	assert_non_null(strstr(why, "no device node"));
	pn_nodeset_set(&env.dev_nodes, 1);
	assert_int_equal(pn_probe_supported(normal, &env, why, sizeof(why)), 0);
	pn_nodeset_set(&env.dev_nodes, 2);
	assert_int_equal(pn_probe_supported(normal, &env, why, sizeof(why)), -ENOTSUP);
	assert_non_null(strstr(why, "node 2 memory is movable-only"));
	assert_int_equal(pn_probe_supported(movable, &env, why, sizeof(why)), 0);
	pn_nodeset_set(&env.dev_nodes, 5);
	assert_int_equal(pn_probe_supported(movable, &env, why, sizeof(why)), -ENODEV);
	assert_non_null(strstr(why, "device node 5 is not online"));
	env.is_root = false;
	assert_int_equal(pn_probe_supported(movable, &env, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "needs root");
}

/* A captured 3-node QEMU guest: nodes 1 and 2 are boot memory (ZONE_NORMAL). */
static void test_supported_fixture(void **state)
{
	struct pn_probe_env env = { .home_node = 0, .is_root = true };
	char why[256];

	(void)state;
	pn_sysroot_set("tests/fixtures/qemu-3node-memonly");
	pn_nodeset_set(&env.dev_nodes, 1);
	pn_nodeset_set(&env.dev_nodes, 2);
	assert_true(pn_probe_node_kernel_pages(1) > 0);
	assert_int_equal(pn_probe_supported(pn_probe_find("move_pages"), &env, why, sizeof(why)),
			 0);
	pn_sysroot_set(tree);
}

static void test_vmalloc_new(void **state)
{
	struct pn_vmalloc_snap s;
	int64_t pages[PN_PROBE_MAX_NODES] = { 0 };

	(void)state;
	put("/proc/vmallocinfo",
	    "0xffffc90000000000-0xffffc90000005000   20480 dup_task_struct+0x4f/0x1a0 pages=4 "
	    "vmalloc N0=4\n"
	    "0xffffc90000010000-0xffffc90000012000    8192 acpi_os_map_iomem+0x1ac/0x1d0 "
	    "phys=0x00000000bffe0000 ioremap\n");
	assert_int_equal(pn_vmalloc_snap(&s), 0);
	assert_int_equal((int)s.n, 2);
	put("/proc/vmallocinfo",
	    "0xffffc90000000000-0xffffc90000005000   20480 dup_task_struct+0x4f/0x1a0 pages=4 "
	    "vmalloc N0=4\n"
	    "0xffffc90000400000-0xffffc90000502000 1056768 __bpf_map_area_alloc+0x9e/0xc0 "
	    "pages=257 vmalloc N1=200 N2=57\n"
	    "0xffffc90000600000-0xffffc90000602000    8192 x+0x1/0x2 pages=1 vmalloc N0=1\n");
	pages[3] = -1; /* not measured: left alone */
	assert_int_equal(pn_vmalloc_new_pages(&s, pages), 0);
	assert_int_equal(pages[0], 1);
	assert_int_equal(pages[1], 200);
	assert_int_equal(pages[2], 57);
	assert_int_equal(pages[3], -1);
	pn_vmalloc_snap_free(&s);
}

static void test_slab_new(void **state)
{
	struct pn_slab_snap s;
	int64_t bytes[PN_PROBE_MAX_NODES] = { 0 };

	(void)state;
	put("/sys/kernel/slab/kmalloc-16/object_size", "16\n");
	put("/sys/kernel/slab/kmalloc-16/objects", "1200 N0=1000 N1=200\n");
	put("/sys/kernel/slab/kmalloc-4k/object_size", "4096\n");
	put("/sys/kernel/slab/kmalloc-4k/objects", "10 N0=10\n");
	assert_int_equal(pn_slab_snap(&s), 0);
	assert_int_equal((int)s.n, 2);
	put("/sys/kernel/slab/kmalloc-16/objects", "1700 N0=990 N1=710\n");
	put("/sys/kernel/slab/kmalloc-4k/objects", "14 N0=10 N2=4\n");
	put("/sys/kernel/slab/new-cache/object_size", "100\n");
	put("/sys/kernel/slab/new-cache/objects", "3 N1=3\n");
	assert_int_equal(pn_slab_new_bytes(&s, bytes), 0);
	assert_int_equal(bytes[0], 0); /* objects freed on node 0 do not offset */
	assert_int_equal(bytes[1], 510 * 16 + 300);
	assert_int_equal(bytes[2], 4 * 4096);
	pn_slab_snap_free(&s);
}

static void test_node_counters(void **state)
{
	int64_t v = 0;

	(void)state;
	put("/sys/devices/system/node/node1/meminfo",
	    "Node 1 MemTotal:       393216 kB\nNode 1 MemFree:        262144 kB\n");
	put("/sys/devices/system/node/node1/vmstat",
	    "nr_free_pages 1\nnr_slab_reclaimable 3\nnr_slab_unreclaimable 7\n");
	assert_int_equal(pn_node_total_pages(1, &v), 0);
	assert_int_equal(v, 98304);
	assert_int_equal(pn_node_free_pages(1, &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(pn_node_slab_bytes(1, &v), 0);
	assert_int_equal(v, 10 * 4096);
	assert_int_equal(pn_node_slab_bytes(2, &v), -ENOENT);
}

static void knob_seen(void *ctx, const char *path, const char *value)
{
	char *seen = ctx;

	strcat(seen, path);
	strcat(seen, "=");
	strcat(seen, value);
	strcat(seen, ";");
}

static void test_knobs(void **state)
{
	struct pn_probe_env env = { .home_node = 0, .is_root = true };
	char seen[1024] = "";

	(void)state;
	pn_nodeset_set(&env.dev_nodes, 1);
	pn_nodeset_set(&env.dev_nodes, 2);
	put("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "3\n");
	put("/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages", "1\n");
	put("/sys/devices/system/node/node2/hugepages/hugepages-2048kB/nr_hugepages", "2\n");
	pn_probe_knobs(pn_probe_find("hugetlb_spread"), &env, knob_seen, seen);
	assert_string_equal(
		seen, "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages=3;"
		      "/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages=1;"
		      "/sys/devices/system/node/node2/hugepages/hugepages-2048kB/nr_hugepages=2;");
	seen[0] = '\0';
	pn_probe_knobs(pn_probe_find("madv_collapse"), &env, knob_seen, seen); /* no debugfs */
	assert_string_equal(seen, "");
	pn_probe_knobs(pn_probe_find("bpf_array"), &env, knob_seen, seen); /* writes nothing */
	assert_string_equal(seen, "");
}

static int child_fn(void *arg, int64_t *pages)
{
	pages[1] = *(int *)arg;
	return 0;
}

static int child_fail(void *arg, int64_t *pages)
{
	(void)arg;
	(void)pages;
	return -ENOSPC;
}

static void test_hold_release(void **state)
{
	struct pn_probe_out out;
	int64_t pages[PN_PROBE_MAX_NODES] = { 0 };
	char buf[64], dir[300];
	int arg = 42, fds[2];
	void *map;
	pid_t pid;

	(void)state;
	memset(&out, 0, sizeof(out));
	put("/knob", "old\n");
	assert_int_equal(pn_probe_swap_text("/knob", "new", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "old");
	pn_probe_hold_write(&out, "/knob", buf);
	snprintf(dir, sizeof(dir), "%s/cg", tree);
	assert_int_equal(mkdir(dir, 0755), 0);
	pn_probe_hold_rmdir(&out, "/cg");
	map = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(map != MAP_FAILED);
	pn_probe_hold_map(&out, map, 4096);
	assert_int_equal(pipe(fds), 0);
	pn_probe_hold_fd(&out, fds[1]);
	assert_int_equal(pn_probe_child(&out, NULL, child_fn, &arg, pages), 0);
	assert_int_equal(pages[1], 42);
	assert_int_equal(out.undo[out.nundo - 1].type, PN_UNDO_KILL);
	pid = out.undo[out.nundo - 1].fd;
	assert_int_equal(kill(pid, 0), 0); /* holds its memory until release */
	assert_int_equal(pn_probe_child(&out, NULL, child_fail, &arg, pages), -ENOSPC);
	pn_probe_release(&out);
	assert_int_equal(out.nundo, 0);
	assert_int_equal(kill(pid, 0), -1); /* reaped */
	assert_true(pn_read_text("/knob", buf, sizeof(buf)) > 0);
	buf[strcspn(buf, "\n")] = '\0'; /* a regular file keeps the old newline */
	assert_string_equal(buf, "old");
	assert_int_equal(access(dir, F_OK), -1);
	assert_int_equal(read(fds[0], buf, 1), 0); /* write end closed */
	close(fds[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalogue),	  cmocka_unit_test(test_zones),
		cmocka_unit_test(test_supported_generic), cmocka_unit_test(test_supported_fixture),
		cmocka_unit_test(test_vmalloc_new),	  cmocka_unit_test(test_slab_new),
		cmocka_unit_test(test_node_counters),	  cmocka_unit_test(test_knobs),
		cmocka_unit_test(test_hold_release),
	};

	return cmocka_run_group_tests(tests, tree_setup, tree_teardown);
}
