// SPDX-License-Identifier: GPL-2.0
/*
 * pn-e2e-test: in-guest helper for kernel-series/tests/e2e.sh.
 *
 * Static, raw syscalls only (no libnuma). Every result is printed as one
 * line "R <subcommand> key=value ..." on stdout; diagnostics go to stderr.
 *
 *   mbind <node> <bind|preferred> <pages>
 *       mmap anonymous, mbind to <node>, touch, count placement with
 *       move_pages(). Exit 0, or 3 when mbind() fails (errno printed).
 *   storm <anon_pct> <file_mib> <file> [shmem_pct]
 *       "General allocation storm" without any policy: anonymous memory
 *       (<anon_pct>% of DRAM availability), shmem (/dev/shm-like tmpfs file in
 *       /tmp, [shmem_pct]%, default 5), and a <file_mib> MiB file written and
 *       read back twice through the page cache. DRAM availability =
 *       MemAvailable minus the free memory of CPU-less nodes, so the held
 *       part never exceeds DRAM whether or not device memory is private.
 *       Prints per-node MemUsed before and at peak.
 *   prefer-big <node> <mib>
 *       MPOL_PREFERRED on <node>, touch <mib> MiB (more than the node holds):
 *       must complete (fallback to DRAM), placement printed per node.
 *   chardev <nodemask_hex> <strict|fallback> <gfp|ctx> <pages>
 *       (ctx sets flag bit 1: series v2's alloc-context entry point, which
 *       v3 removed and refuses with EINVAL)
 *       /dev/private_node_test: set cfg, mmap MAP_SHARED, touch <pages>;
 *       SIGBUS (strict, device full) is caught and counted; prints the
 *       driver's stats.
 *   mbind-mask <nodemask_hex> <bind|preferred|preferred_many|interleave> <pages>
 *       like mbind, with any nodemask; prints the placement per node
 *       (node<N>=pages) and whether the kernel killed nothing (it exits
 *       normally) even when <pages> exceeds one node of the mask.
 *   setpol <nodemask_hex|all> <interleave|bind|preferred> <pages>
 *       set_mempolicy() with the mask ("all" = all 64 bits, maxnode 65:
 *       every node a 64-node kernel (NODES_SHIFT=6) can have, what "all
 *       nodes" programs pass; bits beyond MAX_NUMNODES are EINVAL on any
 *       kernel), then touch <pages>.
 *   move <node> <pages>
 *       touch <pages> under the default policy, move_pages() them to <node>;
 *       prints the syscall result and the placement afterwards.
 *   migrate <from_hex> <to_hex> <pages>
 *       touch <pages>, migrate_pages(0, from, to); prints the result and
 *       the placement afterwards.
 *   report <node> <pages> [cgroup_dir]
 *       join cgroup_dir (if given), mbind(MPOL_BIND, node), touch <pages>;
 *       prints the node's entry in the mapping's /proc/self/numa_maps line
 *       and the cgroup's memory.numa_stat "anon" entry for the node.
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
 *   revoke <mbind|setpol> <nodemask_hex> <pages>
 *       MPOL_BIND, <pages> touched, a pause on stdin, <pages> more: see
 *       pn-e2e-revoke.c.
 *   write <path> <string>
 *       one write() to a sysfs attribute, its errno printed: see
 *       pn-e2e-sysfs.c.
 *
 * Build: gcc -static pn-e2e-test.c pn-e2e-revoke.c pn-e2e-sysfs.c (tests/e2e.sh).
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
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pn-e2e-test.h"

/* include/uapi/linux/private_node_test.h (kernel-series/CONTRACT.md) */
struct private_node_test_cfg {
	uint64_t nodemask;
	uint32_t flags;
	uint32_t reserved;
};
#define PNT_F_STRICT (1U << 0)
#define PNT_F_API_CONTEXT (1U << 1)
#define PNT_IOC_SET_CFG _IOW('P', 0x01, struct private_node_test_cfg)
struct private_node_test_stats {
	uint64_t faults, private_pages, fallback_pages, failed;
};
#define PNT_IOC_GET_STATS _IOR('P', 0x02, struct private_node_test_stats)

static void join_cgroup(const char *dir);

long sys_mbind(void *addr, unsigned long len, int mode,
	       const unsigned long *mask, unsigned long maxnode)
{
	return syscall(SYS_mbind, addr, len, mode, mask, maxnode, 0);
}

void die(const char *what)
{
	fprintf(stderr, "pn-e2e-test: %s: %s\n", what, strerror(errno));
	exit(1);
}

void *map_anon(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

void touch(char *p, size_t bytes)
{
	for (size_t off = 0; off < bytes; off += PAGE)
		p[off] = 1;
}

/*
 * map_anon() + mbind(mode, {node}); on refusal prints
 * "R <cmd> node=<node> ok=0 errno=<e> (<msg>)" and returns NULL.
 */
static char *map_bound(const char *cmd, int node, int mode, size_t bytes)
{
	unsigned long mask = 1UL << node;
	char *p = map_anon(bytes);

	if (sys_mbind(p, bytes, mode, &mask, MAX_NODES + 1)) {
		printf("R %s node=%d ok=0 errno=%d (%s)\n", cmd, node, errno,
		       strerror(errno));
		return NULL;
	}
	return p;
}

/* Write val to path: 0 or the errno of open()/write(). */
static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		err = errno;
	if (fd >= 0)
		close(fd);
	return err;
}

/* Ask <cgroup_dir>/memory.reclaim for bytes: 0 or errno. */
static int cg_reclaim(const char *dir, size_t bytes)
{
	char path[512], req[32];

	snprintf(path, sizeof(path), "%s/memory.reclaim", dir);
	snprintf(req, sizeof(req), "%zu", bytes);
	return write_file(path, req);
}

/* Count where the pages of [p, p+bytes) live; counts[MAX_NODES] = errors. */
void placement(char *p, size_t bytes, long *counts)
{
	size_t n = bytes / PAGE, chunk = 4096;
	void **pages = calloc(chunk, sizeof(*pages));
	int *status = calloc(chunk, sizeof(*status));

	if (!pages || !status)
		die("calloc");
	memset(counts, 0, sizeof(long) * (MAX_NODES + 1));
	for (size_t i = 0; i < n; i += chunk) {
		size_t m = n - i < chunk ? n - i : chunk;

		for (size_t j = 0; j < m; j++)
			pages[j] = p + (i + j) * PAGE;
		if (syscall(SYS_move_pages, 0, m, pages, NULL, status, 0))
			die("move_pages");
		for (size_t j = 0; j < m; j++) {
			if (status[j] >= 0 && status[j] < MAX_NODES)
				counts[status[j]]++;
			else
				counts[MAX_NODES]++;
		}
	}
	free(pages);
	free(status);
}

static void print_placement(const char *cmd, const long *counts)
{
	printf("R %s placement", cmd);
	for (int i = 0; i < MAX_NODES; i++)
		if (counts[i])
			printf(" node%d=%ld", i, counts[i]);
	printf(" unknown=%ld\n", counts[MAX_NODES]);
}

static int cmd_mbind(int argc, char **argv)
{
	long counts[MAX_NODES + 1];
	unsigned long mask;
	int node, mode;
	size_t bytes;
	char *p;

	if (argc != 5)
		return 2;
	node = atoi(argv[2]);
	mode = strcmp(argv[3], "bind") ? MPOL_PREFERRED : MPOL_BIND;
	bytes = strtoul(argv[4], NULL, 0) * PAGE;
	mask = 1UL << node;
	p = map_anon(bytes);
	if (sys_mbind(p, bytes, mode, &mask, MAX_NODES + 1)) {
		printf("R mbind node=%d mode=%s ok=0 errno=%d (%s)\n", node,
		       argv[3], errno, strerror(errno));
		return 3;
	}
	touch(p, bytes);
	placement(p, bytes, counts);
	printf("R mbind node=%d mode=%s ok=1 pages=%zu on_node=%ld\n", node,
	       argv[3], bytes / PAGE, counts[node]);
	print_placement("mbind", counts);
	return 0;
}

/* Value of "key" (kB) in a meminfo-style file, -1 if absent. */
static long meminfo_kb(const char *path, const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *k = strstr(line, key);

		if (k && k[strlen(key)] == ':') {
			v = strtol(k + strlen(key) + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

static int node_exists(int n)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", n);
	return stat(path, &st) == 0;
}

static int node_has_cpu(int n)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpu0", n);
	if (stat(path, &st) == 0)
		return 1;
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpu1", n);
	return stat(path, &st) == 0;
}

static long node_kb(int n, const char *key)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", n);
	return meminfo_kb(path, key);
}

static void snapshot_used(long *used)
{
	for (int n = 0; n < MAX_NODES; n++)
		used[n] = node_exists(n) ? node_kb(n, "MemUsed") : -1;
}

/* MemAvailable minus what CPU-less (device) nodes have free.  Kernels that
 * report PrivateFree leave it out of MemAvailable already: add it back. */
static long dram_available_kb(void)
{
	long avail = meminfo_kb("/proc/meminfo", "MemAvailable");
	long pfree = meminfo_kb("/proc/meminfo", "PrivateFree");

	if (pfree > 0)
		avail += pfree;

	for (int n = 0; n < MAX_NODES; n++)
		if (node_exists(n) && !node_has_cpu(n))
			avail -= node_kb(n, "MemFree");
	return avail;
}

static void stream_file(const char *path, size_t mib, long *peak, long *now)
{
	static char buf[1 << 20];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0)
		die(path);
	memset(buf, 0x5a, sizeof(buf));
	for (size_t i = 0; i < mib; i++) {
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			die("write");
		if ((i & 31) == 31) {
			snapshot_used(now);
			for (int n = 0; n < MAX_NODES; n++)
				if (now[n] > peak[n])
					peak[n] = now[n];
		}
	}
	fsync(fd);
	for (int pass = 0; pass < 2; pass++) {
		lseek(fd, 0, SEEK_SET);
		for (size_t i = 0; i < mib; i++) {
			if (read(fd, buf, sizeof(buf)) <= 0)
				die("read");
			if ((i & 31) == 31) {
				snapshot_used(now);
				for (int n = 0; n < MAX_NODES; n++)
					if (now[n] > peak[n])
						peak[n] = now[n];
			}
		}
	}
	close(fd);
}

static int cmd_storm(int argc, char **argv)
{
	long before[MAX_NODES], peak[MAX_NODES], now[MAX_NODES];
	long avail_kb, anon_kb, shmem_kb;
	int anon_pct, shmem_pct = 5;
	size_t file_mib;
	char *anon, *shm;
	int fd;

	if (argc < 5)
		return 2;
	anon_pct = atoi(argv[2]);
	file_mib = strtoul(argv[3], NULL, 0);
	if (argc > 5)
		shmem_pct = atoi(argv[5]);
	avail_kb = dram_available_kb();
	anon_kb = avail_kb / 100 * anon_pct;
	shmem_kb = avail_kb / 100 * shmem_pct;
	printf("R storm dram_available_kb=%ld anon_kb=%ld shmem_kb=%ld file_mib=%zu\n",
	       avail_kb, anon_kb, shmem_kb, file_mib);
	fflush(stdout);
	snapshot_used(before);
	memcpy(peak, before, sizeof(peak));

	anon = map_anon(anon_kb * 1024);
	touch(anon, anon_kb * 1024);
	fd = open("/tmp/pn-storm-shmem", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, shmem_kb * 1024))
		die("shmem file");
	shm = mmap(NULL, shmem_kb * 1024, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (shm == MAP_FAILED)
		die("mmap shmem");
	touch(shm, shmem_kb * 1024);
	snapshot_used(now);
	for (int n = 0; n < MAX_NODES; n++)
		if (now[n] > peak[n])
			peak[n] = now[n];
	stream_file(argv[4], file_mib, peak, now);
	snapshot_used(now);
	for (int n = 0; n < MAX_NODES; n++) {
		if (before[n] < 0)
			continue;
		if (now[n] > peak[n])
			peak[n] = now[n];
		printf("R storm node=%d cpu=%d memused_before_kb=%ld memused_peak_kb=%ld memused_end_kb=%ld growth_kb=%ld\n",
		       n, node_has_cpu(n), before[n], peak[n], now[n],
		       peak[n] - before[n]);
	}
	munmap(anon, anon_kb * 1024);
	munmap(shm, shmem_kb * 1024);
	close(fd);
	unlink("/tmp/pn-storm-shmem");
	unlink(argv[4]);
	return 0;
}

static int cmd_prefer_big(int argc, char **argv)
{
	long counts[MAX_NODES + 1];
	size_t bytes;
	int node;
	char *p;

	if (argc != 4)
		return 2;
	node = atoi(argv[2]);
	bytes = strtoul(argv[3], NULL, 0) << 20;
	p = map_bound("prefer-big", node, MPOL_PREFERRED, bytes);
	if (!p)
		return 3;
	touch(p, bytes);
	placement(p, bytes, counts);
	printf("R prefer-big node=%d ok=1 pages=%zu on_node=%ld elsewhere=%ld\n",
	       node, bytes / PAGE, counts[node],
	       (long)(bytes / PAGE) - counts[node]);
	print_placement("prefer-big", counts);
	return 0;
}

static int parse_mode(const char *m)
{
	if (!strcmp(m, "bind"))
		return MPOL_BIND;
	if (!strcmp(m, "preferred"))
		return MPOL_PREFERRED;
	if (!strcmp(m, "preferred_many"))
		return MPOL_PREFERRED_MANY;
	if (!strcmp(m, "interleave"))
		return MPOL_INTERLEAVE;
	fprintf(stderr, "pn-e2e-test: unknown mode %s\n", m);
	exit(2);
}

static int cmd_mbind_mask(int argc, char **argv)
{
	long counts[MAX_NODES + 1];
	unsigned long mask;
	size_t bytes;
	int mode;
	char *p;

	if (argc != 5)
		return 2;
	mask = strtoul(argv[2], NULL, 16);
	mode = parse_mode(argv[3]);
	bytes = strtoul(argv[4], NULL, 0) * PAGE;
	p = map_anon(bytes);
	if (sys_mbind(p, bytes, mode, &mask, MAX_NODES + 1)) {
		printf("R mbind-mask mask=%s mode=%s ok=0 errno=%d (%s)\n",
		       argv[2], argv[3], errno, strerror(errno));
		return 3;
	}
	touch(p, bytes);
	placement(p, bytes, counts);
	printf("R mbind-mask mask=%s mode=%s ok=1 pages=%zu\n", argv[2],
	       argv[3], bytes / PAGE);
	print_placement("mbind-mask", counts);
	return 0;
}

static int cmd_setpol(int argc, char **argv)
{
	unsigned long mask, maxnode = MAX_NODES + 1;
	long counts[MAX_NODES + 1];
	size_t bytes;
	int mode;
	char *p;

	if (argc != 5)
		return 2;
	if (!strcmp(argv[2], "all"))
		mask = ~0UL;
	else
		mask = strtoul(argv[2], NULL, 16);
	mode = parse_mode(argv[3]);
	bytes = strtoul(argv[4], NULL, 0) * PAGE;
	if (syscall(SYS_set_mempolicy, mode, &mask, maxnode)) {
		printf("R setpol mask=%s mode=%s ok=0 errno=%d (%s)\n", argv[2],
		       argv[3], errno, strerror(errno));
		return 3;
	}
	p = map_anon(bytes);
	touch(p, bytes);
	placement(p, bytes, counts);
	printf("R setpol mask=%s mode=%s ok=1 pages=%zu\n", argv[2], argv[3],
	       bytes / PAGE);
	print_placement("setpol", counts);
	return 0;
}

static int cmd_move(int argc, char **argv)
{
	long counts[MAX_NODES + 1];
	size_t n, bytes, i, moved = 0;
	void **pages;
	int *nodes, *status, node;
	long rc;
	char *p;

	if (argc != 4)
		return 2;
	node = atoi(argv[2]);
	n = strtoul(argv[3], NULL, 0);
	bytes = n * PAGE;
	p = map_anon(bytes);
	touch(p, bytes);
	pages = calloc(n, sizeof(*pages));
	nodes = calloc(n, sizeof(*nodes));
	status = calloc(n, sizeof(*status));
	if (!pages || !nodes || !status)
		die("calloc");
	for (i = 0; i < n; i++) {
		pages[i] = p + i * PAGE;
		nodes[i] = node;
		status[i] = -1;
	}
	rc = syscall(SYS_move_pages, 0, n, pages, nodes, status, MPOL_MF_MOVE);
	int err = rc < 0 ? errno : 0;

	for (i = 0; i < n; i++)
		moved += status[i] == node;
	placement(p, bytes, counts);
	printf("R move node=%d pages=%zu rc=%ld errno=%d status_on_node=%zu on_node=%ld\n",
	       node, n, rc, err, moved, counts[node]);
	print_placement("move", counts);
	return 0;
}

static int cmd_migrate(int argc, char **argv)
{
	long counts[MAX_NODES + 1];
	unsigned long from, to;
	size_t bytes;
	long rc;
	char *p;

	if (argc != 5)
		return 2;
	from = strtoul(argv[2], NULL, 16);
	to = strtoul(argv[3], NULL, 16);
	bytes = strtoul(argv[4], NULL, 0) * PAGE;
	p = map_anon(bytes);
	touch(p, bytes);
	rc = syscall(SYS_migrate_pages, 0, MAX_NODES + 1, &from, &to);
	int err = rc < 0 ? errno : 0;

	placement(p, bytes, counts);
	printf("R migrate from=%s to=%s pages=%zu rc=%ld errno=%d\n", argv[2],
	       argv[3], bytes / PAGE, rc, err);
	print_placement("migrate", counts);
	return 0;
}

/* Sum of "N<node>=<v>" over the lines of @path that start with @prefix:
 * -1 if no line matches, -2 if @path cannot be read. */
static long sum_node_field(const char *path, const char *prefix, int node)
{
	char line[4096], key[32];
	long sum = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -2;
	snprintf(key, sizeof(key), " N%d=", node);
	while (fgets(line, sizeof(line), f)) {
		char *k;

		if (strncmp(line, prefix, strlen(prefix)))
			continue;
		if (sum < 0)
			sum = 0;
		k = strstr(line, key);
		if (k)
			sum += strtol(k + strlen(key), NULL, 10);
	}
	fclose(f);
	return sum;
}

static int cmd_report(int argc, char **argv)
{
	char path[512];
	long mapped, anon = -3;
	size_t bytes;
	int node;
	char *p;

	if (argc != 4 && argc != 5)
		return 2;
	node = atoi(argv[2]);
	bytes = strtoul(argv[3], NULL, 0) * PAGE;
	if (argc == 5)
		join_cgroup(argv[4]);
	p = map_bound("report", node, MPOL_BIND, bytes);
	if (!p)
		return 3;
	touch(p, bytes);
	snprintf(path, sizeof(path), "%lx ", (unsigned long)p);
	mapped = sum_node_field("/proc/self/numa_maps", path, node);
	if (argc == 5) {
		snprintf(path, sizeof(path), "%s/memory.numa_stat", argv[4]);
		anon = sum_node_field(path, "anon ", node);
	}
	printf("R report node=%d ok=1 pages=%zu numa_maps_pages=%ld numa_stat_anon_bytes=%ld\n",
	       node, bytes / PAGE, mapped, anon);
	return 0;
}

static void join_cgroup(const char *dir)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f))
		die(path);
}

static int cmd_demote(int argc, char **argv)
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

static int cmd_reclaim(int argc, char **argv)
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
	uint64_t e;

	*lo = ~0ULL;
	*hi = 0;
	if (fd < 0)
		return errno;
	for (size_t off = 0; off < bytes; off += PAGE) {
		unsigned long long pa;

		if (pread(fd, &e, sizeof(e), (off_t)(((uintptr_t)p + off) / PAGE * 8)) != sizeof(e) ||
		    !(e & (1ULL << 63)) || !(e & ((1ULL << 55) - 1)))
			continue;
		pa = (e & ((1ULL << 55) - 1)) * PAGE;
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

static int cmd_damon(int argc, char **argv)
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

static int cmd_mlock(int argc, char **argv)
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

static int cmd_hugetlb(int argc, char **argv)
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

static int cmd_chardev(int argc, char **argv)
{
	struct private_node_test_cfg cfg = { 0 };
	struct private_node_test_stats st = { 0 };
	struct sigaction sa = { 0 };
	volatile size_t touched = 0, sigbus = 0;
	size_t pages, i;
	char *p;
	int fd;

	if (argc != 6)
		return 2;
	cfg.nodemask = strtoull(argv[2], NULL, 16);
	if (!strcmp(argv[3], "strict"))
		cfg.flags |= PNT_F_STRICT;
	if (!strcmp(argv[4], "ctx"))
		cfg.flags |= PNT_F_API_CONTEXT;
	pages = strtoul(argv[5], NULL, 0);
	fd = open("/dev/private_node_test", O_RDWR);
	if (fd < 0) {
		printf("R chardev ok=0 open_errno=%d (%s)\n", errno, strerror(errno));
		return 3;
	}
	if (ioctl(fd, PNT_IOC_SET_CFG, &cfg)) {
		printf("R chardev ok=0 set_cfg_errno=%d (%s)\n", errno, strerror(errno));
		return 3;
	}
	p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		printf("R chardev ok=0 mmap_errno=%d (%s)\n", errno, strerror(errno));
		return 3;
	}
	sa.sa_handler = on_sigbus;
	sigaction(SIGBUS, &sa, NULL);
	for (i = 0; i < pages; i++) {
		if (sigsetjmp(fault_jmp, 1)) {
			sigbus++;
			continue;
		}
		p[i * PAGE] = 1;
		touched++;
	}
	signal(SIGBUS, SIG_DFL);
	if (ioctl(fd, PNT_IOC_GET_STATS, &st)) {
		printf("R chardev ok=0 get_stats_errno=%d (%s)\n", errno, strerror(errno));
		return 3;
	}
	printf("R chardev ok=1 mode=%s api=%s mask=%s pages=%zu touched=%zu sigbus=%zu faults=%llu private_pages=%llu fallback_pages=%llu failed=%llu\n",
	       argv[3], argv[4], argv[2], pages, (size_t)touched,
	       (size_t)sigbus, (unsigned long long)st.faults,
	       (unsigned long long)st.private_pages,
	       (unsigned long long)st.fallback_pages,
	       (unsigned long long)st.failed);
	munmap(p, pages * PAGE);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		goto usage;
	if (!strcmp(argv[1], "mbind"))
		rc = cmd_mbind(argc, argv);
	else if (!strcmp(argv[1], "storm"))
		rc = cmd_storm(argc, argv);
	else if (!strcmp(argv[1], "prefer-big"))
		rc = cmd_prefer_big(argc, argv);
	else if (!strcmp(argv[1], "chardev"))
		rc = cmd_chardev(argc, argv);
	else if (!strcmp(argv[1], "mbind-mask"))
		rc = cmd_mbind_mask(argc, argv);
	else if (!strcmp(argv[1], "setpol"))
		rc = cmd_setpol(argc, argv);
	else if (!strcmp(argv[1], "move"))
		rc = cmd_move(argc, argv);
	else if (!strcmp(argv[1], "migrate"))
		rc = cmd_migrate(argc, argv);
	else if (!strcmp(argv[1], "migrate-pid"))
		rc = cmd_migrate_pid(argc, argv);
	else if (!strcmp(argv[1], "report"))
		rc = cmd_report(argc, argv);
	else if (!strcmp(argv[1], "demote"))
		rc = cmd_demote(argc, argv);
	else if (!strcmp(argv[1], "reclaim"))
		rc = cmd_reclaim(argc, argv);
	else if (!strcmp(argv[1], "damon"))
		rc = cmd_damon(argc, argv);
	else if (!strcmp(argv[1], "mlock"))
		rc = cmd_mlock(argc, argv);
	else if (!strcmp(argv[1], "hugetlb"))
		rc = cmd_hugetlb(argc, argv);
	else if (!strcmp(argv[1], "revoke"))
		rc = cmd_revoke(argc, argv);
	else if (!strcmp(argv[1], "write"))
		rc = cmd_write(argc, argv);
	else if (!strcmp(argv[1], "shmem"))
		rc = cmd_shmem(argc, argv);
	else if (!strcmp(argv[1], "swapin"))
		rc = cmd_swapin(argc, argv);
	if (rc != 2)
		return rc;
usage:
	fprintf(stderr,
		"usage: pn-e2e-test mbind <node> <bind|preferred> <pages>\n"
		"       pn-e2e-test storm <anon_pct> <file_mib> <file> [shmem_pct]\n"
		"       pn-e2e-test prefer-big <node> <mib>\n"
		"       pn-e2e-test chardev <nodemask_hex> <strict|fallback> <gfp|ctx> <pages>\n"
		"       pn-e2e-test mbind-mask <nodemask_hex> <bind|preferred|preferred_many|interleave> <pages>\n"
		"       pn-e2e-test setpol <nodemask_hex|all> <interleave|bind|preferred> <pages>\n"
		"       pn-e2e-test move <node> <pages>\n"
		"       pn-e2e-test migrate <from_hex> <to_hex> <pages>\n"
		"       pn-e2e-test migrate-pid <pid> <from_hex> <to_hex>\n"
		"       pn-e2e-test report <node> <pages> [cgroup_dir]\n"
		"       pn-e2e-test demote <cgroup_dir> <pages>\n"
		"       pn-e2e-test reclaim <cgroup_dir> <node> <pages>\n"
		"       pn-e2e-test damon <node> <pages> <pageout|migrate_cold> <target_nid>\n"
		"       pn-e2e-test mlock <node> <pages>\n"
		"       pn-e2e-test hugetlb <node>\n"
		"       pn-e2e-test revoke <mbind|setpol> <nodemask_hex> <pages>\n"
		"       pn-e2e-test write <path> <string>\n"
		"       pn-e2e-test shmem <nodemask_hex> <pages>\n"
		"       pn-e2e-test swapin <node> <pages> <fault|fork|willneed>\n");
	return 2;
}
