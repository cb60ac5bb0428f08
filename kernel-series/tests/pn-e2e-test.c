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
 *   chardev, drvmove: /dev/private_node_test, see pn-e2e-driver.c.
 *   mbind-mask <nodemask_hex> <bind|preferred|preferred_many|interleave> <pages>
 *       like mbind, with any nodemask; prints the placement per node
 *       (node<N>=pages) and whether the kernel killed nothing (it exits
 *       normally) even when <pages> exceeds one node of the mask.
 *   setpol <nodemask_hex|all> <interleave|bind|preferred> <pages>
 *       set_mempolicy() with the mask ("all" = all 64 bits, maxnode 65:
 *       every node a 64-node kernel (NODES_SHIFT=6) can have, what "all
 *       nodes" programs pass; bits beyond MAX_NUMNODES are EINVAL on any
 *       kernel), then touch <pages>.
 *   move, migrate, migrate-pid: the migration system calls, see
 *       pn-e2e-access.c.
 *   report <node> <pages> [cgroup_dir]
 *       join cgroup_dir (if given), mbind(MPOL_BIND, node), touch <pages>;
 *       prints the node's entry in the mapping's /proc/self/numa_maps line
 *       and the cgroup's memory.numa_stat "anon" entry for the node.
 *   mlock, hugetlb, demote, damon, reclaim: kernel services acting on a
 *       device node's pages, see pn-e2e-services.c.
 *   revoke <mbind|setpol> <nodemask_hex> <pages>
 *       MPOL_BIND, <pages> touched, a pause on stdin, <pages> more: see
 *       pn-e2e-revoke.c.
 *   write <path> <string>
 *       one write() to a sysfs attribute, its errno printed: see
 *       pn-e2e-sysfs.c.
 *
 * Build: gcc -static pn-e2e-*.c (tests/e2e.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pn-e2e-test.h"

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
char *map_bound(const char *cmd, int node, int mode, size_t bytes)
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
int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		err = errno;
	if (fd >= 0)
		close(fd);
	return err;
}

/* Ask <cgroup_dir>/memory.reclaim for bytes: 0 or errno. */
int cg_reclaim(const char *dir, size_t bytes)
{
	char path[512], req[32];

	snprintf(path, sizeof(path), "%s/memory.reclaim", dir);
	snprintf(req, sizeof(req), "%zu", bytes);
	return write_file(path, req);
}

/*
 * PFN of the page at addr, from /proc/self/pagemap open as fd; 0 when the
 * page is not present or PFNs are hidden (no CAP_SYS_ADMIN).
 */
uint64_t page_pfn(int fd, const void *addr)
{
	uint64_t e = 0;

	if (pread(fd, &e, sizeof(e), (off_t)((uintptr_t)addr / PAGE * sizeof(e))) != sizeof(e) ||
	    !(e >> 63))
		return 0;
	return e & ((1ULL << 55) - 1);
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

void print_placement(const char *cmd, const long *counts)
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

long node_kb(int n, const char *key)
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

void join_cgroup(const char *dir)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f))
		die(path);
}

static const struct {
	const char *name, *args;
	int (*run)(int argc, char **argv);
} cmds[] = {
	{ "mbind", "<node> <bind|preferred> <pages>", cmd_mbind },
	{ "storm", "<anon_pct> <file_mib> <file> [shmem_pct]", cmd_storm },
	{ "prefer-big", "<node> <mib>", cmd_prefer_big },
	{ "chardev", "<nodemask_hex> <strict|fallback> <gfp|ctx|unowned> <pages>", cmd_chardev },
	{ "drvmove", "<nodemask_hex> <pages> <timeout_s>", cmd_drvmove },
	{ "mbind-mask", "<nodemask_hex> <bind|preferred|preferred_many|interleave> <pages>",
	  cmd_mbind_mask },
	{ "setpol", "<nodemask_hex|all> <interleave|bind|preferred> <pages>", cmd_setpol },
	{ "move", "<node> <pages>", cmd_move },
	{ "migrate", "<from_hex> <to_hex> <pages>", cmd_migrate },
	{ "migrate-pid", "<pid> <from_hex> <to_hex>", cmd_migrate_pid },
	{ "report", "<node> <pages> [cgroup_dir]", cmd_report },
	{ "demote", "<cgroup_dir> <pages>", cmd_demote },
	{ "reclaim", "<cgroup_dir> <node> <pages>", cmd_reclaim },
	{ "damon", "<node> <pages> <pageout|migrate_cold> <target_nid>", cmd_damon },
	{ "mlock", "<node> <pages>", cmd_mlock },
	{ "hugetlb", "<node>", cmd_hugetlb },
	{ "revoke", "<mbind|setpol> <nodemask_hex> <pages>", cmd_revoke },
	{ "write", "<path> <string>", cmd_write },
	{ "shmem", "<nodemask_hex> <pages>", cmd_shmem },
	{ "swapin", "<node> <pages> <fault|fork|willneed>", cmd_swapin },
};

int main(int argc, char **argv)
{
	size_t i, n = sizeof(cmds) / sizeof(cmds[0]);
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; argc >= 2 && i < n; i++) {
		if (strcmp(argv[1], cmds[i].name))
			continue;
		rc = cmds[i].run(argc, argv);
		if (rc != 2)
			return rc;
		break;
	}
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s pn-e2e-test %s %s\n", i ? "      " : "usage:",
			cmds[i].name, cmds[i].args);
	return 2;
}
