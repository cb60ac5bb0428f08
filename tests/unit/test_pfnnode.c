// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_pfnnode.c - pfn -> node (core/sys/pfnnode.c) against captured sysfs
 * trees: one node (this VM), sparse nodes 0,2,5 (QEMU guest), and that tree
 * with a block hot-added to node 5, a block removed from node 2, and a block moved to
 * another node, each picked up by pn_pfnnode_refresh().
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/sys/pfnnode.h"
#include "core/lib/pn.h"

#define BLK 32768ULL /* 128 MiB blocks of 4 KiB pages */

static void fixture(char *out, size_t len, const char *name)
{
	const char *base = getenv("PN_FIXTURES");

	snprintf(out, len, "%s/%s", base ? base : "tests/fixtures", name);
}

static void use(const char *tree)
{
	char root[4096];

	fixture(root, sizeof(root), tree);
	pn_sysroot_set(root);
}

static void test_one_node(void **state)
{
	struct pn_pfnnode m = { .page_bytes = 4096 };

	(void)state;
	use("laptop-1node");
	assert_int_equal(pn_pfnnode_load(&m), 0);
	assert_int_equal(m.block_pages, BLK);
	assert_true(m.nblocks > 8);
	assert_int_equal(pn_pfnnode_lookup(&m, 0), 0);
	assert_int_equal(pn_pfnnode_lookup(&m, 5 * BLK + 17), 0);
	assert_int_equal(pn_pfnnode_lookup(&m, UINT64_MAX), PN_PFNNODE_UNKNOWN);
	pn_pfnnode_free(&m);
	pn_sysroot_set("");
}

static void test_sparse(void **state)
{
	struct pn_pfnnode m = { .page_bytes = 4096 };

	(void)state;
	use("qemu-sparse-0-2-5");
	assert_int_equal(pn_pfnnode_load(&m), 0);
	assert_int_equal(m.nblocks, 16);
	assert_int_equal(m.n, 3); /* 0-7 -> 0, 8-11 -> 2, 12-15 -> 5, merged */
	assert_int_equal(pn_pfnnode_lookup(&m, 7 * BLK + BLK - 1), 0);
	assert_int_equal(pn_pfnnode_lookup(&m, 8 * BLK), 2);
	assert_int_equal(pn_pfnnode_lookup(&m, 12 * BLK - 1), 2);
	assert_int_equal(pn_pfnnode_lookup(&m, 12 * BLK), 5);
	assert_int_equal(pn_pfnnode_lookup(&m, 16 * BLK - 1), 5);
	assert_int_equal(pn_pfnnode_lookup(&m, 16 * BLK), PN_PFNNODE_UNKNOWN);
	/* nothing changed: no new generation */
	assert_int_equal(pn_pfnnode_refresh(&m), 0);
	assert_int_equal(m.generation, 0);
	pn_pfnnode_free(&m);
	pn_sysroot_set("");
}

/* A writable copy of a captured tree (only what pfnnode reads). */
static void copy_tree(char *tmp, size_t len, const char *tree)
{
	char src[4096], cmd[12288];

	fixture(src, sizeof(src), tree);
	snprintf(tmp, len, "/tmp/pn-pfnnode-XXXXXX");
	assert_non_null(mkdtemp(tmp));
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/sys/devices/system && cp -a %s/sys/devices/system/memory "
		 "%s/sys/devices/system/node %s/sys/devices/system/",
		 tmp, src, src, tmp);
	assert_int_equal(system(cmd), 0);
	pn_sysroot_set(tmp);
}

static void test_hotplug(void **state)
{
	struct pn_pfnnode m = { .page_bytes = 4096 };
	char tmp[64], cmd[512];

	(void)state;
	copy_tree(tmp, sizeof(tmp), "qemu-sparse-0-2-5");
	assert_int_equal(pn_pfnnode_load(&m), 0);
	assert_int_equal(pn_pfnnode_lookup(&m, 40 * BLK), PN_PFNNODE_UNKNOWN);

	/* hot-add block 40 to node 5 (above a hole, as device memory is) */
	snprintf(cmd, sizeof(cmd),
		 "mkdir %s/sys/devices/system/memory/memory40 && ln -s ../../memory/memory40 "
		 "%s/sys/devices/system/node/node5/memory40",
		 tmp, tmp);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(pn_pfnnode_refresh(&m), 1);
	assert_int_equal(m.generation, 1);
	assert_int_equal(pn_pfnnode_lookup(&m, 40 * BLK + 5), 5);
	assert_int_equal(pn_pfnnode_lookup(&m, 39 * BLK), PN_PFNNODE_UNKNOWN);
	assert_int_equal(m.n, 4);

	/* hot-remove block 9 from node 2: its pages belong to no node now */
	snprintf(cmd, sizeof(cmd),
		 "rm %s/sys/devices/system/node/node2/memory9 && rm -r "
		 "%s/sys/devices/system/memory/memory9",
		 tmp, tmp);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(pn_pfnnode_refresh(&m), 1);
	assert_int_equal(pn_pfnnode_lookup(&m, 9 * BLK), PN_PFNNODE_UNKNOWN);
	assert_int_equal(pn_pfnnode_lookup(&m, 8 * BLK), 2);
	assert_int_equal(pn_pfnnode_lookup(&m, 10 * BLK), 2);

	/* block 11 re-added to node 5: the same pfns now map elsewhere */
	snprintf(cmd, sizeof(cmd),
		 "mv %s/sys/devices/system/node/node2/memory11 "
		 "%s/sys/devices/system/node/node5/memory11",
		 tmp, tmp);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(pn_pfnnode_refresh(&m), 1);
	assert_int_equal(pn_pfnnode_lookup(&m, 11 * BLK), 5);
	assert_int_equal(pn_pfnnode_lookup(&m, 12 * BLK), 5);
	assert_int_equal(m.generation, 3);

	/* one block listed under two nodes: an error, the old map is kept */
	snprintf(cmd, sizeof(cmd),
		 "ln -s ../../memory/memory0 %s/sys/devices/system/node/node5/memory0", tmp);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(pn_pfnnode_refresh(&m), -EINVAL);
	assert_int_equal(pn_pfnnode_lookup(&m, 0), 0);
	pn_pfnnode_free(&m);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	assert_int_equal(system(cmd), 0);
	pn_sysroot_set("");
}

/* The kernel filter drops the known ranges of untracked nodes only. */
static void test_filter(void **state)
{
	struct pn_pfnnode m = { .page_bytes = 4096 };
	struct pn_nodeset keep;
	char buf[512], tiny[16];

	(void)state;
	use("qemu-sparse-0-2-5");
	assert_int_equal(pn_pfnnode_load(&m), 0);
	pn_nodeset_zero(&keep);
	pn_nodeset_set(&keep, 2);
	assert_true(pn_pfnnode_filter(&m, &keep, "pfn", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "!(pfn >= 0x0 && pfn < 0x40000) && "
				 "!(pfn >= 0x60000 && pfn < 0x80000)");
	assert_int_equal(pn_pfnnode_filter(&m, &keep, "pfn", tiny, sizeof(tiny)), -ENOSPC);
	pn_nodeset_set(&keep, 0);
	pn_nodeset_set(&keep, 5);
	assert_int_equal(pn_pfnnode_filter(&m, &keep, "pfn", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	pn_pfnnode_free(&m);
	pn_sysroot_set("");
}

static void test_no_memory_dir(void **state)
{
	struct pn_pfnnode m = { .page_bytes = 4096 };

	(void)state;
	use("malformed/no-numa");
	assert_true(pn_pfnnode_load(&m) < 0);
	pn_pfnnode_free(&m);
	pn_sysroot_set("");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_node),      cmocka_unit_test(test_sparse),
		cmocka_unit_test(test_hotplug),	      cmocka_unit_test(test_filter),
		cmocka_unit_test(test_no_memory_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
