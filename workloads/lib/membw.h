/* SPDX-License-Identifier: GPL-2.0-only
 *
 * membw.h - memory bandwidth kernels run by pinned threads: read, write,
 * non-temporal write, copy and triad (STREAM's accounting: copy moves 2
 * bytes per element byte, triad 3; write-allocate traffic is not counted).
 * The same threads serve as the background load of a loaded-latency curve,
 * throttled as Intel MLC's --loaded_latency does: a delay spun between the
 * 64-byte lines each thread touches (0 = full speed).
 */
#ifndef PN_MEMBW_H
#define PN_MEMBW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/lib/pn.h"

enum pn_bw_kind { PN_BW_READ, PN_BW_WRITE, PN_BW_WRITE_NT, PN_BW_COPY, PN_BW_TRIAD, PN_BW_NKINDS };
const char *pn_bw_kind_name(enum pn_bw_kind k); /* "read", "write", "write_nt", "copy", "triad" */
int pn_bw_kind_parse(const char *s, enum pn_bw_kind *k); /* 0 or -EINVAL */
/* "read,copy" -> on[PN_BW_READ] = on[PN_BW_COPY] = true.  0 or -EINVAL. */
int pn_bw_kinds_parse(const char *list, bool on[PN_BW_NKINDS]);
unsigned pn_bw_arrays(enum pn_bw_kind k); /* arrays the kernel uses: 1..3 */
/* Non-temporal stores are real on this build (x86 movntdq); else write_nt
 * falls back to regular stores and results must say so. */
bool pn_bw_nt_native(void);

#define PN_BW_MAX_THREADS 256

struct pn_bw_job {
	enum pn_bw_kind kind;
	char *arr[3];	 /* pn_bw_arrays(kind) arrays of `bytes` each (a = dst for copy/triad) */
	size_t bytes;	 /* per array, split into one slice per thread */
	int nthreads;	 /* 1..PN_BW_MAX_THREADS */
	const int *cpus; /* cpus[i] for thread i; -1 or NULL = not pinned */
	uint32_t delay;	 /* spin iterations (about a CPU cycle each) after every 64-byte
			  * line of every array: MLC's injection delay; 0 = none */
};

struct pn_bw_result {
	double bytes_per_sec; /* sum over threads of bytes_i / time_i */
	uint64_t bytes;	      /* total counted bytes */
	uint64_t wall_ns;     /* from the start signal to the last thread's stop */
	int nthreads;
};

struct pn_bw_load; /* running threads */

/* Start the threads (they spin on the job until pn_bw_stop).  0 or -errno. */
int pn_bw_start(const struct pn_bw_job *j, struct pn_bw_load **out);
/* Stop, join, report (r may be NULL) and free.  0 or -errno. */
int pn_bw_stop(struct pn_bw_load *l, struct pn_bw_result *r);
/* Start, let run for duration_ms, stop. */
int pn_bw_measure(const struct pn_bw_job *j, uint64_t duration_ms, struct pn_bw_result *r);

/* Spin `iters` iterations of a dependent loop the compiler keeps (about one
 * CPU cycle each, no memory access): the injection delay. */
void pn_bw_spin(uint32_t iters);

/* Pin the calling thread to one CPU.  0 or -errno. */
int pn_pin_thread(int cpu);

/* Expand a kernel cpu list ("0-3,8") into cpus[]; returns the count (at most
 * max) or -EINVAL. */
int pn_cpulist_parse(const char *s, int *cpus, int max);

/* Thread counts of a curve: 0 when first is 0, then 1, 2, 4, ... and max
 * itself; at most nv of them.  Returns how many. */
int pn_count_steps(int first, int max, int *v, int nv);

/* Drop the CPUs this thread may not run on (cgroup cpusets, taskset) from
 * cpus[0..n); returns the new count. */
int pn_cpus_allowed(int *cpus, int n);

/* "0=38.4,2=19.2" -> v[0] = 38.4, v[2] = 19.2 (positive values, node ids
 * < PN_MAX_NODES; other entries untouched).  "" is valid.  0 or -EINVAL. */
int pn_node_values_parse(const char *s, double v[PN_MAX_NODES]);

#endif /* PN_MEMBW_H */
