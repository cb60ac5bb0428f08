// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_pagemap.c - PFN -> node from the memory blocks of the captured trees
 * (tests/fixtures: all three hold memory/memoryN and nodeK/memoryN), memory
 * hot-add and removal on a copy of one, a census over synthetic
 * /proc/PID/{maps,pagemap} files under a temporary sysroot (every kind of
 * entry, hidden PFNs), and live on this host: the test maps and touches N
 * pages and the census must find exactly N on node 0 (root only; SKIPs
 * with the reason otherwise), and a child's census must agree with its
 * numa_maps.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <numaif.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/sys/pagemap.h"
#include "core/sys/procfs.h"

static char srcdir[PATH_MAX + 16];
static char tmpdir[] = "/tmp/pnbench-pagemap-XXXXXX";
static struct pn_census cs; /* 8 KiB: not on the stack */

#define PPB (0x8000000ULL / 4096) /* pages per 128 MiB block */

static void tree(const char *name)
{
	char p[PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/tests/fixtures/%s", srcdir, name);
	pn_sysroot_set(p);
}

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
	char cmd[2 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("command failed: %s", cmd);
}

static bool page_is_4k(void)
{
	if (sysconf(_SC_PAGESIZE) == 4096)
		return true;
	print_message("skip: the fixtures' PFNs assume 4 KiB pages\n");
	return false;
}

/* ---- pfn -> node (pfnnode.c) ---- */

static void test_pfnmap_3node(void **state)
{
	struct pn_pfnnode m = { 0 };

	(void)state;
	if (!page_is_4k()) {
		skip();
		return;
	}
	tree("qemu-3node-memonly");
	assert_int_equal(pn_pfnnode_load(&m), 0);
	assert_int_equal(m.block_pages * m.page_bytes, 0x8000000);
	assert_int_equal(m.nblocks, 16);
	assert_int_equal(m.n, 3);
	assert_int_equal(pn_pfnnode_lookup(&m, 0), 0);
	assert_int_equal(pn_pfnnode_lookup(&m, 8 * PPB - 1), 0);
	assert_int_equal(pn_pfnnode_lookup(&m, 8 * PPB), 1);
	assert_int_equal(pn_pfnnode_lookup(&m, 12 * PPB - 1), 1);
	assert_int_equal(pn_pfnnode_lookup(&m, 12 * PPB), 2);
	assert_int_equal(pn_pfnnode_lookup(&m, 16 * PPB - 1), 2);
	assert_int_equal(pn_pfnnode_lookup(&m, 16 * PPB), -1);
	assert_int_equal(pn_pfnnode_lookup(&m, (1ULL << 55) - 1), -1);
	/* a reload gives the same table */
	assert_int_equal(pn_pfnnode_load(&m), 0);
	assert_int_equal(m.n, 3);
	pn_pfnnode_free(&m);
	assert_int_equal(pn_pfnnode_lookup(&m, 0), -1); /* empty after free */
}

static void test_pfnmap_sparse_and_laptop(void **state)
{
	struct pn_pfnnode m = { 0 };

	(void)state;
	if (!page_is_4k()) {
		skip();
		return;
	}
	tree("qemu-sparse-0-2-5");
	assert_int_equal(pn_pfnnode_load(&m), 0);
	assert_int_equal(pn_pfnnode_lookup(&m, 3 * PPB), 0);
	assert_int_equal(pn_pfnnode_lookup(&m, 9 * PPB + 17), 2);
	assert_int_equal(pn_pfnnode_lookup(&m, 15 * PPB), 5);
	/* the laptop: blocks 0-23 and 32-199 on node 0, a hole between */
	tree("laptop-1node");
	assert_int_equal(pn_pfnnode_load(&m), 0);
	assert_int_equal(m.nblocks, 192);
	assert_int_equal(m.n, 2);
	assert_int_equal(pn_pfnnode_lookup(&m, 23 * PPB), 0);
	assert_int_equal(pn_pfnnode_lookup(&m, 24 * PPB), -1);
	assert_int_equal(pn_pfnnode_lookup(&m, 32 * PPB - 1), -1);
	assert_int_equal(pn_pfnnode_lookup(&m, 32 * PPB), 0);
	assert_int_equal(pn_pfnnode_lookup(&m, 200 * PPB - 1), 0);
	assert_int_equal(pn_pfnnode_lookup(&m, 200 * PPB), -1);
	pn_pfnnode_free(&m);
}

/* A copy of the 3-node tree: a block hot-added to node 1, then block 15
 * removed from node 2; the table follows after a reload. */
static void test_pfnmap_hotplug(void **state)
{
	struct pn_pfnnode m = { 0 };
	char sys[PATH_MAX + 64];

	(void)state;
	if (!page_is_4k()) {
		skip();
		return;
	}
	snprintf(sys, sizeof(sys), "%s/hotplug/sys/devices/system", tmpdir);
	sh("mkdir -p '%s' && cp -a "
	   "'%s/tests/fixtures/qemu-3node-memonly/sys/devices/system/memory' "
	   "'%s/tests/fixtures/qemu-3node-memonly/sys/devices/system/node' '%s/'",
	   sys, srcdir, srcdir, sys);
	snprintf(sys, sizeof(sys), "%s/hotplug", tmpdir);
	pn_sysroot_set(sys);
	assert_int_equal(pn_pfnnode_load(&m), 0);
	assert_int_equal(pn_pfnnode_lookup(&m, 40 * PPB), -1);

	sh("cd '%s/sys/devices/system' && mkdir memory/memory40 && echo online > "
	   "memory/memory40/state && ln -s ../../node/node1 memory/memory40/node1 && "
	   "ln -s ../../memory/memory40 node/node1/memory40",
	   sys);
	assert_int_equal(pn_pfnnode_lookup(&m, 40 * PPB), -1); /* not reloaded yet */
	assert_int_equal(pn_pfnnode_load(&m), 0);
	assert_int_equal(m.nblocks, 17);
	assert_int_equal(m.n, 4);
	assert_int_equal(pn_pfnnode_lookup(&m, 40 * PPB + 5), 1);
	assert_int_equal(pn_pfnnode_lookup(&m, 39 * PPB), -1);

	sh("cd '%s/sys/devices/system' && rm node/node2/memory15 && rm -r memory/memory15", sys);
	assert_int_equal(pn_pfnnode_load(&m), 0);
	assert_int_equal(m.nblocks, 16);
	assert_int_equal(pn_pfnnode_lookup(&m, 15 * PPB), -1);
	assert_int_equal(pn_pfnnode_lookup(&m, 14 * PPB), 2);

	/* a block claimed by two nodes is an inconsistent tree */
	sh("cd '%s/sys/devices/system' && ln -s ../../memory/memory14 node/node0/memory14", sys);
	assert_int_equal(pn_pfnnode_load(&m), -EINVAL);
	assert_int_equal(m.n, 0);
	assert_int_equal(pn_pfnnode_lookup(&m, 0), -1);
	/* a bad block size, then none */
	sh("cd '%s/sys/devices/system' && rm node/node0/memory14 && echo 3000 > "
	   "memory/block_size_bytes",
	   sys);
	assert_int_equal(pn_pfnnode_load(&m), -EINVAL);
	sh("rm '%s/sys/devices/system/memory/block_size_bytes'", sys);
	assert_int_equal(pn_pfnnode_load(&m), -ENOENT);
	pn_pfnnode_free(&m);
}

/* ---- census over synthetic files ---- */

static void put_entry(int fd, uint64_t vpn, uint64_t e)
{
	assert_int_equal(pwrite(fd, &e, 8, (off_t)(vpn * 8)), 8);
}

/* tmpdir/census: the 3-node /sys, /proc/4242/maps and a pagemap written
 * entry by entry. */
static void synthetic_proc(bool hide_pfns)
{
	char root[PATH_MAX + 64];
	int fd;

	snprintf(root, sizeof(root), "%s/census", tmpdir);
	sh("rm -rf '%s' && mkdir -p '%s/proc/4242' && cp -a "
	   "'%s/tests/fixtures/qemu-3node-memonly/sys' '%s/'",
	   root, root, srcdir, root);
	sh("printf '%%s\\n' '1000-5000 rw-p 00000000 00:00 0' "
	   "'10000-12000 r--p 00000000 fe:00 77 /usr/bin/x' "
	   "'20000-22000 rw-p 00000000 00:00 0 [stack]' > '%s/proc/4242/maps'",
	   root);
	snprintf(root + strlen(root), sizeof(root) - strlen(root), "/proc/4242/pagemap");
	fd = open(root, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	put_entry(fd, 1, 1ULL << 63 | (hide_pfns ? 0 : 5));	   /* node 0 */
	put_entry(fd, 2, 1ULL << 63 | 1ULL << 61 | (8 * PPB + 3)); /* node 1, file page */
	put_entry(fd, 3, 1ULL << 62 | 0x1234ULL << 5 | 1);	   /* swapped */
	put_entry(fd, 4, 1ULL << 55);				   /* soft-dirty only: none */
	put_entry(fd, 16, 1ULL << 63 | (15 * PPB));		   /* node 2 */
	put_entry(fd, 17, 1ULL << 63 | (16 * PPB + 1));		   /* beyond every block */
	/* the file ends here: [stack] at vpn 0x20.. reads nothing */
	close(fd);
	root[strlen(root) - strlen("/proc/4242/pagemap")] = '\0';
	pn_sysroot_set(root);
}

static void test_census_synthetic(void **state)
{
	struct pn_pfnnode m = { 0 };
	const struct pn_range one = { 0x2000, 0x3001 }; /* rounded out: vpn 2 and 3 */

	(void)state;
	if (!page_is_4k()) {
		skip();
		return;
	}
	synthetic_proc(false);
	assert_int_equal(pn_pfnnode_load(&m), 0);
	assert_int_equal(pn_pagemap_census(4242, &m, &cs), 0);
	assert_int_equal(cs.page_bytes, 4096);
	assert_int_equal(cs.pages, 4 + 2 + 2);
	assert_int_equal(cs.present, 4);
	assert_int_equal(cs.swapped, 1);
	assert_int_equal(cs.none, 1);
	assert_int_equal(cs.unread, 2);
	assert_int_equal(cs.unknown_pfn, 1);
	assert_int_equal(cs.node_pages[0], 1);
	assert_int_equal(cs.node_pages[1], 1);
	assert_int_equal(cs.node_pages[2], 1);
	assert_int_equal(cs.present + cs.swapped + cs.none + cs.unread, cs.pages);

	assert_int_equal(pn_pagemap_census_ranges(4242, &one, 1, &m, &cs), 0);
	assert_int_equal(cs.pages, 2);
	assert_int_equal(cs.present, 1);
	assert_int_equal(cs.swapped, 1);
	assert_int_equal(cs.node_pages[1], 1);

	assert_int_equal(pn_pagemap_census(4243, &m, &cs), -ENOENT);
	/* PFNs hidden (no CAP_SYS_ADMIN): -EPERM, nothing half-counted */
	synthetic_proc(true);
	assert_int_equal(pn_pagemap_census(4242, &m, &cs), -EPERM);
	assert_int_equal(cs.present, 0);
	assert_int_equal(cs.pages, 0);
	pn_pfnnode_free(&m);
}

/* ---- live ---- */

/* The live table, or false (with the reason) when this host cannot run a
 * live census. */
static bool live_pfnnode(struct pn_pfnnode *m)
{
	int ret;

	pn_sysroot_set("");
	ret = pn_pfnnode_load(m);
	if (ret) {
		print_message("skip: no memory-block layout in /sys/devices/system/memory (%s)\n",
			      strerror(-ret));
		return false;
	}
	if (pn_pfnnode_lookup(m, 0) < 0 && m->n == 0) {
		print_message("skip: no memory block is linked from a node\n");
		return false;
	}
	return true;
}

static void test_census_live_self(void **state)
{
	const size_t n = 1000, pg = (size_t)sysconf(_SC_PAGESIZE);
	struct pn_pfnnode m = { 0 };
	unsigned long node0 = 1;
	struct pn_range r;
	char *p;
	int ret;

	(void)state;
	if (!live_pfnnode(&m)) {
		skip();
		return;
	}
	p = mmap(NULL, n * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	assert_int_equal(madvise(p, n * pg, MADV_NOHUGEPAGE), 0);
	if (mbind(p, n * pg, MPOL_BIND, &node0, 8 * sizeof(node0), 0)) {
		print_message("skip: cannot bind to node 0: %s\n", strerror(errno));
		munmap(p, n * pg);
		pn_pfnnode_free(&m);
		skip();
		return;
	}
	r = (struct pn_range){ (uintptr_t)p, (uintptr_t)p + n * pg };
	/* nothing touched yet */
	ret = pn_pagemap_census_ranges(0, &r, 1, &m, &cs);
	assert_int_equal(ret, 0);
	assert_int_equal(cs.pages, n);
	assert_int_equal(cs.present, 0);
	assert_int_equal(cs.none, n);
	memset(p, 0x5a, n * pg);
	ret = pn_pagemap_census_ranges(0, &r, 1, &m, &cs);
	if (ret == -EPERM) {
		print_message("skip: PFNs hidden (needs CAP_SYS_ADMIN)\n");
		munmap(p, n * pg);
		pn_pfnnode_free(&m);
		skip();
		return;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(cs.present, n);
	assert_int_equal(cs.node_pages[0], n);
	assert_int_equal(cs.unknown_pfn, 0);
	/* drop 100 of them */
	assert_int_equal(madvise(p, 100 * pg, MADV_DONTNEED), 0);
	assert_int_equal(pn_pagemap_census_ranges(0, &r, 1, &m, &cs), 0);
	assert_int_equal(cs.present, n - 100);
	assert_int_equal(cs.node_pages[0], n - 100);
	assert_int_equal(cs.none, 100);
	munmap(p, n * pg);
	pn_pfnnode_free(&m);
}

/* A 1 TiB reservation with 1000 touched pages in its middle, as sanitizer
 * shadows and allocator arenas look: with PAGEMAP_SCAN (Linux 6.7) the
 * census reads only the populated regions, so it takes milliseconds instead
 * of reading 2 GiB of pagemap entries. */
static void test_census_live_sparse(void **state)
{
	const size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = 1000;
	const size_t len = (size_t)1 << 40, mid = len / 2;
	struct pn_pfnnode m = { 0 };
	struct utsname u;
	struct pn_range r;
	uint64_t t0;
	int major = 0, minor = 0, ret;
	char *p;

	(void)state;
	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2 ||
	    major * 100 + minor < 607) {
		print_message("skip: kernel %s has no PAGEMAP_SCAN (6.7+): the census would read "
			      "every entry\n",
			      u.release);
		skip();
		return;
	}
	if (!live_pfnnode(&m)) {
		skip();
		return;
	}
	p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		print_message("skip: cannot reserve 1 TiB of address space: %s\n", strerror(errno));
		pn_pfnnode_free(&m);
		skip();
		return;
	}
	assert_int_equal(mprotect(p + mid, n * pg, PROT_READ | PROT_WRITE), 0);
	memset(p + mid, 1, n * pg);
	r = (struct pn_range){ (uintptr_t)p, (uintptr_t)p + len };
	t0 = pn_now_ns();
	ret = pn_pagemap_census_ranges(0, &r, 1, &m, &cs);
	t0 = pn_now_ns() - t0;
	munmap(p, len);
	pn_pfnnode_free(&m);
	if (ret == -EPERM) {
		print_message("skip: PFNs hidden (needs CAP_SYS_ADMIN)\n");
		skip();
		return;
	}
	assert_int_equal(ret, 0);
	print_message("census of a 1 TiB range: %.1f ms\n", (double)t0 / 1e6);
	assert_int_equal(cs.pages, len / pg);
	assert_int_equal(cs.present, n);
	assert_int_equal(cs.none, len / pg - n);
	assert_true(t0 < 2000000000ULL);
}

/* Without CAP_SYS_ADMIN the kernel shows PFN 0: a child that drops root
 * must get -EPERM for its own touched pages, never a census of "node of
 * PFN 0". */
static void test_census_live_unprivileged(void **state)
{
	struct pn_pfnnode m = { 0 };
	int st;
	pid_t pid;

	(void)state;
	if (geteuid() != 0) {
		print_message("skip: needs root to drop privileges from\n");
		skip();
		return;
	}
	if (!live_pfnnode(&m)) {
		skip();
		return;
	}
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		static char page[4096] __attribute__((aligned(4096)));
		const struct pn_range r = { (uintptr_t)page, (uintptr_t)page + sizeof(page) };
		int ret;

		page[0] = 1;
		/* a uid change makes the process non-dumpable, and its /proc
		 * files root's: make them its own again */
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534) ||
		    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
			_exit(3);
		ret = pn_pagemap_census_ranges(0, &r, 1, &m, &cs);
		_exit(ret == -EPERM ? 0 : ret == 0 ? 1 : 2);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) != 0)
		fail_msg("unprivileged census: %s", WEXITSTATUS(st) == 1   ? "counted pages"
						    : WEXITSTATUS(st) == 2 ? "failed, not -EPERM"
									   : "could not drop root");
	pn_pfnnode_free(&m);
}

/* A whole process (sleep, not built here: no sanitizer shadow to walk):
 * pagemap sees every page numa_maps sees, plus at most the special
 * mappings numa_maps leaves out ([vvar], [vdso]). */
static void test_census_live_child(void **state)
{
	static struct pn_numa_maps nm;
	struct pn_pfnnode m = { 0 };
	uint64_t known = 0, nm_pages;
	int st, ret;
	pid_t pid;

	(void)state;
	if (!live_pfnnode(&m)) {
		skip();
		return;
	}
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execlp("sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	usleep(200000); /* let it exec and settle */
	ret = pn_pagemap_census(pid, &m, &cs);
	if (ret == -EPERM) {
		print_message("skip: PFNs hidden (needs CAP_SYS_ADMIN)\n");
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		pn_pfnnode_free(&m);
		skip();
		return;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(pn_numa_maps_read(pid, &nm), 0);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	for (int n = 0; n < PN_MAX_NODES; n++)
		known += cs.node_pages[n];
	assert_int_equal(known + cs.unknown_pfn, cs.present);
	assert_int_equal(cs.present + cs.swapped + cs.none + cs.unread, cs.pages);
	nm_pages = nm.total_bytes / cs.page_bytes;
	print_message("sleep: pagemap %llu present (%llu unknown PFN), numa_maps %llu pages\n",
		      (unsigned long long)cs.present, (unsigned long long)cs.unknown_pfn,
		      (unsigned long long)nm_pages);
	assert_true(nm_pages > 0);
	assert_true(cs.present >= nm_pages);
	assert_true(cs.present - nm_pages <= 16);
	pn_pfnnode_free(&m);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pfnmap_3node),
		cmocka_unit_test(test_pfnmap_sparse_and_laptop),
		cmocka_unit_test(test_pfnmap_hotplug),
		cmocka_unit_test(test_census_synthetic),
		cmocka_unit_test(test_census_live_self),
		cmocka_unit_test(test_census_live_sparse),
		cmocka_unit_test(test_census_live_unprivileged),
		cmocka_unit_test(test_census_live_child),
	};
	const char *env = getenv("PNBENCH_SRCDIR");
	char exe[PATH_MAX];

	(void)argc;
	snprintf(exe, sizeof(exe), "%s", argv[0]);
	if (env)
		snprintf(srcdir, sizeof(srcdir), "%s", env);
	else if (access("tests/fixtures/qemu-3node-memonly", R_OK) == 0)
		snprintf(srcdir, sizeof(srcdir), ".");
	else
		snprintf(srcdir, sizeof(srcdir), "%s/../..", dirname(exe));
	pn_log_level = PN_LOG_QUIET;
	return cmocka_run_group_tests_name("pagemap", tests, setup, teardown);
}
