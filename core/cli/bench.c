// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench.c - `pnbench bench collectors`: the CPU cost of one full per-node
 * sample, three ways, measured side by side in one run:
 *
 *  (pn) the vmstat, nodestat and zoneinfo collectors' sample() through
 *       pn_coll_sample() (files kept open, pread, parsed in place into a row);
 *  (a)  a shell monitor the way mmtests' monitors/watch-*.sh read the same
 *       files: one fork+exec of /bin/cat per file per interval, output to
 *       /dev/null.  (mmtests also runs `date` and `sleep` per monitor per
 *       interval; those are left out, so (a) is a lower bound.)
 *  (b)  bare reads: the same files kept open and pread into a buffer until
 *       EOF, no parsing - the floor any reader pays to the kernel.
 *
 * A full sample is /proc/vmstat, nodeN/{numastat,vmstat,meminfo} of every
 * node with memory (pn_nodes_with_memory()) and /proc/zoneinfo.  CPU time is
 * getrusage(RUSAGE_SELF) + getrusage(RUSAGE_CHILDREN), user + sys, so the
 * children's exec and the kernel's formatting of the files count.  Rounds
 * are interleaved (the order of the methods rotates every round) so drift in
 * the machine's state hits all three alike.  The goals - (a)/(pn) >= 20 and
 * (pn)/(b) <= 1.3 - are printed, never enforced.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "core/api/collector.h"
#include "core/sys/procfs.h"

extern char **environ;

enum { M_PN, M_SHELL, M_BARE, M_N };

static const char *const method_name[M_N] = {
	"(pn) pnbench collectors",
	"(a)  shell monitor, cat per file",
	"(b)  bare open-once pread",
};

struct bench {
	size_t nfiles;
	char **paths; /* full paths (sysroot applied) */
	int *fds;     /* (b): kept open */
	char *buf;    /* (b): read buffer */
	size_t bufsz;
	struct pn_coll coll[3];
	size_t ncoll;
	int devnull;
};

static double cpu_us(void)
{
	struct rusage s, c;

	getrusage(RUSAGE_SELF, &s);
	getrusage(RUSAGE_CHILDREN, &c);
	return (double)(s.ru_utime.tv_sec + s.ru_stime.tv_sec + c.ru_utime.tv_sec +
			c.ru_stime.tv_sec) *
		       1e6 +
	       (double)(s.ru_utime.tv_usec + s.ru_stime.tv_usec + c.ru_utime.tv_usec +
			c.ru_stime.tv_usec);
}

static void add_file(struct bench *b, const char *rel)
{
	char p[4096];

	if (pn_path(p, sizeof(p), rel))
		return;
	b->paths = pn_xrealloc(b->paths, (b->nfiles + 1) * sizeof(*b->paths));
	b->paths[b->nfiles++] = pn_strdup(p);
}

static int bench_setup(struct bench *b)
{
	static const char *const colls[] = { "vmstat", "nodestat", "zoneinfo" };
	struct pn_nodeset nodes;
	int node, ret;

	ret = pn_nodes_with_memory(&nodes);
	if (ret)
		return ret;
	add_file(b, "/proc/vmstat");
	pn_nodeset_for_each (node, &nodes) {
		static const char *const f[] = { "numastat", "vmstat", "meminfo" };

		for (size_t i = 0; i < PN_ARRAY_SIZE(f); i++) {
			char rel[128];

			snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d/%s", node,
				 f[i]);
			add_file(b, rel);
		}
	}
	add_file(b, "/proc/zoneinfo");

	b->fds = pn_xcalloc(b->nfiles, sizeof(*b->fds));
	for (size_t i = 0; i < b->nfiles; i++) {
		b->fds[i] = open(b->paths[i], O_RDONLY | O_CLOEXEC);
		if (b->fds[i] < 0)
			return pn_error(-errno, "%s: %s", b->paths[i], strerror(errno));
	}
	b->bufsz = 1 << 20;
	b->buf = pn_xmalloc(b->bufsz);
	b->devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (b->devnull < 0)
		return pn_error(-errno, "/dev/null: %s", strerror(errno));

	for (size_t i = 0; i < PN_ARRAY_SIZE(colls); i++) {
		struct pn_coll *c = &b->coll[i];

		memset(c, 0, sizeof(*c));
		c->ops = pn_collector_find(colls[i]);
		if (!c->ops)
			return pn_error(-ENOENT, "collector %s is not built in", colls[i]);
		c->params.opts = c->ops->opts;
		pn_series_init(&c->series, colls[i]);
		ret = c->ops->open(c);
		if (ret)
			return pn_error(ret, "collector %s: open failed", colls[i]);
		b->ncoll++;
	}
	return 0;
}

static void bench_teardown(struct bench *b)
{
	for (size_t i = 0; i < b->ncoll; i++) {
		b->coll[i].ops->close(&b->coll[i]);
		pn_series_free(&b->coll[i].series);
	}
	for (size_t i = 0; i < b->nfiles; i++) {
		if (b->fds && b->fds[i] > 0)
			close(b->fds[i]);
		free(b->paths[i]);
	}
	if (b->devnull > 0)
		close(b->devnull);
	free(b->paths);
	free(b->fds);
	free(b->buf);
}

static int run_pn(struct bench *b, int round)
{
	for (size_t i = 0; i < b->ncoll; i++) {
		int ret = pn_coll_sample(&b->coll[i], round, "bench");

		if (ret)
			return ret;
	}
	return 0;
}

static int run_shell(struct bench *b)
{
	posix_spawn_file_actions_t fa;
	int ret = 0;

	if (posix_spawn_file_actions_init(&fa) ||
	    posix_spawn_file_actions_adddup2(&fa, b->devnull, STDOUT_FILENO))
		return pn_error(-ENOMEM, "posix_spawn_file_actions");
	for (size_t i = 0; i < b->nfiles && !ret; i++) {
		char *argv[] = { (char *)"cat", b->paths[i], NULL };
		pid_t pid;
		int st;

		ret = posix_spawn(&pid, "/bin/cat", &fa, NULL, argv, environ);
		if (ret) {
			ret = pn_error(-ret, "/bin/cat: %s", strerror(ret));
			break;
		}
		while (waitpid(pid, &st, 0) < 0) {
			if (errno != EINTR) {
				ret = pn_error(-errno, "waitpid: %s", strerror(errno));
				break;
			}
		}
		if (!ret && (!WIFEXITED(st) || WEXITSTATUS(st)))
			ret = pn_error(-EIO, "cat %s failed", b->paths[i]);
	}
	posix_spawn_file_actions_destroy(&fa);
	return ret;
}

static int run_bare(struct bench *b)
{
	for (size_t i = 0; i < b->nfiles; i++) {
		off_t off = 0;
		ssize_t n;

		while ((n = pread(b->fds[i], b->buf, b->bufsz, off)) > 0)
			off += n;
		if (n < 0)
			return pn_error(-errno, "%s: %s", b->paths[i], strerror(errno));
	}
	return 0;
}

static void usage(FILE *out)
{
	fputs("usage: pnbench bench collectors [--samples N] [--interval-ms M]\n\n"
	      "CPU time (user+sys of this process and its children) of one full per-node\n"
	      "sample - /proc/vmstat, nodeN/{numastat,vmstat,meminfo} of every memory node,\n"
	      "/proc/zoneinfo - taken three ways in interleaved rounds:\n"
	      "  (pn) the vmstat, nodestat and zoneinfo collectors\n"
	      "  (a)  a shell monitor: fork+exec of /bin/cat per file (as mmtests' monitors)\n"
	      "  (b)  bare pread of the same files kept open, no parsing\n"
	      "Prints the median microseconds per sample and the ratios (a)/(pn) (goal >= 20)\n"
	      "and (pn)/(b) (goal <= 1.3).  A benchmark, not a test: it never fails on time.\n\n"
	      "  -n, --samples N       rounds (default 200)\n"
	      "  -i, --interval-ms M   pause between rounds (default 10)\n",
	      out);
}

/* "collectors" and its options: 0 to go on, -1 after --help, else the exit code */
static int bench_parse(int argc, char **argv, long *samples, long *interval_ms)
{
	static const struct option lo[] = {
		{ "samples", required_argument, NULL, 'n' },
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return -1;
	}
	if (argc < 2 || strcmp(argv[1], "collectors") != 0) {
		usage(stderr);
		return pn_cli_error(PN_EXIT_USAGE, "expected \"collectors\"%s%s",
				    argc >= 2 ? ", got " : "", argc >= 2 ? argv[1] : "");
	}
	argc--;
	argv++;
	optind = 1;
	while ((c = getopt_long(argc, argv, "n:i:h", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			*samples = strtol(optarg, &end, 10);
			if (*end || end == optarg || *samples < 1 || *samples > 1000000)
				return pn_cli_error(
					PN_EXIT_USAGE,
					"--samples: \"%s\" is not a count in 1..1000000", optarg);
			break;
		case 'i':
			*interval_ms = strtol(optarg, &end, 10);
			if (*end || end == optarg || *interval_ms < 0 || *interval_ms > 60000)
				return pn_cli_error(PN_EXIT_USAGE,
						    "--interval-ms: \"%s\" is not a number "
						    "of milliseconds in 0..60000",
						    optarg);
			break;
		case 'h': usage(stdout); return -1;
		default: usage(stderr); return PN_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return pn_cli_error(PN_EXIT_USAGE, "collectors: unexpected argument \"%s\"",
				    argv[optind]);
	}
	return 0;
}

/* samples rounds of every method, in a rotating order: CPU microseconds */
static int bench_rounds(struct bench *b, long samples, long interval_ms, double **t)
{
	for (long r = 0; r < samples; r++) {
		for (int k = 0; k < M_N; k++) {
			int m = (int)((r + k) % M_N);
			double t0 = cpu_us();
			int err;

			if (m == M_PN)
				err = run_pn(b, (int)r);
			else if (m == M_SHELL)
				err = run_shell(b);
			else
				err = run_bare(b);
			t[m][r] = cpu_us() - t0;
			if (err)
				return PN_EXIT_ERROR;
		}
		if (interval_ms) {
			struct timespec ts = { .tv_sec = interval_ms / 1000,
					       .tv_nsec = (interval_ms % 1000) * 1000000L };

			nanosleep(&ts, NULL);
		}
	}
	return 0;
}

static void bench_print(const struct bench *b, long samples, long interval_ms, double **t)
{
	double med[M_N];

	printf("pnbench bench collectors: %ld rounds, %ld ms apart, %zu files per sample "
	       "(vmstat, %zu nodes x numastat/vmstat/meminfo, zoneinfo)%s%s\n",
	       samples, interval_ms, b->nfiles, (b->nfiles - 2) / 3,
	       *pn_sysroot() ? ", sysroot " : "", pn_sysroot());
	printf("%-34s %12s %10s %10s\n", "method", "median us", "p10 us", "p90 us");
	for (int m = 0; m < M_N; m++) {
		double p10 = pn_percentile(t[m], (size_t)samples, 10);
		double p90 = pn_percentile(t[m], (size_t)samples, 90);

		med[m] = pn_median(t[m], (size_t)samples);
		printf("%-34s %12.1f %10.1f %10.1f\n", method_name[m], med[m], p10, p90);
	}
	printf("ratio (a)/(pn) = %.1f   (goal >= 20)\n",
	       med[M_PN] > 0 ? med[M_SHELL] / med[M_PN] : 0.0);
	printf("ratio (pn)/(b) = %.2f  (goal <= 1.3)\n",
	       med[M_BARE] > 0 ? med[M_PN] / med[M_BARE] : 0.0);
	if (med[M_PN] == 0 || med[M_BARE] == 0)
		printf("note: a median of 0 us means the CPU clock is too coarse here; "
		       "use more samples\n");
}

int pn_cmd_bench(int argc, char **argv)
{
	struct bench b = { .devnull = -1 };
	long samples = 200, interval_ms = 10;
	double *t[M_N] = { NULL };
	int ret = bench_parse(argc, argv, &samples, &interval_ms);

	if (ret)
		return ret < 0 ? PN_EXIT_PASS : ret;
	if (bench_setup(&b)) {
		ret = PN_EXIT_ERROR;
		goto out;
	}
	for (int m = 0; m < M_N; m++)
		t[m] = pn_xcalloc((size_t)samples, sizeof(double));
	/* One warm-up round of each, not counted (page cache of /bin/cat, ...). */
	if (run_pn(&b, -1) || run_shell(&b) || run_bare(&b))
		ret = PN_EXIT_ERROR;
	else
		ret = bench_rounds(&b, samples, interval_ms, t);
	if (!ret)
		bench_print(&b, samples, interval_ms, t);
out:
	for (int m = 0; m < M_N; m++)
		free(t[m]);
	bench_teardown(&b);
	return ret;
}
