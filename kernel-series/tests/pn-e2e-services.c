// SPDX-License-Identifier: GPL-2.0
/*
 * pn-e2e-test: kernel services acting on the pages of a device node (or
 * bringing pages to one), for tests/e2e-guest.sh.
 *
 *   mlock <node> <pages>
 *       mbind(MPOL_BIND, node), mlock() (faults the pages in under
 *       VM_LOCKED), munlock(); prints the node's Mlocked (kB) before, while
 *       locked and after munlock.
 *   hugetlb <node>
 *       mmap one 2 MiB MAP_HUGETLB page, mbind(MPOL_BIND, node), touch it;
 *       prints sigbus=1 if the fault failed, else the node it came from.
 *   demote <cgroup_dir> <pages>
 *       join cgroup_dir, touch <pages> under the default policy (DRAM), ask
 *       for their reclaim through memory.reclaim; with demotion enabled and
 *       no swap, reclaim can only demote. Prints where the pages are then.
 *   damon <node> <pages> <pageout|migrate_cold> <target_nid>
 *       mbind(MPOL_BIND, node), touch <pages>, run one DAMON (sysfs, paddr)
 *       scheme with that action over the physical range of the pages for
 *       5 s; prints DAMON's sz_applied and where the pages are then.
 *   reclaim <cgroup_dir> <node> <pages>
 *       join cgroup_dir, mbind(MPOL_BIND, node), touch <pages>, ask for
 *       their reclaim through memory.reclaim; prints how many left the
 *       node (with swap: swapped out, move_pages() status -ENOENT).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pn-e2e-test.h"

int cmd_demote(int argc, char **argv)
{
	long counts[MAX_NODES + 1];
	size_t bytes;
	int err;
	long on_dram0;
	char *p;

	if (argc != 4)
		return 2;
	join_cgroup(argv[2]);
	bytes = strtoul(argv[3], NULL, 0) * PAGE;
	p = map_anon(bytes);
	touch(p, bytes);
	placement(p, bytes, counts);
	on_dram0 = counts[0];
	err = cg_reclaim(argv[2], bytes);
	placement(p, bytes, counts);
	printf("R demote pages=%zu node0_before=%ld node0_after=%ld demoted=%ld reclaim_errno=%d\n",
	       bytes / PAGE, on_dram0, counts[0], on_dram0 - counts[0], err);
	print_placement("demote", counts);
	return 0;
}

int cmd_reclaim(int argc, char **argv)
{
	long counts[MAX_NODES + 1];
	long before;
	size_t bytes;
	int node, err;
	char *p;

	if (argc != 5)
		return 2;
	join_cgroup(argv[2]);
	node = atoi(argv[3]);
	bytes = strtoul(argv[4], NULL, 0) * PAGE;
	p = map_bound("reclaim", node, MPOL_BIND, bytes);
	if (!p)
		return 3;
	touch(p, bytes);
	placement(p, bytes, counts);
	before = counts[node];
	err = cg_reclaim(argv[2], bytes);
	placement(p, bytes, counts);
	printf("R reclaim node=%d ok=1 pages=%zu on_node_before=%ld on_node_after=%ld "
	       "reclaimed=%ld reclaim_errno=%d\n",
	       node, bytes / PAGE, before, counts[node], before - counts[node], err);
	print_placement("reclaim", counts);
	return 0;
}

#define DAMON_DIR "/sys/kernel/mm/damon/admin/kdamonds"
#define DAMON_CTX DAMON_DIR "/0/contexts/0"

/* Physical byte range [lo, hi) spanning the pages of [p, p+bytes). */
static int phys_span(char *p, size_t bytes, unsigned long long *lo, unsigned long long *hi)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);

	*lo = ~0ULL;
	*hi = 0;
	if (fd < 0)
		return errno;
	for (size_t off = 0; off < bytes; off += PAGE) {
		unsigned long long pa = page_pfn(fd, p + off) * PAGE;

		if (!pa)
			continue;
		if (pa < *lo)
			*lo = pa;
		if (pa + PAGE > *hi)
			*hi = pa + PAGE;
	}
	close(fd);
	return *hi ? 0 : ENOENT;
}

static int damon_run(const char *action, const char *target, unsigned long long lo,
		     unsigned long long hi, char *applied, size_t len)
{
	char slo[32], shi[32];
	const char *w[][2] = {
		{ DAMON_DIR "/nr_kdamonds", "1" },
		{ DAMON_DIR "/0/contexts/nr_contexts", "1" },
		{ DAMON_CTX "/operations", "paddr" },
		{ DAMON_CTX "/targets/nr_targets", "1" },
		{ DAMON_CTX "/targets/0/regions/nr_regions", "1" },
		{ DAMON_CTX "/targets/0/regions/0/start", slo },
		{ DAMON_CTX "/targets/0/regions/0/end", shi },
		{ DAMON_CTX "/schemes/nr_schemes", "1" },
		{ DAMON_CTX "/schemes/0/action", action },
		{ DAMON_CTX "/schemes/0/access_pattern/sz/max", "18446744073709551615" },
		{ DAMON_CTX "/schemes/0/access_pattern/nr_accesses/max", "4294967295" },
		{ DAMON_CTX "/schemes/0/access_pattern/age/max", "4294967295" },
		{ DAMON_CTX "/schemes/0/target_nid", target },
		{ DAMON_DIR "/0/state", "on" },
	};
	int err = 0;
	FILE *f;

	snprintf(slo, sizeof(slo), "%llu", lo);
	snprintf(shi, sizeof(shi), "%llu", hi);
	snprintf(applied, len, "none");
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]) && !err; i++)
		if ((err = write_file(w[i][0], w[i][1])))
			fprintf(stderr, "%s <- %s: %s\n", w[i][0], w[i][1], strerror(err));
	if (!err) {
		/* pageout skips young folios: DAMON's sampling ages them */
		sleep(5);
		write_file(DAMON_DIR "/0/state", "update_schemes_stats");
		f = fopen(DAMON_CTX "/schemes/0/stats/sz_applied", "r");
		if (f && fscanf(f, "%31s", applied) != 1)
			snprintf(applied, len, "unreadable");
		if (f)
			fclose(f);
	}
	write_file(DAMON_DIR "/0/state", "off");
	write_file(DAMON_DIR "/nr_kdamonds", "0");
	return err;
}

int cmd_damon(int argc, char **argv)
{
	long counts[MAX_NODES + 1];
	unsigned long long lo, hi;
	char applied[32];
	size_t bytes;
	int node, err;
	char *p;

	if (argc != 6)
		return 2;
	node = atoi(argv[2]);
	bytes = strtoul(argv[3], NULL, 0) * PAGE;
	p = map_bound("damon", node, MPOL_BIND, bytes);
	if (!p)
		return 3;
	touch(p, bytes);
	err = phys_span(p, bytes, &lo, &hi);
	if (!err)
		err = damon_run(argv[4], argv[5], lo, hi, applied, sizeof(applied));
	placement(p, bytes, counts);
	printf("R damon node=%d action=%s ok=%d errno=%d pages=%zu sz_applied=%s on_node=%ld\n",
	       node, argv[4], !err, err, bytes / PAGE, err ? "none" : applied, counts[node]);
	print_placement("damon", counts);
	return err ? 3 : 0;
}

int cmd_mlock(int argc, char **argv)
{
	long before, locked, after;
	size_t bytes;
	int node;
	char *p;

	if (argc != 4)
		return 2;
	node = atoi(argv[2]);
	bytes = strtoul(argv[3], NULL, 0) * PAGE;
	p = map_bound("mlock", node, MPOL_BIND, bytes);
	if (!p)
		return 3;
	before = node_kb(node, "Mlocked");
	if (mlock(p, bytes))
		die("mlock");
	locked = node_kb(node, "Mlocked");
	if (munlock(p, bytes))
		die("munlock");
	after = node_kb(node, "Mlocked");
	printf("R mlock node=%d ok=1 pages=%zu mlocked_before_kb=%ld mlocked_locked_kb=%ld mlocked_after_kb=%ld\n",
	       node, bytes / PAGE, before, locked, after);
	munmap(p, bytes);
	return 0;
}

static sigjmp_buf fault_jmp;

static void on_sigbus(int sig);

int cmd_hugetlb(int argc, char **argv)
{
	size_t bytes = 2UL << 20;
	struct sigaction sa = { 0 };
	unsigned long mask;
	int node, status = -1;
	void *pg;
	char *p;

	if (argc != 3)
		return 2;
	node = atoi(argv[2]);
	mask = 1UL << node;
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p == MAP_FAILED) {
		printf("R hugetlb node=%d ok=0 mmap_errno=%d (%s)\n", node, errno,
		       strerror(errno));
		return 3;
	}
	if (sys_mbind(p, bytes, MPOL_BIND, &mask, MAX_NODES + 1)) {
		printf("R hugetlb node=%d ok=0 errno=%d (%s)\n", node, errno,
		       strerror(errno));
		return 3;
	}
	sa.sa_handler = on_sigbus;
	sigaction(SIGBUS, &sa, NULL);
	if (sigsetjmp(fault_jmp, 1)) {
		printf("R hugetlb node=%d ok=1 sigbus=1 on_node=-1\n", node);
		return 0;
	}
	p[0] = 1;
	signal(SIGBUS, SIG_DFL);
	pg = p;
	if (syscall(SYS_move_pages, 0, 1, &pg, NULL, &status, 0))
		die("move_pages");
	printf("R hugetlb node=%d ok=1 sigbus=0 on_node=%d\n", node, status);
	return 0;
}

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(fault_jmp, 1);
}
