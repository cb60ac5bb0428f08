/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * workload.h - the shape every workload has.
 *
 * A workload is one file workloads/<name>.c that defines
 *     const struct pn_workload pn_workload_<name> = { ... };
 * The build generates the registry from the file names, so adding a workload
 * touches only its own file.  A workload never parses argv, never prints
 * results and never writes JSON: it reports through w->res (result.h).
 *
 * Life cycle (the runner, run.c and child.c):
 *   parent:  needs, supported(env)  may it run here?  (listing, skip
 *                                reasons; pn_workload_supported() checks both)
 *   parent:  setup(w)            validate params (-EINVAL = config error,
 *                                exit 2), plan, declare needs: w->mem_bytes
 *                                (checked with every workload of the phase
 *                                against limits.max_mem_share), knobs
 *                                (pn_wl_knob), cgroup limits.  Must not take
 *                                the memory it measures.
 *   child:   run(w)              in its own process and cgroup leaf; takes
 *                                its memory, reports into w->res, returns
 *                                with the memory still mapped: the runner
 *                                snapshots the nodes and reads the cgroups
 *                                before it lets the child tear down.
 *   child:   teardown(w)         unmap, free (w->in_child is true)
 *   parent:  outcome(w, o)       optional: judge how the child ended (an
 *                                expected SIGBUS is a passing check)
 *   parent:  teardown(w)         free the parent's copy of priv, undo what
 *                                setup() made (w->in_child is false); also
 *                                after a failed setup, so it copes with a
 *                                half-built priv.
 * The child's death (OOM kill, SIGBUS, SIGSEGV, timeout) is an outcome in
 * the results, never a crash of the run.
 */
#ifndef PN_WORKLOAD_H
#define PN_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "params.h"
#include "core/lib/pn.h"
#include "result.h"

struct pn_topology;

/* Context handed to supported(): the machine as the run sees it. */
struct pn_env {
	const struct pn_topology *topo;
	const struct pn_roles *roles;
	bool is_root;
	bool have_cgroup; /* workloads get a memory cgroup leaf (v2, or v1 memory) */
};

/* What a workload cannot run without (struct pn_workload's needs), checked
 * for it by pn_workload_supported(), the one place that says why not. */
enum pn_need {
	PN_NEED_NUMA = 1u << 0,	 /* libnuma's memory policy calls (numa_available()) */
	PN_NEED_NODES = 1u << 1, /* the run has a private or a dram node to allocate on */
};
#define PN_NEED_ALL ((unsigned)PN_NEED_NUMA | PN_NEED_NODES)

/* How a workload's child process ended (filled by the runner). */
enum pn_end {
	PN_END_OK,	 /* run() returned 0, child exited 0 */
	PN_END_ERROR,	 /* run() returned an error */
	PN_END_SIGNAL,	 /* killed by a signal (not an OOM kill, not a timeout) */
	PN_END_OOM_KILL, /* SIGKILL with memory.events oom_kill rising in its cgroup */
	PN_END_TIMEOUT,	 /* the runner killed it at its timeout */
	PN_END_LOST,	 /* the child vanished without a result */
};
const char *pn_end_name(enum pn_end e);

struct pn_outcome {
	enum pn_end end;
	int exit_code; /* PN_END_OK/ERROR */
	int signal;    /* PN_END_SIGNAL/OOM_KILL/TIMEOUT */
	int err;       /* -errno run() returned */
	int64_t oom_kills;
	char detail[256];
};

#define PN_WL_MAX_KNOBS 16
struct pn_wl_knob {
	char key[128];
	char value[128];
};

struct pn_wl {
	const struct pn_workload *ops;
	struct pn_params params;
	const struct pn_roles *roles;
	const struct pn_topology *topo;
	struct pn_res res;
	bool background;	     /* runs beside the phase's foreground workloads */
	bool in_child;		     /* teardown(): the child, or the parent's copy */
	volatile sig_atomic_t *stop; /* set by the runner when a background workload must end */
	double max_mem_share;	     /* suite limit (limits.max_mem_share), 0 = none */
	/* needs, declared by setup() */
	uint64_t mem_bytes; /* memory it will take (checked against the suite budget) */
	/* of that, anonymous memory on the general (non-private) nodes that only
	 * swap could reclaim: the phase's sum must fit in what general
	 * allocations can use (MemAvailable less the private nodes' free) */
	uint64_t general_anon_bytes;
	uint64_t memory_max, memory_high; /* limits for its cgroup leaf (the config's win) */
	size_t nknobs;
	struct pn_wl_knob knobs[PN_WL_MAX_KNOBS];
	const char *cgroup_path; /* its leaf (child side), NULL without cgroups */
	void *priv;		 /* the workload's own state */
};

/* Long loops poll this: a signal or the runner asked the workload to stop. */
static inline bool pn_wl_should_stop(const struct pn_wl *w)
{
	return pn_should_stop() || (w->stop && *w->stop);
}

/* setup(): ask the runner to set a knob for the phase (restored after it). */
int pn_wl_knob(struct pn_wl *w, const char *key, const char *value);

/* Shorthands for w->res. */
#define pn_wl_metric(w, name, labels, value) pn_res_metric(&(w)->res, (name), (labels), (value))

struct pn_workload {
	const char *name;
	const char *summary;
	const struct pn_opt *opts;	      /* terminated by {NULL} */
	const struct pn_metric_decl *metrics; /* terminated by {NULL}; may be NULL */
	/* its process allocates on private nodes explicitly (with a policy that
	 * names them): event collectors count its pages there as explicit */
	bool explicit_alloc;
	unsigned needs; /* PN_NEED_* bits */
	/* what needs cannot say, or NULL: 0 if it can run here, else -errno
	 * and a reason in why.  Called only when the needs are met. */
	int (*supported)(const struct pn_env *env, char *why, size_t whylen);
	int (*setup)(struct pn_wl *w); /* parent; may be NULL */
	int (*run)(struct pn_wl *w);   /* child */
	/* parent, after the child ended; may add checks to w->res */
	void (*outcome)(struct pn_wl *w, const struct pn_outcome *o);
	void (*teardown)(struct pn_wl *w); /* child, then parent; may be NULL */
	/* pnbench list: the workload's own parts (e.g. each probe with its
	 * kernel path and why it would skip here), one line each; may be NULL */
	void (*list)(const struct pn_env *env, FILE *out);
};

/* Generated registry (build/gen/registry.c). */
extern const struct pn_workload *const pn_workloads[];
extern const size_t pn_nworkloads;
const struct pn_workload *pn_workload_find(const char *name);

/* 0 if w can run here: its needs met (in PN_NEED_* order), then its own
 * supported().  Else -errno and the reason in why. */
int pn_workload_supported(const struct pn_workload *w, const struct pn_env *env, char *why,
			  size_t whylen);
/* w's needs as "numa, nodes" ("none" without any) into buf; buf. */
const char *pn_workload_needs_format(unsigned needs, char *buf, size_t len);

#endif /* PN_WORKLOAD_H */
