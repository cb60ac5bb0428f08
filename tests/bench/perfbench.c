// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfbench.c - what the perf collector costs, side by side with
 * `perf record` over the same workload in the same run.
 *
 *   perfbench [-r ROUNDS] [-s SECONDS] [-w WORKERS] [-n NODES] [-P PERF]
 *             [-R RING_PAGES] [-W WAKEUP]   (the collector's ring options)
 *             [-m MODES]   (e.g. -m collector,perf-both; base always runs)
 *
 * The workload (WORKERS processes, default 1, pinned to CPUs 0..) faults
 * 64 MiB of anonymous memory page by page (THP off) and drops it with
 * MADV_DONTNEED, as fast as it can: one mm_page_alloc and one mm_page_free
 * per page.  Each round runs it SECONDS under every mode, in a rotating
 * order:
 *   base        nothing traces
 *   collector   the perf collector, nodes=NODES (default "0": every page of
 *               node 0 classified and tracked - the heaviest setting)
 *   coll-count  the collector with no tracked node and filter=none: every
 *               page sampled and counted per node (the same work as perf
 *               record: read, decode, account)
 *   coll-guard  the collector as a run on this host uses it: no tracked
 *               node, filter=auto (the kernel drops samples of untracked
 *               nodes' pages)
 *   perf-alloc  perf record -e kmem:mm_page_alloc -a
 *   perf-both   perf record -e kmem:mm_page_alloc -e kmem:mm_page_free -a
 * and prints per mode the medians over rounds of: workload pages per second
 * of its own CPU time (user + kernel: the machine may be shared, and
 * wall-clock rates would measure the neighbours), events/s
 * (a counting perf event on both tracepoints, every CPU), events the tracer
 * handled, lost, the tracer's CPU time (sum of its threads' schedstat run
 * time over the workload window) per event, and the workload's slowdown
 * against base.  perf record writes to /dev/shm and runs with -B -N (no
 * build-id work); its lost count comes from `perf report --stats`.
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>

#include "core/api/collector.h"
#include "core/lib/pn.h"
#include "core/api/workload.h"

extern const struct pn_collector pn_collector_perf;

enum { M_BASE, M_COLL, M_COUNT, M_GUARD, M_PERF_ALLOC, M_PERF_BOTH, M_N };
static const char *const mode_name[M_N] = { "base",	  "collector",	"coll-count",
					    "coll-guard", "perf-alloc", "perf-both" };

#define REGION_PAGES 16384
#define MAXR	     32

struct res {
	double pages_s, events_s, handled, lost, cpu_ns_per_event, cpu_pct;
};

static const char *perf_bin = "perf";
static const char *nodes_opt = "0";
static const char *ring_pages = "2048", *wakeup = "512K";
static unsigned modes = (1u << M_N) - 1; /* -m base,collector,...: only these */

/* ---- the workload ---- */

static void worker(int cpu, int go, int out, double secs)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)REGION_PAGES * (size_t)page;
	cpu_set_t set;
	unsigned char *m;
	uint64_t pages = 0, t0, end;
	char b;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	(void)sched_setaffinity(0, sizeof(set), &set);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || read(go, &b, 1) != 1)
		_exit(1);
	(void)madvise(m, len, MADV_NOHUGEPAGE);
	t0 = pn_now_ns();
	end = t0 + (uint64_t)(secs * 1e9);
	while (pn_now_ns() < end) {
		for (size_t i = 0; i < REGION_PAGES; i++)
			m[i * (size_t)page] = 1;
		(void)madvise(m, len, MADV_DONTNEED);
		pages += REGION_PAGES;
	}
	{
		/* pages per second of the worker's own CPU time (user + kernel):
		 * the machine is shared, so wall-clock rates measure the neighbours */
		struct timespec ts;
		double rate;

		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		rate = (double)pages / ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9);

		if (write(out, &rate, sizeof(rate)) != sizeof(rate))
			_exit(1);
	}
	_exit(0);
}

/* Run nw workers for secs; returns their summed pages/s. */
static double run_workload(int nw, double secs, void (*mid)(void *), void *arg)
{
	int go[2], out[2];
	pid_t pids[8];
	double sum = 0, r;

	if (pipe(go) || pipe(out))
		return -1;
	for (int i = 0; i < nw; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			worker(i % 2, go[0], out[1], secs);
	}
	if (mid)
		mid(arg); /* window opens */
	for (int i = 0; i < nw; i++)
		if (write(go[1], "g", 1) != 1)
			return -1;
	for (int i = 0; i < nw; i++) {
		if (read(out[0], &r, sizeof(r)) == sizeof(r))
			sum += r;
		waitpid(pids[i], NULL, 0);
	}
	close(go[0]), close(go[1]), close(out[0]), close(out[1]);
	return sum;
}

/* ---- measuring ---- */

/* CPU time of every thread of pid, ns (schedstat run time). */
static uint64_t cpu_ns(pid_t pid)
{
	char path[64], buf[128];
	struct dirent *de;
	uint64_t sum = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char rel[320];
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "/proc/%d/task/%s/schedstat", (int)pid, de->d_name);
		f = fopen(rel, "re");
		if (f && fgets(buf, sizeof(buf), f))
			sum += strtoull(buf, NULL, 10);
		if (f)
			fclose(f);
	}
	closedir(d);
	return sum;
}

static struct perf_evlist *counter;

static int counter_open(void)
{
	static const char *const ev[] = { "mm_page_alloc", "mm_page_free" };
	char rel[128];

	counter = perf_evlist__new();
	for (int i = 0; i < 2; i++) {
		uint64_t id;
		struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_TRACEPOINT };

		snprintf(rel, sizeof(rel), "/sys/kernel/tracing/events/kmem/%s/id", ev[i]);
		if (pn_read_u64(rel, &id, false))
			return -ENOENT;
		a.config = id;
		perf_evlist__add(counter, perf_evsel__new(&a));
	}
	perf_evlist__set_maps(counter, perf_cpu_map__new_online_cpus(),
			      perf_thread_map__new_dummy());
	return perf_evlist__open(counter);
}

static uint64_t counter_read(void)
{
	struct perf_evsel *e;
	uint64_t sum = 0;

	perf_evlist__for_each_evsel(counter, e)
	{
		int n = perf_cpu_map__nr(perf_evsel__cpus(e));

		for (int c = 0; c < n; c++) {
			struct perf_counts_values v = { 0 };

			if (!perf_evsel__read(e, c, 0, &v))
				sum += v.val;
		}
	}
	return sum;
}

/* ---- modes ---- */

struct win {
	pid_t tracer;
	uint64_t cpu0, ev0;
	struct pn_coll *c;
};

static void open_window(void *arg)
{
	struct win *w = arg;

	w->cpu0 = cpu_ns(w->tracer);
	w->ev0 = counter_read();
}

static int mode_coll(int nw, double secs, const char *nodes, const char *filter, struct res *r)
{
	struct pn_roles roles = { 0 };
	struct pn_env env = { .roles = &roles, .is_root = true };
	struct pn_coll c = { .ops = &pn_collector_perf, .env = &env };
	struct pn_phase_ctx ctx = { "bench", 0, &roles.private_nodes, 0, NULL };
	struct pn_event_report rep = { 0 };
	struct win w = { .tracer = getpid() };
	cJSON *in = cJSON_CreateObject(), *params = NULL;
	uint64_t ev1, cpu1;

	cJSON_AddStringToObject(in, "nodes", nodes);
	cJSON_AddStringToObject(in, "filter", filter);
	cJSON_AddNumberToObject(in, "ring_pages", atoi(ring_pages));
	cJSON_AddStringToObject(in, "wakeup", wakeup);
	cJSON_AddNumberToObject(in, "page_owner", 0); /* forensics are not the event path */
	if (strcmp(nodes, "private") != 0)
		(void)pn_nodeset_parse(&roles.private_nodes, nodes);
	if (pn_params_resolve(pn_collector_perf.opts, in, "perfbench", "$", &params))
		return -EINVAL;
	c.params.opts = pn_collector_perf.opts;
	c.params.obj = params;
	pn_series_init(&c.series, "perf");
	if (c.ops->open(&c) || c.ops->start(&c) || c.ops->phase_begin(&c, &ctx))
		return -EIO;
	r->pages_s = run_workload(nw, secs, open_window, &w);
	if (c.ops->phase_end(&c, &ctx, &rep))
		return -EIO;
	ev1 = counter_read();
	cpu1 = cpu_ns(w.tracer);
	r->events_s = (double)(ev1 - w.ev0) / secs;
	r->handled = (double)rep.events;
	r->lost = (double)rep.lost_events;
	r->cpu_ns_per_event = (double)(cpu1 - w.cpu0) / (double)(rep.events ? rep.events : 1);
	r->cpu_pct = (double)(cpu1 - w.cpu0) / (secs * 1e7);
	cJSON_Delete(rep.details);
	c.ops->close(&c);
	pn_series_free(&c.series);
	cJSON_Delete(params);
	cJSON_Delete(in);
	return 0;
}

static double perf_stat_line(const char *data, const char *key)
{
	char cmd[512], line[256];
	double v = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s report -i %s --stats 2>/dev/null", perf_bin, data);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		char *k = strstr(line, key);

		if (k && v == 0) /* the first (aggregated) line */
			v = strtod(k + strlen(key), NULL);
	}
	pclose(p);
	return v;
}

static int mode_perf(int nw, double secs, bool both, struct res *r)
{
	static const char *data = "/dev/shm/pnbench-perfbench.data";
	struct win w;
	uint64_t ev1, cpu1;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1), dup2(null, 2);
		if (both)
			execlp(perf_bin, perf_bin, "record", "-q", "-B", "-N", "-a", "-e",
			       "kmem:mm_page_alloc", "-e", "kmem:mm_page_free", "-o", data,
			       (char *)NULL);
		else
			execlp(perf_bin, perf_bin, "record", "-q", "-B", "-N", "-a", "-e",
			       "kmem:mm_page_alloc", "-o", data, (char *)NULL);
		_exit(127);
	}
	usleep(1500000); /* startup: synthesizing every task's maps */
	w.tracer = pid;
	r->pages_s = run_workload(nw, secs, open_window, &w);
	ev1 = counter_read();
	cpu1 = cpu_ns(pid);
	kill(pid, SIGINT);
	waitpid(pid, NULL, 0);
	r->events_s = (double)(ev1 - w.ev0) / secs;
	r->handled = perf_stat_line(data, "SAMPLE events:");
	r->lost =
		perf_stat_line(data, "LOST events:") + perf_stat_line(data, "LOST_SAMPLES events:");
	/* perf handled events during all of its life; per event of the window */
	r->cpu_ns_per_event =
		(double)(cpu1 - w.cpu0) / ((double)(ev1 - w.ev0) * (both ? 1.0 : 0.5));
	r->cpu_pct = (double)(cpu1 - w.cpu0) / (secs * 1e7);
	unlink(data);
	return 0;
}

/* ---- report ---- */

static double med(struct res *v, size_t n, size_t off)
{
	double x[MAXR];

	for (size_t i = 0; i < n; i++)
		memcpy(&x[i], (const char *)&v[i] + off, sizeof(x[i]));
	return pn_median(x, n);
}

/* The ratio of mode x's CPU per event to perf mode m's, round by round (the
 * two ran back to back): median, and min..max as the spread. */
static void ratio_line(struct res rs[M_N][MAXR], int rounds, int x, int m)
{
	double r[MAXR], lo = 1e300, hi = 0;
	size_t n = 0;

	if (!(modes & (1u << x)))
		return;
	for (int i = 0; i < rounds; i++) {
		if (rs[m][i].cpu_ns_per_event <= 0)
			continue;
		r[n] = rs[x][i].cpu_ns_per_event / rs[m][i].cpu_ns_per_event;
		lo = r[n] < lo ? r[n] : lo;
		hi = r[n] > hi ? r[n] : hi;
		n++;
	}
	if (n)
		printf("  %s / %s per round: median %.2f, min %.2f, max %.2f (%zu rounds)\n",
		       mode_name[x], mode_name[m], pn_median(r, n), lo, hi, n);
}

/* Mode x's slowdown against base round by round: median, min..max. */
static void slowdown_line(struct res rs[M_N][MAXR], int rounds, int x)
{
	double r[MAXR], lo = 1e300, hi = -1e300;
	size_t n = 0;

	for (int i = 0; i < rounds; i++) {
		if (rs[M_BASE][i].pages_s <= 0)
			continue;
		r[n] = 100.0 * (rs[M_BASE][i].pages_s - rs[x][i].pages_s) / rs[M_BASE][i].pages_s;
		lo = r[n] < lo ? r[n] : lo;
		hi = r[n] > hi ? r[n] : hi;
		n++;
	}
	if (n)
		printf("  %s slowdown per round: median %.1f%%, min %.1f%%, max %.1f%%\n",
		       mode_name[x], pn_median(r, n), lo, hi);
}

static void report(struct res rs[M_N][MAXR], int rounds)
{
	double base = med(rs[M_BASE], (size_t)rounds, offsetof(struct res, pages_s));
	double coll = med(rs[M_COLL], (size_t)rounds, offsetof(struct res, cpu_ns_per_event));
	double count = med(rs[M_COUNT], (size_t)rounds, offsetof(struct res, cpu_ns_per_event));

	printf("%-11s %12s %12s %12s %8s %12s %8s %9s\n", "mode", "pages/cpu-s", "events/s",
	       "handled", "lost", "cpu ns/ev", "cpu %", "slowdown");
	for (int m = 0; m < M_N; m++) {
		double p = med(rs[m], (size_t)rounds, offsetof(struct res, pages_s));

		if (!(modes & (1u << m)))
			continue;
		printf("%-11s %12.0f %12.0f %12.0f %8.0f %12.1f %8.1f %8.1f%%\n", mode_name[m], p,
		       med(rs[m], (size_t)rounds, offsetof(struct res, events_s)),
		       med(rs[m], (size_t)rounds, offsetof(struct res, handled)),
		       med(rs[m], (size_t)rounds, offsetof(struct res, lost)),
		       med(rs[m], (size_t)rounds, offsetof(struct res, cpu_ns_per_event)),
		       med(rs[m], (size_t)rounds, offsetof(struct res, cpu_pct)),
		       m == M_BASE ? 0.0 : 100.0 * (base - p) / base);
	}
	for (int m = M_PERF_ALLOC; m < M_N; m++) {
		double pr = med(rs[m], (size_t)rounds, offsetof(struct res, cpu_ns_per_event));

		if (!(modes & (1u << m)))
			continue;
		printf("cpu per event / %s (ratio of medians): coll-count %.2f, collector %.2f "
		       "(goal <= 0.5)\n",
		       mode_name[m], count / pr, coll / pr);
		ratio_line(rs, rounds, M_COUNT, m);
		ratio_line(rs, rounds, M_COLL, m);
	}
	for (int m = M_COLL; m < M_N; m++)
		if (modes & (1u << m))
			slowdown_line(rs, rounds, m);
	printf("medians of %d interleaved rounds\n", rounds);
}

int main(int argc, char **argv)
{
	static struct res rs[M_N][MAXR];
	int rounds = 5, nw = 1, opt;
	double secs = 3;

	while ((opt = getopt(argc, argv, "r:s:w:n:P:R:W:m:")) != -1) {
		switch (opt) {
		case 'r': rounds = atoi(optarg); break;
		case 's': secs = atof(optarg); break;
		case 'w': nw = atoi(optarg); break;
		case 'n': nodes_opt = optarg; break;
		case 'P': perf_bin = optarg; break;
		case 'R': ring_pages = optarg; break;
		case 'W': wakeup = optarg; break;
		case 'm':
			modes = 1u << M_BASE;
			for (int m = 0; m < M_N; m++)
				if (strstr(optarg, mode_name[m]))
					modes |= 1u << m;
			break;
		default:
			fprintf(stderr,
				"usage: perfbench [-r ROUNDS] [-s SECONDS] [-w WORKERS] "
				"[-n NODES] [-P PERF] [-R RING_PAGES] [-W WAKEUP] [-m MODES]\n");
			return PN_EXIT_USAGE;
		}
	}
	if (rounds < 1 || rounds > MAXR || nw < 1 || nw > 8 || secs <= 0)
		return PN_EXIT_USAGE;
	if (geteuid() != 0 || counter_open()) {
		fprintf(stderr, "perfbench: needs root and tracefs (kmem events)\n");
		return PN_EXIT_SKIP;
	}
	for (int i = 0; i < rounds; i++) {
		for (int k = 0; k < M_N; k++) {
			int m = (i + k) % M_N; /* rotate the order */
			struct res *r = &rs[m][i];
			int ret = 0;

			if (!(modes & (1u << m)))
				continue;
			memset(r, 0, sizeof(*r));
			if (m == M_BASE) {
				struct win w = { .tracer = getpid() };

				r->pages_s = run_workload(nw, secs, open_window, &w);
				r->events_s = (double)(counter_read() - w.ev0) / secs;
			} else if (m == M_COLL) {
				ret = mode_coll(nw, secs, nodes_opt, "none", r);
			} else if (m == M_COUNT || m == M_GUARD) {
				ret = mode_coll(nw, secs, "private", m == M_GUARD ? "auto" : "none",
						r);
			} else {
				ret = mode_perf(nw, secs, m == M_PERF_BOTH, r);
			}
			if (ret)
				return PN_EXIT_ERROR;
			fprintf(stderr,
				"round %d %-10s %10.0f pages/s %10.0f events/s lost %.0f "
				"cpu %.1f ns/event\n",
				i, mode_name[m], r->pages_s, r->events_s, r->lost,
				r->cpu_ns_per_event);
		}
	}
	report(rs, rounds);
	return 0;
}
