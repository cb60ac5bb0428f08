/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfproc.h - software events of one workload process through libperf:
 * page faults (all, minor, major), CPU migrations, context switches and
 * cpu-clock, counted (no sampling) for the process and, with inherit, every
 * thread and child it creates after the open.
 *
 * Use (the runner): fork the workload child so that it waits before its
 * run(); pn_perf_proc_open(pid); let it run; pn_perf_proc_read() at the phase
 * end - counts of exited children are folded in when they exit, and the
 * counters stay readable after the process itself exited - then
 * pn_perf_proc_close().  Works without root for one's own children
 * (perf_event_paranoid <= 2); -ENOSYS without libperf at build time.
 * pn_perf_proc_open() logs nothing: a refusal is the caller's to report,
 * in the words pn_perf_proc_why() gives it.
 */
#ifndef PN_PERFPROC_H
#define PN_PERFPROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum pn_perf_proc_counter {
	PN_PP_PAGE_FAULTS,
	PN_PP_MINOR_FAULTS,
	PN_PP_MAJOR_FAULTS,
	PN_PP_MIGRATIONS,
	PN_PP_CONTEXT_SWITCHES,
	PN_PP_CPU_CLOCK_NS,
	PN_PP_N
};

/* Metric names: "page_faults", "minor_faults", ..., "cpu_clock_ns". */
extern const char *const pn_perf_proc_names[PN_PP_N];

struct pn_perf_proc_counts {
	uint64_t v[PN_PP_N];
	uint64_t enabled_ns, running_ns; /* of the first counter: running < enabled = scaled */
};

struct pn_perf_proc;

/* 0, or -errno of perf_event_open (-ENOSYS: built without libperf). */
int pn_perf_proc_open(pid_t pid, struct pn_perf_proc **out);
/* Why the open failed with err, for people: "perf_event_open refused
 * (EACCES; kernel.perf_event_paranoid 3) ...", "built without libperf". */
const char *pn_perf_proc_why(int err, char *buf, size_t len);
int pn_perf_proc_read(struct pn_perf_proc *p, struct pn_perf_proc_counts *c);
void pn_perf_proc_close(struct pn_perf_proc *p);

#endif /* PN_PERFPROC_H */
