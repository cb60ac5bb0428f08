// SPDX-License-Identifier: GPL-2.0
/*
 * pn-e2e-test chardev and drvmove: the series' test device,
 * /dev/private_node_test (a driver's mmap() of device memory), for the
 * "/dev/private_node_test" section of tests/e2e-guest.sh (tests/e2e-driver.sh).
 *
 *   chardev <nodemask_hex> <strict|fallback> <gfp|ctx|unowned> <pages>
 *       (gfp: the driver allocates with dax/kmem's owner handle; ctx sets
 *       flag bit 1: series v2's alloc-context entry point, which v3 removed
 *       and refuses with EINVAL; unowned sets PNT_F_UNOWNED: the driver
 *       allocates with a handle that owns no node)
 *       set cfg, mmap MAP_SHARED, touch <pages>; SIGBUS (strict, device
 *       full) is caught and counted; prints the driver's stats.
 *   drvmove <nodemask_hex> <pages> <timeout_s>
 *       strict cfg over the mask, mmap MAP_SHARED, write a pattern into
 *       every page, find the memory blocks that hold the pages
 *       (/proc/self/pagemap), offline each (a child writes "offline" to
 *       memoryN/state; killed after <timeout_s>, which makes the kernel
 *       give up), read the pattern back, count where the pages are, and
 *       online the blocks again in the zone they had. The driver's pages
 *       must be movable: offlining a block that holds them migrates them.
 *         R drvmove ok=1 pages=<n> before=<on mask> blocks=<n> offlined=<n>
 *           timeouts=<n> errors=<n> errno=<first> mismatched=<n>
 *           refaults=<n> after=<on mask> node<N>=<pages>... restored=<n>
 *       exit 0, or 3 when the device cannot be set up.
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
#include <sys/wait.h>
#include <time.h>
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
#define PNT_F_UNOWNED (1U << 2)
#define PNT_IOC_SET_CFG _IOW('P', 0x01, struct private_node_test_cfg)
struct private_node_test_stats {
	uint64_t faults, private_pages, fallback_pages, failed;
};
#define PNT_IOC_GET_STATS _IOR('P', 0x02, struct private_node_test_stats)

#define MEMDIR "/sys/devices/system/memory"
#define MAX_BLOCKS 64

static sigjmp_buf fault_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(fault_jmp, 1);
}

/* open + PNT_IOC_SET_CFG + mmap; prints "R <cmd> ok=0 ..." on failure */
static char *map_device(const char *cmd, struct private_node_test_cfg *cfg,
			size_t pages, int *fdp)
{
	const char *what = "open";
	char *p = MAP_FAILED;
	int fd = open("/dev/private_node_test", O_RDWR);

	if (fd >= 0) {
		what = "set_cfg";
		if (!ioctl(fd, PNT_IOC_SET_CFG, cfg)) {
			what = "mmap";
			p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
				 MAP_SHARED, fd, 0);
		}
	}
	if (p == MAP_FAILED) {
		printf("R %s ok=0 %s_errno=%d (%s)\n", cmd, what, errno,
		       strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	*fdp = fd;
	return p;
}

int cmd_chardev(int argc, char **argv)
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
	else if (!strcmp(argv[4], "unowned"))
		cfg.flags |= PNT_F_UNOWNED;
	pages = strtoul(argv[5], NULL, 0);
	p = map_device("chardev", &cfg, pages, &fd);
	if (!p)
		return 3;
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

static uint64_t pattern(size_t page, size_t word)
{
	return (page + 1) * 0x9e3779b97f4a7c15ULL ^ word;
}

/* Memory blocks (sorted, distinct) holding the pages of p; -1 on error. */
static int blocks_of(char *p, size_t pages, long *blocks)
{
	unsigned long long bsz = 0;
	int n = 0, fd = open("/proc/self/pagemap", O_RDONLY);
	FILE *f = fopen(MEMDIR "/block_size_bytes", "r");

	if (!f || fscanf(f, "%llx", &bsz) != 1 || !bsz || fd < 0) {
		if (f)
			fclose(f);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	fclose(f);
	for (size_t i = 0; i < pages; i++) {
		uint64_t pfn = page_pfn(fd, p + i * PAGE);
		long b = (long)(pfn * PAGE / bsz);
		int k;

		if (!pfn)
			continue; /* not present, or PFNs hidden */
		for (k = 0; k < n && blocks[k] < b; k++)
			;
		if ((k < n && blocks[k] == b) || n == MAX_BLOCKS)
			continue;
		memmove(blocks + k + 1, blocks + k, sizeof(*blocks) * (n - k));
		blocks[k] = b;
		n++;
	}
	close(fd);
	return n;
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok = f && fgets(buf, (int)len, f);

	if (f)
		fclose(f);
	buf[ok ? strcspn(buf, "\n") : 0] = 0;
	return ok ? 0 : -1;
}

/* 0, an errno, or ETIMEDOUT when the child writing "offline" was killed */
static int offline_block(long b, int timeout_s)
{
	char path[128];
	int status = 0;
	pid_t pid;

	snprintf(path, sizeof(path), MEMDIR "/memory%ld/state", b);
	pid = fork();
	if (pid < 0)
		return errno;
	if (!pid)
		_exit(write_file(path, "offline") & 0x7f);
	for (int t = 0; t < timeout_s * 10; t++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
		usleep(100000);
	}
	kill(pid, SIGKILL); /* a fatal signal ends offline_pages()'s retries */
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : ETIMEDOUT;
}

static long on_mask(const long *counts, uint64_t mask)
{
	long n = 0;

	for (int i = 0; i < MAX_NODES; i++)
		if (mask >> i & 1)
			n += counts[i];
	return n;
}

struct drv_offline {
	long blocks[MAX_BLOCKS];
	char zone[MAX_BLOCKS][16];
	int n, offlined, timeouts, errors, first_errno, restored;
};

static void offline_all(struct drv_offline *o, int timeout_s)
{
	char path[128];

	for (int i = 0; i < o->n; i++) {
		int err;

		snprintf(path, sizeof(path), MEMDIR "/memory%ld/valid_zones",
			 o->blocks[i]);
		if (read_line(path, o->zone[i], sizeof(o->zone[i])))
			o->zone[i][0] = 0;
		err = offline_block(o->blocks[i], timeout_s);
		if (!err) {
			o->offlined++;
			continue;
		}
		o->zone[i][0] = 0; /* still online: nothing to restore */
		if (err == ETIMEDOUT)
			o->timeouts++;
		else
			o->errors++;
		if (!o->first_errno)
			o->first_errno = err;
	}
}

static void online_all(struct drv_offline *o)
{
	char path[128];

	for (int i = 0; i < o->n; i++) {
		const char *how = strncmp(o->zone[i], "Movable", 7) ?
					  "online_kernel" :
					  "online_movable";

		if (!o->zone[i][0])
			continue;
		snprintf(path, sizeof(path), MEMDIR "/memory%ld/state",
			 o->blocks[i]);
		if (!write_file(path, how))
			o->restored++;
	}
}

int cmd_drvmove(int argc, char **argv)
{
	struct private_node_test_cfg cfg = { .flags = PNT_F_STRICT };
	struct private_node_test_stats s0 = { 0 }, s1 = { 0 };
	struct drv_offline o = { 0 };
	long before[MAX_NODES + 1], after[MAX_NODES + 1], bad = 0;
	size_t pages;
	uint64_t *w;
	char *p;
	int fd;

	if (argc != 5)
		return 2;
	cfg.nodemask = strtoull(argv[2], NULL, 16);
	pages = strtoul(argv[3], NULL, 0);
	p = map_device("drvmove", &cfg, pages, &fd);
	if (!p)
		return 3;
	for (size_t i = 0; i < pages; i++) {
		w = (uint64_t *)(p + i * PAGE);
		w[0] = pattern(i, 0);
		w[PAGE / 8 - 1] = pattern(i, PAGE / 8 - 1);
	}
	placement(p, pages * PAGE, before);
	o.n = blocks_of(p, pages, o.blocks);
	if (o.n <= 0) {
		printf("R drvmove ok=0 pagemap_blocks=%d (PFNs unreadable)\n", o.n);
		return 3;
	}
	ioctl(fd, PNT_IOC_GET_STATS, &s0);
	offline_all(&o, atoi(argv[4]));
	for (size_t i = 0; i < pages; i++) {
		w = (uint64_t *)(p + i * PAGE);
		bad += w[0] != pattern(i, 0) ||
		       w[PAGE / 8 - 1] != pattern(i, PAGE / 8 - 1);
	}
	ioctl(fd, PNT_IOC_GET_STATS, &s1);
	placement(p, pages * PAGE, after);
	online_all(&o);
	printf("R drvmove ok=1 pages=%zu before=%ld blocks=%d offlined=%d timeouts=%d errors=%d errno=%d mismatched=%ld refaults=%llu after=%ld",
	       pages, on_mask(before, cfg.nodemask), o.n, o.offlined,
	       o.timeouts, o.errors, o.first_errno, bad,
	       (unsigned long long)(s1.faults - s0.faults),
	       on_mask(after, cfg.nodemask));
	for (int i = 0; i < MAX_NODES; i++)
		if (after[i])
			printf(" node%d=%ld", i, after[i]);
	printf(" restored=%d\n", o.restored);
	munmap(p, pages * PAGE);
	close(fd);
	return 0;
}
