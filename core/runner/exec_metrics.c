// SPDX-License-Identifier: GPL-2.0-only
/*
 * exec_metrics.c - what `perf stat -- CMD` reports of the --exec command,
 * recorded as metrics of its phase (exec.metrics), each with its source:
 *
 *   elapsed_ns        CLOCK_MONOTONIC from its release at the exec trap to
 *                     its exit trap (where the last census is taken), taken
 *                     in a SIGCHLD handler when the kernel notifies the
 *                     stop, so the runner's wait loop adds nothing to it
 *   page_faults, minor_faults, major_faults, cpu_migrations,
 *   context_switches, cpu_clock_ns
 *                     software events of the command and every process it
 *                     forks (core/sys/perfproc.h, inherited counters), read
 *                     after the phase's after-read: what its children did
 *                     until they ended is in them.  Where perf_event_open
 *                     is refused they are absent, and
 *                     exec.software_events.reason says why.
 *   pages_on_node{node}, peak_pages_on_node{node}
 *                     its census (exec.c): pages mapped at exit, and the
 *                     most seen at any sample, per node it used.
 *
 * They go into the point's summary like a workload's metrics (workload
 * "--exec"), so `pnreport compare` and the dashboard track a command across
 * kernels; -r N repeats it as iterations (mean, stddev).
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/api/result.h"
#include "run_int.h"

/* The SIGCHLD handler's view: the command's pid and the last moment the
 * kernel notified a state change of it (a stop or its exit). */
static atomic_int chld_pid;
static atomic_uint_least64_t chld_ns;
static struct sigaction old_chld;
static bool handler_on;

static void on_sigchld(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	struct timespec ts;

	(void)sig;
	(void)uc;
	if (si && si->si_pid == atomic_load(&chld_pid) && clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
		atomic_store(&chld_ns, (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec);
	errno = saved;
}

static void handler_off(void)
{
	if (!handler_on)
		return;
	sigaction(SIGCHLD, &old_chld, NULL);
	handler_on = false;
	atomic_store(&chld_pid, 0);
}

void pn_exec_metrics_begin(struct pn_exec_state *x)
{
	struct sigaction sa;

	x->pp_err = pn_perf_proc_open(x->pid, &x->pp);
	if (x->pp_err)
		x->pp = NULL;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigchld;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	atomic_store(&chld_pid, x->pid);
	atomic_store(&chld_ns, 0);
	if (!handler_on && sigaction(SIGCHLD, &sa, &old_chld) == 0)
		handler_on = true;
}

void pn_exec_metrics_cont(struct pn_exec_state *x)
{
	x->cont_ns = pn_now_ns();
	if (!x->go_ns)
		x->go_ns = x->cont_ns;
}

/* At its exit trap (or its reaping without one): when it exited.  The
 * handler's time of the notification if it is of this stop (later than the
 * last time it was let go on), else now: the runner's wait loop is late by
 * at most one of its rounds. */
void pn_exec_metrics_exit(struct pn_exec_state *x)
{
	uint64_t t = atomic_load(&chld_ns), now = pn_now_ns();

	if (!x->exit_ns && x->go_ns)
		x->exit_ns = t >= x->cont_ns && t <= now ? t : now;
	if (x->exited)
		handler_off();
}

void pn_exec_metrics_end(struct pn_exec_state *x)
{
	handler_off();
	if (x->pp) {
		int ret = pn_perf_proc_read(x->pp, &x->counts);

		x->have_counts = ret == 0;
		if (ret)
			x->pp_err = ret;
		pn_perf_proc_close(x->pp);
		x->pp = NULL;
	}
}

static void metric(cJSON *arr, const char *name, const char *node, enum pn_unit unit,
		   enum pn_better better, double value, const char *source)
{
	cJSON *m = cJSON_CreateObject(), *lab;
	const char *b = pn_better_name(better);

	cJSON_AddStringToObject(m, "name", name);
	lab = cJSON_AddObjectToObject(m, "labels");
	if (node)
		cJSON_AddStringToObject(lab, "node", node);
	cJSON_AddStringToObject(m, "unit", pn_unit_name(unit));
	if (b)
		cJSON_AddStringToObject(m, "better", b);
	else
		cJSON_AddNullToObject(m, "better");
	cJSON_AddStringToObject(m, "aggregate", pn_agg_name(PN_AGG_MEAN));
	cJSON_AddNumberToObject(m, "value", value);
	cJSON_AddStringToObject(m, "source", source);
	cJSON_AddItemToArray(arr, m);
}

void pn_exec_metrics_json(cJSON *ej, const struct pn_exec_state *x)
{
	static const char sw[] = "perf software event of the command and its children "
				 "(perf_event_open, inherited counters)";
	cJSON *arr = cJSON_AddArrayToObject(ej, "metrics"), *se;
	char census[96], why[256], key[16];

	if (x->exit_ns > x->go_ns && x->go_ns)
		metric(arr, "elapsed_ns", NULL, PN_UNIT_NS, PN_BETTER_LOWER,
		       (double)(x->exit_ns - x->go_ns),
		       "CLOCK_MONOTONIC, its release at the exec trap to its exit");
	for (int i = 0; x->have_counts && i < PN_PP_N; i++)
		metric(arr, pn_perf_proc_names[i], NULL,
		       i == PN_PP_CPU_CLOCK_NS ? PN_UNIT_NS : PN_UNIT_COUNT, PN_BETTER_LOWER,
		       (double)x->counts.v[i], sw);
	snprintf(census, sizeof(census), "its census (%s) at exit, per node",
		 x->method ? x->method : "none");
	for (int n = 0; n < PN_MAX_NODES; n++) {
		if (!x->peak_pages[n])
			continue;
		snprintf(key, sizeof(key), "%d", n);
		metric(arr, "pages_on_node", key, PN_UNIT_PAGES, PN_BETTER_NONE,
		       (double)x->last_pages[n], census);
		metric(arr, "peak_pages_on_node", key, PN_UNIT_PAGES, PN_BETTER_NONE,
		       (double)x->peak_pages[n], "its census, the most at any sample, per node");
	}
	se = cJSON_AddObjectToObject(ej, "software_events");
	if (x->have_counts) {
		cJSON_AddStringToObject(se, "status", "ok");
		cJSON_AddNullToObject(se, "reason");
		/* running < enabled: the kernel multiplexed them, values scaled */
		cJSON_AddBoolToObject(se, "scaled", x->counts.running_ns < x->counts.enabled_ns);
	} else {
		cJSON_AddStringToObject(se, "status", "absent");
		cJSON_AddStringToObject(se, "reason",
					x->pp_err ? pn_perf_proc_why(x->pp_err, why, sizeof(why))
						  : "the command did not start");
		cJSON_AddBoolToObject(se, "scaled", false);
	}
}
