// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfproc.c - software events of one process through libperf.  See perfproc.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfproc.h"
#include "core/lib/pn.h"

const char *const pn_perf_proc_names[PN_PP_N] = {
	"page_faults",	  "minor_faults",     "major_faults",
	"cpu_migrations", "context_switches", "cpu_clock_ns",
};

const char *pn_perf_proc_why(int err, char *buf, size_t len)
{
	char paranoid[32] = "?";

	if (err == -ENOSYS) {
		snprintf(buf, len, "built without libperf (make deps, then rebuild)");
		return buf;
	}
	if (pn_read_text("/proc/sys/kernel/perf_event_paranoid", paranoid, sizeof(paranoid)) > 0)
		paranoid[strcspn(paranoid, "\n")] = '\0';
	if (err == -EACCES || err == -EPERM)
		snprintf(buf, len,
			 "perf_event_open refused (%s; kernel.perf_event_paranoid %s): counting "
			 "needs paranoid <= 2 for one's own children, or CAP_PERFMON",
			 strerrorname_np(-err), paranoid);
	else if (err == -ENOENT || err == -EOPNOTSUPP)
		snprintf(buf, len, "perf_event_open: this kernel has no software events (%s)",
			 strerrorname_np(-err));
	else
		snprintf(buf, len, "perf_event_open: %s", strerror(-err));
	return buf;
}

#ifdef PN_HAVE_LIBPERF
#include <linux/perf_event.h>
#include <perf/core.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>

static const uint64_t sw_config[PN_PP_N] = {
	PERF_COUNT_SW_PAGE_FAULTS,    PERF_COUNT_SW_PAGE_FAULTS_MIN,  PERF_COUNT_SW_PAGE_FAULTS_MAJ,
	PERF_COUNT_SW_CPU_MIGRATIONS, PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_CPU_CLOCK,
};

struct pn_perf_proc {
	struct perf_thread_map *threads;
	struct perf_evsel *ev[PN_PP_N];
};

void pn_perf_proc_close(struct pn_perf_proc *p)
{
	if (!p)
		return;
	for (int i = 0; i < PN_PP_N; i++) {
		if (!p->ev[i])
			continue;
		perf_evsel__close(p->ev[i]);
		perf_evsel__delete(p->ev[i]);
	}
	perf_thread_map__put(p->threads);
	free(p);
}

int pn_perf_proc_open(pid_t pid, struct pn_perf_proc **out)
{
	struct pn_perf_proc *p = pn_xcalloc(1, sizeof(*p));
	int ret = 0;

	p->threads = perf_thread_map__new_array(1, &pid);
	if (!p->threads) {
		free(p);
		return -ENOMEM;
	}
	for (int i = 0; i < PN_PP_N && !ret; i++) {
		struct perf_event_attr a = {
			.size = sizeof(a),
			.type = PERF_TYPE_SOFTWARE,
			.config = sw_config[i],
			.inherit = 1,
			/* perf_event_paranoid 2 allows user-side counting only
			 * without CAP_PERFMON; faults are counted either way */
			.exclude_kernel = geteuid() != 0,
			.read_format =
				PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
		};

		p->ev[i] = perf_evsel__new(&a);
		if (!p->ev[i])
			ret = -ENOMEM;
		else
			ret = perf_evsel__open(p->ev[i], NULL, p->threads); /* any CPU */
	}
	if (ret) {
		pn_perf_proc_close(p);
		return ret < 0 ? ret : -EINVAL;
	}
	*out = p;
	return 0;
}

int pn_perf_proc_read(struct pn_perf_proc *p, struct pn_perf_proc_counts *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < PN_PP_N; i++) {
		struct perf_counts_values v;
		int ret;

		memset(&v, 0, sizeof(v));
		ret = perf_evsel__read(p->ev[i], 0, 0, &v);
		if (ret)
			return ret < 0 ? ret : -EIO;
		c->v[i] = v.val;
		if (i == 0) {
			c->enabled_ns = v.ena;
			c->running_ns = v.run;
		}
	}
	return 0;
}
#else
struct pn_perf_proc {
	int unused;
};

int pn_perf_proc_open(pid_t pid, struct pn_perf_proc **out)
{
	(void)pid;
	*out = NULL;
	return -ENOSYS;
}

int pn_perf_proc_read(struct pn_perf_proc *p, struct pn_perf_proc_counts *c)
{
	(void)p;
	memset(c, 0, sizeof(*c));
	return -ENOSYS;
}

void pn_perf_proc_close(struct pn_perf_proc *p)
{
	(void)p;
}
#endif
