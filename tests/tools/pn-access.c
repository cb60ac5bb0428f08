// SPDX-License-Identifier: GPL-2.0-only
/*
 * pn-access - one NUMA access attempt, and where its pages went: the guest
 * side of the demo's contract rows (scripts/demo-contract.sh).  Every call is
 * the plain syscall through libnuma's numaif.h; placement is read back page
 * by page with move_pages(2), so a page on a device node is counted exactly.
 *
 *   pn-access [-u UID] policy bind|preferred|interleave MASK PAGES
 *         mbind() a fresh mapping to MASK (hex node mask), write PAGES pages
 *   pn-access [-u UID] setpol bind|preferred|interleave MASK PAGES
 *         set_mempolicy(MASK), then the same
 *   pn-access [-u UID] move NODE PAGES
 *         write PAGES pages where the task's policy puts them, move_pages()
 *         every one to NODE
 *   pn-access [-u UID] migrate FROM TO PAGES
 *         write PAGES pages, migrate_pages(self, FROM, TO) (hex masks)
 *   pn-access migrate-pid PID FROM TO
 *         migrate_pages(PID, FROM, TO) of another task
 *   pn-access touch PAGES [HOLD_MS]
 *         write PAGES pages under the inherited policy (numactl's), report,
 *         hold them HOLD_MS
 *   pn-access hold PAGES GOFILE
 *         write PAGES pages, report, wait until GOFILE exists (another task
 *         migrates them meanwhile), report where they are then
 *   pn-access revoke MASK PAGES GOFILE
 *         mbind(MPOL_BIND, MASK), write PAGES pages, report, wait until
 *         GOFILE exists (the grant is withdrawn meanwhile), write PAGES more
 *         and report those
 *   pn-access libnuma
 *         what libnuma reports: configured nodes, memory nodes, Mems_allowed
 *   pn-access driver MASK PAGES [strict]
 *         mmap(MAP_SHARED) PAGES pages of /dev/private_node_test configured
 *         for MASK (hex node mask; strict: no fallback to ordinary memory)
 *         and write them: the driver's own mmap path onto private memory;
 *         reports placement, then "R driver-stats" with the driver's counters
 *   pn-access write FILE TEXT
 *         write TEXT to FILE (sysfs), report "R write rc= errno="
 *
 * -u UID drops to that user (and its group) before the call.  Output, one
 * line per report on stdout:
 *   R <call> rc=<n> errno=<e> pages=<n> sigbus=<n> node<N>=<pages>...
 * Exit 0 whatever the kernel decided (the caller judges), 2 bad usage,
 * 1 when the tool itself could not work (mmap, reading placement).
 */
#include <errno.h>
#include <grp.h>
#include <numa.h>
#include <numaif.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/ioctl.h>
#include <linux/types.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define MAXNODE 64

/* the kernel series' uapi, include/uapi/linux/private_node_test.h */
#define PNT_DEV "/dev/private_node_test"
struct private_node_test_cfg {
	__u64 nodemask;
	__u32 flags;
	__u32 reserved;
};
struct private_node_test_stats {
	__u64 faults;
	__u64 private_pages;
	__u64 fallback_pages;
	__u64 failed;
};
#define PNT_F_STRICT	  (1U << 0)
#define PNT_IOC_SET_CFG	  _IOW('P', 0x01, struct private_node_test_cfg)
#define PNT_IOC_GET_STATS _IOR('P', 0x02, struct private_node_test_stats)

static sigjmp_buf bus_jmp;

static void on_bus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

static int usage(void)
{
	fprintf(stderr,
		"usage: pn-access [-u UID] policy|setpol MODE MASK PAGES | move NODE PAGES |\n"
		"       migrate FROM TO PAGES | migrate-pid PID FROM TO | touch PAGES [HOLD_MS] |\n"
		"       hold PAGES GOFILE | revoke MASK PAGES GOFILE | libnuma |\n"
		"       driver MASK PAGES [strict] | write FILE TEXT\n");
	return 2;
}

static int mode_of(const char *s)
{
	if (!strcmp(s, "bind"))
		return MPOL_BIND;
	if (!strcmp(s, "preferred"))
		return MPOL_PREFERRED;
	if (!strcmp(s, "interleave"))
		return MPOL_INTERLEAVE;
	return -1;
}

static long psz(void)
{
	return sysconf(_SC_PAGESIZE);
}

static char *map(long pages)
{
	char *a = mmap(NULL, (size_t)(pages * psz()), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (a == MAP_FAILED) {
		perror("pn-access: mmap");
		exit(1);
	}
	return a;
}

/* write every page; a page the kernel cannot give (SIGBUS) is counted */
static long touch(char *a, long pages)
{
	volatile long bus = 0;

	for (volatile long i = 0; i < pages; i++) {
		if (sigsetjmp(bus_jmp, 1)) {
			bus++;
			continue;
		}
		a[i * psz()] = 1;
	}
	return bus;
}

/* "R call rc= errno= pages= sigbus= node<N>=" with placement by move_pages */
static void report(const char *call, long rc, int err, char *a, long pages, long bus)
{
	long on[MAXNODE] = { 0 }, other = 0;

	for (long i = 0; i < pages; i += 512) {
		void *addr[512];
		int status[512];
		long n = pages - i < 512 ? pages - i : 512;

		for (long k = 0; k < n; k++)
			addr[k] = a + (i + k) * psz();
		if (move_pages(0, (unsigned long)n, addr, NULL, status, 0)) {
			perror("pn-access: move_pages (query)");
			exit(1);
		}
		for (long k = 0; k < n; k++) {
			if (status[k] >= 0 && status[k] < MAXNODE)
				on[status[k]]++;
			else
				other++;
		}
	}
	printf("R %s rc=%ld errno=%d pages=%ld sigbus=%ld", call, rc, err, pages, bus);
	for (int n = 0; n < MAXNODE; n++)
		if (on[n])
			printf(" node%d=%ld", n, on[n]);
	printf(" absent=%ld\n", other);
	fflush(stdout);
}

static int cmd_policy(int set, const char *m, const char *hex, long pages)
{
	unsigned long mask = strtoul(hex, NULL, 16);
	int mode = mode_of(m), err = 0;
	char *a = map(pages);
	long rc;

	if (mode < 0)
		return usage();
	if (set)
		rc = set_mempolicy(mode, &mask, MAXNODE + 1);
	else
		rc = mbind(a, (size_t)(pages * psz()), mode, &mask, MAXNODE + 1, 0);
	if (rc)
		err = errno;
	report(set ? "setpol" : "policy", rc, err, a, pages, touch(a, pages));
	return 0;
}

static int cmd_move(int node, long pages)
{
	char *a = map(pages);
	long bus = touch(a, pages), rc;
	void **addr = calloc((size_t)pages, sizeof(*addr));
	int *nodes = calloc((size_t)pages, sizeof(*nodes));
	int *status = calloc((size_t)pages, sizeof(*status)), err = 0;

	if (!addr || !nodes || !status) {
		free(addr);
		free(nodes);
		free(status);
		return 1;
	}
	for (long i = 0; i < pages; i++) {
		addr[i] = a + i * psz();
		nodes[i] = node;
	}
	rc = move_pages(0, (unsigned long)pages, addr, nodes, status, MPOL_MF_MOVE);
	if (rc)
		err = errno;
	report("move", rc, err, a, pages, bus);
	free(addr);
	free(nodes);
	free(status);
	return 0;
}

static int cmd_migrate(const char *from, const char *to, long pages)
{
	unsigned long f = strtoul(from, NULL, 16), t = strtoul(to, NULL, 16);
	char *a = map(pages);
	long bus = touch(a, pages), rc;
	int err = 0;

	rc = migrate_pages(0, MAXNODE + 1, &f, &t);
	if (rc < 0)
		err = errno;
	report("migrate", rc, err, a, pages, bus);
	return 0;
}

static int cmd_migrate_pid(int pid, const char *from, const char *to)
{
	unsigned long f = strtoul(from, NULL, 16), t = strtoul(to, NULL, 16);
	long rc = migrate_pages(pid, MAXNODE + 1, &f, &t);

	printf("R migrate-pid rc=%ld errno=%d pid=%d\n", rc, rc < 0 ? errno : 0, pid);
	return 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static int wait_for(const char *go)
{
	for (int i = 0; i < 60000 && access(go, F_OK); i++)
		sleep_ms(10);
	if (access(go, F_OK)) {
		fprintf(stderr, "pn-access: %s never appeared\n", go);
		return -1;
	}
	return 0;
}

static int cmd_hold(long pages, const char *go)
{
	char *a = map(pages);

	report("hold-before", 0, 0, a, pages, touch(a, pages));
	if (wait_for(go))
		return 1;
	report("hold-after", 0, 0, a, pages, 0);
	return 0;
}

static int cmd_revoke(const char *hex, long pages, const char *go)
{
	unsigned long mask = strtoul(hex, NULL, 16);
	char *a = map(pages), *b = map(pages);
	long rc = mbind(a, (size_t)(pages * psz()), MPOL_BIND, &mask, MAXNODE + 1, 0);
	int err = rc ? errno : 0;

	/* b's policy is set now too: the withdrawal must reach an existing policy */
	if (!rc && mbind(b, (size_t)(pages * psz()), MPOL_BIND, &mask, MAXNODE + 1, 0))
		err = errno;
	report("revoke-before", rc, err, a, pages, touch(a, pages));
	if (wait_for(go))
		return 1;
	report("revoke-after", 0, 0, b, pages, touch(b, pages));
	return 0;
}

static void print_mask(const char *key, struct bitmask *m)
{
	const char *sep = "";

	printf(" %s=", key);
	for (unsigned int n = 0; m && n < m->size; n++)
		if (numa_bitmask_isbitset(m, n)) {
			printf("%s%u", sep, n);
			sep = ",";
		}
}

static int cmd_libnuma(void)
{
	struct bitmask *allowed;

	if (numa_available() < 0) {
		printf("R libnuma available=0\n");
		return 0;
	}
	allowed = numa_get_mems_allowed();
	printf("R libnuma available=1 configured_nodes=%d max_node=%d", numa_num_configured_nodes(),
	       numa_max_node());
	print_mask("nodes", numa_nodes_ptr);
	print_mask("all_nodes", numa_all_nodes_ptr);
	print_mask("mems_allowed", allowed);
	printf("\n");
	numa_bitmask_free(allowed);
	return 0;
}

static int driver_failed(int err, long pages)
{
	printf("R driver rc=-1 errno=%d pages=%ld sigbus=0 absent=%ld\n", err, pages, pages);
	return 0;
}

/* the driver's mmap path: no policy, the device's configuration decides */
static int cmd_driver(const char *hex, long pages, int strict)
{
	struct private_node_test_cfg cfg = { .nodemask = strtoull(hex, NULL, 16),
					     .flags = strict ? PNT_F_STRICT : 0 };
	struct private_node_test_stats st = { 0 };
	int fd = open(PNT_DEV, O_RDWR | O_CLOEXEC), err;
	char *a;

	if (fd < 0)
		return driver_failed(errno, pages);
	a = ioctl(fd, PNT_IOC_SET_CFG, &cfg) ? MAP_FAILED
					     : mmap(NULL, (size_t)(pages * psz()),
						    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (a == MAP_FAILED) {
		err = errno;
		close(fd);
		return driver_failed(err, pages);
	}
	report("driver", 0, 0, a, pages, touch(a, pages));
	if (ioctl(fd, PNT_IOC_GET_STATS, &st) == 0)
		printf("R driver-stats faults=%llu private=%llu fallback=%llu failed=%llu\n",
		       (unsigned long long)st.faults, (unsigned long long)st.private_pages,
		       (unsigned long long)st.fallback_pages, (unsigned long long)st.failed);
	munmap(a, (size_t)(pages * psz()));
	close(fd);
	return 0;
}

static int cmd_write(const char *file, const char *text)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC), err = 0;
	long rc = -1;

	if (fd < 0) {
		err = errno;
	} else {
		rc = write(fd, text, strlen(text));
		if (rc < 0)
			err = errno;
		close(fd);
	}
	printf("R write rc=%d errno=%d\n", rc < 0 ? -1 : 0, err);
	return 0;
}

static int drop_to(const char *uid)
{
	uid_t u = (uid_t)atoi(uid);

	if (setgroups(0, NULL) || setgid((gid_t)u) || setuid(u)) {
		perror("pn-access: dropping privileges");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_bus, .sa_flags = SA_NODEFER };

	sigaction(SIGBUS, &sa, NULL);
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	if (argc > 2 && !strcmp(argv[1], "-u")) {
		if (drop_to(argv[2]))
			return 1;
		argv += 2;
		argc -= 2;
	}
	if (argc < 2)
		return usage();
	if ((!strcmp(argv[1], "policy") || !strcmp(argv[1], "setpol")) && argc == 5)
		return cmd_policy(argv[1][0] == 's', argv[2], argv[3], atol(argv[4]));
	if (!strcmp(argv[1], "move") && argc == 4)
		return cmd_move(atoi(argv[2]), atol(argv[3]));
	if (!strcmp(argv[1], "migrate") && argc == 5)
		return cmd_migrate(argv[2], argv[3], atol(argv[4]));
	if (!strcmp(argv[1], "migrate-pid") && argc == 5)
		return cmd_migrate_pid(atoi(argv[2]), argv[3], argv[4]);
	if (!strcmp(argv[1], "hold") && argc == 4)
		return cmd_hold(atol(argv[2]), argv[3]);
	if (!strcmp(argv[1], "revoke") && argc == 5)
		return cmd_revoke(argv[2], atol(argv[3]), argv[4]);
	if (!strcmp(argv[1], "libnuma") && argc == 2)
		return cmd_libnuma();
	if (!strcmp(argv[1], "driver") && (argc == 4 || (argc == 5 && !strcmp(argv[4], "strict"))))
		return cmd_driver(argv[2], atol(argv[3]), argc == 5);
	if (!strcmp(argv[1], "write") && argc == 4)
		return cmd_write(argv[2], argv[3]);
	if (!strcmp(argv[1], "touch") && (argc == 3 || argc == 4)) {
		long pages = atol(argv[2]);
		char *a = map(pages);

		report("touch", 0, 0, a, pages, touch(a, pages));
		if (argc == 4)
			sleep_ms(atol(argv[3]));
		return 0;
	}
	return usage();
}
